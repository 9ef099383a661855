#!/usr/bin/env python3
"""Writes wgmma.ptx: one test kernel per wgmma.mma_async form of tests/wgmma.rs.

usage: gen.py OUT.ptx   (then: ptxas -arch sm_90a OUT.ptx; regen.sh does both)

Each kernel `wg_<form>(img, nbytes, areg, c, d, desc_a, desc_b, scale_d)`:
copies `nbytes` of the shared-memory image `img` (A and B as the test placed them) into
`smem`, adds smem's shared address (>> 4) to the descriptors' start fields, loads each
thread's accumulator registers from `c[tid * R + i]` (and, for register A, its four A
registers from `areg[tid * 4 + i]`), runs `wgmma.fence`, one `wgmma.mma_async`,
`commit_group`, `wait_group 0`, and stores the accumulators to `d[tid * R + i]`.
"""
import sys

# name, dtype, atype, btype, N, a_desc, scale_a, scale_b, trans_a, trans_b, satfinite
FORMS = [
    ("f16_f32_n8", "f32", "f16", "f16", 8, True, 1, 1, 0, 0, False),
    ("f16_f32_n16_tb", "f32", "f16", "f16", 16, True, 1, 1, 0, 1, False),
    ("f16_f32_n16_ta", "f32", "f16", "f16", 16, True, 1, 1, 1, 0, False),
    ("f16_f32_n16_tab", "f32", "f16", "f16", 16, True, 1, 1, 1, 1, False),
    ("f16_f32_n256", "f32", "f16", "f16", 256, True, 1, 1, 0, 0, False),
    ("f16_f16_n24", "f16", "f16", "f16", 24, True, 1, 1, 0, 0, False),
    ("f16_f32_neg", "f32", "f16", "f16", 16, True, -1, -1, 0, 0, False),
    ("f16_f32_nega", "f32", "f16", "f16", 16, False, -1, 1, 0, 1, False),
    ("bf16_f32_reg", "f32", "bf16", "bf16", 32, False, 1, 1, 0, 1, False),
    ("bf16_f32_desc", "f32", "bf16", "bf16", 64, True, 1, 1, 0, 0, False),
    ("tf32_f32_desc", "f32", "tf32", "tf32", 32, True, 1, 1, 0, 0, False),
    ("tf32_f32_reg", "f32", "tf32", "tf32", 8, False, 1, -1, 0, 0, False),
    ("e4m3_e5m2_f32", "f32", "e4m3", "e5m2", 16, True, 1, 1, 0, 0, False),
    ("e5m2_e4m3_f16_reg", "f16", "e5m2", "e4m3", 8, False, -1, 1, 0, 0, False),
    ("s8_u8_sat", "s32", "s8", "u8", 32, True, 1, 1, 0, 0, True),
    ("u8_s8_reg", "s32", "u8", "s8", 16, False, 1, 1, 0, 0, False),
    ("s8_s8_n24", "s32", "s8", "s8", 24, True, 1, 1, 0, 0, False),
    ("b1_and", "s32", "b1", "b1", 16, True, 1, 1, 0, 0, False),
    ("b1_and_reg", "s32", "b1", "b1", 8, False, 1, 1, 0, 0, False),
]

K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}


