#!/usr/bin/env bash
# Regenerates the NVRTC PTX of the asynchronous-copy client kernels (libcu++
# cuda::pipeline / cuda::barrier, and the cp.async + ldmatrix + mma.sync GEMM) for
# compute_80 and compute_90 and validates each with ptxas. Tests never run a compiler:
# the outputs are committed (tests/async_kernels.rs).
#
# Needs a Python with nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12 and
# nvidia-cuda-cccl-cu12 ($NVRTC_PYTHON, default /work/venv/bin/python3) and ptxas from
# nvidia-cuda-nvcc-cu12 (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
FLAGS=(-std=c++17 -I"$NV/cuda_runtime/include" -I"$NV/cuda_cccl/include")
cd "$here"
for src in pipeline barrier gemm; do
    for sm in 80 90; do
        [ "$src" = gemm ] && [ $sm = 90 ] && continue
        out="$src.sm_$sm.ptx"
        echo "== $out"
        "$PY" "$here/../nvrtc.py" "$src.cu" "$out" --gpu-architecture=compute_$sm "${FLAGS[@]}"
        "$PTXAS" --gpu-name sm_$sm --warning-as-error -o /dev/null "$out"
    done
done
echo "ptxas accepted every file"
