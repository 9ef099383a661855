"""Scalar and SIMD video instruction oracle cases (vadd ... vset, vadd2 ... vset4), for
gen_future.py.

Lane kernels with in = (a, b, c) words and out = d; every form shares one input file of
N lanes: the cross product of special words in a and b (c cycling), then random words.
"""
import random

from gen import hash_str
from gen_future import lane_kernel, lane_case

N = 384
SPECIAL = [0x00000000, 0x00000001, 0x0000007F, 0x00000080, 0x000000FF, 0x00007FFF, 0x00008000,
           0x0000FFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01020304,
           0xFF80017F, 0x00000020]


def inputs():
    r = random.Random(hash_str("video"))
    rec = []
    for a in SPECIAL:
        for b in SPECIAL:
            rec += [a, b, SPECIAL[(a * 7 + b * 3 + len(rec)) % len(SPECIAL)]]
    while len(rec) < 3 * N:
        k = r.randrange(4)
        if k == 0:
            rec += [r.getrandbits(32) for _ in range(3)]
        elif k == 1:  # small shifts and bytes
            rec += [r.getrandbits(32), r.randrange(0, 40), r.getrandbits(32)]
        else:  # bytes/halves from the special set mixed
            rec += [sum(r.choice([0, 1, 0x7F, 0x80, 0xFF, 0x7E, 0x81, r.getrandbits(8)]) << (8 * i)
                        for i in range(4)) for _ in range(3)]
    return rec[:3 * N]


def scalar_forms():
    f = []
    tys = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32")]
    sels = [("", ""), (".b0", ".b3"), (".b3", ".b1"), (".h1", ".h0"), (".b2", ".h1"),
            (".h0", ".b0")]
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
        for dt, at, bt in tys:
            for sat in ["", ".sat"]:
                f.append(f"{op}.{dt}.{at}.{bt}{sat} %o0, %i0, %i1;")
        for dt, at, bt in tys[:2]:
            for asel, bsel in sels[1:]:
                for sat in ["", ".sat"]:
                    f.append(f"{op}.{dt}.{at}.{bt}{sat} %o0, %i0{asel}, %i1{bsel};")
            for op2 in ["add", "min", "max"]:
                for sat in ["", ".sat"]:
                    f.append(f"{op}.{dt}.{at}.{bt}{sat}.{op2} %o0, %i0, %i1, %i2;")
                f.append(f"{op}.{dt}.{at}.{bt}.sat.{op2} %o0, %i0.h1, %i1.b2, %i2;")
            for dsel in [".b1", ".h0", ".h1"]:
                for sat in ["", ".sat"]:
                    f.append(f"{op}.{dt}.{at}.{bt}{sat} %o0{dsel}, %i0, %i1, %i2;")
    for op in ["vshl", "vshr"]:
        for dt, at in [("u32", "u32"), ("s32", "s32"), ("u32", "s32")]:
            for mode in ["clamp", "wrap"]:
                for sat in ["", ".sat"]:
                    f.append(f"{op}.{dt}.{at}.u32{sat}.{mode} %o0, %i0, %i1;")
                f.append(f"{op}.{dt}.{at}.u32.{mode} %o0, %i0.b1, %i1.b0;")
                f.append(f"{op}.{dt}.{at}.u32.{mode} %o0, %i0.h1, %i1.h0;")
                f.append(f"{op}.{dt}.{at}.u32.{mode}.add %o0, %i0, %i1, %i2;")
                f.append(f"{op}.{dt}.{at}.u32.sat.{mode}.max %o0, %i0, %i1, %i2;")
                f.append(f"{op}.{dt}.{at}.u32.{mode} %o0.h1, %i0, %i1, %i2;")
                f.append(f"{op}.{dt}.{at}.u32.sat.{mode} %o0.b2, %i0.h0, %i1, %i2;")
    for dt, at, bt in tys:
        for sat in ["", ".sat"]:
            for scale in ["", ".shr7", ".shr15"]:
                f.append(f"vmad.{dt}.{at}.{bt}{sat}{scale} %o0, %i0, %i1, %i2;")
        f.append(f"vmad.{dt}.{at}.{bt}.sat %o0, -%i0, %i1, %i2;")
        f.append(f"vmad.{dt}.{at}.{bt}.sat %o0, %i0, -%i1, %i2;")
        f.append(f"vmad.{dt}.{at}.{bt} %o0, %i0.h0, %i1.h1, -%i2;")
        f.append(f"vmad.{dt}.{at}.{bt}.shr7 %o0, %i0.b1, %i1.b2, %i2;")
        f.append(f"vmad.{dt}.{at}.{bt}.po %o0, %i0, %i1, %i2;")
        f.append(f"vmad.{dt}.{at}.{bt}.po.sat.shr15 %o0, %i0.h1, %i1.h0, %i2;")
    for at, bt in [("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")]:
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
            f.append(f"vset.{at}.{bt}.{cmp} %o0, %i0, %i1;")
        f.append(f"vset.{at}.{bt}.lt %o0, %i0.b0, %i1.b3;")
        f.append(f"vset.{at}.{bt}.ge %o0, %i0.h1, %i1.h0;")
        for op2 in ["add", "min", "max"]:
            f.append(f"vset.{at}.{bt}.gt.{op2} %o0, %i0, %i1, %i2;")
        f.append(f"vset.{at}.{bt}.le %o0.b1, %i0.h1, %i1.b2, %i2;")
        f.append(f"vset.{at}.{bt}.ne %o0.h1, %i0, %i1, %i2;")
    return f


