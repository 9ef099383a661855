//! Hand-checked values for the scalar semantics (the arithmetic is in the comments).

use super::*;
use crate::ir::{ArithOp as A, CmpOp as C, FloatMode, MulMode, Rnd, Type as T};

const RN: FloatMode = FloatMode {
    rnd: None,
    ftz: false,
    sat: false,
};

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}

#[test]
fn integer_wrapping_and_widths() {
    // 0xffff_ffff + 1 wraps to 0 in 32 bits.
    assert_eq!(arith(A::Add, T::U32, RN, 0xffff_ffff, 1, 0), 0);
    // s16: 0x7fff + 1 = 0x8000 (wraps to -32768), result kept as 16 bits.
    assert_eq!(arith(A::Add, T::S16, RN, 0x7fff, 1, 0), 0x8000);
    // mul.hi.u32 0xffff_ffff * 0xffff_ffff = 0xffff_fffe_0000_0001 -> hi 0xffff_fffe.
    assert_eq!(
        arith(A::Mul(MulMode::Hi), T::U32, RN, 0xffff_ffff, 0xffff_ffff, 0),
        0xffff_fffe
    );
    // mul.hi.s32 -1 * -1 = 1 -> hi 0.
    assert_eq!(
        arith(A::Mul(MulMode::Hi), T::S32, RN, 0xffff_ffff, 0xffff_ffff, 0),
        0
    );
    // mul.hi.s32 -2 * 3 = -6 = 0xffff_ffff_ffff_fffa -> hi 0xffff_ffff.
    assert_eq!(
        arith(A::Mul(MulMode::Hi), T::S32, RN, 0xffff_fffe, 3, 0),
        0xffff_ffff
    );
    // mul.wide.s32 -2 * 3 = -6 in 64 bits.
    assert_eq!(
        arith(A::Mul(MulMode::Wide), T::S32, RN, 0xffff_fffe, 3, 0),
        (-6i64) as u64
    );
    // mul.wide.u16 0xffff * 0xffff = 0xfffe_0001.
    assert_eq!(
        arith(A::Mul(MulMode::Wide), T::U16, RN, 0xffff, 0xffff, 0),
        0xfffe_0001
    );
    // mul.hi.u64 (2^64-1)^2 = 2^128 - 2^65 + 1 -> hi = 2^64 - 2.
    assert_eq!(
        arith(A::Mul(MulMode::Hi), T::U64, RN, u64::MAX, u64::MAX, 0),
        u64::MAX - 1
    );
    // mad.lo.s32 3*4+(-20) = -8.
    assert_eq!(
        arith(
            A::Mad(MulMode::Lo),
            T::S32,
            RN,
            3,
            4,
            (-20i32) as u32 as u64
        ),
        (-8i32) as u32 as u64
    );
    // mad.wide.u32 0xffff_ffff*2 + 3 = 0x1_ffff_fffe + 3 = 0x2_0000_0001.
    assert_eq!(
        arith(A::Mad(MulMode::Wide), T::U32, RN, 0xffff_ffff, 2, 3),
        0x2_0000_0001
    );
    // mad.hi.u32: hi(0x8000_0000 * 4) = 2, + 5 = 7.
    assert_eq!(arith(A::Mad(MulMode::Hi), T::U32, RN, 0x8000_0000, 4, 5), 7);
    // min/max signed vs unsigned on 0xffff_ffff and 1.
    assert_eq!(arith(A::Min, T::S32, RN, 0xffff_ffff, 1, 0), 0xffff_ffff);
    assert_eq!(arith(A::Min, T::U32, RN, 0xffff_ffff, 1, 0), 1);
    assert_eq!(arith(A::Abs, T::S32, RN, 0x8000_0000, 0, 0), 0x8000_0000);
    assert_eq!(arith(A::Neg, T::S32, RN, 1, 0, 0), 0xffff_ffff);
}

