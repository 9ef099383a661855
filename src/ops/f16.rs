//! Half-precision arithmetic (`.f16`, `.bf16` and the packed `.f16x2`, `.bf16x2` forms):
//! `add sub mul fma neg abs min max` with `.rn` (and the other IEEE modes where the ISA
//! allows them), `.ftz`, `.sat`, `.relu`, `.NaN` and `.xorsign.abs`.
//!
//! Every result is computed by rustc_apfloat in the half format itself (one rounding, as
//! the hardware does). NaN results are the canonical NaN 0x7fff (f16 and bf16).

use super::float::round_of;
use crate::ir::Rnd;
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, Round};

/// Which 16-bit format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfKind {
    F16,
    BF16,
}

/// The canonical NaN of both 16-bit formats.
pub const HALF_CANONICAL_NAN: u16 = 0x7fff;

/// Modifiers of a half-precision operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfMode {
    pub rnd: Option<Rnd>,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    /// `min/max.NaN`: any NaN input gives the canonical NaN.
    pub nan: bool,
    /// `min/max.xorsign.abs`: |result| with the sign of a XOR b.
    pub xorsign_abs: bool,
}

/// Half-precision operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    Fma,
    Neg,
    Abs,
    Min,
    Max,
}

fn exp_mask(k: HalfKind) -> u16 {
    match k {
        HalfKind::F16 => 0x7c00,
        HalfKind::BF16 => 0x7f80,
    }
}

/// True when `x` is a NaN of format `k`.
pub fn is_nan(k: HalfKind, x: u16) -> bool {
    let e = exp_mask(k);
    x & e == e && x & !e & 0x7fff != 0
}

/// Flushes a subnormal to sign-preserving zero.
pub fn flush(k: HalfKind, x: u16) -> u16 {
    if x & exp_mask(k) == 0 {
        x & 0x8000
    } else {
        x
    }
}

fn to_f64(k: HalfKind, x: u16) -> f64 {
    let mut lost = false;
    let d: rustc_apfloat::ieee::Double = match k {
        HalfKind::F16 => {
            rustc_apfloat::FloatConvert::convert_r(
                Half::from_bits(x as u128),
                Round::NearestTiesToEven,
                &mut lost,
            )
            .value
        }
        HalfKind::BF16 => {
            rustc_apfloat::FloatConvert::convert_r(
                BFloat::from_bits(x as u128),
                Round::NearestTiesToEven,
                &mut lost,
            )
            .value
        }
    };
    f64::from_bits(d.to_bits() as u64)
}

