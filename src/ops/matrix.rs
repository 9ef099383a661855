//! Warp-level matrix operations (`ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync`,
//! `wmma.load/store/mma`): the whole warp's result fragments from every lane's operand
//! fragments, shared by the interpreter and the JIT's `ptxjit_matrix` helper. Registers
//! are passed as 32-bit words, `words[k][lane]`; a 64-bit (`.f64`) register is two
//! words, low first ([`to_words`], [`from_words`]).
//!
//! Fragment layouts: `crate::ir::matrix_layout`; numerics of the products:
//! `crate::ops::matrix_num`.
//!
//! - `ldmatrix` / `stmatrix` / `movmatrix` 8x8 `.b16`: lane `l` holds row `l >> 2`,
//!   columns `2(l % 4)` (low half) and `2(l % 4) + 1` (high half). `ldmatrix` reads row
//!   `r` of matrix `m` (8 consecutive 16-bit elements) from the address of lane `8m + r`,
//!   and matrix `m` goes to register `m`; `stmatrix` writes them there. With `.trans`
//!   the matrix in memory is column-major: lane `l` holds the elements at memory rows
//!   `2(l % 4)` and `2(l % 4) + 1`, column `l >> 2`. `movmatrix.trans` gives, in the same
//!   layout, the transpose of the matrix its source holds.
//! - `wmma.load` reads the whole matrix (the caller loads it, [`wmma_dims`]) and
//!   distributes it in the fragment layout; `wmma.store` collects the D fragment into a
//!   matrix; `wmma.mma` and `mma` gather A, B and C from the fragments, compute every
//!   element of D ([`matrix_num::dot`]) and distribute D.

use super::matrix_num;
pub use crate::ir::matrix_layout::{
    compressed_shape, frag_regs, layout, mma_supported, sparse_a_regs, sparse_meta_threads,
    sparse_selectors, Layout,
};
use crate::ir::{ElemType, Frag, MatrixOp, MmaOp, MmaShape, PopcOp, Type, WmmaFrag};

pub const WARP: usize = 32;

/// The lanes whose addresses an `ldmatrix`/`stmatrix` of `num` matrices uses: lanes
/// `0..8 * num`.
pub fn ldmatrix_row_lanes(num: u8) -> u32 {
    match num {
        1 => 0xff,
        2 => 0xffff,
        _ => u32::MAX,
    }
}

/// Splits registers of types `tys` into 32-bit words (64-bit registers: two words).
pub fn to_words(tys: &[Type], regs: &[[u64; WARP]]) -> Vec<[u32; WARP]> {
    let mut w = Vec::with_capacity(regs.len() * 2);
    for (t, r) in tys.iter().zip(regs) {
        w.push(r.map(|x| x as u32));
        if t.bits() == 64 {
            w.push(r.map(|x| (x >> 32) as u32));
        }
    }
    w
}

/// Joins `n` registers of type `ty` from words (the inverse of [`to_words`]).
pub fn from_words(ty: Type, n: usize, words: &[[u32; WARP]]) -> Vec<[u64; WARP]> {
    let word = |k: usize, l: usize| words.get(k).map_or(0, |w| w[l]) as u64;
    (0..n)
        .map(|k| {
            std::array::from_fn(|l| {
                if ty.bits() == 64 {
                    word(2 * k, l) | word(2 * k + 1, l) << 32
                } else {
                    word(k, l)
                }
            })
        })
        .collect()
}

/// Evaluates a register-to-register matrix operation (`ldmatrix` with its rows,
/// `movmatrix`, `mma`, `wmma.mma`) for the whole warp. `rows[j]` is the 16-byte row
/// that lane `j`'s address points to (`ldmatrix` only). Returns the result words.
pub fn eval(op: MatrixOp, words: &[[u32; WARP]], rows: &[[u16; 8]; WARP]) -> Vec<[u32; WARP]> {
    match op {
        MatrixOp::Ldmatrix { num, trans } => (0..num.min(4) as usize)
            .map(|m| {
                let mat: [[u16; 8]; 8] = std::array::from_fn(|r| rows[8 * m + r]);
                distribute(&mat, trans)
            })
            .collect(),
        MatrixOp::Movmatrix => {
            let a = words.first().copied().unwrap_or([0; WARP]);
            vec![distribute(&collect(&a, false), true)]
        }
        MatrixOp::Mma(m) => mma(false, m, words),
        MatrixOp::WmmaMma(m) => mma(true, m, words),
        MatrixOp::Stmatrix { .. }
        | MatrixOp::WmmaLoad(_)
        | MatrixOp::WmmaStore(_)
        | MatrixOp::Wgmma(_) => vec![],
    }
}

