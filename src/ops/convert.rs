//! The conversion family's semantics. `cvt`: conversions between integer and
//! floating-point types with every rounding modifier, `.ftz` and `.sat`; the narrow
//! formats and `cvt.pack` below.
//!
//! The `cvt` forms with narrow float formats and `cvt.pack.sat`
//! ([`InstKind::CvtX`](crate::ir::InstKind::CvtX)): f32 -> `.f16`/`.bf16` with `.relu`
//! and `.satfinite`, the packed `.f16x2`/`.bf16x2` results of two f32, `.tf32`, the fp8
//! (`.e4m3x2`, `.e5m2x2`), fp6 (`.e2m3x2`, `.e3m2x2`), fp4 (`.e2m1x2`) and `.ue8m0x2`
//! pairs in both directions, and `cvt.pack.sat.{u,s}{16,8,4,2}.s32{.b32}`.
//!
//! Rules (PTX ISA "cvt" and "cvt.pack"; where the ISA is silent, the documented
//! behaviour of NVIDIA's `cuda_fp8.h`/`cuda_fp6.h`/`cuda_fp4.h` conversions, which use
//! these instructions):
//! - `.satfinite`: a NaN input gives the format's NaN; |x| > MAX_NORM (infinities
//!   included) gives MAX_NORM with x's sign. Mandatory for fp8/fp6/fp4 destinations.
//! - `.relu`: a result with the sign bit set (negative values, and -0) becomes +0; a NaN
//!   result is the canonical NaN.
//! - NaN results: `.f16`/`.bf16` `0x7fff`, `.tf32` `0x7fffffff`, `.e4m3`/`.e5m2` `0x7f`
//!   (sign dropped); fp6 and fp4 have no NaN: a NaN input gives +MAX_NORM. `.ue8m0`:
//!   `0xff`.
//! - fp8/fp6/fp4 -> `.f16` is exact (NaN -> `0x7fff`); `.ue8m0` -> `.bf16` gives
//!   `2^(e-127)` (`0` -> `0x0040`, `0xff` -> `0x7fff`).
//! - `.ue8m0` from f32/bf16 ignores the sign: `.rz` gives `2^floor(log2|x|)`, `.rp`
//!   `2^ceil(log2|x|)`, both at least `2^-127` (zero included); beyond `2^127` (and
//!   infinities) the NaN code `0xff`, or `0xfe` with `.satfinite`.
//! - `.tf32`: the f32 mantissa rounded to 10 bits, the low 13 bits zero; rounding may
//!   overflow to infinity unless `.satfinite`.
//!
//! Every float value is handled exactly as an f64 (all inputs are f32, f16 or bf16);
//! f16/bf16 results are rounded by `rustc_apfloat`, the small formats by exact integer
//! arithmetic on the scaled value.

use super::float::{canonical_nan, flush_f32, round_of};
use super::{extend, mask, sext};
use crate::ir::{CvtXOp, CvtXRnd, MiniFmt, Rnd, Type};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// A float value of one of the float types, as an apfloat of that format.
#[derive(Clone, Copy)]
enum AnyFloat {
    H(Half),
    B(BFloat),
    S(Single),
    D(Double),
}

fn from_bits(ty: Type, bits: u64) -> Option<AnyFloat> {
    Some(match ty {
        Type::F16 => AnyFloat::H(Half::from_bits(bits as u128 & 0xffff)),
        Type::BF16 => AnyFloat::B(BFloat::from_bits(bits as u128 & 0xffff)),
        Type::F32 => AnyFloat::S(Single::from_bits(bits as u128 & 0xffff_ffff)),
        Type::F64 => AnyFloat::D(Double::from_bits(bits as u128)),
        _ => return None,
    })
}

fn to_double(v: AnyFloat) -> f64 {
    let mut lost = false;
    let d: Double = match v {
        AnyFloat::H(h) => h.convert_r(Round::NearestTiesToEven, &mut lost).value,
        AnyFloat::B(b) => b.convert_r(Round::NearestTiesToEven, &mut lost).value,
        AnyFloat::S(s) => s.convert_r(Round::NearestTiesToEven, &mut lost).value,
        AnyFloat::D(d) => d,
    };
    f64::from_bits(d.to_bits() as u64)
}

/// Rounds an exact f64 value (or a wider-precision source) into `dst`'s format.
fn convert_float<
    T: Float + FloatConvert<Half> + FloatConvert<BFloat> + FloatConvert<Single> + FloatConvert<Double>,
