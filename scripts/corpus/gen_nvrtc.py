#!/usr/bin/env python3
"""NVRTC generator: compiles every scripts/corpus/cuda/*.cu to PTX for the targets its
`// archs:` line names, into tests/corpus/nvrtc/<name>.sm_XX.ptx.

A `// cccl` line adds the CUDA runtime and CCCL include paths (CUB, cooperative groups,
cuda_fp16/bf16/fp8, libcu++), from the PyPI wheels nvidia-cuda-runtime-cu12 and
nvidia-cuda-cccl-cu12. Variants: the first target also with --use_fast_math, the last
also with -lineinfo (adds .file/.loc). Skips with a message when NVRTC is missing.
"""
import os
import shutil
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernels"))


def main():
    try:
        import nvrtc  # tests/kernels/nvrtc.py
        nvrtc.find_lib()
        import nvidia
    except (ImportError, SystemExit) as e:
        print(f"gen_nvrtc: skipped, NVRTC not available ({e})")
        return 0
    nv = list(nvidia.__path__)[0]
    cccl = ["-std=c++17", f"-I{nv}/cuda_runtime/include", f"-I{nv}/cuda_cccl/include"]
    out_dir = os.path.join(ROOT, "tests", "corpus", "nvrtc")
    shutil.rmtree(out_dir, ignore_errors=True)  # the tool is here: regenerate from scratch
    os.makedirs(out_dir, exist_ok=True)
    n_ok = n_fail = 0
    for src in sorted(os.listdir(os.path.join(HERE, "cuda"))):
        if not src.endswith(".cu"):
            continue
        path = os.path.join(HERE, "cuda", src)
        text = open(path).read()
        m = re.search(r"^// archs:(.*)$", text, re.M)
        archs = m.group(1).split() if m else ["70"]
        base = cccl if re.search(r"^// cccl$", text, re.M) else ["-std=c++17"]
        variants = [(a, []) for a in archs]
        variants.append((archs[0], ["--use_fast_math"]))
        variants.append((archs[-1], ["-lineinfo"]))
        for arch, extra in variants:
            tag = "".join("." + e.lstrip("-").replace("use_", "") for e in extra)
            out = os.path.join(out_dir, f"{src[:-3]}.sm_{arch}{tag}.ptx")
            opts = [f"--gpu-architecture=compute_{arch}", "-default-device", "-w"] + base + extra
            try:
                ptx = nvrtc.compile_ptx(path, opts)
            except RuntimeError as e:
                print(f"gen_nvrtc: {src} sm_{arch} {extra}: {e}")
                n_fail += 1
                continue
            with open(out, "w") as f:
                f.write(ptx)
            n_ok += 1
    print(f"gen_nvrtc: {n_ok} files, {n_fail} compile failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
