#!/usr/bin/env python3
"""clang generator (LLVM's NVPTX back end, as clang CUDA users get it), two ways:

1. scripts/corpus/cuda/*.cu in full CUDA mode: a CUDA path assembled in a temporary folder
   from the PyPI wheels (nvidia-cuda-runtime-cu12 headers, nvidia-cuda-cccl-cu12 CUB/libcu++,
   nvidia-cuda-nvcc-cu12 libdevice), so clang's own CUDA wrapper headers, math library and
   CUB work; several targets, PTX ISA versions and optimisation levels per source.
2. tests/kernels/*.cu (except the NVRTC-only ones) with `-nocudainc -nocudalib` and
   tests/kernels/clang_prelude.h, as tests/kernels/regen.sh does, for other targets.

Output: tests/corpus/clang/<name>.<mode>.sm_XX.ptxYY.OZ.ptx. Skips with a message when
clang-19 ($CLANG) is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus", "clang")
CLANG = os.environ.get("CLANG", "clang-19")

# (target, PTX ISA feature, optimisation level), chosen per source by its index.
COMBOS = [("sm_52", "ptx64", "O3"), ("sm_70", "ptx70", "O2"), ("sm_80", "ptx78", "O1"),
          ("sm_90", "ptx85", "O2"), ("sm_75", "ptx65", "O0"), ("sm_86", "ptx71", "O3"),
          ("sm_61", "ptx60", "O2"), ("sm_89", "ptx81", "O2")]


def cuda_path(tmp):
    import nvidia
    nv = list(nvidia.__path__)[0]
    inc = os.path.join(tmp, "include")
    os.makedirs(inc)
    for pkg in ("cuda_runtime", "cuda_cccl", "cuda_nvcc"):
        d = os.path.join(nv, pkg, "include")
        for e in os.listdir(d):
            if e not in ("__init__.py", "__pycache__") and not os.path.exists(os.path.join(inc, e)):
                os.symlink(os.path.join(d, e), os.path.join(inc, e))
    # clang's wrapper includes a curand header that the wheels above do not ship.
    with open(os.path.join(inc, "curand_mtgp32_kernel.h"), "w") as f:
        f.write("// empty: curand is not used by the corpus sources\n")
    os.makedirs(os.path.join(tmp, "nvvm", "libdevice"))
    os.symlink(os.path.join(nv, "cuda_nvcc", "nvvm", "libdevice", "libdevice.10.bc"),
               os.path.join(tmp, "nvvm", "libdevice", "libdevice.10.bc"))
    os.symlink(os.path.join(nv, "cuda_nvcc", "bin"), os.path.join(tmp, "bin"))
    return tmp


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    if shutil.which(CLANG) is None:
        print(f"gen_clang: skipped, {CLANG} not found")
        return 0
    shutil.rmtree(OUT, ignore_errors=True)  # the tool is here: regenerate from scratch
    os.makedirs(OUT, exist_ok=True)
    n_ok = n_fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cpath = cuda_path(tmp)
        except (ImportError, OSError) as e:
            cpath = None
            print(f"gen_clang: full CUDA mode skipped, CUDA wheels not available ({e})")
        jobs = []
        if cpath:
            srcs = sorted(s for s in os.listdir(os.path.join(HERE, "cuda")) if s.endswith(".cu"))
            for i, s in enumerate(srcs):
                for k in range(3):
                    arch, ptx, opt = COMBOS[(i + 3 * k) % len(COMBOS)]
                    jobs.append((os.path.join(HERE, "cuda", s), "cuda", arch, ptx, opt,
                                 [f"--cuda-path={cpath}", "-Wno-unknown-cuda-version", "-std=c++17"]))
        kdir = os.path.join(ROOT, "tests", "kernels")
        prelude = os.path.join(kdir, "clang_prelude.h")
        for i, s in enumerate(sorted(os.listdir(kdir))):
            if not s.endswith(".cu") or "// NVRTC only" in open(os.path.join(kdir, s)).read():
                continue
            for arch, ptx, opt in (COMBOS[i % 4], COMBOS[4 + i % 4]):
                jobs.append((os.path.join(kdir, s), "nocudainc", arch, ptx, opt,
                             ["-nocudainc", "-nocudalib", "-include", prelude]))
        for src, mode, arch, ptx, opt, extra in jobs:
            name = os.path.basename(src)[:-3]
            out = os.path.join(OUT, f"{name}.{mode}.{arch}.{ptx}.{opt}.ptx")
            cmd = [CLANG, "-x", "cuda", "--cuda-device-only", f"--cuda-gpu-arch={arch}",
                   "-Xclang", "-target-feature", "-Xclang", f"+{ptx}", f"-{opt}", "-S", "-w",
                   *extra, src, "-o", out]
            rc, err = run(cmd)
            if rc != 0:
                print(f"gen_clang: {name} {arch} {ptx} -{opt}: {err.strip().splitlines()[-1:]}")
                n_fail += 1
                if os.path.exists(out):
                    os.remove(out)
                continue
            n_ok += 1
    print(f"gen_clang: {n_ok} files, {n_fail} compile failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
