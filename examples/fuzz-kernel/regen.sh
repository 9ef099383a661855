#!/usr/bin/env bash
# Regenerates records.ptx from records.cu with NVRTC (NVIDIA's runtime compiler, from the
# PyPI wheel nvidia-cuda-nvrtc-cu12; no GPU needed) and validates it with ptxas (from
# nvidia-cuda-nvcc-cu12). The fuzz target embeds the committed records.ptx.
#
#   NVRTC_PYTHON  a Python with those wheels (default /work/venv/bin/python3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))')}"
"$PY" "$here/../../tests/kernels/nvrtc.py" "$here/records.cu" "$here/records.ptx" \
    --gpu-architecture=compute_70 2> >(grep -v deprecated >&2 || true)
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null "$here/records.ptx"
echo "records.ptx regenerated and accepted by ptxas"
