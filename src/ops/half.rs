//! Half-precision arithmetic (`.f16`, `.bf16` and the packed `.f16x2`, `.bf16x2` forms):
//! `add sub mul fma neg abs min max` with `.rn`, `.ftz`, `.sat`, `.relu`, `.NaN` and
//! `.xorsign.abs`, and `ex2.approx`, `tanh.approx` ([`crate::ir::InstKind::Half`]).
//!
//! Rules (PTX ISA, "Half Precision Floating Point Instructions"):
//! - `add sub mul fma` round once, to nearest even (`.rn` is the only rounding modifier
//!   PTX has for them), computed by rustc_apfloat in the half format itself;
//! - a NaN result is the canonical NaN 0x7fff (f16 and bf16 alike: CUDA's
//!   `CUDART_NAN_FP16` / `CUDART_NAN_BF16`), as ptxjit does for f32 (0x7fffffff);
//! - `.ftz` flushes subnormal inputs and results to a zero of the same sign;
//! - `.sat` clamps the result to [+0.0, 1.0]; NaN and -0.0 become +0.0 (as `cvt.sat`);
//! - `.relu` turns a negative result, and -0.0, into +0.0, and NaN into the canonical
//!   NaN;
//! - `neg`/`abs` only flip/clear the sign bit (the manual leaves the NaN they return
//!   unspecified; this keeps the payload, as the f32 forms do);
//! - `min`/`max`: a NaN operand loses to a number, two NaNs give the canonical NaN,
//!   -0.0 < +0.0; `.NaN` makes any NaN operand give the canonical NaN; `.xorsign.abs`
//!   compares |a| and |b| and gives the result (unless NaN) the sign of a XOR b.
//!
//! `ex2.approx` and `tanh.approx` are computed with the host's f64 `exp2`/`tanh` and
//! rounded once to the half format: the result is the correctly rounded value unless the
//! exact one lies within libm's f64 error (≈2^-52 relative) of a rounding boundary, so
//! the error is at most 0.5 ulp plus that, inside the manual's bounds (`ex2`: 2^-9.9
//! relative for f16, 2^-7 for bf16; `tanh`: 2^-10.987 absolute for f16, 2^-8 for bf16)
//! for every result in the normal range. `ex2.approx.ftz.bf16` flushes subnormal inputs
//! and results; the f16 forms and `tanh` keep subnormals, as the manual says.

use crate::ir::{HalfMode, HalfOp, Type};
use rustc_apfloat::ieee::{BFloat, Double, Half};
use rustc_apfloat::{Float, FloatConvert, Round};

/// Which 16-bit format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfKind {
    F16,
    BF16,
}

impl HalfKind {
    /// The format of a half-precision instruction type and whether it is packed
    /// (`.f16x2`, `.bf16x2`); `None` for other types.
    pub fn of(ty: Type) -> Option<(HalfKind, bool)> {
        Some(match ty {
            Type::F16 => (HalfKind::F16, false),
            Type::F16x2 => (HalfKind::F16, true),
            Type::BF16 => (HalfKind::BF16, false),
            Type::BF16x2 => (HalfKind::BF16, true),
            _ => return None,
        })
    }

    fn exp_mask(self) -> u16 {
        match self {
            HalfKind::F16 => 0x7c00,
            HalfKind::BF16 => 0x7f80,
        }
    }

    /// The bits of 1.0.
    pub fn one(self) -> u16 {
        match self {
            HalfKind::F16 => 0x3c00,
            HalfKind::BF16 => 0x3f80,
        }
    }
}

/// The canonical NaN of both 16-bit formats.
pub const HALF_CANONICAL_NAN: u16 = 0x7fff;

/// True when `x` is a NaN of format `k`.
pub fn is_nan(k: HalfKind, x: u16) -> bool {
    let e = k.exp_mask();
    x & e == e && x & !e & 0x7fff != 0
}

/// Flushes a subnormal to sign-preserving zero.
pub fn flush(k: HalfKind, x: u16) -> u16 {
    if x & k.exp_mask() == 0 {
        x & 0x8000
    } else {
        x
    }
}

/// The value of `x` as an f64 (exact: every f16 and bf16 value is an f64).
pub fn to_f64(k: HalfKind, x: u16) -> f64 {
    let mut lost = false;
    let d: Double = match k {
        HalfKind::F16 => {
            Half::from_bits(x as u128)
                .convert_r(Round::NearestTiesToEven, &mut lost)
                .value
        }
        HalfKind::BF16 => {
            BFloat::from_bits(x as u128)
                .convert_r(Round::NearestTiesToEven, &mut lost)
                .value
        }
    };
    f64::from_bits(d.to_bits() as u64)
}

