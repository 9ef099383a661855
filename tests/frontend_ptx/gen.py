#!/usr/bin/env python3
"""Regenerates the compiler-produced PTX samples of tests/frontend_ptx/ (tests never run
a compiler; the outputs are committed).

For every <name>.cu here:
  <name>.nvrtc.ptx  NVRTC (NVIDIA's NVVM, what nvcc emits), --gpu-architecture=compute_70
                    plus the options of a first line `// nvrtc: OPTIONS` if present;
  <name>.clang.ptx  clang-19 (LLVM NVPTX), sm_70, PTX 7.0, with prelude.h, for files that
                    contain the line `// clang: yes` (`// clang: ptx71` for another PTX ISA).
Every output is validated with ptxas. Needs /work/venv (nvidia-cuda-nvrtc-cu12,
nvidia-cuda-nvcc-cu12) and clang-19; override with $NVRTC, $PTXAS, $CLANG.
"""
import ctypes, glob, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = "/work/venv/lib/python3.11/site-packages/nvidia"
NVRTC = os.environ.get("NVRTC", SITE + "/cuda_nvrtc/lib/libnvrtc.so.12")
PTXAS = os.environ.get("PTXAS", SITE + "/cuda_nvcc/bin/ptxas")
CLANG = os.environ.get("CLANG", "clang-19")


def nvrtc_ptx(src, name, extra):
    lib = ctypes.CDLL(NVRTC)
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
    assert rc == 0, rc
    opts = [b"--gpu-architecture=compute_70", b"-std=c++17"] + [o.encode() for o in extra]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.exit(f"{name}: {log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, buf)
    return buf.value.decode()


def main():
    for cu in sorted(glob.glob(os.path.join(HERE, "*.cu"))):
        base = os.path.basename(cu)[:-3]
        with open(cu) as f:
            src = f.read()
        first = src.splitlines()[0] if src else ""
        extra = first[len("// nvrtc:"):].split() if first.startswith("// nvrtc:") else []
        outs = []
        out = os.path.join(HERE, base + ".nvrtc.ptx")
        with open(out, "w") as f:
            f.write(nvrtc_ptx(src, base + ".cu", extra))
        outs.append(out)
        clang = [l[len("// clang:"):].strip() for l in src.splitlines() if l.startswith("// clang:")]
        if clang:
            ptx = clang[0] if clang[0].startswith("ptx") else "ptx70"
            out = os.path.join(HERE, base + ".clang.ptx")
            subprocess.run([CLANG, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                            "--cuda-gpu-arch=sm_70", "-Xclang", "-target-feature", "-Xclang", "+" + ptx,
                            "-include", os.path.join(HERE, "prelude.h"), "-S", "-O2", cu, "-o", out],
                           check=True)
            outs.append(out)
        for o in outs:
            subprocess.run([PTXAS, "--gpu-name", "sm_70", "-o", "/dev/null", o], check=True)
            print("ok", os.path.basename(o))


if __name__ == "__main__":
    main()
