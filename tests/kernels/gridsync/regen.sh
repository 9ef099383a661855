#!/usr/bin/env bash
# Regenerates gridsync.nvrtc.ptx from gridsync.cu with NVRTC (relocatable device code,
# as nvcc -rdc compiles calls of the device runtime) and devrt_cg.ptx, the part of
# libcudadevrt.a's PTX (CUDA 12.9, nvidia-cuda-runtime-cu12) that defines the cudaCG*
# functions: its header, the __cuda_syscall_CGS_* declarations and the five cudaCG*
# definitions, verbatim. ptxas (-c: relocatable) validates both. Needs a Python with
# nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12 and nvidia-cuda-nvcc-cu12 (numba's
# venv of scripts/numba_suite.sh has them; or $NVRTC_PYTHON / $PTXAS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY="${NVRTC_PYTHON:-/work/venv/bin/python3}"
PTXAS="${PTXAS:-$("$PY" -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))')}"
NV="$("$PY" -c 'import nvidia, os; print(list(nvidia.__path__)[0])')"
cd "$here"
"$PY" ../nvrtc.py gridsync.cu gridsync.nvrtc.ptx --gpu-architecture=compute_70 -rdc=true -std=c++17 \
    -I"$NV/cuda_runtime/include" 2>&1 | { grep -v "deprecated" || true; } >&2
"$PY" - "$NV/cuda_runtime/lib/libcudadevrt.a" devrt_cg.ptx <<'PYEOF'
import re, struct, subprocess, sys, tempfile, os
# The archive's one member is a host object whose .nv_fatbin holds the PTX (LZ4).
def lz4_block(src, usize):
    dst = bytearray(); i = 0
    while i < len(src):
        tok = src[i]; i += 1
        l = tok >> 4
        if l == 15:
            while True:
                b = src[i]; i += 1; l += b
                if b != 255: break
        dst += src[i:i + l]; i += l
        if i >= len(src) or len(dst) >= usize: break
        off = src[i] | (src[i + 1] << 8); i += 2
        m = tok & 15
        if m == 15:
            while True:
                b = src[i]; i += 1; m += b
                if b != 255: break
        for _ in range(m + 4): dst.append(dst[-off])
    return bytes(dst[:usize])
data = open(sys.argv[1], 'rb').read()
pos = data.find(struct.pack('<I', 0xBA55ED50))
hsz, = struct.unpack_from('<H', data, pos + 6)
fsz, = struct.unpack_from('<Q', data, pos + 8)
e, end, ptx = pos + hsz, pos + hsz + fsz, None
while e < end:
    kind, = struct.unpack_from('<H', data, e)
    eh, = struct.unpack_from('<I', data, e + 4)
    psz, = struct.unpack_from('<Q', data, e + 8)
    csz, = struct.unpack_from('<I', data, e + 16)
    flags, = struct.unpack_from('<Q', data, e + 40)
    us, = struct.unpack_from('<Q', data, e + 56)
    if kind == 1:
        pl = data[e + eh:e + eh + psz]
        ptx = (lz4_block(pl[:csz] if csz else pl, us) if flags & 0x2000 else pl).rstrip(b'\0').decode()
    e += eh + psz
head = re.search(r'\.version.*?\n\.target.*?\n\.address_size \d+\n', ptx).group(0)
decls = re.findall(r'\.extern \.func \([^)]*\) __cuda_syscall_CGS_\w+\n\([^)]*\)\n;\n', ptx)
defs = re.findall(r'\.visible \.func \([^)]*\) cudaCG\w+\(\n.*?\n}\n', ptx, re.S)
assert len(decls) == 4 and len(defs) == 5, (len(decls), len(defs))
out = ['// The cudaCG* functions of libcudadevrt.a (CUDA 12.9) as its PTX defines them,\n'
       '// cut by regen.sh: header, __cuda_syscall_CGS_* declarations, definitions.\n', head, '\n']
out += [d + '\n' for d in decls] + [d + '\n' for d in defs]
open(sys.argv[2], 'w').write(''.join(out))
PYEOF
"$PTXAS" --gpu-name sm_70 -c --warning-as-error -o /dev/null gridsync.nvrtc.ptx
"$PTXAS" --gpu-name sm_121 -c -o /dev/null devrt_cg.ptx
echo "ptxas accepted gridsync.nvrtc.ptx and devrt_cg.ptx"