def kernel(form):
    name, dt, at, bt, n, a_desc, sa, sb, ta, tb, sat = form
    k = K[at]
    nregs = n // 4 if dt == "f16" else n // 2
    rty, rld = {"f32": (".f32", "f32"), "f16": (".b32", "b32"), "s32": (".s32", "s32")}[dt]
    acc = ", ".join(f"%acc{i}" for i in range(nregs))
    out = []
    w = out.append
    w(f".visible .entry wg_{name}(.param .u64 img, .param .u32 nbytes, .param .u64 areg,")
    w("\t.param .u64 c, .param .u64 d, .param .u64 desc_a, .param .u64 desc_b, .param .u32 scale_d)")
    w("{")
    w("\t.reg .pred %p<4>;")
    w("\t.reg .b32 %r<16>;")
    w("\t.reg .b64 %rd<16>;")
    w(f"\t.reg {rty} %acc<{nregs}>;")
    w("\t.reg .b32 %a<4>;")
    w("\t.shared .align 1024 .b8 smem[49152];")
    w("\tld.param.u64 %rd1, [img];")
    w("\tcvta.to.global.u64 %rd1, %rd1;")
    w("\tld.param.u32 %r3, [nbytes];")
    w("\tmov.u32 %r1, %tid.x;")
    w("\tmov.u32 %r2, %ntid.x;")
    w("\tshl.b32 %r8, %r2, 2;")
    w("\tmov.u32 %r4, smem;")
    w("\tshl.b32 %r5, %r1, 2;")
    w("$copy:")
    w("\tsetp.ge.u32 %p1, %r5, %r3;")
    w("\t@%p1 bra $copied;")
    w("\tcvt.u64.u32 %rd2, %r5;")
    w("\tadd.s64 %rd3, %rd1, %rd2;")
    w("\tld.global.u32 %r6, [%rd3];")
    w("\tadd.s32 %r7, %r4, %r5;")
    w("\tst.shared.u32 [%r7], %r6;")
    w("\tadd.s32 %r5, %r5, %r8;")
    w("\tbra $copy;")
    w("$copied:")
    w("\tfence.proxy.async.shared::cta;")
    w("\tbar.sync 0;")
    w("\tshr.u32 %r9, %r4, 4;")
    w("\tcvt.u64.u32 %rd4, %r9;")
    w("\tld.param.u64 %rd5, [desc_a];")
    w("\tadd.s64 %rd5, %rd5, %rd4;")
    w("\tld.param.u64 %rd6, [desc_b];")
    w("\tadd.s64 %rd6, %rd6, %rd4;")
    w("\tld.param.u32 %r10, [scale_d];")
    w("\tsetp.ne.u32 %p2, %r10, 0;")
    w("\tld.param.u64 %rd7, [c];")
    w("\tcvta.to.global.u64 %rd7, %rd7;")
    w(f"\tmul.wide.u32 %rd8, %r1, {4 * nregs};")
    w("\tadd.s64 %rd9, %rd7, %rd8;")
    for i in range(nregs):
        w(f"\tld.global.{rld} %acc{i}, [%rd9+{4 * i}];")
    if not a_desc:
        w("\tld.param.u64 %rd10, [areg];")
        w("\tcvta.to.global.u64 %rd10, %rd10;")
        w("\tmul.wide.u32 %rd11, %r1, 16;")
        w("\tadd.s64 %rd10, %rd10, %rd11;")
        w("\tld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd10];")
    w("\twgmma.fence.sync.aligned;")
    mods = f"m64n{n}k{k}"
    if sat:
        mods += ".satfinite"
    mods += f".{dt}.{at}.{bt}"
    if at == "b1":
        mods += ".and.popc"
    a = "%rd5" if a_desc else "{%a0, %a1, %a2, %a3}"
    ops = [f"{{{acc}}}", a, "%rd6", "%p2"]
    if dt != "s32":
        ops += [str(sa), str(sb)]
        if at in ("f16", "bf16"):
            if a_desc:
                ops.append(str(ta))
            ops.append(str(tb))
    w(f"\twgmma.mma_async.sync.aligned.{mods} {', '.join(ops)};")
    w("\twgmma.commit_group.sync.aligned;")
    w("\twgmma.wait_group.sync.aligned 0;")
    w("\tld.param.u64 %rd12, [d];")
    w("\tcvta.to.global.u64 %rd12, %rd12;")
    w("\tadd.s64 %rd13, %rd12, %rd8;")
    for i in range(nregs):
        w(f"\tst.global.{rld} [%rd13+{4 * i}], %acc{i};")
    w("\tret;")
    w("}")
    return "\n".join(out)


# A descriptor that differs between lanes (start field = %tid.x): a located error.
LANE_DESC = """.visible .entry wg_lane_desc(.param .u64 d)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\t.reg .f32 %acc<4>;
\tmov.u32 %r1, %tid.x;
\tcvt.u64.u32 %rd1, %r1;
\tmov.f32 %acc0, 0f00000000;
\tmov.f32 %acc1, 0f00000000;
\tmov.f32 %acc2, 0f00000000;
\tmov.f32 %acc3, 0f00000000;
\tsetp.eq.u32 %p1, %r1, %r1;
\twgmma.fence.sync.aligned;
\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%acc0, %acc1, %acc2, %acc3}, %rd1, %rd1, %p1, 1, 1, 0, 0;
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 0;
\tld.param.u64 %rd2, [d];
\tcvta.to.global.u64 %rd2, %rd2;
\tst.global.f32 [%rd2], %acc0;
\tret;
}"""


# scale-d that differs between lanes (odd lanes accumulate): a located error.
LANE_SCALE = """.visible .entry wg_lane_scale(.param .u64 d)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\t.reg .f32 %acc<4>;
\t.shared .align 1024 .b8 smem[1024];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, smem;
\tshr.u32 %r2, %r2, 4;
\tcvt.u64.u32 %rd1, %r2;
\tmov.f32 %acc0, 0f00000000;
\tmov.f32 %acc1, 0f00000000;
\tmov.f32 %acc2, 0f00000000;
\tmov.f32 %acc3, 0f00000000;
\tand.b32 %r3, %r1, 1;
\tsetp.ne.u32 %p1, %r3, 0;
\twgmma.fence.sync.aligned;
\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%acc0, %acc1, %acc2, %acc3}, %rd1, %rd1, %p1, 1, 1, 0, 0;
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 0;
\tld.param.u64 %rd2, [d];
\tcvta.to.global.u64 %rd2, %rd2;
\tst.global.f32 [%rd2], %acc0;
\tret;
}"""


def main():
    head = [
        "// Generated by tests/kernels/wgmma/gen.py (see there); checked with ptxas -arch sm_90a.",
        ".version 8.4",
        ".target sm_90a",
        ".address_size 64",
        "",
    ]
    body = "\n\n".join([kernel(f) for f in FORMS] + [LANE_DESC, LANE_SCALE])
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(head) + body + "\n")


if __name__ == "__main__":
    main()