/// `v` rounded to nearest even into format `k` (NaN becomes the canonical NaN).
fn from_f64(k: HalfKind, v: f64) -> u16 {
    if v.is_nan() {
        return HALF_CANONICAL_NAN;
    }
    let mut lost = false;
    let d = Double::from_bits(v.to_bits() as u128);
    match k {
        HalfKind::F16 => {
            let h: Half = d.convert_r(Round::NearestTiesToEven, &mut lost).value;
            h.to_bits() as u16
        }
        HalfKind::BF16 => {
            let b: BFloat = d.convert_r(Round::NearestTiesToEven, &mut lost).value;
            b.to_bits() as u16
        }
    }
}

fn arith3(k: HalfKind, op: HalfOp, a: u16, b: u16, c: u16) -> u16 {
    macro_rules! go {
        ($t:ty) => {{
            let (x, y, z) = (
                <$t>::from_bits(a as u128),
                <$t>::from_bits(b as u128),
                <$t>::from_bits(c as u128),
            );
            let r = Round::NearestTiesToEven;
            let v = match op {
                HalfOp::Add => x.add_r(y, r).value,
                HalfOp::Sub => x.sub_r(y, r).value,
                HalfOp::Mul => x.mul_r(y, r).value,
                _ => x.mul_add_r(y, z, r).value,
            };
            v.to_bits() as u16
        }};
    }
    match k {
        HalfKind::F16 => go!(Half),
        HalfKind::BF16 => go!(BFloat),
    }
}

/// `op{.rn}{.ftz}{.sat|.relu}...{.f16,.bf16} d, a{, b{, c}}` on raw 16-bit values
/// (unused operands are ignored).
pub fn half(k: HalfKind, op: HalfOp, m: HalfMode, a: u16, b: u16, c: u16) -> u16 {
    if m.oob && (a & 0x7fff == crate::ir::OOB_NAN || b & 0x7fff == crate::ir::OOB_NAN) {
        return 0;
    }
    let (a, b, c) = if m.ftz {
        (flush(k, a), flush(k, b), flush(k, c))
    } else {
        (a, b, c)
    };
    let r = match op {
        // A NaN gives the canonical NaN, as on an H100 (tests/golden).
        HalfOp::Neg | HalfOp::Abs if is_nan(k, a) => return HALF_CANONICAL_NAN,
        HalfOp::Neg => return a ^ 0x8000,
        HalfOp::Abs => return a & 0x7fff,
        HalfOp::Min | HalfOp::Max => return minmax(k, op == HalfOp::Max, m, a, b),
        HalfOp::Ex2 => {
            if is_nan(k, a) {
                return HALF_CANONICAL_NAN;
            }
            from_f64(k, to_f64(k, a).exp2())
        }
        HalfOp::Tanh => {
            if is_nan(k, a) {
                return HALF_CANONICAL_NAN;
            }
            from_f64(k, to_f64(k, a).tanh())
        }
        HalfOp::Add | HalfOp::Sub | HalfOp::Mul | HalfOp::Fma => arith3(k, op, a, b, c),
    };
    if is_nan(k, r) {
        // .sat turns NaN into +0.0; otherwise (and with .relu) the canonical NaN.
        return if m.sat { 0 } else { HALF_CANONICAL_NAN };
    }
    let mut r = r;
    if m.sat {
        if r & 0x8000 != 0 {
            r = 0; // negatives and -0.0
        } else if r >= k.one() {
            r = k.one(); // positive values order like their bits
        }
    }
    if m.relu && r & 0x8000 != 0 {
        r = 0;
    }
    if m.ftz {
        flush(k, r)
    } else {
        r
    }
}

/// The order of non-NaN values as integers: -0 (-1) < +0 (0).
fn key(x: u16) -> i32 {
    let mag = (x & 0x7fff) as i32;
    if x & 0x8000 != 0 {
        -mag - 1
    } else {
        mag
    }
}

fn minmax(k: HalfKind, is_max: bool, m: HalfMode, a: u16, b: u16) -> u16 {
    let sign = (a ^ b) & 0x8000;
    let (a, b) = if m.xorsign_abs {
        (a & 0x7fff, b & 0x7fff)
    } else {
        (a, b)
    };
    let (na, nb) = (is_nan(k, a), is_nan(k, b));
    if na && nb || m.nan && (na || nb) {
        return HALF_CANONICAL_NAN;
    }
    let d = if na {
        b
    } else if nb || (key(a) > key(b)) == is_max {
        a
    } else {
        b
    };
    let d = if m.xorsign_abs { d | sign } else { d };
    if m.ftz {
        flush(k, d)
    } else {
        d
    }
}

