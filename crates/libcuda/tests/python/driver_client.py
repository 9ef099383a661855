"""NVIDIA's cuda-python (cuda.bindings.driver) against ptxjit's libcuda.so.1.

Usage: python driver_client.py kernels.ptx
Loads the PTX, runs saxpy and the shared-memory reduction, checks the results against
Python references (saxpy: fma computed exactly with fractions, rounded once to f32),
and prints "python client: N passed, 0 failed".
"""
import ctypes
import struct
import sys
from fractions import Fraction

from cuda.bindings import driver as cu

passed = 0


def ok(ret):
    """Unwraps (CUresult, values...) and checks success."""
    global passed
    err, *vals = ret if isinstance(ret, tuple) else (ret,)
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise SystemExit(f"FAIL: {name}")
    passed += 1
    return vals[0] if len(vals) == 1 else vals


def check(cond, what):
    global passed
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    passed += 1


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fma_f32(a, x, y):
    """fma(a, x, y) rounded once to f32: exact rational, then round to nearest even."""
    exact = Fraction(a) * Fraction(x) + Fraction(y)
    # Python's float() rounds a Fraction correctly to f64; then f64 -> f32 could double
    # round, so round directly: find the two f32 neighbours and pick the nearer.
    f = struct.unpack("<f", struct.pack("<f", float(exact)))[0]
    lo = hi = f
    if Fraction(f) < exact:
        hi = next_f32(f, +1)
    elif Fraction(f) > exact:
        lo = next_f32(f, -1)
    else:
        return f
    dl, dh = exact - Fraction(lo), Fraction(hi) - exact
    if dl != dh:
        return lo if dl < dh else hi
    return lo if struct.unpack("<I", struct.pack("<f", lo))[0] % 2 == 0 else hi


def next_f32(f, d):
    b = struct.unpack("<i", struct.pack("<f", f))[0]
    b += d if f >= 0 else -d
    return struct.unpack("<f", struct.pack("<i", b))[0]


def main():
    ptx = open(sys.argv[1], "rb").read() + b"\0"
    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    name = ok(cu.cuDeviceGetName(64, dev))
    print("device:", name.split(b"\0")[0].decode())
    warp = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev))
    check(warp == 32, "warp size")
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    mod = ok(cu.cuModuleLoadData(ptx))
    saxpy = ok(cu.cuModuleGetFunction(mod, b"saxpy"))
    bsum = ok(cu.cuModuleGetFunction(mod, b"block_sum"))
    stream = ok(cu.cuStreamCreate(0))

    n = 4096
    xs = [f32((i * 37 % 1001 - 500) / 7.0) for i in range(n)]
    ys = [f32((i * 91 % 1003 - 501) / 3.0) for i in range(n)]
    a = f32(1.75)
    hx = (ctypes.c_float * n)(*xs)
    hy = (ctypes.c_float * n)(*ys)
    dx = ok(cu.cuMemAlloc(4 * n))
    dy = ok(cu.cuMemAlloc(4 * n))
    ok(cu.cuMemcpyHtoDAsync(dx, ctypes.addressof(hx), 4 * n, stream))
    ok(cu.cuMemcpyHtoDAsync(dy, ctypes.addressof(hy), 4 * n, stream))
    args = [ctypes.c_uint32(n), ctypes.c_float(a), ctypes.c_uint64(int(dx)), ctypes.c_uint64(int(dy))]
    params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(v) for v in args])
    ok(cu.cuLaunchKernel(saxpy, n // 256, 1, 1, 256, 1, 1, 0, stream, ctypes.addressof(params), 0))
    out = (ctypes.c_float * n)()
    ok(cu.cuMemcpyDtoHAsync(ctypes.addressof(out), dy, 4 * n, stream))
    ok(cu.cuStreamSynchronize(stream))
    bad = [i for i in range(n) if struct.pack("<f", out[i]) != struct.pack("<f", fma_f32(a, xs[i], ys[i]))]
    check(not bad, f"saxpy mismatches at {bad[:5]}")

    m = 50000
    vals = [(i * 2654435761) & 0xFFFFFFFF for i in range(m)]
    hin = (ctypes.c_uint32 * m)(*vals)
    din = ok(cu.cuMemAlloc(4 * m))
    dout = ok(cu.cuMemAlloc(4))
    ok(cu.cuMemsetD32(dout, 0, 1))
    ok(cu.cuMemcpyHtoD(din, ctypes.addressof(hin), 4 * m))
    args = [ctypes.c_uint64(int(din)), ctypes.c_uint64(int(dout)), ctypes.c_uint32(m)]
    params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(v) for v in args])
    ok(cu.cuLaunchKernel(bsum, (m + 255) // 256, 1, 1, 256, 1, 1, 0, 0, ctypes.addressof(params), 0))
    res = ctypes.c_uint32(0)
    ok(cu.cuMemcpyDtoH(ctypes.addressof(res), dout, 4))
    check(res.value == sum(vals) & 0xFFFFFFFF, f"sum {res.value}")

    err, = cu.cuMemFree(dx)
    check(err == cu.CUresult.CUDA_SUCCESS, "free")
    err, = cu.cuMemFree(dx)
    check(err == cu.CUresult.CUDA_ERROR_INVALID_VALUE, f"double free gives {err}")
    ok(cu.cuStreamDestroy(stream))
    ok(cu.cuModuleUnload(mod))
    ok(cu.cuDevicePrimaryCtxRelease(dev))
    print(f"python client: {passed} passed, 0 failed")


main()
