#!/usr/bin/env bash
# Installs POCL (the Portable Computing Language, an OpenCL implementation for CPUs) and
# the OpenCL ICD loader from Debian's packages, for the benchmarks' POCL column:
#
#   scripts/install-pocl.sh
#   RUSTFLAGS="-C target-cpu=native" cargo bench --features pocl --bench kernels
#
# Plain `cargo bench` (without --features pocl) needs none of this.
set -euo pipefail
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y pocl-opencl-icd ocl-icd-opencl-dev
# The ICD loader finds POCL through /etc/OpenCL/vendors/pocl.icd.
test -e /etc/OpenCL/vendors/pocl.icd || { echo "pocl.icd not registered" >&2; exit 1; }
echo "POCL installed: $(dpkg-query -W -f='${Version}' pocl-opencl-icd)"