#[test]
fn shifts_clamp() {
    assert_eq!(arith(A::Shl, T::B32, RN, 1, 31, 0), 0x8000_0000);
    assert_eq!(arith(A::Shl, T::B32, RN, 1, 32, 0), 0);
    assert_eq!(arith(A::Shl, T::B32, RN, 1, 0xffff_ffff, 0), 0);
    assert_eq!(arith(A::Shr, T::U32, RN, 0x8000_0000, 33, 0), 0);
    assert_eq!(arith(A::Shr, T::S32, RN, 0x8000_0000, 33, 0), 0xffff_ffff);
    assert_eq!(arith(A::Shr, T::S32, RN, 0x8000_0000, 4, 0), 0xf800_0000);
    assert_eq!(arith(A::Shr, T::S64, RN, 1 << 63, 200, 0), u64::MAX);
    assert_eq!(arith(A::Shr, T::S16, RN, 0x8000, 15, 0), 0xffff);
    assert_eq!(arith(A::Shl, T::B16, RN, 0x8001, 1, 0), 0x0002);
}

#[test]
fn float_min_max_nan_and_zero() {
    let nan = f32::NAN.to_bits() as u64;
    assert_eq!(arith(A::Min, T::F32, RN, nan, f(1.0), 0), f(1.0));
    assert_eq!(arith(A::Max, T::F32, RN, f(2.0), nan, 0), f(2.0));
    assert_eq!(arith(A::Min, T::F32, RN, nan, nan, 0), 0x7fff_ffff);
    assert_eq!(arith(A::Min, T::F32, RN, f(0.0), f(-0.0), 0), f(-0.0));
    assert_eq!(arith(A::Max, T::F32, RN, f(-0.0), f(0.0), 0), f(0.0));
    // Any NaN produced by arithmetic is the canonical 0x7fffffff.
    assert_eq!(
        arith(
            A::Add,
            T::F32,
            RN,
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0
        ),
        0x7fff_ffff
    );
    assert_eq!(
        arith(A::Mul(MulMode::Lo), T::F32, RN, 0xffc0_0001, f(1.0), 0),
        0x7fff_ffff
    );
}

#[test]
fn float_ftz_sat_and_rounding() {
    let sub = 1u64; // smallest positive subnormal f32
                    // ftz flushes the input: 2^-149 + 0 = +0.
    assert_eq!(
        arith(A::Add, T::F32, FloatMode { ftz: true, ..RN }, sub, 0, 0),
        0
    );
    assert_eq!(arith(A::Add, T::F32, RN, sub, 0, 0), 1);
    // sat: 1.5 -> 1.0, -3 -> +0, NaN -> +0.
    let sat = FloatMode { sat: true, ..RN };
    assert_eq!(arith(A::Add, T::F32, sat, f(1.0), f(0.5), 0), f(1.0));
    assert_eq!(arith(A::Add, T::F32, sat, f(-1.0), f(-2.0), 0), 0);
    assert_eq!(
        arith(
            A::Add,
            T::F32,
            sat,
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0
        ),
        0
    );
    // 1 + 2^-24 is exactly halfway between 1 and 1+2^-23: RN -> 1 (even), RP -> 1+2^-23.
    let tiny = f(2f32.powi(-24));
    assert_eq!(arith(A::Add, T::F32, RN, f(1.0), tiny, 0), f(1.0));
    let rp = FloatMode {
        rnd: Some(Rnd::Rp),
        ..RN
    };
    assert_eq!(arith(A::Add, T::F32, rp, f(1.0), tiny, 0), f(1.0) + 1);
    let rz = FloatMode {
        rnd: Some(Rnd::Rz),
        ..RN
    };
    // 1/3 rounded toward zero is one ulp below round-to-nearest's 0x3eaaaaab.
    assert_eq!(
        arith(
            A::Div(crate::ir::DivMode::Ieee),
            T::F32,
            rz,
            f(1.0),
            f(3.0),
            0
        ),
        0x3eaa_aaaa
    );
    assert_eq!(
        arith(
            A::Div(crate::ir::DivMode::Ieee),
            T::F32,
            RN,
            f(1.0),
            f(3.0),
            0
        ),
        0x3eaa_aaab
    );
    // fma is fused: (1+2^-23)*(1-2^-23) - 1 = -2^-46 exactly, not 0.
    let a = f(1.0 + 2f32.powi(-23));
    let b = f(1.0 - 2f32.powi(-23));
    assert_eq!(
        arith(A::Fma, T::F32, RN, a, b, f(-1.0)),
        f(-(2f32.powi(-46)))
    );
}

