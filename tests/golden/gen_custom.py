"""The golden cases that are not one instruction per thread (imported by gen.py):
`mma.sync` fragments, `atom`/`red` float adds on global and shared memory, and warp
shuffles, votes, matches and reductions with partial member masks (only where the ISA
defines the result: every lane named in the mask executes the instruction, and a
shuffle's source lane is in the mask or out of range).

Each custom kernel takes `(.param .u64 in, .param .u64 out)` (plus a third buffer for the
atomics); thread t reads a record of 32-bit words at `in + t * 4 * words`.
"""
import random
import struct

from gen import BLOCK, F16_SPECIAL, BF16_SPECIAL, F32_PAIR, signed, hash_str

PROLOGUE = (
    "\tld.param.u64 %a0, [pin];\n\tld.param.u64 %a1, [pout];\n"
    "\tcvta.to.global.u64 %a0, %a0;\n\tcvta.to.global.u64 %a1, %a1;\n"
    "\tmov.u32 %t0, %ctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\tmov.u32 %t2, %tid.x;\n"
    "\tmad.lo.u32 %t3, %t0, %t1, %t2;\n\tcvt.u64.u32 %a2, %t3;\n")


def words(vals):
    return b"".join(struct.pack("<I", v & 0xFFFFFFFF) for v in vals)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


# ---------------------------------------------------------------------------------------
# mma.sync: per thread the A, B, C fragment registers (as 32-bit words), out D.

def half_val(r, kind, regime):
    """A 16-bit f16 or bf16 pattern for the regime."""
    bias, mbits, ebits = (15, 10, 5) if kind == "f16" else (127, 7, 8)
    s = r.getrandbits(1) << 15
    if regime == "rand":
        e = r.randrange(bias - 4, bias + 4)
        return s | (e << mbits) | r.getrandbits(mbits)
    if regime == "cancel":
        e = bias + r.choice([-8, 0, 8, 9, -1, 3])
        return s | (e << mbits) | (r.getrandbits(3) << (mbits - 3))
    if regime == "wide":
        span = 12 if kind == "f16" else 60
        e = r.randrange(max(1, bias - span), min((1 << ebits) - 1, bias + span))
        return s | (e << mbits) | r.getrandbits(mbits)
    if regime == "sub":
        k = r.randrange(3)
        if k == 0:
            return s | r.randrange(1, 1 << mbits)
        return s | (r.randrange(1, 4) << mbits) | r.getrandbits(mbits)
    if regime == "special":
        sp = F16_SPECIAL if kind == "f16" else BF16_SPECIAL
        if r.randrange(6) == 0:
            return s | r.choice(sp)
        return half_val(r, kind, "rand")
    if regime == "ones":
        return s | (bias << mbits)
    if regime == "full":  # any finite pattern
        while True:
            v = r.getrandbits(16)
            if (v >> mbits) & ((1 << ebits) - 1) != (1 << ebits) - 1:
                return v
    if regime == "spread":  # exponents spread over +-20 (f16: its whole range)
        lo, hi = (1, 30) if kind == "f16" else (bias - 20, bias + 20)
        return s | (r.randrange(lo, hi + 1) << mbits) | r.getrandbits(mbits)
    if regime == "fewbits":  # 2-bit significands: many exact ties and cancellations
        lo, hi = (bias - 6, bias + 6)
        return s | (r.randrange(lo, hi) << mbits) | (r.getrandbits(2) << (mbits - 2))
    raise ValueError(regime)


def acc_val(r, regime):
    if regime == "rand":
        return f32_bits(r.uniform(-8, 8))
    if regime == "cancel":
        return r.choice([0, 0x80000000, f32_bits(1.0), f32_bits(-1.0), f32_bits(2.0 ** 16),
                         f32_bits(-(2.0 ** 16)), f32_bits(2.0 ** -20), f32_bits(3.0)])
    if regime == "wide":
        return f32_bits(r.choice([1.0, -1.0]) * 2.0 ** r.randrange(-140, 120)) if r.randrange(
            2) else r.getrandbits(32) & 0x807FFFFF
    if regime == "sub":
        return (r.getrandbits(1) << 31) | r.randrange(0, 0x00800000)
    if regime == "special":
        return r.choice(signed(F32_PAIR, 1 << 31)) if r.randrange(4) == 0 else acc_val(r, "rand")
    if regime == "ones":
        return r.choice([0, 0x80000000, f32_bits(2.0 ** -24), f32_bits(1.0)])
    if regime in ("full", "spread"):
        e = r.randrange(127 - 40, 127 + 40)
        return (r.getrandbits(1) << 31) | (e << 23) | r.getrandbits(23)
    if regime == "fewbits":
        e = r.randrange(127 - 30, 127 + 14)
        return (r.getrandbits(1) << 31) | (e << 23) | (r.getrandbits(3) << 20)
    raise ValueError(regime)


