//! Numerics of the warp-level matrix products (`mma.sync`, `wmma.mma`), one result
//! element at a time: `D[i][j] = C[i][j] + sum_k A[i][k] * B[k][j]` from the element bit
//! patterns of row `i` of A, column `j` of B and `C[i][j]`.
//!
//! # Floating-point inputs (`.f16`, `.bf16`, `.tf32`, `.e4m3`, `.e5m2`)
//!
//! The PTX ISA leaves the accumulation order, rounding and subnormal handling
//! unspecified. ptxjit does what an NVIDIA H100 does (a model that reproduces all 16,831
//! finite results recorded in `tests/golden`, random, cancellation-heavy, wide-range,
//! subnormal and +-1 inputs, and predicted the values of all 16,384 of a hold-out set):
//! with `E` the largest of the exponents `floor(log2 |C|)` and, for each nonzero
//! product, `floor(log2 |A|) + floor(log2 |B|)` (of the factors, not of the product),
//! every term is truncated toward zero to a multiple of `2^(E - 25)`; the truncated terms
//! are summed exactly (a fixed-point accumulator) and the sum is truncated toward zero
//! to f32 (on the subnormal grid below 2^-126; a magnitude of 2^128 or more gives an
//! infinity). So the result does not depend on a summation order, and subnormal inputs
//! and results are kept. `.tf32` operands ignore their low 13 bits (the H100 truncates
//! them: `tests/golden/README.md`). `.e4m3` has bias 7, no infinities and NaN
//! `S.1111.111`; `.e5m2` is IEEE-like. An `.f16` result (`.f16` accumulators) is the
//! same exact sum of the truncated terms rounded to nearest even f16 (overflow: inf; this
//! reproduces every recorded `.f16` result of `mma` and `wmma`; truncating to f32 first,
//! then rounding, missed one). Special
//! values: a NaN term (a NaN in `C[i][j]`, in row `i` of A or column `j` of B, or `inf *
//! 0`) or infinities of both signs give the canonical NaN (`0x7fffffff`, f16 `0x7fff`);
//! otherwise an infinite term gives that infinity. A zero result is `-0.0` when every
//! term is `-0.0` (a zero product's sign is the XOR of its operands' signs), else `+0.0`
//! (also when a nonzero sum truncates to zero, as the H100 gives).
//!
//! # `.f64`
//!
//! The chain of correctly rounded FMAs over `k` in increasing order starting from C,
//! `d = fma(a[k], b[k], d)` (what the H100 computes for every recorded lane,
//! `tests/golden/README.md`), in the `wmma` rounding mode (`.rn` by default). NaN
//! operands propagate quieted as the GPU's `fma.f64` does (`b`, then the running sum,
//! then `a`); an invalid operation gives `0xfff8000000000000`.
//!
//! # Integers
//!
//! `.s8/.u8/.s4/.u4`: exact `C + sum A * B` in 64 bits, then wrapped to 32 bits, or with
//! `.satfinite` clamped to `[i32::MIN, i32::MAX]`. `.b1`: `C + sum popc(A op B)` over
//! the bits of `k` (`op` = xor or and), wrapped.

use crate::ir::{ArithOp, ElemType, FloatMode, MmaOp, PopcOp, Rnd};

/// One result element of `op` (bit pattern of `op.dtype`).
pub fn dot(op: MmaOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    use ElemType::*;
    match op.atype {
        S8 | U8 | S4 | U4 => dot_int(op, a, b, c as u32) as u64,
        B1 => dot_b1(op.bop.unwrap_or(PopcOp::Xor), a, b, c as u32) as u64,
        F64 => dot_f64(op.rnd, a, b, c),
        E4M3 | E5M2 => dot_fp8(op, a, b, c),
        F16 if op.shape == crate::ir::MmaShape::M8n8k4 && op.dtype == F32 => {
            dot_ffma_chain(op, a, b, c)
        }
        TF32 if op.shape == crate::ir::MmaShape::M16n16k8 => {
            // wmma m16n16k8: two m16n8k4 steps in k order (the H100's SASS: two
            // HMMA.1684.F32.TF32 per half of D).
            let d = dot_float(op, &a[..4], &b[..4], c);
            dot_float(op, &a[4..], &b[4..], d)
        }
        _ => dot_float(op, a, b, c),
    }
}

