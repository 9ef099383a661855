//! Fragment layouts of `mma.sync` and `wmma`: which matrix element a lane's fragment
//! element holds.
//!
//! With `g = lane >> 2` (groupID) and `t = lane % 4` (threadID_in_group), element `i`
//! of a lane's fragment sits in register `i / per` at bits `(i % per) * bits` ("low to
//! high"; `per = 32 / bits`; an `.f64` element is a whole `.f64` register). Every layout
//! here has the form `(row, col) = g * G + t * T + sum_j bit_j(i) * D_j`: a base per lane
//! and one displacement `D_j` per bit of the element index (`(0, 0)`: a copy).
//!
//! - `mma`: the PTX ISA's figures ("Matrix Fragments for mma.m16n8k16 ..." and the other
//!   shapes), e.g. `m16n8k16` `.f16` A: `G = (1, 0)`, `T = (0, 2)`, `D = (0, 1), (8, 0),
//!   (0, 8)` (elements `a0, a1` at row `g`, columns `2t, 2t + 1`; `a2, a3` at row `g + 8`;
//!   `a4..a7` 8 columns on).
//! - `wmma`: the ISA leaves the per-lane layout to the implementation; ptxjit uses the
//!   H100's, read off the fragment registers it wrote for every case of
//!   `tests/golden/cases_future.txt` (`future_wmma`), where the loaded registers of every
//!   lane were matched against the input matrices. The H100 builds the `.f16` A and B
//!   fragments of `m16n16k16` (and `m32n8k16` B, `m8n32k16` A) from the `mma` `m16n8k16`
//!   fragments with each element held twice.

use crate::ir::{ElemType, Frag, MmaOp, MmaShape};

/// A fragment layout: the (row, column) of element `i` of lane `l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    g: (u16, u16),
    t: (u16, u16),
    d: [(u16, u16); 8],
    nbits: usize,
}

impl Layout {
    fn new(g: (u16, u16), t: (u16, u16), d: &[(u16, u16)]) -> Layout {
        let mut a = [(0, 0); 8];
        a[..d.len()].copy_from_slice(d);
        Layout {
            g,
            t,
            d: a,
            nbits: d.len(),
        }
    }

    /// Elements per lane.
    pub fn elems(&self) -> usize {
        1 << self.nbits
    }

    /// (row, column) of element `i` of lane `l`.
    pub fn pos(&self, l: usize, i: usize) -> (usize, usize) {
        let (g, t) = (l >> 2, l % 4);
        let ((gr, gc), (tr, tc)) = (self.g, self.t);
        let mut r = g * gr as usize + t * tr as usize;
        let mut c = g * gc as usize + t * tc as usize;
        for (j, &(dr, dc)) in self.d[..self.nbits].iter().enumerate() {
            if i >> j & 1 != 0 {
                r += dr as usize;
                c += dc as usize;
            }
        }
        (r, c)
    }

    /// Whether element `i` is a copy of a lower-numbered element of the same lane.
    pub fn is_copy(&self, i: usize) -> bool {
        self.d[..self.nbits]
            .iter()
            .enumerate()
            .any(|(j, &d)| d == (0, 0) && i >> j & 1 != 0)
    }
}

/// Displacements `(0, 1), (0, 2), ..` of `n` bits along columns (`col`) or rows.
fn run(n: usize, col: bool) -> Vec<(u16, u16)> {
    (0..n)
        .map(|j| if col { (0, 1 << j) } else { (1 << j, 0) })
        .collect()
}

fn cat(a: Vec<(u16, u16)>, b: &[(u16, u16)]) -> Vec<(u16, u16)> {
    let mut a = a;
    a.extend_from_slice(b);
    a
}

/// Size classes of element types with the same fragment layouts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Half,
    Tf32,
    F64,
    Byte,
    Nibble,
    Bit,
    Acc,
}

