#!/bin/sh
# gpu14's second device run: the NaN-canonicalized variants (tests/golden/fuzz/canon.py)
# of the generated programs. Run from this folder: sh run.sh
set -u
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p fuzzc/out
{ date -u; nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv;
  nvcc --version; uname -a; } > fuzzc/out/env.log 2>&1
if ! nvcc -O1 -o gpurun gpurun.c -lcuda > fuzzc/out/build.log 2>&1; then
  gcc -O1 -o gpurun gpurun.c -L/usr/local/cuda/lib64/stubs -lcuda >> fuzzc/out/build.log 2>&1 ||
    gcc -O1 -o gpurun gpurun.c -lcuda >> fuzzc/out/build.log 2>&1
fi
t0=$(date +%s)
timeout 240 ./gpurun fuzzc/cases.txt fuzzc fuzzc/out > fuzzc/out/run.log 2>&1
echo "rc=$? all ($(($(date +%s)-t0)) s)" >> fuzzc/out/run.log
: > fuzzc/out/retry.log
for n in $(awk '/^case/{print $2}' fuzzc/cases.txt); do
  [ -f fuzzc/out/${n}_out.bin ] && continue
  timeout 30 ./gpurun fuzzc/cases.txt fuzzc fuzzc/out $n.ptx >> fuzzc/out/retry.log 2>&1
  echo "rc=$? $n" >> fuzzc/out/retry.log
  [ $(($(date +%s)-t0)) -gt 250 ] && { echo "out of time" >> fuzzc/out/retry.log; break; }
done
echo "done in $(($(date +%s)-t0)) s" >> fuzzc/out/run.log
tar cf "${OUT:-.}/gpu14c.tar" fuzzc/out
cat fuzzc/out/env.log fuzzc/out/build.log
tail -5 fuzzc/out/run.log; grep -v '^rc=0' fuzzc/out/retry.log | tail -20
ls fuzzc/out | wc -l
