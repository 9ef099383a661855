#!/usr/bin/env bash
# Cross-checks the Rust references of the oracle tests against the CUDA sources compiled
# for the host: builds harness.cpp (all kernels of tests/kernels/*.cu, one OS thread per
# CUDA thread) into a shared library and runs the real tests/*.rs against a stand-in
# `ptxjit` crate (src/lib.rs) whose launches call it. The fault tests (oob.rs), the PTX-only
# tests (spec_ptx.rs) and the CLI test are skipped: they need ptxjit itself.
#
# Expected differences: C casts of out-of-range or NaN floats to integers are undefined
# behaviour and on x86 give 0x80000000..., where PTX's cvt clamps and maps NaN to 0 (the
# fconv slots `(int)x`, `(unsigned)x`, ... report those inputs); libm's fminf/fmaxf may
# order -0.0 and +0.0 either way.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
work="${HOSTCHECK_DIR:-/tmp/ptxjit-hostcheck}"
mkdir -p "$work/lib"
clang++-19 -std=c++20 -O1 -frounding-math -ffp-contract=off -fPIC -shared -pthread \
    -I "$here" -include "$here/host_prelude.h" -x c++ "$here/harness.cpp" -o "$work/lib/libhostkernels.so"
mkdir -p "$work/pkg"
cp "$here/Cargo.toml" "$work/pkg/Cargo.toml"
ln -sfn "$here/src" "$work/pkg/src"
ln -sfn "$repo/tests" "$work/pkg/tests"
ln -sfn "$repo/examples" "$work/pkg/examples"
cd "$work/pkg"
export RUSTFLAGS="-L $work/lib -C link-args=-Wl,-rpath,$work/lib"
for t in vecadd saxpy reduce divergence grid2d intmix fconv localconst params; do
    cargo test -q --test "$t" -- --skip interp "$@" 2>&1 | grep -v "^$" || true
done
