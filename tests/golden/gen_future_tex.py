"""Texture and surface oracle cases (tex, tld4, txq, suld, sust, sured), for gen_future.py.

Texture kernels: NAME(.param .u64 tex, .param .u64 in, .param .u64 out), the first
argument a `tex:` case argument (gpurun.c creates the CUDA array and texture object).
Thread t reads 4 coordinate words from `in + 16 t` (by dimension: 1d x; 2d x y; 3d x y z;
a1d layer x; a2d layer x y; f32 or s32 by the kernel's coordinate type, the layer always
u32) and writes the 4 result words to `out + 16 t`. Coordinates: 256 lanes step through
one texel pair at 1/256 of a texel (the interpolation weights), 256 lanes sweep the whole
range beyond both ends (address modes), the rest are random; normalised cases divide by
the extent. txq kernels write 16 query words per thread (see TXQ). Surface kernels take a
`surf:` argument (the array is written back after the launch): suld kernels read at byte
coordinates from `in`, sust kernels write each thread's own texel, sured adds.
"""
import random
import struct

from gen import hash_str
from gen_future import words, f32_bits, PROLOGUE

N = 640
FMT_BYTES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "f16": 2, "f32": 4}
TXQ = ["width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
       "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "array_size",
       "num_mipmap_levels", "num_samples"]


