#!/usr/bin/env bash
# Compile cost of the quick tier over the test corpus, as README's "Load time and launch
# cost" reports it: `ptxjit dump FILE --stats` for every kernel of tests/kernels/*.ptx,
# tests/ptx/*.ptx and the CUB corpus module, summed into CLIF instructions per PTX
# instruction and CPU milliseconds per 1,000 PTX instructions.
#
#   benches/compile_stats.sh [PTXJIT_BINARY [SKIPPED_FILE...]]
#
# PTXJIT_BINARY defaults to target/release/ptxjit (`cargo build --release` first); the
# skipped files let an older and a newer binary be compared over the same kernels.
# Run from the repository root; CPU times are noisy, so run binaries alternately.
set -euo pipefail
bin=${1:-target/release/ptxjit}
shift || true
for f in tests/kernels/*.ptx tests/ptx/*.ptx tests/corpus/nvrtc/cub_prims.sm_70.ptx; do
  skip=0
  for s in "$@"; do [ "$f" = "$s" ] && skip=1; done
  [ $skip = 1 ] && continue
  "$bin" dump "$f" --stats 2>/dev/null | grep -v '^total\|^kernel' || true
done | awk 'NF>=10 {k++; p+=$(NF-7); c+=$(NF-6); cpu+=$(NF-1)}
  END {printf "%d kernels, %d PTX, %.1f CLIF/PTX, %.1f cpu ms/1k\n", k, p, c/p, cpu/p*1000}'
