#!/usr/bin/env python3
"""Corpus runs: the cases (kernels of tests/corpus/ on seeded inputs) and their numpy
references. `python3 tests/corpus_runs/gen.py` rewrites cases.txt, in/ and ref/ (numpy only;
deterministic). Machinery and the check format: lib.py. Tolerances: `why=` of each case.
"""
import math
import sys
import os

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import Case, randf, rng, to_bf16, from_bf16, write  # noqa: E402
import gen_more  # noqa: E402
import gen_numba_llc  # noqa: E402

F32, F64 = np.float32, np.float64
APPROX = "approx_instructions_(ex2/lg2/rsqrt/sqrt.approx,div.full)_are_not_bit-defined"
SUMORDER = "float_sums_in_another_order_than_numpy"


def tr(name):
    return f"tests/corpus/triton/{name}.sm_90.ptx"


def triton_cases():
    # vector add (BLOCK 256 / 1024, 4 warps); trailing u64 params: global and profile scratch
    for ty, blk in (("fp32", 1024), ("fp16", 256), ("bf16", 256)):
        n = 3000 if blk == 1024 else 1000
        grid = -(-n // blk)
        if ty == "bf16":
            x, y = to_bf16(randf(n, -8, 8)), to_bf16(randf(n, -8, 8))
            ref = to_bf16(from_bf16(x) + from_bf16(y))
        else:
            dt = F32 if ty == "fp32" else np.float16
            x, y = randf(n, -8, 8, dt), randf(n, -8, 8, dt)
            ref = x + y  # f16: one rounding through f32 is exact for +
        c = Case(f"tr_add_{ty}", tr(f"add.{ty}.b{blk}"), "add_kernel", grid, 128, 0,
                 "exactly_rounded_add")
        c.inp("x", x).inp("y", y).out("out", ref).u32(n).u64(0).u64(0).done()
    # fused softmax: each program loops over rows start, start+step, ...
    for ty, blk, rows, cols, warps in (("fp32", 128, 48, 100, 4), ("fp32", 1024, 6, 1000, 8),
                                       ("fp16", 128, 32, 128, 4)):
        dt = F32 if ty == "fp32" else np.float16
        x = (rng.standard_normal((rows, cols)) * 3).astype(dt)
        e = np.exp(x.astype(F64) - x.max(axis=1, keepdims=True))
        ref = (e / e.sum(axis=1, keepdims=True)).astype(dt)
        tol = "1e-5" if ty == "fp32" else "2e-3"
        c = Case(f"tr_softmax_{ty}_b{blk}", tr(f"softmax.{ty}.b{blk}"), "softmax_kernel",
                 min(rows, 16), 32 * warps, 16384, APPROX)
        c.out("out", ref, tol, tol).inp("in", x).u32(cols).u32(cols).u32(rows).u32(cols)
        c.u64(0).u64(0).done()
    # layer norm forward (BLOCK 512, two passes over N = 700)
    for ty in ("fp32", "fp16"):
        dt = F32 if ty == "fp32" else np.float16
        rows, n, eps = 12, 700, 1e-5
        x = (rng.standard_normal((rows, n)) * 2 + 0.5).astype(dt)
        w, b = randf(n, 0.5, 1.5, dt), randf(n, -0.5, 0.5, dt)
        xf = x.astype(F64)
        mean = xf.mean(axis=1)
        rstd = 1 / np.sqrt(((xf - mean[:, None]) ** 2).mean(axis=1) + eps)
        y = ((xf - mean[:, None]) * rstd[:, None] * w + b).astype(dt)
        tol = "1e-5" if ty == "fp32" else "2e-3"
        c = Case(f"tr_layer_norm_fwd_{ty}", tr(f"layer_norm_fwd.{ty}"), "layer_norm_fwd", rows, 128,
                 16384, APPROX + "_and_" + SUMORDER)
        c.inp("x", x).out("y", y, tol, tol).inp("w", w).inp("b", b)
        c.out("mean", mean.astype(F32), "1e-5", "1e-5").out("rstd", rstd.astype(F32), "1e-5", "1e-5")
        c.u32(n).u32(n).f32(eps).u64(0).u64(0).done()
    # layer norm backward dx with the per-group spin lock (GROUP 32, 64 rows: two rows a group;
    # fp32: the two partials of a group are added in either order, + is commutative, so DW/DB
    # are exact; fp16: Triton keeps one partial in f32, so the order matters by one fp16 ulp)
    for ty in ("fp32", "fp16"):
        dt = F32 if ty == "fp32" else np.float16
        rows, n, group = 64, 200, 32
        x = (rng.standard_normal((rows, n))).astype(dt)
        dy = (rng.standard_normal((rows, n))).astype(dt)
        w = randf(n, 0.5, 1.5, dt)
        xf = x.astype(F32)
        mean = xf.mean(axis=1, dtype=F64).astype(F32)
        rstd = (1 / np.sqrt(((xf - mean[:, None]).astype(F64) ** 2).mean(axis=1) + 1e-5)).astype(F32)
        xhat = (xf - mean[:, None]) * rstd[:, None]
        wdy = w.astype(F32) * dy.astype(F32)
        c1 = (xhat.astype(F64) * wdy).sum(axis=1) / n
        c2 = wdy.astype(F64).sum(axis=1) / n
        dx = ((wdy - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]).astype(dt)
        pdw = (dy.astype(F32) * xhat).astype(dt)
        pdb = dy.astype(dt)
        dw = (pdw[:group].astype(F32) + pdw[group:].astype(F32)).astype(dt)
        db = (pdb[:group].astype(F32) + pdb[group:].astype(F32)).astype(dt)
        lock = np.zeros(2 * group, np.int32)
        lock_ref = np.concatenate([np.zeros(group, np.int32), np.ones(group, np.int32)])
        tol = "1e-5" if ty == "fp32" else "2e-3"
        why = "dx:" + APPROX + (";dw/db:the_two_partials_added_in_either_order_give_the_same_sum" if ty == "fp32" else
                                ";dw:Triton_adds_the_other_row's_rounded_fp16_partial_to_its_own_f32_partial:"
                                "order-dependent_(which_CTA_takes_the_lock_first)")
        c = Case(f"tr_layer_norm_bwd_{ty}", tr(f"layer_norm_bwd_dx.{ty}"), "layer_norm_bwd_dx",
                 rows, 128, 16384, why)
        dwt = "0" if ty == "fp32" else "1e-3"
        c.out("dx", dx, tol, tol).inp("dy", dy).out("dw", dw, dwt, "1e-6" if ty == "fp32" else "2e-3")
        c.out("db", db, "0", "0").inp("x", x).inp("w", w).inp("mean", mean).inp("rstd", rstd)
        c.io("lock", lock, lock_ref).u32(n).u32(n).u64(0).u64(0).done()
    # row reductions: sum then max of each row (BLOCK 512, 500 columns)
    for ty in ("fp32", "i32", "i64"):
        rows, n = 16, 500
        if ty == "fp32":
            x = randf(rows * n, -2, 2).reshape(rows, n)
            ref = np.concatenate([x.astype(F64).sum(axis=1).astype(F32), x.max(axis=1)])
            g, r = "0", "1e-6"
        else:
            dt = np.int32 if ty == "i32" else np.int64
            x = rng.integers(-1000, 1000, (rows, n)).astype(dt)
            ref = np.concatenate([x.sum(axis=1), x.max(axis=1)]).astype(dt)
            g, r = "0", "0"
        c = Case(f"tr_row_sum_{ty}", tr(f"row_sum.{ty}"), "row_sum_kernel", rows, 128, 16384,
                 "GPU_tree_order_is_fixed;" + SUMORDER)
        c.inp("x", x).out("out", ref, g, r).u32(n).u64(0).u64(0).done()
    # cumsum over one block of 256
    for ty in ("fp32", "i32"):
        if ty == "fp32":
            x = randf(256, -2, 2)
            ref, g, r = np.cumsum(x.astype(F64)).astype(F32), "0", "1e-6"
        else:
            x = rng.integers(-10**6, 10**6, 256).astype(np.int32)
            ref, g, r = np.cumsum(x).astype(np.int32), "0", "0"
        c = Case(f"tr_cumsum_{ty}", tr(f"cumsum.{ty}"), "cumsum_kernel", 1, 128, 16384,
                 "scan_order_fixed_on_the_GPU;" + SUMORDER)
        c.inp("x", x).out("out", ref, g, r).u64(0).u64(0).done()
    # gelu-like elementwise math: erf, exp, exp2, log, sigmoid
    erf = np.vectorize(math.erf)
    for ty in ("fp32", "fp16"):
        dt = F32 if ty == "fp32" else np.float16
        n = 1500
        x = randf(n, -4, 4, dt)
        xf = x.astype(F64)
        y = 0.5 * xf * (1 + erf(xf * 0.7071067811865476))
        y = y + 1 / (1 + np.exp(-xf)) * np.abs(xf) + np.exp2(-xf * xf) + np.log(1 + xf * xf)
        tol = "1e-5" if ty == "fp32" else "2e-3"
        c = Case(f"tr_gelu_{ty}", tr(f"gelu.{ty}"), "gelu_kernel", 3, 128, 0, APPROX)
        c.inp("x", x).out("out", y.astype(dt), tol, tol).u32(n).u64(0).u64(0).done()
    # integer ops: a//b a%b (C: truncating), shifts, xor, min, umulhi; out[0] is the atomic sum
    # of every lane's r (masked lanes load a = b = 1 and count too)
    for ty, bits in (("i32", 32), ("i64", 64)):
        dt = np.int32 if bits == 32 else np.int64
        n, blk = 1000, 256
        lim = 2**31 - 1 if bits == 32 else 2**63 - 1
        a = rng.integers(-lim, lim, n, dtype=np.int64).astype(dt)
        b = rng.integers(-1000, 1000, n).astype(dt)
        b[b == 0] = 7
        mask, half = (1 << bits) - 1, 1 << (bits - 1)

        def wrap(v):
            v &= mask
            return v - (1 << bits) if v >= half else v

        def r_of(x, y):
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            m = x - q * y
            hi = ((x & mask) * (y & mask)) >> bits
            return wrap(q + m + wrap(x << 3) + (x >> 2) + (x ^ y) + min(x, y) + wrap(hi))

        rs = [r_of(int(p), int(q)) for p, q in zip(a, b)]
        pad = (-n) % blk
        total = wrap(sum(rs) + pad * r_of(1, 1))
        ref = np.array([total] + rs, dtype=dt)
        c = Case(f"tr_int_ops_{ty}", tr(f"int_ops.{ty}"), "int_ops_kernel", 4, 128, 16384, "integer")
        c.inp("a", a).inp("b", b).out("out", ref).u32(n).u64(0).u64(0).done()
    # masked dropout: keep ? x / (1 - p) : 0 (div.full.f32)
    n, p = 2000, 0.3
    x = randf(n, -3, 3)
    keep = (rng.random(n) < 0.6).astype(np.uint8)
    ref = np.where(keep == 1, x.astype(F64) / (1 - F64(F32(p))), 0).astype(F32)
    c = Case("tr_masked_dropout_fp32", tr("masked_dropout.fp32"), "masked_dropout_kernel", 2, 128, 0,
             APPROX)
    c.inp("x", x).inp("keep", keep).out("out", ref, "1e-6", "1e-6").u32(n).f32(p).u64(0).u64(0).done()


def all_cases():
    triton_cases()
    gen_more.cuda_cases("nvrtc", {
        "reduction": "tests/corpus/nvrtc/reduction.sm_90.ptx",
        "scan": "tests/corpus/nvrtc/scan.sm_90.ptx",
        "transpose": "tests/corpus/nvrtc/transpose.sm_90.ptx",
        "stencil": "tests/corpus/nvrtc/stencil.sm_90.ptx",
        "matmul": "tests/corpus/nvrtc/matmul.sm_90.ptx",
        "histogram": "tests/corpus/nvrtc/histogram.sm_90.ptx",
        "samples": "tests/corpus/nvrtc/samples_misc.sm_90.ptx",
        "vectors": "tests/corpus/nvrtc/vectors_ldst.sm_90.ptx",
    })
    gen_more.cuda_cases("clang", {
        "reduction": "tests/corpus/clang/reduction.cuda.sm_86.ptx71.O3.ptx",
        "scan": "tests/corpus/clang/scan.cuda.sm_89.ptx81.O2.ptx",
        "transpose": "tests/corpus/clang/transpose.cuda.sm_90.ptx85.O2.ptx",
        "matmul": "tests/corpus/clang/matmul.cuda.sm_89.ptx81.O2.ptx",
        "histogram": "tests/corpus/clang/histogram.cuda.sm_70.ptx70.O2.ptx",
        "samples": "tests/corpus/clang/samples_misc.cuda.sm_90.ptx85.O2.ptx",
        "vectors": "tests/corpus/clang/vectors_ldst.cuda.sm_89.ptx81.O2.ptx",
    })
    gen_more.clang_kernels()
    gen_numba_llc.numba_cases()
    gen_numba_llc.llc_cases()


if __name__ == "__main__":
    write(all_cases)
