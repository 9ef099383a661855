#!/usr/bin/env python3
"""Generates the golden-test kernels, inputs and case list of tests/golden/.

    python3 tests/golden/gen.py            # writes ptx/*.ptx, in/*.bin, cases.txt

Deterministic (a fixed-seed random.Random): running it again rewrites the same files.
The outputs (out/*.bin) are NOT written here: they were recorded on a real GPU by
gpurun.c (see README.md) and are compared with ptxjit by tests/golden.rs.

Elementwise forms: one kernel per instruction form, `NAME(.param .u64 in, .param .u64
out)`; thread t (= ctaid.x * ntid.x + tid.x) loads source j from `in + off_j + t * w_j`
(each source a structure-of-arrays slot of N values of its register width w_j: 2, 4 or
8 bytes; predicates as 4-byte words), applies the form and stores destination k to
`out + off_k + t * w_k`. Forms with the same source generators share one input file.
Inputs: first every combination of the generators' special values (the cross product
for two sources, special triples picked at random for three), then seeded random values.
Custom kernels (mma, atomics, warp shuffles and votes) are written out below.
"""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
BLOCK = 128

# ---------------------------------------------------------------------------------------
# Special values (both signs are added where the type is signed).

F32_SPECIAL = [
    0x00000000, 0x7F800000, 0x7FC00000, 0x7FFFFFFF, 0x7FC12345, 0x7F800001, 0x7FBFFFFF,
    0x00000001, 0x00000002, 0x00400000, 0x007FFFFF, 0x00800000, 0x00800001, 0x7F7FFFFF,
    0x7F7FFFFE, 0x7F000000, 0x3F800000, 0x3F800001, 0x3F7FFFFF, 0x3F000000, 0x3FC00000,
    0x40200000, 0x3E800000, 0x3F400000, 0x4B000000, 0x4B7FFFFF, 0x4B800000, 0x4B800001,
    0x4AFFFFFF, 0x4F000000, 0x4F800000, 0x5F000000, 0x5F800000, 0x477FE000, 0x477FF000,
    0x33800000, 0x33000000, 0x38800000, 0x387FC000, 0x3F801000, 0x40490FDB, 0x3FC90FDB,
    0x43E00000, 0x43F00000, 0x47000000, 0x41200000,
]
# A smaller set for the cross product of two sources.
F32_PAIR = [
    0x00000000, 0x7F800000, 0x7FC00000, 0x7FC12345, 0x7F800001, 0x7FBFFFFF, 0x00000001,
    0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0x3F800001, 0x3F7FFFFF, 0x3F000000,
    0x40200000, 0x4B800001, 0x33800000, 0x1F800000, 0x5F800000, 0x00400000,
]
F64_SPECIAL = [
    0x0, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF80000DEADBEEF,
    0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF, 0x7FF8000020000000, 0x1, 0x000FFFFFFFFFFFFF,
    0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0x3FF0000000000001,
    0x3FF0000010000000, 0x3FF0000010000001, 0x3FE0000000000000, 0x3FF8000000000000,
    0x4004000000000000, 0x4330000000000000, 0x432FFFFFFFFFFFFF, 0x43E0000000000000,
    0x43F0000000000000, 0x41E0000000000000, 0x41F0000000000000, 0x47EFFFFFE0000000,
    0x47EFFFFFF0000000, 0x36A0000000000000, 0x3690000000000000, 0x3810000000000000,
    0x380FFFFFC0000000, 0x40F0000000000000, 0x3FEFFFFFFFFFFFFF, 0x0008000000000000,
]
F64_PAIR = [
    0x0, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF80000DEADBEEF, 0x7FF0000000000001,
    0x1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000,
    0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF, 0x3FE0000000000000, 0x4004000000000000,
    0x36A0000000000000, 0x5FF0000000000000, 0x2000000000000000,
]
F16_SPECIAL = [
    0x0000, 0x7C00, 0x7E00, 0x7FFF, 0x7E5A, 0x7C01, 0x7DFF, 0x0001, 0x0002, 0x03FF, 0x0200,
    0x0400, 0x0401, 0x7BFF, 0x7BFE, 0x3C00, 0x3C01, 0x3BFF, 0x3800, 0x3E00, 0x4100, 0x6400,
    0x6800, 0x1400, 0x4248, 0x5BFF,
]
F16_PAIR = [
    0x0000, 0x7C00, 0x7E00, 0x7E5A, 0x7C01, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x3C00, 0x3C01,
    0x3BFF, 0x3800, 0x5BFF, 0x1400,
]
BF16_SPECIAL = [
    0x0000, 0x7F80, 0x7FC0, 0x7FFF, 0x7FC5, 0x7F81, 0x7FBF, 0x0001, 0x0002, 0x007F, 0x0040,
    0x0080, 0x0081, 0x7F7F, 0x7F7E, 0x3F80, 0x3F81, 0x3F7F, 0x3F00, 0x3FC0, 0x4020, 0x4B00,
    0x4049, 0x3FC9,
]
BF16_PAIR = [
    0x0000, 0x7F80, 0x7FC0, 0x7FC5, 0x7F81, 0x0001, 0x007F, 0x0080, 0x7F7F, 0x3F80, 0x3F81,
    0x3F7F, 0x3F00, 0x5F80, 0x2000,
]


