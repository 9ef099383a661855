//! Deterministic per-lane input generators (SplitMix64 from `tests/common`), biased to the
//! values where implementations go wrong: zeros of both signs, infinities, NaNs with
//! payloads (quiet and signalling), subnormals, the smallest and largest normals, powers
//! of two, rounding ties (x.5, halfway sums and products), integer extremes (MIN, MAX,
//! -1, all ones) and shift amounts around the operand width.

use super::Gen;
use crate::common::Rng;
use std::sync::Arc;

fn pick<T: Copy>(r: &mut Rng, v: &[T]) -> T {
    v[(r.u64() % v.len() as u64) as usize]
}

/// A random value with a random number of significant bits (small values are common).
fn bits_of(r: &mut Rng, w: u32) -> u64 {
    let k = r.range(1, w + 1);
    let v = r.u64() & super::mask(k);
    if r.u32() & 1 == 1 {
        v
    } else {
        v.wrapping_neg()
    }
}

/// Integers of width `w`: extremes, powers of two and their neighbours, small values,
/// values around shift widths, and uniform random bits.
pub fn int(w: u32) -> Gen {
    Arc::new(move |r, _, _| int_value(r, w))
}

pub fn int_value(r: &mut Rng, w: u32) -> u64 {
    let m = super::mask(w);
    let min = 1u64 << (w - 1);
    match r.range(0, 8) {
        0 | 1 => {
            pick(
                r,
                &[
                    0,
                    1,
                    2,
                    3,
                    m,
                    m - 1,
                    min,
                    min - 1,
                    min + 1,
                    min - 2,
                    0x7f,
                    0x80,
                    0xff,
                    0x100,
                    0x7fff,
                    0x8000,
                    0xffff,
                    0x1_0000,
                    0x7fff_ffff,
                    0x8000_0000,
                    0xffff_ffff,
                    0x1_0000_0000,
                    w as u64 - 1,
                    w as u64,
                    w as u64 + 1,
                    31,
                    32,
                    33,
                    63,
                    64,
                    65,
                ],
            ) & m
        }
        2 => {
            let k = r.range(0, w);
            let p = 1u64 << k;
            pick(r, &[p, p - 1, p + 1, p.wrapping_neg(), !p]) & m
        }
        3 | 4 => bits_of(r, w) & m,
        _ => r.u64() & m,
    }
}

/// Shift amounts (u32) for a `w`-bit shift: mostly 0..=w+1, then large values.
pub fn shift(w: u32) -> Gen {
    Arc::new(move |r, _, _| match r.range(0, 8) {
        0..=4 => r.range(0, w + 2) as u64,
        5 => pick(
            r,
            &[
                31u64,
                32,
                33,
                63,
                64,
                65,
                255,
                256,
                257,
                0x8000_0000,
                0xffff_ffff,
            ],
        ),
        _ => r.u32() as u64,
    })
}

/// Bit-field positions and lengths (`bfe`, `bfi`: the low 8 bits count).
pub fn field(w: u32) -> Gen {
    Arc::new(move |r, _, _| match r.range(0, 8) {
        0..=4 => r.range(0, w + 2) as u64,
        5 => pick(r, &[0u64, 1, 127, 128, 255, 256, 257, 0x1_0000 + 3]),
        _ => r.u32() as u64,
    })
}

/// The same value for every lane of a warp (`g` evaluated for the warp's first lane):
/// for the JIT's uniform fast paths (shifts by a register amount).
pub fn uniform(g: Gen) -> Gen {
    Arc::new(move |_, lane, prev| {
        let mut r = Rng::new(0x5eed_0000 ^ (lane as u64 / 32).wrapping_mul(0x9E37_79B9));
        g(&mut r, lane & !31, prev)
    })
}

/// One of `vals`.
pub fn one_of(vals: &'static [u64]) -> Gen {
    Arc::new(move |r, _, _| pick(r, vals))
}

/// Uniform random bits.
pub fn any() -> Gen {
    Arc::new(|r, _, _| r.u64())
}

/// A predicate (0 or 1).
pub fn pred() -> Gen {
    Arc::new(|r, _, _| r.u64() & 1)
}

/// The lane number (plus `base`), for exhaustive inputs.
pub fn lane(base: u64) -> Gen {
    Arc::new(move |_, lane, _| base + lane as u64)
}

