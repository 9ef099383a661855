"""ldmatrix/stmatrix/movmatrix, cp.async, mbarrier, 128-bit atomics and mul.hi/.wide edge
cases, for gen_future.py.

ldmatrix: lane kernel, in = (row offset, 8 data words); the lanes of a warp first copy their
data words to the warp's 1024 bytes of shared memory (lane l at l * 32), then
`ldmatrix` reads with lane l's row address = warp base + offset; out = the destination
registers. stmatrix: in = (row offset, 4 source registers); the warp's 1024 shared bytes
are zeroed, `stmatrix` stores, and out = lane l's 32 bytes of that region (8 words), so
the 32 lanes' outputs are the region in order. movmatrix: in = out = one register.
"""
import random

from gen import hash_str
from gen_future import lane_kernel, lane_case

SHM = """\tshr.u32 %w, %rtid, 5;\n\tand.b32 %lane, %rtid, 31;\n\tmov.u32 %sb, sm;
\tmad.lo.u32 %sb, %w, 1024, %sb;\n\tmad.lo.u32 %sl, %lane, 32, %sb;\n"""
SHM_DECL = "\t.reg .u32 %w, %lane, %sb, %sl, %sa;\n"


def rows_perm(r, n):
    rows = list(range(64))
    r.shuffle(rows)
    return rows[:n]


