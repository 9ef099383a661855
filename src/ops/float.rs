//! The floating-point family's semantics: f32 and f64 arithmetic with PTX rounding,
//! NaN, `.ftz` and `.sat` rules; the special functions; `min`/`max` with modifiers (their
//! integer `.relu` and packed forms too), `copysign` and `testp`.
//!
//! `sqrt`, `rcp` (correctly rounded in every rounding mode) and the `.approx` family
//! (`sqrt rcp rsqrt sin cos lg2 ex2 tanh`), with the PTX manual's special-case tables.
//!
//! ptxjit computes the `.approx` functions in f64 and rounds once to f32, so their error
//! is at most 0.5 ulp of the f32 result plus the host libm's error in f64 — far inside the
//! manual's bounds (e.g. 2^-20.9 absolute for `sin`/`cos`, 2^-22.5 for `ex2`); `tests`
//! checks the bounds. Subnormal inputs: the manual says that since sm_20 "by default,
//! subnormal numbers are supported" and that the `.ftz` forms flush them; its special-
//! value tables (`+subnormal` → `+Inf` for `rsqrt`, `-Inf` for `lg2`) show the flushed
//! behaviour. Without `.ftz` ptxjit computes the function of the subnormal value itself:
//! NVIDIA's math library depends on it (libdevice's `cbrtf` takes `lg2.approx.f32` of
//! |x| and `rsqrtf` is one `rsqrt.approx.f32`, and the CUDA guide documents 1 and 2 ulp
//! for them over the whole range, subnormals included; `tests/mathlib.rs`). With `.ftz`
//! a subnormal input is a zero of the same sign (`tanh` has no `.ftz` and passes it
//! through).
//!
//! The `min`/`max` forms with modifiers (PTX ISA: floating-point and integer `min`/`max`)
//! and the sign and class operations `copysign` and `testp`.
//!
//! - `.NaN` (f32): a NaN input gives the canonical NaN; without it a NaN loses to a
//!   number and two NaNs give the canonical NaN (the plain rule of `crate::ops`).
//! - `.xorsign.abs` (f32): the sign of the result is the XOR of the inputs' sign bits
//!   (NaN inputs included, taken before `.abs`); the magnitudes are compared; a NaN
//!   result keeps no sign change (it is the canonical NaN).
//! - `.ftz` flushes subnormal inputs to sign-preserving zero (the result is one of the
//!   flushed inputs or NaN, so it needs no flush of its own).
//! - `.relu` (`.s32`, `.s16x2`): a negative result becomes 0.
//! - `.u16x2`/`.s16x2`: the 16-bit halves independently.
//! - `copysign` copies bits: `b` with `a`'s sign bit, NaN payloads kept (the ISA
//!   defines no NaN rule for it).
//! - `testp` looks at the bits only (there is no `.ftz`): zero counts as normal.

use crate::ir::{ArithOp, CmpOp, DivMode, FloatMode, MinMaxOp, MulMode, Rnd, TestpOp, Type};
use crate::ops::{mask, sext};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};

/// The quiet bit of an f64 NaN.
pub const QUIET64: u64 = 1 << 51;

/// The NaN a GPU float operation returns.
pub fn canonical_nan(bits: u32) -> u64 {
    if bits == 32 {
        0x7fff_ffff
    } else {
        0x7fff_ffff_ffff_ffff
    }
}

