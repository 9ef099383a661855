#!/usr/bin/env bash
# Regenerates the NVRTC PTX of the tensor-map copy kernels (tma.cu) for compute_90 and
# validates it with ptxas (sm_90). Tests never run a compiler: the output is committed.
#
# Needs a Python with nvidia-cuda-nvrtc-cu12 ($NVRTC_PYTHON, default
# /work/venv/bin/python3) and ptxas from
# nvidia-cuda-nvcc-cu12 (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
FLAGS=(-std=c++17)
cd "$here"
"$PY" "$here/../nvrtc.py" tma.cu tma.sm_90.ptx --gpu-architecture=compute_90 "${FLAGS[@]}"
"$PTXAS" --gpu-name sm_90 --warning-as-error -o /dev/null tma.sm_90.ptx
for f in *.ptx; do
    [ "$f" = tma.sm_90.ptx ] && continue
    "$PTXAS" --gpu-name sm_90 --warning-as-error -o /dev/null "$f"
done
echo "ptxas accepted every file"
