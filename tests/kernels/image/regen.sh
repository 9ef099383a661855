#!/usr/bin/env bash
# Regenerates image_filter.nvrtc.ptx from image_filter.cu with NVRTC (-fmad=false: the
# float arithmetic stays the separate IEEE operations tests/image_filter.rs repeats) and
# validates it with ptxas. Needs a Python with nvidia-cuda-nvrtc-cu12,
# nvidia-cuda-runtime-cu12 and nvidia-cuda-nvcc-cu12 (or $NVRTC_PYTHON / $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))')}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
cd "$here"
"$PY" ../nvrtc.py image_filter.cu image_filter.nvrtc.ptx --gpu-architecture=compute_70 \
    -fmad=false -I"$NV/cuda_runtime/include" 2>&1 | { grep -v "deprecated" || true; } >&2
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null image_filter.nvrtc.ptx
echo "ptxas accepted image_filter.nvrtc.ptx"