def simd_forms():
    f = []
    tys = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32")]
    for lanes, ops, masks, sels in [
        (2, ["vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2"], [".h0", ".h1"],
         [(".h01", ".h32"), (".h11", ".h20"), (".h10", ".h10")]),
        (4, ["vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"], [".b0", ".b21", ".b3210"],
         [(".b0123", ".b7654"), (".b3333", ".b4052"), (".b3210", ".b3210")]),
    ]:
        for op in ops:
            for dt, at, bt in tys:
                for sat in ["", ".sat"]:
                    f.append(f"{op}.{dt}.{at}.{bt}{sat} %o0, %i0, %i1, %i2;")
                f.append(f"{op}.{dt}.{at}.{bt}.add %o0, %i0, %i1, %i2;")
            for dt, at, bt in tys[:2]:
                for m in masks:
                    f.append(f"{op}.{dt}.{at}.{bt}.sat %o0{m}, %i0, %i1, %i2;")
                    f.append(f"{op}.{dt}.{at}.{bt}.add %o0{m}, %i0, %i1, %i2;")
                for asel, bsel in sels:
                    f.append(f"{op}.{dt}.{at}.{bt} %o0, %i0{asel}, %i1{bsel}, %i2;")
        vs = "vset2" if lanes == 2 else "vset4"
        for at, bt in [("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")]:
            for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
                f.append(f"{vs}.{at}.{bt}.{cmp} %o0, %i0, %i1, %i2;")
            f.append(f"{vs}.{at}.{bt}.lt.add %o0, %i0, %i1, %i2;")
            f.append(f"{vs}.{at}.{bt}.ge %o0{masks[0]}, %i0{sels[0][0]}, %i1{sels[0][1]}, %i2;")
            f.append(f"{vs}.{at}.{bt}.ne.add %o0{masks[1]}, %i0, %i1{sels[1][1]}, %i2;")
    return f


def kname(instr):
    t = instr.replace("%o0", "d").replace("%i0", "a").replace("%i1", "b").replace("%i2", "c")
    t = t.replace("-", "n").replace(";", "").replace(",", "").replace(" ", "_").replace(".", "_")
    return "video_" + t


def add_all(out):
    rec = inputs()
    seen = set()
    for instr in scalar_forms() + simd_forms():
        name = kname(instr)
        assert name not in seen, instr
        seen.add(name)
        body = "\tmov.b32 %o0, 0;\n" + f"\t{instr}\n"
        text = lane_kernel(name, 3, 1, body)
        lane_case(out, "video", name, text, 3, 1, rec, N, infile="video.bin",
                  meta=[f"instr={instr.replace(' ', '')}"])
