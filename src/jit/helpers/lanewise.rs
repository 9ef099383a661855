//! Lane-by-lane helpers over the interpreter's scalar semantics (`crate::ops`): integer
//! and float arithmetic (`ptxjit_arith`), conversions (`ptxjit_cvt`, `ptxjit_cvtx`),
//! comparisons (`ptxjit_setp`), bit operations (`ptxjit_bits`), special functions
//! (`ptxjit_sfu`) and half precision (`ptxjit_half`), with their descriptor encodings.

use super::*;
use crate::exec::ctx::WARP_SIZE;
use crate::ir::{ArithOp, CmpOp, DivMode, FloatMode, MulMode, Rnd, Type};
use crate::ops::{arith as scalar_arith, cvt as scalar_cvt, setp as scalar_setp};

fn arith_code(op: ArithOp) -> u64 {
    use ArithOp::*;
    let mm = |m: MulMode| match m {
        MulMode::Lo => 0,
        MulMode::Hi => 1,
        MulMode::Wide => 2,
    };
    match op {
        Add => 0,
        Sub => 1,
        Mul(m) => 2 + mm(m),
        Mad(m) => 5 + mm(m),
        Fma => 8,
        Div(DivMode::Ieee) => 9,
        Div(DivMode::Full) => 10,
        Div(DivMode::Approx) => 11,
        Rem => 12,
        Min => 13,
        Max => 14,
        Neg => 15,
        Abs => 16,
        And => 17,
        Or => 18,
        Xor => 19,
        Not => 20,
        Shl => 21,
        Shr => 22,
    }
}

fn arith_from(c: u64) -> Option<ArithOp> {
    use ArithOp::*;
    const MM: [MulMode; 3] = [MulMode::Lo, MulMode::Hi, MulMode::Wide];
    Some(match c {
        0 => Add,
        1 => Sub,
        2..=4 => Mul(MM[c as usize - 2]),
        5..=7 => Mad(MM[c as usize - 5]),
        8 => Fma,
        9 => Div(DivMode::Ieee),
        10 => Div(DivMode::Full),
        11 => Div(DivMode::Approx),
        12 => Rem,
        13 => Min,
        14 => Max,
        15 => Neg,
        16 => Abs,
        17 => And,
        18 => Or,
        19 => Xor,
        20 => Not,
        21 => Shl,
        22 => Shr,
        _ => return None,
    })
}

const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

/// Descriptor of an `arith` helper call.
pub(crate) fn arith_desc(op: ArithOp, ty: Type, fm: FloatMode) -> u64 {
    arith_code(op)
        | ty.code() << 8
        | rnd_code(fm.rnd) << 16
        | (fm.ftz as u64) << 20
        | (fm.sat as u64) << 21
}

/// Descriptor of a `cvt` helper call.
pub(crate) fn cvt_desc(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool) -> u64 {
    dst.code() | src.code() << 8 | rnd_code(rnd) << 16 | (ftz as u64) << 20 | (sat as u64) << 21
}

/// Descriptor of a `setp` helper call.
pub(crate) fn setp_desc(cmp: CmpOp, ty: Type, ftz: bool) -> u64 {
    CMPS.iter().position(|&c| c == cmp).unwrap_or(0) as u64 | ty.code() << 8 | (ftz as u64) << 20
}

/// Whether `crate::ops` implements `op` on `ty` (half-precision arithmetic is not).
pub(crate) fn scalar_arith_supported(_op: ArithOp, ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F64) || ty.is_int() || ty.is_bits() && ty.bits() <= 64
}

/// Whether `crate::ops` implements this `cvt` (no packed `x2` types).
pub(crate) fn scalar_cvt_supported(dst: Type, src: Type) -> bool {
    let ok = |t: Type| {
        t.is_int()
            || t.is_bits() && t.bits() <= 64
            || matches!(t, Type::F16 | Type::BF16 | Type::F32 | Type::F64)
    };
    ok(dst) && ok(src)
}