/// [`dot`] for hardware with native products of every input type (`wgmma`): the
/// `.e4m3`/`.e5m2` products are summed like the other floating-point inputs (one exact
/// sum of the truncated terms), not through ptxas's f16 emulation of `mma`.
pub fn dot_native(op: MmaOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    match op.atype {
        ElemType::E4M3 | ElemType::E5M2 => dot_float(op, a, b, c),
        _ => dot(op, a, b, c),
    }
}

/// `mma.m8n8k4` `.f16` with an `.f32` result: the H100 has no such `mma`; ptxas runs
/// `p = fma.rn.f32(a[k], b[k], p)` over `k` in increasing order from `p = +0`, then
/// `add.rn.f32(C, p)` (`FFMA`/`FADD` in `tests/golden/out_future/mma.sass.gz`). NaN
/// results are the canonical NaN.
fn dot_ffma_chain(op: MmaOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    let h = |x: u64| super::half::f16_to_f64(x as u16) as f32;
    let p = a
        .iter()
        .zip(b)
        .fold(0f32, |p, (&x, &y)| h(x).mul_add(h(y), p));
    let cv = if op.ctype == ElemType::F16 {
        h(c)
    } else {
        f32::from_bits(c as u32)
    };
    let s = cv + p;
    if s.is_nan() {
        0x7fff_ffff
    } else {
        s.to_bits() as u64
    }
}

/// `.e4m3`/`.e5m2`: the H100 has no fp8 `mma`; ptxas converts the operands to f16
/// (exactly) and runs two f16 products from zero, the first over the `k` with `k % 4` in
/// {0, 1} (the low halves of the operand registers), the second over the others with the
/// first's result as accumulator, then adds C with a separate `add.rn` (`FADD`/`HADD2`
/// in `tests/golden/out_future/mma87.sass.gz`).
fn dot_fp8(op: MmaOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    let pick = |v: &[u64], lo: bool| -> Vec<u64> {
        v.iter()
            .enumerate()
            .filter(|(k, _)| (k % 4 < 2) == lo)
            .map(|(_, &x)| x)
            .collect()
    };
    let inner = MmaOp {
        ctype: op.dtype,
        ..op
    };
    let p1 = dot_float(inner, &pick(a, true), &pick(b, true), 0);
    let p2 = dot_float(inner, &pick(a, false), &pick(b, false), p1);
    if op.dtype == ElemType::F16 {
        let m = crate::ir::HalfMode::default();
        let k = super::half::HalfKind::F16;
        super::half::half(k, crate::ir::HalfOp::Add, m, p2 as u16, c as u16, 0) as u64
    } else {
        let s = f32::from_bits(c as u32) + f32::from_bits(p2 as u32);
        if s.is_nan() {
            0x7fff_ffff
        } else {
            s.to_bits() as u64
        }
    }
}

/// Sign-extends or zero-extends an integer element.
fn ext(ty: ElemType, v: u64) -> i64 {
    let bits = ty.bits();
    let v = v & ((1u64 << bits) - 1);
    match ty {
        ElemType::S8 | ElemType::S4 => ((v << (64 - bits)) as i64) >> (64 - bits),
        _ => v as i64,
    }
}

fn dot_int(m: MmaOp, a: &[u64], b: &[u64], c: u32) -> u32 {
    let sum = a.iter().zip(b).fold(c as i32 as i64, |s, (&x, &y)| {
        s + ext(m.atype, x) * ext(m.btype, y)
    });
    if m.satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        sum as u32
    }
}