/// `f(lane)`.
pub fn by_lane(f: impl Fn(usize) -> u64 + Send + Sync + 'static) -> Gen {
    Arc::new(move |_, lane, _| f(lane))
}

// ---------------------------------------------------------------------------------------
// Floats.

/// Special f32 bit patterns (both signs are added by the generator).
pub const F32_SPECIAL: [u32; 40] = [
    0x0000_0000, // +0
    0x7f80_0000, // inf
    0x7fc0_0000, // canonical quiet NaN
    0x7fff_ffff, // the GPU's canonical NaN
    0x7fc1_2345, // quiet NaN with payload
    0x7f80_0001, // signalling NaN
    0x7fbf_ffff, // signalling NaN, all payload bits
    0x0000_0001, // smallest subnormal
    0x0000_0002,
    0x0040_0000, // subnormal, half of min normal
    0x007f_ffff, // largest subnormal
    0x0080_0000, // smallest normal
    0x0080_0001,
    0x7f7f_ffff, // largest finite
    0x7f7f_fffe,
    0x7f00_0000, // 2^127
    0x3f80_0000, // 1
    0x3f80_0001, // 1 + ulp
    0x3f7f_ffff, // 1 - ulp/2
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0x3e80_0000, // 0.25
    0x3f40_0000, // 0.75
    0x4b00_0000, // 2^23
    0x4b7f_ffff, // 2^24 - 1
    0x4b80_0000, // 2^24
    0x4b80_0001, // 2^24 + 2
    0x4aff_ffff, // 2^23 - 0.5
    0x4f00_0000, // 2^31
    0x4f80_0000, // 2^32
    0x5f00_0000, // 2^63
    0x5f80_0000, // 2^64
    0x477f_e000, // 65504: f16 max
    0x477f_f000, // 65520: rounds to f16 inf
    0x3380_0000, // 2^-24: f16 min subnormal
    0x3300_0000, // 2^-25: ties to f16 zero
    0x3880_0000, // 2^-14: f16 min normal
    0x387f_c000, // f16 max subnormal
    0x3f80_1000, // 1 + 2^-11: ties to f16
];

pub const F64_SPECIAL: [u64; 32] = [
    0,
    0x7ff0_0000_0000_0000, // inf
    0x7ff8_0000_0000_0000, // quiet NaN
    0x7fff_ffff_ffff_ffff, // canonical NaN
    0x7ff8_0000_dead_beef, // payload
    0x7ff0_0000_0000_0001, // signalling
    0x7ff7_ffff_ffff_ffff, // signalling, all payload bits
    0x7ff8_0000_2000_0000, // payload that survives a narrowing to f32
    1,                     // smallest subnormal
    0x000f_ffff_ffff_ffff, // largest subnormal
    0x0010_0000_0000_0000, // smallest normal
    0x7fef_ffff_ffff_ffff, // largest finite
    0x3ff0_0000_0000_0000, // 1
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x3ff0_0000_1000_0000, // 1 + 2^-24: f32 tie
    0x3ff0_0000_1000_0001, // just above the f32 tie
    0x3ff0_0000_3000_0000, // 1 + 3*2^-24: f32 tie to even (up)
    0x3fe0_0000_0000_0000, // 0.5
    0x3ff8_0000_0000_0000, // 1.5
    0x4004_0000_0000_0000, // 2.5
    0x4330_0000_0000_0000, // 2^52
    0x432f_ffff_ffff_ffff, // 2^52 - 0.5
    0x43e0_0000_0000_0000, // 2^63
    0x43f0_0000_0000_0000, // 2^64
    0x41e0_0000_0000_0000, // 2^31
    0x41f0_0000_0000_0000, // 2^32
    0x47ef_ffff_e000_0000, // f32 max
    0x47ef_ffff_f000_0000, // f32 max + half ulp: rounds to inf
    0x36a0_0000_0000_0000, // f32 min subnormal (2^-149)
    0x3690_0000_0000_0000, // 2^-150: ties to f32 zero
    0x3810_0000_0000_0000, // f32 min normal
    0x380f_ffff_c000_0000, // f32 max subnormal
];

fn sign32(x: u32, r: &mut Rng) -> u32 {
    x | (r.u32() & 0x8000_0000)
}

