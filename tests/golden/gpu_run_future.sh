#!/bin/sh
# The device run that recorded out_future/ (README.md, "Future features"): builds gpurun
# against the GPU's driver, runs each future_*.ptx file's cases of cases_future.txt in its
# own process, reruns the cases of a file that failed one by one (a sticky error fails the
# rest of its process; not when the module did not load), dumps the SASS of the matrix and texture kernels, and tars the
# results to $OUT/golden_future.tar. Run from this folder's copy: sh gpu_run_future.sh
set -u
start=$(date +%s)
O=out_future
mkdir -p $O
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv;
  nvcc --version; uname -a; } > $O/env.log 2>&1
if ! nvcc -O1 -o gpurun gpurun.c -lcuda -ldl > $O/build.log 2>&1; then
  gcc -O1 -o gpurun gpurun.c -L/usr/local/cuda/lib64/stubs -lcuda -ldl >> $O/build.log 2>&1
fi
: > $O/run.log
for f in ptx/future_*.ptx; do
  b=$(basename "$f")
  t0=$(date +%s)
  timeout 60 ./gpurun cases_future.txt . $O "$b" > $O/run_$b.log 2>&1
  rc=$?
  cat $O/run_$b.log >> $O/run.log
  echo "rc=$rc $f $(( $(date +%s) - t0 ))s" >> $O/run.log
  if [ $rc -ne 0 ]; then
    # one process per failed case, while time is left
    grep '^FAIL ' $O/run_$b.log | grep -v cuModuleLoadDataEx |
      sed 's/^FAIL \([^:]*\):.*/\1/' | while read c; do
      [ $(( $(date +%s) - start )) -gt 150 ] && break
      timeout 15 ./gpurun cases_future.txt . $O "$b:$c" >> $O/retry.log 2>&1
      echo "retry rc=$? $b:$c" >> $O/retry.log
    done
  fi
  rm -f $O/run_$b.log
done
for f in mma mma_k16k32 mma87 wmma tex txq sust suld_2d ldmatrix stmatrix; do
  [ $(( $(date +%s) - start )) -gt 190 ] && break
  timeout 30 ptxas --gpu-name sm_90 -o $O/$f.cubin ptx/future_$f.ptx >> $O/build.log 2>&1 &&
    cuobjdump -sass $O/$f.cubin > $O/$f.sass 2>> $O/build.log
  rm -f $O/$f.cubin
done
tar cf "${OUT:-.}/golden_future.tar" $O
cat $O/env.log $O/build.log
grep -v '^rc=0 ' $O/run.log | tail -40
tail -20 $O/retry.log 2>/dev/null
ls $O | wc -l
echo "total $(( $(date +%s) - start ))s"