MMA_REGIMES = ["rand", "rand", "cancel", "cancel", "cancel", "wide", "sub", "special", "ones"]


# A second, independent set (recorded in a second device run, after the rounding model
# of ops::matrix was fitted to the first): other seeds and regimes.
MMA2_REGIMES = ["full", "spread", "fewbits", "cancel", "rand", "sub", "wide", "fewbits"]


def mma2_cases(out):
    text = []
    for kind in ["f16", "bf16"]:
        name = f"mma2_m16n8k16_f32_{kind}"
        instr = f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32"
        text.append(mma_kernel(name, instr, float_acc=True))
        r = random.Random(hash_str(name) ^ 0x5EED)
        rec = []
        warps = 8 * len(MMA2_REGIMES)
        for w in range(warps):
            regime = MMA2_REGIMES[w % len(MMA2_REGIMES)]
            # half of the warps draw C from the "cancel" set (C of the size of the terms)
            cr = regime if w % 2 == 0 else "cancel"
            for lane in range(32):
                a = [half_val(r, kind, regime) | (half_val(r, kind, regime) << 16)
                     for _ in range(6)]
                c = [acc_val(r, cr) for _ in range(4)]
                rec += a + c
        infile = f"{name}.bin"
        out.add_input(infile, words(rec))
        n = warps * 32
        out.case(name, "mma2", name, n // BLOCK, BLOCK,
                 [f"in:{infile}", f"out:{name}.bin:{n * 16}"],
                 ["srcs=custom", "dsts=r", f"n={n * 4}", "check=mma"])
    out.add_kernel("mma2", "\n".join(text))


def mma_cases(out):
    text = []
    for kind in ["f16", "bf16"]:
        name = f"mma_m16n8k16_f32_{kind}"
        instr = f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32"
        text.append(mma_kernel(name, instr, float_acc=True))
        r = random.Random(hash_str(name))
        rec = []
        warps = 8 * len(MMA_REGIMES)
        for w in range(warps):
            regime = MMA_REGIMES[w % len(MMA_REGIMES)]
            for lane in range(32):
                a = [half_val(r, kind, regime) | (half_val(r, kind, regime) << 16)
                     for _ in range(6)]
                c = [acc_val(r, regime) for _ in range(4)]
                rec += a + c
        infile = f"{name}.bin"
        out.add_input(infile, words(rec))
        n = warps * 32
        out.case(name, "mma", name, n // BLOCK, BLOCK,
                 [f"in:{infile}", f"out:{name}.bin:{n * 16}"],
                 ["srcs=custom", "dsts=r", f"n={n * 4}", "check=mma"])
    name = "mma_m16n8k32_s32_s8_satfinite"
    instr = "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
    text.append(mma_kernel(name, instr, float_acc=False))
    name2 = "mma_m16n8k32_s32_s8"
    text.append(mma_kernel(name2, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
                           float_acc=False))
    r = random.Random(hash_str(name))
    rec = []
    warps = 32
    for w in range(warps):
        regime = w % 4
        for lane in range(32):
            if regime == 0:
                ab = [r.getrandbits(32) for _ in range(6)]
                c = [r.getrandbits(32) for _ in range(4)]
            else:
                ext = [0x7F, 0x80, 0x81, 0xFF, 0x00, 0x01][: 2 + regime]
                ab = [sum(r.choice(ext) << (8 * i) for i in range(4)) for _ in range(6)]
                c = [r.choice([0x7FFFFFFF, 0x80000000, 0x7FFF0000, 0x80010000,
                               0x7FFFFFFF - r.getrandbits(18), 0x80000000 + r.getrandbits(18),
                               0, r.getrandbits(32)]) for _ in range(4)]
            rec += ab + c
    infile = "mma_s8.bin"
    out.add_input(infile, words(rec))
    n = warps * 32
    for nm in [name, name2]:
        out.case(nm, "mma", nm, n // BLOCK, BLOCK, [f"in:{infile}", f"out:{nm}.bin:{n * 16}"],
                 ["srcs=custom", "dsts=r", f"n={n * 4}", "check=exact"])
    out.add_kernel("mma", "\n".join(text))


