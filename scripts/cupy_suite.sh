#!/usr/bin/env bash
# Runs a subset of CuPy's own test suite on ptxjit's libcuda.so.1 with pytest, one
# test directory at a time, and writes the per-test result lines and failure summaries
# to tests/clients/cupy_suite/.
#
#   scripts/cupy_suite.sh [PATH...]    (PATH under tests/cupy_tests: a directory,
#                                       core_tests, or a file, core_tests/test_raw.py;
#                                       default: SUBSET below)
#
# CuPy's wheel (cupy-cuda12x) ships no tests: they come from the source distribution
# of the same version (PyPI's `cupy` sdist, fetched once, its sha256 checked against the
# index's), run with the sdist's own pytest settings (pyproject.toml) and conftest.py.
# One pytest run per top directory (its selected files together); the logs are named by
# the directory. The default subset leaves out what needs NVIDIA's SASS-only libraries (cuBLAS,
# cuRAND, cuFFT, cuSOLVER, cuSPARSE, cuTENSOR, NCCL: linalg_tests, random_tests,
# fft_tests, most of cuda_tests) and tests marked `slow`.
#
# Environment:
#   VENV     the venv to run in (default target/cupy-suite/venv, made with pip:
#            cupy-cuda12x $CUPY_VERSION, NVIDIA's CUDA 12 runtime and NVRTC, pytest,
#            pytest-timeout)
#   CUPY_VERSION  (default 14.2.0: the version cupy_client.rs's venv had)
#   LIBDIR   the folder holding ptxjit's libcuda.so.1 (default target/release)
#   TIMEOUT  per-test timeout in seconds (default 300)
#   MARKS    pytest -m expression (default "not slow")
#   OUTDIR   where the trimmed logs go (default tests/clients/cupy_suite)
#            (DIR.log: result lines and summaries; DIR.failures: one line per failure,
#            its cause)
set -euo pipefail
# The default selection: CuPy's core (elementwise, reductions, raw and user kernels,
# indexing), array creation, manipulation, logic, sorting (thrust) and statistics.
SUBSET=(
  core_tests/test_elementwise.py core_tests/test_reduction.py core_tests/test_userkernel.py
  core_tests/test_ndarray_unary_op.py core_tests/test_ndarray_complex_ops.py
  core_tests/test_carray.py core_tests/test_scan.py core_tests/test_raw.py
  creation_tests/test_ranges.py creation_tests/test_basic.py
  manipulation_tests/test_join.py manipulation_tests/test_transpose.py
  logic_tests/test_content.py logic_tests/test_ops.py logic_tests/test_type_test.py
  sorting_tests/test_count.py sorting_tests/test_sort.py
  statistics_tests/test_meanvar.py
)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$ROOT/target/cupy-suite
VENV=${VENV:-$WORK/venv}
CUPY_VERSION=${CUPY_VERSION:-14.2.0}
LIBDIR=$(cd "${LIBDIR:-$ROOT/target/release}" && pwd)
TIMEOUT=${TIMEOUT:-300}
MARKS=${MARKS:-not slow}
OUTDIR=${OUTDIR:-$ROOT/tests/clients/cupy_suite}
SRC=$WORK/cupy-$CUPY_VERSION
mkdir -p "$WORK/logs" "$OUTDIR"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "cupy-cuda12x==$CUPY_VERSION" \
    "nvidia-cuda-runtime-cu12==12.*" "nvidia-cuda-nvrtc-cu12==12.*" pytest pytest-timeout
fi
PY=$VENV/bin/python
"$PY" -c 'import cupy, pytest_timeout, nvidia.cuda_runtime, nvidia.cuda_nvrtc' 2>/dev/null ||
  "$PY" -m pip install -q "cupy-cuda12x==$CUPY_VERSION" "nvidia-cuda-runtime-cu12==12.*" \
    "nvidia-cuda-nvrtc-cu12==12.*" pytest pytest-timeout
[ -e "$LIBDIR/libcuda.so.1" ] || { echo "no libcuda.so.1 in $LIBDIR (cargo build --release -p ptxjit-cuda)" >&2; exit 2; }

# NVIDIA's nvcc (CUDA 13 from PyPI: CUDA 12's PyPI nvcc package holds only ptxas) in a
# venv of its own: test_raw.py reads nvcc's version when it is imported and compiles
# with it in its nvcc-backend cases. CuPy finds it through NVCC.
NVCC_VENV=$WORK/nvccvenv
nvcc_path() { ls "$NVCC_VENV"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc 2>/dev/null | head -1; }
if [ -z "$(nvcc_path)" ]; then
  python3 -m venv "$NVCC_VENV"
  "$NVCC_VENV/bin/python" -m pip install -q "nvidia-cuda-nvcc==13.*" "nvidia-cuda-crt==13.*" \
    "nvidia-cuda-runtime==13.*" "nvidia-nvvm==13.*"