/// `stmatrix`: the 16-byte row each lane's address receives (lanes `8m + r`: row `r`
/// of matrix `m`).
pub fn stmatrix_rows(num: u8, trans: bool, words: &[[u32; WARP]]) -> [[u16; 8]; WARP] {
    let mut rows = [[0u16; 8]; WARP];
    for m in 0..num.min(4) as usize {
        let reg = words.get(m).copied().unwrap_or([0; WARP]);
        let mat = collect(&reg, trans);
        rows[8 * m..8 * m + 8].copy_from_slice(&mat);
    }
    rows
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

/// The matrix a fragment register holds (the inverse of [`distribute`]).
fn collect(reg: &[u32; WARP], trans: bool) -> [[u16; 8]; 8] {
    let mut mat = [[0u16; 8]; 8];
    for (l, &v) in reg.iter().enumerate() {
        let (r, c) = (l >> 2, 2 * (l % 4));
        for h in 0..2 {
            if trans {
                mat[c + h][r] = half(v, h);
            } else {
                mat[r][c + h] = half(v, h);
            }
        }
    }
    mat
}

/// Words of a fragment of `n` elements of `ty`.
fn frag_words(ty: ElemType, elems: usize) -> usize {
    (elems * ty.bits() as usize).div_ceil(32)
}

/// Element `i` of lane `l` of a fragment held in `words`.
fn get_elem(ty: ElemType, words: &[[u32; WARP]], l: usize, i: usize) -> u64 {
    let w = |k: usize| words.get(k).map_or(0, |x| x[l]) as u64;
    if ty == ElemType::F64 {
        return w(2 * i) | w(2 * i + 1) << 32;
    }
    let bits = ty.bits() as usize;
    let (k, off) = (i * bits / 32, i * bits % 32);
    (w(k) >> off) & ((1u64 << bits) - 1)
}

fn set_elem(ty: ElemType, words: &mut [[u32; WARP]], l: usize, i: usize, v: u64) {
    if ty == ElemType::F64 {
        words[2 * i][l] = v as u32;
        words[2 * i + 1][l] = (v >> 32) as u32;
        return;
    }
    let bits = ty.bits() as usize;
    let (k, off) = (i * bits / 32, i * bits % 32);
    let mask = (((1u64 << bits) - 1) << off) as u32;
    words[k][l] = (words[k][l] & !mask) | ((v << off) as u32 & mask);
}

/// The `rows x cols` matrix (row-major element bits) a fragment holds.
fn gather(lay: &Layout, ty: ElemType, words: &[[u32; WARP]], cols: usize, n: usize) -> Vec<u64> {
    let mut mat = vec![0u64; n];
    for l in 0..WARP {
        for i in (0..lay.elems()).filter(|&i| !lay.is_copy(i)) {
            let (r, c) = lay.pos(l, i);
            if let Some(x) = mat.get_mut(r * cols + c) {
                *x = get_elem(ty, words, l, i);
            }
        }
    }
    mat
}

/// The fragment words of a row-major matrix.
fn scatter(lay: &Layout, ty: ElemType, mat: &[u64], cols: usize) -> Vec<[u32; WARP]> {
    let nw = if ty == ElemType::F64 {
        2 * lay.elems()
    } else {
        frag_words(ty, lay.elems())
    };
    let mut words = vec![[0u32; WARP]; nw];
    for l in 0..WARP {
        for i in 0..lay.elems() {
            let (r, c) = lay.pos(l, i);
            let v = mat.get(r * cols + c).copied().unwrap_or(0);
            set_elem(ty, &mut words, l, i, v);
        }
    }
    words
}

/// Words of a fragment (`.f64`: two per element).
fn nwords(lay: &Layout, ty: ElemType) -> usize {
    if ty == ElemType::F64 {
        2 * lay.elems()
    } else {
        frag_words(ty, lay.elems())
    }
}

/// `(rows, cols)` of the matrix of a `wmma` fragment.
pub fn wmma_dims(f: WmmaFrag) -> (usize, usize) {
    let (m, n, k) = f.shape.mnk();
    match f.frag {
        Frag::A => (m, k),
        Frag::B => (k, n),
        Frag::C | Frag::D => (m, n),
    }
}

/// `wmma.load`: the fragment words of a row-major matrix (element bits).
pub fn wmma_load(f: WmmaFrag, mat: &[u64]) -> Vec<[u32; WARP]> {
    match layout(true, f.shape, f.frag, f.ty) {
        Some(lay) => scatter(&lay, f.ty, mat, wmma_dims(f).1),
        None => vec![],
    }
}

/// `wmma.store`: the row-major matrix a fragment holds.
pub fn wmma_store(f: WmmaFrag, words: &[[u32; WARP]]) -> Vec<u64> {
    let (rows, cols) = wmma_dims(f);
    match layout(true, f.shape, f.frag, f.ty) {
        Some(lay) => gather(&lay, f.ty, words, cols, rows * cols),
        None => vec![0; rows * cols],
    }
}

/// The (row, column) of element `i` of lane `l`'s fragment `frag` of `mma.m8n8k4`
/// `.f16` (the ISA's figures): the warp runs four independent 8x8x4 products, one per
/// quad pair (lanes `4q..4q + 3` and `4q + 16..4q + 19`, `q = (l >> 2) & 3`); with
/// `h = l >> 4`: A `.row` (row `l % 4 + 4h`, column `i`), `.col` (row `i + 4h`, column
/// `l % 4`); B `.row` (row `l % 4`, column `i + 4h`), `.col` (row `i`, column
/// `l % 4 + 4h`); C/D `.f16` (row `l % 4 + 4h`, column `i`); C/D `.f32` (row
/// `l % 2 + 2 * ((i >> 1) & 1) + 4h`, column `(i & 1) + 2 * ((l >> 1) & 1) + 4 * (i >> 2)`).
/// Checked against every recorded `m8n8k4` case (`tests/golden`).
pub fn quad_pair_pos(frag: Frag, row: bool, ty: ElemType, l: usize, i: usize) -> (usize, usize) {
    let h = l >> 4;
    match frag {
        Frag::A if row => (l % 4 + 4 * h, i),
        Frag::A => (i + 4 * h, l % 4),
        Frag::B if row => (l % 4, i + 4 * h),
        Frag::B => (i, l % 4 + 4 * h),
        _ if ty == ElemType::F16 => (l % 4 + 4 * h, i),
        _ => (
            l % 2 + 2 * ((i >> 1) & 1) + 4 * h,
            (i & 1) + 2 * ((l >> 1) & 1) + 4 * (i >> 2),
        ),
    }
}

/// `mma.m8n8k4` `.f16`: four independent 8x8x4 products (see [`quad_pair_pos`]).
fn mma_quad_pairs(op: MmaOp, words: &[[u32; WARP]]) -> Vec<[u32; WARP]> {
    let nc = if op.ctype == ElemType::F32 { 8 } else { 4 };
    let nd = if op.dtype == ElemType::F32 { 8 } else { 4 };
    let mut out = vec![[0u32; WARP]; nd];
    let w = |k: usize| words.get(k).copied().unwrap_or([0; WARP]);
    let (fa, fb) = ([w(0), w(1)], [w(2), w(3)]);
    let fc: Vec<[u32; WARP]> = (0..nc).map(|k| w(4 + k)).collect();
    for q in 0..4 {
        let lanes: Vec<usize> = (0..WARP).filter(|l| (l >> 2) & 3 == q).collect();
        let (mut a, mut b, mut c) = (vec![0u64; 32], vec![0u64; 32], vec![0u64; 64]);
        for &l in &lanes {
            for i in 0..4 {
                let (r, col) = quad_pair_pos(Frag::A, op.arow, ElemType::F16, l, i);
                a[r * 4 + col] = get_elem(ElemType::F16, &fa, l, i);
                let (r, col) = quad_pair_pos(Frag::B, op.brow, ElemType::F16, l, i);
                b[r * 8 + col] = get_elem(ElemType::F16, &fb, l, i);
            }
            for i in 0..8 {
                let (r, col) = quad_pair_pos(Frag::C, true, op.ctype, l, i);
                c[r * 8 + col] = get_elem(op.ctype, &fc, l, i);
            }
        }
        let d = matmul(op, &a, &b, &c);
        for &l in &lanes {
            for i in 0..8 {
                let (r, col) = quad_pair_pos(Frag::D, true, op.dtype, l, i);
                set_elem(op.dtype, &mut out, l, i, d[r * 8 + col]);
            }
        }
    }
    out
}

/// `mma.sync` / `wmma.mma` for the whole warp.
fn mma(wmma: bool, op: MmaOp, words: &[[u32; WARP]]) -> Vec<[u32; WARP]> {
    if !wmma && op.shape == MmaShape::M8n8k4 && op.atype == ElemType::F16 {
        return mma_quad_pairs(op, words);
    }
    let (m, n, k) = op.shape.mnk();
    let a_shape = if op.sparse {
        compressed_shape(op).unwrap_or(op.shape)
    } else {
        op.shape
    };
    let lays = (
        layout(wmma, a_shape, Frag::A, op.atype),
        layout(wmma, op.shape, Frag::B, op.btype),
        layout(wmma, op.shape, Frag::C, op.ctype),
        layout(wmma, op.shape, Frag::D, op.dtype),
    );
    let (Some(la), Some(lb), Some(lc), Some(ld)) = lays else {
        return vec![];
    };
    let (wa, wb) = (nwords(&la, op.atype), nwords(&lb, op.btype));
    let wc = nwords(&lc, op.ctype);
    let part = |from: usize, len: usize| {
        let mut v = words
            .iter()
            .skip(from)
            .take(len)
            .copied()
            .collect::<Vec<_>>();
        v.resize(len, [0; WARP]);
        v
    };
    let b = gather(&lb, op.btype, &part(wa, wb), n, k * n);
    let c = gather(&lc, op.ctype, &part(wa + wb, wc), n, m * n);
    let d = if op.sparse {
        let compressed = gather(&la, op.atype, &part(0, wa), k / 2, m * k / 2);
        let meta = part(wa + wb + wc, 1)[0];
        let selector = part(wa + wb + wc + 1, 1)[0][0];
        let (a, kept) = decompress(op, &compressed, &meta, selector);
        matmul_kept(op, &a, &b, &c, Some(&kept))
    } else {
        let a = gather(&la, op.atype, &part(0, wa), k, m * k);
        matmul(op, &a, &b, &c)
    };
    scatter(&ld, op.dtype, &d, n)
}

/// `mma.sp`'s A (`m x k`) from its compressed form (`m x k/2`, row-major), the
/// metadata register of every lane and the sparsity selector. `.tf32`: see the code
/// (1:2 groups). Otherwise row `r`'s `k` splits into groups of 4 elements (8 for
/// `.s4`/`.u4`, as 4 pairs); a group's nibble holds two 2-bit indices (low: the
/// position of the group's first kept element or pair, high: the second's), and the
/// group's kept elements are its compressed ones in order.
///
/// Where the nibbles are: each group of four lanes `4g .. 4g + 3` holds the nibbles of
/// rows `g` and `g + 8` in `n` of its lanes ([`sparse_meta_threads`]: 1, 2 or 4). With
/// selector 0 the nibble of group `q` of row `r` is, in the metadata register of lane
/// `4 * (r % 8) + t` (fitted to the H100's results for every recorded `mma.sp` form,
/// `tests/golden`, all with selector 0): `.f16`/`.bf16`/`.tf32`: nibble
/// `q % 4 + 4 * (r / 8)` of `t = q / 4`; the other types: nibble `q % 8` of
/// `t = r / 8 + 2 * (q / 8)`. Selector `s` moves the same bits to lane
/// `4 * (r % 8) + s * n + t`: the PTX ISA ("Sparse matrix storage") names the thread
/// `s` of the group when one thread holds the metadata, the pair `2s, 2s + 1` ("0
/// (threads T0, T1) or 1 (threads T2, T3)") when two do, and allows only 0 when all
/// four do. Selectors the ISA leaves undefined stop the launch before they get here
/// (`crate::exec::matrix`).
///
/// Also returns which elements of A are kept: the products of the others are not
/// computed (an infinity or NaN in B where A is pruned does not reach D, as on the
/// H100).
fn decompress(
    op: MmaOp,
    compressed: &[u64],
    meta: &[u32; WARP],
    selector: u32,
) -> (Vec<u64>, Vec<bool>) {
    let (m, _, k) = op.shape.mnk();
    let pair = op.atype.bits() == 4;
    let gs = if pair { 8 } else { 4 };
    let per = if pair { 2 } else { 1 };
    let half = op.atype.bits() == 16;
    let first = selector as usize * sparse_meta_threads(op).unwrap_or(1);
    let nibble =
        |r: usize, t: usize, j: usize| meta[(4 * (r % 8) + first + t) % WARP] >> (4 * j) & 0xf;
    let mut a = vec![0u64; m * k];
    let mut kept = vec![false; m * k];
    if op.atype == ElemType::TF32 {
        // Groups of two elements, one kept: the nibble counts in 16-bit halves (0x4:
        // the first element, 0xE: the second), placed as for `.f16`.
        for r in 0..m {
            for q in 0..k / 2 {
                let nib = nibble(r, q / 4, q % 4 + 4 * (r / 8));
                let dst = r * k + 2 * q + (nib & 3) as usize / 2;
                a[dst] = compressed[r * k / 2 + q];
                kept[dst] = true;
            }
        }
        return (a, kept);
    }
    for r in 0..m {
        for q in 0..k / gs {
            let nib = if half {
                nibble(r, q / 4, q % 4 + 4 * (r / 8))
            } else {
                nibble(r, r / 8 + 2 * (q / 8), q % 8)
            };
            for (h, i) in [nib & 3, nib >> 2].into_iter().enumerate() {
                for e in 0..per {
                    let src = r * k / 2 + q * gs / 2 + h * per + e;
                    let dst = r * k + q * gs + i as usize * per + e;
                    a[dst] = compressed[src];
                    kept[dst] = true;
                }
            }
        }
    }
    (a, kept)
}

/// `D = A * B + C` on row-major element bits (A `m x k`, B `k x n`, C and D `m x n`).
pub fn matmul(op: MmaOp, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    matmul_kept(op, a, b, c, None)
}

/// [`matmul`] over the `k` where `kept[i * k + kk]` (all when `None`).
fn matmul_kept(op: MmaOp, a: &[u64], b: &[u64], c: &[u64], kept: Option<&[bool]>) -> Vec<u64> {
    let (m, n, k) = op.shape.mnk();
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        let ks: Vec<usize> = (0..k)
            .filter(|&kk| kept.is_none_or(|v| v[i * k + kk]))
            .collect();
        let row: Vec<u64> = ks.iter().map(|&kk| a[i * k + kk]).collect();
        for j in 0..n {
            let col: Vec<u64> = ks.iter().map(|&kk| b[kk * n + j]).collect();
            d[i * n + j] = matrix_num::dot(op, &row, &col, c[i * n + j]);
        }
    }
    d
}