def mma_kernel(name, instr, float_acc):
    ct = "f32" if float_acc else "b32"
    s = [f".visible .entry {name}(.param .u64 pin, .param .u64 pout)\n{{\n",
         "\t.reg .b32 %x<10>, %t<4>;\n\t.reg .b64 %a<4>;\n",
         f"\t.reg .{ct} %c<4>, %d<4>;\n", PROLOGUE,
         "\tmad.lo.u64 %a3, %a2, 40, %a0;\n"]
    for i in range(6):
        s.append(f"\tld.global.b32 %x{i}, [%a3+{4 * i}];\n")
    for i in range(4):
        s.append(f"\tld.global.{ct} %c{i}, [%a3+{24 + 4 * i}];\n")
    s.append(f"\t{instr} {{%d0,%d1,%d2,%d3}}, {{%x0,%x1,%x2,%x3}}, {{%x4,%x5}}, "
             "{%c0,%c1,%c2,%c3};\n")
    s.append("\tmad.lo.u64 %a3, %a2, 16, %a1;\n")
    for i in range(4):
        s.append(f"\tst.global.{ct} [%a3+{4 * i}], %d{i};\n")
    s.append("\tret;\n}\n")
    return "".join(s)


# ---------------------------------------------------------------------------------------
# Float atomics: per thread x (added) and y (the location's initial value). Out per
# thread: old and new value of the shared location, old value of the global `atom`;
# the global locations (atom and red) are written back from their io buffers.

ATOM_VALS = [0x00000000, 0x00000001, 0x00000002, 0x007FFFFF, 0x00400000, 0x00800000,
             0x00800001, 0x3F800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7FC12345,
             0x7F800001, 0x33800000, 0x01000000, 0x00FFFFFF]


def atom_cases(out):
    text = []
    vals = signed(ATOM_VALS, 1 << 31)
    r = random.Random(hash_str("atom"))
    xs, ys = [], []
    for x in vals:
        for y in vals:
            xs.append(x)
            ys.append(y)
    while len(xs) % BLOCK or len(xs) < 1280:
        xs.append(r.choice(vals) if r.randrange(2) else r.randrange(0, 0x01800000) | (
            r.getrandbits(1) << 31))
        ys.append(r.choice(vals) if r.randrange(2) else r.randrange(0, 0x01800000) | (
            r.getrandbits(1) << 31))
    n = len(xs)
    out.add_input("atom_f32_x.bin", words(xs))
    out.add_input("atom_f32_y.bin", words(ys))
    for width, ty in [(4, "f32")]:
        name = f"atom_add_{ty}"
        text.append(atom_kernel(name, ty))
        out.case(name, "atom", name, n // BLOCK, BLOCK,
                 ["in:atom_f32_x.bin", f"io:atom_f32_y.bin:{name}_g.bin",
                  f"io:atom_f32_y.bin:{name}_r.bin", f"out:{name}.bin:{n * 12}"],
                 ["srcs=custom", "dsts=r", f"n={n}", "check=exact"])
    out.add_kernel("atom", "\n".join(text))


def atom_kernel(name, ty):
    return (
        f".visible .entry {name}(.param .u64 pin, .param .u64 pg, .param .u64 pr, "
        ".param .u64 pout)\n{\n"
        "\t.reg .b32 %t<4>;\n\t.reg .b64 %a<8>;\n\t.reg .f32 %x, %y, %o<4>;\n"
        "\t.shared .align 4 .f32 sh[128];\n"
        "\tld.param.u64 %a0, [pin];\n\tld.param.u64 %a1, [pout];\n"
        "\tld.param.u64 %a4, [pg];\n\tld.param.u64 %a5, [pr];\n"
        "\tcvta.to.global.u64 %a0, %a0;\n\tcvta.to.global.u64 %a1, %a1;\n"
        "\tcvta.to.global.u64 %a4, %a4;\n\tcvta.to.global.u64 %a5, %a5;\n"
        "\tmov.u32 %t0, %ctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\tmov.u32 %t2, %tid.x;\n"
        "\tmad.lo.u32 %t3, %t0, %t1, %t2;\n\tcvt.u64.u32 %a2, %t3;\n"
        "\tshl.b64 %a3, %a2, 2;\n"
        "\tadd.u64 %a6, %a0, %a3;\n\tld.global.f32 %x, [%a6];\n"
        "\tadd.u64 %a4, %a4, %a3;\n\tadd.u64 %a5, %a5, %a3;\n"
        "\tld.global.f32 %y, [%a4];\n"
        "\tmov.u32 %t0, sh;\n\tshl.b32 %t1, %t2, 2;\n\tadd.u32 %t0, %t0, %t1;\n"
        "\tst.shared.f32 [%t0], %y;\n\tbar.sync 0;\n"
        f"\tatom.shared.add.{ty} %o0, [%t0], %x;\n\tbar.sync 0;\n"
        "\tld.shared.f32 %o1, [%t0];\n"
        f"\tatom.global.add.{ty} %o2, [%a4], %x;\n"
        f"\tred.global.add.{ty} [%a5], %x;\n"
        "\tmul.lo.u64 %a3, %a2, 12;\n\tadd.u64 %a1, %a1, %a3;\n"
        "\tst.global.f32 [%a1], %o0;\n\tst.global.f32 [%a1+4], %o1;\n"
        "\tst.global.f32 [%a1+8], %o2;\n"
        "\tret;\n}\n")


