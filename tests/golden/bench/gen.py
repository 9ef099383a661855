#!/usr/bin/env python3
"""Writes the benchmark kernels' golden cases (deterministic): ptx/ (copies of the PTX
that benches/ load), in/ (inputs), cases.txt in gpurun.c's format. Run from anywhere:
python3 tests/golden/bench/gen.py"""
import os
import random
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref  # noqa: E402  (the bytecode reference: the random program is chosen by its outputs)

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


def words_of(name):
    with open(os.path.join(HERE, "in", name), "rb") as f:
        b = f.read()
    return list(struct.unpack("<%dI" % (len(b) // 4), b))


def write_words(name, words):
    with open(os.path.join(HERE, "in", name), "wb") as f:
        f.write(struct.pack("<%dI" % len(words), *words))


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bytecode_program(iters):
    """benches/kernels.rs's bytecode_program (opcodes of tests/kernels/bytecode.cu)."""
    (PUSH, DUP, SWAP, DROP, ADD, SUB, MUL, XOR, AND, SHL, SHR, JNZ, JMP, DEC, IN,
     HALT) = range(16)
    e = lambda op, imm=0: op | imm << 8
    p = [e(IN), e(PUSH, iters)]
    top = len(p)
    p.append(e(SWAP))
    for op, sh in [(SHL, 13), (SHR, 17), (SHL, 5)]:
        p += [e(DUP), e(PUSH, sh), e(op), e(XOR)]
    p += [e(DUP), e(PUSH, 1), e(AND)]
    jnz_odd = len(p)
    p.append(0)
    p += [e(PUSH, 0x9e37), e(ADD), e(PUSH, 0x3ff), e(SUB)]
    jmp_join = len(p)
    p.append(0)
    odd = len(p)
    p += [e(PUSH, 0x2b), e(MUL), e(PUSH, 0x55aa), e(XOR)]
    join = len(p)
    p[jnz_odd] = e(JNZ, odd)
    p[jmp_join] = e(JMP, join)
    p += [e(SWAP), e(DEC), e(DUP), e(JNZ, top)]
    p += [e(DROP), e(HALT)]
    return p


def more_cases(rng):
    """mandelbrot, bytecode (brx.idx and NVRTC's compare tree), the histograms, warp_reduce,
    sgemm_tiled, nbody_acc and block_scan with the benches' grid/block shapes (smaller
    grids); sizes that leave partial CTAs and warps where the kernel checks bounds."""
    for src in ["mandelbrot.nvrtc.ptx", "spec_bytecode.ptx", "bytecode.nvrtc.ptx",
                "atomics.nvrtc.ptx", "warp.nvrtc.ptx", "sgemm.clang.ptx", "nbody.clang.ptx",
                "scan.clang.ptx"]:
        shutil.copy(os.path.join(ROOT, "tests/kernels", src), os.path.join(HERE, "ptx"))
    lines = []
    # mandel: block 32x4 as the bench; 100x70 pixels leave partial warps and CTAs.
    w, h = 100, 70
    lines.append("case mandel mandelbrot.nvrtc.ptx mandel %dx%d 32x4 out:mandel.bin:%d u32:%d "
                 "u32:%d u32:256" % ((w + 31) // 32, (h + 3) // 4, 4 * w * h, w, h))
    # bytecode: the bench's program and inputs (1000 threads of 128 per CTA), and a seeded
    # random program (every opcode, jumps anywhere) that max_steps cuts short.
    n = 1000
    write_words("bc_code.bin", bytecode_program(10))
    write_words("bc_in.bin", [(i * 2654435761 & 0xffffffff) ^ 0x5bd1e995 for i in range(n)])
    # The first seeded program (IN, then 63 random words) whose outputs depend on the input
    # (900 of the 1000 distinct): many random programs end in the same constant.
    while True:
        rnd = [14] + [rng.randrange(16) | rng.randrange(64) << 8 for _ in range(63)]
        if len(set(ref.bytecode(rnd, words_of("bc_in.bin"), n, 300))) >= 900:
            break
    write_words("bc_rand.bin", rnd)
    for tag, ptx in [("brx", "spec_bytecode.ptx"), ("tree", "bytecode.nvrtc.ptx")]:
        lines.append("case bytecode_%s %s bytecode %d 128 in:bc_code.bin u32:%d in:bc_in.bin "
                     "out:bytecode_%s.bin:%d u32:%d u32:1048576"
                     % (tag, ptx, (n + 127) // 128, len(bytecode_program(10)), tag, 4 * n, n))
        lines.append("case bytecode_rand_%s %s bytecode %d 128 in:bc_rand.bin u32:64 "
                     "in:bc_in.bin out:bytecode_rand_%s.bin:%d u32:%d u32:300"
                     % (tag, ptx, (n + 127) // 128, tag, 4 * n, n))
    # histograms: grid-stride loops over 100003 values in 8 CTAs of 256 (the bench: 64);
    # only the bins (order-independent sums) are outputs.
    n = 100003
    write_words("hist_in.bin", [(i * 2654435761 & 0xffffffff) >> 7 ^ rng.getrandbits(6)
                                for i in range(n)])
    for k in ["hist_global", "hist_shared"]:
        lines.append("case %s atomics.nvrtc.ptx %s 8 256 in:hist_in.bin out:%s.bin:256 u32:%d"
                     % (k, k, k, n))
    # warp_reduce: 256 per CTA as the bench; n = 2125 ends inside a warp (sums of the last
    # CTA's later warps are written too: zeros).
    n = 256 * 8 + 77
    g = (n + 255) // 256
    write_words("warp_in.bin", [rng.getrandbits(32) for _ in range(n)])
    lines.append("case warp_reduce warp.nvrtc.ptx warp_reduce %d 256 in:warp_in.bin "
                 "out:warp_sums.bin:%d out:warp_maxs.bin:%d u32:%d" % (g, g * 256 // 32 * 4,
                                                                        4 * n, n))
    # sgemm_tiled: 16x16 tiles (n a multiple of 16, no bounds checks): the bench's inputs
    # at n = 64, and n = 32 with special values in a few rows and columns.
    n = 64
    bench_in = lambda seed: [f32_bits((((i * 2654435761 & 0xffffffff) ^ seed) >> 16)
                                      / 32768.0 - 1.0) for i in range(n * n)]
    write_words("sgemm_a.bin", bench_in(0x1234))
    write_words("sgemm_b.bin", bench_in(0xbeef))
    lines.append("case sgemm sgemm.clang.ptx sgemm_tiled %dx%d 16x16 in:sgemm_a.bin "
                 "in:sgemm_b.bin out:sgemm_c.bin:%d u32:%d" % (n // 16, n // 16, 4 * n * n, n))
    n = 32
    a = f32_words(rng, n * n, special=False)
    b = f32_words(rng, n * n, special=False)
    for j, v in enumerate(SPECIAL):
        a[(2 * j) * n + j] = v
        b[j * n + 2 * j] = SPECIAL[-1 - j]
    write_words("sgemm_sa.bin", a)
    write_words("sgemm_sb.bin", b)
    lines.append("case sgemm_special sgemm.clang.ptx sgemm_tiled 2x2 16x16 in:sgemm_sa.bin "
                 "in:sgemm_sb.bin out:sgemm_special.bin:%d u32:%d" % (4 * n * n, n))
    # nbody_acc: 128 per CTA as the bench; 300 bodies (a partial CTA) from the bench's
    # xorshift, eps2 = 1e-3 (the bench's); then 40 bodies, two coincident, with special
    # values (below).
    s = [0x2545f491]

    def unit():
        x = s[0]
        x ^= x << 13 & 0xffffffff
        x ^= x >> 17
        x ^= x << 5 & 0xffffffff
        s[0] = x
        return (x >> 8) / float(1 << 23) - 1.0
    n = 300
    pos = []
    for _ in range(n):
        u = [unit(), unit(), unit(), unit()]
        pos += [f32_bits(u[0]), f32_bits(u[1]), f32_bits(u[2]),
                f32_bits(struct.unpack("<f", struct.pack("<f", u[3]))[0] * 0.5 + 1.0)]
    write_words("nbody_pos.bin", pos)
    lines.append("case nbody nbody.clang.ptx nbody_acc %d 128 in:nbody_pos.bin "
                 "out:nbody_acc.bin:%d u32:%d u32:%d" % ((n + 127) // 128, 16 * n, n,
                                                         f32_bits(1.0e-3)))
    n = 40
    pos = f32_words(rng, 4 * n, special=False)
    # Finite specials only (an infinite or NaN coordinate makes every sum NaN): zeros,
    # subnormals, huge values whose squares overflow (rcp(inf) = 0); massless bodies.
    coords = [0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7149f2ca,
              0xf149f2ca, 0x60ad78ec, 0x7f7fffff, 0x3f800000]
    for j in range(n):
        if j % 2:
            pos[4 * j + j % 3] = coords[j % len(coords)]
        if j % 3 == 0:
            pos[4 * j + 3] = [0x00000000, 0x80000000, 0x00000001, 0x0da24260][j // 3 % 4]
        else:
            pos[4 * j + 3] = f32_bits(abs(f(pos[4 * j + 3])) % 4.0)
    pos[4 * 3:4 * 4] = pos[4 * 1:4 * 2]  # body 3 sits on body 1
    write_words("nbody_spos.bin", pos)
    lines.append("case nbody_special nbody.clang.ptx nbody_acc 1 128 in:nbody_spos.bin "
                 "out:nbody_special.bin:%d u32:%d u32:%d" % (16 * n, n, f32_bits(1.0e-3)))
    # block_scan: 256 per CTA as the bench; n = 1380 ends inside a warp of the last CTA.
    n = 256 * 5 + 100
    write_words("scan_in.bin", [rng.getrandbits(32) for _ in range(n)])
    lines.append("case block_scan scan.clang.ptx block_scan %d 256 in:scan_in.bin "
                 "out:block_scan.bin:%d u32:%d" % ((n + 255) // 256, 4 * n, n))
    return lines


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
    lines += more_cases(rng)
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


main()