/// `out[l] = arith(op, ty, fm, a[l], b[l], c[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the operand types `ArithOp::src_type` and
/// `ArithOp::dst_type` give.
pub unsafe extern "C" fn ptxjit_arith(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) {
    count(|c| c.arith += 1);
    let (Some(op), Some(ty)) = (arith_from(desc & 0xff), Type::from_code(desc >> 8 & 0xff)) else {
        return;
    };
    let fm = FloatMode {
        rnd: rnd_from(desc >> 16 & 0xf),
        ftz: desc >> 20 & 1 != 0,
        sat: desc >> 21 & 1 != 0,
    };
    let (ta, tb, tc, to) = (
        op.src_type(ty, 0),
        op.src_type(ty, 1),
        op.src_type(ty, 2),
        op.dst_type(ty),
    );
    let arity = op.arity();
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(ta), ta.bits());
            let y = if arity >= 2 {
                rd(b, l, slot_bytes(tb), tb.bits())
            } else {
                0
            };
            let z = if arity >= 3 {
                rd(c, l, slot_bytes(tc), tc.bits())
            } else {
                0
            };
            wr(out, l, slot_bytes(to), scalar_arith(op, ty, fm, x, y, z));
        }
    }
}

/// `out[l] = ops::float::sfu(..., a[l])` for the lanes in `mask` (`desc` from
/// `ops::float::sfu_encode`).
///
/// # Safety
/// The pointers must be valid slot arrays for the instruction's type.
pub unsafe extern "C" fn ptxjit_sfu(desc: u64, mask: u32, a: *const u8, out: *mut u8) {
    let (op, ty, approx, rnd, ftz) = crate::ops::float::sfu_decode(desc);
    for l in lanes(mask) {
        let x = unsafe { rd(a, l, slot_bytes(ty), ty.bits()) };
        let r = crate::ops::float::sfu(op, ty, approx, rnd, ftz, x);
        unsafe { wr(out, l, slot_bytes(ty), r) };
    }
}

/// `out[l] = ops::video::eval(op, a[l], b[l], c[l])` (32-bit slots) for the lanes in
/// `mask` (`desc` from `ops::video::encode`).
///
/// # Safety
/// The pointers must be valid 32-bit slot arrays.
pub unsafe extern "C" fn ptxjit_video(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) {
    let Some(op) = crate::ops::video::decode(desc) else {
        return;
    };
    let n = if op.has_c() { 3 } else { 2 };
    let ptrs = [a, b, c];
    for l in lanes(mask) {
        let mut v = [0u32; 3];
        for k in 0..n {
            // SAFETY: the caller's contract.
            v[k] = unsafe { rd(ptrs[k], l, 4, 32) } as u32;
        }
        let r = crate::ops::video::eval(&op, v[0], v[1], v[2]);
        // SAFETY: the caller's contract.
        unsafe { wr(out, l, 4, r as u64) };
    }
}

/// `out[l] = ops::int::eval(op, ty, [a[l], b[l], c[l], d[l]])` for the lanes in `mask`
/// (`desc` from `ops::int::encode`).
///
/// # Safety
/// The pointers must be valid slot arrays for the operand and result types.
pub unsafe extern "C" fn ptxjit_bits(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    d: *const u8,
    out: *mut u8,
) {
    let Some((op, ty)) = crate::ops::int::decode(desc) else {
        return;
    };
    let (stys, dty) = op.signature(ty);
    let ptrs = [a, b, c, d];
    for l in lanes(mask) {
        let mut v = [0u64; 4];
        for (k, t) in stys.iter().enumerate().take(4) {
            v[k] = unsafe { rd(ptrs[k], l, slot_bytes(*t), t.bits()) };
        }
        unsafe { wr(out, l, slot_bytes(dty), crate::ops::int::eval(op, ty, &v)) };
    }
}

