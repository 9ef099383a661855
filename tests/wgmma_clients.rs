//! Compiler-generated `wgmma` kernels on both backends against the exact product of
//! small-integer inputs (every sum exact in the accumulator type):
//! - `tests/kernels/wgmma/wgmma_nvrtc.cu`, CUDA C++ with inline `wgmma` compiled by NVRTC
//!   for sm_90a (`regen.sh`): the C++ code stages the 128-byte swizzle and builds the
//!   descriptors itself;
//! - Triton's sm_90 matmul tutorial kernels of the corpus, which Triton lowers to
//!   `wgmma` over 128-byte-swizzled shared tiles (`.f16`, `.bf16`, `.tf32`; one and two
//!   warpgroups).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use half::{bf16, f16};
use ptxjit::KernelArg;

/// The NVRTC-compiled CUDA C++ tile (`wgmma_nvrtc.cu`: 128-byte swizzle staged by C++
/// code, descriptors built from `__cvta_generic_to_shared`, four chained
/// `m64n64k16` steps over K = 64) against the exact product of small integers.
#[test]
fn nvrtc_cuda_gemm_tile() {
    const K: usize = 64;
    let mut r = Rng::new(21);
    let mut v = |n: usize, lim: u32| -> Vec<i64> {
        (0..n)
            .map(|_| r.range(0, 2 * lim + 1) as i64 - lim as i64)
            .collect()
    };
    let (a, b, c) = (v(64 * K, 4), v(64 * K, 4), v(64 * 64, 64));
    let h = |x: &[i64]| -> Vec<u16> {
        x.iter()
            .map(|&v| f16::from_f64(v as f64).to_bits())
            .collect()
    };
    let cf: Vec<f32> = c.iter().map(|&x| x as f32).collect();
    let want: Vec<f32> = (0..64 * 64)
        .map(|i| {
            let (row, col) = (i / 64, i % 64);
            let s: i64 = (0..K).map(|k| a[row * K + k] * b[col * K + k]).sum();
            (c[i] + s) as f32
        })
        .collect();
    let dev = device();
    let mut res = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module(&dev, "wgmma/wgmma_nvrtc.ptx", backend);
        let (ba, bb) = (
            dev.alloc_from(&h(&a)).unwrap(),
            dev.alloc_from(&h(&b)).unwrap(),
        );
        let bc = dev.alloc_from(&cf).unwrap();
        let bd = zeroed(&dev, 64 * 64 * 4);
        let args = [
            arg(&ba),
            arg(&bb),
            arg(&bc),
            arg(&bd),
            KernelArg::I32(K as i32),
        ];
        let cf = cfg([1, 1, 1], [128, 1, 1], backend);
        launch(&dev, &m, "wgmma_gemm_f16_f32", &cf, &args, "nvrtc wgmma");
        res.push(dev.read::<f32>(&bd).unwrap());
    }
    assert_f32_bits(&res[0], &want, "JIT");
    assert_f32_bits(&res[1], &want, "interpreter");
}

/// Triton's sm_90 matmul tutorial kernels of the corpus (`tests/corpus/triton`), which
/// Triton compiles to `wgmma` with 128-byte-swizzled shared tiles, run on both backends
/// with small-integer inputs against the exact product: `(file, input bits, output
/// bits, BLOCK_M, BLOCK_N, warps, leaky_relu)`.
#[test]
fn triton_matmuls() {
    let cases = [
        ("matmul.fp16.64x64x32.sm_90.ptx", 16, 16, 64, 64, 4, false),
        ("matmul.bf16.64x64x64.sm_90.ptx", 16, 32, 64, 64, 4, false),
        (
            "matmul.fp32.64x32x32.leaky_relu.sm_90.ptx",
            32,
            32,
            64,
            32,
            4,
            true,
        ),
        (
            "matmul.fp16.128x128x64.leaky_relu.sm_90.ptx",
            16,
            16,
            128,
            128,
            8,
            true,
        ),
    ];
    for (file, ib, ob, bm, bn, warps, leaky) in cases {
        let (m, n, k) = (2 * bm, 2 * bn, 128);
        let mut r = Rng::new(31);
        let mut v =
            |len: usize| -> Vec<i64> { (0..len).map(|_| r.range(0, 9) as i64 - 4).collect() };
        let (a, b) = (v(m * k), v(k * n));
        let enc = |x: i64, bits: u32, bf: bool| -> Vec<u8> {
            match (bits, bf) {
                (16, false) => f16::from_f64(x as f64).to_bits().to_le_bytes().to_vec(),
                (16, true) => bf16::from_f64(x as f64).to_bits().to_le_bytes().to_vec(),
                _ => (x as f32).to_le_bytes().to_vec(),
            }
        };
        let bf = file.contains("bf16");
        let img = |x: &[i64]| -> Vec<u8> { x.iter().flat_map(|&v| enc(v, ib, bf)).collect() };
        let want: Vec<u32> = (0..m * n)
            .map(|i| {
                let (row, col) = (i / n, i % n);
                let s: i64 = (0..k).map(|kk| a[row * k + kk] * b[kk * n + col]).sum();
                let f = s as f32;
                let f = if leaky && f < 0.0 { f * 0.01 } else { f };
                if ob == 16 {
                    f16::from_f32(f).to_bits() as u32
                } else {
                    f.to_bits()
                }
            })
            .collect();
        let dev = device();
        let path = format!("tests/corpus/triton/{file}");
        for backend in [Backend::Jit, Backend::Interp] {
            let md = module_at(&dev, &path, backend);
            let (da, db) = (
                dev.alloc_from(&img(&a)).unwrap(),
                dev.alloc_from(&img(&b)).unwrap(),
            );
            let dc = zeroed(&dev, m * n * ob as usize / 8);
            let mut args = vec![arg(&da), arg(&db), arg(&dc)];
            args.extend([m, n, k, k, 1, n, 1, n, 1].map(|x| KernelArg::I32(x as i32)));
            args.extend([KernelArg::U64(0), KernelArg::U64(0)]);
            let grid = ((m / bm) * (n / bn)) as u32;
            let c = cfg([grid, 1, 1], [32 * warps, 1, 1], backend).shared_bytes(160 * 1024);
            launch(&dev, &md, "matmul_kernel", &c, &args, file);
            let raw = dev.read::<u8>(&dc).unwrap();
            let got: Vec<u32> = if ob == 16 {
                raw.chunks(2)
                    .map(|x| u16::from_le_bytes([x[0], x[1]]) as u32)
                    .collect()
            } else {
                raw.chunks(4)
                    .map(|x| u32::from_le_bytes(x.try_into().unwrap()))
                    .collect()
            };
            if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                panic!(
                    "{file} {backend:?}: C[{}][{}] = {:#x}, want {:#x}",
                    i / n,
                    i % n,
                    got[i],
                    want[i]
                );
            }
        }
    }
}