fn class(ty: ElemType) -> Class {
    use ElemType::*;
    match ty {
        F16 | BF16 => Class::Half,
        TF32 => Class::Tf32,
        F64 => Class::F64,
        S8 | U8 | E4M3 | E5M2 => Class::Byte,
        S4 | U4 => Class::Nibble,
        B1 => Class::Bit,
        F32 | S32 => Class::Acc,
    }
}

/// The layout of fragment `frag` of element type `ty` for `shape` (`wmma`: the `wmma`
/// layouts), or `None` when the combination does not exist.
pub fn layout(wmma: bool, shape: MmaShape, frag: Frag, ty: ElemType) -> Option<Layout> {
    use MmaShape::*;
    let (m, n, _) = shape.mnk();
    let ac = |a: Frag| matches!(a, Frag::A);
    let l = Layout::new;
    let (g1, gc) = ((1, 0), (0, 1));
    match frag {
        Frag::C | Frag::D => {
            if !matches!(
                ty,
                ElemType::F16 | ElemType::F32 | ElemType::S32 | ElemType::F64
            ) {
                return None;
            }
            Some(match (m, n) {
                (8, 8) => l(g1, (0, 2), &[(0, 1)]),
                (16, 8) => l(g1, (0, 2), &[(0, 1), (8, 0)]),
                (16, 16) => l(g1, (0, 2), &[(0, 1), (8, 0), (0, 8)]),
                (32, 8) => l(g1, (0, 2), &[(0, 1), (8, 0), (16, 0)]),
                _ => l(gc, (2, 0), &[(1, 0), (0, 8), (0, 16)]),
            })
        }
        Frag::A | Frag::B => {
            let a = ac(frag);
            // Base: A holds row g, B column g; consecutive elements along k.
            let (g, per_t) = if a { (g1, (0u16, 1u16)) } else { (gc, (1, 0)) };
            let t = |w: u16| (per_t.0 * w, per_t.1 * w);
            let k_run = |nb: usize| run(nb, a);
            // A displacement along m (A: +rows) or n (B: +columns), and along k.
            let mn = |x: u16| if a { (x, 0) } else { (0, x) };
            let cl = class(ty);
            let half_copy = wmma && ty == ElemType::F16;
            let lay = match (wmma, shape, cl) {
                (false, M16n8k8, Class::Half) => {
                    l(g, t(2), &cat(k_run(1), if a { &[(8, 0)] } else { &[] }))
                }
                (false, M16n8k16, Class::Half) => l(
                    g,
                    t(2),
                    &cat(k_run(1), if a { &[(8, 0), (0, 8)] } else { &[(8, 0)] }),
                ),
                (true, M16n16k16, Class::Half) => {
                    let d = cat(k_run(1), &[(8, 0), (0, 8)]);
                    l(g, t(2), &cat(d, if half_copy { &[(0, 0)] } else { &[] }))
                }
                (true, M32n8k16, Class::Half) if a => {
                    l(g, t(2), &[(0, 1), (8, 0), (0, 8), (16, 0)])
                }
                (true, M32n8k16, Class::Half) => l(
                    g,
                    t(2),
                    &cat(
                        vec![(1, 0), (8, 0)],
                        if half_copy { &[(0, 0), (0, 0)] } else { &[] },
                    ),
                ),
                (true, M8n32k16, Class::Half) if a => l(
                    g,
                    t(2),
                    &cat(
                        vec![(0, 1), (0, 8)],
                        if half_copy { &[(0, 0), (0, 0)] } else { &[] },
                    ),
                ),
                (true, M8n32k16, Class::Half) => l(g, t(2), &[(1, 0), (0, 8), (8, 0), (0, 16)]),
                (false, M16n8k4, Class::Tf32 | Class::F64) => {
                    l(g, t(1), if a { &[(8, 0)] } else { &[] })
                }
                (false, M16n8k8, Class::Tf32 | Class::F64) => {
                    l(g, t(1), if a { &[(8, 0), (0, 4)] } else { &[(4, 0)] })
                }
                (false, M16n8k16, Class::F64) => l(
                    g,
                    t(1),
                    if a {
                        &[(8, 0), (0, 4), (0, 8)]
                    } else {
                        &[(4, 0), (8, 0)]
                    },
                ),
                (true, M16n16k8, Class::Tf32) => l(
                    g,
                    t(1),
                    if a {
                        &[(8, 0), (0, 4)]
                    } else {
                        &[(4, 0), (0, 8)]
                    },
                ),
                (_, M8n8k4, Class::F64) => l(g, t(1), &[]),
                (false, M8n8k16, Class::Byte) => l(g, t(4), &k_run(2)),
                (false, M16n8k16, Class::Byte) => {
                    l(g, t(4), &cat(k_run(2), if a { &[(8, 0)] } else { &[] }))
                }
                (false, M16n8k32, Class::Byte) => l(
                    g,
                    t(4),
                    &cat(k_run(2), if a { &[(8, 0), (0, 16)] } else { &[(16, 0)] }),
                ),
                (true, M16n16k16, Class::Byte) => l(g, t(4), &cat(k_run(2), &[mn(8)])),
                (true, M32n8k16, Class::Byte) => l(
                    g,
                    t(4),
                    &cat(k_run(2), if a { &[(8, 0), (16, 0)] } else { &[] }),
                ),
                (true, M8n32k16, Class::Byte) => l(
                    g,
                    t(4),
                    &cat(k_run(2), if a { &[] } else { &[(0, 8), (0, 16)] }),
                ),
                (_, M8n8k32, Class::Nibble) => l(g, t(8), &k_run(3)),
                (false, M16n8k32, Class::Nibble) => {
                    l(g, t(8), &cat(k_run(3), if a { &[(8, 0)] } else { &[] }))
                }
                (false, M16n8k64, Class::Nibble) => l(
                    g,
                    t(8),
                    &cat(k_run(3), if a { &[(8, 0), (0, 32)] } else { &[(32, 0)] }),
                ),
                (_, M8n8k128, Class::Bit) => l(g, t(32), &k_run(5)),
                (false, M16n8k128, Class::Bit) => {
                    l(g, t(32), &cat(k_run(5), if a { &[(8, 0)] } else { &[] }))
                }
                // B of the `mma.sp` shapes without a dense form.
                (false, M16n8k32, Class::Half) if !a => l(g, t(2), &[(1, 0), (8, 0), (16, 0)]),
                (false, M16n8k16, Class::Tf32) if !a => l(g, t(1), &[(4, 0), (8, 0)]),
                (false, M16n8k64, Class::Byte) if !a => {
                    l(g, t(4), &[(1, 0), (2, 0), (16, 0), (32, 0)])
                }
                (false, M16n8k128, Class::Nibble) if !a => {
                    l(g, t(8), &[(1, 0), (2, 0), (4, 0), (32, 0), (64, 0)])
                }
                (false, M16n8k256, Class::Bit) => l(
                    g,
                    t(32),
                    &cat(k_run(5), if a { &[(8, 0), (0, 128)] } else { &[(128, 0)] }),
                ),
                _ => return None,
            };
            Some(lay)
        }
    }
}