/// Flushes an f32 subnormal to sign-preserving zero.
#[inline]
pub fn flush_f32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The apfloat rounding mode for a float rounding modifier (`None` and `.rn` are nearest
/// even). Integer rounding modifiers map to the same direction.
pub(super) fn round_of(r: Option<Rnd>) -> Round {
    match r {
        None | Some(Rnd::Rn) | Some(Rnd::Rni) => Round::NearestTiesToEven,
        Some(Rnd::Rz) | Some(Rnd::Rzi) => Round::TowardZero,
        Some(Rnd::Rm) | Some(Rnd::Rmi) => Round::TowardNegative,
        Some(Rnd::Rp) | Some(Rnd::Rpi) => Round::TowardPositive,
    }
}

/// Whether `div.approx.f32` takes its huge-divisor rule for the divisor bits `b`: the
/// ISA computes it as `a * (1/b)`, and for 2^126 < |b| < 2^128 the reciprocal is below
/// the normal range and flushed, so the result is a zero (NaN when `a` is infinite or
/// NaN). Elsewhere ptxjit returns the correctly rounded quotient (inside the 2-ulp bound).
pub fn approx_div_huge_divisor(b: u32) -> bool {
    (0x7e80_0001..0x7f80_0000).contains(&(b & 0x7fff_ffff))
}

fn is_nearest(r: Option<Rnd>) -> bool {
    matches!(r, None | Some(Rnd::Rn))
}

/// `.sat`: clamps to [+0.0, 1.0]; NaN and -0.0 give +0.0 (as `cvt.sat` and the
/// half-precision `.sat` do, and as CUDA documents `__saturatef`).
fn sat_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn sat_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// PTX `min`/`max`: NaN loses to a number; -0 < +0.
fn minmax_bits(is_max: bool, a: f64, b: f64, abits: u64, bbits: u64, nan: u64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => nan,
        (true, false) => bbits,
        (false, true) => abits,
        _ => {
            let a_less = a < b || (a == b && a.is_sign_negative() && !b.is_sign_negative());
            let b_less = b < a || (a == b && b.is_sign_negative() && !a.is_sign_negative());
            if is_max {
                if b_less {
                    abits
                } else if a_less {
                    bbits
                } else {
                    abits
                }
            } else if a_less {
                abits
            } else if b_less {
                bbits
            } else {
                abits
            }
        }
    }
}

pub(super) fn arith_f32(op: ArithOp, fm: FloatMode, a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = if fm.ftz {
        (flush_f32(a), flush_f32(b), flush_f32(c))
    } else {
        (a, b, c)
    };
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    let nearest = is_nearest(fm.rnd);
    let rnd = round_of(fm.rnd);
    let ap = |v: f32| Single::from_bits(v.to_bits() as u128);
    let back = |v: Single| f32::from_bits(v.to_bits() as u32);
    let r: f32 = match op {
        ArithOp::Add if nearest => x + y,
        ArithOp::Add => back(ap(x).add_r(ap(y), rnd).value),
        ArithOp::Sub if nearest => x - y,
        ArithOp::Sub => back(ap(x).sub_r(ap(y), rnd).value),
        ArithOp::Mul(_) if nearest => x * y,
        ArithOp::Mul(_) => back(ap(x).mul_r(ap(y), rnd).value),
        ArithOp::Fma | ArithOp::Mad(_) if nearest => x.mul_add(y, z),
        ArithOp::Fma | ArithOp::Mad(_) => back(ap(x).mul_add_r(ap(y), ap(z), rnd).value),
        ArithOp::Div(DivMode::Ieee) if !nearest => back(ap(x).div_r(ap(y), rnd).value),
        // a * (+-0): a zero with the sign of a*b, NaN for an infinite or NaN a.
        ArithOp::Div(DivMode::Approx) if approx_div_huge_divisor(b) => {
            x * f32::from_bits(b & 0x8000_0000)
        }
        ArithOp::Div(_) => x / y,
        ArithOp::Min | ArithOp::Max => {
            let r = minmax_bits(
                op == ArithOp::Max,
                x as f64,
                y as f64,
                a as u64,
                b as u64,
                canonical_nan(32),
            );
            return if fm.ftz {
                flush_f32(r as u32)
            } else {
                r as u32
            };
        }
        // A NaN gives the canonical NaN, as on an H100 (tests/golden).
        ArithOp::Neg | ArithOp::Abs if x.is_nan() => return canonical_nan(32) as u32,
        ArithOp::Neg => return a ^ 0x8000_0000,
        ArithOp::Abs => return a & 0x7fff_ffff,
        // Bit operations on float types are rejected by the front end; keep them total.
        ArithOp::And => return a & b,
        ArithOp::Or => return a | b,
        ArithOp::Xor => return a ^ b,
        ArithOp::Not => return !a,
        ArithOp::Rem | ArithOp::Shl | ArithOp::Shr => return canonical_nan(32) as u32,
    };
    let r = if fm.sat { sat_f32(r) } else { r };
    if r.is_nan() {
        return canonical_nan(32) as u32;
    }
    let bits = r.to_bits();
    if fm.ftz {
        flush_f32(bits)
    } else {
        bits
    }
}

