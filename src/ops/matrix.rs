//! Warp-level matrix operations (`ldmatrix`, `mma.sync`, `movmatrix`): the whole warp's
//! result fragments from every lane's operand fragments, shared by the interpreter and
//! the JIT's `ptxjit_matrix` helper. Every register here is 32 bits: `srcs[k][lane]`,
//! results `[lane]` per destination register.
//!
//! # Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point
//! type", "... for mma.m16n8k32", `ldmatrix`, `movmatrix`)
//!
//! With `g = lane >> 2` (groupID) and `t = lane % 4` (threadID_in_group), element `i` of
//! a fragment sits in register `i / per` at bits `(i % per) * bits` (elements "low to
//! high"; `per` = 2 for 16-bit types, 4 for 8-bit types):
//! - `m16n8k16` `.f16`/`.bf16` A (16x16, 8 elements): row `g` for `i` in {0,1,4,5}, else
//!   `g + 8`; column `2t + (i & 1)`, `+ 8` for `i >= 4`.
//!   B (16x8, 4 elements): row `2t + (i & 1)`, `+ 8` for `i >= 2`; column `g`.
//! - `m16n8k32` `.s8`/`.u8` A (16x32, 16 elements): row `g` for `i` in 0..4 and 8..12,
//!   else `g + 8`; column `4t + (i & 3)`, `+ 16` for `i >= 8`.
//!   B (32x8, 8 elements): row `4t + (i & 3)`, `+ 16` for `i >= 4`; column `g`.
//! - C and D of both shapes (16x8, 4 elements, one per register): row `g`, `+ 8` for
//!   `i >= 2`; column `2t + (i & 1)`.
//! - `ldmatrix` / `movmatrix` 8x8 `.b16`: lane `l` holds row `l >> 2`, columns
//!   `2(l % 4)` (low half) and `2(l % 4) + 1` (high half). `ldmatrix` reads row `r` of
//!   matrix `m` (8 consecutive 16-bit elements) from the address of lane `8m + r`, and
//!   matrix `m` goes to destination register `m`. With `.trans` the matrix in memory is
//!   read column-major: lane `l` gets the elements at memory rows `2(l % 4)` and
//!   `2(l % 4) + 1`, column `l >> 2`. `movmatrix.trans` gives, in the same layout, the
//!   transpose of the matrix its source holds.
//!
//! # Numerics of the floating-point `mma` (`.f32.f16.f16.f32`, `.f32.bf16.bf16.f32`)
//!
//! The PTX ISA leaves the accumulation order, rounding and subnormal handling
//! unspecified. ptxjit does what an NVIDIA H100 does (a model that reproduces all 16,831
//! finite results recorded in `tests/golden`, random, cancellation-heavy, wide-range,
//! subnormal and +-1 inputs, and predicted the values of all 16,384 of a hold-out set):
//! for each `D[i][j] = C[i][j] + sum_k A[i][k] * B[k][j]`, with `E` the largest of the
//! exponents `floor(log2 |C|)` and, for each nonzero product, `floor(log2 |A|) +
//! floor(log2 |B|)` (of the factors, not of the product),
//! every one of the 17 terms is truncated toward zero to a multiple of `2^(E - 25)`; the
//! truncated terms are summed exactly (a 576-bit fixed-point accumulator) and the sum is
//! truncated toward zero to f32 (on the subnormal grid below 2^-126; a magnitude of
//! 2^128 or more gives an infinity). So the result does not depend on a summation order,
//! and subnormal inputs (f16, bf16, f32) and results are kept. Special values: a NaN term
//! (a NaN in `C[i][j]`, in row `i` of A or column `j` of B, or `inf * 0`) or infinities
//! of both signs give the canonical NaN `0x7fffffff`; otherwise an infinite term gives
//! that infinity. A zero result is `-0.0` when every term is `-0.0` (a zero product's
//! sign is the XOR of its operands' signs), else `+0.0` (also when a nonzero sum
//! truncates to zero, as the H100 gives).
//!
//! # Integer `mma` (`.s32.{s8,u8}.{s8,u8}.s32`)
//!
//! Exact: `C + sum A * B` in 64 bits, then wrapped to 32 bits, or with `.satfinite`
//! clamped to `[i32::MIN, i32::MAX]`.

use crate::ir::{MatrixOp, MmaOp, MmaShape, Type};

pub const WARP: usize = 32;

