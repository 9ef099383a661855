"""wmma.load/mma/store oracle cases (every sm_90 shape, type and layout), for gen_future.py.

Kernel NAME(.param .u64 in, .param .u64 out), one CTA of one warp per input regime; warp w reads its
matrices from `in + w * INSZ`: A at offset 0, B at offset OB, C at offset OC (each stored in
the case's layout with the case's stride, in elements, as named in the case's metadata:
`a=LAYOUT:STRIDE` ...). Warp w writes to `out + w * OUTSZ`: first each lane's fragment
registers, lane-major (lane l's words at l * NW * 4: A, B and C fragments after
wmma.load, then D after wmma.mma; an f64 register is two words), then at offset OD the D
matrix as wmma.store wrote it (layout and stride `d=LAYOUT:STRIDE`; bytes it does not
write stay zero). `ss=` is the state space of the loads and store: global, shared (the
warp first copies its input to shared memory) or generic.
"""
import random

from gen import hash_str
from gen_future import words, PROLOGUE
from gen_future_mma import elem, BITS

# (type key, shapes [(m, n, k, na, nb)], a/b type, c/d types [(ctype, nc)], mma type part)
F16_SHAPES = [(16, 16, 16, 8, 8), (32, 8, 16, 8, 8), (8, 32, 16, 8, 8)]
BF16_SHAPES = [(16, 16, 16, 4, 4), (32, 8, 16, 8, 2), (8, 32, 16, 2, 8)]
I8_SHAPES = [(16, 16, 16, 2, 2), (32, 8, 16, 4, 1), (8, 32, 16, 1, 4)]
REGIMES = ["rand", "ints", "special"]


def nregs_c(ct):
    return {"f16": 4, "f32": 8, "s32": 8, "f64": 2}[ct]


def cases():
    """(name, shape, atype, btype, ctype, dtype, al, bl, cl, dl, ss, pad, mma suffix)."""
    out = []
    L4 = [("row", "row"), ("row", "col"), ("col", "row"), ("col", "col")]
    for (m, n, k, na, nb) in F16_SHAPES:
        for al, bl in L4:
            for dt, ct in [("f32", "f32"), ("f16", "f16")]:
                out.append((m, n, k, na, nb, "f16", "f16", ct, dt, al, bl, "row", "row", "global",
                            1, ""))
        for dt, ct in [("f32", "f16"), ("f16", "f32")]:
            out.append((m, n, k, na, nb, "f16", "f16", ct, dt, "row", "col", "col", "col", "global",
                        1, ""))
        out.append((m, n, k, na, nb, "f16", "f16", "f32", "f32", "col", "row", "col", "row",
                    "shared", 2, ""))
        out.append((m, n, k, na, nb, "f16", "f16", "f16", "f16", "row", "col", "row", "col",
                    "generic", 0, ""))
    for (m, n, k, na, nb) in BF16_SHAPES:
        for al, bl in L4:
            out.append((m, n, k, na, nb, "bf16", "bf16", "f32", "f32", al, bl, "row", "col",
                        "global", 1, ""))
        out.append((m, n, k, na, nb, "bf16", "bf16", "f32", "f32", "row", "col", "col", "row",
                    "shared", 0, ""))
    for al, bl in L4:
        out.append((16, 16, 8, 4, 4, "tf32", "tf32", "f32", "f32", al, bl, "row", "row", "global",
                    1, ""))
    out.append((16, 16, 8, 4, 4, "tf32", "tf32", "f32", "f32", "row", "col", "col", "col", "shared",
                2, ""))
    for al, bl in L4:
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"] if (al, bl) == ("row", "col") else [""]:
            out.append((8, 8, 4, 1, 1, "f64", "f64", "f64", "f64", al, bl, "row", "col", "global", 1,
                        rnd))
    out.append((8, 8, 4, 1, 1, "f64", "f64", "f64", "f64", "row", "col", "col", "row", "shared", 0,
                ""))
    for (m, n, k, na, nb) in I8_SHAPES:
        for at in ["s8", "u8"]:
            for al, bl in L4:
                for sat in ["", ".satfinite"]:
                    if sat and (al, bl) != ("row", "col"):
                        continue
                    out.append((m, n, k, na, nb, at, at, "s32", "s32", al, bl, "row", "col",
                                "global", 1, sat))
        out.append((m, n, k, na, nb, "u8", "u8", "s32", "s32", "col", "row", "col", "row", "shared",
                    0, ""))
    for at in ["s4", "u4"]:
        for sat in ["", ".satfinite"]:
            out.append((8, 8, 32, 1, 1, at, at, "s32", "s32", "row", "col", "row", "col", "global",
                        1, sat))
        out.append((8, 8, 32, 1, 1, at, at, "s32", "s32", "row", "col", "col", "row", "shared", 2,
                    ""))
    for op in ["xor", "and"]:
        out.append((8, 8, 128, 1, 1, "b1", "b1", "s32", "s32", "row", "col", "row", "col", "global",
                    1, op))
    out.append((8, 8, 128, 1, 1, "b1", "b1", "s32", "s32", "row", "col", "col", "row", "shared", 0,
                "and"))
    return out


