#!/bin/sh
# The exact device run that produced probe.out: sh run.sh (OUT set by the device tool).
set -x
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv
nvcc --version | tail -2
nvcc -O1 -arch=sm_90 -o probe probe.cu || exit 1
for m in heap setlimit trap brkpt brkpt_none pmevent double_free wild_free; do echo "== $m"; timeout 60 ./probe $m; echo "rc=$?"; done
