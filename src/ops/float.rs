//! The floating-point family's semantics: f32 and f64 arithmetic with PTX rounding,
//! NaN, `.ftz` and `.sat` rules; the special functions in [`special`]; `min`/`max` with
//! modifiers (their integer `.relu` and packed forms too), `copysign` and `testp` in
//! [`minmax`].

pub mod minmax;
pub mod special;

use crate::ir::{ArithOp, CmpOp, DivMode, FloatMode, MulMode, Rnd};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};

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