>(
    v: T,
    dst: Type,
    round: Round,
) -> u64 {
    let mut lost = false;
    match dst {
        Type::F16 => FloatConvert::<Half>::convert_r(v, round, &mut lost)
            .value
            .to_bits() as u64,
        Type::BF16 => FloatConvert::<BFloat>::convert_r(v, round, &mut lost)
            .value
            .to_bits() as u64,
        Type::F32 => FloatConvert::<Single>::convert_r(v, round, &mut lost)
            .value
            .to_bits() as u64,
        _ => FloatConvert::<Double>::convert_r(v, round, &mut lost)
            .value
            .to_bits() as u64,
    }
}

fn float_bits_is_nan(ty: Type, bits: u64) -> bool {
    match ty {
        Type::F16 => bits & 0x7c00 == 0x7c00 && bits & 0x3ff != 0,
        Type::BF16 => bits & 0x7f80 == 0x7f80 && bits & 0x7f != 0,
        Type::F32 => f32::from_bits(bits as u32).is_nan(),
        _ => f64::from_bits(bits).is_nan(),
    }
}

fn float_canonical_nan(ty: Type) -> u64 {
    match ty {
        Type::F16 => 0x7fff,
        Type::BF16 => 0x7fff,
        Type::F32 => canonical_nan(32),
        _ => canonical_nan(64),
    }
}

/// Clamps a float result to [0.0, 1.0] (NaN -> +0.0) in its own format.
fn saturate(ty: Type, bits: u64) -> u64 {
    if float_bits_is_nan(ty, bits) {
        return 0;
    }
    let Some(v) = from_bits(ty, bits) else {
        return bits;
    };
    let d = to_double(v);
    if d <= 0.0 {
        0 // -0.0 and negatives clamp to +0.0
    } else if d >= 1.0 {
        match ty {
            Type::F16 => 0x3c00,
            Type::BF16 => 0x3f80,
            Type::F32 => 1.0f32.to_bits() as u64,
            _ => 1.0f64.to_bits(),
        }
    } else {
        bits
    }
}

/// The result of `cvt{.rnd}{.ftz}{.sat}.dst.src a`. `a` holds `src`'s bits; the result
/// has `dst`'s width. A missing integer rounding modifier on a float -> int conversion
/// truncates (`.rzi`), a missing float rounding modifier rounds to nearest even.
pub fn cvt(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool, a: u64) -> u64 {
    let a = a & mask(src.bits().min(64));
    match (src.is_float(), dst.is_float()) {
        (false, false) => int_to_int(dst, src, sat, a),
        (true, false) => float_to_int(dst, src, rnd, ftz, a),
        (false, true) => int_to_float(dst, src, rnd, sat, a),
        (true, true) => float_to_float(dst, src, rnd, ftz, sat, a),
    }
}