/// `out[l] = cvt(dst, src, rnd, ftz, sat, a[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the source and destination types.
pub unsafe extern "C" fn ptxjit_cvt(desc: u64, mask: u32, a: *const u8, out: *mut u8) {
    count(|c| c.cvt += 1);
    let (Some(dst), Some(src)) = (
        Type::from_code(desc & 0xff),
        Type::from_code(desc >> 8 & 0xff),
    ) else {
        return;
    };
    let rnd = rnd_from(desc >> 16 & 0xf);
    let (ftz, sat) = (desc >> 20 & 1 != 0, desc >> 21 & 1 != 0);
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(src), src.bits());
            wr(
                out,
                l,
                slot_bytes(dst),
                scalar_cvt(dst, src, rnd, ftz, sat, x),
            );
        }
    }
}

/// `out[l] = setp(cmp, ty, ftz, a[l], b[l]) ? -1 : 0` (i32 lane masks) for every lane
/// (lanes outside `mask` get 0).
///
/// # Safety
/// `a`, `b` must be valid slot arrays for `ty`; `out` 32 × i32.
pub unsafe extern "C" fn ptxjit_setp(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    out: *mut u8,
) {
    count(|c| c.setp += 1);
    let (Some(&cmp), Some(ty)) = (
        CMPS.get((desc & 0xff) as usize),
        Type::from_code(desc >> 8 & 0xff),
    ) else {
        return;
    };
    let ftz = desc >> 20 & 1 != 0;
    let sb = slot_bytes(ty);
    for l in 0..WARP_SIZE {
        unsafe {
            let r = if mask >> l & 1 != 0 {
                scalar_setp(
                    cmp,
                    ty,
                    ftz,
                    rd(a, l, sb, ty.bits()),
                    rd(b, l, sb, ty.bits()),
                )
            } else {
                false
            };
            wr(out, l, 4, if r { u32::MAX as u64 } else { 0 });
        }
    }
}

/// `out[l] = ops::half::eval(op, ty, mode, a[l], b[l], c[l])` for the lanes in `mask`
/// (`desc` from `ops::half::encode`; operands the instruction does not have are ignored).
///
/// # Safety
/// `a`, `b`, `c` and `out` must each be valid for 32 × 4 bytes.
pub unsafe extern "C" fn ptxjit_half(
    desc: u64,
    mask: u32,
    a: *const u32,
    b: *const u32,
    c: *const u32,
    out: *mut u32,
) {
    let Some((op, ty, mode)) = crate::ops::half::decode(desc) else {
        return;
    };
    let n = op.arity();
    for l in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        // SAFETY: every slot holds 32 lanes (caller contract); only the instruction's
        // operands were written.
        unsafe {
            let x = a.add(l).read_unaligned() as u64;
            let y = if n >= 2 {
                b.add(l).read_unaligned() as u64
            } else {
                0
            };
            let z = if n >= 3 {
                c.add(l).read_unaligned() as u64
            } else {
                0
            };
            let r = crate::ops::half::eval(op, ty, mode, x, y, z);
            out.add(l).write_unaligned(r as u32);
        }
    }
}

/// `out[l] = cvtx::eval(op, a[l], b[l], c[l])` for the lanes in `mask` (4-byte slots).
///
/// # Safety
/// `a`, `b`, `c` and `out` must be valid arrays of 32 `u32`.
pub unsafe extern "C" fn ptxjit_cvtx(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) {
    let Some(op) = crate::ops::convert::decode(desc) else {
        return;
    };
    let (stys, _) = op.signature();
    let ptrs = [a, b, c];
    for l in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        let mut v = [0u64; 3];
        for (k, t) in stys.iter().enumerate().take(3) {
            let x = unsafe { (ptrs[k] as *const u32).add(l).read_unaligned() } as u64;
            v[k] = x & crate::ops::mask(t.bits());
        }
        let r = crate::ops::convert::eval(op, &v) as u32;
        unsafe { (out as *mut u32).add(l).write_unaligned(r) };
    }
}
// imports of moved items
