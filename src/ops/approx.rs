//! The f64 kernels of `ex2.approx.f32` and `lg2.approx.f32`: fixed sequences of IEEE
//! f64 additions, multiplications, divisions and bit operations (no fused multiply-add,
//! no library calls), so that the JIT's vector form (`jit::lower::sfu`), which emits
//! the same operations in the same order, gives the same bits as the interpreter.
//!
//! Both are far more accurate than the PTX ISA asks (ex2: absolute error 2^-22.5 on the
//! fraction; lg2: 2^-22.6 on the mantissa): about 2^-50 relative before the caller's one
//! rounding to f32, so the f32 result is the correctly rounded one except where the exact
//! value lies within about 2^-50 of a rounding midpoint.
//!
//! - `ex2`: `x` clamped to [-200, 200] (every f32 result outside is 0 or infinity
//!   already), split as `n + f` with `n` the nearest integer (by adding and subtracting
//!   1.5 * 2^52) and `f` in [-0.5, 0.5] exactly; 2^f by its Taylor polynomial of degree
//!   12 in Horner form (remainder below 2^-51 relative); times 2^n built from its bits.
//! - `lg2`: `x` (positive, finite) as `m * 2^e` with `m` in [sqrt(1/2), sqrt(2)) from its
//!   bits; log2(m) = 2/ln(2) * atanh(s), s = (m - 1)/(m + 1), |s| < 0.172, by the odd
//!   series to s^19 (remainder below 2^-54 relative); plus `e`.

/// 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds it to an integer,
/// held in the low bits of the sum's representation.
pub const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// ex2's clamp: 2^200 is infinite and 2^-200 zero as f32.
pub const EX2_CLAMP: f64 = 200.0;

/// ln(2)^k / k! for k = 12 down to 0: the Taylor polynomial of 2^f, highest first.
pub const EX2_POLY: [f64; 13] = [
    2.567_843_599_348_820_6e-11,
    4.445_538_271_870_811_6e-10,
    7.054_911_620_801_123e-9,
    1.017_808_600_923_97e-7,
    1.321_548_679_014_431e-6,
    1.525_273_380_405_984_1e-5,
    1.540_353_039_338_161e-4,
    1.333_355_814_642_844_3e-3,
    9.618_129_107_628_477e-3,
    5.550_410_866_482_158e-2,
    2.402_265_069_591_007_2e-1,
    std::f64::consts::LN_2,
    1.0,
];

/// 1/(2k+1) for k = 9 down to 0: atanh(s)/s as a polynomial in s^2, highest first.
pub const LG2_POLY: [f64; 10] = [
    1.0 / 19.0,
    1.0 / 17.0,
    1.0 / 15.0,
    1.0 / 13.0,
    1.0 / 11.0,
    1.0 / 9.0,
    1.0 / 7.0,
    1.0 / 5.0,
    1.0 / 3.0,
    1.0,
];

/// 2/ln(2): 2 atanh(s) is ln(m).
pub const LG2_SCALE: f64 = 2.885_390_081_777_926_8;

/// sqrt(2) rounded to f64: mantissas above it are halved (and the exponent raised).
pub const SQRT2: f64 = std::f64::consts::SQRT_2;

/// 2^x for `x` a finite or infinite f64 (an f32 value); NaN gives NaN.
pub fn ex2(x: f64) -> f64 {
    let x = x.clamp(-EX2_CLAMP, EX2_CLAMP);
    let t = x + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    let f = x - n;
    let mut p = EX2_POLY[0];
    for &c in &EX2_POLY[1..] {
        p = p * f + c;
    }
    // 2^n from the bits: t's low bits are ROUND_MAGIC's plus n.
    let scale = t
        .to_bits()
        .wrapping_sub(ROUND_MAGIC.to_bits())
        .wrapping_add(1023)
        << 52;
    p * f64::from_bits(scale)
}

/// log2(x) for `x` positive and finite (a normal f64: an f32 value, subnormal ones
/// included).
pub fn lg2_finite(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = (bits >> 52) as i64 - 1023;
    let m = f64::from_bits(bits & ((1 << 52) - 1) | 1023 << 52);
    let (m, e) = if m > SQRT2 { (m * 0.5, e + 1) } else { (m, e) };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut q = LG2_POLY[0];
    for &c in &LG2_POLY[1..] {
        q = q * z + c;
    }
    // The exponent as a double by the same magic as `ex2` (the JIT's conversion).
    let ef = f64::from_bits(ROUND_MAGIC.to_bits().wrapping_add(e as u64)) - ROUND_MAGIC;
    s * q * LG2_SCALE + ef
}

/// log2(x) for any `x` (an f32 value as f64): -inf at zero, NaN below, +inf at +inf.
pub fn lg2(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        f64::NAN
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x == f64::INFINITY {
        f64::INFINITY
    } else {
        lg2_finite(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative error of `got` against `want` (both finite, `want` nonzero).
    fn rel(got: f64, want: f64) -> f64 {
        ((got - want) / want).abs()
    }

    #[test]
    fn ex2_matches_the_library_to_f64_accuracy() {
        // Against libm's exp2 (itself within an ulp): every 1/1024 step over the f32
        // range, plus integers (exact powers of two) and the clamp's edges.
        let mut worst: f64 = 0.0;
        let mut x = -160.0f64;
        while x <= 130.0 {
            let (got, want) = (ex2(x), x.exp2());
            if want != 0.0 && want.is_finite() {
                worst = worst.max(rel(got, want));
            }
            x += 1.0 / 1024.0;
        }
        assert!(worst < 2f64.powi(-50), "worst relative error {worst:e}");
        for n in -149..=127 {
            assert_eq!(ex2(n as f64), 2f64.powi(n), "2^{n} is exact");
        }
        assert_eq!(ex2(0.0), 1.0);
        assert_eq!(ex2(-0.0), 1.0);
        assert_eq!(ex2(f64::INFINITY) as f32, f32::INFINITY);
        assert_eq!(ex2(f64::NEG_INFINITY) as f32, 0.0);
        assert_eq!(ex2(128.0) as f32, f32::INFINITY);
        assert_eq!(ex2(-151.0) as f32, 0.0);
        assert!(ex2(f64::NAN).is_nan());
    }

    #[test]
    fn lg2_matches_the_library_to_f64_accuracy() {
        // Every 2^-20 step of the mantissa in [1, 2) (both sides of sqrt(2)), at several
        // exponents including f32's subnormal range, against libm's log2.
        let mut worst: f64 = 0.0;
        for e in [-149, -140, -127, -126, -1, 0, 1, 64, 127] {
            for k in 0..(1 << 20) {
                let x = (1.0 + k as f64 / (1 << 20) as f64) * 2f64.powi(e);
                let (got, want) = (lg2(x), x.log2());
                if want == 0.0 {
                    assert_eq!(got, 0.0);
                } else {
                    worst = worst.max(rel(got, want));
                }
            }
        }
        assert!(worst < 2f64.powi(-50), "worst relative error {worst:e}");
        for n in -149..=127 {
            assert_eq!(lg2(2f64.powi(n)), n as f64, "log2(2^{n}) is exact");
        }
        assert_eq!(lg2(0.0), f64::NEG_INFINITY);
        assert_eq!(lg2(-0.0), f64::NEG_INFINITY);
        assert_eq!(lg2(f64::INFINITY), f64::INFINITY);
        assert!(lg2(-1.0).is_nan() && lg2(f64::NEG_INFINITY).is_nan());
        assert!(lg2(f64::NAN).is_nan());
    }
}
