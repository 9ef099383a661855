# Generates tests/ptx/mma.ptx (one kernel per mma type combination):
#   python3 tests/ptx/mma_gen.py && ptxas --gpu-name sm_80 --warning-as-error -o /dev/null tests/ptx/mma.ptx
#
# Every kernel works per warp: global warp gw = ctaid.x * (ntid.x / 32) + tid.x / 32 owns
# tile gw of each buffer and 1/8 of the static shared arrays (so blocks of up to 256
# threads). g = lane >> 2, t = lane & 3 as in the PTX ISA's fragment figures.

PROLOGUE = """    mov.u32 %r0, %tid.x;
    and.b32 %r1, %r0, 31;              // lane
    shr.u32 %r2, %r0, 5;               // warp in CTA
    mov.u32 %r3, %ntid.x;
    shr.u32 %r3, %r3, 5;
    mov.u32 %r4, %ctaid.x;
    mad.lo.u32 %r3, %r4, %r3, %r2;     // gw
    shr.u32 %r5, %r1, 2;               // g
    and.b32 %r6, %r1, 3;               // t
    cvt.u64.u32 %rd0, %r3;
    cvt.u64.u32 %rd1, %r1;"""

REGS = """    .reg .b32 %r<64>;
    .reg .b64 %rd<32>;
    .reg .f32 %f<16>;
    .reg .pred %p<4>;"""


def copy_a(shared):
    """Copies the warp's 512-byte A tile (param a) to `shared` + 512 w (16 bytes a lane)
    and leaves the tile's shared base in %r10."""
    return f"""    ld.param.u64 %rd2, [a];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 512, %rd2;
    mad.wide.u32 %rd3, %r1, 16, %rd3;
    ld.global.v4.u32 {{%r20, %r21, %r22, %r23}}, [%rd3];
    mov.u32 %r10, {shared};
    mad.lo.u32 %r10, %r2, 512, %r10;
    mad.lo.u32 %r11, %r1, 16, %r10;
    st.shared.v4.u32 [%r11], {{%r20, %r21, %r22, %r23}};"""


def ldmatrix_a():
    """ldmatrix.x4 of the 16-row, 32-byte-row A tile at %r10: lane l gives row l % 16,
    byte column 16 (l / 16): matrices (rows 0-7, 8-15) x (bytes 0-15, 16-31) in the
    a0..a3 register order of both m16n8k16 (.f16/.bf16) and m16n8k32 (.s8/.u8)."""
    return """    and.b32 %r12, %r1, 15;
    shr.u32 %r13, %r1, 4;
    mad.lo.u32 %r14, %r12, 32, %r10;
    mad.lo.u32 %r14, %r13, 16, %r14;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r30, %r31, %r32, %r33}, [%r14];"""


def c_offsets():
    """%rd6 = byte offset of (row g, column 2t) in a 16x8 tile of 4-byte elements + the
    tile base gw * 512."""
    return """    shl.b32 %r15, %r5, 5;
    mad.lo.u32 %r15, %r6, 8, %r15;
    cvt.u64.u32 %rd6, %r15;
    mad.wide.u32 %rd6, %r3, 512, %rd6;"""


def mma_float(name, ty):
    # B: a 16x8 (K x N) row-major tile of 16-bit elements (16 bytes a row), loaded with
    # ldmatrix.x2.trans through a generic address: matrix 0 = rows 0-7 (lanes 0-7),
    # matrix 1 = rows 8-15 (lanes 8-15); lanes 16-31 repeat lanes 0-15.
    return f"""
// D = A * B + C, {ty} A (16x16 row-major) and B (16x8 row-major in memory, K x N), f32 C, D
// (16x8 row-major); tile gw of each.
.visible .entry {name}(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{{
{REGS}
{PROLOGUE}
{copy_a("sA")}
    // B tile: lanes 0-15 copy 16 bytes each.
    setp.lt.u32 %p1, %r1, 16;
    ld.param.u64 %rd2, [b];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 256, %rd2;
    mad.wide.u32 %rd3, %r1, 16, %rd3;
    @%p1 ld.global.v4.u32 {{%r20, %r21, %r22, %r23}}, [%rd3];
    mov.u32 %r16, sB;
    mad.lo.u32 %r16, %r2, 256, %r16;
    mad.lo.u32 %r17, %r1, 16, %r16;
    @%p1 st.shared.v4.u32 [%r17], {{%r20, %r21, %r22, %r23}};
    bar.sync 0;
{ldmatrix_a()}
    and.b32 %r12, %r1, 15;
    mad.lo.u32 %r17, %r12, 16, %r16;
    cvt.u64.u32 %rd4, %r17;
    cvta.shared.u64 %rd4, %rd4;
    ldmatrix.sync.aligned.m8n8.x2.trans.b16 {{%r34, %r35}}, [%rd4];
{c_offsets()}
    ld.param.u64 %rd2, [c];
    cvta.to.global.u64 %rd2, %rd2;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.v2.f32 {{%f0, %f1}}, [%rd7];
    ld.global.v2.f32 {{%f2, %f3}}, [%rd7+256];
    mma.sync.aligned.m16n8k16.row.col.f32.{ty}.{ty}.f32
        {{%f4, %f5, %f6, %f7}}, {{%r30, %r31, %r32, %r33}}, {{%r34, %r35}}, {{%f0, %f1, %f2, %f3}};
    ld.param.u64 %rd2, [d];
    cvta.to.global.u64 %rd2, %rd2;
    add.s64 %rd7, %rd2, %rd6;
    st.global.v2.f32 [%rd7], {{%f4, %f5}};
    st.global.v2.f32 [%rd7+256], {{%f6, %f7}};
    ret;
}}
"""