fn dot_b1(op: PopcOp, a: &[u64], b: &[u64], c: u32) -> u32 {
    let n = a
        .iter()
        .zip(b)
        .filter(|(&x, &y)| match op {
            PopcOp::Xor => (x ^ y) & 1 != 0,
            PopcOp::And => x & y & 1 != 0,
        })
        .count();
    c.wrapping_add(n as u32)
}

/// The GPU's `fma.f64` NaN propagation, or `None` when no operand is NaN.
fn fma_nan(a: u64, b: u64, c: u64) -> Option<u64> {
    const QUIET: u64 = 1 << 51;
    let nan = |x: u64| f64::from_bits(x).is_nan();
    [b, c, a].into_iter().find(|&x| nan(x)).map(|x| x | QUIET)
}

fn dot_f64(rnd: Option<u8>, a: &[u64], b: &[u64], c: u64) -> u64 {
    let rnd = match rnd {
        Some(1) => Some(Rnd::Rz),
        Some(2) => Some(Rnd::Rm),
        Some(3) => Some(Rnd::Rp),
        _ => None,
    };
    let fm = FloatMode {
        rnd,
        ftz: false,
        sat: false,
    };
    a.iter().zip(b).fold(c, |d, (&x, &y)| {
        if let Some(n) = fma_nan(x, y, d) {
            return n;
        }
        let r = super::float::arith_f64(ArithOp::Fma, fm, x, y, d);
        if f64::from_bits(r).is_nan() {
            0xfff8_0000_0000_0000
        } else {
            r
        }
    })
}

/// A finite float as `(-1)^neg * m * 2^e`, or a special value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    Fin { neg: bool, m: u64, e: i32 },
    Inf(bool),
    NaN,
}

/// Decodes an IEEE binary value with `ebits` exponent and `fbits` fraction bits.
fn decode(bits: u32, ebits: u32, fbits: u32) -> Num {
    let neg = bits >> (ebits + fbits) & 1 != 0;
    let emax = (1u32 << ebits) - 1;
    let bias = (emax >> 1) as i32;
    let ex = bits >> fbits & emax;
    let frac = (bits & ((1 << fbits) - 1)) as u64;
    if ex == emax {
        return if frac == 0 { Num::Inf(neg) } else { Num::NaN };
    }
    let (m, e) = if ex == 0 {
        (frac, 1 - bias - fbits as i32)
    } else {
        (frac | 1 << fbits, ex as i32 - bias - fbits as i32)
    };
    Num::Fin { neg, m, e }
}

/// Decodes one element of a float type.
pub(super) fn decode_elem(ty: ElemType, bits: u64) -> Num {
    let b = bits as u32;
    match ty {
        ElemType::BF16 => decode(b & 0xffff, 8, 7),
        ElemType::TF32 => decode(b & !0x1fff, 8, 23),
        ElemType::F32 => decode(b, 8, 23),
        ElemType::E5M2 => decode(b & 0xff, 5, 2),
        ElemType::E4M3 => {
            let neg = b & 0x80 != 0;
            let (ex, frac) = (b >> 3 & 15, (b & 7) as u64);
            match (ex, frac) {
                (15, 7) => Num::NaN,
                (0, _) => Num::Fin {
                    neg,
                    m: frac,
                    e: -9,
                },
                _ => Num::Fin {
                    neg,
                    m: frac | 8,
                    e: ex as i32 - 10,
                },
            }
        }
        _ => decode(b & 0xffff, 5, 10),
    }
}

/// Weight of bit 0 of the accumulator: 2^-LSB. The smallest term is a product of two
/// tf32 subnormals, 2^-136 * 2^-136.
const LSB: i32 = 300;
/// Limbs of the accumulator: sums stay below 2^262 (32 products < 2^256 each, plus an
/// f32 < 2^128), so 562 bits above 2^-300 suffice.
const LIMBS: usize = 9;

/// An unsigned fixed-point number `sum limb[k] * 2^(64k - LSB)`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Fixed([u64; LIMBS]);