/// The packed form (`.f16x2`, `.bf16x2`): `half` applied to both 16-bit halves.
pub fn half_x2(k: HalfKind, op: HalfOp, m: HalfMode, a: u32, b: u32, c: u32) -> u32 {
    let lo = half(k, op, m, a as u16, b as u16, c as u16);
    let hi = half(
        k,
        op,
        m,
        (a >> 16) as u16,
        (b >> 16) as u16,
        (c >> 16) as u16,
    );
    (hi as u32) << 16 | lo as u32
}

/// The result of [`crate::ir::InstKind::Half`] on one lane: `ty` is `.f16`, `.bf16`,
/// `.f16x2` or `.bf16x2` (anything else gives 0); operands are raw bits of `ty`.
pub fn eval(op: HalfOp, ty: Type, m: HalfMode, a: u64, b: u64, c: u64) -> u64 {
    match HalfKind::of(ty) {
        Some((k, false)) => half(k, op, m, a as u16, b as u16, c as u16) as u64,
        Some((k, true)) => half_x2(k, op, m, a as u32, b as u32, c as u32) as u64,
        None => 0,
    }
}

const OPS: [HalfOp; 10] = [
    HalfOp::Add,
    HalfOp::Sub,
    HalfOp::Mul,
    HalfOp::Fma,
    HalfOp::Neg,
    HalfOp::Abs,
    HalfOp::Min,
    HalfOp::Max,
    HalfOp::Ex2,
    HalfOp::Tanh,
];
const TYS: [Type; 4] = [Type::F16, Type::F16x2, Type::BF16, Type::BF16x2];

/// Encodes an operation for the JIT's helper call (see [`decode`]).
pub fn encode(op: HalfOp, ty: Type, m: HalfMode) -> u64 {
    let o = OPS.iter().position(|&x| x == op).unwrap_or(0) as u64;
    let t = TYS.iter().position(|&x| x == ty).unwrap_or(0) as u64;
    o | t << 8
        | (m.ftz as u64) << 16
        | (m.sat as u64) << 17
        | (m.relu as u64) << 18
        | (m.nan as u64) << 19
        | (m.xorsign_abs as u64) << 20
        | (m.oob as u64) << 21
}

/// Inverse of [`encode`].
pub fn decode(d: u64) -> Option<(HalfOp, Type, HalfMode)> {
    let op = *OPS.get((d & 0xff) as usize)?;
    let ty = *TYS.get((d >> 8 & 0xff) as usize)?;
    let bit = |n: u32| d >> n & 1 != 0;
    let m = HalfMode {
        ftz: bit(16),
        sat: bit(17),
        relu: bit(18),
        nan: bit(19),
        xorsign_abs: bit(20),
        oob: bit(21),
    };
    Some((op, ty, m))
}

// ----- comparisons: exact, through the (exact) widening to f64 -------------------

/// The value of an IEEE binary16 bit pattern as an f64 (exact: every f16 is an f64).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = (h & 0x3ff) as f64;
    let mag = match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + man) * 2f64.powi(e as i32 - 25),
    };
    sign * mag
}

