//! Floating-point `mma.sync.m16n8k16 .f32.{f16,bf16}` against the GPU, bit for bit.
//!
//! ptxjit follows the H100's rule (README "Tensor-core numerics on a CPU", `ops::matrix`):
//! terms aligned to the largest one and truncated, the sum truncated to f32. A result
//! that differs is reported with its distance in units of 2^-23 of the largest addend
//! `max(|C[i][j]|, max_k |A[i][k]·B[k][j]|)` (an exact sum rounded once to nearest, the
//! rule ptxjit had before, is within 8 such units of the H100 on these inputs).
//! The integer `mma` cases are compared bit for bit by the generic code.

use super::{Report, Verdict};
use crate::Case;

fn half(bits: u32, bf16: bool) -> f64 {
    if bf16 {
        f32::from_bits(bits << 16) as f64
    } else {
        ::half::f16::from_bits(bits as u16).to_f64()
    }
}

/// A (16x16), B (16x8) and C (16x8) of one warp from its 32 records of 10 words
/// (a0..a3, b0, b1, c0..c3), in the PTX ISA's m16n8k16 fragment layouts.
type Mats = ([[f64; 16]; 16], [[f64; 8]; 16], [[f64; 8]; 16]);

fn matrices(rec: &[u32], bf16: bool) -> Mats {
    let (mut a, mut b, mut c) = ([[0.0; 16]; 16], [[0.0; 8]; 16], [[0.0; 8]; 16]);
    for lane in 0..32 {
        let r = &rec[lane * 10..lane * 10 + 10];
        let (g, t) = (lane / 4, lane % 4);
        for (i, &w) in r[..4].iter().enumerate() {
            let row = g + 8 * (i & 1);
            let col = 2 * t + 8 * (i >> 1);
            a[row][col] = half(w & 0xffff, bf16);
            a[row][col + 1] = half(w >> 16, bf16);
        }
        for (i, &w) in r[4..6].iter().enumerate() {
            let k = 2 * t + 8 * i;
            b[k][g] = half(w & 0xffff, bf16);
            b[k + 1][g] = half(w >> 16, bf16);
        }
        for (i, &w) in r[6..10].iter().enumerate() {
            c[g + 8 * (i >> 1)][2 * t + (i & 1)] = f32::from_bits(w) as f64;
        }
    }
    (a, b, c)
}

pub fn check(c: &Case, input: &[u8], want: &[u8], got: &[u8], r: &mut Report) -> Verdict {
    let bf16 = c.name.contains("bf16");
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    };
    let (inp, gpu, jit) = (words(input), words(want), words(got));
    let warps = gpu.len() / 128;
    let (mut equal, mut worst, mut bad) = (0usize, 0f64, Vec::new());
    for w in 0..warps {
        let (a, b, cm) = matrices(&inp[w * 320..w * 320 + 320], bf16);
        for lane in 0..32 {
            for i in 0..4 {
                let k = w * 128 + lane * 4 + i;
                let (g, x) = (gpu[k], jit[k]);
                if g == x {
                    equal += 1;
                    continue;
                }
                let (gv, xv) = (f32::from_bits(g) as f64, f32::from_bits(x) as f64);
                let (row, col) = (lane / 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1));
                let mut big = cm[row][col].abs();
                for (kk, arow) in a[row].iter().enumerate() {
                    big = big.max((arow * b[kk][col]).abs());
                }
                let units = (gv - xv).abs() / (big * 2f64.powi(-23));
                if bad.len() < 4 {
                    bad.push(format!(
                        "warp {w} lane {lane} d{i}: GPU {g:#010x}, ptxjit {x:#010x} \
                         ({units:.1} x 2^-23 of the largest addend {big:e})"
                    ));
                }
                worst = worst.max(units);
            }
        }
    }
    r.mma.insert(
        c.name.clone(),
        format!(
            "{equal} of {} results bit-equal to the GPU's \
             (worst difference {worst:.1} x 2^-23 of the largest addend)",
            gpu.len()
        ),
    );
    if bad.is_empty() {
        Verdict::Ok
    } else {
        Verdict::Bad(format!(
            "{} results differ: {}",
            gpu.len() - equal,
            bad.join("; ")
        ))
    }
}