fn int_range(ty: Type) -> (i128, i128) {
    let w = ty.bits().min(64);
    if ty.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

fn int_to_int(dst: Type, src: Type, sat: bool, a: u64) -> u64 {
    let w = src.bits().min(64);
    let v: i128 = if src.is_signed() {
        sext(a, w) as i128
    } else {
        a as i128
    };
    let v = if sat {
        let (lo, hi) = int_range(dst);
        v.clamp(lo, hi)
    } else {
        v
    };
    (v as u64) & mask(dst.bits().min(64))
}

fn float_to_int(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, a: u64) -> u64 {
    let a = if ftz && src == Type::F32 {
        flush_f32(a as u32) as u64
    } else {
        a
    };
    let Some(v) = from_bits(src, a) else { return 0 };
    let x = to_double(v); // exact for every source format
    if x.is_nan() {
        // The ISA says 0; an H100 gives 0 for f32/f16/bf16 sources to 32 bits or fewer
        // and the destination's sign bit (its integer "indefinite") for f64 sources and
        // 64-bit destinations (tests/golden).
        return if src == Type::F64 || dst.bits() == 64 {
            1u64 << (dst.bits().min(64) - 1)
        } else {
            0
        };
    }
    let r = match rnd.unwrap_or(Rnd::Rzi) {
        Rnd::Rni | Rnd::Rn => x.round_ties_even(),
        Rnd::Rzi | Rnd::Rz => x.trunc(),
        Rnd::Rmi | Rnd::Rm => x.floor(),
        Rnd::Rpi | Rnd::Rp => x.ceil(),
    };
    let (lo, hi) = int_range(dst);
    // Integral values in f64 convert exactly; `as` saturates at the i128 range, far
    // beyond every destination range.
    let v = (r as i128).clamp(lo, hi);
    (v as u64) & mask(dst.bits().min(64))
}

fn int_to_float(dst: Type, src: Type, rnd: Option<Rnd>, sat: bool, a: u64) -> u64 {
    let w = src.bits().min(64);
    let round = round_of(rnd);
    let bits = if round == Round::NearestTiesToEven && matches!(dst, Type::F32 | Type::F64) {
        // Rust's int -> float casts round to nearest even.
        match (dst, src.is_signed()) {
            (Type::F32, true) => (sext(a, w) as f32).to_bits() as u64,
            (Type::F32, false) => (a as f32).to_bits() as u64,
            (_, true) => (sext(a, w) as f64).to_bits(),
            (_, false) => (a as f64).to_bits(),
        }
    } else {
        let v = extend(a, src);
        let d = if src.is_signed() {
            Double::from_i128_r(sext(v, 64) as i128, Round::NearestTiesToEven)
        } else {
            Double::from_u128_r(v as u128, Round::NearestTiesToEven)
        };
        // An f64 holds integers up to 2^53 exactly; beyond that round straight from
        // the integer to avoid double rounding.
        let exact = d.status == rustc_apfloat::Status::OK;
        if exact {
            convert_float(d.value, dst, round)
        } else {
            match dst {
                Type::F16 => int_to_fmt::<Half>(v, src.is_signed(), round),
                Type::BF16 => int_to_fmt::<BFloat>(v, src.is_signed(), round),
                Type::F32 => int_to_fmt::<Single>(v, src.is_signed(), round),
                _ => int_to_fmt::<Double>(v, src.is_signed(), round),
            }
        }
    };
    if sat {
        saturate(dst, bits)
    } else {
        bits
    }
}

fn int_to_fmt<T: Float>(v: u64, signed: bool, round: Round) -> u64 {
    let r = if signed {
        T::from_i128_r(v as i64 as i128, round)
    } else {
        T::from_u128_r(v as u128, round)
    };
    r.value.to_bits() as u64
}

fn float_to_float(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool, a: u64) -> u64 {
    let a = if ftz && src == Type::F32 {
        flush_f32(a as u32) as u64
    } else {
        a
    };
    if float_bits_is_nan(src, a) {
        return if sat { 0 } else { float_canonical_nan(dst) };
    }
    let Some(v) = from_bits(src, a) else { return 0 };
    let integral = matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi));
    let bits = if integral {
        // Same-size conversion rounding to an integral value.
        let round = round_of(rnd);
        match v {
            AnyFloat::H(h) => h.round_to_integral(round).value.to_bits() as u64,
            AnyFloat::B(b) => b.round_to_integral(round).value.to_bits() as u64,
            AnyFloat::S(s) => s.round_to_integral(round).value.to_bits() as u64,
            AnyFloat::D(d) => d.round_to_integral(round).value.to_bits() as u64,
        }
    } else {
        let round = round_of(rnd);
        match v {
            AnyFloat::H(h) => convert_float(h, dst, round),
            AnyFloat::B(b) => convert_float(b, dst, round),
            AnyFloat::S(s) => convert_float(s, dst, round),
            AnyFloat::D(d) => convert_float(d, dst, round),
        }
    };
    let bits = if ftz && dst == Type::F32 {
        flush_f32(bits as u32) as u64
    } else {
        bits
    };
    if sat {
        saturate(dst, bits)
    } else {
        bits
    }
}

const FMTS: [MiniFmt; 9] = [
    MiniFmt::F16,
    MiniFmt::BF16,
    MiniFmt::Tf32,
    MiniFmt::E4m3,
    MiniFmt::E5m2,
    MiniFmt::E2m3,
    MiniFmt::E3m2,
    MiniFmt::E2m1,
    MiniFmt::Ue8m0,
];
const RNDS: [CvtXRnd; 4] = [CvtXRnd::Rn, CvtXRnd::Rna, CvtXRnd::Rz, CvtXRnd::Rp];

