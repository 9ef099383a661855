"""NVIDIA's CUDA runtime (libcudart.so.12 from PyPI's nvidia-cuda-runtime-cu12) called
through ctypes on ptxjit's libcuda.so.1 (LD_LIBRARY_PATH): the runtime initialises
through the driver's private export tables, then device queries, memory, copies and
memset run. Every check prints one line; the last line counts them.

    python cudart_client.py /path/to/libcudart.so.12 kernels.ptx

The kernel part does what nvcc's generated host code does: it wraps the PTX in a fat
binary (one PTX entry), registers it with __cudaRegisterFatBinary and the kernel with
__cudaRegisterFunction, and launches it with cudaLaunchKernel; the runtime hands the
fat binary to the driver through its private interface.
"""
import ctypes
import struct
import sys

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def fatbin(ptx, sm=70):
    """A fat binary holding `ptx` as its one PTX entry (kind 1, 64-byte entry header,
    64-bit, CUDA, Linux), as NVIDIA's `fatbinary` lays it out."""
    payload = ptx + b"\0" * (8 - len(ptx) % 8 if len(ptx) % 8 else 8)
    entry = struct.pack("<HHIIIIIIIIIQQQ", 1, 0x0101, 64, len(payload), 0, 0, 0, 0,
                        sm, 64, 0, 0x1 | 0x4 | 0x10, 0, 0) + payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


def kernels(rt, call, ptx):
    image = ctypes.create_string_buffer(fatbin(ptx))
    # __fatBinC_Wrapper_t: magic, version 1, the fat binary, no prelinked binaries.
    wrapper = (ctypes.c_uint64 * 3)(0x466243B1 | (1 << 32), ctypes.addressof(image), 0)
    reg = rt.__cudaRegisterFatBinary
    reg.restype = ctypes.c_void_p
    handle = reg(ctypes.byref(wrapper))
    check("__cudaRegisterFatBinary", handle is not None)
    host_fn = ctypes.create_string_buffer(1)  # the host stub's address identifies it
    rt.__cudaRegisterFunction(ctypes.c_void_p(handle), host_fn, b"saxpy", b"saxpy", -1,
                              None, None, None, None, None)
    rt.__cudaRegisterFatBinaryEnd(ctypes.c_void_p(handle))
    n = 1000
    xs = (ctypes.c_float * n)(*[float(i) for i in range(n)])
    ys = (ctypes.c_float * n)(*[1.0] * n)
    dx, dy = ctypes.c_void_p(), ctypes.c_void_p()
    call("cudaMalloc", ctypes.byref(dx), ctypes.c_size_t(4 * n))
    call("cudaMalloc", ctypes.byref(dy), ctypes.c_size_t(4 * n))
    call("cudaMemcpy", dx, xs, ctypes.c_size_t(4 * n), 1)
    call("cudaMemcpy", dy, ys, ctypes.c_size_t(4 * n), 1)
    nn, a = ctypes.c_uint(n), ctypes.c_float(2.0)
    args = (ctypes.c_void_p * 4)(ctypes.addressof(nn), ctypes.addressof(a),
                                 ctypes.addressof(dx), ctypes.addressof(dy))
    launch = rt.cudaLaunchKernel
    launch.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t,
                       ctypes.c_void_p]
    r = launch(ctypes.addressof(host_fn), Dim3(4, 1, 1), Dim3(256, 1, 1), args, 0, None)
    check("cudaLaunchKernel of a registered fat binary", r == 0, r)
    check("cudaDeviceSynchronize after the launch", call("cudaDeviceSynchronize") == 0)
    out = (ctypes.c_float * n)()
    call("cudaMemcpy", out, dy, ctypes.c_size_t(4 * n), 2)
    # 2 * i + 1 is exact in binary32 for i < 1000.
    check("saxpy result", list(out) == [2.0 * i + 1.0 for i in range(n)])
    call("cudaFree", dx)
    call("cudaFree", dy)
    rt.__cudaUnregisterFatBinary(ctypes.c_void_p(handle))


