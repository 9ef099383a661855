"""Corpus runs, part 2 (used by gen.py): the CUDA C++ kernels of scripts/corpus/cuda/ as
NVRTC and clang compiled them, clang's tests/kernels/ files, numba-cuda's documentation
kernels and llc's generated binary-operation and comparison kernels, with numpy references.
"""
import numpy as np

from lib import Case, randf, rng

F32, F64 = np.float32, np.float64
U32 = np.uint32
APPROX = "approx_instructions_(__expf,__logf,__fdividef,rsqrtf)_are_not_bit-defined"
SUMORDER = "float_sums_(and_fma_contraction)_differ_from_numpy's_order"
EXACT = "exactly_defined"
# Known difference (README.md): the GPU's PTX compiler fuses an unrounded mul.f32/f64 into the
# add/sub that uses it (one rounding, fma); ptxjit rounds both.
CONTRACT = "GPU_contracts_unrounded_mul+sub_into_fma,_ptxjit_rounds_twice_(known_difference)"


def fma32(a, b, c):
    """fmaf: a*b exact in f64, then c added; rounded to f32 (double rounding is possible, so
    references built on it get a small tolerance)."""
    return (a.astype(F64) * b.astype(F64) + c.astype(F64)).astype(F32)


def cuda_cases(gen, ptx):
    """The kernels of scripts/corpus/cuda/*.cu, compiled by `gen` (nvrtc or clang)."""
    p = gen[:2]
    f = ptx["reduction"]
    n = 1000
    x = rng.integers(-10**5, 10**5, n).astype(np.int32)
    ref = np.array([x[i * 256:(i + 1) * 256].sum() for i in range(4)], np.int32)
    Case(f"{p}_reduce0", f, "reduce0", 4, 256, 0, EXACT).inp("in", x).out("out", ref).u32(n).done()
    n = 2000
    x = randf(n, -1, 1)
    ref = np.array([x[i * 512:(i + 1) * 512].astype(F64).sum() for i in range(4)], F32)
    Case(f"{p}_reduce3", f, "reduce3", 4, 256, 0, SUMORDER).inp("in", x).out("out", ref, "0", "1e-6").u32(n).done()
    n = 3000
    x = randf(n, -1, 1)
    ref = np.array([x.astype(F64).sum()], F32)
    Case(f"{p}_reduce_shfl", f, "reduce_shfl", 1, 256, 0, "one_block:_one_atomicAdd_onto_0;" + SUMORDER) \
        .inp("in", x).out("out", ref, "0", "1e-5").u32(n).done()
    n = 1000
    x = rng.integers(0, 2**64 - 1, n, dtype=np.uint64)
    Case(f"{p}_reduce_max_u64", f, "reduce_max_u64", 2, 128, 0, "atomicMax_is_order-free") \
        .inp("in", x).out("out", np.array([x.max()], np.uint64)).u32(n).done()
    n = 5000
    x = randf(n, -1, 1, F64)
    ref = np.zeros(4, F64)
    for b in range(4):
        part = [x[b * 256 + t::1024].sum() for t in range(256)]
        ref[b] = np.sum(part)
    Case(f"{p}_reduce_double", f, "reduce_double", 4, 256, 0, SUMORDER).inp("in", x) \
        .out("out", ref, "0", "1e-12").u32(n).done()

    f = ptx["scan"]
    n = 256
    x = randf(n, -1, 1)
    ref = np.concatenate([[0], np.cumsum(x[:-1].astype(F64))]).astype(F32)
    Case(f"{p}_scan_naive", f, "scan_naive", 1, 256, 2 * n * 4, SUMORDER).inp("in", x) \
        .out("out", ref, "0", "1e-5").u32(n).done()
    n = 512
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    ref = np.concatenate([[0], np.cumsum(x[:-1])]).astype(np.int32)
    Case(f"{p}_scan_blelloch", f, "scan_blelloch", 1, 256, n * 4, EXACT).inp("in", x).out("out", ref).u32(n).done()
    x = rng.integers(0, 2**32 - 1, 1024, dtype=np.uint64).astype(U32)
    blocks = x.reshape(4, 256).astype(np.uint64)
    inc = (np.cumsum(blocks, axis=1) & 0xFFFFFFFF).astype(U32)
    Case(f"{p}_scan_warp", f, "scan_warp", 4, 256, 0, EXACT).inp("in", x).out("out", inc.reshape(-1)) \
        .out("sums", inc[:, -1].copy()).done()

    f = ptx["transpose"]
    w, h = 64, 96
    a = randf(w * h, -10, 10).reshape(h, w)
    for k in ("transpose_naive", "transpose_coalesced"):
        Case(f"{p}_{k}", f, k, (2, 3, 1), (32, 8, 1), 0, EXACT).out("o", a.T.copy()).inp("i", a).u32(w).u32(h).done()
    a = randf(64 * 64, -10, 10, F64).reshape(64, 64)
    Case(f"{p}_transpose_noconflict", f, "transpose_noconflict", (2, 2, 1), (32, 8, 1), 0, EXACT) \
        .out("o", a.T.copy()).inp("i", a).u32(64).done()

    if "stencil" in ptx:
        f = ptx["stencil"]
        nx, ny = 40, 24
        a = randf(nx * ny, -1, 1).reshape(ny, nx)
        b = np.zeros_like(a)
        b[1:-1, 1:-1] = F32(0.25) * (((a[1:-1, :-2] + a[1:-1, 2:]) + a[:-2, 1:-1]) + a[2:, 1:-1])
        Case(f"{p}_jacobi2d", f, "jacobi2d", (3, 3, 1), (16, 8, 1), 0, EXACT).inp("a", a).out("b", b) \
            .u32(nx).u32(ny).done()
        n, cc = 12, 0.1
        a = randf(n ** 3, 0, 1, F64).reshape(n, n, n)
        b = np.zeros_like(a)
        s = a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1] + a[:-2, 1:-1, 1:-1] \
            + a[2:, 1:-1, 1:-1] - 6.0 * a[1:-1, 1:-1, 1:-1]
        b[1:-1, 1:-1, 1:-1] = a[1:-1, 1:-1, 1:-1] + cc * s
        Case(f"{p}_heat3d", f, "heat3d", 1, (16, 16, 1), 0, SUMORDER + ";" + CONTRACT).inp("a", a) \
            .out("b", b, "1e-15", "1e-12") \
            .u32(n).f64(cc).done()

    f = ptx["matmul"]
    m, nn, k = 40, 24, 33
    a, b = randf(m * k).reshape(m, k), randf(k * nn).reshape(k, nn)
    ref = (a.astype(F64) @ b.astype(F64)).astype(F32)
    Case(f"{p}_mm_naive", f, "mm_naive", (2, 3, 1), (16, 16, 1), 0, SUMORDER).inp("A", a).inp("B", b) \
        .out("C", ref, "0", "1e-5").u32(m).u32(nn).u32(k).done()
    a, b = randf(32 * 32).reshape(32, 32), randf(32 * 48).reshape(32, 48)
    ref = (a.astype(F64) @ b.astype(F64)).astype(F32)
    Case(f"{p}_mm_tiled", f, "mm_tiled", (3, 2, 1), (16, 16, 1), 0, SUMORDER).inp("A", a).inp("B", b) \
        .out("C", ref, "0", "1e-5").u32(32).u32(48).done()
    a, b = randf(32 * 32).reshape(32, 32), randf(32 * 32).reshape(32, 32)
    ref = (a.astype(F64) @ b.astype(F64)).astype(F32)
    Case(f"{p}_mm_reg4", f, "mm_reg4", (2, 1, 1), (16, 8, 1), 0, SUMORDER).inp("A", a).inp("B", b) \
        .out("C", ref, "0", "1e-5").u32(32).done()
    a, b, cm = (randf(32 * 32, -1, 1, F64).reshape(32, 32) for _ in range(3))
    ref = 1.5 * (a @ b) - 0.5 * cm
    Case(f"{p}_dgemm_tiled", f, "dgemm_tiled", (2, 2, 1), (16, 16, 1), 0, SUMORDER).inp("A", a).inp("B", b) \
        .io("C", cm, ref, "0", "1e-12").u32(32).f64(1.5).f64(-0.5).done()

    f = ptx["histogram"]
    n = 5000
    d = rng.integers(0, 256, n).astype(np.uint8)
    Case(f"{p}_hist_global", f, "hist_global", 4, 128, 0, EXACT).inp("d", d) \
        .out("h", np.bincount(d, minlength=256).astype(U32)).u32(n).done()
    d = rng.integers(0, 2**32 - 1, 2000, dtype=np.uint64).astype(U32)
    Case(f"{p}_hist256_shared", f, "hist256_shared", 4, 256, 0, EXACT).inp("d", d) \
        .out("h", np.bincount(d.view(np.uint8), minlength=256).astype(U32)).u32(2000).done()
    n, bins = 3000, 50
    x = randf(n, -1.2, 1.2)
    bi = ((x - F32(-1)) / (F32(1) - F32(-1)) * F32(bins)).astype(np.int32)
    bi = np.clip(bi, 0, bins - 1)
    Case(f"{p}_hist_float_bins", f, "hist_float_bins", 12, 256, 0, EXACT).inp("x", x) \
        .out("h", np.bincount(bi, minlength=bins).astype(np.int32)).u32(n).f32(-1.0).f32(1.0).u32(bins).done()
    n = 1000
    keys = rng.integers(0, 2**32 - 1, n, dtype=np.uint64).astype(U32)
    Case(f"{p}_hist_warp_agg", f, "hist_warp_agg", 4, 256, 0, "match.any_with_a_partial_last_warp") \
        .inp("keys", keys).out("h", np.bincount(keys & 63, minlength=64).astype(U32)).u32(n).done()

    f = ptx["samples"]
    n = 1000
    a, b = randf(n, -5, 5), randf(n, -5, 5)
    Case(f"{p}_vectorAdd", f, "vectorAdd", 4, 256, 0, EXACT).inp("A", a).inp("B", b).out("C", a + b).u32(n).done()
    s, xx, t = randf(n, 5, 30), randf(n, 1, 100), randf(n, 0.25, 10)
    r_, v_ = F32(0.02), F32(0.3)
    call, put = black_scholes(s, xx, t, r_, v_)
    Case(f"{p}_BlackScholes", f, "BlackScholes", 2, 256, 0, APPROX).out("call", call, "1e-5", "1e-4") \
        .out("put", put, "1e-5", "1e-4").inp("S", s).inp("X", xx).inp("T", t).f32(r_).f32(v_).u32(n).done()
    nb, dt, eps2 = 256, F32(0.01), F32(0.01)
    pos = np.concatenate([randf((nb, 3), -1, 1), randf((nb, 1), 0.5, 1)], axis=1).astype(F32)
    vel = randf((nb, 4), -0.1, 0.1)
    pv = pos.astype(F64)
    rvec = pv[None, :, :3] - pv[:, None, :3]
    d2 = (rvec ** 2).sum(axis=2) + F64(eps2)
    acc = (rvec * (pv[None, :, 3] / d2 ** 1.5)[:, :, None]).sum(axis=1)
    vref = vel.astype(F64)
    vref[:, :3] += acc * F64(dt)
    Case(f"{p}_nbody_step", f, "nbody_step", 2, 128, 128 * 16, APPROX + ";" + SUMORDER).inp("pos", pos) \
        .io("vel", vel, vref.astype(F32), "1e-5", "1e-4").u32(nb).f32(dt).f32(eps2).done()
    w, h, r = 40, 30, 2
    img = rng.integers(0, 256, (h, w)).astype(np.uint8)
    box = np.zeros_like(img)
    for yy in range(h):
        for xq in range(w):
            win = img[max(0, yy - r):yy + r + 1, max(0, xq - r):xq + r + 1]
            box[yy, xq] = int(win.astype(np.int64).sum()) // win.size
    Case(f"{p}_boxfilter", f, "boxfilter", (3, 2, 1), (16, 16, 1), 0, EXACT).inp("in", img).out("out", box) \
        .u32(w).u32(h).u32(r).done()
    n = 1000
    rgba = rng.integers(0, 256, (n, 4)).astype(np.uint8)
    gray = (0.299 * rgba[:, 0] + 0.587 * rgba[:, 1] + 0.114 * rgba[:, 2]).astype(np.uint8)
    Case(f"{p}_rgba_to_gray", f, "rgba_to_gray", 4, 256, 0, "float_to_uint8:_numpy_rounds_in_f64,_off_by_one_allowed")\
        .inp("in", rgba).out("out", gray, "0", "0.005").u32(n).done()

    f = ptx["vectors"]
    n = 500
    a = randf(n * 4, -9, 9)
    Case(f"{p}_v4copy", f, "v4copy", 2, 256, 0, EXACT).inp("a", a).out("b", a.reshape(n, 4)[:, ::-1].copy()) \
        .u32(n).done()
    a = randf(8, -9, 9)
    Case(f"{p}_mixed_vec", f, "mixed_vec", 1, 1, 0, EXACT).inp("a", a) \
        .out("out", np.array([((a[0] + a[2]) + a[4]) + a[6]], F32)).done()
    s = rng.integers(-300, 300, 64).astype(np.int16)
    ch = rng.integers(-128, 128, 64).astype(np.int8)
    us = rng.integers(0, 65536, 64).astype(np.uint16)
    o = (s.astype(np.int32) * ch + us.astype(np.int32) - ch[np.arange(64) ^ 1]).astype(np.int32)
    Case(f"{p}_short_char", f, "short_char", 1, 64, 0, EXACT).inp("s", s).inp("c", ch).inp("us", us) \
        .out("o", o).done()
    i2 = rng.integers(-1000, 1000, (64, 2)).astype(np.int32)
    d2 = randf((64, 2), -3, 3, F64)
    Case(f"{p}_int2_double2", f, "int2_double2", 1, 64, 0, SUMORDER).inp("a", i2).inp("b", d2) \
        .out("o", (i2 * d2).sum(axis=1), "0", "1e-12").done()
    odd = np.dtype([("c", "i1"), ("p0", "u1"), ("s", "<i2"), ("i", "<i4"), ("d", "<f8"), ("t", "u1", 3),
                    ("p1", "u1", 5)])
    st = np.zeros(32, odd)
    st["c"], st["s"] = rng.integers(-128, 128, 32), rng.integers(-3000, 3000, 32)
    st["i"], st["d"] = rng.integers(-10**6, 10**6, 32), randf(32, -5, 5, F64)
    st["t"] = rng.integers(0, 256, (32, 3))
    so = st.copy()
    so["i"] += so["c"]
    so["d"] *= so["s"]
    Case(f"{p}_struct_copy", f, "struct_copy", 1, 32, 0, EXACT).inp("a", st.view(np.uint8)) \
        .out("b", so.view(np.uint8)).done()
    x = randf(64, -9, 9)
    ref = x[::-1] + (x.astype(F64) * 2.0)[(np.arange(64) + 1) % 64].astype(F32)
    Case(f"{p}_dyn_shared", f, "dyn_shared", 1, 64, 64 * 4 + 16 + 64 * 8, EXACT).inp("in", x).out("out", ref).done()


