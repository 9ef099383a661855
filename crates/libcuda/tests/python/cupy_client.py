"""CuPy on ptxjit's libcuda.so.1 (LD_LIBRARY_PATH), with NVIDIA's runtime and NVRTC
from PyPI: CuPy compiles its kernels with NVRTC to PTX (CUPY_COMPILE_WITH_PTX=1, since
ptxjit runs PTX, not SASS) and runs them through the CUDA runtime. Every check compares
with numpy and prints one line; the last line counts them.

    python cupy_client.py kernels.ptx
"""
import sys

import cupy as cp
import numpy as np

passed = failed = 0


def check(name, got, want, exact=True):
    global passed, failed
    got = cp.asnumpy(got) if isinstance(got, cp.ndarray) else np.asarray(got)
    want = np.asarray(want)
    ok = got.shape == want.shape and (
        np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-6, atol=1e-6))
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: got {got!r} want {want!r}")


def main():
    props = cp.cuda.runtime.getDeviceProperties(0)
    print("device:", props["name"].decode())
    a = cp.arange(1000, dtype=cp.int64)
    check("arange", a, np.arange(1000))
    check("elementwise a * 3 + 1", a * 3 + 1, np.arange(1000) * 3 + 1)
    check("sum", a.sum(), np.int64(499500))
    x = cp.linspace(-2, 2, 4097, dtype=cp.float64)
    xh = np.linspace(-2, 2, 4097)
    check("max / argmin", cp.stack([x.max(), x.argmin().astype(cp.float64)]),
          np.array([xh.max(), float(xh.argmin())]))
    # sin: CUDA's libdevice is within 2 ulp of the correctly rounded result.
    check("sin (libdevice)", cp.sin(x), np.sin(xh), exact=False)
    m = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    check("axis reduction and broadcast", (m - m.mean(axis=0)).sum(axis=1),
          (np.arange(12, dtype=np.float32).reshape(3, 4)
           - np.arange(12, dtype=np.float32).reshape(3, 4).mean(axis=0)).sum(axis=1))
    check("fancy indexing", a[cp.array([3, 1, 999])], np.array([3, 1, 999]))

    twice = cp.RawKernel(r'''
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}''', "twice")
    xs = cp.arange(1000, dtype=cp.float32)
    ys = cp.empty_like(xs)
    twice((4,), (256,), (xs, ys, cp.int32(1000)))
    check("RawKernel", ys, np.arange(1000, dtype=np.float32) * 2)

    mod = cp.RawModule(path=sys.argv[1])
    saxpy = mod.get_function("saxpy")
    y = cp.ones(1000, dtype=cp.float32)
    saxpy((4,), (256,), (cp.uint32(1000), cp.float32(0.5), xs, y))
    check("RawModule from a PTX file", y, np.arange(1000, dtype=np.float32) * 0.5 + 1)

    clamp = cp.ElementwiseKernel("float32 x, float32 lo, float32 hi", "float32 y",
                                 "y = x < lo ? lo : (x > hi ? hi : x)", "clamp")
    check("ElementwiseKernel", clamp(xs, cp.float32(10), cp.float32(20)),
          np.clip(np.arange(1000, dtype=np.float32), 10, 20))
    l2 = cp.ReductionKernel("float64 x", "float64 y", "x * x", "a + b", "y = sqrt(a)",
                            "0", "l2norm")
    v = cp.arange(100, dtype=cp.float64)
    check("ReductionKernel", l2(v), np.sqrt((np.arange(100.0) ** 2).sum()), exact=False)

    s = cp.cuda.Stream(non_blocking=True)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    with s:
        start.record()
        z = cp.arange(10000, dtype=cp.int32) % 7
        stop.record()
    s.synchronize()
    stop.synchronize()
    check("stream and events", z.sum(), np.int64((np.arange(10000) % 7).sum()))
    check("event elapsed time", cp.cuda.get_elapsed_time(start, stop) >= 0, True)
    hz = cp.asnumpy(z, stream=s)
    check("async copy to host", hz[:8], np.arange(8) % 7)

    print(f"cupy client: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
