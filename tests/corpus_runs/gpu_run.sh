#!/bin/sh
# The device run that recorded out/ (see README.md). Run from a folder holding gpurun.c,
# cases.txt, in/ and root/tests/corpus/... (the PTX files): sh gpu_run.sh
# Builds gpurun against the GPU's driver, runs each PTX file's cases in its own process
# (a sticky error of one kernel cannot fail the others), logs the machine, and tars out/ to
# $OUT/corpus_runs.tar.
set -u
mkdir -p out
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv;
  nvcc --version; uname -a; } > out/env.log 2>&1
if ! nvcc -O1 -o gpurun gpurun.c -lcuda > out/build.log 2>&1; then
  gcc -O1 -o gpurun gpurun.c -L/usr/local/cuda/lib64/stubs -lcuda >> out/build.log 2>&1
fi
: > out/run.log
start=$(date +%s)
for f in $(awk '$1 == "case" {print $3}' cases.txt | sort -u); do
  timeout 30 ./gpurun cases.txt root in out "$f" >> out/run.log 2>&1
  echo "rc=$? $f" >> out/run.log
done
echo "seconds: $(( $(date +%s) - start ))" >> out/run.log
tar cf "${OUT:-.}/corpus_runs.tar" out
cat out/env.log out/build.log | head -40
grep -v '^rc=0 ' out/run.log | grep -v '^gpurun: device' | tail -60
ls out | wc -l
