#!/usr/bin/env bash
# Regenerates wgmma.ptx (gen.py) and wgmma_nvrtc.ptx (NVRTC, compute_90a, from
# wgmma_nvrtc.cu) and validates both with ptxas for sm_90a. The test (tests/wgmma.rs)
# never runs a compiler: the output is committed.
#
# Needs: a Python with nvidia-cuda-nvrtc-cu12 and nvidia-cuda-runtime-cu12 ($NVRTC_PYTHON, default /work/venv/bin/python3)
# and ptxas from nvidia-cuda-nvcc-cu12 (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
"$PY" "$here/gen.py" "$here/wgmma.ptx"
"$PTXAS" --gpu-name sm_90a --warning-as-error -o /dev/null "$here/wgmma.ptx"
if [ -f "$here/wgmma_nvrtc.cu" ]; then
    "$PY" "$here/../nvrtc.py" "$here/wgmma_nvrtc.cu" "$here/wgmma_nvrtc.ptx" \
        --gpu-architecture=compute_90a -std=c++17 -I"$NV/cuda_runtime/include" -I"$NV/cuda_nvcc/include"
    "$PTXAS" --gpu-name sm_90a --warning-as-error -o /dev/null "$here/wgmma_nvrtc.ptx"
fi
echo "ok: $here/wgmma.ptx"