/// f32 bits: specials, random bits, small dyadic values (exact sums, ties), and values at
/// the extremes of the exponent range.
pub fn f32() -> Gen {
    Arc::new(|r, _, _| f32_value(r) as u64)
}

pub fn f32_value(r: &mut Rng) -> u32 {
    match r.range(0, 16) {
        0..=4 => sign32(pick(r, &F32_SPECIAL), r),
        5..=7 => r.u32(),
        8..=10 => {
            // k/2^j for small k: many exact results and rounding ties (x.5).
            let k = r.range(0, 256) as f32 - 128.0;
            let j = r.range(0, 6) as i32;
            (k / 2f32.powi(j)).to_bits()
        }
        11 => sign32(r.range(0, 0x0100_0000), r), // subnormal or tiny normal
        12 => sign32(0x7e00_0000 | r.range(0, 0x0180_0000), r), // near overflow
        13 => {
            // In [0, 1] and around 1 (saturation).
            let x = r.u32() as f32 / u32::MAX as f32;
            (x * 1.25 - 0.125).to_bits()
        }
        _ => {
            // Moderate exponents, random mantissa.
            let e = r.range(100, 160);
            sign32(e << 23 | (r.u32() & 0x7f_ffff), r)
        }
    }
}

/// An f32 related to the earlier source `j` of the lane (half of the time): equal,
/// negated, a few ulps away, or scaled by 2^-k (so sums round at or near a tie and
/// products overflow or underflow); otherwise as `f32()`.
pub fn f32_near(j: usize) -> Gen {
    Arc::new(move |r, _, prev| {
        let x = prev.get(j).copied().unwrap_or(0) as u32;
        if r.u32() & 1 == 0 {
            return f32_value(r) as u64;
        }
        let y = match r.range(0, 8) {
            0 => x,
            1 => x ^ 0x8000_0000,
            2 => x.wrapping_add(r.range(0, 5)).wrapping_sub(2),
            3 | 4 => {
                // x * 2^-k with k around 24: the sum is at or near a rounding tie.
                let e = (x >> 23) & 0xff;
                let k = r.range(20, 28);
                let ne = e.saturating_sub(k);
                let m = match r.range(0, 3) {
                    0 => 0,
                    1 => r.u32() & 0x7f_ffff,
                    _ => 0x40_0000,
                };
                (x & 0x8000_0000) ^ (r.u32() & 0x8000_0000) | ne << 23 | m
            }
            5 => {
                // Reciprocal exponent: products near 1, overflow or underflow.
                let e = (x >> 23) & 0xff;
                let ne = (254u32.saturating_sub(e) + r.range(0, 5))
                    .saturating_sub(2)
                    .min(254);
                sign32(ne << 23 | (r.u32() & 0x7f_ffff), r)
            }
            6 => f32::from_bits(x).round().to_bits(),
            _ => sign32(pick(r, &F32_SPECIAL), r),
        };
        y as u64
    })
}

fn sign64(x: u64, r: &mut Rng) -> u64 {
    x | (r.u64() & (1 << 63))
}

/// f64 bits, as `f32()`.
pub fn f64() -> Gen {
    Arc::new(|r, _, _| f64_value(r))
}

pub fn f64_value(r: &mut Rng) -> u64 {
    match r.range(0, 16) {
        0..=4 => sign64(pick(r, &F64_SPECIAL), r),
        5..=7 => r.u64(),
        8..=10 => {
            let k = r.range(0, 256) as f64 - 128.0;
            let j = r.range(0, 6) as i32;
            (k / 2f64.powi(j)).to_bits()
        }
        11 => sign64(r.u64() >> r.range(11, 20), r), // subnormal or tiny normal
        12 => sign64(0x7fe0_0000_0000_0000 | (r.u64() >> 13), r), // near overflow
        13 => {
            // Around the f32 range's edges and f32 values (narrowing ties).
            let f = f32_value(r);
            let d = (f32::from_bits(f) as f64).to_bits();
            d ^ (r.u64() & pick(r, &[0u64, 0x1fff_ffff, 0x1000_0000, 0xfff_ffff]))
        }
        14 => {
            let x = r.u64() as f64 / u64::MAX as f64;
            (x * 1.25 - 0.125).to_bits()
        }
        _ => {
            let e = r.range(900, 1150) as u64;
            sign64(e << 52 | (r.u64() & ((1 << 52) - 1)), r)
        }
    }
}

