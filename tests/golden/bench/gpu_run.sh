#!/bin/sh
# gpub14's device run: every benchmark kernel of bench/cases.txt. Run from a folder
# holding gpurun.c and bench/{cases.txt,ptx,in}: sh gpu_run.sh (OUT: where the tar goes)
set -u
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p bench/out
{ date -u; nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv;
  nvcc --version; uname -a; } > bench/out/env.log 2>&1
if ! nvcc -O1 -o gpurun gpurun.c -lcuda > bench/out/build.log 2>&1; then
  gcc -O1 -o gpurun gpurun.c -L/usr/local/cuda/lib64/stubs -lcuda >> bench/out/build.log 2>&1 ||
    gcc -O1 -o gpurun gpurun.c -lcuda >> bench/out/build.log 2>&1
fi
t0=$(date +%s)
timeout 120 ./gpurun bench/cases.txt bench bench/out > bench/out/run.log 2>&1
echo "rc=$? all ($(($(date +%s)-t0)) s)" >> bench/out/run.log
: > bench/out/retry.log
mkdir -p bench/retry
for p in $(awk '/^case/{print $3}' bench/cases.txt | sort -u); do
  timeout 30 ./gpurun bench/cases.txt bench bench/retry $p >> bench/out/retry.log 2>&1
  echo "rc=$? $p" >> bench/out/retry.log
done
for f in bench/retry/*.bin; do
  [ -f "$f" ] || continue
  cmp -s "$f" "bench/out/$(basename "$f")" || echo "second run differs: $f" >> bench/out/retry.log
done
echo "done in $(($(date +%s)-t0)) s" >> bench/out/run.log
tar cf "${OUT:-.}/gpub14.tar" bench/out
cat bench/out/env.log bench/out/build.log
tail -5 bench/out/run.log; grep -v '^rc=0' bench/out/retry.log | tail -20
ls bench/out | wc -l