/// Packs a matrix operation into the JIT helper's descriptor.
pub fn encode(op: MatrixOp) -> u64 {
    let t = |ty: ElemType| ElemType::ALL.iter().position(|&x| x == ty).unwrap_or(15) as u64;
    let mma = |kind: u64, m: MmaOp| {
        let bop = match m.bop {
            None => 0,
            Some(PopcOp::Xor) => 1,
            Some(PopcOp::And) => 2,
        };
        kind | (m.shape.code() as u64) << 8
            | t(m.dtype) << 12
            | t(m.atype) << 16
            | t(m.btype) << 20
            | t(m.ctype) << 24
            | (m.arow as u64) << 28
            | (m.brow as u64) << 29
            | (m.satfinite as u64) << 30
            | bop << 32
            | m.rnd.map_or(0, |r| r as u64 + 1) << 34
            | (m.sparse as u64) << 37
    };
    let frag = |kind: u64, f: WmmaFrag| {
        let fr = match f.frag {
            Frag::A => 0,
            Frag::B => 1,
            Frag::C => 2,
            Frag::D => 3,
        };
        kind | (f.shape.code() as u64) << 8 | t(f.ty) << 12 | fr << 16 | (f.row as u64) << 18
    };
    match op {
        MatrixOp::Ldmatrix { num, trans } => (num as u64) << 8 | (trans as u64) << 16,
        MatrixOp::Movmatrix => 1,
        MatrixOp::Mma(m) => mma(2, m),
        MatrixOp::Stmatrix { num, trans } => 3 | (num as u64) << 8 | (trans as u64) << 16,
        MatrixOp::WmmaLoad(f) => frag(4, f),
        MatrixOp::WmmaStore(f) => frag(5, f),
        MatrixOp::WmmaMma(m) => mma(6, m),
        MatrixOp::Wgmma(w) => {
            let bop = match w.bop {
                None => 0,
                Some(PopcOp::Xor) => 1,
                Some(PopcOp::And) => 2,
            };
            7 | (w.n as u64) << 8
                | t(w.dtype) << 20
                | t(w.atype) << 24
                | t(w.btype) << 28
                | (w.a_desc as u64) << 32
                | (w.neg_a as u64) << 33
                | (w.neg_b as u64) << 34
                | (w.trans_a as u64) << 35
                | (w.trans_b as u64) << 36
                | (w.satfinite as u64) << 37
                | bop << 38
        }
    }
}