def black_scholes(s, x, t, r, v):
    s, x, t, r, v = (np.asarray(q, F64) for q in (s, x, t, r, v))

    def cndf(d):
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        k = 1 / (1 + 0.2316419 * np.abs(d))
        c = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
        return np.where(d > 0, 1 - c, c)
    sq = np.sqrt(t)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * sq)
    d2 = d1 - v * sq
    e = np.exp(-r * t)
    call = s * cndf(d1) - x * e * cndf(d2)
    put = x * e * (1 - cndf(d2)) - s * (1 - cndf(d1))
    return call.astype(F32), put.astype(F32)


def clang_kernels():
    """clang's compilations of tests/kernels/{saxpy,vecadd,sgemm}.cu (-nocudainc)."""
    f = "tests/corpus/clang/saxpy.nocudainc.sm_80.ptx78.O1.ptx"
    n, a = 1000, F32(1.75)
    x, y = randf(n, -4, 4), randf(n, -4, 4)
    Case("cl_saxpy", f, "saxpy", 4, 256, 0, "fmaf;_numpy_fma_through_f64_may_double-round") \
        .u32(n).f32(a).inp("x", x).io("y", y, fma32(np.full(n, a), x, y), "0", "1e-7").done()
    Case("cl_saxpy_mul_add", f, "saxpy_mul_add", 4, 256, 0, EXACT) \
        .u32(n).f32(a).inp("x", x).io("y", y, a * x + y).done()
    xd, yd = randf(n, -4, 4, F64), randf(n, -4, 4, F64)
    Case("cl_daxpy", f, "daxpy", 4, 256, 0, "fma.rn.f64;_numpy_has_no_fma") \
        .u32(n).f64(1.75).inp("x", xd).io("y", yd, 1.75 * xd + yd, "0", "1e-15").done()
    f = "tests/corpus/clang/vecadd.nocudainc.sm_86.ptx71.O3.ptx"
    n = 1001
    a, b = randf(n, -4, 4), randf(n, -4, 4)
    Case("cl_vecadd4", f, "vecadd4", 1, 256, 0, EXACT).inp("a", a).inp("b", b).out("c", a + b).u32(n).done()
    ad, bd = randf(n, -4, 4, F64), randf(n, -4, 4, F64)
    Case("cl_vecsubmul_f64", f, "vecsubmul_f64", 4, 256, 0, EXACT).inp("a", ad).inp("b", bd) \
        .out("c", ad - bd).out("d", ad * bd).u32(n).done()
    f = "tests/corpus/clang/sgemm.nocudainc.sm_86.ptx71.O3.ptx"
    nn = 48
    a, b = randf(nn * nn).reshape(nn, nn), randf(nn * nn).reshape(nn, nn)
    acc = np.zeros((nn, nn), F32)
    for k in range(nn):
        acc = fma32(np.repeat(a[:, k:k + 1], nn, axis=1), np.repeat(b[k:k + 1, :], nn, axis=0), acc)
    Case("cl_sgemm_tiled", f, "sgemm_tiled", (3, 3, 1), (16, 16, 1), 0,
         "fmaf_chain_in_k_order;_numpy_fma_through_f64_may_double-round").inp("a", a).inp("b", b) \
        .out("c", acc, "0", "1e-6").u32(nn).done()