/// The lanes whose addresses an `ldmatrix` of `num` matrices reads: lanes `0..8 * num`.
pub fn ldmatrix_row_lanes(num: u8) -> u32 {
    match num {
        1 => 0xff,
        2 => 0xffff,
        _ => u32::MAX,
    }
}

/// Evaluates `op` for the whole warp. `rows[j]` is the 16-byte row that lane `j`'s
/// address points to (`ldmatrix` only; other operations ignore it). Returns one array
/// per destination register.
pub fn eval(op: MatrixOp, srcs: &[[u32; WARP]], rows: &[[u16; 8]; WARP]) -> Vec<[u32; WARP]> {
    match op {
        MatrixOp::Ldmatrix { num, trans } => (0..num.min(4) as usize)
            .map(|m| {
                let mat: [[u16; 8]; 8] = std::array::from_fn(|r| rows[8 * m + r]);
                distribute(&mat, trans)
            })
            .collect(),
        MatrixOp::Movmatrix => {
            let a = srcs.first().copied().unwrap_or([0; WARP]);
            // The matrix a holds (row l >> 2, columns 2(l % 4) + h), then the transposed
            // distribution of it.
            let mat: [[u16; 8]; 8] =
                std::array::from_fn(|r| std::array::from_fn(|c| half(a[4 * r + c / 2], c % 2)));
            vec![distribute(&mat, true)]
        }
        MatrixOp::Mma(m) => mma(m, srcs),
    }
}

fn half(reg: u32, h: usize) -> u16 {
    (reg >> (16 * h)) as u16
}

/// The 8x8 fragment layout of `mat` (or of its transpose when `trans`).
fn distribute(mat: &[[u16; 8]; 8], trans: bool) -> [u32; WARP] {
    std::array::from_fn(|l| {
        let (r, c) = (l >> 2, 2 * (l % 4));
        let (lo, hi) = if trans {
            (mat[c][r], mat[c + 1][r])
        } else {
            (mat[r][c], mat[r][c + 1])
        };
        lo as u32 | (hi as u32) << 16
    })
}

/// Element `i` of a lane's fragment: (register, bit offset, element bits).
fn slot(ty: Type, i: usize) -> (usize, u32, u32) {
    let bits = ty.bits();
    let per = (32 / bits) as usize;
    (i / per, (i % per) as u32 * bits, bits)
}

/// (row, column) of element `i` of lane `l`'s A fragment.
fn a_pos(shape: MmaShape, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    match shape {
        MmaShape::M16n8k16 => {
            let row = if matches!(i, 0 | 1 | 4 | 5) { g } else { g + 8 };
            (row, 2 * t + (i & 1) + if i >= 4 { 8 } else { 0 })
        }
        MmaShape::M16n8k32 => {
            let row = if i < 4 || (8..12).contains(&i) {
                g
            } else {
                g + 8
            };
            (row, 4 * t + (i & 3) + if i >= 8 { 16 } else { 0 })
        }
    }
}

/// (row, column) of element `i` of lane `l`'s B fragment.
fn b_pos(shape: MmaShape, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    match shape {
        MmaShape::M16n8k16 => (2 * t + (i & 1) + if i >= 2 { 8 } else { 0 }, g),
        MmaShape::M16n8k32 => (4 * t + (i & 3) + if i >= 4 { 16 } else { 0 }, g),
    }
}

/// (row, column) of element `i` of lane `l`'s C/D fragment (`m16n8k*`).
fn c_pos(l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    (if i >= 2 { g + 8 } else { g }, 2 * t + (i & 1))
}

