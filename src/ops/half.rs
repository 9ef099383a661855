//! Half-precision arithmetic (`.f16`, `.bf16` and the packed `.f16x2`, `.bf16x2` forms):
//! `add sub mul fma neg abs min max` with `.rn`, `.ftz`, `.sat`, `.relu`, `.NaN` and
//! `.xorsign.abs`, and `ex2.approx`, `tanh.approx` ([`crate::ir::InstKind::Half`]).
//!
//! Rules (PTX ISA, "Half Precision Floating Point Instructions"):
//! - `add sub mul fma` round once, to nearest even (`.rn` is the only rounding modifier
//!   PTX has for them), computed exactly from host `f64` arithmetic (`arith3`);
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
    value(k, x)
}

/// `v` rounded to nearest even into format `k` (NaN becomes the canonical NaN).
fn from_f64(k: HalfKind, v: f64) -> u16 {
    round_exact(k, v, 0.0)
}

/// `add sub mul fma` rounded once to nearest even in format `k`, by host `f64`
/// arithmetic: the exact result is `s + e` with `s` the `f64` operation and `e` its
/// rounding error (a product of two half values is exact in `f64`; a sum's error is
/// Knuth's TwoSum), and [`round_exact`] rounds `s` to the half format, using `e` only
/// where `s` lies exactly halfway between two half values. (The test oracle is
/// rustc_apfloat in the half format itself: `tests::arith3_apfloat`.)
fn arith3(k: HalfKind, op: HalfOp, a: u16, b: u16, c: u16) -> u16 {
    let (x, y, z) = (value(k, a), value(k, b), value(k, c));
    let (s, e) = match op {
        HalfOp::Add => two_sum(x, y),
        HalfOp::Sub => two_sum(x, -y),
        HalfOp::Mul => (x * y, 0.0),
        _ => two_sum(x * y, z),
    };
    round_exact(k, s, e)
}

/// `s + e == x + y` exactly, `s` the rounded sum (Knuth's TwoSum; `e` is 0 where `s` is
/// not finite).
fn two_sum(x: f64, y: f64) -> (f64, f64) {
    let s = x + y;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let yv = s - x;
    let xv = s - yv;
    (s, (x - xv) + (y - yv))
}

/// The value of half bits `h` as an f64 (exact), by bit arithmetic.
fn value(k: HalfKind, h: u16) -> f64 {
    match k {
        HalfKind::F16 => f16_to_f64(h),
        HalfKind::BF16 => f64::from(f32::from_bits((h as u32) << 16)),
    }
}

/// `s + e` (`e` below half an ulp of `s` in `f64`, or 0) rounded to nearest even in
/// format `k`: `s` rounded, except that where `s` is exactly halfway between two half
/// values a non-zero `e` decides the side (the exact value is not halfway). Other `s`
/// are at least an `f64` ulp from every halfway point, so `e` cannot move them across
/// one. NaN gives the canonical NaN; overflow gives infinity.
fn round_exact(k: HalfKind, s: f64, e: f64) -> u16 {
    if s.is_nan() {
        return HALF_CANONICAL_NAN;
    }
    // (smallest normal exponent, fraction bits, largest exponent, sign bit, infinity)
    let (min_exp, frac, max_exp, inf) = match k {
        HalfKind::F16 => (-14i32, 10i32, 15i32, 0x7c00u16),
        HalfKind::BF16 => (-126, 7, 127, 0x7f80),
    };
    let neg = s.is_sign_negative();
    let sign = if neg { 0x8000u16 } else { 0 };
    let a = s.abs();
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | inf;
    }
    // The quantum of format `k` at `a` (subnormals share the smallest normal one).
    let exp = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let qe = exp.max(min_exp) - frac;
    let m = a * pow2(-qe);
    // `m < 2^(frac + 1)`: its integer part is exact as an integer (no libm `floor`).
    let floor = m as u64;
    let rest = m - floor as f64;
    let up = if rest == 0.5 {
        match e == 0.0 {
            true => floor & 1 == 1,
            // The magnitude's exact value is `a + e` for positive `s`, `a - e` else.
            false => (e > 0.0) != neg,
        }
    } else {
        rest > 0.5
    };
    let r = (floor + up as u64) as f64;
    let v = r * pow2(qe);
    if v >= pow2(max_exp + 1) {
        return sign | inf;
    }
    sign | match k {
        // Subnormals and normals alike: the quanta from the smallest normal one up.
        HalfKind::F16 => {
            let ve = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
            if v == 0.0 {
                0
            } else if ve < min_exp {
                (v * pow2(24)) as u16
            } else {
                let man = (v * pow2(frac - ve)) as u16 - (1 << frac);
                ((ve + 15) as u16) << 10 | man
            }
        }
        // Every bf16 value is an f32 whose low 16 bits are zero.
        HalfKind::BF16 => ((v as f32).to_bits() >> 16) as u16,
    }
}