/// The shape whose dense A fragment layout `mma.sp`'s compressed A (`m x k/2`) has.
pub fn compressed_shape(op: MmaOp) -> Option<MmaShape> {
    use MmaShape::*;
    Some(match (class(op.atype), op.shape) {
        (Class::Half, M16n8k16) => M16n8k8,
        (Class::Half, M16n8k32) => M16n8k16,
        (Class::Tf32, M16n8k8) => M16n8k4,
        (Class::Tf32, M16n8k16) => M16n8k8,
        (Class::Byte, M16n8k32) => M16n8k16,
        (Class::Byte, M16n8k64) => M16n8k32,
        (Class::Nibble, M16n8k64) => M16n8k32,
        (Class::Nibble, M16n8k128) => M16n8k64,
        _ => return None,
    })
}

/// How many threads of each group of four hold `mma.sp`'s metadata for one sparsity
/// selector: 1, 2 or 4. The metadata is one nibble per sparse group of a row of A (4
/// elements; `.tf32`: 2; `.s4`/`.u4`: 8, as 4 pairs), 32 bits per thread, spread over
/// the 8 groups of four threads: `m * (k / group) / 64` threads per group (the PTX
/// ISA's "Sparse matrix storage": one thread for `m16n8k16` `.f16`/`.bf16` and
/// `m16n8k8` `.tf32`; a thread pair for `m16n8k32` `.f16`/`.bf16`, `m16n8k16` `.tf32`,
/// `m16n8k32` `.s8`/`.u8` and `m16n8k64` `.s4`/`.u4`; all four for `m16n8k64`
/// `.s8`/`.u8`/`.e4m3`/`.e5m2` and `m16n8k128` `.s4`/`.u4`).
pub fn sparse_meta_threads(op: MmaOp) -> Option<usize> {
    compressed_shape(op)?;
    let (m, _, k) = op.shape.mnk();
    let group = match class(op.atype) {
        Class::Tf32 => 2,
        Class::Nibble => 8,
        _ => 4,
    };
    Some(m * (k / group) / 64)
}

