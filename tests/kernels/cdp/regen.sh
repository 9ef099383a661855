#!/usr/bin/env bash
# Regenerates cdp.nvrtc.ptx from cdp.cu with NVRTC (relocatable device code, as nvcc -rdc
# compiles CUDA dynamic parallelism) and validates it with ptxas (-c: relocatable, the
# device runtime's functions stay external). Needs a Python with nvidia-cuda-nvrtc-cu12,
# nvidia-cuda-runtime-cu12 and nvidia-cuda-nvcc-cu12 (or $NVRTC_PYTHON / $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))')}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
cd "$here"
"$PY" ../nvrtc.py cdp.cu cdp.nvrtc.ptx --gpu-architecture=compute_70 -rdc=true -std=c++17 \
    -I"$NV/cuda_runtime/include" 2>&1 | { grep -v "deprecated" || true; } >&2
"$PTXAS" --gpu-name sm_70 -c --warning-as-error -o /dev/null cdp.nvrtc.ptx
echo "ptxas accepted cdp.nvrtc.ptx"
