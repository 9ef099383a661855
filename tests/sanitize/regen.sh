#!/usr/bin/env bash
# Regenerates bugs.nvrtc.ptx from bugs.cu, heap.nvrtc.ptx from heap.cu and
# cta_race.nvrtc.ptx from cta_race.cu with NVRTC (compute_80: redux.sync) and
# validates both it and the hand-written bugs_hand.ptx with ptxas. The tests
# (tests/sanitize.rs) never run a compiler: the outputs are committed.
#
# Needs a Python with nvidia-cuda-nvrtc-cu12 and nvidia-cuda-nvcc-cu12 ($NVRTC_PYTHON,
# default /work/venv/bin/python3), or $NVRTC_LIB and $PTXAS.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
"$PY" "$here/../kernels/nvrtc.py" "$here/bugs.cu" "$here/bugs.nvrtc.ptx" --gpu-architecture=compute_80
"$PTXAS" --gpu-name sm_80 -o /dev/null "$here/bugs.nvrtc.ptx"
"$PY" "$here/../kernels/nvrtc.py" "$here/heap.cu" "$here/heap.nvrtc.ptx" --gpu-architecture=compute_80
"$PTXAS" --gpu-name sm_80 -o /dev/null "$here/heap.nvrtc.ptx"
"$PY" "$here/../kernels/nvrtc.py" "$here/cta_race.cu" "$here/cta_race.nvrtc.ptx" --gpu-architecture=compute_80
"$PTXAS" --gpu-name sm_80 -o /dev/null "$here/cta_race.nvrtc.ptx"
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null "$here/bugs_hand.ptx"
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null "$here/used_bytes_hand.ptx"
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null "$here/range_hand.ptx"
"$PTXAS" --gpu-name sm_70 --warning-as-error -o /dev/null "$here/run_hand.ptx"
echo "regenerated and validated"
