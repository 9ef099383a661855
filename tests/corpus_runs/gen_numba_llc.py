"""Corpus runs, part 3 (used by gen.py): numba-cuda's documentation kernels (scripts/corpus/
gen_numba.py; an array argument is meminfo, parent, nitems, itemsize, data, shape..., strides...)
and llc's generated kernels (scripts/corpus/gen_llc.py), with numpy references.
"""
import numpy as np

from lib import Case, nb_array, randf, rng, to_bf16, from_bf16

F32, F64 = np.float32, np.float64
EXACT = "exactly_defined"
SUMORDER = "float_sums_(and_fma_contraction)_differ_from_numpy's_order"
CONTRACT = "GPU_contracts_unrounded_mul+sub_into_fma,_ptxjit_rounds_twice_(known_difference)"


def nb(name):
    return f"tests/corpus/numba/{name}.sm_90.ptx"


def numba_cases():
    a = rng.integers(-10**6, 10**6, 1000).astype(np.int32)
    c = Case("nb_increment_by_one", nb("increment_by_one"), "increment_by_one", 4, 256, 0, EXACT)
    nb_array(c, "a", a, a + 1).done()
    a = randf((30, 20), -9, 9)
    c = Case("nb_increment_a_2d_array", nb("increment_a_2d_array"), "increment_a_2d_array", (2, 2, 1),
             (16, 16, 1), 0, EXACT)
    nb_array(c, "a", a, a + F32(1)).done()
    n = 1000
    x, y = randf(n, -4, 4), randf(n, -4, 4)
    c = Case("nb_axpy", nb("axpy"), "axpy", 4, 256, 0, "a*x+y_may_be_one_fma;_numpy_rounds_twice")
    nb_array(c, "r", x, (F32(2.5) * x + y), "0", "1e-6", out=True)
    c.f32(2.5)
    nb_array(c, "x", x)
    nb_array(c, "y", y).done()
    a, b = randf((20, 30), -1, 1, F64), randf((30, 25), -1, 1, F64)
    c = Case("nb_matmul", nb("matmul"), "matmul", (2, 2, 1), (16, 16, 1), 0, SUMORDER)
    nb_array(c, "A", a)
    nb_array(c, "B", b)
    nb_array(c, "C", np.zeros((20, 25)), a @ b, "0", "1e-12", out=True).done()
    a, b = randf((32, 32), -1, 1), randf((32, 32), -1, 1)
    c = Case("nb_fast_matmul", nb("fast_matmul"), "fast_matmul", (2, 2, 1), (16, 16, 1), 0, SUMORDER)
    nb_array(c, "A", a)
    nb_array(c, "B", b)
    nb_array(c, "C", a, (a.astype(F64) @ b).astype(F32), "0", "1e-5", out=True).done()
    d = randf(256, -1, 1, F64)
    ref = d.copy()
    ref[0] = d.sum()
    c = Case("nb_array_sum", nb("array_sum"), "array_sum", 1, 256, 0, SUMORDER)
    nb_array(c, "data", d, ref, "0", "1e-12").done()
    n, nbins = 2000, 40
    x = randf(n, -1.1, 1.1)
    bw = (F64(F32(1.0)) - F64(F32(-1.0))) / nbins
    bi = ((x - F32(-1.0)).astype(F64) / bw).astype(np.int64)
    ok = (bi >= 0) & (bi < nbins)  # int32() truncates: -0.8 counts in bin 0
    h = np.bincount(bi[ok], minlength=nbins).astype(np.int32)
    c = Case("nb_histogram", nb("histogram"), "histogram", 4, 128, 0, EXACT)
    nb_array(c, "x", x)
    c.f32(-1.0).f32(1.0)
    nb_array(c, "h", h, h, out=True).done()
    v = randf(512, -100, 100, F64)
    c = Case("nb_max_example", nb("max_example"), "max_example", 2, 256, 0, "atomic_max_is_order-free")
    nb_array(c, "result", np.zeros(1), np.array([v.max()]), out=True)
    nb_array(c, "values", v).done()
    u = randf((20, 24), -1, 1, F64)
    vv = np.zeros_like(u)
    vv[1:-1, 1:-1] = 0.25 * (((u[:-2, 1:-1] + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
    c = Case("nb_laplace_step", nb("laplace_step"), "laplace_step", (2, 2, 1), (16, 16, 1), 0, EXACT)
    nb_array(c, "u", u)
    nb_array(c, "v", vv, vv, out=True).done()
    x = randf(500, -3, 3)
    xf = x.astype(F64)
    erf = np.vectorize(__import__("math").erf)
    ref = (np.sin(xf) + np.exp(-xf * xf) + np.sqrt(np.abs(xf)) + np.log1p(np.abs(xf)) + np.arctan2(xf, 2.0)
           + np.tanh(xf) + erf(xf) + np.floor(xf) + np.abs(xf) ** 0.3).astype(F32)
    c = Case("nb_math_kernel", nb("math_kernel"), "math_kernel", 2, 256, 0,
             "libdevice_expf_uses_ex2.approx;_float_math_vs_numpy_f64")
    nb_array(c, "x", x)
    nb_array(c, "out", x, ref, "1e-6", "1e-5", out=True).done()
    a = rng.integers(-1000, 1000, 64 * 8).astype(np.int32)
    c = Case("nb_local_array_sort", nb("local_array_sort"), "local_array_sort", 1, 64, 0, EXACT)
    nb_array(c, "a", a, np.sort(a.reshape(64, 8), axis=1).reshape(-1)).done()
    a = randf(32, -1, 1)
    c = Case("nb_warp_reduce", nb("warp_reduce"), "warp_reduce", 1, 32, 0, "one_warp:_one_atomic_add_onto_0;" + SUMORDER)
    nb_array(c, "a", a)
    nb_array(c, "out", np.zeros(1, F32), np.array([a.astype(F64).sum()], F32), "0", "1e-6", out=True).done()
    a = rng.integers(-3, 4, 256).astype(np.int32)
    a[0:32] = np.abs(a[0:32]) + 1
    a[32:64] = np.abs(a[32:64])
    out = np.zeros(256, np.uint32)
    for w in range(8):
        s = a[w * 32:(w + 1) * 32]
        b = sum(1 << k for k in range(32) if s[k] > 0)
        al, an = int(np.all(s != 0)), int(np.any(s < 0))
        clz = 32 - b.bit_length()
        brev = int(f"{b:032b}"[::-1], 2)
        out[w * 32:(w + 1) * 32] = (b + al * 2 + an * 4 + bin(b).count("1") + clz + brev) & 0xFFFFFFFF
    c = Case("nb_warp_vote", nb("warp_vote"), "warp_vote", 1, 256, 0, EXACT)
    nb_array(c, "a", a)
    nb_array(c, "out", out, out, out=True).done()
    n = 1000
    x = rng.integers(-10**6, 10**6, n).astype(np.int64)
    y = rng.integers(-10**6, 10**6, n).astype(np.int64)
    yo = y | 1
    ref = x // yo + x % yo + (x << 3) + (x >> 1) + (x ^ yo) + np.minimum(x, yo) * np.maximum(x, yo)
    c = Case("nb_int_arith", nb("int_arith"), "int_arith", 4, 256, 0, "integer_(Python_floor_division)")
    nb_array(c, "a", x)
    nb_array(c, "b", y)
    nb_array(c, "out", ref, ref, out=True).done()
    a = np.concatenate([rng.integers(-4, 6, 128), rng.integers(-6, 7, 128)]).astype(np.int32)
    out = np.zeros(256, np.int32)
    for blk in range(2):
        s = a[blk * 128:(blk + 1) * 128]
        out[blk * 128:(blk + 1) * 128] = int((s > 0).sum()) + int(np.all(s > -5)) * 1000 + int(np.any(s > 5)) * 2000
    c = Case("nb_syncthreads_count", nb("syncthreads_count"), "syncthreads_count", 2, 128, 0, EXACT)
    nb_array(c, "a", a)
    nb_array(c, "out", out, out, out=True).done()
    src = rng.integers(0, 256, 3000).astype(np.uint8)
    c = Case("nb_grid_stride_copy", nb("grid_stride_copy"), "grid_stride_copy", 2, 128, 0, EXACT)
    nb_array(c, "src", src)
    nb_array(c, "dst", src, (src.astype(np.int64) * 2 + 1).astype(np.uint8), out=True).done()
    c = Case("nb_threadfence_flag", nb("threadfence_flag"), "threadfence_flag", 2, 128, 0, EXACT)
    nb_array(c, "data", np.arange(256, dtype=np.int32), np.arange(256, dtype=np.int32), out=True)
    nb_array(c, "flag", np.ones(1, np.int32), np.ones(1, np.int32), out=True).done()


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def int_chain(x, y, bits):
    """INT_OPS of gen_llc.py in order on (x, y): add sub mul sdiv udiv srem urem shl lshr ashr
    and or xor add mul (LLVM semantics; y is in 1..bits-1, so nothing is poison or UB)."""
    m = (1 << bits) - 1
    u = lambda v: v & m
    r = wrap(x + y, bits)
    r = wrap(r - y, bits)
    r = wrap(r * y, bits)
    r = wrap(abs(r) // y * (1 if r >= 0 else -1), bits)
    r = wrap(u(r) // y, bits)
    r = wrap(abs(r) % y * (1 if r >= 0 else -1), bits)
    r = wrap(u(r) % y, bits)
    r = wrap(r << y, bits)
    r = wrap(u(r) >> y, bits)
    r = wrap(r >> y, bits)
    r = wrap(r & y, bits)
    r = wrap(r | y, bits)
    r = wrap(r ^ y, bits)
    r = wrap(r + y, bits)
    return wrap(r * y, bits)


def llc(name):
    import glob
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    hits = sorted(glob.glob(os.path.join(root, f"tests/corpus/llc/{name}.*.ptx")))
    return os.path.relpath(hits[-1], root)


def llc_cases():
    for bits, dt in ((8, np.int8), (16, np.int16), (32, np.int32), (64, np.int64)):
        n = 128
        x = rng.integers(-2**(bits - 1), 2**(bits - 1) - 1, n, dtype=np.int64).astype(dt)
        y = rng.integers(1, min(bits, 16), n).astype(dt)
        ref = np.array([int_chain(int(p), int(q), bits) for p, q in zip(x, y)], dt)
        Case(f"ll_binops_i{bits}", llc(f"binops_i{bits}"), f"binops_i{bits}", 1, n, 0, "integer_(LLVM_semantics)") \
            .io("a", x, ref).inp("b", y).done()
    for ty, dt in (("float", F32), ("double", F64)):
        n = 128
        x, y = randf(n, -4, 4, dt), randf(n, 0.25, 4, dt) * np.where(rng.random(n) < 0.5, -1, 1).astype(dt)
        r = np.fmod(((x + y) - y) * y / y, y)
        r = (r + y) * y
        gpu_tol = "1e-6" if ty == "float" else "1e-14"
        Case(f"ll_binops_{ty}", llc(f"binops_{ty}"), f"binops_{ty}", 1, n, 0,
             "frem_is_lowered_to_div,cvt.rzi,mul,sub:_not_exact_fmod;" + CONTRACT) \
            .io("a", x, r, gpu_tol, "1e-6").inp("b", y).done()
    n = 128
    x, y = randf(n, -30, 30, np.float16), randf(n, -30, 30, np.float16)
    Case("ll_binops_half", llc("binops_half"), "binops_half", 1, n, 0, "f16_add/sub/mul_through_f32_round_exactly") \
        .io("a", x, ((x + y) - y) * y).inp("b", y).done()
    xb, yb = to_bf16(randf(n, -30, 30)), to_bf16(randf(n, -30, 30))
    r = to_bf16(from_bf16(xb) + from_bf16(yb))
    r = to_bf16(from_bf16(r) - from_bf16(yb))
    r = to_bf16(from_bf16(r) * from_bf16(yb))
    Case("ll_binops_bfloat", llc("binops_bfloat"), "binops_bfloat", 1, n, 0, "bf16_through_f32_rounds_exactly") \
        .io("a", xb, r).inp("b", yb).done()
    # comparisons of every lane's x against b[0]; b[0] is also the select's store target of every
    # lane (a race), so b is passed as input only
    specials = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5]
    for ty, dt in (("float", F32), ("double", F64), ("half", np.float16)):
        x = np.concatenate([np.array(specials, dt), randf(56, -2, 2, dt)]).astype(dt)
        x[8:16] = 0.5
        for k, yv in enumerate([0.5, np.nan]):
            y = np.array([yv], dt)
            with np.errstate(invalid="ignore"):
                preds = [x == y, (x != y) & ~np.isnan(x) & ~np.isnan(y), x < y, x <= y, x > y, x >= y,
                         ~np.isnan(x) & ~np.isnan(y), (x == y) | np.isnan(x) | np.isnan(y), ~(x == y),
                         ~(x >= y), np.isnan(x) | np.isnan(y), ~(x <= y)]
            o = sum(p.astype(np.int32) << i for i, p in enumerate(preds)).astype(np.int32)
            Case(f"ll_cmp_{ty}_{k}", llc(f"cmp_{ty}"), f"cmp_{ty}", 1, 64, 0, "IEEE_ordered/unordered_predicates") \
                .inp("a", x).inp("b", y).out("o", o).done()
    for bits, dt in ((32, np.int32), (64, np.int64)):
        x = rng.integers(-2**(bits - 1), 2**(bits - 1) - 1, 64, dtype=np.int64).astype(dt)
        y = np.array([x[5]], dt)
        x[10:14] = [-1, 0, 1, y[0]]
        ux, uy = x.astype(np.uint64 if bits == 64 else np.uint32), y.astype(np.uint64 if bits == 64 else np.uint32)
        preds = [x == y, x != y, x < y, x <= y, x > y, x >= y, ux < uy, ux <= uy, ux > uy, ux >= uy]
        o = sum(p.astype(np.int32) << i for i, p in enumerate(preds)).astype(np.int32)
        Case(f"ll_cmp_i{bits}", llc(f"cmp_i{bits}"), f"cmp_i{bits}", 1, 64, 0, EXACT) \
            .inp("a", x).inp("b", y).out("o", o).done()
    f = llc("loops")
    n = 5000
    x, y = randf(n, -4, 4), randf(n, -4, 4)
    ref = y.copy()
    idx = np.concatenate([np.arange(i, n, 4096) for i in range(1024)])
    ref[idx] = F32(1.5) * x[idx] + y[idx]
    Case("ll_saxpy_grid", f, "saxpy_grid", 4, 256, 0, "fmul_then_fadd_(no_contract_flag)").inp("x", x) \
        .io("y", y, ref).f32(1.5).u32(n).done()
    m = randf(10 * 13, -1, 1)
    acc = F32(0)
    for v in m:
        acc = F32(acc + v)
    Case("ll_nested_sum", f, "nested_sum", 1, 1, 0, "sequential_f32_sum_in_the_same_order").inp("m", m) \
        .out("out", np.array([acc], F32)).u32(10).u32(13).done()
    f = llc("shared_tile")
    a = randf(256, -9, 9)
    Case("ll_reverse", f, "reverse", 1, 256, 0, EXACT).io("a", a, a[::-1].copy()).done()
    Case("ll_dyn_count", f, "dyn_count", 1, 128, 128 * 4, EXACT).out("o", np.zeros(128, np.int32)).done()