#[test]
fn comparisons() {
    let nan = f32::NAN.to_bits() as u64;
    assert!(!setp(C::Eq, T::F32, false, nan, nan));
    assert!(!setp(C::Ne, T::F32, false, nan, f(1.0)));
    assert!(setp(C::Neu, T::F32, false, nan, f(1.0)));
    assert!(setp(C::Equ, T::F32, false, nan, f(1.0)));
    assert!(setp(C::Nan, T::F32, false, f(1.0), nan));
    assert!(setp(C::Num, T::F32, false, f(1.0), f(2.0)));
    assert!(setp(C::Eq, T::F32, false, f(0.0), f(-0.0)));
    assert!(setp(C::Lt, T::S32, false, 0xffff_ffff, 0));
    assert!(!setp(C::Lt, T::U32, false, 0xffff_ffff, 0));
    assert!(setp(C::Lt, T::S16, false, 0x8000, 0x7fff));
    // ftz: the subnormal compares equal to zero.
    assert!(setp(C::Eq, T::F32, true, 1, 0));
    assert!(!setp(C::Eq, T::F32, false, 1, 0));
}

#[test]
fn conversions() {
    // Integer widths: sign extension, zero extension, truncation, saturation.
    assert_eq!(cvt(T::S32, T::S8, None, false, false, 0x80), 0xffff_ff80);
    assert_eq!(cvt(T::U32, T::U8, None, false, false, 0x80), 0x80);
    assert_eq!(cvt(T::U16, T::U32, None, false, false, 0x12345), 0x2345);
    assert_eq!(
        cvt(T::S64, T::S32, None, false, false, 0xffff_ffff),
        u64::MAX
    );
    assert_eq!(cvt(T::S8, T::S32, None, false, true, 300), 127);
    assert_eq!(cvt(T::U8, T::S32, None, false, true, 0xffff_ffff), 0);
    // Float -> int: rounding, saturation, NaN -> 0.
    assert_eq!(cvt(T::S32, T::F32, Some(Rnd::Rni), false, false, f(2.5)), 2);
    assert_eq!(cvt(T::S32, T::F32, Some(Rnd::Rni), false, false, f(3.5)), 4);
    assert_eq!(
        cvt(T::S32, T::F32, Some(Rnd::Rzi), false, false, f(-2.7)),
        (-2i32) as u32 as u64
    );
    assert_eq!(
        cvt(T::S32, T::F32, Some(Rnd::Rmi), false, false, f(-2.2)),
        (-3i32) as u32 as u64
    );
    assert_eq!(cvt(T::S32, T::F32, Some(Rnd::Rpi), false, false, f(2.2)), 3);
    assert_eq!(
        cvt(T::S32, T::F32, Some(Rnd::Rzi), false, false, f(3e9)),
        0x7fff_ffff
    );
    assert_eq!(
        cvt(T::U32, T::F32, Some(Rnd::Rzi), false, false, f(-5.0)),
        0
    );
    assert_eq!(
        cvt(
            T::S32,
            T::F32,
            Some(Rnd::Rzi),
            false,
            false,
            f32::NAN.to_bits() as u64
        ),
        0
    );
    assert_eq!(
        cvt(
            T::U64,
            T::F64,
            Some(Rnd::Rzi),
            false,
            false,
            1e30f64.to_bits()
        ),
        u64::MAX
    );
    // rpi of the smallest subnormal is 1, but 0 with .ftz.
    assert_eq!(cvt(T::S32, T::F32, Some(Rnd::Rpi), false, false, 1), 1);
    assert_eq!(cvt(T::S32, T::F32, Some(Rnd::Rpi), true, false, 1), 0);
    // Int -> float: 2^24+1 is not representable in f32: RN -> 2^24 (even), RP -> 2^24+2.
    let v = (1u64 << 24) + 1;
    assert_eq!(
        cvt(T::F32, T::U32, Some(Rnd::Rn), false, false, v),
        f(16777216.0)
    );
    assert_eq!(
        cvt(T::F32, T::U32, Some(Rnd::Rp), false, false, v),
        f(16777218.0)
    );
    assert_eq!(
        cvt(T::F32, T::U32, Some(Rnd::Rz), false, false, v),
        f(16777216.0)
    );
    // -(2^24+1) toward minus infinity is -(2^24+2).
    let nv = (-(16777217i32)) as u32 as u64;
    assert_eq!(
        cvt(T::F32, T::S32, Some(Rnd::Rm), false, false, nv),
        f(-16777218.0)
    );
    // u64::MAX to f64 toward zero: 2^64 - 2048 (the largest f64 below 2^64).
    assert_eq!(
        cvt(T::F64, T::U64, Some(Rnd::Rz), false, false, u64::MAX),
        (18446744073709549568.0f64).to_bits()
    );
    assert_eq!(
        cvt(T::F64, T::U64, Some(Rnd::Rn), false, false, u64::MAX),
        (18446744073709551616.0f64).to_bits()
    );
    // f64 -> f32: 1 + 2^-30 is between 1 and 1+2^-23: RN/RZ -> 1, RP -> 1+2^-23.
    let d = (1.0f64 + 2f64.powi(-30)).to_bits();
    assert_eq!(cvt(T::F32, T::F64, Some(Rnd::Rn), false, false, d), f(1.0));
    assert_eq!(
        cvt(T::F32, T::F64, Some(Rnd::Rp), false, false, d),
        f(1.0) + 1
    );
    // Overflow: 1e300 -> inf (RN) or f32::MAX (RZ).
    assert_eq!(
        cvt(
            T::F32,
            T::F64,
            Some(Rnd::Rn),
            false,
            false,
            1e300f64.to_bits()
        ),
        f(f32::INFINITY)
    );
    assert_eq!(
        cvt(
            T::F32,
            T::F64,
            Some(Rnd::Rz),
            false,
            false,
            1e300f64.to_bits()
        ),
        f(f32::MAX)
    );
    // f32 -> f64 is exact; NaN becomes canonical.
    assert_eq!(
        cvt(T::F64, T::F32, None, false, false, f(0.1)),
        (0.1f32 as f64).to_bits()
    );
    assert_eq!(
        cvt(T::F64, T::F32, None, false, false, 0xffc0_0000),
        canonical_nan(64)
    );
    // Same-size integral rounding.
    assert_eq!(
        cvt(T::F32, T::F32, Some(Rnd::Rni), false, false, f(2.5)),
        f(2.0)
    );
    assert_eq!(
        cvt(T::F32, T::F32, Some(Rnd::Rmi), false, false, f(-0.5)),
        f(-1.0)
    );
    assert_eq!(
        cvt(T::F32, T::F32, Some(Rnd::Rzi), false, false, f(-0.5)),
        f(-0.0)
    );
}