impl Fixed {
    /// Adds `m * 2^e` (`m < 2^48`, `-LSB <= e`, the sum stays below 2^(576 - LSB)).
    fn add(&mut self, m: u64, e: i32) {
        let shift = (e + LSB).max(0) as usize;
        let (k, s) = (shift / 64, shift % 64);
        let wide = (m as u128) << s;
        let mut carry = 0u128;
        for j in k..LIMBS {
            let part = match j - k {
                0 => wide as u64 as u128,
                1 => (wide >> 64) as u64 as u128,
                _ if carry == 0 => break,
                _ => 0,
            };
            let t = self.0[j] as u128 + part + carry;
            self.0[j] = t as u64;
            carry = t >> 64;
        }
    }

    /// Whether `self > o` (limbs compared from the most significant).
    fn greater(&self, o: &Fixed) -> bool {
        self.0.iter().rev().cmp(o.0.iter().rev()) == std::cmp::Ordering::Greater
    }

    fn sub(&self, o: &Fixed) -> Fixed {
        let mut r = [0u64; LIMBS];
        let mut borrow = 0u64;
        for (k, x) in r.iter_mut().enumerate() {
            let (d, b1) = self.0[k].overflowing_sub(o.0[k]);
            let (d, b2) = d.overflowing_sub(borrow);
            *x = d;
            borrow = (b1 || b2) as u64;
        }
        Fixed(r)
    }

    fn bit(&self, i: usize) -> bool {
        i < 64 * LIMBS && self.0[i / 64] >> (i % 64) & 1 != 0
    }

    /// Index of the highest set bit.
    fn top(&self) -> Option<usize> {
        (0..LIMBS)
            .rev()
            .find(|&k| self.0[k] != 0)
            .map(|k| 64 * k + 63 - self.0[k].leading_zeros() as usize)
    }

    /// Bits `[lo, lo + n)`.
    fn bits_from(&self, lo: usize, n: usize) -> u64 {
        (lo..lo + n)
            .filter(|&i| self.bit(i))
            .fold(0, |v, i| v | 1 << (i - lo))
    }

    /// Whether any bit below `lo` is set.
    fn any_below(&self, lo: usize) -> bool {
        (0..lo).any(|i| self.bit(i))
    }
}

/// A binary float format: fraction bits, the exponent of the smallest normal, and the
/// bits of +inf.
#[derive(Clone, Copy)]
struct Format {
    fbits: u32,
    emin: i32,
    inf: u64,
}

const F32: Format = Format {
    fbits: 23,
    emin: -126,
    inf: 0x7f80_0000,
};
const F16: Format = Format {
    fbits: 10,
    emin: -14,
    inf: 0x7c00,
};

/// Rounds the exact value `(-1)^neg * x * 2^-LSB` (nonzero, highest bit `top`) to
/// format `f`, toward zero or to nearest even; a magnitude past the largest finite
/// value gives an infinity. A result of zero is +0.
fn round_fixed(neg: bool, x: &Fixed, top: usize, f: Format, nearest: bool) -> u64 {
    // Bit index of the format's smallest subnormal step.
    let sub = (LSB + f.emin - f.fbits as i32) as usize;
    let lo = top.saturating_sub(f.fbits as usize).max(sub);
    let mut q = x.bits_from(lo, f.fbits as usize + 2);
    if nearest && lo > 0 && x.bit(lo - 1) && (x.any_below(lo - 1) || q & 1 != 0) {
        q += 1;
    }
    // q < 2^fbits only in the subnormal range (lo == sub); a carry into the next
    // binade adds to the exponent field.
    let mag = (((lo - sub) as u64) << f.fbits) + q;
    let mag = mag.min(f.inf);
    if mag == 0 {
        return 0;
    }
    mag | (neg as u64) << (f.fbits + (if f.fbits == 23 { 8 } else { 5 }))
}

/// Highest set bit of a nonzero significand.
fn msb(m: u64) -> i32 {
    63 - m.leading_zeros() as i32
}

