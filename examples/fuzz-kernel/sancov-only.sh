#!/usr/bin/env bash
# A RUSTC_WRAPPER for `cargo fuzz`: keeps cargo-fuzz's SanitizerCoverage instrumentation
# (-Cpasses=sancov-module and the -sanitizer-coverage-* LLVM options) only for the crates
# whose source lies in this folder (the fuzz targets), or, when SANCOV_CRATES is set, for
# the crates it names (space-separated), and compiles every other crate (ptxjit, Cranelift,
# libfuzzer-sys, ...) without it. libFuzzer then sees the fuzz target's own code and, with
# `coverage(true)`, the kernel's counters, and nothing of ptxjit's Rust code, whose
# helpers otherwise follow the kernel's path.
#
#   RUSTC_WRAPPER="$PWD/sancov-only.sh" cargo +nightly fuzz run --fuzz-dir . \
#       --target-dir target/kernel-only -s none --codegen-units 16 records
#
# (a separate --target-dir: cargo does not see the flags this removes, so it would mix
# these objects with fully instrumented ones.)
set -euo pipefail
rustc="$1"
shift
here="$(cd "$(dirname "$0")" && pwd)"
crate=""
src=""
prev=""
for a in "$@"; do
    [[ $prev == --crate-name ]] && crate="$a"
    [[ -z $src && $a == *.rs ]] && src="$a"
    prev="$a"
done
[[ $src == /* ]] || src="$PWD/$src"
if [[ -z $crate ]]; then
    exec "$rustc" "$@" # cargo probing rustc (-vV, --print ...)
elif [[ -n ${SANCOV_CRATES:-} ]]; then
    [[ " $SANCOV_CRATES " == *" $crate "* ]] && exec "$rustc" "$@"
elif [[ $src == "$here"/* ]]; then
    exec "$rustc" "$@"
fi
args=()
prev=""
for a in "$@"; do
    if [[ $prev == -C && ( $a == passes=sancov-module || $a == llvm-args=-sanitizer-coverage* ) ]]; then
        unset 'args[${#args[@]}-1]' # the -C before it
        prev="$a"
        continue
    fi
    prev="$a"
    case "$a" in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage*) ;;
    *) args+=("$a") ;;
    esac
done
exec "$rustc" "${args[@]}"