/// An f64 related to the earlier source `j` (see `f32_near`).
pub fn f64_near(j: usize) -> Gen {
    Arc::new(move |r, _, prev| {
        let x = prev.get(j).copied().unwrap_or(0);
        if r.u32() & 1 == 0 {
            return f64_value(r);
        }
        match r.range(0, 8) {
            0 => x,
            1 => x ^ (1 << 63),
            2 => x.wrapping_add(r.range(0, 5) as u64).wrapping_sub(2),
            3 | 4 => {
                let e = (x >> 52) & 0x7ff;
                let k = r.range(50, 57) as u64;
                let ne = e.saturating_sub(k);
                let m = match r.range(0, 3) {
                    0 => 0,
                    1 => r.u64() & ((1 << 52) - 1),
                    _ => 1 << 51,
                };
                (x & (1 << 63)) ^ (r.u64() & (1 << 63)) | ne << 52 | m
            }
            5 => {
                let e = (x >> 52) & 0x7ff;
                let ne = (2046u64.saturating_sub(e) + r.range(0, 5) as u64)
                    .saturating_sub(2)
                    .min(2046);
                sign64(ne << 52 | (r.u64() & ((1 << 52) - 1)), r)
            }
            6 => f64::from_bits(x).round().to_bits(),
            _ => sign64(pick(r, &F64_SPECIAL), r),
        }
    })
}

pub const F16_SPECIAL: [u16; 24] = [
    0x0000, 0x7c00, 0x7e00, 0x7fff, 0x7e5a, 0x7c01, 0x7dff, 0x0001, 0x0002, 0x03ff, 0x0200, 0x0400,
    0x0401, 0x7bff, 0x7bfe, 0x3c00, 0x3c01, 0x3bff, 0x3800, 0x3e00, 0x4100, 0x6400, 0x6800, 0x1400,
];

pub const BF16_SPECIAL: [u16; 22] = [
    0x0000, 0x7f80, 0x7fc0, 0x7fff, 0x7fc5, 0x7f81, 0x7fbf, 0x0001, 0x0002, 0x007f, 0x0040, 0x0080,
    0x0081, 0x7f7f, 0x7f7e, 0x3f80, 0x3f81, 0x3f7f, 0x3f00, 0x3fc0, 0x4020, 0x4b00,
];

/// A 16-bit float of format `bf` (bf16 if true): specials, random bits, small dyadic values.
pub fn half_value(r: &mut Rng, bf: bool) -> u16 {
    let s = (r.u32() & 0x8000) as u16;
    match r.range(0, 8) {
        0..=2 => {
            s | pick(
                r,
                if bf {
                    &BF16_SPECIAL[..]
                } else {
                    &F16_SPECIAL[..]
                },
            )
        }
        3..=5 => r.u32() as u16,
        _ => {
            let k = r.range(0, 64) as f32 - 32.0;
            let f = k / 2f32.powi(r.range(0, 4) as i32);
            if bf {
                (f.to_bits() >> 16) as u16
            } else {
                ::half::f16::from_f32(f).to_bits()
            }
        }
    }
}

/// A 16-bit float (`bf`: bf16) in the low half.
pub fn half(bf: bool) -> Gen {
    Arc::new(move |r, _, _| half_value(r, bf) as u64)
}

/// Two 16-bit floats packed in 32 bits.
pub fn half2(bf: bool) -> Gen {
    Arc::new(move |r, _, _| {
        let lo = half_value(r, bf) as u64;
        lo | (half_value(r, bf) as u64) << 16
    })
}

/// Related to the earlier (packed or single) half source `j`: each half equal, negated or
/// one ulp away half of the time.
pub fn half_near(j: usize, bf: bool, packed: bool) -> Gen {
    Arc::new(move |r, _, prev| {
        let x = prev.get(j).copied().unwrap_or(0);
        let mut out = 0u64;
        for k in 0..(1 + packed as u32) {
            let h = (x >> (16 * k)) as u16;
            let v = match r.range(0, 6) {
                0 => h,
                1 => h ^ 0x8000,
                2 => h.wrapping_add(1),
                3 => h.wrapping_sub(1),
                _ => half_value(r, bf),
            };
            out |= (v as u64) << (16 * k);
        }
        out
    })
}