/// The product of two decoded factors and its alignment exponent.
fn product(x: Num, y: Num) -> (Num, i32) {
    match (x, y) {
        (Num::NaN, _) | (_, Num::NaN) => (Num::NaN, 0),
        (Num::Inf(s), Num::Inf(t)) => (Num::Inf(s != t), 0),
        (Num::Inf(s), Num::Fin { neg: t, m, .. }) | (Num::Fin { neg: t, m, .. }, Num::Inf(s)) => {
            if m == 0 {
                (Num::NaN, 0)
            } else {
                (Num::Inf(s != t), 0)
            }
        }
        (Num::Fin { neg: s, m, e }, Num::Fin { neg: t, m: k, e: f }) => {
            let align = if m == 0 || k == 0 {
                0
            } else {
                e + msb(m) + f + msb(k)
            };
            let p = Num::Fin {
                neg: s != t,
                m: m * k,
                e: e + f,
            };
            (p, align)
        }
    }
}

/// `c + sum a * b` for float inputs, as an H100 computes it (see the module
/// documentation); the result in `op.dtype` (`.f32` or `.f16`).
fn dot_float(op: MmaOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    let f16_out = op.dtype == ElemType::F16;
    let (nan_bits, fmt) = if f16_out {
        (0x7fffu64, F16)
    } else {
        (0x7fff_ffff, F32)
    };
    let sign_bit = if f16_out { 0x8000u64 } else { 0x8000_0000 };
    let (mut inf_pos, mut inf_neg, mut nan) = (false, false, false);
    let mut all_neg_zero = true;
    // Finite nonzero terms: sign, significand, weight of its bit 0, and its alignment
    // exponent (a product's: the sum of its factors' exponents).
    let mut fin: Vec<(bool, u64, i32, i32)> = Vec::with_capacity(a.len() + 1);
    let mut term = |t: Num, align: i32| match t {
        Num::NaN => nan = true,
        Num::Inf(true) => inf_neg = true,
        Num::Inf(false) => inf_pos = true,
        Num::Fin { neg: s, m, e } => {
            if m == 0 {
                all_neg_zero &= s;
            } else {
                all_neg_zero = false;
                fin.push((s, m, e, align));
            }
        }
    };
    let cn = decode_elem(op.ctype, c);
    let ca = match cn {
        Num::Fin { m, e, .. } if m != 0 => e + msb(m),
        _ => 0,
    };
    term(cn, ca);
    for (&x, &y) in a.iter().zip(b) {
        let (p, align) = product(decode_elem(op.atype, x), decode_elem(op.btype, y));
        term(p, align);
    }
    if nan || (inf_pos && inf_neg) {
        return nan_bits;
    }
    if inf_pos || inf_neg {
        return fmt.inf | if inf_neg { sign_bit } else { 0 };
    }
    let Some(top) = fin.iter().map(|t| t.3).max() else {
        return if all_neg_zero { sign_bit } else { 0 };
    };
    // Every term is truncated toward zero to a multiple of 2^(top - 25).
    let cut = (top - 25).max(-LSB);
    let (mut pos, mut neg) = (Fixed([0; LIMBS]), Fixed([0; LIMBS]));
    for &(s, m, e, _) in &fin {
        let (m, e) = if e < cut {
            let sh = (cut - e) as u32;
            (m.checked_shr(sh).unwrap_or(0), cut)
        } else {
            (m, e)
        };
        if m != 0 {
            if s {
                neg.add(m, e)
            } else {
                pos.add(m, e)
            }
        }
    }
    let (negative, mag) = if neg.greater(&pos) {
        (true, neg.sub(&pos))
    } else {
        (false, pos.sub(&neg))
    };
    let Some(top) = mag.top() else { return 0 };
    if f16_out {
        round_fixed(negative, &mag, top, F16, true)
    } else {
        round_fixed(negative, &mag, top, F32, false)
    }
}

#[cfg(test)]
#[path = "matrix_num_tests.rs"]
mod tests;
