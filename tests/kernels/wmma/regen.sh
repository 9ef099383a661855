#!/usr/bin/env bash
# Regenerates wmma_gemm.nvrtc.ptx (NVRTC, compute_80, with the CUDA runtime headers and
# crt/mma.h from nvidia-cuda-nvcc-cu12) and validates it with ptxas for sm_80. The test (tests/wmma_gemm.rs) never runs a
# compiler: the output is committed.
#
# Needs: a Python with nvidia-cuda-nvrtc-cu12 and nvidia-cuda-runtime-cu12 ($NVRTC_PYTHON,
# default /work/venv/bin/python3) and ptxas from nvidia-cuda-nvcc-cu12 (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
"$PY" "$here/../nvrtc.py" "$here/wmma_gemm.cu" "$here/wmma_gemm.nvrtc.ptx" \
    --gpu-architecture=compute_80 -std=c++17 -I"$NV/cuda_runtime/include" -I"$NV/cuda_nvcc/include"
"$PTXAS" --gpu-name sm_80 --warning-as-error -o /dev/null "$here/wmma_gemm.nvrtc.ptx"
echo "ok: $here/wmma_gemm.nvrtc.ptx"