fn fmt_code(f: MiniFmt) -> u64 {
    FMTS.iter().position(|&x| x == f).unwrap_or(0) as u64
}
fn rnd_code(r: CvtXRnd) -> u64 {
    RNDS.iter().position(|&x| x == r).unwrap_or(0) as u64
}

/// The descriptor of `op` for the JIT's helper call ([`decode`] inverts it).
pub fn encode(op: CvtXOp) -> u64 {
    match op {
        CvtXOp::FromF32 {
            fmt,
            pair,
            rnd,
            relu,
            satfinite,
        } => {
            fmt_code(fmt)
                | rnd_code(rnd) << 6
                | (relu as u64) << 8
                | (satfinite as u64) << 9
                | (pair as u64) << 10
        }
        CvtXOp::FromX2 {
            fmt,
            rnd,
            relu,
            satfinite,
        } => {
            fmt_code(fmt)
                | 1 << 4
                | rnd_code(rnd) << 6
                | (relu as u64) << 8
                | (satfinite as u64) << 9
        }
        CvtXOp::ToX2 { fmt, relu } => fmt_code(fmt) | 2 << 4 | (relu as u64) << 8,
        CvtXOp::Pack {
            bits,
            signed,
            with_c,
        } => 3 << 4 | (signed as u64) << 11 | (with_c as u64) << 12 | (bits as u64) << 16,
    }
}

/// The operation of a descriptor made by [`encode`].
pub fn decode(d: u64) -> Option<CvtXOp> {
    let fmt = *FMTS.get((d & 0xf) as usize)?;
    let rnd = RNDS[(d >> 6 & 3) as usize];
    let (relu, satfinite) = (d >> 8 & 1 != 0, d >> 9 & 1 != 0);
    Some(match d >> 4 & 3 {
        0 => CvtXOp::FromF32 {
            fmt,
            pair: d >> 10 & 1 != 0,
            rnd,
            relu,
            satfinite,
        },
        1 => CvtXOp::FromX2 {
            fmt,
            rnd,
            relu,
            satfinite,
        },
        2 => CvtXOp::ToX2 { fmt, relu },
        _ => CvtXOp::Pack {
            bits: (d >> 16 & 0xff) as u8,
            signed: d >> 11 & 1 != 0,
            with_c: d >> 12 & 1 != 0,
        },
    })
}

/// The result of `op` on its sources (`s[k]` holds source `k`'s bits).
pub fn eval(op: CvtXOp, s: &[u64]) -> u64 {
    let arg = |k: usize| s.get(k).copied().unwrap_or(0);
    match op {
        CvtXOp::FromF32 {
            fmt,
            pair,
            rnd,
            relu,
            satfinite,
        } => {
            let one =
                |x: u64| from_value(fmt, f32::from_bits(x as u32) as f64, rnd, relu, satfinite);
            if !pair {
                return one(arg(0));
            }
            let w = x2_width(fmt);
            one(arg(0)) << w | one(arg(1))
        }
        CvtXOp::FromX2 {
            fmt,
            rnd,
            relu,
            satfinite,
        } => {
            let a = arg(0);
            let src = if fmt == MiniFmt::Ue8m0 {
                Type::BF16
            } else {
                Type::F16
            };
            let one = |h: u64| from_value(fmt, half_value(src, h), rnd, relu, satfinite);
            let w = x2_width(fmt);
            one(a >> 16 & 0xffff) << w | one(a & 0xffff)
        }
        CvtXOp::ToX2 { fmt, relu } => {
            let a = arg(0);
            let w = x2_width(fmt);
            let m = (1u64 << w) - 1;
            to_half(fmt, a >> w & m, relu) << 16 | to_half(fmt, a & m, relu)
        }
        CvtXOp::Pack {
            bits,
            signed,
            with_c,
        } => pack(bits as u32, signed, with_c, arg(0), arg(1), arg(2)),
    }
}

/// Bits one converted value occupies in a packed result.
fn x2_width(fmt: MiniFmt) -> u32 {
    match fmt {
        MiniFmt::F16 | MiniFmt::BF16 | MiniFmt::Tf32 => 16,
        MiniFmt::E2m1 => 4,
        _ => 8,
    }
}

/// The exact value of an f16 or bf16 bit pattern.
fn half_value(ty: Type, h: u64) -> f64 {
    let mut lost = false;
    let d: Double = if ty == Type::BF16 {
        BFloat::from_bits(h as u128 & 0xffff)
            .convert(&mut lost)
            .value
    } else {
        Half::from_bits(h as u128 & 0xffff).convert(&mut lost).value
    };
    f64::from_bits(d.to_bits() as u64)
}

