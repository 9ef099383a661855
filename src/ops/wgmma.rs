//! `wgmma.mma_async` (the PTX ISA's warpgroup-level matrix multiply-accumulate, sm_90a)
//! for one warp: the shared-memory matrix descriptor, the canonical layouts and swizzle
//! modes that place A and B in shared memory, the register fragments of A and D, and
//! the product (numerics of `crate::ops::matrix_num`).
//!
//! A warpgroup is four consecutive warps (`%warpid / 4`); warp `w = %warpid % 4` holds
//! rows `16w .. 16w + 16` of the `64 x N` accumulator D and (register A) of A, so each
//! warp computes its own rows when it reaches the instruction. D's fragment is the
//! `mma` `m16n8` C/D fragment repeated over `N / 8` column blocks: element `i` of lane
//! `l` (`g = l >> 2`, `t = l % 4`, `j = i / 4`) is at row `16w + g + 8 * (i / 2 % 2)`,
//! column `8j + 2t + i % 2`; `.f16` accumulators hold elements `2r, 2r + 1` in register
//! `r` (low half first), `.f32`/`.s32` one per register. A from registers is the `mma`
//! A fragment of `m16n8k16` (`.f16`/`.bf16`), `m16n8k8` (`.tf32`), `m16n8k32`
//! (8-bit types) or `m16n8k256` (`.b1`), rows offset by `16w`.
//!
//! # Matrix descriptor and layouts
//!
//! The 64-bit descriptor holds the start address (bits 0-13), the leading dimension
//! byte offset LBO (16-29) and the stride dimension byte offset SBO (32-45), each as
//! `(x & 0x3ffff) >> 4`, the base offset (49-51) and the swizzle mode (62-63: 0 none,
//! 1 128-byte, 2 64-byte, 3 32-byte). With `T = 128 / bits` elements per 16 bytes and
//! `W` the swizzle width in bytes, the element at (`mn`, `k`) (`mn` the row of A or the
//! column of B) lies at byte offset (the ISA's canonical layouts):
//!
//! - K-major, no swizzle: `(mn % 8) * 16 + (mn / 8) * SBO + (k / T) * LBO + (k % T) * bits / 8`
//! - K-major, swizzled: `(mn % 8) * W + (mn / 8) * SBO + k * bits / 8` (LBO unused)
//! - MN-major, no swizzle: `(mn % T) * bits / 8 + (mn / T) * SBO + (k % 8) * 16 + (k / 8) * LBO`
//! - MN-major, swizzled: `(mn % (8W / bits)) * bits / 8 + (mn / (8W / bits)) * LBO + (k % 8) * W + (k / 8) * SBO`
//!
//! from the start address; a swizzled mode then XORs the 16-byte chunk index (address
//! bits 4 and up, `log2(W / 16)` bits) with the 128-byte line index (address bits 7 and
//! up) less the base offset: `a ^ ((((a >> 7) - base) & (W / 16 - 1)) << 4)` on the
//! CTA's shared-space address `a` (the pattern repeats every `8W` bytes, from a
//! `8W`-aligned address, or from the address whose `(a >> 7) & 7` is the base offset).
//! `.b1` elements are the bits of their byte, element `k` of a byte at bit `k % 8`.

use super::matrix::{layout, Layout, WARP};
use super::matrix_num;
use crate::ir::{ElemType, Frag, MmaOp, MmaShape, WgmmaOp};

/// The fields of a matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// Start address (shared space, bytes).
    pub start: u64,
    pub lbo: u64,
    pub sbo: u64,
    pub base: u64,
    /// Swizzle width in bytes (0: none; 32, 64 or 128).
    pub swizzle: u64,
}

/// Decodes a matrix descriptor.
pub fn decode_desc(d: u64) -> Desc {
    let f = |s: u32| (d >> s & 0x3fff) << 4;
    Desc {
        start: f(0),
        lbo: f(16),
        sbo: f(32),
        base: d >> 49 & 7,
        swizzle: match d >> 62 {
            1 => 128,
            2 => 64,
            3 => 32,
            _ => 0,
        },
    }
}

/// The shared-space bit address of element (`mn`, `k`) of a `bits`-bit operand in the
/// layout `desc` describes (`mn_major`: MN-major, else K-major), swizzle applied.
pub fn elem_bit_addr(desc: &Desc, bits: u64, mn_major: bool, mn: u64, k: u64) -> u64 {
    let t = 128 / bits;
    let w = desc.swizzle;
    let bit_off = |e: u64| e * bits;
    let off_bits = match (mn_major, w) {
        (false, 0) => {
            8 * ((mn % 8) * 16 + (mn / 8) * desc.sbo + (k / t) * desc.lbo) + bit_off(k % t)
        }
        (false, _) => 8 * ((mn % 8) * w + (mn / 8) * desc.sbo) + bit_off(k),
        (true, 0) => {
            8 * ((mn / t) * desc.sbo + (k % 8) * 16 + (k / 8) * desc.lbo) + bit_off(mn % t)
        }
        (true, _) => {
            let per = 8 * w / bits;
            8 * ((mn / per) * desc.lbo + (k % 8) * w + (k / 8) * desc.sbo) + bit_off(mn % per)
        }
    };
    let bit_addr = desc.start * 8 + off_bits;
    let a = swizzle(bit_addr / 8, desc.swizzle, desc.base);
    a * 8 + bit_addr % 8
}

