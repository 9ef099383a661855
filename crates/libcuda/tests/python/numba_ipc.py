"""numba-cuda's IPC API across two processes on ptxjit's libcuda.so.1.

The parent exports a slice of a device array with numba's context
(`get_ipc_handle`: `cuMemGetAddressRange`, `cuIpcGetMemHandle`); a spawned child
rebuilds numba's `IpcHandle` from the handle's 64 bytes, opens it (`open_array`:
`cuIpcOpenMemHandle`), reads it, runs a `@cuda.jit` kernel on it and closes it
(`cuIpcCloseMemHandle`); the parent then sees the child's writes. The bytes travel
through ctypes because numba-cuda 0.30.4 pickles handles through
`CUipcMemHandle.reserved`, an attribute that cuda-bindings 12.9.1 and later (every
version numba-cuda 0.30.4 accepts) no longer have: numba's own test_ipc fails on that
before any driver call. Prints "numba IPC: N passed, M failed".
"""
import ctypes
import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from cuda.bindings import driver as binding
from numba import cuda
from numba.cuda.cudadrv.driver import CudaAPIError, IpcHandle

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


@cuda.jit
def triple(xs):
    i = cuda.grid(1)
    if i < xs.size:
        xs[i] *= 3


def child(handle_bytes, size, offset, parent):
    assert os.getpid() != parent
    h = binding.CUipcMemHandle()
    ctypes.memmove(h.getPtr(), handle_bytes, 64)
    ipch = IpcHandle(None, h, size, offset=offset)
    darr = ipch.open_array(cuda.current_context(), shape=(size // 8,), dtype=np.dtype(np.int64))
    got = darr.copy_to_host()
    triple[1, 64](darr)
    cuda.synchronize()
    ipch.close()
    return got.tolist()


def main():
    arr = np.arange(100, dtype=np.int64)
    d = cuda.to_device(arr)
    part = d[10:60]
    ctx = cuda.current_context()
    ipch = ctx.get_ipc_handle(part.gpu_data)
    check("handle of a slice: size and offset", (ipch.size, ipch.offset) == (400, 80),
          (ipch.size, ipch.offset))
    raw = ctypes.string_at(ipch.handle.getPtr(), 64)
    try:
        cuda.cudadrv.driver.driver.cuIpcOpenMemHandle(ipch.handle, 1)
        check("opening in the exporting process fails", False)
    except CudaAPIError as e:
        check("opening in the exporting process: CUDA_ERROR_INVALID_CONTEXT", e.code == 201, e)
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as ex:
        got = ex.submit(child, raw, ipch.size, ipch.offset, os.getpid()).result(timeout=300)
    check("child read the slice", got == arr[10:60].tolist(), got[:5])
    want = arr.copy()
    want[10:60] *= 3
    check("the child's kernel wrote the parent's array", np.array_equal(d.copy_to_host(), want))
    print(f"numba IPC: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
