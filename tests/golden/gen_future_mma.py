"""mma.sync / mma.sp oracle cases (every shape and type an sm_90 runs), for gen_future.py.

Lane kernel per form: in = the lane's A, B, C fragment registers (32-bit words; an f64
register is two words, low first), then for mma.sp the metadata word; out = D's registers.
Warps cycle through input regimes (random, exact small integers, cancellation, wide
exponents, subnormals, special values) so one case records both the fragment layout (which
lane's register feeds which product) and the numerics.
"""
import random

from gen import F16_SPECIAL, BF16_SPECIAL, F32_PAIR, F64_PAIR, signed, hash_str
from gen_custom import half_val, acc_val
from gen_future import lane_kernel, lane_case, f32_bits, f64_bits

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "f32": 32, "s32": 32, "s8": 8,
        "u8": 8, "s4": 4, "u4": 4, "b1": 1, "e4m3": 8, "e5m2": 8}
REGIMES = ["rand", "ints", "cancel", "special"]
WARPS = 4


def elem(r, ty, regime):
    """One element's bit pattern of type ty for the regime."""
    if ty in ("f16", "bf16"):
        if regime == "ints":
            vals = [0x0000, 0x3C00, 0x4000, 0x4200, 0xBC00, 0xC000, 0x4400, 0x3800]
            if ty == "bf16":
                vals = [0x0000, 0x3F80, 0x4000, 0x4040, 0xBF80, 0xC000, 0x4080, 0x3F00]
            return r.choice(vals)
        return half_val(r, ty, regime)
    if ty in ("f32", "tf32"):
        if regime == "ints":
            return f32_bits(float(r.randrange(-8, 9)))
        v = acc_val(r, regime)
        if ty == "tf32" and regime != "special" and r.randrange(2):
            v |= r.getrandbits(13)  # low bits the tf32 operand should ignore (or not)
        return v
    if ty == "f64":
        if regime == "ints":
            return f64_bits(float(r.randrange(-8, 9)))
        if regime == "rand":
            return f64_bits(r.uniform(-8, 8))
        if regime == "cancel":
            return r.choice([f64_bits(1.0), f64_bits(-1.0), f64_bits(2.0 ** 53),
                             f64_bits(-(2.0 ** 53)), f64_bits(2.0 ** -60), f64_bits(3.0), 0])
        if regime == "wide":
            return f64_bits(r.choice([1.0, -1.0]) * 2.0 ** r.randrange(-1000, 1000))
        if regime == "sub":
            return (r.getrandbits(1) << 63) | r.randrange(0, 1 << 52)
        if regime == "special":
            return r.choice(signed(F64_PAIR, 1 << 63)) if r.randrange(4) == 0 else f64_bits(
                r.uniform(-2, 2))
        return r.choice([0, 1 << 63, f64_bits(1.0), f64_bits(2.0 ** -1074 * 3)])
    if ty == "s32":
        if regime in ("rand", "ints"):
            return r.getrandbits(32) if regime == "rand" else r.randrange(-100, 100) & 0xFFFFFFFF
        return r.choice([0x7FFFFFFF, 0x80000000, 0x7FFF0000, 0x80010000,
                         0x7FFFFFFF - r.getrandbits(18), 0x80000000 + r.getrandbits(18), 0,
                         r.getrandbits(32)])
    if ty in ("s8", "u8"):
        if regime in ("rand", "ints", "sub"):
            return r.getrandbits(8)
        return r.choice([0x7F, 0x80, 0x81, 0xFF, 0x00, 0x01])
    if ty in ("s4", "u4"):
        if regime in ("rand", "ints", "sub"):
            return r.getrandbits(4)
        return r.choice([0x7, 0x8, 0x9, 0xF, 0x0, 0x1])
    if ty == "b1":
        if regime == "ones":
            return 1
        if regime == "cancel":
            return 0
        return r.getrandbits(1)
    if ty in ("e4m3", "e5m2"):
        if regime == "special":
            sp = [0x7F, 0xFF, 0x7E, 0x00, 0x80, 0x01] if ty == "e4m3" else [
                0x7C, 0xFC, 0x7D, 0x7F, 0x7B, 0x00, 0x80, 0x01]
            return r.choice(sp) if r.randrange(3) == 0 else r.getrandbits(8)
        if regime == "ones":
            return 0x38 if ty == "e4m3" else 0x3C
        if regime == "sub":
            return (r.getrandbits(1) << 7) | r.randrange(0, 8 if ty == "e4m3" else 4)
        if regime == "rand":
            return r.getrandbits(8) & 0x77 if ty == "e4m3" else r.getrandbits(8) & 0x77
        return r.getrandbits(8) & 0xF7 if ty == "e4m3" else r.getrandbits(8) & 0xFB
    raise ValueError(ty)


