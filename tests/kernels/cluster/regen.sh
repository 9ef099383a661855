#!/usr/bin/env bash
# Regenerates the NVRTC PTX of the cluster kernels (cooperative groups' cluster API) for
# compute_90 and validates it with ptxas. Tests never run a compiler: the output is
# committed (tests/cluster.rs).
#
# Needs a Python with nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12 and
# nvidia-cuda-cccl-cu12
# ($NVRTC_PYTHON, default /work/venv/bin/python3) and ptxas from nvidia-cuda-nvcc-cu12
# (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
cd "$here"
"$PY" "$here/../nvrtc.py" cluster.cu cluster.sm_90.ptx --gpu-architecture=compute_90 -std=c++17 -I"$NV/cuda_runtime/include" -I"$NV/cuda_cccl/include"
"$PTXAS" --gpu-name sm_90 --warning-as-error -o /dev/null cluster.sm_90.ptx
"$PTXAS" --gpu-name sm_90 --warning-as-error -o /dev/null cluster_ops.ptx

echo "ptxas accepted every file"
