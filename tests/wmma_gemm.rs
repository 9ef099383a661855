//! CUDA C++ GEMMs written with `nvcuda::wmma` (`tests/kernels/wmma/wmma_gemm.cu`,
//! compiled by NVRTC for compute_80 by `tests/kernels/wmma/regen.sh`) on both backends,
//! against a plain Rust matrix product: each warp computes one tile of `D = A * B + C`
//! (A row-major `M x K`, B column-major, C and D row-major, or column-major for the f16
//! `m32n8k16` kernel) with `wmma::load_matrix_sync`, `mma_sync` and `store_matrix_sync`.
//!
//! Oracles (independent of `ptxjit::ops::matrix`):
//! - f16, bf16, tf32: small integer inputs, so every partial sum is exact in the
//!   accumulator type and the result must equal the exact product; plus random f16
//!   inputs with f32 accumulation, within the ISA-permitted error: per `mma_sync` the
//!   H100 truncates each of the 17 terms and the sum (see README), so the error is below
//!   `(K / 16) * 18 * 2^-23` times the largest partial magnitude;
//! - f64: random doubles; the result must equal the chain `d = fma(a[k], b[k], d)` over
//!   `k` in increasing order from C, computed here with `f64::mul_add` (what the GPU does,
//!   `tests/golden/README.md`);
//! - s8/u8: random bytes, the exact sum wrapped to 32 bits.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use half::{bf16, f16};
use ptxjit::KernelArg;

const FILE: &str = "wmma/wmma_gemm.nvrtc.ptx";
const M: usize = 64;
const N: usize = 64;
const K: usize = 64;

/// Runs `kernel` on both backends with `tiles` warps (4 per block); returns D's bytes,
/// after checking that JIT and interpreter agree.
fn run(kernel: &str, a: &[u8], b: &[u8], c: &[u8], dbytes: usize, tiles: usize) -> Vec<u8> {
    let dev = device();
    let mut res = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module(&dev, FILE, backend);
        let ins: Vec<_> = [a, b, c]
            .iter()
            .map(|x| dev.alloc_from(x).unwrap())
            .collect();
        let d = zeroed(&dev, dbytes);
        let mut args: Vec<_> = ins.iter().chain([&d]).map(arg).collect();
        args.extend([M, N, K].map(|x| KernelArg::I32(x as i32)));
        let c = cfg([blocks(tiles, 4), 1, 1], [128, 1, 1], backend);
        launch(&dev, &m, kernel, &c, &args, kernel);
        res.push(dev.read::<u8>(&d).unwrap());
    }
    let interp = res.pop().unwrap();
    let jit = res.pop().unwrap();
    assert_eq!(jit, interp, "{kernel}: JIT and interpreter differ");
    jit
}

fn bytes<T: Copy, const W: usize>(v: &[T], f: impl Fn(T) -> [u8; W]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// A row-major `M x K` A and a column-major `K x N` B (`b[n * K + k]`) of small
/// integers in [-4, 4], and a row-major C in [-64, 64].
fn small_ints(seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut r = Rng::new(seed);
    let mut v = |n: usize, lim: u32| -> Vec<f64> {
        (0..n)
            .map(|_| r.range(0, 2 * lim + 1) as f64 - lim as f64)
            .collect()
    };
    (v(M * K, 4), v(K * N, 4), v(M * N, 64))
}

/// `C + A * B` exactly (f64 sums of small integers are exact), row-major.
fn reference(a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let mut d = c.to_vec();
    for i in 0..M {
        for j in 0..N {
            d[i * N + j] += (0..K).map(|k| a[i * K + k] * b[j * K + k]).sum::<f64>();
        }
    }
    d
}

#[test]
fn f16_f32_exact() {
    let (a, b, c) = small_ints(1);
    let h = |v: &[f64]| bytes(v, |x| f16::from_f64(x).to_bits().to_le_bytes());
    let cf = bytes(&c, |x| (x as f32).to_le_bytes());
    let d = run(
        "gemm_f16_f32",
        &h(&a),
        &h(&b),
        &cf,
        M * N * 4,
        (M / 16) * (N / 16),
    );
    let got: Vec<f32> = d
        .chunks(4)
        .map(|x| f32::from_le_bytes(x.try_into().unwrap()))
        .collect();
    let want = reference(&a, &b, &c);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(*g as f64, *w, "D[{}][{}]", i / N, i % N);
    }
}

#[test]
fn f16_f32_random_within_bound() {
    let mut r = Rng::new(7);
    let mut v = |n: usize| -> Vec<f16> { (0..n).map(|_| f16::from_f32(r.f32() / 64.0)).collect() };
    let (a, b) = (v(M * K), v(K * N));
    let c: Vec<f32> = (0..M * N).map(|i| (i % 7) as f32 - 3.0).collect();
    let h = |v: &[f16]| bytes(v, |x| x.to_bits().to_le_bytes());
    let d = run(
        "gemm_f16_f32",
        &h(&a),
        &h(&b),
        &bytes(&c, |x| x.to_le_bytes()),
        M * N * 4,
        16,
    );
    let got: Vec<f32> = d
        .chunks(4)
        .map(|x| f32::from_le_bytes(x.try_into().unwrap()))
        .collect();
    for i in 0..M {
        for j in 0..N {
            let terms: Vec<f64> = (0..K)
                .map(|k| a[i * K + k].to_f64() * b[j * K + k].to_f64())
                .collect();
            let exact = c[i * N + j] as f64 + terms.iter().sum::<f64>();
            // The largest partial magnitude bounds every alignment exponent.
            let scale = c[i * N + j].abs() as f64 + terms.iter().map(|t| t.abs()).sum::<f64>();
            let bound = (K / 16) as f64 * 18.0 * scale * 2f64.powi(-23);
            let g = got[i * N + j] as f64;
            assert!(
                (g - exact).abs() <= bound,
                "D[{i}][{j}] = {g}, exact {exact}, bound {bound}"
            );
        }
    }
}

