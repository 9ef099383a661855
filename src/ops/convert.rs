//! The conversion family's semantics. `cvt`: conversions between integer and
//! floating-point types with every rounding modifier, `.ftz` and `.sat`; the narrow
//! formats and `cvt.pack` in [`cvtx`].

pub mod cvtx;

use super::float::{canonical_nan, flush_f32, round_of};
use super::{extend, mask, sext};
use crate::ir::{Rnd, Type};
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
        return 0;
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