/// The swizzled byte address of `a` for a swizzle of `w` bytes (0: none).
pub fn swizzle(a: u64, w: u64, base: u64) -> u64 {
    if w < 32 {
        return a;
    }
    let mask = w / 16 - 1;
    a ^ ((((a >> 7).wrapping_sub(base)) & mask) << 4)
}

/// The `mma` shape whose A fragment and numerics a `wgmma` of `op.atype` uses.
fn mma_shape(op: WgmmaOp) -> MmaShape {
    match op.atype {
        ElemType::F16 | ElemType::BF16 => MmaShape::M16n8k16,
        ElemType::TF32 => MmaShape::M16n8k8,
        ElemType::B1 => MmaShape::M16n8k256,
        _ => MmaShape::M16n8k32,
    }
}

/// The `mma` operation whose per-element numerics `op` has.
fn mma_op(op: WgmmaOp) -> MmaOp {
    MmaOp {
        shape: mma_shape(op),
        dtype: op.dtype,
        atype: op.atype,
        btype: op.btype,
        ctype: op.dtype,
        arow: true,
        brow: false,
        satfinite: op.satfinite,
        bop: op.bop,
        rnd: None,
        sparse: false,
    }
}

/// The A register fragment layout (rows `0..16` of the warp's slice).
pub fn a_layout(op: WgmmaOp) -> Option<Layout> {
    layout(false, mma_shape(op), Frag::A, op.atype)
}

/// (row within the warp's 16, column) of accumulator element `i` of lane `l`.
pub fn d_pos(l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l >> 2, l % 4);
    (g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// Element `i` of lane `l` of a fragment of `bits`-bit elements packed in `words`.
fn get(words: &[[u32; WARP]], bits: usize, l: usize, i: usize) -> u64 {
    let (k, off) = (i * bits / 32, i * bits % 32);
    let w = words.get(k).map_or(0, |x| x[l]) as u64;
    (w >> off) & ((1u64 << bits) - 1)
}

fn set(words: &mut [[u32; WARP]], bits: usize, l: usize, i: usize, v: u64) {
    let (k, off) = (i * bits / 32, i * bits % 32);
    let mask = (((1u64 << bits) - 1) << off) as u32;
    if let Some(w) = words.get_mut(k) {
        w[l] = (w[l] & !mask) | ((v << off) as u32 & mask);
    }
}

/// The warp's `16 x K` slice of A (row-major element bits) from its four registers.
pub fn a_from_regs(op: WgmmaOp, words: &[[u32; WARP]]) -> Vec<u64> {
    let k = op.k();
    let bits = op.atype.bits() as usize;
    let mut a = vec![0u64; 16 * k];
    if let Some(lay) = a_layout(op) {
        for l in 0..WARP {
            for i in 0..lay.elems() {
                let (r, c) = lay.pos(l, i);
                if let Some(x) = a.get_mut(r * k + c) {
                    *x = get(words, bits, l, i);
                }
            }
        }
    }
    a
}

/// The sign bit of an element type (0 for integer types).
fn sign_bit(ty: ElemType) -> u64 {
    match ty {
        ElemType::F16 | ElemType::BF16 => 0x8000,
        ElemType::TF32 | ElemType::F32 => 0x8000_0000,
        ElemType::E4M3 | ElemType::E5M2 => 0x80,
        _ => 0,
    }
}

/// One warp's accumulator registers: `D = A * B + (scale_d ? C : 0)` for the warp's
/// 16 rows, `a` its `16 x K` slice of A and `b` the `K x N` matrix B (row-major element
/// bits), `c` its accumulator words. `imm-scale-a/b` of -1 flip the operands' signs.
/// Without C the sum has no C term (a `-0.0` accumulator, which no sum changes).
pub fn warp_mma(
    op: WgmmaOp,
    a: &[u64],
    b: &[u64],
    c: &[[u32; WARP]],
    scale_d: bool,
) -> Vec<[u32; WARP]> {
    let (n, k) = (op.n as usize, op.k());
    let m = mma_op(op);
    let dbits = op.dtype.bits() as usize;
    let na = if op.neg_a { sign_bit(op.atype) } else { 0 };
    let nb = if op.neg_b { sign_bit(op.btype) } else { 0 };
    let cols: Vec<Vec<u64>> = (0..n)
        .map(|j| {
            (0..k)
                .map(|kk| b.get(kk * n + j).map_or(0, |x| x ^ nb))
                .collect()
        })
        .collect();
    let rows: Vec<Vec<u64>> = (0..16)
        .map(|r| {
            (0..k)
                .map(|kk| a.get(r * k + kk).map_or(0, |x| x ^ na))
                .collect()
        })
        .collect();
    let mut d = vec![[0u32; WARP]; op.d_regs()];
    for l in 0..WARP {
        for i in 0..n / 2 {
            let (r, col) = d_pos(l, i);
            let cv = if scale_d {
                get(c, dbits, l, i)
            } else {
                sign_bit(op.dtype)
            };
            let v = matrix_num::dot_native(m, &rows[r], &cols[col], cv);
            set(&mut d, dbits, l, i, v);
        }
    }
    d
}

#[cfg(test)]
#[path = "wgmma_tests.rs"]
mod tests;
