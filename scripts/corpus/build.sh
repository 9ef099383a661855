#!/usr/bin/env bash
# Rebuilds the PTX corpus of tests/corpus/ (issue 15) from its six generators, validates
# every file with ptxas into tests/corpus/MANIFEST.tsv and measures ptxjit's acceptance.
#
#   scripts/corpus/build.sh            all generators, manifest, measurement
#   scripts/corpus/build.sh nvrtc llc  only these generators (then manifest, measurement)
#
# Generators (each skips with a message when its tool is missing, leaving the committed
# files; when the tool is there it regenerates its folder from scratch):
#   nvrtc   gen_nvrtc.py   NVRTC (nvidia-cuda-nvrtc-cu12), scripts/corpus/cuda/*.cu
#   clang   gen_clang.py   clang-19, full CUDA mode and -nocudainc with tests/kernels
#   triton  gen_triton.py  PyPI triton, tutorial kernels for sm_80/sm_90 (no GPU)
#   numba   gen_numba.py   PyPI numba-cuda, numba.cuda.compile_ptx (NVVM, no GPU)
#   llc     gen_llc.py     llc-19 -march=nvptx64 on scripts/corpus/llvm/*.ll and generated IR
#   spec    gen_spec.py    the ISA manual's examples in /work/shared/ptx-spec ($PTX_SPEC)
# Python: $PY (default /work/venv/bin/python3, else python3). ptxas: $PTXAS or the
# nvidia-cuda-nvcc-cu12 wheel. The measurement uses target/release/ptxjit if it exists;
# `measure.py --write-known` rewrites tests/corpus/KNOWN_REJECTED.tsv (review the diff).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PY="${PY:-/work/venv/bin/python3}"
[ -x "$PY" ] || PY=python3
gens=("$@")
[ ${#gens[@]} -eq 0 ] && gens=(nvrtc clang triton numba llc spec)
for g in "${gens[@]}"; do
    echo "== $g"
    nice -n 10 "$PY" "$here/gen_$g.py"
done
echo "== ptxas"
nice -n 10 "$PY" "$here/manifest.py"
if [ -x "$root/target/release/ptxjit" ]; then
    echo "== ptxjit"
    nice -n 10 "$PY" "$here/measure.py"
else
    echo "== ptxjit: target/release/ptxjit not built (cargo build --release), no measurement"
fi
du -sh "$root/tests/corpus"