def signed(vals, sign_bit):
    out = []
    for v in vals:
        out += [v, v | sign_bit]
    return out


def int_special(w):
    m = (1 << w) - 1
    mn = 1 << (w - 1)
    vals = [0, 1, 2, 3, 7, m, m - 1, mn, mn - 1, mn + 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF,
            0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 31, 32, 33, 63, 64,
            (-3) & m, (-7) & m, 100, (-100) & m]
    out = []
    for v in vals:
        v &= m
        if v not in out:
            out.append(v)
    return out


def int_pair(w):
    m = (1 << w) - 1
    mn = 1 << (w - 1)
    return [0, 1, 2, 3, m, m - 1, mn, mn - 1, mn + 1, 0x7FFFFFFF & m, 0x80000000 & m or 5,
            (-3) & m, 7, 100, (-100) & m]


# ---------------------------------------------------------------------------------------
# Generators: (name, register, specials, pair specials, random function).

def rand_f32(r):
    k = r.randrange(8)
    if k < 3:
        return r.getrandbits(32)
    if k < 6:  # moderate exponents
        e = r.randrange(127 - 12, 127 + 12)
        return (r.getrandbits(1) << 31) | (e << 23) | r.getrandbits(23)
    if k == 6:  # subnormal or tiny
        return (r.getrandbits(1) << 31) | r.randrange(0, 0x01000000)
    return (r.getrandbits(1) << 31) | (r.randrange(1, 255) << 23) | (r.getrandbits(3) << 20)


def rand_f64(r):
    k = r.randrange(8)
    if k < 3:
        return r.getrandbits(64)
    if k < 6:
        e = r.randrange(1023 - 20, 1023 + 20)
        return (r.getrandbits(1) << 63) | (e << 52) | r.getrandbits(52)
    if k == 6:
        return (r.getrandbits(1) << 63) | r.randrange(0, 1 << 53)
    # f32 rounding boundaries
    return (r.getrandbits(1) << 63) | (r.randrange(0x380, 0x47F) << 52) | (
        r.getrandbits(23) << 29) | r.choice([0, 1 << 28, (1 << 28) - 1, (1 << 28) + 1, 1])


def rand_f16(r):
    k = r.randrange(4)
    if k < 2:
        return r.getrandbits(16)
    return (r.getrandbits(1) << 15) | (r.randrange(15 - 6, 15 + 6) << 10) | r.getrandbits(10)


def rand_bf16(r):
    k = r.randrange(4)
    if k < 2:
        return r.getrandbits(16)
    return (r.getrandbits(1) << 15) | (r.randrange(127 - 12, 127 + 12) << 7) | r.getrandbits(7)


def rand_int(w):
    def f(r):
        k = r.randrange(4)
        if k == 0:
            return r.getrandbits(w)
        if k == 1:
            return r.getrandbits(r.randrange(1, w + 1))
        if k == 2:
            return (-r.getrandbits(r.randrange(1, w))) & ((1 << w) - 1)
        return r.choice(int_special(w))
    return f


def rand_shift(w):
    def f(r):
        k = r.randrange(4)
        if k < 3:
            return r.randrange(0, w + 3)
        return r.getrandbits(32)
    return f


