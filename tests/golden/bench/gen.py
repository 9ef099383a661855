#!/usr/bin/env python3
"""Writes the benchmark kernels' golden cases (deterministic): ptx/ (copies of the PTX
that benches/ load), in/ (inputs), cases.txt in gpurun.c's format. Run from anywhere:
python3 tests/golden/bench/gen.py"""
import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../../.."))
SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000,
           0xbf800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
           0x7fa00001, 0x33800000, 0x4b800001]


def f32_words(rng, n, special=True):
    out = []
    for i in range(n):
        if special and i < len(SPECIAL) * 4 and i % 4 == 0:
            out.append(SPECIAL[i // 4])
        elif rng.random() < 0.5:
            out.append(struct.unpack("<I", struct.pack("<f", rng.uniform(-1000, 1000)))[0])
        else:
            out.append(rng.getrandbits(32) & 0x3fffffff | rng.getrandbits(1) << 31)
    return out


def write_words(name, words):
    with open(os.path.join(HERE, "in", name), "wb") as f:
        f.write(struct.pack("<%dI" % len(words), *words))


def main():
    rng = random.Random(14)
    os.makedirs(os.path.join(HERE, "ptx"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
    for src in ["examples/saxpy.ptx", "tests/kernels/reduce.nvrtc.ptx", "benches/ptx/bar_loop.ptx"]:
        shutil.copy(os.path.join(ROOT, src), os.path.join(HERE, "ptx"))
    lines = ["# Benchmark kernels (tests/golden/bench/gen.py)"]
    n = 10007
    write_words("saxpy_x.bin", f32_words(rng, n))
    write_words("saxpy_y.bin", f32_words(rng, n))
    # a = 2.5f (0x40200000), n threads of 256 per CTA; y is read and written.
    lines.append("case saxpy saxpy.ptx saxpy %d 256 u32:%d u32:0x40200000 in:saxpy_x.bin "
                 "io:saxpy_y.bin:saxpy_y.bin" % ((n + 255) // 256, n))
    n = 256 * 40 + 77
    write_words("reduce_u32.bin", [rng.getrandbits(32) for _ in range(n)])
    write_words("reduce_f32.bin", f32_words(rng, n, special=False))
    g = (n + 255) // 256
    for t in ["u32", "f32"]:
        lines.append("case block_sum_%s reduce.nvrtc.ptx block_sum_%s %d 256 in:reduce_%s.bin "
                     "out:block_sum_%s.bin:%d u32:%d" % (t, t, g, t, t, 4 * g, n))
    for k in ["bar_loop", "bar_loop_co"]:
        lines.append("case %s bar_loop.ptx %s 6 256 out:%s.bin:%d u32:1000" % (k, k, k, 6 * 256 * 4))
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


main()