/// `mma.sync` for shape `m.shape` (`m16n8k*`: M = 16, N = 8).
fn mma(m: MmaOp, srcs: &[[u32; WARP]]) -> Vec<[u32; WARP]> {
    let (mm, nn, kk) = m.shape.mnk();
    let (na, nb, nc) = m.shape.fragment_regs();
    let reg = |k: usize, l: usize| srcs.get(k).map_or(0, |s| s[l]);
    let elem = |ty: Type, base: usize, l: usize, i: usize| {
        let (r, off, bits) = slot(ty, i);
        (reg(base + r, l) >> off) & (u32::MAX >> (32 - bits))
    };
    let mut a = vec![vec![0u32; kk]; mm];
    let mut b = vec![vec![0u32; nn]; kk];
    let mut c = vec![vec![0u32; nn]; mm];
    let a_elems = na * (32 / m.atype.bits() as usize);
    let b_elems = nb * (32 / m.btype.bits() as usize);
    for l in 0..WARP {
        for i in 0..a_elems {
            let (r, col) = a_pos(m.shape, l, i);
            a[r][col] = elem(m.atype, 0, l, i);
        }
        for i in 0..b_elems {
            let (r, col) = b_pos(m.shape, l, i);
            b[r][col] = elem(m.btype, na, l, i);
        }
        for i in 0..nc {
            let (r, col) = c_pos(l, i);
            c[r][col] = reg(na + nb + i, l);
        }
    }
    let mut out = vec![[0u32; WARP]; nc];
    for l in 0..WARP {
        for (i, o) in out.iter_mut().enumerate() {
            let (r, col) = c_pos(l, i);
            let avals = a[r].iter().copied();
            let bvals = (0..kk).map(|k| b[k][col]);
            o[l] = if m.ctype == Type::S32 {
                dot_int(m, avals, bvals, c[r][col])
            } else {
                dot_f32(m.atype, avals, bvals, c[r][col])
            };
        }
    }
    out
}

/// `c + sum a * b` over 8-bit integers, wrapped or (`.satfinite`) clamped to `.s32`.
fn dot_int(m: MmaOp, a: impl Iterator<Item = u32>, b: impl Iterator<Item = u32>, c: u32) -> u32 {
    let ext = |ty: Type, v: u32| {
        if ty == Type::S8 {
            v as u8 as i8 as i64
        } else {
            v as u8 as i64
        }
    };
    let sum = a.zip(b).fold(c as i32 as i64, |s, (x, y)| {
        s + ext(m.atype, x) * ext(m.btype, y)
    });
    if m.satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        sum as u32
    }
}

/// A finite float as `(-1)^neg * m * 2^e`, or a special value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
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

fn decode_half(ty: Type, bits: u32) -> Num {
    if ty == Type::BF16 {
        decode(bits & 0xffff, 8, 7)
    } else {
        decode(bits & 0xffff, 5, 10)
    }
}

/// Weight of bit 0 of the accumulator: 2^-LSB. The smallest term is a product of two
/// bf16 subnormals, 2^-133 * 2^-133.
const LSB: i32 = 266;
/// Limbs of the accumulator: sums stay below 2^261 (16 bf16 products < 2^256 each, plus
/// an f32 < 2^128), so 527 bits above 2^-266 suffice.
const LIMBS: usize = 9;

/// An unsigned fixed-point number `sum limb[k] * 2^(64k - LSB)`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Fixed([u64; LIMBS]);