def rand_f32_approx(r):
    """Inputs for the approximate functions: their primary ranges, then wider."""
    k = r.randrange(6)
    if k == 0:
        x = r.uniform(-3.2, 3.2)
    elif k == 1:
        x = r.uniform(-130.0, 130.0)
    elif k == 2:
        x = r.uniform(0.0, 4.0)
    elif k == 3:
        x = r.uniform(-1000.0, 1000.0)
    else:
        return rand_f32(r)
    return struct.unpack("<I", struct.pack("<f", x))[0]


def pairs16(lst):
    return [(b << 16) | a for a in lst for b in lst[:6]]


GENS = {
    "f32": ("r", signed(F32_SPECIAL, 1 << 31), signed(F32_PAIR, 1 << 31), rand_f32),
    "f32a": ("r", signed(F32_SPECIAL, 1 << 31), signed(F32_PAIR, 1 << 31), rand_f32_approx),
    "b8x2": ("h", [(((i * 37) + (i >> 8)) & 255) << 8 | (i & 255) for i in range(1024)],
             [0, 0x7F7F, 0x8080, 0xFFFF], lambda r: r.getrandbits(16)),
    "f64": ("d", signed(F64_SPECIAL, 1 << 63), signed(F64_PAIR, 1 << 63), rand_f64),
    "f16": ("h", signed(F16_SPECIAL, 1 << 15), signed(F16_PAIR, 1 << 15), rand_f16),
    "bf16": ("h", signed(BF16_SPECIAL, 1 << 15), signed(BF16_PAIR, 1 << 15), rand_bf16),
    "f16x2": ("r", pairs16(signed(F16_PAIR, 1 << 15)), pairs16(signed(F16_PAIR[:4], 1 << 15)),
              lambda r: (rand_f16(r) << 16) | rand_f16(r)),
    "bf16x2": ("r", pairs16(signed(BF16_PAIR, 1 << 15)),
               pairs16(signed(BF16_PAIR[:4], 1 << 15)),
               lambda r: (rand_bf16(r) << 16) | rand_bf16(r)),
    "i16": ("h", int_special(16), int_pair(16), rand_int(16)),
    "i32": ("r", int_special(32), int_pair(32), rand_int(32)),
    "i64": ("d", int_special(64), int_pair(64), rand_int(64)),
    "sh32": ("r", list(range(0, 35)) + [63, 64, 65, 255, 256, 0x80000000, 0xFFFFFFFF],
             [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 0xFFFFFFFF], rand_shift(32)),
    "sh64": ("r", list(range(0, 67)) + [127, 128, 255, 256, 0xFFFFFFFF],
             [0, 1, 31, 32, 33, 63, 64, 65, 0xFFFFFFFF], rand_shift(64)),
    "prmt": ("r", [0x3210, 0x7654, 0x0123, 0x4567, 0x8888, 0xFFFF, 0x0000, 0x89AB, 0xCDEF,
                   0x1, 0x2, 0x3, 0x7, 0xF, 0xDEADBEEF],
             [0x3210, 0x7654, 0x0123, 0x8888, 0xFFFF, 0x89AB, 0x1, 0x2, 0x3],
             lambda r: r.getrandbits(32)),
    "pred": ("p", [0, 1], [0, 1], lambda r: r.getrandbits(1)),
}

REG_W = {"h": 2, "r": 4, "d": 8, "p": 4}
REG_PTX = {"h": "b16", "r": "b32", "d": "b64", "p": "b32"}