# ---------------------------------------------------------------------------------------
# Warp operations with partial masks. Record per thread: mask, value, b, c, pred word.
# Lanes outside the mask branch around the instruction (their output stays 0); out per
# thread: two words (the result and the predicate / second result) plus 0xC0DE as a
# "this lane ran" marker in a third word.

SHFL_CASES = [
    # (mode, mask, b or None for random lane in mask, c)
    ("idx", 0xFFFFFFFF, None, 0x1F), ("idx", 0x55555555, None, 0x1F),
    ("idx", 0x0000FFFF, None, 0x1F), ("idx", 0x80000001, None, 0x1F),
    ("idx", 0xFFFFFFFF, None, 0x0F0F), ("idx", 0xFFFFFFFF, None, 0x1C1F),
    ("idx", 0xF0F0F0F0, None, 0x1F), ("idx", 0x00000001, 0, 0x1F),
    ("idx", 0xFFFFFFFF, 40, 0x1F),
    ("up", 0xFFFFFFFF, 1, 0), ("up", 0xFFFFFFFF, 5, 0), ("up", 0xFFFFFFFF, 3, 0x1800),
    ("up", 0xFFFF0000, 2, 0x1000), ("up", 0x0000FFFF, 7, 0x1000), ("up", 0xFFFFFFFF, 0, 0),
    ("up", 0xFFFFFFFF, 33, 0),
    ("down", 0xFFFFFFFF, 1, 0x1F), ("down", 0xFFFFFFFF, 4, 0x1F),
    ("down", 0x0000FFFF, 3, 0x0F), ("down", 0x00FF0000, 2, 0x181F),
    ("down", 0xFFFFFFFF, 5, 0x181F), ("down", 0xFFFFFFFF, 31, 0x1F),
    ("bfly", 0xFFFFFFFF, 1, 0x1F), ("bfly", 0xFFFFFFFF, 16, 0x1F),
    ("bfly", 0x0000FFFF, 5, 0x1F), ("bfly", 0xFFFFFFFF, 3, 0x1C1F),
    ("bfly", 0x0F0F0F0F, 2, 0x1F), ("bfly", 0xFFFFFFFF, 0, 0x1F),
]

VOTE_MASKS = [0xFFFFFFFF, 0x55555555, 0x0000FFFF, 0x80000001, 0x00000001, 0xF0F0F0F0,
              0x12345678, 0xFFFFFFFE]

WARP_OPS = [
    ("vote_ballot", "vote.sync.ballot.b32 %o0, %p0, %m;"),
    ("vote_any", "vote.sync.any.pred %p1, %p0, %m;\n\tselp.u32 %o0, 1, 0, %p1;"),
    ("vote_all", "vote.sync.all.pred %p1, %p0, %m;\n\tselp.u32 %o0, 1, 0, %p1;"),
    ("vote_uni", "vote.sync.uni.pred %p1, %p0, %m;\n\tselp.u32 %o0, 1, 0, %p1;"),
    ("vote_ballot_not", "vote.sync.ballot.b32 %o0, !%p0, %m;"),
    ("activemask", "activemask.b32 %o0;"),
    ("match_any", "match.any.sync.b32 %o0, %v, %m;"),
    ("match_all", "match.all.sync.b32 %o0|%p1, %v, %m;\n\tselp.u32 %o1, 1, 0, %p1;"),
    ("redux_add", "redux.sync.add.u32 %o0, %v, %m;"),
    ("redux_min_s32", "redux.sync.min.s32 %o0, %v, %m;"),
    ("redux_max_u32", "redux.sync.max.u32 %o0, %v, %m;"),
    ("redux_and", "redux.sync.and.b32 %o0, %v, %m;"),
    ("redux_or", "redux.sync.or.b32 %o0, %v, %m;"),
    ("redux_xor", "redux.sync.xor.b32 %o0, %v, %m;"),
]