/// `.ftz` for f16: a subnormal becomes a zero of the same sign.
pub fn flush_f16(h: u16) -> u16 {
    if h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: HalfMode = HalfMode {
        ftz: false,
        sat: false,
        relu: false,
        nan: false,
        xorsign_abs: false,
        oob: false,
    };
    const F: HalfKind = HalfKind::F16;

    // f16 bits of small exact values: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200,
    // 0.5 = 0x3800, 0.75 = 0x3a00, -1.0 = 0xbc00, 2048 = 0x6800, 2050 = 0x6801.

    #[test]
    fn rounding_and_fusion() {
        assert_eq!(half(F, HalfOp::Add, RN, 0x3c00, 0x4000, 0), 0x4200, "1 + 2");
        // 2048 + 1 = 2049 lies halfway between 2048 and 2050: ties to even (2048).
        assert_eq!(half(F, HalfOp::Add, RN, 0x6800, 0x3c00, 0), 0x6800);
        // 2050 + 1 = 2051: halfway between 2050 (odd mantissa) and 2052: 2052 = 0x6802.
        assert_eq!(half(F, HalfOp::Add, RN, 0x6801, 0x3c00, 0), 0x6802);
        // fma is fused: (1 + 2^-10)(1 - 2^-11) - 1 = 2^-11 - 2^-21 exactly
        // = 2^-12 * (2 - 2^-9): exponent field 3, fraction 0x3fe -> 0x0ffe.
        // 1 + 2^-10 = 0x3c01, 1 - 2^-11 = 0x3bff.
        assert_eq!(half(F, HalfOp::Fma, RN, 0x3c01, 0x3bff, 0xbc00), 0x0ffe);
        // Unfused, the product 1 + 2^-11 - 2^-21 rounds to 1.0 and the sum is 0.
        let p = half(F, HalfOp::Mul, RN, 0x3c01, 0x3bff, 0);
        assert_eq!(p, 0x3c00);
        // 65504 + 65504 overflows to +inf.
        assert_eq!(half(F, HalfOp::Add, RN, 0x7bff, 0x7bff, 0), 0x7c00);
        // bf16: 1 + 2^-8 is halfway between 1.0 and 1 + 2^-7: ties to even (1.0).
        assert_eq!(
            half(HalfKind::BF16, HalfOp::Add, RN, 0x3f80, 0x3b80, 0),
            0x3f80
        );
    }

    #[test]
    fn nan_sat_relu_ftz() {
        let (inf, ninf) = (0x7c00, 0xfc00);
        assert_eq!(half(F, HalfOp::Add, RN, inf, ninf, 0), HALF_CANONICAL_NAN);
        // Input NaN payloads do not survive arithmetic.
        assert_eq!(
            half(F, HalfOp::Mul, RN, 0xfe01, 0x3c00, 0),
            HALF_CANONICAL_NAN
        );
        let sat = HalfMode { sat: true, ..RN };
        assert_eq!(half(F, HalfOp::Add, sat, inf, ninf, 0), 0, "NaN -> +0");
        assert_eq!(half(F, HalfOp::Add, sat, 0x3a00, 0x3800, 0), 0x3c00);
        assert_eq!(half(F, HalfOp::Mul, sat, 0x8000, 0x3c00, 0), 0, "-0 -> +0");
        let relu = HalfMode { relu: true, ..RN };
        // -1 * 2 + 1 = -1 -> +0; NaN stays the canonical NaN.
        assert_eq!(half(F, HalfOp::Fma, relu, 0xbc00, 0x4000, 0x3c00), 0);
        assert_eq!(
            half(F, HalfOp::Fma, relu, inf, 0, 0x3c00),
            HALF_CANONICAL_NAN
        );
        let ftz = HalfMode { ftz: true, ..RN };
        // 2^-14 (min normal) * 0.5 = 2^-15 (subnormal) -> +0 under .ftz.
        assert_eq!(half(F, HalfOp::Mul, RN, 0x0400, 0x3800, 0), 0x0200);
        assert_eq!(half(F, HalfOp::Mul, ftz, 0x0400, 0x3800, 0), 0);
        // A subnormal input counts as zero: 2^-24 + 2^-14 = 2^-14.
        assert_eq!(half(F, HalfOp::Add, ftz, 0x0001, 0x0400, 0), 0x0400);
        assert_eq!(half(F, HalfOp::Neg, ftz, 0x0001, 0, 0), 0x8000);
        assert_eq!(half(F, HalfOp::Abs, ftz, 0x8001, 0, 0), 0);
    }

    #[test]
    fn min_max_rules() {
        let nan = 0x7e00;
        assert_eq!(half(F, HalfOp::Min, RN, nan, 0x4000, 0), 0x4000);
        assert_eq!(half(F, HalfOp::Max, RN, nan, nan, 0), HALF_CANONICAL_NAN);
        let nanm = HalfMode { nan: true, ..RN };
        assert_eq!(
            half(F, HalfOp::Max, nanm, nan, 0x4000, 0),
            HALF_CANONICAL_NAN
        );
        assert_eq!(half(F, HalfOp::Min, RN, 0, 0x8000, 0), 0x8000, "-0 < +0");
        assert_eq!(half(F, HalfOp::Max, RN, 0x8000, 0, 0), 0);
        let xs = HalfMode {
            xorsign_abs: true,
            ..RN
        };
        // max(|-3|, |2|) = 3, sign (-) ^ (+) = - : -3 (0xc200).
        assert_eq!(half(F, HalfOp::Max, xs, 0xc200, 0x4000, 0), 0xc200);
        // min(|-3|, |2|) = 2 with sign -: -2 (0xc000).
        assert_eq!(half(F, HalfOp::Min, xs, 0xc200, 0x4000, 0), 0xc000);
        // One NaN: the other operand's magnitude, with the xor of both signs.
        assert_eq!(half(F, HalfOp::Max, xs, 0xfe00, 0x4000, 0), 0xc000);
    }

    #[test]
    fn packed_and_encoding() {
        // (1 + 2, 3 + 4) = (3, 7): 3.0 = 0x4200, 4.0 = 0x4400, 7.0 = 0x4700.
        let a = 0x4200_3c00;
        let b = 0x4400_4000;
        assert_eq!(half_x2(F, HalfOp::Add, RN, a, b, 0), 0x4700_4200);
        let m = HalfMode {
            ftz: true,
            nan: true,
            xorsign_abs: true,
            ..RN
        };
        for op in OPS {
            for ty in TYS {
                assert_eq!(decode(encode(op, ty, m)), Some((op, ty, m)));
            }
        }
    }
}