pub(super) fn arith_f64(op: ArithOp, fm: FloatMode, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let nearest = is_nearest(fm.rnd);
    let rnd = round_of(fm.rnd);
    let ap = |v: f64| Double::from_bits(v.to_bits() as u128);
    let back = |v: Double| f64::from_bits(v.to_bits() as u64);
    let r: f64 = match op {
        ArithOp::Add if nearest => x + y,
        ArithOp::Add => back(ap(x).add_r(ap(y), rnd).value),
        ArithOp::Sub if nearest => x - y,
        ArithOp::Sub => back(ap(x).sub_r(ap(y), rnd).value),
        ArithOp::Mul(MulMode::Lo | MulMode::Hi | MulMode::Wide) if nearest => x * y,
        ArithOp::Mul(_) => back(ap(x).mul_r(ap(y), rnd).value),
        ArithOp::Fma | ArithOp::Mad(_) if nearest => x.mul_add(y, z),
        ArithOp::Fma | ArithOp::Mad(_) => back(ap(x).mul_add_r(ap(y), ap(z), rnd).value),
        ArithOp::Div(_) if nearest => x / y,
        ArithOp::Div(_) => back(ap(x).div_r(ap(y), rnd).value),
        ArithOp::Min | ArithOp::Max => {
            return minmax_bits(op == ArithOp::Max, x, y, a, b, canonical_nan(64));
        }
        // A NaN passes through, quieted (the ISA: "passed through unchanged"; an H100
        // sets the quiet bit: tests/golden).
        ArithOp::Neg | ArithOp::Abs if x.is_nan() => return a | QUIET64,
        ArithOp::Neg => return a ^ (1 << 63),
        ArithOp::Abs => return a & !(1 << 63),
        ArithOp::And => return a & b,
        ArithOp::Or => return a | b,
        ArithOp::Xor => return a ^ b,
        ArithOp::Not => return !a,
        ArithOp::Rem | ArithOp::Shl | ArithOp::Shr => return canonical_nan(64),
    };
    let r = if fm.sat { sat_f64(r) } else { r };
    if r.is_nan() {
        canonical_nan(64)
    } else {
        r.to_bits()
    }
}

