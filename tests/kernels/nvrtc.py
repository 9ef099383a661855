#!/usr/bin/env python3
"""Compile a CUDA source to PTX with NVRTC (NVIDIA's runtime compiler; no GPU needed).

usage: nvrtc.py SRC.cu OUT.ptx [extra nvrtc options...]

The library is found via $NVRTC_LIB, or in the `nvidia-cuda-nvrtc-cu12` wheel of the
Python running this script (pip install nvidia-cuda-nvrtc-cu12).
"""
import ctypes
import glob
import os
import sys


def find_lib():
    env = os.environ.get("NVRTC_LIB")
    if env:
        return env
    for p in sys.path:
        hits = glob.glob(os.path.join(p, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so*"))
        if hits:
            return sorted(hits)[0]
    sys.exit("nvrtc.py: libnvrtc.so not found (set NVRTC_LIB or pip install nvidia-cuda-nvrtc-cu12)")


def check(lib, rc, what):
    if rc != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise RuntimeError(f"{what}: {lib.nvrtcGetErrorString(rc).decode()}")


def compile_ptx(src_path, options):
    lib = ctypes.CDLL(find_lib())
    with open(src_path, "rb") as f:
        src = f.read()
    prog = ctypes.c_void_p()
    name = os.path.basename(src_path).encode()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src, name, 0, None, None),
          "nvrtcCreateProgram")
    opts = [o.encode() for o in options]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    text = log.value.decode(errors="replace").strip()
    if text:
        sys.stderr.write(text + "\n")
    check(lib, rc, f"nvrtcCompileProgram({src_path})")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    options = sys.argv[3:] or ["--gpu-architecture=compute_70"]
    ptx = compile_ptx(src, options)
    with open(out, "w") as f:
        f.write(ptx)


if __name__ == "__main__":
    main()