def texels(r, fmt, count, special):
    out = bytearray()
    for _ in range(count):
        if fmt in ("u8", "s8", "u16", "s16", "u32", "s32"):
            b = FMT_BYTES[fmt] * 8
            v = r.choice([0, (1 << b) - 1, 1 << (b - 1), (1 << (b - 1)) - 1, 1]) if r.randrange(
                5) == 0 else r.getrandbits(b)
            out += v.to_bytes(b // 8, "little")
        elif fmt == "f16":
            if special and r.randrange(6) == 0:
                v = r.choice([0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8000, 0x7BFF, 0x03FF])
            else:
                v = struct.unpack("<H", struct.pack("<e", r.uniform(-4, 4)))[0]
            out += struct.pack("<H", v)
        else:
            if special and r.randrange(6) == 0:
                v = r.choice([0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x80000000,
                              0x7F7FFFFF, 0x00800000])
            else:
                v = f32_bits(r.uniform(-4, 4))
            out += struct.pack("<I", v)
    return bytes(out)


def coords(r, dim, ext, norm, integer):
    """N records of 4 words."""
    w, h, d = ext
    nd = {"1d": 1, "buf": 1, "2d": 2, "3d": 3, "a1d": 1, "a2d": 2}[dim]
    layered = dim in ("a1d", "a2d")
    sizes = [w, h, d][:nd]
    rec = []
    for t in range(N):
        if t < 256:
            c = [1.0 + t / 256.0, 1.5 + (t % 16) / 64.0, 0.5 + (t % 8) / 8.0][:nd]
        elif t < 512:
            k = t - 256
            c = [-1.5 * s + (4.0 * s) * ((k * (7 + 3 * i)) % 256) / 256.0 + 1 / 1024.0
                 for i, s in enumerate(sizes)]
        else:
            c = [r.uniform(-1.2 * s, 2.2 * s) for s in sizes]
        if integer:
            c = [int(x // 1) for x in c]
            vals = [x & 0xFFFFFFFF for x in c]
        else:
            if norm:
                c = [x / s for x, s in zip(c, sizes)]
            vals = [f32_bits(x) for x in c]
        if layered:
            layer = (t * 5) % (d + 2) - 1 if t < 512 else r.randrange(-1, d + 2)
            vals = [layer & 0xFFFFFFFF] + vals
        vals += [0] * (4 - len(vals))
        rec += vals
    return rec


def coord_operand(dim, ct):
    f = "%fc" if ct == "f32" else "%ic"
    if dim in ("1d", "buf"):
        return f"{{{f}0}}"
    if dim == "2d":
        return f"{{{f}0, {f}1}}"
    if dim == "3d":
        return f"{{{f}0, {f}1, {f}2, {f}3}}"
    if dim == "a1d":
        return f"{{%ic0, {f}1}}"
    return f"{{%ic0, {f}1, {f}2, {f}3}}"


def tex_kernel(name, instr_fn, nout=4):
    """instr_fn(out regs) -> instruction text; loads %ic0-3 and %fc0-3 from in."""
    s = [f".visible .entry {name}(.param .u64 ptex, .param .u64 pin, .param .u64 pout)\n{{\n",
         "\t.reg .u64 %pin, %pout, %gid64, %pi, %po, %t;\n",
         "\t.reg .u32 %rtid, %rcta, %rnt, %gid;\n",
         "\t.reg .b32 %ic<4>, %o<16>;\n\t.reg .f32 %fc<4>, %fo<4>;\n",
         "\tld.param.u64 %t, [ptex];\n", PROLOGUE,
         "\tmad.lo.u64 %pi, %gid64, 16, %pin;\n",
         f"\tmad.lo.u64 %po, %gid64, {nout * 4}, %pout;\n"]
    for i in range(4):
        s.append(f"\tld.global.b32 %ic{i}, [%pi+{4 * i}];\n\tmov.b32 %fc{i}, %ic{i};\n")
    s.append(instr_fn())
    for i in range(nout):
        s.append(f"\tst.global.b32 [%po+{4 * i}], %o{i};\n")
    s.append("\tret;\n}\n")
    return "".join(s)


def tex_instr(op, dt):
    regs = "{%fo0, %fo1, %fo2, %fo3}" if dt == "f32" else "{%o0, %o1, %o2, %o3}"
    post = "".join(f"\tmov.b32 %o{i}, %fo{i};\n" for i in range(4)) if dt == "f32" else ""
    return lambda: "\t" + op.replace("{regs}", regs) + "\n" + post


# (dim, w, h, d, fmt, nch, filter, addr, norm, read, ctype, special)
TEX = [
    *[("2d", 7, 5, 0, "f32", 1, fl, ad, 1, "elem", "f32", False)
      for fl in ["point", "linear"] for ad in ["wrap", "clamp", "mirror", "border"]],
    *[("2d", 7, 5, 0, "f32", 1, fl, ad, 0, "elem", "f32", False)
      for fl in ["point", "linear"] for ad in ["clamp", "border"]],
    ("2d", 6, 4, 0, "f32", 1, "point", "clamp", 0, "elem", "s32", False),
    ("2d", 6, 4, 0, "f32", 4, "linear", "clamp", 0, "elem", "f32", True),
    ("2d", 6, 4, 0, "f32", 2, "linear", "mirror", 1, "elem", "f32", False),
    ("2d", 9, 3, 0, "u8", 4, "linear", "clamp", 1, "nfloat", "f32", False),
    ("2d", 9, 3, 0, "u8", 4, "linear", "wrap", 1, "nfloat", "f32", False),
    ("2d", 9, 3, 0, "u8", 4, "point", "clamp", 0, "nfloat", "f32", False),
    ("2d", 9, 3, 0, "u8", 4, "point", "clamp", 0, "elem", "f32", False),
    ("2d", 9, 3, 0, "u8", 4, "point", "border", 0, "elem", "s32", False),
    ("2d", 5, 5, 0, "s8", 2, "linear", "clamp", 0, "nfloat", "f32", False),
    ("2d", 5, 5, 0, "u16", 1, "linear", "border", 1, "nfloat", "f32", False),
    ("2d", 5, 5, 0, "s16", 4, "linear", "mirror", 1, "nfloat", "f32", False),
    ("2d", 5, 5, 0, "s16", 4, "point", "clamp", 0, "elem", "f32", False),
    ("2d", 5, 5, 0, "f16", 4, "linear", "clamp", 0, "elem", "f32", True),
    ("2d", 5, 5, 0, "f16", 2, "linear", "wrap", 1, "elem", "f32", False),
    ("2d", 4, 4, 0, "u32", 1, "point", "clamp", 0, "elem", "f32", False),
    ("2d", 4, 4, 0, "s32", 4, "point", "wrap", 1, "elem", "f32", False),
    ("1d", 11, 0, 0, "f32", 1, "linear", "clamp", 0, "elem", "f32", True),
    ("1d", 11, 0, 0, "f32", 1, "linear", "wrap", 1, "elem", "f32", False),
    ("1d", 11, 0, 0, "f32", 1, "point", "mirror", 1, "elem", "f32", False),
    ("1d", 11, 0, 0, "u8", 1, "linear", "border", 0, "nfloat", "f32", False),
    ("1d", 11, 0, 0, "f16", 2, "point", "clamp", 0, "elem", "s32", False),
    ("buf", 64, 0, 0, "f32", 4, "point", "clamp", 0, "elem", "s32", False),
    ("buf", 64, 0, 0, "u8", 4, "point", "clamp", 0, "elem", "s32", False),
    ("buf", 64, 0, 0, "s16", 2, "point", "clamp", 0, "nfloat", "s32", False),
    ("3d", 4, 3, 5, "f32", 1, "linear", "clamp", 0, "elem", "f32", False),
    ("3d", 4, 3, 5, "f32", 1, "linear", "wrap", 1, "elem", "f32", False),
    ("3d", 4, 3, 5, "f32", 1, "point", "border", 0, "elem", "f32", False),
    ("3d", 4, 3, 5, "u8", 4, "linear", "mirror", 1, "nfloat", "f32", False),
    ("3d", 4, 3, 5, "f32", 2, "point", "clamp", 0, "elem", "s32", False),
    ("a1d", 9, 0, 3, "f32", 1, "linear", "clamp", 0, "elem", "f32", False),
    ("a1d", 9, 0, 3, "u16", 2, "linear", "wrap", 1, "nfloat", "f32", False),
    ("a2d", 5, 4, 3, "f32", 4, "linear", "clamp", 0, "elem", "f32", False),
    ("a2d", 5, 4, 3, "u8", 1, "linear", "mirror", 1, "nfloat", "f32", False),
    ("a2d", 5, 4, 3, "f32", 1, "point", "border", 0, "elem", "s32", False),
]


def dtype_of(fmt, read):
    if fmt in ("f16", "f32") or read == "nfloat" and fmt in ("u8", "s8", "u16", "s16"):
        return "f32"
    return "s32" if fmt.startswith("s") else "u32"


def tex_name(c):
    dim, w, h, d, fmt, nch, fl, ad, norm, read, ct, sp = c
    return f"{dim}_{fmt}x{nch}_{fl}_{ad}_n{norm}_{read}_{ct}" + ("_sp" if sp else "")


def tex_data(out, c):
    dim, w, h, d, fmt, nch, fl, ad, norm, read, ct, sp = c
    key = tex_name(c)
    r = random.Random(hash_str("texels" + key))
    count = w * max(h, 1) * max(d, 1) * nch
    inf = out.add_input(f"tex_{key}.bin", texels(r, fmt, count, sp))
    return f"tex:{dim}:{w}:{h}:{d}:{fmt}:{nch}:{fl}:{ad}:{norm}:{read}:{inf}"


def add_tex(out):
    for c in TEX:
        dim, w, h, d, fmt, nch, fl, ad, norm, read, ct, sp = c
        dt = dtype_of(fmt, read)
        key = tex_name(c)
        arg = tex_data(out, c)
        ckey = f"{dim}_{w}x{h}x{d}_n{norm}_{ct}"
        r = random.Random(hash_str("coords" + ckey))
        inf = out.add_input(f"texc_{ckey}.bin", words(coords(r, dim, (w, h, d), norm,
                                                             ct == "s32")))
        pdim = "1d" if dim == "buf" else dim
        ops = [(f"tex_{key}", f"tex.{pdim}.v4.{dt}.{ct} {{regs}}, [%t, {coord_operand(dim, ct)}];",
                dt)]
        if dim == "2d" and ct == "f32":
            comps = ["r", "g", "b", "a"] if nch == 4 and fmt == "f32" else ["r"]
            ops += [(f"tld4{cp}_{key}", f"tld4.{cp}.2d.v4.{dt}.f32 {{regs}}, [%t, "
                     "{%fc0, %fc1}];", dt) for cp in comps]
        for name, op, dt_ in ops:
            out.add_kernel("tex", tex_kernel(name, tex_instr(op, dt_)))
            out.case(name, "tex", name, N // 128, 128,
                     [arg, f"in:{inf}", f"out:{name}.bin:{N * 16}"], [f"instr={op.split()[0]}"])
    # txq on a few textures
    for c in [TEX[1], TEX[29], TEX[36], TEX[34], TEX[26]]:
        key = tex_name(c)
        name = f"txq_{key}"
        body = lambda: "".join(f"\ttxq.{q}.b32 %o{i}, [%t];\n" for i, q in enumerate(TXQ)) + \
            "".join(f"\tmov.b32 %o{i}, 0;\n" for i in range(len(TXQ), 16))
        out.add_kernel("txq", tex_kernel(name, body, nout=16))
        inf = out.add_input("texc_zero.bin", bytes(32 * 16))
        out.case(name, "txq", name, 1, 32, [tex_data(out, c), f"in:{inf}",
                                            f"out:{name}.bin:{32 * 64}"], ["instr=txq"])


# Surfaces: (dim, w, h, d, fmt, nch)
SURF = [("1d", 16, 0, 0, "u32", 1), ("2d", 8, 6, 0, "u8", 4), ("2d", 8, 6, 0, "u32", 2),
        ("3d", 4, 3, 2, "u16", 4), ("a1d", 8, 0, 3, "f32", 1), ("a2d", 4, 4, 2, "u32", 4)]


def surf_coord_operand(dim):
    return {"1d": "{%ic0}", "2d": "{%ic0, %ic1}", "3d": "{%ic0, %ic1, %ic2, %ic3}",
            "a1d": "{%ic2, %ic0}", "a2d": "{%ic2, %ic0, %ic1, %ic3}"}[dim]


def add_surf(out):
    for (dim, w, h, d, fmt, nch) in SURF:
        elem = FMT_BYTES[fmt] * nch
        key = f"{dim}_{fmt}x{nch}"
        r = random.Random(hash_str("surf" + key))
        count = w * max(h, 1) * max(d, 1)
        data = bytes(r.getrandbits(8) for _ in range(count * elem))
        inf = out.add_input(f"surf_{key}.bin", data)
        hh, dd = max(h, 1), max(d, 1)
        # suld: coordinates (x bytes, y, z/layer), in range for .trap, beyond for clamp/zero
        reads = []
        for size, vec in [(1, 1), (2, 1), (4, 1), (4, 2), (4, 4), (8, 1), (8, 2), (2, 4)]:
            if size * vec > elem and size * vec != elem * 2:
                continue
            reads.append((size, vec))
        for size, vec in reads:
            bty = f"b{size * 8}"
            for mode in ["trap", "clamp", "zero"]:
                name = f"suld_{key}_{bty}_v{vec}_{mode}"
                vs = "" if vec == 1 else f".v{vec}"
                if size == 8:
                    regs = ", ".join(f"%x{i}" for i in range(vec))
                    post = "".join(f"\tmov.b64 {{%o{2 * i}, %o{2 * i + 1}}}, %x{i};\n"
                                   for i in range(vec))
                elif size == 4:
                    regs = ", ".join(f"%o{i}" for i in range(vec))
                    post = ""
                else:
                    regs = ", ".join(f"%h{i}" for i in range(vec))
                    post = "".join(f"\tcvt.u32.u{size * 8} %o{i}, %h{i};\n" for i in range(vec))
                if vec == 1:
                    regs = regs
                else:
                    regs = "{" + regs + "}"
                hdecl = f"\t.reg .b{max(size * 8, 16)} %h<4>;\n" if size < 4 else ""
                instr = (f"\tsuld.b.{dim}{vs}.{bty}.{mode} {regs}, [%t, {surf_coord_operand(dim)}];\n"
                         + post)
                text = tex_kernel(name, lambda: "\t.reg .b64 %x<4>;\n" + hdecl + instr, nout=4)
                text = text.replace("\t.reg .b64 %x<4>;\n" + hdecl, "")
                text = text.replace("\t.reg .f32 %fc<4>, %fo<4>;\n",
                                    "\t.reg .f32 %fc<4>, %fo<4>;\n\t.reg .b64 %x<4>;\n" + hdecl)
                rr = random.Random(hash_str(name))
                rec = []
                for t in range(128):
                    if mode == "trap" or t < 64:
                        x = rr.randrange(0, w) * elem + rr.randrange(0, elem // (size * vec) or 1) * (
                            size * vec)
                        x = min(x, w * elem - size * vec)
                        y, z = rr.randrange(0, hh), rr.randrange(0, dd)
                    else:
                        x = rr.randrange(-2 * elem, (w + 2) * elem) // (size * vec) * (size * vec)
                        y, z = rr.randrange(-2, hh + 2), rr.randrange(-2, dd + 2)
                    rec += [x & 0xFFFFFFFF, y & 0xFFFFFFFF, z & 0xFFFFFFFF, 0]
                cin = out.add_input(f"surfc_{name}.bin", words(rec))
                out.add_kernel(f"suld_{dim}", text)
                out.case(name, f"suld_{dim}", name, 1, 128,
                         [f"surf:{dim}:{w}:{h}:{d}:{fmt}:{nch}:{inf}:{name}_array.bin",
                          f"in:{cin}", f"out:{name}.bin:{128 * 16}"], [f"instr=suld.{mode}"])
        # sust.b: each thread t < texels writes its own texel (v4 of b32 or vector of elem)
        for mode in ["trap", "zero"]:
            name = f"sust_{key}_{mode}"
            if elem >= 4:
                vec = elem // 4
                vs = "" if vec == 1 else f".v{vec}"
                regs = ", ".join(f"%dv{i}" for i in range(vec))
                regs = regs if vec == 1 else "{" + regs + "}"
                instr = "".join(f"\tmul.lo.u32 %dv{i}, %ic3, {0x9E3779B1 + 2 * i};\n"
                                for i in range(vec))
                instr += f"\tsust.b.{dim}{vs}.b32.{mode} [%t, {surf_coord_operand(dim)}], {regs};\n"
            else:
                instr = (f"\tcvt.u16.u32 %hs, %ic3;\n\tsust.b.{dim}.b16.{mode} "
                         f"[%t, {surf_coord_operand(dim)}], %hs;\n")
            text = tex_kernel(name, lambda: instr, nout=0)
            text = text.replace("\t.reg .f32 %fc<4>, %fo<4>;\n", "\t.reg .f32 %fc<4>, %fo<4>;\n"
                                "\t.reg .b16 %hs;\n\t.reg .b32 %dv<4>;\n")
            # coordinates: one thread per texel plus out-of-range ones (dropped by .zero)
            rr = random.Random(hash_str(name))
            rec = []
            texl = [(x, y, z) for z in range(dd) for y in range(hh) for x in range(w)]
            for t in range(256):
                if t < len(texl):
                    x, y, z = texl[t]
                    xb = x * elem
                    rec += [xb, y, z, rr.getrandbits(32)]
                elif mode == "zero":
                    rec += [((w + rr.randrange(1, 4)) * elem) & 0xFFFFFFFF, 0, 0,
                            rr.getrandbits(32)]
                else:
                    x, y, z = texl[t % len(texl)]
                    rec += [x * elem, y, z, rr.getrandbits(32)]
            # the stored words: word 3 of the record times odd constants (see the kernel)
            cin = out.add_input(f"surfc_{name}.bin", words(rec))
            out.add_kernel("sust", text)
            out.case(name, "sust", name, 1, min(256, len(texl)) if mode == "trap" else 256,
                     [f"surf:{dim}:{w}:{h}:{d}:{fmt}:{nch}:{inf}:{name}_array.bin",
                      f"in:{cin}", f"out:{name}.bin:4"], [f"instr=sust.{mode}"])


def add_sured_suq(out):
    """sured.b.{add,min,max} on a 2d u32 surface (threads collide on texels: the integer
    reductions are order independent), sust.p (formatted store) of f32 data to a 2d f32x4
    surface, and suq on the surfaces of SURF (out: width, height, depth, channel_data_type,
    channel_order, array_size, memory_layout words per thread)."""
    dim, w, h, d, fmt, nch = ("2d", 8, 6, 0, "u32", 1)
    key = f"{dim}_{fmt}x{nch}"
    inf = out.add_input(f"surf_{key}.bin", bytes(
        random.Random(hash_str("surf" + key)).getrandbits(8) for _ in range(w * h * 4)))
    for op in ["add", "min", "max", "and", "or"]:
        name = f"sured_{op}_{key}"
        instr = f"\tsured.b.{op}.2d.b32.trap [%t, {{%ic0, %ic1}}], %ic3;\n"
        if op in ("add", "min", "max"):
            instr = instr.replace(".b32.", ".u32.")
        text = tex_kernel(name, lambda: instr, nout=0)
        rr = random.Random(hash_str(name))
        rec = []
        for t in range(256):
            rec += [rr.randrange(w) * 4, rr.randrange(h), 0, rr.getrandbits(32)]
        cin = out.add_input(f"surfc_{name}.bin", words(rec))
        out.add_kernel("sured", text)
        out.case(name, "sured", name, 2, 128, [f"surf:{dim}:{w}:{h}:{d}:{fmt}:{nch}:{inf}:"
                                              f"{name}_array.bin", f"in:{cin}", f"out:{name}.bin:4"],
                 [f"instr=sured.{op}"])
    name = "sust_p_2d_f32x4"
    inf4 = out.add_input("surf_2d_f32x4.bin", bytes(8 * 6 * 16))
    instr = "\tsust.p.2d.v4.b32.trap [%t, {%ic0, %ic1}], {%ic3, %ic2, %ic3, %ic3};\n"
    text = tex_kernel(name, lambda: instr, nout=0)
    rec = []
    for t in range(48):
        rec += [(t % 8) * 16, t // 8, f32_bits(t * 0.25), f32_bits(-1.5 * t)]
    cin = out.add_input(f"surfc_{name}.bin", words(rec))
    out.add_kernel("sustp", text)
    out.case(name, "sustp", name, 1, 48, [f"surf:2d:8:6:0:f32:4:{inf4}:{name}_array.bin",
                                         f"in:{cin}", f"out:{name}.bin:4"], ["instr=sust.p"])
    qs = ["width", "height", "depth", "channel_data_type", "channel_order", "array_size",
          "memory_layout"]
    for (dim, w, h, d, fmt, nch) in SURF:
        key = f"{dim}_{fmt}x{nch}"
        name = f"suq_{key}"
        body = "".join(f"\tsuq.{q}.b32 %o{i}, [%t];\n" for i, q in enumerate(qs)) + \
            "\tmov.b32 %o7, 0;\n"
        out.add_kernel("suq", tex_kernel(name, lambda: body, nout=8))
        cin = out.add_input("texc_zero.bin", bytes(32 * 16))
        out.case(name, "suq", name, 1, 32, [f"surf:{dim}:{w}:{h}:{d}:{fmt}:{nch}:"
                                             f"future_surf_{key}.bin:{name}_array.bin",
                                             f"in:{cin}", f"out:{name}.bin:{32 * 32}"],
                 ["instr=suq"])


def add_all(out):
    add_tex(out)
    add_surf(out)
    add_sured_suq(out)
