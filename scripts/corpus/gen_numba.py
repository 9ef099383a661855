#!/usr/bin/env python3
"""numba-cuda generator: compiles kernels from numba's CUDA documentation (and a few in
the same style) to PTX with numba.cuda.compile_ptx for explicit compute capabilities
(NVVM from the nvidia-cuda-nvcc-cu12 wheel; no GPU needed), into
tests/corpus/numba/<kernel>.sm_XX.ptx. Skips with a message when numba-cuda is missing.
"""
import math
import os
import shutil
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus", "numba")
warnings.filterwarnings("ignore")

try:
    from numba import cuda
    from numba import float32, float64, int32, int64, uint32, void  # noqa: F401
except ImportError as e:
    print(f"gen_numba: skipped, numba-cuda not available ({e})")
    sys.exit(0)

TPB = 16


def increment_by_one(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


def increment_a_2d_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)
        shr = cuda.shared.array(256, float64)
        shr[tid] = data[i]
        cuda.syncthreads()
        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()
        if tid == 0:
            data[i] = shr[tid]


def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)


def max_example(result, values):
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])


def atomic_ops(res, vals):
    i = cuda.grid(1)
    cuda.atomic.add(res, 0, vals[i])
    cuda.atomic.min(res, 1, vals[i])
    cuda.atomic.sub(res, 2, vals[i])
    cuda.atomic.exch(res, 3, vals[i])
    cuda.atomic.compare_and_swap(res[4:], 0, vals[i])


def laplace_step(u, v):
    i, j = cuda.grid(2)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def math_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.sin(v) + math.exp(-v * v) + math.sqrt(abs(v)) + math.log1p(abs(v)) + math.atan2(v, 2.0) + math.tanh(v) + math.erf(v) + math.floor(v) + math.pow(abs(v), 0.3)


def local_array_sort(a):
    i = cuda.grid(1)
    loc = cuda.local.array(8, int32)
    for k in range(8):
        loc[k] = a[i * 8 + k]
    for k in range(8):
        for m in range(7 - k):
            if loc[m] > loc[m + 1]:
                t = loc[m]
                loc[m] = loc[m + 1]
                loc[m + 1] = t
    for k in range(8):
        a[i * 8 + k] = loc[k]


def warp_reduce(a, out):
    i = cuda.grid(1)
    v = a[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


def warp_vote(a, out):
    i = cuda.grid(1)
    mask = cuda.activemask()
    b = cuda.ballot_sync(mask, a[i] > 0)
    al = cuda.all_sync(mask, a[i] != 0)
    an = cuda.any_sync(mask, a[i] < 0)
    out[i] = b + al * 2 + an * 4 + cuda.popc(b) + cuda.clz(b) + cuda.brev(b)


def int_arith(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i] | 1
        out[i] = x // y + x % y + (x << 3) + (x >> 1) + (x ^ y) + min(x, y) * max(x, y)


def mandel(img, xmin, ymin, dx, iters):
    x, y = cuda.grid(2)
    if x < img.shape[1] and y < img.shape[0]:
        c = complex(xmin + x * dx, ymin + y * dx)
        z = 0j
        n = 0
        while n < iters and abs(z) < 2.0:
            z = z * z + c
            n += 1
        img[y, x] = n


def syncthreads_count(a, out):
    i = cuda.grid(1)
    out[i] = cuda.syncthreads_count(int32(a[i] > 0)) + cuda.syncthreads_and(int32(a[i] > -5)) * 1000 + cuda.syncthreads_or(int32(a[i] > 5)) * 2000


def grid_stride_copy(src, dst):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, src.shape[0], stride):
        dst[i] = src[i] * 2 + 1


def threadfence_flag(data, flag):
    i = cuda.grid(1)
    data[i] = i
    cuda.threadfence()
    if i == 0:
        flag[0] = 1
    cuda.threadfence_block()


KERNELS = [
    (increment_by_one, "void(int32[:])"),
    (increment_a_2d_array, "void(float32[:,:])"),
    (axpy, "void(float32[:], float32, float32[:], float32[:])"),
    (matmul, "void(float64[:,:], float64[:,:], float64[:,:])"),
    (fast_matmul, "void(float32[:,:], float32[:,:], float32[:,:])"),
    (array_sum, "void(float64[:])"),
    (histogram, "void(float32[:], float32, float32, int32[:])"),
    (max_example, "void(float64[:], float64[:])"),
    (atomic_ops, "void(int64[:], int64[:])"),
    (laplace_step, "void(float64[:,:], float64[:,:])"),
    (math_kernel, "void(float32[:], float32[:])"),
    (local_array_sort, "void(int32[:])"),
    (warp_reduce, "void(float32[:], float32[:])"),
    (warp_vote, "void(int32[:], uint32[:])"),
    (int_arith, "void(int64[:], int64[:], int64[:])"),
    (mandel, "void(int32[:,:], float64, float64, float64, int32)"),
    (syncthreads_count, "void(int32[:], int32[:])"),
    (grid_stride_copy, "void(uint8[:], uint8[:])"),
    (threadfence_flag, "void(int32[:], int32[:])"),
]
CCS = [(5, 2), (7, 0), (8, 6), (9, 0)]


def main():
    shutil.rmtree(OUT, ignore_errors=True)  # the tool is here: regenerate from scratch
    os.makedirs(OUT, exist_ok=True)
    n_ok = n_fail = 0
    for k, (fn, sig) in enumerate(KERNELS):
        variants = [(cc, {}) for cc in CCS]
        variants.append((CCS[k % len(CCS)], {"fastmath": True}))
        variants.append((CCS[(k + 1) % len(CCS)], {"lineinfo": True}))
        for cc, opts in variants:
            tag = "".join("." + o for o in opts)
            out = os.path.join(OUT, f"{fn.__name__}.sm_{cc[0]}{cc[1]}{tag}.ptx")
            try:
                ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, **opts)
            except Exception as e:  # one kernel's failure skips only it
                print(f"gen_numba: {fn.__name__} cc {cc}: {type(e).__name__}: {str(e)[:300]}")
                n_fail += 1
                continue
            with open(out, "w") as fh:
                fh.write(ptx)
            n_ok += 1
    print(f"gen_numba: {n_ok} files, {n_fail} compile failures")


if __name__ == "__main__":
    main()