fi
NVCC=$(nvcc_path)
export NVCC

# CuPy's tests, from the sdist (PyPI's JSON simple index gives its address and sha256).
if [ ! -d "$SRC/tests/cupy_tests" ]; then
  "$PY" - "$CUPY_VERSION" "$WORK" <<'PYEOF'
import hashlib, json, sys, tarfile, urllib.request
ver, work = sys.argv[1], sys.argv[2]
name = f"cupy-{ver}.tar.gz"
req = urllib.request.Request("https://pypi.org/simple/cupy/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
files = json.load(urllib.request.urlopen(req, timeout=60))["files"]
f = next(f for f in files if f["filename"] == name)
data = urllib.request.urlopen(f["url"], timeout=300).read()
if hashlib.sha256(data).hexdigest() != f["hashes"]["sha256"]:
    sys.exit(f"{name}: sha256 mismatch")
path = f"{work}/{name}"
open(path, "wb").write(data)
with tarfile.open(path) as t:
    keep = [m for m in t.getmembers()
            if m.name.startswith(f"cupy-{ver}/tests/") or m.name == f"cupy-{ver}/pyproject.toml"]
    t.extractall(work, members=keep, filter="data")
PYEOF
fi

# What `ptxjit exec` sets for CuPy (src/bin/ptxjit/exec.rs), so a libcuda built without
# the CLI works too: PTX rather than SASS from NVRTC, CuPy's CUB accelerator off.
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PTXJIT_LIBCUDA=$LIBDIR/libcuda.so.1 CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS=
export CUPY_CACHE_DIR=$WORK/kernel-cache
# one device: CuPy's multi-GPU tests skip themselves (CuPy's CI sets the same variable)
export CUPY_TEST_GPU_LIMIT=1
export PYTHONPATH=$ROOT/tests/clients/cupy_suite${PYTHONPATH:+:$PYTHONPATH}

if [ $# -gt 0 ]; then SEL=("$@"); else
  SEL=("${SUBSET[@]}")
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "ptxjit: $(git -C "$ROOT" rev-parse --short HEAD), libcuda: $LIBDIR/libcuda.so.1"
  echo "tests: PyPI sdist cupy-$CUPY_VERSION, pytest -m '$MARKS', timeout ${TIMEOUT}s"
  "$PY" -c 'import sys, cupy, numpy; from importlib.metadata import version as v; print("python", sys.version.split()[0], "cupy-cuda12x", cupy.__version__, "numpy", numpy.__version__, "nvidia-cuda-runtime-cu12", v("nvidia-cuda-runtime-cu12"), "nvidia-cuda-nvrtc-cu12", v("nvidia-cuda-nvrtc-cu12"), "pytest", v("pytest"))'
} > "$OUTDIR/versions.txt"
# Deselected: two tests that ran for minutes inside one kernel launch on a
# loaded two-core machine, where pytest-timeout's signal cannot stop it (partitions of
# 10x10x20000 elements for each of 15 dtypes).
DESELECT=(
  "sorting_tests/test_sort.py::TestPartition_param_1_{external=False, length=20000}::test_partition_multi_dim"
  "sorting_tests/test_sort.py::TestPartition_param_3_{external=True, length=20000}::test_partition_multi_dim"
)
deselect=()
for d in "${DESELECT[@]}"; do deselect+=(--deselect "tests/cupy_tests/$d"); done

# one pytest run per directory, with the selected files of that directory
mapfile -t DIRS < <(printf '%s\n' "${SEL[@]}" | cut -d/ -f1 | awk '!seen[$0]++')
for dir in "${DIRS[@]}"; do
  targets=()
  for t in "${SEL[@]}"; do
    [ "${t%%/*}" = "$dir" ] && targets+=("tests/cupy_tests/$t")
  done
  log=$WORK/logs/$dir.log
  echo "== $dir: ${targets[*]#tests/cupy_tests/}" >&2
  rm -f "$log.failures"
  (cd "$SRC" && CUPY_SUITE_FAILURES=$log.failures "$PY" -m pytest -p no:cacheprovider \
     -p cupy_suite_plugin "${targets[@]}" -m "$MARKS" "${deselect[@]}" \
     -v -rfEsxX --tb=line --timeout "$TIMEOUT") > "$log" 2>&1 || true
  # trimmed: per-test result lines, the short summaries and the totals line
  grep -aE '(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)( |$)|^(FAILED|ERROR|SKIPPED|XFAIL|XPASS) |^=+ .* in [0-9.]+s' "$log" \
    | sed -E 's/ +\[ *[0-9]+%\]$//; s#tests/cupy_tests/##g' | cut -c1-400 > "$OUTDIR/$dir.log" || true
  sed -E 's#tests/cupy_tests/##g' "$log.failures" 2>/dev/null | sort > "$OUTDIR/$dir.failures" || true
  grep -aE '^=+ .* in [0-9.]+s' "$log" >&2 || true
done