def mma_int(name, at, bt, sat):
    satq = ".satfinite" if sat else ""
    # B: 8 columns of 32 bytes (N x K in memory, i.e. column-major K x N); register j of
    # lane (g, t) holds rows 4t + 16j .. +3 of column g: bytes g * 32 + 4t + 16j.
    return f"""
// D = A * B + C{" (saturating)" if sat else ""}, {at} A (16x32 row-major), {bt} B (32x8 column-major:
// 8 columns of 32 bytes), s32 C, D (16x8 row-major); tile gw of each.
.visible .entry {name}(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)
{{
{REGS}
{PROLOGUE}
{copy_a("sA")}
    bar.sync 0;
{ldmatrix_a()}
    ld.param.u64 %rd2, [b];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 256, %rd2;
    shl.b32 %r15, %r5, 5;
    mad.lo.u32 %r15, %r6, 4, %r15;
    cvt.u64.u32 %rd5, %r15;
    add.s64 %rd3, %rd3, %rd5;
    ld.global.b32 %r34, [%rd3];
    ld.global.b32 %r35, [%rd3+16];
{c_offsets()}
    ld.param.u64 %rd2, [c];
    cvta.to.global.u64 %rd2, %rd2;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.v2.s32 {{%r40, %r41}}, [%rd7];
    ld.global.v2.s32 {{%r42, %r43}}, [%rd7+256];
    mma.sync.aligned.m16n8k32.row.col{satq}.s32.{at}.{bt}.s32
        {{%r44, %r45, %r46, %r47}}, {{%r30, %r31, %r32, %r33}}, {{%r34, %r35}}, {{%r40, %r41, %r42, %r43}};
    ld.param.u64 %rd2, [d];
    cvta.to.global.u64 %rd2, %rd2;
    add.s64 %rd7, %rd2, %rd6;
    st.global.v2.s32 [%rd7], {{%r44, %r45}};
    st.global.v2.s32 [%rd7+256], {{%r46, %r47}};
    ret;
}}
"""


LDM = f"""
// Every ldmatrix.m8n8 form on one 32-row tile (param a: 32 rows of 16 bytes per warp),
// each lane giving the address of row idx[lane] % 32: out gets 15 registers of 32 lanes
// per warp: x1 (1), x1.trans (1), x2 (2), x2.trans (2), x4 (4), x4.trans (4), and
// x1.trans from [sA+16] (row 1 of the CTA's first tile for every lane). The x1 load
// gives lanes 8-31 an address outside the shared window: x1 reads lanes 0-7 only.
.visible .entry ldm(.param .u64 a, .param .u64 idx, .param .u64 out)
{{
{REGS}
{PROLOGUE}
{copy_a("sA")}
    bar.sync 0;
    ld.param.u64 %rd2, [idx];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 128, %rd2;
    mad.wide.u32 %rd3, %r1, 4, %rd3;
    ld.global.u32 %r12, [%rd3];
    and.b32 %r12, %r12, 31;
    mad.lo.u32 %r14, %r12, 16, %r10;   // shared address of the lane's row
    cvt.u64.u32 %rd4, %r14;            // 64-bit shared address
    cvta.shared.u64 %rd5, %rd4;        // generic address
    add.u32 %r15, %r14, 48;            // for [reg+-48]
    setp.ge.u32 %p2, %r1, 8;
    selp.b32 %r16, 0xfffffff0, %r14, %p2;
    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{%r30}}, [%r16];
    ldmatrix.sync.aligned.m8n8.x1.trans.shared::cta.b16 {{%r31}}, [%rd4];
    ldmatrix.sync.aligned.m8n8.x2.b16 {{%r32, %r33}}, [%rd5];
    ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{%r34, %r35}}, [%r15+-48];
    ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {{%r36, %r37, %r38, %r39}}, [%r14];
    ldmatrix.sync.aligned.m8n8.x4.trans.b16 {{%r40, %r41, %r42, %r43}}, [%rd5];
    ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{%r44}}, [sA+16];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 1920, %rd2;
    mad.wide.u32 %rd3, %r1, 4, %rd3;
""" + "\n".join(f"    st.global.u32 [%rd3+{128 * k}], %r{30 + k};" for k in range(15)) + """
    ret;
}
"""