def reg_words(r, ty, nregs, regime):
    """Words for nregs registers holding elements of ty (f64: two words a register)."""
    if ty == "f64":
        out = []
        for _ in range(nregs):
            v = elem(r, ty, regime)
            out += [v & 0xFFFFFFFF, v >> 32]
        return out
    bits = BITS[ty]
    out = []
    for _ in range(nregs):
        w = 0
        for k in range(32 // bits):
            w |= elem(r, ty, regime) << (k * bits)
        out.append(w)
    return out


def regkind(ty):
    return {"f64": "d", "f32": "f"}.get(ty, "b")


def mma_body(instr, ops, sparse):
    """ops: [(ty, nregs)] for A, B, C, D. Returns (decls, body, nin, nout)."""
    decls, body, names, w = [], [], [], 0
    for idx, (ty, n) in enumerate(ops[:3]):
        k = regkind(ty)
        regs = []
        for j in range(n):
            if k == "b":
                regs.append(f"%i{w}")
                w += 1
            elif k == "f":
                regs.append(f"%f{idx}_{j}")
                decls.append(f"\t.reg .f32 %f{idx}_{j};\n")
                body.append(f"\tmov.b32 %f{idx}_{j}, %i{w};\n")
                w += 1
            else:
                regs.append(f"%d{idx}_{j}")
                decls.append(f"\t.reg .f64 %d{idx}_{j};\n")
                body.append(f"\tmov.b64 %d{idx}_{j}, {{%i{w}, %i{w + 1}}};\n")
                w += 2
        names.append("{" + ", ".join(regs) + "}")
    extra = ""
    if sparse:
        extra = f", %i{w}, {sparse[1]}"
        w += 1
    dty, dn = ops[3]
    k = regkind(dty)
    dregs, post, o = [], [], 0
    for j in range(dn):
        if k == "b":
            dregs.append(f"%o{o}")
            o += 1
        elif k == "f":
            dregs.append(f"%fd{j}")
            decls.append(f"\t.reg .f32 %fd{j};\n")
            post.append(f"\tmov.b32 %o{o}, %fd{j};\n")
            o += 1
        else:
            dregs.append(f"%dd{j}")
            decls.append(f"\t.reg .f64 %dd{j};\n")
            post.append(f"\tmov.b64 {{%o{o}, %o{o + 1}}}, %dd{j};\n")
            o += 2
    body.append(f"\t{instr} {{{', '.join(dregs)}}}, {names[0]}, {names[1]}, {names[2]}{extra};\n")
    return "".join(decls), "".join(body + post), w, o


# Sparse metadata nibbles: two distinct ascending 2-bit indices (idx0 | idx1 << 2).
META_2OF4 = [0x4, 0x8, 0xC, 0x9, 0xD, 0xE]
META_TF32 = [0x4, 0xE]


def add_form(out, name, instr, ops, sparse=None, family="mma", ver="8.5", check=()):
    decls, body, nin, nout = mma_body(instr, ops, sparse)
    text = lane_kernel(name, nin, nout, body, decls)
    r = random.Random(hash_str(name))
    rec = []
    for w in range(WARPS):
        regime = REGIMES[w % len(REGIMES)]
        for _ in range(32):
            lane = []
            for ty, n in ops[:3]:
                lane += reg_words(r, ty, n, regime)
            if sparse:
                pool = sparse[0]
                lane.append(sum(r.choice(pool) << (4 * k) for k in range(8)))
            rec += lane
    lane_case(out, family, name, text, nin, nout, rec, WARPS * 32, ver=ver,
              meta=[f"instr={instr.replace(' ', '')}"] + list(check))


def forms():
    """(name, instr, ops) for every dense mma form."""
    f = []
    # m8n8k4 f16 (all layouts, f16/f32 accumulators)
    for al in ["row", "col"]:
        for bl in ["row", "col"]:
            for dt in ["f16", "f32"]:
                for ct in ["f16", "f32"]:
                    if dt == "f16" and ct == "f32":
                        continue  # ptxas: .dtype must be .f32 when .ctype is .f32
                    nd = 4 if dt == "f16" else 8
                    nc = 4 if ct == "f16" else 8
                    f.append((f"mma_m8n8k4_{al}_{bl}_{dt}_{ct}",
                              f"mma.sync.aligned.m8n8k4.{al}.{bl}.{dt}.f16.f16.{ct}",
                              [("f16", 2), ("f16", 2), (ct, nc), (dt, nd)]))
    f.append(("mma_m8n8k4_f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
              [("f64", 1), ("f64", 1), ("f64", 2), ("f64", 2)]))
    for k, na, nb in [(4, 2, 1), (8, 4, 2), (16, 8, 4)]:
        f.append((f"mma_m16n8k{k}_f64", f"mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64",
                  [("f64", na), ("f64", nb), ("f64", 4), ("f64", 4)]))
    f.append(("mma_m16n8k4_tf32", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
              [("tf32", 2), ("tf32", 1), ("f32", 4), ("f32", 4)]))
    f.append(("mma_m16n8k8_tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
              [("tf32", 4), ("tf32", 2), ("f32", 4), ("f32", 4)]))
    for k, na, nb in [(8, 2, 1), (16, 4, 2)]:
        for dt in ["f16", "f32"]:
            for ct in [dt]:  # ptxas: .dtype must equal .ctype for m16n8k8/k16
                nd = 2 if dt == "f16" else 4
                nc = 2 if ct == "f16" else 4
                f.append((f"mma_m16n8k{k}_{dt}_f16_{ct}",
                          f"mma.sync.aligned.m16n8k{k}.row.col.{dt}.f16.f16.{ct}",
                          [("f16", na), ("f16", nb), (ct, nc), (dt, nd)]))
        f.append((f"mma_m16n8k{k}_bf16", f"mma.sync.aligned.m16n8k{k}.row.col.f32.bf16.bf16.f32",
                  [("bf16", na), ("bf16", nb), ("f32", 4), ("f32", 4)]))
    # integer
    for bits, shapes in [(8, [(8, 8, 16, 1, 1, 2), (16, 8, 16, 2, 1, 4), (16, 8, 32, 4, 2, 4)]),
                         (4, [(8, 8, 32, 1, 1, 2), (16, 8, 32, 2, 1, 4),
                              (16, 8, 64, 4, 2, 4)])]:
        for (m, n, k, na, nb, nc) in shapes:
            for at in [f"s{bits}", f"u{bits}"]:
                for bt in [f"s{bits}", f"u{bits}"]:
                    for sat in ["", ".satfinite"]:
                        f.append((f"mma_m{m}n{n}k{k}_{at}_{bt}{sat.replace('.', '_')}",
                                  f"mma.sync.aligned.m{m}n{n}k{k}.row.col{sat}.s32.{at}.{bt}.s32",
                                  [(at, na), (bt, nb), ("s32", nc), ("s32", nc)]))
    for (m, n, k, na, nb, nc) in [(8, 8, 128, 1, 1, 2), (16, 8, 128, 2, 1, 4),
                                  (16, 8, 256, 4, 2, 4)]:
        for op in ["xor", "and"]:
            f.append((f"mma_m{m}n{n}k{k}_b1_{op}",
                      f"mma.sync.aligned.m{m}n{n}k{k}.row.col.s32.b1.b1.s32.{op}.popc",
                      [("b1", na), ("b1", nb), ("s32", nc), ("s32", nc)]))
    for at in ["e4m3", "e5m2"]:
        for bt in ["e4m3", "e5m2"]:
            f.append((f"mma_m16n8k32_{at}_{bt}",
                      f"mma.sync.aligned.m16n8k32.row.col.f32.{at}.{bt}.f32",
                      [(at, 4), (bt, 2), ("f32", 4), ("f32", 4)]))
    return f


def sparse_forms():
    """(name, instr, ops, metadata pool, selector) for mma.sp."""
    f = []
    for variant, vname in [("mma.sp", "sp"), ("mma.sp::ordered_metadata", "spo")]:
        for ty in ["f16", "bf16"]:
            for k, na, nb in [(16, 2, 2), (32, 4, 4)]:
                dts = ["f32"] if ty == "bf16" else ["f32", "f16"]
                for dt in dts:
                    nc = 4 if dt == "f32" else 2
                    f.append((f"mma_{vname}_m16n8k{k}_{ty}_{dt}",
                              f"{variant}.sync.aligned.m16n8k{k}.row.col.{dt}.{ty}.{ty}.{dt}",
                              [(ty, na), (ty, nb), (dt, nc), (dt, nc)], META_2OF4, 0))
        for k, na, nb in [(8, 2, 2), (16, 4, 4)]:
            f.append((f"mma_{vname}_m16n8k{k}_tf32",
                      f"{variant}.sync.aligned.m16n8k{k}.row.col.f32.tf32.tf32.f32",
                      [("tf32", na), ("tf32", nb), ("f32", 4), ("f32", 4)], META_TF32, 0))
        for bits, shapes in [(8, [(32, 2, 2), (64, 4, 4)]), (4, [(64, 2, 2), (128, 4, 4)])]:
            for k, na, nb in shapes:
                for at, bt in [(f"s{bits}", f"s{bits}"), (f"u{bits}", f"s{bits}")]:
                    for sat in ["", ".satfinite"]:
                        f.append((f"mma_{vname}_m16n8k{k}_{at}_{bt}{sat.replace('.', '_')}",
                                  f"{variant}.sync.aligned.m16n8k{k}.row.col{sat}.s32.{at}.{bt}.s32",
                                  [(at, na), (bt, nb), ("s32", 4), ("s32", 4)], META_2OF4, 0))
        f.append((f"mma_{vname}_m16n8k64_e4m3",
                  f"{variant}.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32",
                  [("e4m3", 4), ("e5m2", 4), ("f32", 4), ("f32", 4)], META_2OF4, 0))
    return f


def fp8_forms_87():
    """fp8 forms PTX ISA 8.7 added (ptxas 12.9 accepts them for sm_90): m16n8k16 and f16
    accumulators."""
    f = []
    for at in ["e4m3", "e5m2"]:
        for bt in ["e4m3", "e5m2"]:
            f.append((f"mma_m16n8k32_{at}_{bt}_f16", f"mma.sync.aligned.m16n8k32.row.col.f16.{at}.{bt}.f16",
                      [(at, 4), (bt, 2), ("f16", 2), ("f16", 2)]))
            for dt, nc in [("f32", 4), ("f16", 2)]:
                f.append((f"mma_m16n8k16_{at}_{bt}_{dt}",
                          f"mma.sync.aligned.m16n8k16.row.col.{dt}.{at}.{bt}.{dt}",
                          [(at, 2), (bt, 1), (dt, nc), (dt, nc)]))
    return f


def add_all(out):
    for name, instr, ops in forms():
        # the shapes ptxjit runs today go to their own file (tests/golden_future.rs)
        fam = "mma_k16k32" if name in ("mma_m16n8k16_f32_f16_f32", "mma_m16n8k16_bf16") or (
            name.startswith("mma_m16n8k32_") and name[13] in "su" and name[14] == "8") else "mma"
        # tests/golden.rs checks the f16/bf16 ones with its mma bound (golden_rules/mma.rs)
        check = ["check=mma"] if fam == "mma_k16k32" and "k16" in name else []
        add_form(out, name, instr, ops, family=fam, check=check)
    for name, instr, ops in fp8_forms_87():
        add_form(out, name, instr, ops, family="mma87", ver="8.7")
    for name, instr, ops, pool, sel in sparse_forms():
        add_form(out, name, instr, ops, sparse=(pool, sel))