/// 2^`n` for `n` in the exponent range of the half formats' quanta (exact).
fn pow2(n: i32) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
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
        0 => man * pow2(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + man) * pow2(e as i32 - 25),
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

    /// The rounding of `arith3` by rustc_apfloat in the half format itself.
    fn arith3_apfloat(k: HalfKind, op: HalfOp, a: u16, b: u16, c: u16) -> u16 {
        use rustc_apfloat::ieee::{BFloat, Half};
        use rustc_apfloat::{Float, Round};
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
        let v = match k {
            HalfKind::F16 => go!(Half),
            HalfKind::BF16 => go!(BFloat),
        };
        if is_nan(k, v) {
            HALF_CANONICAL_NAN
        } else {
            v
        }
    }

    /// `arith3` agrees with rustc_apfloat bit for bit: every f16 `add` and `mul` of a
    /// value with 512 spread values; random triples of both formats for all four
    /// operations; and `fma`s whose product lies exactly halfway between two half
    /// values with a tiny addend of either sign (bf16 136 * 136 = 289 * 2^6, f16
    /// 3 * 683 = 2049; the sum's rounding in f64 loses the addend).
    #[test]
    fn arith3_matches_apfloat() {
        let ops = [HalfOp::Add, HalfOp::Sub, HalfOp::Mul, HalfOp::Fma];
        let check = |k, op, a: u16, b: u16, c: u16| {
            assert_eq!(
                arith3(k, op, a, b, c),
                arith3_apfloat(k, op, a, b, c),
                "{k:?} {op:?} {a:#06x} {b:#06x} {c:#06x}"
            );
        };
        for a in 0..=u16::MAX {
            for j in 0..512u32 {
                let b = (j * 128 + j % 97) as u16;
                check(HalfKind::F16, HalfOp::Add, a, b, 0);
                check(HalfKind::F16, HalfOp::Mul, a, b, 0);
            }
        }
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..2_000_000 {
            let r = next();
            let k = if r & 1 == 0 {
                HalfKind::F16
            } else {
                HalfKind::BF16
            };
            let op = ops[(r >> 1 & 3) as usize];
            check(k, op, (r >> 8) as u16, (r >> 24) as u16, (r >> 40) as u16);
        }
        // bf16 136 = 0x4308 (1.0625 * 2^7); 136 * 136 = 18496 = 289 * 2^6, halfway
        // between 18432 and 18560; f16 3 = 0x4200, 683 = 0x6156: 2049, halfway between
        // 2048 and 2050. Addends: the smallest subnormals and tiny normals, both signs.
        for (k, a, b) in [
            (HalfKind::BF16, 0x4308, 0x4308),
            (HalfKind::F16, 0x4200, 0x6156),
        ] {
            for c in [
                0x0001u16, 0x8001, 0x0080, 0x8080, 0x0400, 0x8400, 0x0000, 0x8000,
            ] {
                check(k, HalfOp::Fma, a, b, c);
                check(k, HalfOp::Fma, a ^ 0x8000, b, c);
            }
        }
    }

    /// `from_f64` (the rounding of `ex2`/`tanh` results) agrees with rustc_apfloat's
    /// conversion from `f64` on random values of every magnitude the formats reach,
    /// and on every value halfway between two f16 values.
    #[test]
    fn from_f64_matches_apfloat() {
        use rustc_apfloat::ieee::{BFloat, Double, Half};
        use rustc_apfloat::{Float, FloatConvert, Round};
        let oracle = |k: HalfKind, v: f64| -> u16 {
            let d = Double::from_bits(v.to_bits() as u128);
            let mut lost = false;
            let r = Round::NearestTiesToEven;
            let bits = match k {
                HalfKind::F16 => FloatConvert::<Half>::convert_r(d, r, &mut lost)
                    .value
                    .to_bits(),
                HalfKind::BF16 => FloatConvert::<BFloat>::convert_r(d, r, &mut lost)
                    .value
                    .to_bits(),
            } as u16;
            if is_nan(k, bits) {
                HALF_CANONICAL_NAN
            } else {
                bits
            }
        };
        let mut x = 0x0bad_5eed_1234_5678u64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Exponents 2^-140 .. 2^131, any fraction and sign.
            let e = (x >> 52 & 0x1ff) % 272 + 1023 - 140;
            let v = f64::from_bits((x & 0x800f_ffff_ffff_ffff) | e << 52);
            for k in [HalfKind::F16, HalfKind::BF16] {
                assert_eq!(from_f64(k, v), oracle(k, v), "{k:?} {v:e}");
            }
        }
        for h in 0..0x7c00u16 {
            let mid = (f16_to_f64(h) + f16_to_f64(h + 1)) / 2.0;
            assert_eq!(from_f64(F, mid), oracle(F, mid), "{mid:e}");
            assert_eq!(from_f64(F, -mid), oracle(F, -mid), "{mid:e}");
        }
    }

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
