//! The integer family's semantics: `add sub mul mad div rem abs neg min max` on
//! integers, and `and or xor not` on predicates (`arith`, `pred`), integer
//! comparisons; the bit-manipulation and packed-integer operations of
//! [`crate::ir::BitOp`] are in [`bits`].

pub mod bits;

use super::{mask, sext};
use crate::ir::{ArithOp, CmpOp, MulMode, Type};

/// Product of `a` and `b` of width `w` as a 128-bit value of width `2w`, signed or not.
fn full_product(signed: bool, w: u32, a: u64, b: u64) -> u128 {
    if signed {
        (sext(a, w) as i128 * sext(b, w) as i128) as u128
    } else {
        (a & mask(w)) as u128 * (b & mask(w)) as u128
    }
}

fn mul(mode: MulMode, signed: bool, w: u32, a: u64, b: u64) -> u64 {
    let p = full_product(signed, w, a, b);
    match mode {
        MulMode::Lo => (p as u64) & mask(w),
        MulMode::Hi => ((p >> w) as u64) & mask(w),
        MulMode::Wide => (p as u64) & mask(2 * w),
    }
}

pub(super) fn arith(op: ArithOp, ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let w = ty.bits().min(64);
    let m = mask(w);
    let signed = ty.is_signed();
    let (sa, sb) = (sext(a, w), sext(b, w));
    let (ua, ub) = (a & m, b & m);
    let r = match op {
        ArithOp::Add => ua.wrapping_add(ub),
        ArithOp::Sub => ua.wrapping_sub(ub),
        ArithOp::Mul(mode) => return mul(mode, signed, w, a, b),
        ArithOp::Mad(MulMode::Wide) => {
            return mul(MulMode::Wide, signed, w, a, b).wrapping_add(c) & mask(2 * w);
        }
        ArithOp::Mad(mode) => mul(mode, signed, w, a, b).wrapping_add(c),
        ArithOp::Fma => ua.wrapping_mul(ub).wrapping_add(c),
        ArithOp::Div(_) => {
            if ub == 0 {
                m
            } else if signed {
                sa.wrapping_div(sb) as u64
            } else {
                ua / ub
            }
        }
        ArithOp::Rem => {
            if ub == 0 {
                ua
            } else if signed {
                sa.wrapping_rem(sb) as u64
            } else {
                ua % ub
            }
        }
        ArithOp::Min => {
            if signed {
                sa.min(sb) as u64
            } else {
                ua.min(ub)
            }
        }
        ArithOp::Max => {
            if signed {
                sa.max(sb) as u64
            } else {
                ua.max(ub)
            }
        }
        ArithOp::Neg => 0u64.wrapping_sub(ua),
        ArithOp::Abs => {
            if signed {
                sa.wrapping_abs() as u64
            } else {
                ua
            }
        }
        ArithOp::And => ua & ub,
        ArithOp::Or => ua | ub,
        ArithOp::Xor => ua ^ ub,
        ArithOp::Not => !ua,
        ArithOp::Shl => {
            let s = b & 0xffff_ffff;
            if s >= w as u64 {
                0
            } else {
                ua << s
            }
        }
        ArithOp::Shr => {
            let s = b & 0xffff_ffff;
            if signed {
                // Amounts >= the width fill with the sign bit.
                (sa >> s.min(63)) as u64
            } else if s >= w as u64 {
                0
            } else {
                ua >> s
            }
        }
    };
    r & m
}

/// Predicate logic (`and/or/xor/not` on `.pred`); values are 0 or 1.
pub(super) fn pred(op: ArithOp, a: u64, b: u64) -> u64 {
    match op {
        ArithOp::And => a & b,
        ArithOp::Or => a | b,
        ArithOp::Xor => a ^ b,
        ArithOp::Not => a ^ 1,
        _ => a,
    }
}

pub(super) fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64) -> bool {
    let w = ty.bits().min(64);
    if ty.is_signed() {
        let (x, y) = (sext(a, w), sext(b, w));
        ordering(cmp, x.cmp(&y))
    } else {
        let (x, y) = (a & mask(w), b & mask(w));
        ordering(cmp, x.cmp(&y))
    }
}

fn ordering(cmp: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cmp {
        CmpOp::Eq | CmpOp::Equ => o == Equal,
        CmpOp::Ne | CmpOp::Neu => o != Equal,
        CmpOp::Lt | CmpOp::Ltu => o == Less,
        CmpOp::Le | CmpOp::Leu => o != Greater,
        CmpOp::Gt | CmpOp::Gtu => o == Greater,
        CmpOp::Ge | CmpOp::Geu => o != Less,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}
