#!/usr/bin/env python3
"""Triton generator: compiles Triton's tutorial kernels (vector add, fused softmax, layer
norm forward/backward, matmul, low-memory dropout) and a few more (reductions, cumsum,
elementwise math) to PTX for sm_80 and sm_90 without a GPU (triton.compile with an
explicit GPUTarget), into tests/corpus/triton/<kernel>.<config>.sm_XX.ptx.

Needs PyPI `triton` (tested with 3.9) and ptxas (TRITON_PTXAS_PATH and
TRITON_PTXAS_BLACKWELL_PATH are set to the nvidia-cuda-nvcc-cu12 wheel's). Skips with a message when triton is missing.
"""
import os
import shutil
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus", "triton")

try:
    import nvidia.cuda_nvcc
    _ptxas = os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas")
    # Triton sizes the PTX ISA version to the ptxas it uses: the CUDA 12.9 wheel's for every
    # target (Triton's bundled sm_90+ ptxas would emit PTX 9.x, which ptxas 12.9 cannot check).
    os.environ.setdefault("TRITON_PTXAS_PATH", _ptxas)
    os.environ.setdefault("TRITON_PTXAS_BLACKWELL_PATH", _ptxas)
except ImportError:
    pass
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
warnings.filterwarnings("ignore")

try:
    import triton
    import triton.language as tl
    from triton.compiler import ASTSource
    from triton.backends.compiler import GPUTarget
except ImportError as e:
    print(f"gen_triton: skipped, triton not available ({e})")
    sys.exit(0)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in range(start, n_rows, step):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=cols < n_cols)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        var_acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(var_acc, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def layer_norm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP
    Lock += lock_id
    Count = Lock + GROUP
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ACT: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACT == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def masked_dropout_kernel(x_ptr, keep_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.load(keep_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
    tl.store(out_ptr + row + tl.num_programs(0), tl.max(x, axis=0))


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    y = 0.5 * x * (1 + tl.math.erf(x * 0.7071067811865476))
    y = y + tl.sigmoid(x) * tl.abs(x) + tl.math.exp2(-x * x) + tl.math.log(1 + x * x)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


@triton.jit
def int_ops_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    r = (a // b) + (a % b) + (a << 3) + (a >> 2) + (a ^ b) + tl.minimum(a, b) + tl.umulhi(a, b)
    tl.atomic_add(out_ptr, tl.sum(r, axis=0))
    tl.store(out_ptr + 1 + offs, r, mask=m)


def f(ty, *names):
    return {n: ty for n in names}


def jobs():
    for ty in ("fp32", "fp16", "bf16"):
        for block in (256, 1024):
            yield ("add", f"{ty}.b{block}", add_kernel, {**f("*" + ty, "x_ptr", "y_ptr", "out_ptr"), "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": block}, 4)
    for ty in ("fp32", "fp16"):
        for block in (128, 1024):
            yield ("softmax", f"{ty}.b{block}", softmax_kernel, {**f("*" + ty, "out_ptr", "in_ptr"), **f("i32", "in_stride", "out_stride", "n_rows", "n_cols"), "BLOCK": "constexpr"}, {"BLOCK": block}, 4 if block < 1024 else 8)
    for ty in ("fp32", "fp16"):
        yield ("layer_norm_fwd", f"{ty}", layer_norm_fwd, {**f("*" + ty, "X", "Y", "W", "B"), **f("*fp32", "Mean", "Rstd"), "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4)
        yield ("layer_norm_bwd_dx", f"{ty}", layer_norm_bwd_dx, {**f("*" + ty, "DX", "DY", "DW", "DB", "X", "W"), **f("*fp32", "Mean", "Rstd"), "Lock": "*i32", "stride": "i32", "N": "i32", "GROUP": "constexpr", "BLOCK": "constexpr"}, {"GROUP": 32, "BLOCK": 256}, 4)
    mm_sig = lambda ty, cty: {**f("*" + ty, "a_ptr", "b_ptr"), "c_ptr": "*" + cty, **f("i32", "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"), **f("constexpr", "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "ACT")}
    for ty, cty, cfg, act, warps in (("fp16", "fp16", (64, 64, 32), "", 4), ("fp16", "fp16", (128, 128, 64), "leaky_relu", 8),
                                     ("fp32", "fp32", (32, 32, 16), "", 4), ("fp32", "fp32", (64, 32, 32), "leaky_relu", 4),
                                     ("bf16", "fp32", (64, 64, 64), "", 4)):
        bm, bn, bk = cfg
        yield ("matmul", f"{ty}.{bm}x{bn}x{bk}{'.' + act if act else ''}", matmul_kernel, mm_sig(ty, cty), {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "ACT": act}, warps)
    yield ("dropout", "fp32", dropout_kernel, {**f("*fp32", "x_ptr", "out_ptr"), "n": "i32", "p": "fp32", "seed": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4)
    yield ("masked_dropout", "fp32", masked_dropout_kernel, {"x_ptr": "*fp32", "keep_ptr": "*i1", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4)
    for ty in ("fp32", "i32", "i64"):
        yield ("row_sum", ty, row_sum_kernel, {**f("*" + ty, "x_ptr", "out_ptr"), "n_cols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4)
    for ty in ("fp32", "i32"):
        yield ("cumsum", ty, cumsum_kernel, {**f("*" + ty, "x_ptr", "out_ptr"), "BLOCK": "constexpr"}, {"BLOCK": 256}, 4)
    for ty in ("fp32", "fp16"):
        yield ("gelu", ty, gelu_kernel, {**f("*" + ty, "x_ptr", "out_ptr"), "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, 4)
    for ty in ("i32", "i64"):
        yield ("int_ops", ty, int_ops_kernel, {**f("*" + ty, "a_ptr", "b_ptr", "out_ptr"), "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}, 4)


def main():
    only = sys.argv[1:]
    if not only:
        shutil.rmtree(OUT, ignore_errors=True)  # the tool is here: regenerate from scratch
    os.makedirs(OUT, exist_ok=True)
    n_ok = n_fail = 0
    for name, tag, fn, sig, consts, warps in jobs():
        if only and name not in only:
            continue
        for cc in (80, 90):
            out = os.path.join(OUT, f"{name}.{tag}.sm_{cc}.ptx")
            try:
                src = ASTSource(fn=fn, signature=sig, constexprs=consts)
                k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": warps})
            except Exception as e:  # a compile failure of one kernel skips only it
                print(f"gen_triton: {name}.{tag} sm_{cc}: {type(e).__name__}: {str(e)[:300]}")
                n_fail += 1
                continue
            with open(out, "w") as fh:
                fh.write(k.asm["ptx"])
            n_ok += 1
    print(f"gen_triton: {n_ok} files, {n_fail} compile failures")


if __name__ == "__main__":
    main()