/// The sparsity selectors the PTX ISA defines for `op`: `0..n` with `n = 4 /`
/// [`sparse_meta_threads`]; selector `s` names threads `s * t .. s * t + t - 1` of each
/// group of four (`t` threads per group: "0 (threads T0, T1) or 1 (threads T2, T3)").
/// Any other value "results in an undefined behavior".
pub fn sparse_selectors(op: MmaOp) -> Option<u32> {
    Some(4 / sparse_meta_threads(op)? as u32)
}

/// The sparsity selectors `ptxas` 12.9 accepts for `op` (it rejects the others, "value
/// '2' out of range, expected to be in range [0..1]"): the ISA's
/// ([`sparse_selectors`]), except that it accepts `0..3` for `m16n8k32`
/// `.f32.f16.f16.f32` (probed for sm_80, sm_89 and sm_90; the selector goes unchanged
/// into the instruction's 2-bit field, and the ISA leaves 2 and 3 undefined).
pub fn ptxas_sparse_selectors(op: MmaOp) -> Option<u32> {
    let isa = sparse_selectors(op)?;
    let quirk =
        op.shape == MmaShape::M16n8k32 && op.atype == ElemType::F16 && op.dtype == ElemType::F32;
    Some(if quirk { 4 } else { isa })
}

/// Registers of `mma.sp`'s compressed A fragment.
pub fn sparse_a_regs(op: MmaOp) -> Option<usize> {
    frag_regs(false, compressed_shape(op)?, Frag::A, op.atype)
}

/// Registers of a fragment (`.f64`: one per element; else 32-bit registers of packed
/// elements), or `None` when the combination does not exist.
pub fn frag_regs(wmma: bool, shape: MmaShape, frag: Frag, ty: ElemType) -> Option<usize> {
    if !wmma && shape == MmaShape::M8n8k4 && ty != ElemType::F64 {
        // The quad-pair form (`crate::ops::matrix::quad_pair_pos`).
        return match (frag, ty) {
            (Frag::A | Frag::B, ElemType::F16) => Some(2),
            (Frag::C | Frag::D, ElemType::F16) => Some(4),
            (Frag::C | Frag::D, ElemType::F32) => Some(8),
            _ => None,
        };
    }
    let l = layout(wmma, shape, frag, ty)?;
    Some(if ty == ElemType::F64 {
        l.elems()
    } else {
        (l.elems() * ty.bits() as usize).div_ceil(32)
    })
}

/// Equal `.f16` or `.f32` C and D types.
fn f16_or_f32_pair(c: ElemType, d: ElemType) -> bool {
    matches!(
        (c, d),
        (ElemType::F32, ElemType::F32) | (ElemType::F16, ElemType::F16)
    )
}

/// Integer A and B types of the same width.
fn mixed_int_pair(x: ElemType, y: ElemType) -> bool {
    use ElemType::*;
    matches!((x, y), (S8 | U8, S8 | U8) | (S4 | U4, S4 | U4))
}