#[test]
fn f16_f16_m32n8_col_major_exact() {
    let (a, b, c) = small_ints(2);
    let h = |v: &[f64]| bytes(v, |x| f16::from_f64(x).to_bits().to_le_bytes());
    // C and D column-major here.
    let ccol: Vec<f64> = (0..M * N).map(|x| c[(x % M) * N + x / M]).collect();
    let d = run(
        "gemm_f16_f16_m32n8",
        &h(&a),
        &h(&b),
        &h(&ccol),
        M * N * 2,
        (M / 32) * (N / 8),
    );
    let want = reference(&a, &b, &c);
    for j in 0..N {
        for i in 0..M {
            let x = u16::from_le_bytes([d[2 * (j * M + i)], d[2 * (j * M + i) + 1]]);
            assert_eq!(f16::from_bits(x).to_f64(), want[i * N + j], "D[{i}][{j}]");
        }
    }
}

#[test]
fn bf16_m8n32_exact() {
    let (a, b, c) = small_ints(3);
    let h = |v: &[f64]| bytes(v, |x| bf16::from_f64(x).to_bits().to_le_bytes());
    let cf = bytes(&c, |x| (x as f32).to_le_bytes());
    let d = run(
        "gemm_bf16_m8n32",
        &h(&a),
        &h(&b),
        &cf,
        M * N * 4,
        (M / 8) * (N / 32),
    );
    let want = reference(&a, &b, &c);
    for (i, x) in d.chunks(4).enumerate() {
        let g = f32::from_le_bytes(x.try_into().unwrap());
        assert_eq!(g as f64, want[i], "D[{}][{}]", i / N, i % N);
    }
}

#[test]
fn tf32_exact() {
    let (a, b, c) = small_ints(4);
    let f = |v: &[f64]| bytes(v, |x| (x as f32).to_le_bytes());
    let d = run(
        "gemm_tf32",
        &f(&a),
        &f(&b),
        &f(&c),
        M * N * 4,
        (M / 16) * (N / 16),
    );
    let want = reference(&a, &b, &c);
    for (i, x) in d.chunks(4).enumerate() {
        let g = f32::from_le_bytes(x.try_into().unwrap());
        assert_eq!(g as f64, want[i], "D[{}][{}]", i / N, i % N);
    }
}

#[test]
fn f64_fma_chain() {
    let mut r = Rng::new(5);
    let mut v = |n: usize| -> Vec<f64> { (0..n).map(|_| r.f32() as f64 * 1.000_000_1).collect() };
    let (a, b, c) = (v(M * K), v(K * N), v(M * N));
    let f = |v: &[f64]| bytes(v, |x| x.to_le_bytes());
    let d = run(
        "gemm_f64",
        &f(&a),
        &f(&b),
        &f(&c),
        M * N * 8,
        (M / 8) * (N / 8),
    );
    for i in 0..M {
        for j in 0..N {
            let want = (0..K).fold(c[i * N + j], |s, k| a[i * K + k].mul_add(b[j * K + k], s));
            let o = 8 * (i * N + j);
            let g = f64::from_le_bytes(d[o..o + 8].try_into().unwrap());
            assert_eq!(g.to_bits(), want.to_bits(), "D[{i}][{j}]: {g} vs {want}");
        }
    }
}

fn int_gemm(kernel: &str, signed: bool, seed: u64) {
    let mut r = Rng::new(seed);
    let mut v = |n: usize| -> Vec<u8> { (0..n).map(|_| r.u32() as u8).collect() };
    let (a, b) = (v(M * K), v(K * N));
    let c: Vec<i32> = (0..M * N).map(|i| (i as i32 - 2000) * 1_000_003).collect();
    let d = run(
        kernel,
        &a,
        &b,
        &bytes(&c, |x| x.to_le_bytes()),
        M * N * 4,
        16,
    );
    let val = |x: u8| if signed { x as i8 as i64 } else { x as i64 };
    for i in 0..M {
        for j in 0..N {
            let s: i64 = (0..K).map(|k| val(a[i * K + k]) * val(b[j * K + k])).sum();
            let want = (s + c[i * N + j] as i64) as i32;
            let o = 4 * (i * N + j);
            let g = i32::from_le_bytes(d[o..o + 4].try_into().unwrap());
            assert_eq!(g, want, "{kernel} D[{i}][{j}]");
        }
    }
}

#[test]
fn s8_exact() {
    int_gemm("gemm_s8", true, 8);
}

#[test]
fn u8_exact() {
    int_gemm("gemm_u8", false, 9);
}