def ldmatrix_cases(out):
    for num in [1, 2, 4]:
        for trans in ["", ".trans"]:
            name = f"ldmatrix_x{num}{trans.replace('.', '_')}"
            regs = ", ".join(f"%o{i}" for i in range(num))
            body = SHM + "".join(f"\tst.shared.b32 [%sl+{4 * i}], %i{i + 1};\n" for i in range(8))
            body += ("\tbar.warp.sync -1;\n\tadd.u32 %sa, %sb, %i0;\n"
                     f"\tldmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16 {{{regs}}}, [%sa];\n")
            text = lane_kernel(name, 9, num, body, SHM_DECL, nshared=4096)
            r = random.Random(hash_str(name))
            rec = []
            for w in range(8):
                rows = rows_perm(r, 32) if w else list(range(32))
                for lane in range(32):
                    data = [((w * 1024 + lane * 32 + 2 * i) // 2 & 0xFFFF) |
                            (((w * 1024 + lane * 32 + 2 * i + 2) // 2 & 0xFFFF) << 16)
                            for i in range(0, 16, 2)]
                    if w >= 4:
                        data = [r.getrandbits(32) for _ in range(8)]
                    rec += [rows[lane] * 16] + data
            lane_case(out, "ldmatrix", name, text, 9, num, rec, 256)
    for num in [1, 2, 4]:
        for trans in ["", ".trans"]:
            name = f"stmatrix_x{num}{trans.replace('.', '_')}"
            regs = ", ".join(f"%i{i + 1}" for i in range(num))
            body = SHM + "".join(f"\tst.shared.b32 [%sl+{4 * i}], 0;\n" for i in range(8))
            body += ("\tbar.warp.sync -1;\n\tadd.u32 %sa, %sb, %i0;\n"
                     f"\tstmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16 [%sa], {{{regs}}};\n"
                     "\tbar.warp.sync -1;\n")
            body += "".join(f"\tld.shared.b32 %o{i}, [%sl+{4 * i}];\n" for i in range(8))
            text = lane_kernel(name, 5, 8, body, SHM_DECL, nshared=4096)
            r = random.Random(hash_str(name))
            rec = []
            for w in range(8):
                rows = rows_perm(r, 32) if w else list(range(32))
                for lane in range(32):
                    vals = [((lane * 8 + 2 * i) & 0xFFFF) | (((lane * 8 + 2 * i + 1) & 0xFFFF) << 16)
                            | (w << 12) | (w << 28) for i in range(4)]
                    rec += [rows[lane] * 16] + vals
            lane_case(out, "stmatrix", name, text, 5, 8, rec, 256, ver="8.5")
    name = "movmatrix_trans"
    body = "\tmovmatrix.sync.aligned.m8n8.trans.b16 %o0, %i0;\n"
    text = lane_kernel(name, 1, 1, body)
    r = random.Random(hash_str(name))
    rec = [(2 * l) | ((2 * l + 1) << 16) for l in range(32)] + [r.getrandbits(32) for _ in range(96)]
    lane_case(out, "ldmatrix", name, text, 1, 1, rec, 128)


def cp_async_cases(out):
    """in = 8 words; each lane copies parts of its own words to shared with cp.async, waits,
    and stores its 32 shared bytes (pre-filled with 0xAAAAAAAA) as out."""
    forms = [
        ("ca4", "cp.async.ca.shared.global [%sl], [%pi], 4;"),
        ("ca8", "cp.async.ca.shared.global [%sl+8], [%pi+8], 8;"),
        ("ca16", "cp.async.ca.shared.global [%sl+16], [%pi+16], 16;"),
        ("cg16", "cp.async.cg.shared.global [%sl], [%pi], 16;"),
        ("ca16_src5", "cp.async.ca.shared.global [%sl], [%pi], 16, 5;"),
        ("cg16_src0", "cp.async.cg.shared.global [%sl+16], [%pi+16], 16, 0;"),
        ("ca8_src3", "cp.async.ca.shared.global [%sl], [%pi], 8, 3;"),
        ("ca4_L2_128B", "cp.async.ca.shared.global.L2::128B [%sl+4], [%pi+4], 4;"),
        ("cg16_ignore", "cp.async.cg.shared.global [%sl], [%pi], 16, %pq;"),
    ]
    for wait in ["group", "all", "mbarrier"]:
        for tag, instr in forms:
            name = f"cp_async_{tag}_{wait}"
            decl = SHM_DECL + "\t.reg .pred %pq;\n\t.reg .u32 %mb;\n\t.reg .b64 %st;\n"
            body = SHM + "".join(f"\tst.shared.b32 [%sl+{4 * i}], -1431655766;\n"
                                 for i in range(8))
            body += "\tand.b32 %w, %i0, 1;\n\tsetp.eq.u32 %pq, %w, 1;\n"
            if wait == "mbarrier":
                body += ("\tmov.u32 %mb, mb;\n\tsetp.eq.u32 %p0, %rtid, 0;\n"
                         "\t@%p0 mbarrier.init.shared.b64 [%mb], 128;\n\tbar.sync 0;\n")
            body += f"\t{instr}\n"
            if wait == "group":
                body += "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n"
            elif wait == "all":
                body += "\tcp.async.wait_all;\n"
            else:
                body += ("\tcp.async.mbarrier.arrive.noinc.shared.b64 [%mb];\n"
                         "\tmov.u32 %w, 0;\n"
                         "W:\n\tmbarrier.test_wait.parity.shared.b64 %p0, [%mb], 0;\n"
                         "\t@%p0 bra WD;\n\tadd.u32 %w, %w, 1;\n"
                         "\tsetp.lt.u32 %p0, %w, 1000000;\n\t@%p0 bra W;\nWD:\n")
            body += "".join(f"\tld.shared.b32 %o{i}, [%sl+{4 * i}];\n" for i in range(8))
            text = lane_kernel(name, 8, 8, body, decl + "\t.reg .pred %p0;\n"
                               "\t.shared .align 8 .b64 mb;\n", nshared=4096)
            r = random.Random(hash_str("cp_async"))
            rec = [r.getrandbits(32) for _ in range(128 * 8)]
            lane_case(out, "cp_async", name, text, 8, 8, rec, 128, infile="cp_async.bin")


def mbarrier_cases(out):
    """One CTA of 128 threads; out per thread: 16 predicate/count words (see the body):
    phase 0 completes by 128 arrivals, phase 1 by 64 arrivals and 64 arrive_drop (the
    expected count drops to 64), phase 2 by 64 arrive.expect_tx of 4 bytes each and
    complete_tx of 255 then 1 byte, phase 3 by 32 arrivals with count 2. 12345 marks a
    word the thread did not set."""
    name = "mbarrier_phases"
    body = """\tmov.u32 %mb, mb;
\tsetp.eq.u32 %p0, %rtid, 0;
\t@%p0 mbarrier.init.shared.b64 [%mb], 128;
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o0, 1, 0, %p1;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 1;
\tselp.u32 %o1, 1, 0, %p1;
\tbar.sync 0;
\tmbarrier.arrive.shared.b64 %st0, [%mb];
\tbar.sync 0;
\tmbarrier.test_wait.shared.b64 %p1, [%mb], %st0;
\tselp.u32 %o2, 1, 0, %p1;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o3, 1, 0, %p1;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 1;
\tselp.u32 %o4, 1, 0, %p1;
\tmbarrier.try_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o5, 1, 0, %p1;
\tbar.sync 0;
\tsetp.lt.u32 %p2, %rtid, 64;
\t@%p2 mbarrier.arrive.shared.b64 %st1, [%mb];
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 1;
\tselp.u32 %o6, 1, 0, %p1;
\tmov.u32 %o7, 12345;
\t@%p2 mbarrier.pending_count.b64 %o7, %st1;
\t@!%p2 mbarrier.arrive_drop.shared.b64 %st1, [%mb];
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 1;
\tselp.u32 %o8, 1, 0, %p1;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o9, 1, 0, %p1;
\tbar.sync 0;
\t@%p2 mbarrier.arrive.expect_tx.shared.b64 %st2, [%mb], 4;
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o10, 1, 0, %p1;
\t@%p0 mbarrier.complete_tx.shared.b64 [%mb], 255;
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o11, 1, 0, %p1;
\t@%p0 mbarrier.complete_tx.shared.b64 [%mb], 1;
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 0;
\tselp.u32 %o12, 1, 0, %p1;
\tsetp.lt.u32 %p3, %rtid, 32;
\tmov.u32 %o13, 12345;
\t@%p3 mbarrier.arrive.shared.b64 %st0, [%mb], 2;
\t@%p3 mbarrier.pending_count.b64 %o13, %st0;
\tbar.sync 0;
\tmbarrier.test_wait.parity.shared.b64 %p1, [%mb], 1;
\tselp.u32 %o14, 1, 0, %p1;
\tmov.u32 %o15, %i0;
"""
    decl = ("\t.reg .u32 %mb;\n\t.reg .b64 %st0, %st1, %st2;\n\t.reg .pred %p0, %p1, %p2, %p3;\n"
            "\t.shared .align 8 .b64 mb;\n")
    text = lane_kernel(name, 1, 16, body, decl)
    lane_case(out, "mbarrier", name, text, 1, 16, list(range(128)), 128)


def atom128_cases(out):
    """in = mem(4 words), compare(4), new(4); out = old value (4), memory after (4).
    Each thread works on its own shared 16 bytes."""
    for op in ["cas", "exch"]:
        for space in ["shared", "global"]:
            name = f"atom_{op}_b128_{space}"
            decl = SHM_DECL + "\t.reg .b128 %q0, %q1, %q2, %q3;\n\t.reg .b64 %x<8>;\n" \
                "\t.reg .u64 %ga;\n"
            body = SHM
            body += "".join(f"\tst.shared.b32 [%sl+{4 * i}], %i{i};\n" for i in range(4))
            body += ("\tmov.b64 %x0, {%i4, %i5};\n\tmov.b64 %x1, {%i6, %i7};\n"
                     "\tmov.b64 %x2, {%i8, %i9};\n\tmov.b64 %x3, {%i10, %i11};\n"
                     "\tmov.b128 %q1, {%x0, %x1};\n\tmov.b128 %q2, {%x2, %x3};\n")
            if space == "shared":
                addr = "[%sl]"
            else:
                addr = "[%ga]"
                body += "\tadd.u64 %ga, %pi, 0;\n"  # the lane's own input words
            if op == "cas":
                body += f"\tatom.{space}.cas.b128 %q0, {addr}, %q1, %q2;\n"
            else:
                body += f"\tatom.{space}.exch.b128 %q0, {addr}, %q2;\n"
            body += ("\tmov.b128 {%x4, %x5}, %q0;\n\tmov.b64 {%o0, %o1}, %x4;\n"
                     "\tmov.b64 {%o2, %o3}, %x5;\n")
            if space == "shared":
                body += "".join(f"\tld.shared.b32 %o{4 + i}, [%sl+{4 * i}];\n" for i in range(4))
            else:
                body += "".join(f"\tld.global.b32 %o{4 + i}, [%pi+{4 * i}];\n" for i in range(4))
            text = lane_kernel(name, 12, 8, body, decl, nshared=4096)
            r = random.Random(hash_str("atom128"))
            rec = []
            for t in range(128):
                mem = [r.getrandbits(32) for _ in range(4)]
                k = t % 4
                cmp = list(mem) if k == 0 else [m ^ (1 << r.randrange(32)) if i == t % 4 else m
                                                for i, m in enumerate(mem)] if k < 3 else [
                    r.getrandbits(32) for _ in range(4)]
                rec += mem + cmp + [r.getrandbits(32) for _ in range(4)]
            lane_case(out, "atom128", name, text, 12, 8, rec, 128, ver="8.3",
                      infile="atom128.bin")


def mul_cases(out):
    """in = (a lo, a hi, b lo, b hi); out = (d lo, d hi)."""
    specials = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                0xFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
                0xFFFFFFFE, 0x10001, 0x123456789ABCDEF]
    r = random.Random(hash_str("mul"))
    rec = []
    for a in specials:
        for b in specials:
            rec += [a & 0xFFFFFFFF, a >> 32, b & 0xFFFFFFFF, b >> 32]
    while len(rec) < 4 * 512:
        a, b = r.getrandbits(64), r.getrandbits(64)
        rec += [a & 0xFFFFFFFF, a >> 32, b & 0xFFFFFFFF, b >> 32]
    forms = []
    for t in ["u16", "s16"]:
        forms += [f"mul.hi.{t}", f"mul.wide.{t}", f"mul.lo.{t}", f"mad.hi.{t}"]
    for t in ["u32", "s32"]:
        forms += [f"mul.hi.{t}", f"mul.wide.{t}", f"mad.hi.{t}", f"mad.wide.{t}"]
    for t in ["u64", "s64"]:
        forms += [f"mul.hi.{t}", f"mad.hi.{t}"]
    for instr in forms:
        op, mode, t = instr.split(".")
        bits = int(t[1:])
        name = f"{op}_{mode}_{t}"
        dbits = 2 * bits if mode == "wide" else bits
        rt = lambda b: {16: "b16", 32: "b32", 64: "b64"}[b]  # noqa: E731
        decl = f"\t.reg .{rt(bits)} %a, %b;\n\t.reg .{rt(dbits)} %d, %c;\n\t.reg .b64 %x, %y;\n"
        body = "\tmov.b64 %x, {%i0, %i1};\n\tmov.b64 %y, {%i2, %i3};\n"
        if bits == 64:
            body += "\tmov.b64 %a, %x;\n\tmov.b64 %b, %y;\n\tmov.b64 %c, %x;\n"
        else:
            body += f"\tcvt.u{bits}.u64 %a, %x;\n\tcvt.u{bits}.u64 %b, %y;\n"
            body += f"\tcvt.u{dbits}.u64 %c, %y;\n" if dbits < 64 else "\tmov.b64 %c, %y;\n"
        if op == "mad":
            body += f"\t{instr} %d, %a, %b, %c;\n"
        else:
            body += f"\t{instr} %d, %a, %b;\n"
        if dbits == 64:
            body += "\tmov.b64 {%o0, %o1}, %d;\n"
        else:
            body += f"\tcvt.u32.u{dbits} %o0, %d;\n\tmov.b32 %o1, 0;\n"
        text = lane_kernel(name, 4, 2, body, decl)
        lane_case(out, "mulhi", name, text, 4, 2, rec, 512, infile="mul.bin")


def add_all(out):
    ldmatrix_cases(out)
    cp_async_cases(out)
    mbarrier_cases(out)
    atom128_cases(out)
    mul_cases(out)