def gen_inputs(gens, n, seed):
    """Per source, n values: special combinations first, then random."""
    r = random.Random(seed)
    cols = [[] for _ in gens]
    if len(gens) == 1:
        combos = [(v,) for v in GENS[gens[0]][1]]
    elif len(gens) == 2:
        combos = [(a, b) for a in GENS[gens[0]][2] for b in GENS[gens[1]][2]]
    else:
        combos = [tuple(r.choice(GENS[g][2]) for g in gens) for _ in range(n // 2)]
    combos = combos[: n - n // 8]  # keep at least an eighth random
    for c in combos:
        for j, v in enumerate(c):
            cols[j].append(v)
    while len(cols[0]) < n:
        for j, g in enumerate(gens):
            reg, sp, _, rnd = GENS[g]
            # random values, sometimes mixed with a special one
            v = r.choice(sp) if r.randrange(4) == 0 else rnd(r)
            cols[j].append(v)
    return cols


def lanes_for(gens):
    if gens == ["f32a"]:
        return 4096
    if len(gens) == 1:
        return 1024
    if len(gens) == 2:
        k = len(GENS[gens[0]][2]) * len(GENS[gens[1]][2])
        return max(1024, -(-(k + k // 6) // BLOCK) * BLOCK)
    return 2048


# ---------------------------------------------------------------------------------------
# Forms: (family, body, source generators, destination registers, check).
# `{a} {b} {c}` are the sources, `{d} {q}` the destinations. check: "exact" or "approx"
# (tests/golden.rs holds the bounds of the approximate forms).

FORMS = []


def form(family, body, srcs, dsts, check="exact", name=None):
    FORMS.append((family, name or body.split()[0], body, srcs, dsts, check))


def unary(family, op, g, dreg=None, check="exact"):
    form(family, f"{op} {{d}}, {{a}};", [g], [dreg or GENS[g][0]], check)


def binary(family, op, g, dreg=None, g2=None, check="exact"):
    form(family, f"{op} {{d}}, {{a}}, {{b}};", [g, g2 or g], [dreg or GENS[g][0]], check)


def ternary(family, op, g, dreg=None, gs=None, check="exact", name=None):
    form(family, f"{op} {{d}}, {{a}}, {{b}}, {{c}};", gs or [g, g, g], [dreg or GENS[g][0]],
         check, name)


def int_forms():
    for t, g in [("u16", "i16"), ("s16", "i16"), ("u32", "i32"), ("s32", "i32"),
                 ("u64", "i64"), ("s64", "i64")]:
        binary("intdiv", f"div.{t}", g)
        binary("intdiv", f"rem.{t}", g)
    for op in ["add.sat.s32", "sub.sat.s32", "mul24.lo.u32", "mul24.lo.s32",
               "mul24.hi.u32", "mul24.hi.s32"]:
        binary("intsat", op, "i32")
    for op in ["mad24.lo.u32", "mad24.lo.s32", "mad24.hi.u32", "mad24.hi.s32",
               "mad24.hi.sat.s32", "sad.u32", "sad.s32"]:
        ternary("intsat", op, "i32")
    # its own file: a front end that rejects it fails this module only
    ternary("intsat_madhi", "mad.hi.sat.s32", "i32")
    for op in ["sad.u16", "sad.s16"]:
        ternary("intsat", op, "i16")
    for op in ["sad.u64", "sad.s64"]:
        ternary("intsat", op, "i64")
    for t, g in [("u32", "i32"), ("s32", "i32"), ("u64", "i64"), ("s64", "i64")]:
        form("bits", f"bfind.{t} {{d}}, {{a}};", [g], ["r"])
        form("bits", f"bfind.shiftamt.{t} {{d}}, {{a}};", [g], ["r"])
        sh = "sh32" if t.endswith("32") else "sh64"
        form("bits", f"bfe.{t} {{d}}, {{a}}, {{b}}, {{c}};", [g, sh, sh], [GENS[g][0]])
    form("bits", "bfi.b32 {d}, {a}, {b}, {c}, {e};", ["i32", "i32", "sh32", "sh32"], ["r"])
    form("bits", "bfi.b64 {d}, {a}, {b}, {c}, {e};", ["i64", "i64", "sh64", "sh64"], ["d"])
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
        form("bits", f"prmt.b32{mode} {{d}}, {{a}}, {{b}}, {{c}};", ["i32", "i32", "prmt"],
             ["r"])
    for d in ["l", "r"]:
        for m in ["wrap", "clamp"]:
            form("bits", f"shf.{d}.{m}.b32 {{d}}, {{a}}, {{b}}, {{c}};",
                 ["i32", "i32", "sh32"], ["r"])
    for a in ["u32", "s32"]:
        for b in ["u32", "s32"]:
            ternary("dot", f"dp4a.{a}.{b}", "i32")
            ternary("dot", f"dp2a.lo.{a}.{b}", "i32")
            ternary("dot", f"dp2a.hi.{a}.{b}", "i32")
    for t in ["u16", "s16"]:
        binary("dot", f"cvt.pack.sat.{t}.s32", "i32")
    for t in ["u8", "s8"]:
        ternary("dot", f"cvt.pack.sat.{t}.s32.b32", "i32")
    for t, g in [("b32", "i32"), ("b64", "i64")]:
        form("bits", f"clz.{t} {{d}}, {{a}};", [g], ["r"])
        form("bits", f"popc.{t} {{d}}, {{a}};", [g], ["r"])
        unary("bits", f"brev.{t}", g)
    for t, g in [("s32", "i32"), ("s64", "i64")]:
        unary("intsat", f"abs.{t}", g)
        unary("intsat", f"neg.{t}", g)


def float_forms():
    for t, g in [("f32", "f32"), ("f64", "f64")]:
        for op in ["add", "sub", "mul"]:
            for rnd in ["rn", "rz", "rm", "rp"]:
                binary(f"arith_{t}", f"{op}.{rnd}.{t}", g)
        ternary(f"arith_{t}", f"fma.rn.{t}", g)
        ternary(f"arith_{t}", f"fma.rz.{t}", g)
        binary(f"arith_{t}", f"div.rn.{t}", g)
        unary(f"arith_{t}", f"sqrt.rn.{t}", g)
        unary(f"arith_{t}", f"rcp.rn.{t}", g)
        unary(f"arith_{t}", f"abs.{t}", g)
        unary(f"arith_{t}", f"neg.{t}", g)
        binary(f"minmax_{t}", f"min.{t}", g)
        binary(f"minmax_{t}", f"max.{t}", g)
        binary(f"minmax_{t}", f"copysign.{t}", g)
        for p in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            form(f"minmax_{t}", f"testp.{p}.{t} {{d}}, {{a}};", [g], ["p"])
        form(f"arith_{t}", f"cvt.rni.{t}.{t} {{d}}, {{a}};", [g], [GENS[g][0]])
        form(f"arith_{t}", f"cvt.rzi.{t}.{t} {{d}}, {{a}};", [g], [GENS[g][0]])
    for op in ["add.rn.ftz.f32", "mul.rn.ftz.f32", "sub.rz.ftz.f32", "div.rn.ftz.f32"]:
        binary("arith_f32", op, "f32")
    ternary("arith_f32", "fma.rn.ftz.f32", "f32")
    unary("arith_f32", "sqrt.rn.ftz.f32", "f32")
    # .sat: -0 and NaN go to +0.
    for op in ["add.sat.f32", "add.rn.ftz.sat.f32", "sub.sat.f32", "mul.sat.f32",
               "mul.rz.sat.f32"]:
        binary("sat_f32", op, "f32")
    ternary("sat_f32", "fma.rn.sat.f32", "f32")
    ternary("sat_f32", "mad.rn.sat.f32", "f32")
    for op in ["cvt.sat.f32.f32", "cvt.ftz.sat.f32.f32", "cvt.rni.sat.f32.f32",
               "cvt.rn.sat.f32.f64", "cvt.sat.f64.f64", "cvt.rni.sat.f64.f64"]:
        src = "f64" if op.endswith("f64") else "f32"
        dreg = "d" if ".f64.f64" in op else "r"
        form("sat_f32", f"{op} {{d}}, {{a}};", [src], [dreg])
    for c in ["lt", "le", "eq", "ne", "ltu", "equ", "neu", "nan", "num"]:
        form("minmax_f32", f"setp.{c}.f32 {{d}}, {{a}}, {{b}};", ["f32", "f32"], ["p"])
        form("minmax_f32", f"setp.{c}.ftz.f32 {{d}}, {{a}}, {{b}};", ["f32", "f32"], ["p"],
             name=f"setp.{c}.ftz.f32")
    for c in ["lt", "equ", "nan"]:
        form("half", f"setp.{c}.f16 {{d}}, {{a}}, {{b}};", ["f16", "f16"], ["p"])
        form("half", f"setp.{c}.bf16 {{d}}, {{a}}, {{b}};", ["bf16", "bf16"], ["p"])
    for op in ["min.NaN.f32", "max.NaN.f32", "min.ftz.f32", "max.ftz.NaN.f32",
               "min.xorsign.abs.f32", "max.xorsign.abs.f32", "min.NaN.xorsign.abs.f32"]:
        binary("minmax_f32", op, "f32")


def half_forms():
    for t in ["f16", "bf16", "f16x2", "bf16x2"]:
        fam = "half"
        for op in ["add.rn", "sub.rn", "mul.rn"]:
            binary(fam, f"{op}.{t}", t)
        ternary(fam, f"fma.rn.{t}", t)
        ternary(fam, f"fma.rn.relu.{t}", t)
        binary(fam, f"min.{t}", t)
        binary(fam, f"max.{t}", t)
        binary(fam, f"min.NaN.{t}", t)
        binary(fam, f"max.NaN.{t}", t)
        unary(fam, f"neg.{t}", t)
        unary(fam, f"abs.{t}", t)
    for op in ["add.ftz.f16", "mul.sat.f16", "add.sat.f16", "min.ftz.f16", "add.rn.ftz.sat.f16x2"]:
        binary("half", op, op.split(".")[-1])
    ternary("half", "fma.rn.sat.f16", "f16")
    ternary("half", "fma.rn.ftz.f16", "f16")
    binary("half", "min.xorsign.abs.f16", "f16")
    binary("half", "max.xorsign.abs.bf16", "bf16")


def cvt_forms():
    for it in ["s32", "u32", "s64", "u64", "s16", "u16", "s8", "u8"]:
        dreg = "d" if it.endswith("64") else ("h" if it[1:] in ("16", "8") else "r")
        for rnd in ["rzi", "rni", "rmi", "rpi"]:
            form("cvt_int", f"cvt.{rnd}.{it}.f32 {{d}}, {{a}};", ["f32"], [dreg])
        form("cvt_int", f"cvt.rzi.{it}.f64 {{d}}, {{a}};", ["f64"], [dreg])
        form("cvt_int", f"cvt.rni.{it}.f16 {{d}}, {{a}};", ["f16"], [dreg])
        if it not in ("s8", "u8"):  # ptxas rejects cvt.*.{s8,u8}.bf16
            form("cvt_int", f"cvt.rzi.{it}.bf16 {{d}}, {{a}};", ["bf16"], [dreg])
    form("cvt_int", "cvt.rzi.ftz.s32.f32 {d}, {a};", ["f32"], ["r"])
    for rnd in ["rn", "rz", "rm", "rp"]:
        form("cvt_int", f"cvt.{rnd}.f32.u64 {{d}}, {{a}};", ["i64"], ["r"])
        form("cvt_int", f"cvt.{rnd}.f32.s32 {{d}}, {{a}};", ["i32"], ["r"])
        form("cvt_int", f"cvt.{rnd}.f64.s64 {{d}}, {{a}};", ["i64"], ["d"])
        form("cvt_int", f"cvt.{rnd}.f16.s32 {{d}}, {{a}};", ["i32"], ["h"])
    for rnd in ["rn", "rz", "rm", "rp"]:
        form("cvt_half", f"cvt.{rnd}.f16.f32 {{d}}, {{a}};", ["f32"], ["h"])
        form("cvt_half", f"cvt.{rnd}.bf16.f32 {{d}}, {{a}};", ["f32"], ["h"])
        form("cvt_half", f"cvt.{rnd}.f32.f64 {{d}}, {{a}};", ["f64"], ["r"])
    for m in [".relu", ".satfinite", ".relu.satfinite"]:
        form("cvt_half", f"cvt.rn{m}.f16.f32 {{d}}, {{a}};", ["f32"], ["h"])
        form("cvt_half", f"cvt.rn{m}.bf16.f32 {{d}}, {{a}};", ["f32"], ["h"])
        form("cvt_half", f"cvt.rn{m}.f16x2.f32 {{d}}, {{a}}, {{b}};", ["f32", "f32"], ["r"])
        form("cvt_half", f"cvt.rz{m}.bf16x2.f32 {{d}}, {{a}}, {{b}};", ["f32", "f32"], ["r"])
    form("cvt_half", "cvt.rn.f16x2.f32 {d}, {a}, {b};", ["f32", "f32"], ["r"])
    form("cvt_half", "cvt.rn.bf16x2.f32 {d}, {a}, {b};", ["f32", "f32"], ["r"])
    form("cvt_half", "cvt.rn.f16.f64 {d}, {a};", ["f64"], ["h"])
    form("cvt_half", "cvt.rn.bf16.f64 {d}, {a};", ["f64"], ["h"])
    form("cvt_half", "cvt.rna.tf32.f32 {d}, {a};", ["f32"], ["r"])
    form("cvt_half", "cvt.rna.satfinite.tf32.f32 {d}, {a};", ["f32"], ["r"])
    form("cvt_half", "cvt.f32.f16 {d}, {a};", ["f16"], ["r"])
    form("cvt_half", "cvt.f32.bf16 {d}, {a};", ["bf16"], ["r"])
    form("cvt_half", "cvt.f64.f16 {d}, {a};", ["f16"], ["d"])
    form("cvt_half", "cvt.f64.f32 {d}, {a};", ["f32"], ["d"])
    form("cvt_half", "cvt.ftz.f64.f32 {d}, {a};", ["f32"], ["d"])
    form("cvt_half", "cvt.rn.f16.bf16 {d}, {a};", ["bf16"], ["h"])
    form("cvt_half", "cvt.rn.bf16.f16 {d}, {a};", ["f16"], ["h"])
    for f8 in ["e4m3x2", "e5m2x2"]:
        for m in ["", ".relu"]:
            form("cvt_f8", f"cvt.rn.satfinite{m}.{f8}.f32 {{d}}, {{a}}, {{b}};",
                 ["f32", "f32"], ["h"])
            form("cvt_f8", f"cvt.rn.satfinite{m}.{f8}.f16x2 {{d}}, {{a}};", ["f16x2"], ["h"])
        form("cvt_f8", f"cvt.rn.f16x2.{f8} {{d}}, {{a}};", ["b8x2"], ["r"])


def approx_forms():
    for op in ["sin", "cos", "lg2", "ex2", "rsqrt", "sqrt", "rcp"]:
        unary("approx", f"{op}.approx.f32", "f32a", check="approx")
        unary("approx", f"{op}.approx.ftz.f32", "f32a", check="approx")
    unary("approx", "tanh.approx.f32", "f32a", check="approx")
    unary("approx", "ex2.approx.f16", "f16", check="approx")
    unary("approx", "ex2.approx.ftz.bf16", "bf16", check="approx")
    unary("approx", "ex2.approx.f16x2", "f16x2", check="approx")
    unary("approx", "tanh.approx.f16", "f16", check="approx")
    unary("approx", "tanh.approx.bf16", "bf16", check="approx")
    binary("approx", "div.approx.f32", "f32", check="approx")
    binary("approx", "div.full.f32", "f32", check="approx")
    # Documented as bit patterns (the reciprocal's bits are implementation-defined).
    unary("approx64", "rcp.approx.ftz.f64", "f64")
    unary("approx64", "rsqrt.approx.ftz.f64", "f64")
    unary("approx64", "rsqrt.approx.f64", "f64", check="approx")


# ---------------------------------------------------------------------------------------
# PTX text of the elementwise kernels.

def kname(name):
    return name.replace(".", "_")


def src_reg(kind, j):
    return {"h": "%hs", "r": "%rs", "d": "%rds", "p": "%ps"}[kind] + str(j)


def dst_reg(kind, j):
    return {"h": "%hd", "r": "%rx", "d": "%rdd", "p": "%pd"}[kind] + str(j)


def elementwise_kernel(name, body, gens, dsts, n):
    regs = [GENS[g][0] for g in gens]
    s = [f".visible .entry {kname(name)}(.param .u64 pin, .param .u64 pout)\n{{\n",
         "\t.reg .b16 %hs<5>, %hd<2>;\n\t.reg .b32 %rs<5>, %rx<2>, %t<4>;\n",
         "\t.reg .b64 %rds<5>, %rdd<2>, %a<8>;\n\t.reg .pred %ps<5>, %pd<2>;\n",
         "\tld.param.u64 %a0, [pin];\n\tld.param.u64 %a1, [pout];\n",
         "\tcvta.to.global.u64 %a0, %a0;\n\tcvta.to.global.u64 %a1, %a1;\n",
         "\tmov.u32 %t0, %ctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\tmov.u32 %t2, %tid.x;\n",
         "\tmad.lo.u32 %t3, %t0, %t1, %t2;\n\tcvt.u64.u32 %a2, %t3;\n"]
    off = 0
    sub = {}
    letters = "abce"
    for j, k in enumerate(regs):
        w = REG_W[k]
        s.append(f"\tmad.lo.u64 %a3, %a2, {w}, %a0;\n")
        if k == "p":
            s.append(f"\tld.global.b32 %t0, [%a3+{off}];\n\tsetp.ne.b32 {src_reg(k, j)}, %t0, 0;\n")
        else:
            s.append(f"\tld.global.{REG_PTX[k]} {src_reg(k, j)}, [%a3+{off}];\n")
        sub[letters[j]] = src_reg(k, j)
        off += w * n
    for j, k in enumerate(dsts):
        sub["dq"[j]] = dst_reg(k, j)
    s.append("\t" + body.format(**sub) + "\n")
    off = 0
    for j, k in enumerate(dsts):
        w = REG_W[k]
        s.append(f"\tmad.lo.u64 %a3, %a2, {w}, %a1;\n")
        if k == "p":
            s.append(f"\tselp.u32 %t0, 1, 0, {dst_reg(k, j)};\n\tst.global.b32 [%a3+{off}], %t0;\n")
        else:
            s.append(f"\tst.global.{REG_PTX[k]} [%a3+{off}], {dst_reg(k, j)};\n")
        off += w * n
    s.append("\tret;\n}\n")
    return "".join(s), off


def pack(kind, vals):
    fmt = {"h": "<H", "r": "<I", "d": "<Q", "p": "<I"}[kind]
    return b"".join(struct.pack(fmt, v) for v in vals)


# ---------------------------------------------------------------------------------------
# Output.

class Out:
    def __init__(self):
        self.ptx = {}  # file -> [text]
        self.cases = []
        self.inputs = {}  # file -> bytes

    def add_input(self, fname, data):
        assert fname not in self.inputs or self.inputs[fname] == data, fname
        self.inputs[fname] = data
        return fname

    def add_kernel(self, family, text):
        self.ptx.setdefault(family, []).append(text)

    def case(self, name, family, kernel, grid, block, args, meta):
        self.cases.append(
            f"case {name} {family}.ptx {kernel} {grid} {block} " + " ".join(args + meta))

    def write(self):
        os.makedirs(os.path.join(HERE, "ptx"), exist_ok=True)
        os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
        for fam, texts in self.ptx.items():
            with open(os.path.join(HERE, "ptx", fam + ".ptx"), "w") as f:
                f.write(f"// Generated by tests/golden/gen.py (family {fam}).\n" + HEADER)
                f.write("\n".join(texts))
        for fname, data in self.inputs.items():
            with open(os.path.join(HERE, "in", fname), "wb") as f:
                f.write(data)
        with open(os.path.join(HERE, "cases.txt"), "w") as f:
            f.write("# Generated by tests/golden/gen.py. One case a line:\n"
                    "# case NAME PTXFILE KERNEL GRID BLOCK ARG... [KEY=VALUE...]\n"
                    "# ARG: in:FILE (device buffer from in/FILE), out:FILE:BYTES (zeroed "
                    "buffer, written to the output folder),\n"
                    "#      io:INFILE:OUTFILE (from in/INFILE, written back), u32:V, u64:V.\n"
                    "# KEY=VALUE tokens are metadata for tests/golden.rs (the C driver "
                    "ignores them).\n")
            f.write("\n".join(self.cases) + "\n")


def main():
    int_forms()
    float_forms()
    half_forms()
    cvt_forms()
    approx_forms()
    out = Out()
    seen = set()
    for family, name, body, gens, dsts, check in FORMS:
        k = kname(name)
        assert k not in seen, name
        seen.add(k)
        n = lanes_for(gens)
        infile = "_".join(gens) + f"_{n}.bin"
        if infile not in out.inputs:
            cols = gen_inputs(gens, n, seed=hash_str(infile))
            out.add_input(infile, b"".join(pack(GENS[g][0], c) for g, c in zip(gens, cols)))
        text, out_bytes = elementwise_kernel(name, body, gens, dsts, n)
        out.add_kernel(family, text)
        meta = ["srcs=" + ",".join(gens), "dsts=" + ",".join(dsts), f"n={n}", f"check={check}"]
        out.case(k, family, k, n // BLOCK, BLOCK,
                 [f"in:{infile}", f"out:{k}.bin:{out_bytes}"], meta)
    import gen_custom
    gen_custom.add_all(out)
    out.write()
    print(f"{len(out.cases)} cases, {len(out.ptx)} ptx files, {len(out.inputs)} inputs")


def hash_str(s):
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) & ((1 << 64) - 1)
    return h


if __name__ == "__main__":
    import sys
    sys.path.insert(0, HERE)
    main()