/// Whether the type, shape and qualifier combination of `op` is one the ISA lists (and
/// ptxjit runs).
pub fn mma_supported(wmma: bool, op: MmaOp) -> bool {
    use ElemType::*;
    use MmaShape::*;
    let (a, c, d) = (op.atype, op.ctype, op.dtype);
    let same_ab = op.btype == a;
    let int = matches!(a, S8 | U8 | S4 | U4 | B1);
    if op.satfinite && (!int || a == B1) || (op.bop.is_some() != (a == B1)) {
        return false;
    }
    if op.rnd.is_some() && !(wmma && a == F64) {
        return false;
    }
    if op.sparse {
        let types = match a {
            F16 => op.btype == F16 && f16_or_f32_pair(c, d),
            BF16 | TF32 => op.btype == a && c == F32 && d == F32,
            S8 | U8 | S4 | U4 => mixed_int_pair(a, op.btype) && c == S32 && d == S32,
            // Only `m16n8k64` `.f32` (the `.f16` accumulators need `.kind::f8f6f4`; ptxas
            // 12.9 rejects sparse fp8 `m16n8k32` and `.f16` C/D for sm_80..sm_120a).
            E4M3 | E5M2 => {
                matches!(op.btype, E4M3 | E5M2) && op.shape == M16n8k64 && c == F32 && d == F32
            }
            _ => false,
        };
        return !wmma && types && op.arow && !op.brow && compressed_shape(op).is_some();
    }
    let row_col = op.arow && !op.brow;
    let s32 = c == S32 && d == S32;
    let f32 = c == F32 && d == F32;
    let f16_or_f32 = |both: bool| {
        matches!((c, d), (F32, F32) | (F16, F16))
            || both && matches!((c, d), (F32, F16) | (F16, F32))
    };
    let mixed_int = mixed_int_pair;
    if wmma {
        let three = matches!(op.shape, M16n16k16 | M32n8k16 | M8n32k16);
        return match a {
            F16 => three && same_ab && f16_or_f32(true),
            BF16 => three && same_ab && f32,
            TF32 => op.shape == M16n16k8 && same_ab && f32,
            F64 => op.shape == M8n8k4 && same_ab && c == F64 && d == F64,
            S8 | U8 => three && same_ab && s32,
            S4 | U4 => op.shape == M8n8k32 && same_ab && s32 && row_col,
            B1 => op.shape == M8n8k128 && same_ab && s32 && row_col,
            _ => false,
        };
    }
    if op.shape == M8n8k4 && a == F16 {
        return op.btype == F16 && matches!((c, d), (F16, F16) | (F32, F32) | (F16, F32));
    }
    if !row_col {
        return false;
    }
    match a {
        F16 => matches!(op.shape, M16n8k8 | M16n8k16) && same_ab && f16_or_f32(false),
        BF16 => matches!(op.shape, M16n8k8 | M16n8k16) && same_ab && f32,
        TF32 => matches!(op.shape, M16n8k4 | M16n8k8) && same_ab && f32,
        F64 => {
            matches!(op.shape, M8n8k4 | M16n8k4 | M16n8k8 | M16n8k16)
                && same_ab
                && c == F64
                && d == F64
        }
        S8 | U8 => {
            matches!(op.shape, M8n8k16 | M16n8k16 | M16n8k32) && mixed_int(a, op.btype) && s32
        }
        S4 | U4 => {
            matches!(op.shape, M8n8k32 | M16n8k32 | M16n8k64) && mixed_int(a, op.btype) && s32
        }
        B1 => matches!(op.shape, M8n8k128 | M16n8k128 | M16n8k256) && same_ab && s32,
        E4M3 | E5M2 => {
            matches!(op.shape, M16n8k16 | M16n8k32)
                && matches!(op.btype, E4M3 | E5M2)
                && f16_or_f32(false)
        }
        _ => false,
    }
}