def main():
    rt = ctypes.CDLL(sys.argv[1])
    err_str = rt.cudaGetErrorString
    err_str.restype = ctypes.c_char_p

    def call(name, *args):
        r = getattr(rt, name)(*args)
        if r != 0:
            print(f"{name} -> {r} ({err_str(r).decode()})")
        return r

    v = ctypes.c_int(0)
    check("cudaDriverGetVersion", call("cudaDriverGetVersion", ctypes.byref(v)) == 0
          and v.value >= 12000, v.value)
    n = ctypes.c_int(-1)
    check("cudaGetDeviceCount = 1", call("cudaGetDeviceCount", ctypes.byref(n)) == 0
          and n.value == 1, n.value)
    check("cudaSetDevice(0)", call("cudaSetDevice", 0) == 0)
    cc = [ctypes.c_int(0), ctypes.c_int(0)]
    # cudaDevAttrComputeCapabilityMajor = 75, Minor = 76.
    ok = (call("cudaDeviceGetAttribute", ctypes.byref(cc[0]), 75, 0) == 0
          and call("cudaDeviceGetAttribute", ctypes.byref(cc[1]), 76, 0) == 0)
    check("compute capability 9.0", ok and (cc[0].value, cc[1].value) == (9, 0),
          (cc[0].value, cc[1].value))

    count = 1 << 16
    host = (ctypes.c_uint32 * count)(*[(i * 2654435761) & 0xFFFFFFFF for i in range(count)])
    back = (ctypes.c_uint32 * count)()
    dev = ctypes.c_void_p()
    check("cudaMalloc", call("cudaMalloc", ctypes.byref(dev), ctypes.c_size_t(4 * count)) == 0
          and dev.value)
    # cudaMemcpyHostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3.
    check("cudaMemcpy H2D", call("cudaMemcpy", dev, host, ctypes.c_size_t(4 * count), 1) == 0)
    check("cudaMemcpy D2H", call("cudaMemcpy", back, dev, ctypes.c_size_t(4 * count), 2) == 0)
    check("round trip", list(back) == list(host))
    dev2 = ctypes.c_void_p()
    call("cudaMalloc", ctypes.byref(dev2), ctypes.c_size_t(4 * count))
    check("cudaMemcpy D2D", call("cudaMemcpy", dev2, dev, ctypes.c_size_t(4 * count), 3) == 0)
    check("cudaMemset", call("cudaMemset", dev2, 0xAB, ctypes.c_size_t(8)) == 0)
    call("cudaMemcpy", back, dev2, ctypes.c_size_t(4 * count), 2)
    check("memset + D2D data", back[0] == 0xABABABAB and back[1] == 0xABABABAB
          and list(back[2:]) == list(host[2:]))
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    check("cudaMemGetInfo", call("cudaMemGetInfo", ctypes.byref(free), ctypes.byref(total)) == 0
          and 0 < free.value <= total.value)
    s = ctypes.c_void_p()
    check("cudaStreamCreate", call("cudaStreamCreate", ctypes.byref(s)) == 0)
    check("cudaMemcpyAsync", call("cudaMemcpyAsync", back, dev, ctypes.c_size_t(4 * count), 2, s) == 0)
    check("cudaStreamSynchronize", call("cudaStreamSynchronize", s) == 0)
    check("async data", list(back) == list(host))
    check("cudaStreamDestroy", call("cudaStreamDestroy", s) == 0)
    check("cudaFree", call("cudaFree", dev) == 0 and call("cudaFree", dev2) == 0)
    check("cudaDeviceSynchronize", call("cudaDeviceSynchronize") == 0)
    check("cudaGetLastError", call("cudaGetLastError") == 0)
    with open(sys.argv[2], "rb") as f:
        kernels(rt, call, f.read())
    print(f"cudart client: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