def warp_kernel(name, op):
    return (
        f".visible .entry {name}(.param .u64 pin, .param .u64 pout)\n{{\n"
        "\t.reg .b32 %t<4>, %m, %v, %b, %c, %o<2>, %q;\n\t.reg .b64 %a<4>;\n"
        "\t.reg .pred %p<3>;\n" + PROLOGUE +
        "\tmad.lo.u64 %a3, %a2, 20, %a0;\n"
        "\tld.global.b32 %m, [%a3];\n\tld.global.b32 %v, [%a3+4];\n"
        "\tld.global.b32 %b, [%a3+8];\n\tld.global.b32 %c, [%a3+12];\n"
        "\tld.global.b32 %q, [%a3+16];\n\tsetp.ne.b32 %p0, %q, 0;\n"
        "\tmov.u32 %o0, 0;\n\tmov.u32 %o1, 0;\n"
        "\tmov.u32 %t0, %laneid;\n\tshr.b32 %t1, %m, %t0;\n\tand.b32 %t1, %t1, 1;\n"
        "\tsetp.eq.b32 %p2, %t1, 0;\n\t@%p2 bra SKIP;\n"
        f"\t{op}\n"
        "\tmad.lo.u64 %a3, %a2, 12, %a1;\n"
        "\tst.global.b32 [%a3], %o0;\n\tst.global.b32 [%a3+4], %o1;\n"
        "\tst.global.b32 [%a3+8], 0xC0DE;\n"
        "SKIP:\n\tret;\n}\n")


def warp_cases(out):
    r = random.Random(hash_str("warp"))
    text = []
    # shuffles: one warp per SHFL_CASES entry and 4 value sets each
    rec = []
    for mode, mask, b, c in SHFL_CASES:
        for rep in range(4):
            lanes_in = [l for l in range(32) if mask >> l & 1]
            for lane in range(32):
                bb = b if b is not None else r.choice(lanes_in)
                if b is None and rep == 3:
                    bb = lane if lane in lanes_in else lanes_in[0]
                rec += [mask, r.getrandbits(32), bb, c, r.getrandbits(1)]
    for mode in ["idx", "up", "down", "bfly"]:
        name = f"shfl_{mode}"
        op = f"shfl.sync.{mode}.b32 %o0|%p1, %v, %b, %c, %m;\n\tselp.u32 %o1, 1, 0, %p1;"
        text.append(warp_kernel(name, op))
    # Each shuffle kernel runs on the records of its own mode only: one input per mode.
    for mode in ["idx", "up", "down", "bfly"]:
        sel = []
        for i, (m2, mask, b, c) in enumerate(SHFL_CASES):
            if m2 == mode:
                sel += rec[i * 4 * 32 * 5:(i + 1) * 4 * 32 * 5]
        n = len(sel) // 5
        pad = (-n) % BLOCK
        sel += [0, 0, 0, 0, 0] * pad  # whole warps with an empty mask: nobody runs
        n += pad
        infile = f"shfl_{mode}.bin"
        out.add_input(infile, words(sel))
        name = f"shfl_{mode}"
        out.case(name, "warp", name, n // BLOCK, BLOCK,
                 [f"in:{infile}", f"out:{name}.bin:{n * 12}"],
                 ["srcs=custom", "dsts=r", f"n={n * 3}", "check=exact"])
    # votes, matches, reductions: 4 warps per mask (random predicates, few distinct values)
    rec = []
    for mask in VOTE_MASKS:
        for rep in range(4):
            vals = [r.getrandbits(32) for _ in range(3)]
            for lane in range(32):
                p = [r.getrandbits(1), 1, 0, r.getrandbits(1)][rep]
                v = r.choice(vals) if rep != 1 else vals[0]
                if rep == 3:
                    v = r.getrandbits(32)
                rec += [mask, v, 0, 0, p]
    n = len(rec) // 5
    out.add_input("vote.bin", words(rec))
    for name, op in WARP_OPS:
        text.append(warp_kernel(name, op))
        out.case(name, "warp", name, n // BLOCK, BLOCK,
                 ["in:vote.bin", f"out:{name}.bin:{n * 12}"],
                 ["srcs=custom", "dsts=r", f"n={n * 3}", "check=exact"])
    out.add_kernel("warp", "\n".join(text))


def add_all(out):
    mma_cases(out)
    mma2_cases(out)
    atom_cases(out)
    warp_cases(out)
