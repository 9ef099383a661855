#!/bin/sh
# The exact device run that produced probe.out/probe.bin: sh tests/golden/oob_run/run.sh
set -x
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv
nvcc -O1 -arch=sm_90 -o probe probe.cu && ./probe
nvcc -O1 -arch=sm_90 -o probe2 probe2.cu && ./probe2
