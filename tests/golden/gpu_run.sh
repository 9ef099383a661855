#!/bin/sh
# The device run that recorded out/ (see README.md): builds gpurun against the GPU's
# driver, runs every PTX file's cases in its own process, logs the machine, and tars the
# outputs to $OUT/golden.tar. Run from this folder's copy: sh gpu_run.sh
set -u
mkdir -p out
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv;
  nvcc --version; uname -a; } > out/env.log 2>&1
if ! nvcc -O1 -o gpurun gpurun.c -lcuda > out/build.log 2>&1; then
  gcc -O1 -o gpurun gpurun.c -L/usr/local/cuda/lib64/stubs -lcuda >> out/build.log 2>&1
fi
: > out/run.log
for f in ptx/*.ptx; do
  timeout 120 ./gpurun cases.txt . out "$(basename "$f")" >> out/run.log 2>&1
  echo "rc=$? $f" >> out/run.log
done
# the SASS of the mma, atom and approx kernels (how the GPU implements them)
for f in mma atom approx approx64; do
  timeout 60 ptxas --gpu-name sm_90 -o out/$f.cubin ptx/$f.ptx >> out/build.log 2>&1 &&
    cuobjdump -sass out/$f.cubin > out/$f.sass 2>> out/build.log
  rm -f out/$f.cubin
done
tar cf "${OUT:-.}/golden.tar" out
cat out/env.log out/build.log
grep -v '^rc=0 ' out/run.log | tail -60
ls out | wc -l