/// Inverse of [`encode`].
pub fn decode_op(d: u64) -> Option<MatrixOp> {
    let nib = |s: u32| (d >> s & 0xf) as usize;
    let t = |s: u32| ElemType::ALL.get(nib(s)).copied();
    let bit = |s: u32| d >> s & 1 != 0;
    let shape = MmaShape::ALL.get(nib(8)).copied();
    let mma = || -> Option<MmaOp> {
        Some(MmaOp {
            shape: shape?,
            dtype: t(12)?,
            atype: t(16)?,
            btype: t(20)?,
            ctype: t(24)?,
            arow: bit(28),
            brow: bit(29),
            satfinite: bit(30),
            bop: match d >> 32 & 3 {
                0 => None,
                1 => Some(PopcOp::Xor),
                _ => Some(PopcOp::And),
            },
            rnd: match d >> 34 & 7 {
                0 => None,
                r => Some(r as u8 - 1),
            },
            sparse: bit(37),
        })
    };
    let frag = || -> Option<WmmaFrag> {
        Some(WmmaFrag {
            shape: shape?,
            ty: t(12)?,
            frag: [Frag::A, Frag::B, Frag::C, Frag::D][(d >> 16 & 3) as usize],
            row: bit(18),
        })
    };
    let num = (d >> 8 & 0xff) as u8;
    Some(match d & 0xff {
        0 => MatrixOp::Ldmatrix {
            num,
            trans: bit(16),
        },
        1 => MatrixOp::Movmatrix,
        2 => MatrixOp::Mma(mma()?),
        3 => MatrixOp::Stmatrix {
            num,
            trans: bit(16),
        },
        4 => MatrixOp::WmmaLoad(frag()?),
        5 => MatrixOp::WmmaStore(frag()?),
        6 => MatrixOp::WmmaMma(mma()?),
        7 => MatrixOp::Wgmma(crate::ir::WgmmaOp {
            n: (d >> 8 & 0x1ff) as u16,
            dtype: t(20)?,
            atype: t(24)?,
            btype: t(28)?,
            a_desc: bit(32),
            neg_a: bit(33),
            neg_b: bit(34),
            trans_a: bit(35),
            trans_b: bit(36),
            satfinite: bit(37),
            bop: match d >> 38 & 3 {
                0 => None,
                1 => Some(PopcOp::Xor),
                _ => Some(PopcOp::And),
            },
        }),
        _ => return None,
    })
}

#[cfg(test)]
#[path = "matrix_tests.rs"]
mod tests;
