#!/usr/bin/env python3
"""Regenerates the NVRTC (nvcc front end) and clang PTX samples of tests/frontend_ptx/.

Usage: gen.py            (needs /work/venv NVRTC and clang-19; tests do not need them)
NVRTC samples: <name>.cu -> <name>.nvrtc.ptx (compute_70).
clang samples: <name>.clang.cu -> <name>.clang.ptx (sm_70, PTX 7.0).
"""
import ctypes, glob, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
NVRTC = os.environ.get("NVRTC", "/work/venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12")


def nvrtc_ptx(src, name, arch="compute_70"):
    lib = ctypes.CDLL(NVRTC)
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
    assert rc == 0, rc
    opts = [f"--gpu-architecture={arch}".encode(), b"-default-device", b"-std=c++17"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    if rc != 0:
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        sys.exit(f"{name}: {log.value.decode()}")
    size = ctypes.c_size_t()
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, buf)
    return buf.value.decode()


def main():
    for cu in sorted(glob.glob(os.path.join(HERE, "*.cu"))):
        base = os.path.basename(cu)[:-3]
        if base.endswith(".clang"):
            out = os.path.join(HERE, base + ".ptx")
            subprocess.run(["clang-19", "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                            "--cuda-gpu-arch=sm_70", "-Xclang", "-target-feature", "-Xclang", "+ptx70",
                            "-S", "-O2", cu, "-o", out], check=True)
        else:
            with open(cu) as f:
                src = f.read()
            with open(os.path.join(HERE, base + ".nvrtc.ptx"), "w") as f:
                f.write(nvrtc_ptx(src, base + ".cu"))


if __name__ == "__main__":
    main()
