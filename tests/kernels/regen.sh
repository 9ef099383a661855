#!/usr/bin/env bash
# Regenerates the compiler-produced PTX in this folder and validates every .ptx here (and
# examples/saxpy.ptx) with ptxas. The tests never run a compiler: the outputs are committed.
#
#   <name>.clang.ptx  clang (LLVM NVPTX back end), -nocudainc -nocudalib with clang_prelude.h
#   <name>.nvrtc.ptx  NVRTC (NVIDIA's NVVM, what nvcc users ship), compute_70
#   spec_*.ptx        hand-written (not regenerated, only validated)
#   calls.cu: tests/calls.rs
#   mathlib.cu: NVRTC only (libdevice), tests/mathlib.rs
#   cub_blocks.cu: NVRTC only, with the CUDA runtime and CCCL headers, tests/cub.rs
#   sgemm.cu, nbody.cu, scan.cu: benches/parts/compute.rs (performance table), tests/perf_kernels.rs
#
# Needs: clang-19 (or $CLANG), a Python with nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12
# and nvidia-cuda-cccl-cu12 (or $NVRTC_PYTHON /
# $NVRTC_LIB) and ptxas from nvidia-cuda-nvcc-cu12 (or $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANG="${CLANG:-clang-19}"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || echo ptxas)}"
ARCH=sm_70

clang_ptx() { # src out
    "$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=$ARCH \
        -Xclang -target-feature -Xclang +ptx70 -O2 -S \
        -include "$here/clang_prelude.h" "$1" -o "$2"
}
nvrtc_ptx() { # src out [extra options]
    "$PY" "$here/nvrtc.py" "$1" "$2" --gpu-architecture=compute_70 "${@:3}" 2>&1 \
        | { grep -v "Architectures prior to '<compute/sm>_75' are deprecated\|deprecated\|CCCL_DEPRECATED\|^ *\^\|detected during\|instantiation of\|^$" || true; } >&2
    test -s "$2"
}
# CUDA runtime and CCCL (CUB, cooperative groups) headers, from the PyPI wheels
# nvidia-cuda-runtime-cu12 and nvidia-cuda-cccl-cu12 installed beside NVRTC.
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null || true)"
CCCL_FLAGS=(-std=c++17 -I"$NV/cuda_runtime/include" -I"$NV/cuda_cccl/include")
validate() {
    # *_noabi.ptx use PTX outside the call ABI (several return values), which ptxas
    # accepts with a warning.
    local werr=--warning-as-error
    case "$1" in *_noabi.ptx) werr= ;; esac
    "$PTXAS" --gpu-name $ARCH $werr -o /dev/null "$1" || { echo "ptxas rejected $1" >&2; exit 1; }
}

cd "$here"
for src in *.cu; do
    name="${src%.cu}"
    echo "== $name"
    # Sources that use the CUDA math library (libdevice) are compiled by NVRTC only.
    grep -q "^// NVRTC only" "$src" || clang_ptx "$src" "$name.clang.ptx"
    if grep -q "CCCL headers" "$src"; then
        nvrtc_ptx "$src" "$name.nvrtc.ptx" "${CCCL_FLAGS[@]}"
    else
        nvrtc_ptx "$src" "$name.nvrtc.ptx"
    fi
done
echo "== examples/saxpy"
nvrtc_ptx "$root/examples/saxpy.cu" "$root/examples/saxpy.ptx"

for p in "$here"/*.ptx "$root/examples/saxpy.ptx"; do
    validate "$p"
done
echo "ptxas accepted all $(ls "$here"/*.ptx | wc -l) files in tests/kernels and examples/saxpy.ptx"

# The hand-written kernels of tests/ptx, each for the target its .target names.
for p in "$root"/tests/ptx/*.ptx; do
    arch="$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$p" | head -1)"
    "$PTXAS" --gpu-name "${arch:-$ARCH}" --warning-as-error -o /dev/null "$p" \
        || { echo "ptxas rejected $p" >&2; exit 1; }
done
echo "ptxas accepted all $(ls "$root"/tests/ptx/*.ptx | wc -l) files in tests/ptx"

# List the opcodes used, flagging any outside the first milestone's instruction set.
"$PY" "$here/opcodes.py" "$here"/*.ptx "$root/examples/saxpy.ptx"
