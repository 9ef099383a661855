#!/usr/bin/env bash
# Runs numba-cuda's own test suite (numba.cuda.tests, installed with the numba-cuda
# wheel) on ptxjit's libcuda.so.1 with pytest, one subpackage at a time, and writes
# the per-test result lines and failure summaries to tests/clients/numba_suite/.
#
#   scripts/numba_suite.sh [SUBPACKAGE...]      (default: every subpackage)
#   scripts/numba_suite.sh cudapy.test_caching  (a module: run as one pytest run, unsharded)
#
# Environment:
#   VENV     the venv to run in (default target/numba-suite/venv: a copy of
#            target/release/libcuda-tests/numbavenv, the venv of
#            `cargo test --release -p ptxjit-cuda --test numba_client`, or a new one with
#            numba-cuda 0.30.x and NVIDIA's CUDA 12 PyPI components); the test-only
#            packages (pytest, pytest-timeout, pytest-benchmark for the benchmarks
#            subpackage, filecheck, cffi, ml_dtypes, psutil) and
#            CCCL's headers (nvidia-cuda-cccl-cu12, which numba-cuda[cu12] brings; NRT
#            includes <cuda/atomic>) are installed into it
#   LIBDIR   the folder holding ptxjit's libcuda.so.1 (default target/release)
#   TIMEOUT  per-test timeout in seconds (default 300)
#   OUTDIR   where the trimmed logs go (default tests/clients/numba_suite)
#            (SUB.log: result lines and summaries; SUB.failures: one line per failure, its cause)
#   SHARDS   run each subpackage's modules in this many concurrent pytest runs (default 1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$ROOT/target/numba-suite/venv}
LIBDIR=$(cd "${LIBDIR:-$ROOT/target/release}" && pwd)
TIMEOUT=${TIMEOUT:-300}
OUTDIR=${OUTDIR:-$ROOT/tests/clients/numba_suite}
WORK=$ROOT/target/numba-suite
mkdir -p "$WORK/logs" "$OUTDIR"

if [ ! -x "$VENV/bin/python" ]; then
  BASE=$ROOT/target/release/libcuda-tests/numbavenv
  if [ -x "$BASE/bin/python" ]; then
    cp -a "$BASE" "$VENV"
  else
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q "numba-cuda==0.30.*" "nvidia-cuda-nvcc-cu12==12.*" \
      "nvidia-cuda-nvrtc-cu12==12.*" "nvidia-cuda-runtime-cu12==12.*"
  fi
fi
PY=$VENV/bin/python
if ! "$PY" -c 'import pytest_timeout, pytest_benchmark, filecheck, cffi, ml_dtypes, psutil, nvidia.cuda_cccl' 2>/dev/null; then
  "$PY" -m pip install -q pytest pytest-timeout pytest-benchmark filecheck cffi ml_dtypes psutil "nvidia-cuda-cccl-cu12==12.*"
fi
[ -e "$LIBDIR/libcuda.so.1" ] || { echo "no libcuda.so.1 in $LIBDIR (cargo build --release -p ptxjit-cuda)" >&2; exit 2; }

# What `ptxjit exec` sets (src/bin/ptxjit/exec.rs), so a libcuda built without the CLI works too.
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PTXJIT_LIBCUDA=$LIBDIR/libcuda.so.1 NUMBA_CUDA_DRIVER=$LIBDIR/libcuda.so.1
export NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
export PYTHONPATH=$ROOT/tests/clients/numba_suite${PYTHONPATH:+:$PYTHONPATH}

TESTS=$("$PY" -c 'import numba.cuda.tests, os; print(os.path.dirname(numba.cuda.tests.__file__))')
if [ $# -gt 0 ]; then SUBS=("$@"); else
  SUBS=(cudadrv cudapy nrt core doc_examples nocuda cudasim benchmarks)
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "ptxjit: $(git -C "$ROOT" rev-parse --short HEAD), libcuda: $LIBDIR/libcuda.so.1"
  "$PY" -c 'import sys, numba, numba_cuda, numpy; from importlib.metadata import version as v; print("python", sys.version.split()[0], "numba", numba.__version__, "numba-cuda", numba_cuda.__version__, "numpy", numpy.__version__, "cuda-bindings", v("cuda-bindings"), "cuda-core", v("cuda-core"), "nvidia-cuda-nvcc-cu12", v("nvidia-cuda-nvcc-cu12"), "nvidia-cuda-cccl-cu12", v("nvidia-cuda-cccl-cu12"))'
} > "$OUTDIR/versions.txt"
run_pytest() {  # LOG TARGET...
  local log=$1; shift
  rm -f "$log.failures"
  (cd "$WORK" && NUMBA_SUITE_FAILURES=$log.failures "$PY" -m pytest -p no:cacheprovider -p numba_suite_plugin -o consider_namespace_packages=true \
     --import-mode=importlib --rootdir "$TESTS" --pyargs "$@" \
     -v -rfEsxX --tb=line --timeout "$TIMEOUT" -W ignore::RuntimeWarning) > "$log" 2>&1 || true
}
for sub in "${SUBS[@]}"; do
  log=$WORK/logs/$sub.log
  echo "== $sub" >&2
  if [ "${SHARDS:-1}" -gt 1 ] && [[ $sub != *.* ]]; then
    # the subpackage's modules, dealt round-robin to SHARDS concurrent pytest runs
    mapfile -t mods < <(cd "$TESTS/$sub" && ls test_*.py | sed "s/\.py$//; s/^/numba.cuda.tests.$sub./")
    pids=()
    for ((k = 0; k < SHARDS; k++)); do
      part=()
      for ((i = k; i < ${#mods[@]}; i += SHARDS)); do part+=("${mods[i]}"); done
      run_pytest "$log.$k" "${part[@]}" &
      pids+=($!)
    done
    wait "${pids[@]}"
    cat "$log".[0-9] > "$log"
    cat "$log".[0-9].failures > "$log.failures" 2>/dev/null || true
  else
    run_pytest "$log" "numba.cuda.tests.$sub"
  fi
  # trimmed: per-test result lines, the short summaries and the totals lines
  grep -aE '(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)( |$)|^(FAILED|ERROR|SKIPPED|XFAIL|XPASS) |^=+ .* in [0-9.]+s' "$log" \
    | grep -vE '^(ERROR|WARNING|INFO|DEBUG) {2,}' | sed -E 's/ +\[ *[0-9]+%\]$//; s#[^ ]*/numba/cuda/tests/##g' | cut -c1-400 > "$OUTDIR/$sub.log" || true
  sed -E 's#[^ ]*/numba/cuda/tests/##g' "$log.failures" 2>/dev/null | sort > "$OUTDIR/$sub.failures" || true
  grep -aE '^=+ .* in [0-9.]+s' "$log" >&2 || true
done