fn arith3(k: HalfKind, op: HalfOp, r: Round, a: u16, b: u16, c: u16) -> u16 {
    macro_rules! go {
        ($t:ty) => {{
            let (x, y, z) = (
                <$t>::from_bits(a as u128),
                <$t>::from_bits(b as u128),
                <$t>::from_bits(c as u128),
            );
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

/// `op{.rnd}{.ftz}{.sat|.relu}.{f16,bf16} d, a, b{, c}` on raw 16-bit values.
pub fn half(k: HalfKind, op: HalfOp, m: HalfMode, a: u16, b: u16, c: u16) -> u16 {
    let (a, b, c) = if m.ftz {
        (flush(k, a), flush(k, b), flush(k, c))
    } else {
        (a, b, c)
    };
    let r = match op {
        HalfOp::Neg => return a ^ 0x8000,
        HalfOp::Abs => return a & 0x7fff,
        HalfOp::Min | HalfOp::Max => return minmax(k, op == HalfOp::Max, m, a, b),
        _ => arith3(k, op, round_of(m.rnd), a, b, c),
    };
    let mut r = r;
    if is_nan(k, r) {
        // .sat turns NaN into +0.0; otherwise (and with .relu) the canonical NaN.
        return if m.sat { 0 } else { HALF_CANONICAL_NAN };
    }
    if m.sat {
        let v = to_f64(k, r);
        if v <= 0.0 {
            r = 0;
        } else if v >= 1.0 {
            r = match k {
                HalfKind::F16 => 0x3c00,
                HalfKind::BF16 => 0x3f80,
            };
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

fn minmax(k: HalfKind, is_max: bool, m: HalfMode, a: u16, b: u16) -> u16 {
    let (na, nb) = (is_nan(k, a), is_nan(k, b));
    let d = if na && nb || (m.nan && (na || nb)) {
        return HALF_CANONICAL_NAN;
    } else if na {
        b
    } else if nb {
        a
    } else {
        let (x, y) = (to_f64(k, a), to_f64(k, b));
        // -0.0 < +0.0.
        let a_first = if x == y {
            (a & 0x8000 != 0) != is_max
        } else {
            (x < y) != is_max
        };
        if a_first {
            a
        } else {
            b
        }
    };
    let d = if m.xorsign_abs {
        (d & 0x7fff) | ((a ^ b) & 0x8000)
    } else {
        d
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    const RN: HalfMode = HalfMode {
        rnd: None,
        ftz: false,
        sat: false,
        relu: false,
        nan: false,
        xorsign_abs: false,
    };

    /// f16 bits of an exactly representable value (test helper, via f64).
    fn h(x: f64) -> u16 {
        let mut lost = false;
        let d = rustc_apfloat::ieee::Double::from_bits(x.to_bits() as u128);
        let v: Half =
            rustc_apfloat::FloatConvert::convert_r(d, Round::NearestTiesToEven, &mut lost).value;
        assert!(!lost, "{x} is not an f16 value");
        v.to_bits() as u16
    }

    #[test]
    fn f16_arithmetic_rounds_once_in_half_precision() {
        assert_eq!(h(1.0), 0x3c00);
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, RN, h(1.0), h(2.0), 0),
            h(3.0)
        );
        // 2048 + 1 = 2049 is halfway between f16 neighbours 2048 and 2050: RN -> 2048 (even),
        // RP -> 2050.
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, RN, h(2048.0), h(1.0), 0),
            h(2048.0)
        );
        let rp = HalfMode {
            rnd: Some(Rnd::Rp),
            ..RN
        };
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, rp, h(2048.0), h(1.0), 0),
            h(2050.0)
        );
        // fma is fused: (1 + 2^-10) * (1 - 2^-10) - 1 = -2^-20 exactly (a subnormal f16:
        // 2^-20 = 16 * 2^-24), not 0.
        let (a, b) = (h(1.0 + 2f64.powi(-10)), h(1.0 - 2f64.powi(-10)));
        assert_eq!(half(HalfKind::F16, HalfOp::Fma, RN, a, b, h(-1.0)), 0x8010);
        // ... and .ftz flushes that subnormal result to -0.
        let ftz = HalfMode { ftz: true, ..RN };
        assert_eq!(half(HalfKind::F16, HalfOp::Fma, ftz, a, b, h(-1.0)), 0x8000);
        // Overflow: 65504 + 65504 = inf.
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, RN, h(65504.0), h(65504.0), 0),
            0x7c00
        );
    }

    #[test]
    fn nan_sat_relu_min_max() {
        let inf = 0x7c00;
        let ninf = 0xfc00;
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, RN, inf, ninf, 0),
            HALF_CANONICAL_NAN
        );
        let sat = HalfMode { sat: true, ..RN };
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, sat, inf, ninf, 0),
            0,
            ".sat: NaN -> +0"
        );
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, sat, h(0.75), h(0.5), 0),
            h(1.0)
        );
        assert_eq!(
            half(HalfKind::F16, HalfOp::Add, sat, h(-0.75), h(0.5), 0),
            0
        );
        let relu = HalfMode { relu: true, ..RN };
        assert_eq!(
            half(HalfKind::F16, HalfOp::Fma, relu, h(-1.0), h(2.0), h(1.0)),
            0
        );
        assert_eq!(
            half(HalfKind::F16, HalfOp::Fma, relu, h(1.0), h(2.0), h(1.0)),
            h(3.0)
        );
        let nan = 0x7e00;
        assert_eq!(half(HalfKind::F16, HalfOp::Min, RN, nan, h(2.0), 0), h(2.0));
        assert_eq!(
            half(HalfKind::F16, HalfOp::Max, RN, nan, nan, 0),
            HALF_CANONICAL_NAN
        );
        let nanm = HalfMode { nan: true, ..RN };
        assert_eq!(
            half(HalfKind::F16, HalfOp::Max, nanm, nan, h(2.0), 0),
            HALF_CANONICAL_NAN
        );
        assert_eq!(
            half(HalfKind::F16, HalfOp::Min, RN, h(0.0), 0x8000, 0),
            0x8000,
            "-0 < +0"
        );
        assert_eq!(half(HalfKind::F16, HalfOp::Max, RN, 0x8000, h(0.0), 0), 0);
        // xorsign.abs: max(|..|) with sign of a^b: max(-3, 2) = 2 -> -2.
        let xs = HalfMode {
            xorsign_abs: true,
            ..RN
        };
        assert_eq!(
            half(HalfKind::F16, HalfOp::Max, xs, h(-3.0), h(2.0), 0),
            h(-2.0)
        );
        assert_eq!(half(HalfKind::F16, HalfOp::Neg, RN, h(2.0), 0, 0), h(-2.0));
        assert_eq!(half(HalfKind::F16, HalfOp::Abs, RN, h(-2.0), 0, 0), h(2.0));
    }

    #[test]
    fn bf16_and_packed_forms() {
        // bf16 1.0 = 0x3f80; 1 + 2^-7 is the next value; 1 + 2^-8 is halfway -> RN 1.0.
        assert_eq!(
            half(HalfKind::BF16, HalfOp::Add, RN, 0x3f80, 0x3b80, 0),
            0x3f80,
            "1 + 2^-8 ties to even"
        );
        assert_eq!(
            half(HalfKind::BF16, HalfOp::Mul, RN, 0x4000, 0x4040, 0),
            0x40c0,
            "2 * 3 = 6"
        );
        // Packed: lanes are independent: (1 + 2, 3 + 4) = (3, 7).
        let a = (h(3.0) as u32) << 16 | h(1.0) as u32;
        let b = (h(4.0) as u32) << 16 | h(2.0) as u32;
        assert_eq!(
            half_x2(HalfKind::F16, HalfOp::Add, RN, a, b, 0),
            (h(7.0) as u32) << 16 | h(3.0) as u32
        );
    }

    #[test]
    fn exhaustive_f16_add_matches_f64_rounding() {
        // Every f16 a (finite) plus a fixed set of b: the f64 sum is exact (spans < 53
        // bits), so rounding it once to f16 is the oracle.
        for bv in [h(1.0), h(-0.5), 0x0001, h(1000.0), h(-65504.0)] {
            for av in 0..=0xffffu16 {
                if is_nan(HalfKind::F16, av) || av & 0x7c00 == 0x7c00 {
                    continue;
                }
                let exact = to_f64(HalfKind::F16, av) + to_f64(HalfKind::F16, bv);
                let mut lost = false;
                let want: Half = rustc_apfloat::FloatConvert::convert_r(
                    rustc_apfloat::ieee::Double::from_bits(exact.to_bits() as u128),
                    Round::NearestTiesToEven,
                    &mut lost,
                )
                .value;
                let got = half(HalfKind::F16, HalfOp::Add, RN, av, bv, 0);
                assert_eq!(got, want.to_bits() as u16, "{av:#x} + {bv:#x}");
            }
        }
    }
}
