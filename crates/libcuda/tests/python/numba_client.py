"""numba-cuda kernels from its documentation run on ptxjit's libcuda.so.1.

Run with NUMBA_CUDA_DRIVER (or LD_LIBRARY_PATH) pointing at the library. Each check
compares with a numpy reference and prints one line; the last line counts them.
"""
import math
import sys

import numpy as np
from numba import cuda, float32, int32

passed = failed = 0


def check(name, got, want):
    global passed, failed
    ok = np.array_equal(np.asarray(got), np.asarray(want))
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: got {got!r} want {want!r}")


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit(device=True)
def poly(x):
    return x * x + 3 * x + 1


@cuda.jit
def apply_poly(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = poly(xs[i])


TPB = 128


@cuda.jit
def block_sum(xs, out):
    tmp = cuda.shared.array(TPB, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tmp[t] = xs[i] if i < xs.size else 0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            tmp[t] += tmp[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tmp[0]


@cuda.jit
def histogram(xs, bins):
    i = cuda.grid(1)
    if i < xs.size:
        cuda.atomic.add(bins, xs[i] % bins.size, 1)


@cuda.jit
def local_reverse(xs, out):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        loc = cuda.local.array(8, dtype=int32)
        for k in range(8):
            loc[k] = xs[i, k]
        for k in range(8):
            out[i, k] = loc[7 - k]


@cuda.jit
def matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@cuda.jit(debug=True, opt=False)
def debug_scale(xs, k):
    i = cuda.grid(1)
    if i < xs.size:
        xs[i] = xs[i] * k


@cuda.jit(lineinfo=True)
def lineinfo_add(xs, k):
    i = cuda.grid(1)
    if i < xs.size:
        xs[i] = xs[i] + k


@cuda.jit
def sines(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = math.sin(xs[i])


def main():
    print("device:", cuda.get_current_device().name.decode()
          if isinstance(cuda.get_current_device().name, bytes)
          else cuda.get_current_device().name)
    n = 1000
    a = np.arange(n, dtype=np.float32)
    b = (np.arange(n, dtype=np.float32) * 2 + 1)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = cuda.device_array_like(a)
    add[(n + 127) // 128, 128](d_a, d_b, d_out)
    check("elementwise add (to_device, copy_to_host)", d_out.copy_to_host(), a + b)

    xs = np.arange(-50, 50, dtype=np.int64)
    out = np.zeros_like(xs)
    apply_poly[1, 128](xs, out)  # host arrays: numba copies both ways
    check("device function", out, xs * xs + 3 * xs + 1)

    vals = (np.arange(1024) % 7).astype(np.float32)
    partial = np.zeros(1024 // TPB, dtype=np.float32)
    block_sum[1024 // TPB, TPB](vals, partial)
    check("shared-memory reduction with syncthreads", partial,
          vals.reshape(-1, TPB).sum(axis=1))

    data = np.arange(5000, dtype=np.int32) * 7919
    bins = np.zeros(16, dtype=np.int32)
    d_bins = cuda.to_device(bins)
    histogram[(data.size + 255) // 256, 256](cuda.to_device(data), d_bins)
    check("atomic.add histogram", d_bins.copy_to_host(),
          np.bincount(data % 16, minlength=16).astype(np.int32))

    m = np.arange(64 * 8, dtype=np.int32).reshape(64, 8)
    r = np.zeros_like(m)
    local_reverse[2, 32](m, r)
    check("cuda.local.array", r, m[:, ::-1])

    A = (np.arange(12 * 10) % 5).astype(np.float64).reshape(12, 10)
    B = (np.arange(10 * 9) % 3).astype(np.float64).reshape(10, 9)
    C = np.zeros((12, 9))
    matmul[(2, 2), (8, 8)](A, B, C)
    check("2-D grid matmul", C, A @ B)

    s = cuda.stream()
    h = np.arange(256, dtype=np.float32)
    d = cuda.to_device(h, stream=s)
    debug_scale[2, 128, s](d, np.float32(3))
    lineinfo_add[2, 128, s](d, np.float32(1))
    got = d.copy_to_host(stream=s)
    s.synchronize()
    check("stream, debug=True and lineinfo=True kernels", got, h * 3 + 1)

    x = np.linspace(-3, 3, 257).astype(np.float64)
    y = np.zeros_like(x)
    sines[3, 128](x, y)
    # libdevice sin is correctly rounded to within 1 ulp of numpy's.
    close = np.all(np.abs(y - np.sin(x)) <= 2 * np.spacing(np.abs(np.sin(x)) + 1e-300))
    check("math.sin (libdevice)", close, True)

    print(f"numba client: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