fn cvtx_round(r: CvtXRnd) -> Round {
    match r {
        CvtXRnd::Rn => Round::NearestTiesToEven,
        CvtXRnd::Rna => Round::NearestTiesToAway,
        CvtXRnd::Rz => Round::TowardZero,
        CvtXRnd::Rp => Round::TowardPositive,
    }
}

/// One value `x` (exact, from an f32, f16 or bf16) converted to `fmt`.
fn from_value(fmt: MiniFmt, x: f64, rnd: CvtXRnd, relu: bool, satfinite: bool) -> u64 {
    match fmt {
        MiniFmt::F16 | MiniFmt::BF16 => to_f16_bf16(fmt, x, rnd, relu, satfinite),
        MiniFmt::Tf32 => to_tf32((x as f32).to_bits(), rnd, relu, satfinite),
        MiniFmt::Ue8m0 => to_ue8m0(x, rnd, satfinite),
        _ => to_small(fmt, x, relu),
    }
}

fn to_f16_bf16(fmt: MiniFmt, x: f64, rnd: CvtXRnd, relu: bool, satfinite: bool) -> u64 {
    if x.is_nan() {
        return 0x7fff;
    }
    let bf = fmt == MiniFmt::BF16;
    let (max_bits, max) = if bf {
        (0x7f7f, (2.0 - 2f64.powi(-7)) * 2f64.powi(127))
    } else {
        (0x7bff, 65504.0)
    };
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let r = if satfinite && x.abs() > max {
        sign | max_bits
    } else {
        let mut lost = false;
        let d = Double::from_bits(x.to_bits() as u128);
        let round = cvtx_round(rnd);
        if bf {
            FloatConvert::<BFloat>::convert_r(d, round, &mut lost)
                .value
                .to_bits() as u64
        } else {
            FloatConvert::<Half>::convert_r(d, round, &mut lost)
                .value
                .to_bits() as u64
        }
    };
    if relu && r & 0x8000 != 0 {
        0
    } else {
        r
    }
}

fn to_tf32(bits: u32, rnd: CvtXRnd, relu: bool, satfinite: bool) -> u64 {
    if f32::from_bits(bits).is_nan() {
        return 0x7fff_ffff;
    }
    let sign = bits & 0x8000_0000;
    let mag = bits & 0x7fff_ffff;
    let (base, low) = (mag & !0x1fff, mag & 0x1fff);
    let up = match rnd {
        _ if mag == 0x7f80_0000 => false,
        CvtXRnd::Rn => low > 0x1000 || low == 0x1000 && base & 0x2000 != 0,
        CvtXRnd::Rna => low >= 0x1000,
        CvtXRnd::Rz => false,
        CvtXRnd::Rp => low != 0 && sign == 0,
    };
    // A carry out of the mantissa steps the exponent, up to infinity (0x7f800000).
    let mut r = if up { base + 0x2000 } else { base };
    if satfinite && r >= 0x7f80_0000 {
        r = 0x7f7f_e000;
    }
    if relu && sign != 0 {
        0
    } else {
        (sign | r) as u64
    }
}