impl Fixed {
    /// Adds `m * 2^(e + LSB)` (`m < 2^48`, `-LSB <= e`, the sum stays below 2^576).
    fn add(&mut self, m: u64, e: i32) {
        let shift = (e + LSB) as usize;
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
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    /// Index of the highest set bit.
    fn top(&self) -> Option<usize> {
        (0..LIMBS)
            .rev()
            .find(|&k| self.0[k] != 0)
            .map(|k| 64 * k + 63 - self.0[k].leading_zeros() as usize)
    }

    /// Bits `[lo, lo + 25)` (the caller's `lo` leaves at most 24 set bits above).
    fn bits_from(&self, lo: usize) -> u64 {
        (lo..lo + 25)
            .filter(|&i| i < 64 * LIMBS && self.bit(i))
            .fold(0, |v, i| v | 1 << (i - lo))
    }
}

/// Truncates the exact value `(-1)^neg * x * 2^-LSB` (nonzero) to f32 (toward zero, on
/// the subnormal grid below 2^-126); a magnitude of 2^128 or more gives an infinity.
fn trunc_f32(neg: bool, x: &Fixed, top: usize) -> u32 {
    // Bit index of 2^-149, the f32 subnormal step.
    const SUB: usize = (LSB - 149) as usize;
    let lo = top.saturating_sub(23).max(SUB);
    let q = x.bits_from(lo);
    // q < 2^23 only in the subnormal range (lo == SUB).
    let mag = (((lo - SUB) as u64) << 23) + q;
    let mag = mag.min(0x7f80_0000) as u32;
    // A sum that truncates to zero gives +0 (as on an H100: tests/golden, mma2).
    if mag == 0 {
        return 0;
    }
    mag | (neg as u32) << 31
}

/// Highest set bit of a nonzero significand.
fn msb(m: u64) -> i32 {
    63 - m.leading_zeros() as i32
}

/// `c + sum a * b` for 16-bit float `a`, `b` (type `ty`) and f32 `c`, as an H100 computes
/// it (see the module documentation).
fn dot_f32(ty: Type, a: impl Iterator<Item = u32>, b: impl Iterator<Item = u32>, c: u32) -> u32 {
    const NAN: u32 = 0x7fff_ffff;
    let (mut inf_pos, mut inf_neg, mut nan) = (false, false, false);
    let mut all_neg_zero = true;
    // Finite nonzero terms: sign, significand, weight of its bit 0, and its alignment
    // exponent (a product's: the sum of its factors' exponents).
    let mut fin = [(false, 0u64, 0i32, 0i32); 17];
    let mut n = 0;
    let mut term = |t: Num, align: i32| match t {
        Num::NaN => nan = true,
        Num::Inf(true) => inf_neg = true,
        Num::Inf(false) => inf_pos = true,
        Num::Fin { neg: s, m, e } => {
            if m == 0 {
                all_neg_zero &= s;
            } else {
                all_neg_zero = false;
                fin[n] = (s, m, e, align);
                n += 1;
            }
        }
    };
    let cn = decode(c, 8, 23);
    let ca = match cn {
        Num::Fin { m, e, .. } if m != 0 => e + msb(m),
        _ => 0,
    };
    term(cn, ca);
    for (x, y) in a.zip(b).take(16) {
        let (p, align) = match (decode_half(ty, x), decode_half(ty, y)) {
            (Num::NaN, _) | (_, Num::NaN) => (Num::NaN, 0),
            (Num::Inf(s), Num::Inf(t)) => (Num::Inf(s != t), 0),
            (Num::Inf(s), Num::Fin { neg: t, m, .. })
            | (Num::Fin { neg: t, m, .. }, Num::Inf(s)) => {
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
        };
        term(p, align);
    }
    if nan || (inf_pos && inf_neg) {
        return NAN;
    }
    if inf_pos || inf_neg {
        return if inf_neg { 0xff80_0000 } else { 0x7f80_0000 };
    }
    let terms = &fin[..n];
    let Some(top) = terms.iter().map(|t| t.3).max() else {
        return if all_neg_zero { 0x8000_0000 } else { 0 };
    };
    // Every term is truncated toward zero to a multiple of 2^(top - 25).
    let cut = top - 25;
    let (mut pos, mut neg) = (Fixed([0; LIMBS]), Fixed([0; LIMBS]));
    for &(s, m, e, _) in terms {
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
    match mag.top() {
        Some(top) => trunc_f32(negative, &mag, top),
        None => 0,
    }
}

/// Packs a matrix operation into the JIT helper's descriptor.
pub fn encode(op: MatrixOp) -> u64 {
    let t = |ty: Type| MMA_TYPES.iter().position(|&x| x == ty).unwrap_or(0xff) as u64;
    match op {
        MatrixOp::Ldmatrix { num, trans } => (num as u64) << 8 | (trans as u64) << 16,
        MatrixOp::Movmatrix => 1,
        MatrixOp::Mma(m) => {
            let shape = match m.shape {
                MmaShape::M16n8k16 => 0,
                MmaShape::M16n8k32 => 1,
            };
            2 | shape << 8
                | (m.satfinite as u64) << 16
                | t(m.dtype) << 24
                | t(m.atype) << 32
                | t(m.btype) << 40
                | t(m.ctype) << 48
        }
    }
}

const MMA_TYPES: [Type; 6] = [
    Type::F16,
    Type::BF16,
    Type::F32,
    Type::S8,
    Type::U8,
    Type::S32,
];

/// Inverse of [`encode`].
pub fn decode_op(d: u64) -> Option<MatrixOp> {
    let byte = |s: u32| (d >> s & 0xff) as usize;
    let t = |s: u32| MMA_TYPES.get(byte(s)).copied();
    Some(match d & 0xff {
        0 => MatrixOp::Ldmatrix {
            num: byte(8) as u8,
            trans: byte(16) != 0,
        },
        1 => MatrixOp::Movmatrix,
        2 => MatrixOp::Mma(MmaOp {
            shape: match byte(8) {
                0 => MmaShape::M16n8k16,
                1 => MmaShape::M16n8k32,
                _ => return None,
            },
            satfinite: byte(16) != 0,
            dtype: t(24)?,
            atype: t(32)?,
            btype: t(40)?,
            ctype: t(48)?,
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_dot(ty: Type, a: &[u32], b: &[u32], c: f32) -> f32 {
        f32::from_bits(dot_f32(
            ty,
            a.iter().copied(),
            b.iter().copied(),
            c.to_bits(),
        ))
    }

    const ONE_F16: u32 = 0x3c00;
    const ONE_BF16: u32 = 0x3f80;

    #[test]
    fn aligned_then_truncated() {
        // bf16 2^-40 = 0x2b80 (exponent 127 - 40 = 87 = 0x57: 0x57 << 7 = 0x2b80).
        // bf16 2^-12 = (127 - 12) << 7 = 0x3980: 2^-12 * 2^-12 = 2^-24.
        // c = 1: E = 0, terms are cut to multiples of 2^-25: 2^-24 stays, 2^-80 goes;
        // 1 + 2^-24 truncates to 1 (an exact sum rounded to nearest would give 1 + 2^-23).
        let a = [0x3980, 0x2b80];
        let b = [0x3980, 0x2b80];
        assert_eq!(f32_dot(Type::BF16, &a, &b, 1.0), 1.0);
        assert_eq!(f32_dot(Type::BF16, &a[..1], &b[..1], 1.0), 1.0);
        // -2 + 2^-24 truncates toward zero: -(2 - 2^-23), not the nearest -2 (as the H100
        // gives: tests/golden, mma "ones" inputs).
        assert_eq!(
            f32_dot(Type::BF16, &a[..1], &b[..1], -2.0).to_bits(),
            0xbfff_ffff
        );
        // 2^30 - 2^30 + 2^-48 (f16 2^15 = 0x7800, 2^-24 = 0x0001): E = 30, so 2^-48 is
        // cut away before the sum: +0.
        let a = [0x7800, 0xf800, 0x0001];
        let b = [0x7800, 0x7800, 0x0001];
        assert_eq!(f32_dot(Type::F16, &a, &b, 0.0).to_bits(), 0);
        // Without the large terms the small product is exact.
        assert_eq!(f32_dot(Type::F16, &a[2..], &b[2..], 0.0), 2f32.powi(-48));
    }

    #[test]
    fn alignment_uses_the_factors_exponents() {
        // f16 1.5 = 0x3e00, -1.5 = 0xbe00: products +-2.25, whose alignment exponent is
        // 0 + 0 (not 1, the product's): c = 3 * 2^-26 is cut to a multiple of 2^-25.
        let c = 3.0 * 2f32.powi(-26);
        let r = f32_dot(Type::F16, &[0x3e00, 0xbe00], &[0x3e00, 0x3e00], c);
        assert_eq!(r, 2f32.powi(-25));
    }

    #[test]
    fn cancellation_across_limbs() {
        // f16 2^15 = 0x7800, 2^5 = 0x5000, -2^15 = 0xf800, 2^-24 = 0x0001.
        // -2^20 + 2^-48: the small term is cut (E = 20): -2^20.
        let a = [0xf800, 0x0001];
        let b = [0x5000, 0x0001];
        assert_eq!(f32_dot(Type::F16, &a, &b, 0.0), -(2f32.powi(20)));
        // -2^20 + 2^20 (c) + 2^-48 (cut): +0.
        assert_eq!(f32_dot(Type::F16, &a, &b, 2f32.powi(20)).to_bits(), 0);
        // -2^20 + (2^20 + 2^-3) (c): the negative sum's highest limb is above the
        // positive one's until the subtraction: 2^-3.
        let c = 2f32.powi(20) + 0.125;
        assert_eq!(f32_dot(Type::F16, &a[..1], &b[..1], c), 0.125);
    }

    #[test]
    fn specials() {
        let inf = 0x7c00; // f16 +inf
        assert_eq!(f32_dot(Type::F16, &[inf], &[ONE_F16], 1.0), f32::INFINITY);
        assert_eq!(
            f32_dot(Type::F16, &[inf, inf], &[ONE_F16, 0xbc00], 1.0).to_bits(),
            0x7fff_ffff
        );
        assert_eq!(f32_dot(Type::F16, &[inf], &[0], 1.0).to_bits(), 0x7fff_ffff);
        assert_eq!(
            f32_dot(Type::F16, &[ONE_F16], &[ONE_F16], f32::NAN).to_bits(),
            0x7fff_ffff
        );
        // Signed zeros: -0 + (+1 * -0) = -0; -0 + (+0 * +0) = +0; 1 - 1 = +0.
        assert_eq!(
            f32_dot(Type::F16, &[0], &[0x8000], -0.0).to_bits(),
            0x8000_0000
        );
        assert_eq!(f32_dot(Type::F16, &[0], &[0], -0.0).to_bits(), 0);
        assert_eq!(
            f32_dot(Type::BF16, &[ONE_BF16], &[0xbf80], 1.0).to_bits(),
            0
        );
        // Overflow: bf16 2^127 (0x7f00) squared -> +inf; and -inf below.
        assert_eq!(
            f32_dot(Type::BF16, &[0x7f00], &[0x7f00], 0.0),
            f32::INFINITY
        );
        assert_eq!(
            f32_dot(Type::BF16, &[0x7f00], &[0xff00], 0.0),
            f32::NEG_INFINITY
        );
        // 2^127 * 2^0 + 2^127 (from c) = 2^128: overflows.
        assert_eq!(
            f32_dot(Type::BF16, &[0x7f00], &[ONE_BF16], 2f32.powi(127)),
            f32::INFINITY
        );
    }

    #[test]
    fn subnormal_results() {
        // bf16 2^-70 = (127 - 70) << 7 = 0x1c80. 2^-70 * 2^-70 = 2^-140 (an f32 subnormal).
        assert_eq!(
            f32_dot(Type::BF16, &[0x1c80], &[0x1c80], 0.0),
            2f32.powi(-140)
        );
        // 2^-75 * 2^-75 = 2^-150: below the smallest subnormal, truncates to 0.
        // bf16 2^-75 = 52 << 7 = 0x1a00.
        assert_eq!(f32_dot(Type::BF16, &[0x1a00], &[0x1a00], 0.0).to_bits(), 0);
        // Plus 2^-160 (2^-80 * 2^-80, 0x1780): still below 2^-149: 0.
        assert_eq!(
            f32_dot(Type::BF16, &[0x1a00, 0x1780], &[0x1a00, 0x1780], 0.0).to_bits(),
            0
        );
        // c = 2^-149 (bits 1) plus 2^-150: 1.5 * 2^-149 truncates to 2^-149.
        assert_eq!(
            f32_dot(Type::BF16, &[0x1a00], &[0x1a00], f32::from_bits(1)).to_bits(),
            1
        );
        // c = -2^-149 plus 2^-150: -2^-150 truncates to zero, +0 (as the H100 gives).
        assert_eq!(
            f32_dot(Type::BF16, &[0x1a00], &[0x1a00], -f32::from_bits(1)).to_bits(),
            0
        );
    }

    #[test]
    fn layouts_cover_every_element_once() {
        for shape in [MmaShape::M16n8k16, MmaShape::M16n8k32] {
            let (m, n, k) = shape.mnk();
            let per = if shape == MmaShape::M16n8k16 { 2 } else { 4 };
            let mut seen_a = vec![0; m * k];
            let mut seen_b = vec![0; k * n];
            let mut seen_c = vec![0; m * n];
            for l in 0..WARP {
                for i in 0..4 * per {
                    let (r, c) = a_pos(shape, l, i);
                    seen_a[r * k + c] += 1;
                }
                for i in 0..2 * per {
                    let (r, c) = b_pos(shape, l, i);
                    seen_b[r * n + c] += 1;
                }
                for i in 0..4 {
                    let (r, c) = c_pos(l, i);
                    seen_c[r * n + c] += 1;
                }
            }
            assert!(seen_a.iter().all(|&x| x == 1), "{shape:?} A");
            assert!(seen_b.iter().all(|&x| x == 1), "{shape:?} B");
            assert!(seen_c.iter().all(|&x| x == 1), "{shape:?} C");
        }
    }

    #[test]
    fn encode_round_trips() {
        let ops = [
            MatrixOp::Ldmatrix {
                num: 4,
                trans: true,
            },
            MatrixOp::Ldmatrix {
                num: 1,
                trans: false,
            },
            MatrixOp::Movmatrix,
            MatrixOp::Mma(MmaOp {
                shape: MmaShape::M16n8k32,
                dtype: Type::S32,
                atype: Type::U8,
                btype: Type::S8,
                ctype: Type::S32,
                satfinite: true,
            }),
            MatrixOp::Mma(MmaOp {
                shape: MmaShape::M16n8k16,
                dtype: Type::F32,
                atype: Type::BF16,
                btype: Type::BF16,
                ctype: Type::F32,
                satfinite: false,
            }),
        ];
        for op in ops {
            assert_eq!(decode_op(encode(op)), Some(op));
        }
    }
}
