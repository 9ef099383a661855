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

use crate::ir::{ArithOp, FloatMode, MinMaxOp, TestpOp, Type};
use crate::ops::{canonical_nan, flush_f32, mask, sext};

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
mod tests {
    //! Oracle: Rust's `f32`/`f64` classification and comparisons, with the PTX rules
    //! spelled out case by case.
    use super::*;

    const SPECIAL: [u32; 14] = [
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
    ];

    #[test]
    fn testp_matches_classify() {
        use std::num::FpCategory::*;
        for hi in 0..=0xffffu32 {
            for lo in [0u32, 1, 0x8000, 0xffff] {
                let x = hi << 16 | lo;
                let f = f32::from_bits(x);
                let c = f.classify();
                let t = |op| testp(op, Type::F32, x as u64);
                assert_eq!(t(TestpOp::Finite), f.is_finite());
                assert_eq!(t(TestpOp::Infinite), f.is_infinite());
                assert_eq!(t(TestpOp::Number), !f.is_nan());
                assert_eq!(t(TestpOp::NotANumber), f.is_nan());
                assert_eq!(t(TestpOp::Normal), c == Normal || c == Zero);
                assert_eq!(t(TestpOp::Subnormal), c == Subnormal);
                let d = (f as f64).to_bits();
                let g = f64::from_bits(d);
                assert_eq!(
                    testp(TestpOp::Normal, Type::F64, d),
                    g.is_normal() || g == 0.0
                );
                assert_eq!(testp(TestpOp::NotANumber, Type::F64, d), g.is_nan());
            }
        }
        assert!(testp(TestpOp::Subnormal, Type::F64, 1));
        assert!(!testp(TestpOp::Normal, Type::F64, 0x000f_ffff_ffff_ffff));
    }

    #[test]
    fn nan_and_xorsign_forms() {
        let nan = 0x7fff_ffffu64;
        for &a in &SPECIAL {
            for &b in &SPECIAL {
                let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                for max in [false, true] {
                    let op = MinMaxOp {
                        max,
                        ..Default::default()
                    };
                    let plain = minmax(op, Type::F32, a as u64, b as u64);
                    let with_nan =
                        minmax(MinMaxOp { nan: true, ..op }, Type::F32, a as u64, b as u64);
                    if fa.is_nan() || fb.is_nan() {
                        assert_eq!(with_nan, nan);
                    } else {
                        assert_eq!(with_nan, plain);
                    }
                    let xa = minmax(
                        MinMaxOp {
                            xorsign_abs: true,
                            ..op
                        },
                        Type::F32,
                        a as u64,
                        b as u64,
                    );
                    let (ma, mb) = (fa.abs(), fb.abs());
                    let want = if ma.is_nan() && mb.is_nan() {
                        nan as u32
                    } else {
                        let m = if ma.is_nan() {
                            mb
                        } else if mb.is_nan() || (ma < mb) != max {
                            ma
                        } else {
                            mb
                        };
                        m.to_bits() | ((a ^ b) & 0x8000_0000)
                    };
                    assert_eq!(xa, want as u64, "{a:#x} {b:#x} max={max}");
                }
            }
        }
        // min.xorsign.abs(-3, 2) = -2; max.xorsign.abs(-3, -2) = +3.
        let x = |max, a: f32, b: f32| {
            let op = MinMaxOp {
                max,
                xorsign_abs: true,
                ..Default::default()
            };
            f32::from_bits(minmax(op, Type::F32, a.to_bits() as u64, b.to_bits() as u64) as u32)
        };
        assert_eq!(x(false, -3.0, 2.0), -2.0);
        assert_eq!(x(true, -3.0, -2.0), 3.0);
    }

    #[test]
    fn relu_packed_copysign() {
        let op = |max, relu, packed| MinMaxOp {
            max,
            relu,
            packed,
            ..Default::default()
        };
        assert_eq!(minmax(op(false, true, false), Type::S32, 0xffff_fffe, 5), 0);
        assert_eq!(minmax(op(true, true, false), Type::S32, 0xffff_fffe, 5), 5);
        // halves (lo, hi): a = (-2, 7), b = (3, -9).
        let (a, b) = (0x0007_fffe, 0xfff7_0003);
        assert_eq!(minmax(op(false, false, true), Type::S16, a, b), 0xfff7_fffe);
        assert_eq!(minmax(op(false, true, true), Type::S16, a, b), 0);
        assert_eq!(minmax(op(true, false, true), Type::S16, a, b), 0x0007_0003);
        assert_eq!(minmax(op(false, false, true), Type::U16, a, b), 0x0007_0003);
        assert_eq!(copysign(Type::F32, 0x8000_0000, 0x7fc0_0001), 0xffc0_0001);
        assert_eq!(
            copysign(Type::F64, 0, 0xbff0_0000_0000_0000),
            0x3ff0_0000_0000_0000
        );
    }
}
