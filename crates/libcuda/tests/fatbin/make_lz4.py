"""Writes kernels_lz4.fatbin: a fat binary whose one entry is tests/ptx/kernels.ptx,
compressed as a raw LZ4 block by the reference LZ4 library (PyPI `lz4`), with the
entry flags nvcc 12's `-Xfatbin -compress-all` sets (64-bit, Linux, LZ4 = 0x2011).

    python make_lz4.py ../ptx/kernels.ptx kernels_lz4.fatbin
"""
import struct
import sys

import lz4.block

ptx = open(sys.argv[1], "rb").read() + b"\0"
packed = lz4.block.compress(ptx, mode="high_compression", store_size=False)
# The payload is padded to 8 bytes in the file; the compressed size is exact.
payload = packed + b"\0" * (-len(packed) % 8)
entry = struct.pack("<HHIQIIIIIIQQQ", 1, 0x0101, 64, len(payload), len(packed), 0, 0,
                    70, 64, 0, 0x2011, 0, len(ptx)) + payload
assert len(entry) == 64 + len(payload)
container = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry)) + entry
open(sys.argv[2], "wb").write(container)
print(f"{len(ptx)} bytes of PTX -> {len(packed)} compressed")