def mat_bytes(rows, cols, layout, stride, bits):
    """Bytes of a rows x cols matrix stored in layout with stride (elements)."""
    lines = rows if layout == "row" else cols
    return lines * stride * bits // 8


def ru(x, a=256):
    return (x + a - 1) // a * a


def reg_decl(ty, prefix, n):
    if ty in ("f32",):
        return f"\t.reg .f32 {prefix}<{n}>;\n"
    if ty == "f64":
        return f"\t.reg .f64 {prefix}<{n}>;\n"
    return f"\t.reg .b32 {prefix}<{n}>;\n"


def fill(r, ty, nelem, regime):
    """Packed element bits (little-endian) as bytes."""
    bits = BITS[ty]
    total = 0
    for i in range(nelem):
        total |= elem(r, ty, regime) << (i * bits)
    return total.to_bytes((nelem * bits + 7) // 8, "little")


def build(c):
    (m, n, k, na, nb, at, bt, ct, dt, al, bl, cl, dl, ss, pad, sfx) = c
    ab_bits = BITS[at]
    cbits = BITS[ct]
    dbits = BITS[dt]
    pad_el = pad * 128 // ab_bits  # pad lines by 16 bytes per unit
    lda = (k if al == "row" else m) + pad_el
    ldb = (n if bl == "row" else k) + pad_el
    ldc = (n if cl == "row" else m) + pad * 128 // cbits
    ldd = (n if dl == "row" else m) + pad * 128 // dbits
    sz_a = mat_bytes(m, k, al, lda, ab_bits)
    sz_b = mat_bytes(k, n, bl, ldb, ab_bits)
    sz_c = mat_bytes(m, n, cl, ldc, cbits)
    sz_d = mat_bytes(m, n, dl, ldd, dbits)
    ob, oc = ru(sz_a), ru(sz_a) + ru(sz_b)
    insz = oc + ru(sz_c)
    nc, nd = nregs_c(ct), nregs_c(dt)
    if at in ("s4", "u4", "b1"):
        nc = nd = 2
    wa = na * (2 if at == "f64" else 1)
    wb = nb * (2 if bt == "f64" else 1)
    wc = nc * (2 if ct == "f64" else 1)
    wd = nd * (2 if dt == "f64" else 1)
    nw = wa + wb + wc + wd
    od = ru(32 * nw * 4)
    outsz = od + ru(sz_d)
    shape = f"m{m}n{n}k{k}"
    name = f"wmma_{shape}_{at}_{dt}_{ct}_{al}_{bl}_{cl}_{dl}_{ss}_p{pad}" + sfx.replace(".", "_")
    if sfx in ("xor", "and"):
        name = f"wmma_{shape}_b1_{sfx}_{cl}_{dl}_{ss}_p{pad}"
    # register names
    ra = [f"%ra{i}" for i in range(na)]
    rb = [f"%rb{i}" for i in range(nb)]
    rc = [f"%rc{i}" for i in range(nc)]
    rd = [f"%rd{i}" for i in range(nd)]
    ssx = "" if ss == "generic" else f".{ss}"
    s = [f".visible .entry {name}(.param .u64 pin, .param .u64 pout)\n{{\n",
         "\t.reg .u64 %pin, %pout, %gid64, %pi, %po, %pa, %pb, %pc, %pd, %w64, %q;\n",
         "\t.reg .u32 %rtid, %rcta, %rnt, %gid, %lane, %w, %j, %v, %lda, %ldb, %ldc, %ldd;\n",
         "\t.reg .pred %p;\n",
         reg_decl(at, "%ra", na), reg_decl(bt, "%rb", nb), reg_decl(ct, "%rc", nc),
         reg_decl(dt, "%rd", nd), "\t.reg .b32 %x, %y;\n"]
    if ss == "shared":
        s.append(f"\t.shared .align 256 .b8 sm[{len(REGIMES) * (insz + ru(sz_d))}];\n")
    s.append(PROLOGUE)
    s.append("\tand.b32 %lane, %rtid, 31;\n\tshr.u32 %w, %rtid, 5;\n\tcvt.u64.u32 %w64, %w;\n")
    s.append(f"\tmad.lo.u64 %pi, %w64, {insz}, %pin;\n\tmad.lo.u64 %po, %w64, {outsz}, %pout;\n")
    s.append(f"\tmov.u32 %lda, {lda};\n\tmov.u32 %ldb, {ldb};\n\tmov.u32 %ldc, {ldc};\n"
             f"\tmov.u32 %ldd, {ldd};\n")
    if ss == "shared":
        # copy this warp's input to shared memory, zero its D area
        s.append(f"\tmov.u64 %q, sm;\n\tmad.lo.u64 %pa, %w64, {insz + ru(sz_d)}, %q;\n")
        s.append("\tmov.u32 %j, %lane;\nCP:\n"
                 f"\tsetp.ge.u32 %p, %j, {insz // 4};\n\t@%p bra CPD;\n"
                 "\tmul.wide.u32 %q, %j, 4;\n\tadd.u64 %pb, %pi, %q;\n\tld.global.b32 %v, [%pb];\n"
                 "\tadd.u64 %pb, %pa, %q;\n\tst.shared.b32 [%pb], %v;\n"
                 "\tadd.u32 %j, %j, 32;\n\tbra CP;\nCPD:\n"
                 "\tmov.u32 %j, %lane;\nZ:\n"
                 f"\tsetp.ge.u32 %p, %j, {ru(sz_d) // 4};\n\t@%p bra ZD;\n"
                 f"\tmul.wide.u32 %q, %j, 4;\n\tadd.u64 %pb, %pa, %q;\n"
                 f"\tst.shared.b32 [%pb+{insz}], 0;\n"
                 "\tadd.u32 %j, %j, 32;\n\tbra Z;\nZD:\n\tbar.warp.sync -1;\n")
        s.append(f"\tadd.u64 %pb, %pa, {ob};\n\tadd.u64 %pc, %pa, {oc};\n"
                 f"\tadd.u64 %pd, %pa, {insz};\n")
    else:
        s.append(f"\tadd.u64 %pa, %pi, 0;\n\tadd.u64 %pb, %pi, {ob};\n\tadd.u64 %pc, %pi, {oc};\n"
                 f"\tadd.u64 %pd, %po, {od};\n")
        if ss == "generic":
            s.append("\tcvta.global.u64 %pa, %pa;\n\tcvta.global.u64 %pb, %pb;\n"
                     "\tcvta.global.u64 %pc, %pc;\n\tcvta.global.u64 %pd, %pd;\n")
    j = lambda regs: "{" + ", ".join(regs) + "}"  # noqa: E731
    s.append(f"\twmma.load.a.sync.aligned.{al}.{shape}{ssx}.{at} {j(ra)}, [%pa], %lda;\n")
    s.append(f"\twmma.load.b.sync.aligned.{bl}.{shape}{ssx}.{bt} {j(rb)}, [%pb], %ldb;\n")
    s.append(f"\twmma.load.c.sync.aligned.{cl}.{shape}{ssx}.{ct} {j(rc)}, [%pc], %ldc;\n")
    if at in ("f16",):
        mm = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{dt}.{ct}{sfx}"
    elif at == "f64":
        mm = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}{sfx}.f64.f64.f64.f64"
    elif at == "b1":
        mm = f"wmma.mma.{sfx}.popc.sync.aligned.row.col.{shape}.s32.b1.b1.s32"
    else:
        mm = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{dt}.{at}.{bt}.{ct}{sfx}"
    s.append(f"\t{mm} {j(rd)}, {j(ra)}, {j(rb)}, {j(rc)};\n")
    # fragments
    s.append(f"\tmul.wide.u32 %q, %lane, {nw * 4};\n\tadd.u64 %q, %q, %po;\n")
    off = 0
    for regs, ty in [(ra, at), (rb, bt), (rc, ct), (rd, dt)]:
        for r_ in regs:
            if ty == "f64":
                s.append(f"\tmov.b64 {{%x, %y}}, {r_};\n\tst.global.b32 [%q+{off}], %x;\n"
                         f"\tst.global.b32 [%q+{off + 4}], %y;\n")
                off += 8
            else:
                s.append(f"\tmov.b32 %x, {r_};\n\tst.global.b32 [%q+{off}], %x;\n")
                off += 4
    s.append(f"\twmma.store.d.sync.aligned.{dl}.{shape}{ssx}.{dt} [%pd], {j(rd)}, %ldd;\n")
    if ss == "shared":
        s.append("\tbar.warp.sync -1;\n\tmov.u32 %j, %lane;\nCB:\n"
                 f"\tsetp.ge.u32 %p, %j, {ru(sz_d) // 4};\n\t@%p bra CBD;\n"
                 "\tmul.wide.u32 %q, %j, 4;\n\tadd.u64 %pb, %pd, %q;\n\tld.shared.b32 %v, [%pb];\n"
                 f"\tadd.u64 %pb, %po, %q;\n\tst.global.b32 [%pb+{od}], %v;\n"
                 "\tadd.u32 %j, %j, 32;\n\tbra CB;\nCBD:\n")
    s.append("\tret;\n}\n")
    # inputs
    r = random.Random(hash_str(name))
    data = b""
    for w in range(len(REGIMES)):
        regime = REGIMES[w]
        blob = bytearray(insz)
        for off_, rows, cols, lay, ld, ty in [(0, m, k, al, lda, at), (ob, k, n, bl, ldb, bt),
                                              (oc, m, n, cl, ldc, ct)]:
            size = mat_bytes(rows, cols, lay, ld, BITS[ty])
            blob[off_:off_ + size] = fill(r, ty, size * 8 // BITS[ty], regime)
        data += bytes(blob)
    meta = [f"a={al}:{lda}", f"b={bl}:{ldb}", f"c={cl}:{ldc}", f"d={dl}:{ldd}", f"ss={ss}",
            f"ob={ob}", f"oc={oc}", f"insz={insz}", f"od={od}", f"outsz={outsz}", f"nw={nw}",
            "regimes=" + ",".join(REGIMES)]
    return name, "".join(s), data, len(REGIMES) * outsz, meta


def add_all(out):
    for c in cases():
        name, text, data, outbytes, meta = build(c)
        out.add_kernel("wmma", text)
        inf = out.add_input(f"{name}.bin", data)
        out.case(name, "wmma", name, 1, 32 * len(REGIMES), [f"in:{inf}", f"out:{name}.bin:{outbytes}"], meta)