fn to_ue8m0(x: f64, rnd: CvtXRnd, satfinite: bool) -> u64 {
    if x.is_nan() {
        return 0xff;
    }
    let a = x.abs();
    let code = if a.is_infinite() {
        255
    } else if a == 0.0 {
        0
    } else {
        // `a` is a normal f64 (it came from an f32 or bf16).
        let e = ((a.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        let exact = a.to_bits() & ((1u64 << 52) - 1) == 0;
        let k = if rnd == CvtXRnd::Rp && !exact {
            e + 1
        } else {
            e
        };
        (k + 127).clamp(0, 255)
    };
    if code == 255 && satfinite {
        254
    } else {
        code as u64
    }
}

/// Layout of the fp8/fp6/fp4 formats: exponent and mantissa bits, bias, the largest
/// finite code and the code a NaN input gives.
struct Small {
    ebits: u32,
    mbits: u32,
    bias: i32,
    max_code: u64,
    nan: u64,
    /// `.e4m3`: exponent and mantissa all ones is NaN. `.e5m2`: IEEE infinities/NaNs.
    kind: SmallKind,
}

#[derive(PartialEq, Eq)]
enum SmallKind {
    E4m3,
    Ieee,
    Finite,
}

fn small(fmt: MiniFmt) -> Small {
    let (ebits, mbits, bias, max_code, nan, kind) = match fmt {
        MiniFmt::E4m3 => (4, 3, 7, 0x7e, 0x7f, SmallKind::E4m3),
        MiniFmt::E5m2 => (5, 2, 15, 0x7b, 0x7f, SmallKind::Ieee),
        MiniFmt::E2m3 => (2, 3, 1, 0x1f, 0x1f, SmallKind::Finite),
        MiniFmt::E3m2 => (3, 2, 3, 0x1f, 0x1f, SmallKind::Finite),
        _ => (2, 1, 1, 0x7, 0x7, SmallKind::Finite),
    };
    Small {
        ebits,
        mbits,
        bias,
        max_code,
        nan,
        kind,
    }
}

/// The value of a non-negative finite code of a small format.
fn small_value(s: &Small, code: u64) -> f64 {
    let e = (code >> s.mbits) as i32;
    let m = (code & ((1 << s.mbits) - 1)) as f64;
    let scale = |k: i32| 2f64.powi(k);
    if e == 0 {
        m * scale(1 - s.bias - s.mbits as i32)
    } else {
        (m + (1u64 << s.mbits) as f64) * scale(e - s.bias - s.mbits as i32)
    }
}

/// `cvt.rn.satfinite{.relu}` of an exact value to fp8/fp6/fp4.
fn to_small(fmt: MiniFmt, x: f64, relu: bool) -> u64 {
    let s = small(fmt);
    if x.is_nan() {
        return s.nan;
    }
    let neg = x.is_sign_negative();
    let a = x.abs();
    let code = if a >= small_value(&s, s.max_code) {
        s.max_code
    } else {
        // The quantum of `a`'s binade (subnormal binades share the smallest normal's);
        // `a / q` is exact and the code is monotonic in the rounded multiple of `q`.
        let min_e = 1 - s.bias;
        let e = if a == 0.0 {
            min_e
        } else {
            ((((a.to_bits() >> 52) & 0x7ff) as i32) - 1023).max(min_e)
        };
        let n = (a / 2f64.powi(e - s.mbits as i32)).round_ties_even() as u64;
        ((((e - min_e) as u64) << s.mbits) + n).min(s.max_code)
    };
    if neg && relu {
        0
    } else {
        (neg as u64) << (s.ebits + s.mbits) | code
    }
}

/// One fp8/fp6/fp4 code as f16 bits, or one `.ue8m0` code as bf16 bits.
fn to_half(fmt: MiniFmt, code: u64, relu: bool) -> u64 {
    if fmt == MiniFmt::Ue8m0 {
        return match code {
            0xff => 0x7fff,
            0 => 0x0040,
            c => c << 7,
        };
    }
    let s = small(fmt);
    let w = s.ebits + s.mbits;
    let neg = code >> w & 1 != 0;
    let mag = code & ((1 << w) - 1);
    let e = mag >> s.mbits;
    let emax = (1 << s.ebits) - 1;
    let r = match s.kind {
        SmallKind::E4m3 if mag == 0x7f => return 0x7fff,
        SmallKind::Ieee if e == emax && mag & ((1 << s.mbits) - 1) != 0 => return 0x7fff,
        SmallKind::Ieee if e == emax => 0x7c00,
        _ => {
            let mut lost = false;
            let d = Double::from_bits(small_value(&s, mag).to_bits() as u128);
            FloatConvert::<Half>::convert_r(d, Round::NearestTiesToEven, &mut lost)
                .value
                .to_bits() as u64
        }
    };
    if neg && relu {
        0
    } else {
        (neg as u64) << 15 | r
    }
}

/// `cvt.pack.sat`: `a`, `b` (s32) saturated to `bits`-bit integers and packed.
fn pack(bits: u32, signed: bool, with_c: bool, a: u64, b: u64, c: u64) -> u64 {
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let m = (1u64 << bits) - 1;
    let sat = |v: u64| ((v as u32 as i32 as i64).clamp(lo, hi) as u64) & m;
    let mut d = sat(a) << bits | sat(b);
    if with_c {
        d |= c << (2 * bits);
    }
    d & 0xffff_ffff
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