MOVM = f"""
// movmatrix.trans of the 8x8 .b16 matrix held by in[gw * 32 + lane]; out gets the
// transpose, then (out + 128) the transpose of the transpose.
.visible .entry movm(.param .u64 in, .param .u64 out)
{{
{REGS}
{PROLOGUE}
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 128, %rd2;
    mad.wide.u32 %rd3, %r1, 4, %rd3;
    ld.global.b32 %r20, [%rd3];
    movmatrix.sync.aligned.m8n8.trans.b16 %r21, %r20;
    movmatrix.sync.aligned.m8n8.trans.b16 %r22, %r21;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mad.wide.u32 %rd3, %r3, 256, %rd2;
    mad.wide.u32 %rd3, %r1, 4, %rd3;
    st.global.b32 [%rd3], %r21;
    st.global.b32 [%rd3+128], %r22;
    ret;
}}
"""

ERRORS = f"""
// Errors (tests/mma.rs): an mma that only the lanes below 16 run; an ldmatrix whose
// row address (lane 5's) is 8 bytes off 16-byte alignment; a generic ldmatrix address
// into global memory.
.visible .entry mma_half_warp(.param .u64 out)
{{
{REGS}
{PROLOGUE}
    setp.lt.u32 %p1, %r1, 16;
    mov.b32 %r20, 0;
    @%p1 mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
        {{%r44, %r45, %r46, %r47}}, {{%r20, %r20, %r20, %r20}}, {{%r20, %r20}}, {{%r20, %r20, %r20, %r20}};
    ld.param.u64 %rd2, [out];
    st.global.u32 [%rd2], %r44;
    ret;
}}

.visible .entry ldm_misaligned(.param .u64 out)
{{
{REGS}
{PROLOGUE}
    mov.u32 %r10, sA;
    mad.lo.u32 %r11, %r1, 16, %r10;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 add.u32 %r11, %r11, 8;
    ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{%r30, %r31}}, [%r11];
    ld.param.u64 %rd2, [out];
    st.global.u32 [%rd2], %r30;
    ret;
}}

.visible .entry ldm_generic_global(.param .u64 out)
{{
{REGS}
{PROLOGUE}
    ld.param.u64 %rd2, [out];
    ldmatrix.sync.aligned.m8n8.x1.b16 {{%r30}}, [%rd2];
    st.global.u32 [%rd2], %r30;
    ret;
}}
"""

kernels = [mma_float("mma_f16", "f16"), mma_float("mma_bf16", "bf16")]
for at in ["s8", "u8"]:
    for bt in ["s8", "u8"]:
        for sat in [False, True]:
            kernels.append(mma_int(f"mma_{at}_{bt}{'_sat' if sat else ''}", at, bt, sat))
kernels += [LDM, MOVM, ERRORS]

src = """// Warp-level matrix instructions (tests/mma.rs): ldmatrix (x1, x2, x4, .trans, .shared,
// .shared::cta and generic addresses), mma.sync m16n8k16 .f32.f16/.bf16 and m16n8k32
// .s32.s8/.u8 (all four type pairs, with and without .satfinite), movmatrix, and their
// run-time errors. Validated with ptxas --gpu-name sm_80 --warning-as-error.
// Generated by mma_gen.py.
.version 7.8
.target sm_80
.address_size 64

.shared .align 16 .b8 sA[4096];
.shared .align 16 .b8 sB[2048];
""" + "".join(kernels)

import os
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mma.ptx"), "w") as f:
    f.write(src)