#[test]
fn f16_widening_is_exact() {
    use super::f16_to_f64;
    // 1.0, the smallest subnormal 2^-24, the largest subnormal (1023 * 2^-24), the
    // smallest normal 2^-14, the largest finite 65504 = (2 - 2^-10) * 2^15, -2.0.
    assert_eq!(f16_to_f64(0x3c00), 1.0);
    assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(f16_to_f64(0x03ff), 1023.0 * 2f64.powi(-24));
    assert_eq!(f16_to_f64(0x0400), 2f64.powi(-14));
    assert_eq!(f16_to_f64(0x7bff), 65504.0);
    assert_eq!(f16_to_f64(0xc000), -2.0);
    assert_eq!(f16_to_f64(0xfc00), f64::NEG_INFINITY);
    assert!(f16_to_f64(0x7c01).is_nan());
    assert_eq!(f16_to_f64(0x8000).to_bits(), (-0.0f64).to_bits());
    // set: 0xffffffff for integer destinations, 1.0f for .f32.
    assert_eq!(super::set_value(crate::ir::Type::U32, true), 0xffff_ffff);
    assert_eq!(super::set_value(crate::ir::Type::F32, true), 0x3f80_0000);
    assert_eq!(super::set_value(crate::ir::Type::S32, false), 0);
}