/// Float comparison (operands already flushed if `.ftz`; f32 values widened exactly).
pub(super) fn compare(cmp: CmpOp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        CmpOp::Eq => a == b,
        CmpOp::Ne => !unordered && a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Equ => unordered || a == b,
        CmpOp::Neu => a != b,
        CmpOp::Ltu => unordered || a < b,
        CmpOp::Leu => unordered || a <= b,
        CmpOp::Gtu => unordered || a > b,
        CmpOp::Geu => unordered || a >= b,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

/// The `.approx` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApproxOp {
    Sqrt,
    Rcp,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

fn is_subnormal(x: f32) -> bool {
    x != 0.0 && x.is_finite() && !x.is_normal()
}

/// `op.approx{.ftz}.f32 d, a` on raw bits.
pub fn approx_f32(op: ApproxOp, ftz: bool, a: u32) -> u32 {
    let x = f32::from_bits(a);
    let x = if !ftz || op == ApproxOp::Tanh || !is_subnormal(x) {
        x
    } else {
        f32::from_bits(a & 0x8000_0000)
    };
    if x.is_nan() {
        return canonical_nan(32) as u32;
    }
    let d = x as f64;
    let r: f64 = match op {
        ApproxOp::Sqrt => {
            if d < 0.0 {
                f64::NAN
            } else {
                d.sqrt() // sqrt(-0.0) = -0.0, as the table says
            }
        }
        ApproxOp::Rcp => 1.0 / d,
        ApproxOp::Rsqrt => {
            if d == 0.0 {
                if d.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else if d < 0.0 {
                f64::NAN
            } else {
                1.0 / d.sqrt()
            }
        }
        ApproxOp::Sin => d.sin(),
        ApproxOp::Cos => d.cos(),
        // Fixed f64 sequences the JIT's vector code repeats bit for bit (`ops::approx`).
        ApproxOp::Lg2 => super::approx::lg2(d),
        ApproxOp::Ex2 => super::approx::ex2(d),
        ApproxOp::Tanh => d.tanh(),
    };
    let r = r as f32;
    if r.is_nan() {
        return canonical_nan(32) as u32;
    }
    if ftz {
        flush_f32(r.to_bits())
    } else {
        r.to_bits()
    }
}

/// `sqrt{.rnd}{.ftz}.f32`, correctly rounded (`None`/`.rn`: nearest even).
pub fn sqrt_f32(rnd: Option<Rnd>, ftz: bool, a: u32) -> u32 {
    let a = if ftz { flush_f32(a) } else { a };
    let x = f32::from_bits(a);
    if x.is_nan() || x < 0.0 {
        return canonical_nan(32) as u32;
    }
    let mut r = x.sqrt();
    if r.is_finite() && r != 0.0 {
        // r is exact in f64 and so is r*r (48 significant bits): compare with x exactly.
        let sq = r as f64 * r as f64;
        let x = x as f64;
        match rnd {
            Some(Rnd::Rz | Rnd::Rm) if sq > x => r = r.next_down(),
            Some(Rnd::Rp) if sq < x => r = r.next_up(),
            _ => {}
        }
    }
    if ftz {
        flush_f32(r.to_bits())
    } else {
        r.to_bits()
    }
}

/// `sqrt{.rnd}.f64`, correctly rounded.
pub fn sqrt_f64(rnd: Option<Rnd>, a: u64) -> u64 {
    let x = f64::from_bits(a);
    if x.is_nan() || x < 0.0 {
        return canonical_nan(64);
    }
    if x == 0.0 || x.is_infinite() {
        return x.sqrt().to_bits();
    }
    // Scale tiny inputs by 2^128 (sqrt scales by 2^64, exactly) so that r*r - x cannot
    // underflow and its sign is exact.
    let (xs, unscale) = if x < 2f64.powi(-900) {
        (x * 2f64.powi(128), 2f64.powi(-64))
    } else {
        (x, 1.0)
    };
    let mut r = xs.sqrt();
    let e = r.mul_add(r, -xs); // sign of r^2 - x, exact
    match rnd {
        Some(Rnd::Rz | Rnd::Rm) if e > 0.0 => r = r.next_down(),
        Some(Rnd::Rp) if e < 0.0 => r = r.next_up(),
        _ => {}
    }
    (r * unscale).to_bits()
}

/// `rcp{.rnd}{.ftz}.f32` (IEEE 1/x in the rounding mode).
pub fn rcp_f32(rnd: Option<Rnd>, ftz: bool, a: u32) -> u32 {
    let a = if ftz { flush_f32(a) } else { a };
    let r = Single::from_bits(1.0f32.to_bits() as u128)
        .div_r(Single::from_bits(a as u128), round_of(rnd))
        .value;
    let r = r.to_bits() as u32;
    if f32::from_bits(r).is_nan() {
        canonical_nan(32) as u32
    } else if ftz {
        flush_f32(r)
    } else {
        r
    }
}

/// `rcp{.rnd}.f64` (IEEE 1/x in the rounding mode).
pub fn rcp_f64(rnd: Option<Rnd>, a: u64) -> u64 {
    let r = Double::from_bits(1.0f64.to_bits() as u128)
        .div_r(Double::from_bits(a as u128), round_of(rnd))
        .value;
    let r = r.to_bits() as u64;
    if f64::from_bits(r).is_nan() {
        canonical_nan(64)
    } else {
        r
    }
}

/// `rcp.approx.ftz.f64` (`rsqrt` false) and `rsqrt.approx.ftz.f64`: the reciprocal (or
/// reciprocal square root) of the upper 32 bits of `a` (1.11.20 format), in the upper
/// 32 bits of the result, whose lower 32 bits are zero. Subnormal inputs and results
/// are flushed to sign-preserving zero; NaN results are `0x7fffffff00000000`, as the
/// ISA's tables say. The ISA only calls the value an approximation; here it is the
/// correctly rounded f64 result truncated to its upper word (relative error below
/// 2^-20). Not compared with a GPU.
pub fn approx_hi_f64(rsqrt: bool, a: u64) -> u64 {
    const HI: u64 = 0xffff_ffff_0000_0000;
    const NAN: u64 = 0x7fff_ffff_0000_0000;
    let mut x = f64::from_bits(a & HI);
    if x.is_nan() {
        return NAN;
    }
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        x = 0.0f64.copysign(x);
    }
    let r = if rsqrt { 1.0 / x.sqrt() } else { 1.0 / x };
    if r.is_nan() {
        return NAN;
    }
    let r = if r != 0.0 && r.abs() < f64::MIN_POSITIVE {
        0.0f64.copysign(r)
    } else {
        r
    };
    r.to_bits() & HI
}

/// The result of [`crate::ir::InstKind::Sfu`] on raw bits (f32 in the low 32 bits).
pub fn sfu(
    op: crate::ir::SfuOp,
    ty: crate::ir::Type,
    approx: bool,
    rnd: Option<Rnd>,
    ftz: bool,
    a: u64,
) -> u64 {
    use crate::ir::SfuOp;
    let f64_ty = ty == crate::ir::Type::F64;
    if approx {
        let aop = match op {
            SfuOp::Sqrt => ApproxOp::Sqrt,
            SfuOp::Rcp => ApproxOp::Rcp,
            SfuOp::Rsqrt => ApproxOp::Rsqrt,
            SfuOp::Sin => ApproxOp::Sin,
            SfuOp::Cos => ApproxOp::Cos,
            SfuOp::Lg2 => ApproxOp::Lg2,
            SfuOp::Ex2 => ApproxOp::Ex2,
            SfuOp::Tanh => ApproxOp::Tanh,
        };
        if f64_ty && ftz {
            return approx_hi_f64(op == SfuOp::Rsqrt, a);
        }
        if f64_ty {
            // `rsqrt.approx.f64` (the only other f64 .approx form the front end accepts):
            // computed as 1/sqrt(x) in f64 (within the GPU's documented approximation).
            let x = f64::from_bits(a);
            let r = if x == 0.0 {
                if x.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                1.0 / x.sqrt()
            };
            return if r.is_nan() {
                canonical_nan(64)
            } else {
                r.to_bits()
            };
        }
        return approx_f32(aop, ftz, a as u32) as u64;
    }
    match (op, f64_ty) {
        (SfuOp::Sqrt, false) => sqrt_f32(rnd, ftz, a as u32) as u64,
        (SfuOp::Sqrt, true) => sqrt_f64(rnd, a),
        (SfuOp::Rcp, false) => rcp_f32(rnd, ftz, a as u32) as u64,
        (SfuOp::Rcp, true) => rcp_f64(rnd, a),
        // The front end accepts the other functions only in their .approx forms.
        _ => canonical_nan(if f64_ty { 64 } else { 32 }),
    }
}

/// Packs an `Sfu` instruction's parameters for a JIT helper.
pub fn sfu_encode(
    op: crate::ir::SfuOp,
    ty: crate::ir::Type,
    approx: bool,
    rnd: Option<Rnd>,
    ftz: bool,
) -> u64 {
    use crate::ir::SfuOp::*;
    let o = [Sqrt, Rcp, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh]
        .iter()
        .position(|&x| x == op)
        .unwrap_or(0) as u64;
    let r = match rnd {
        None => 0,
        Some(Rnd::Rn) => 1,
        Some(Rnd::Rz) => 2,
        Some(Rnd::Rm) => 3,
        Some(Rnd::Rp) => 4,
        Some(_) => 0,
    };
    o | ((ty == crate::ir::Type::F64) as u64) << 4
        | (approx as u64) << 5
        | (ftz as u64) << 6
        | r << 8
}

/// Inverse of [`sfu_encode`].
pub fn sfu_decode(d: u64) -> (crate::ir::SfuOp, crate::ir::Type, bool, Option<Rnd>, bool) {
    use crate::ir::SfuOp::*;
    let op = [Sqrt, Rcp, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh][(d & 7) as usize];
    let ty = if d >> 4 & 1 == 1 {
        crate::ir::Type::F64
    } else {
        crate::ir::Type::F32
    };
    let rnd = match d >> 8 & 7 {
        1 => Some(Rnd::Rn),
        2 => Some(Rnd::Rz),
        3 => Some(Rnd::Rm),
        4 => Some(Rnd::Rp),
        _ => None,
    };
    (op, ty, d >> 5 & 1 == 1, rnd, d >> 6 & 1 == 1)
}

/// `min`/`max` with the modifiers of `op` on operands of type `ty` (the element type
/// `U16`/`S16` for packed forms, whose operands are 32-bit).
pub fn minmax(op: MinMaxOp, ty: Type, a: u64, b: u64) -> u64 {
    if op.packed {
        let lo = minmax_int(op, ty, a & 0xffff, b & 0xffff);
        let hi = minmax_int(op, ty, (a >> 16) & 0xffff, (b >> 16) & 0xffff);
        return lo | hi << 16;
    }
    match ty {
        Type::F32 | Type::F64 => minmax_float(op, ty, a, b),
        _ => minmax_int(op, ty, a, b),
    }
}

fn plain(op: MinMaxOp) -> ArithOp {
    if op.max {
        ArithOp::Max
    } else {
        ArithOp::Min
    }
}

fn minmax_int(op: MinMaxOp, ty: Type, a: u64, b: u64) -> u64 {
    let w = ty.bits().clamp(1, 64);
    let r = crate::ops::arith(plain(op), ty, FloatMode::default(), a, b, 0) & mask(w);
    if op.relu && ty.is_signed() && sext(r, w) < 0 {
        0
    } else {
        r
    }
}

fn is_nan(w: u32, x: u64) -> bool {
    let sign = 1u64 << (w - 1);
    (x & !sign & mask(w)) > exp_mask(w)
}

fn exp_mask(w: u32) -> u64 {
    if w == 32 {
        0x7f80_0000
    } else {
        0x7ff0_0000_0000_0000
    }
}

fn minmax_float(op: MinMaxOp, ty: Type, a: u64, b: u64) -> u64 {
    let w = ty.bits();
    let sign = 1u64 << (w - 1);
    let (a, b) = if op.ftz && w == 32 {
        (flush_f32(a as u32) as u64, flush_f32(b as u32) as u64)
    } else {
        (a, b)
    };
    let xs = (a ^ b) & sign;
    let (a, b) = if op.xorsign_abs {
        (a & !sign, b & !sign)
    } else {
        (a, b)
    };
    if op.nan && (is_nan(w, a) || is_nan(w, b)) {
        return canonical_nan(w);
    }
    let d = crate::ops::arith(plain(op), ty, FloatMode::default(), a, b, 0);
    if op.xorsign_abs && !is_nan(w, d) {
        (d & !sign) | xs
    } else {
        d
    }
}

/// `copysign.type d, a, b`: `b` with the sign bit of `a` (`ty` is `.f32` or `.f64`).
pub fn copysign(ty: Type, a: u64, b: u64) -> u64 {
    let w = ty.bits().clamp(1, 64);
    let sign = 1u64 << (w - 1);
    ((b & !sign) | (a & sign)) & mask(w)
}

/// `testp.op.type a` (`ty` is `.f32` or `.f64`).
pub fn testp(op: TestpOp, ty: Type, a: u64) -> bool {
    let w = ty.bits().clamp(1, 64);
    let x = a & mask(w - 1); // magnitude bits
    let e = exp_mask(w);
    let min_normal = if w == 32 { 0x0080_0000 } else { 1 << 52 };
    match op {
        TestpOp::Finite => x < e,
        TestpOp::Infinite => x == e,
        TestpOp::Number => x <= e,
        TestpOp::NotANumber => x > e,
        TestpOp::Normal => x == 0 || (min_normal..e).contains(&x),
        TestpOp::Subnormal => x != 0 && x < min_normal,
    }
}

#[cfg(test)]
#[path = "float_tests.rs"]
mod tests;
