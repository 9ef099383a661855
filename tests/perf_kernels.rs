//! The benchmark kernels added for the performance table (benches/kernels.rs), at small
//! sizes on both backends and both compilers' PTX, against plain Rust references written
//! here in the kernels' operation order:
//! - `sgemm_tiled` (tests/kernels/sgemm.cu): every output is `fma(a[k], b[k], acc)` for
//!   k = 0..n in order (the PTX's chain of `fma.rn.f32`), so `f32::mul_add` in the same
//!   order is bit-identical;
//! - `nbody_acc` (tests/kernels/nbody.cu): `sub.f32`, three `fma.rn.f32`, `sqrt.rn.f32`,
//!   `rcp.rn.f32` (correctly rounded 1/x), three `mul.rn.f32`, three `fma.rn.f32` per
//!   pair, all IEEE-exact operations that Rust has;
//! - `block_scan` (tests/kernels/scan.cu): inclusive u32 scan per block, exact integers
//!   (wrapping), reference a sequential prefix sum.
#[macro_use]
mod common;
use common::*;

/// `c = a * b` (n x n row-major), each output accumulated over k = 0..n with one fused
/// multiply-add per step, as the kernel does.
fn sgemm_ref(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc = a[i * n + k].mul_add(b[k * n + j], acc);
            }
            c[i * n + j] = acc;
        }
    }
    c
}

fn sgemm(backend: Backend) {
    let dev = device();
    for file in variants("sgemm") {
        let m = module(&dev, &file, backend);
        for (s, &n) in [16usize, 48, 64].iter().enumerate() {
            let mut rng = Rng::new(700 + s as u64);
            // Mixed magnitudes: the sums round, so the order of the fmas matters.
            let a = rng.vec_f32(n * n);
            let b = rng.vec_f32(n * n);
            let ba = dev.alloc_from(&a).unwrap();
            let bb = dev.alloc_from(&b).unwrap();
            let bc = zeroed(&dev, n * n * 4);
            let what = format!("{file} sgemm_tiled n={n} {backend:?}");
            let t = (n / 16) as u32;
            launch(
                &dev,
                &m,
                "sgemm_tiled",
                &cfg([t, t, 1], [16, 16, 1], backend),
                &[arg(&ba), arg(&bb), arg(&bc), KernelArg::from(n as i32)],
                &what,
            );
            assert_f32_bits(&dev.read::<f32>(&bc).unwrap(), &sgemm_ref(&a, &b, n), &what);
        }
    }
}

/// Accelerations of every body (x, y, z, mass) from all bodies, in the kernel's order.
fn nbody_ref(pos: &[[f32; 4]], eps2: f32) -> Vec<[f32; 4]> {
    pos.iter()
        .map(|pi| {
            let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
            for pj in pos {
                let (dx, dy, dz) = (pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]);
                let d2 = dz.mul_add(dz, dy.mul_add(dy, dx.mul_add(dx, eps2)));
                let inv = 1.0 / d2.sqrt();
                let s = pj[3] * inv * inv * inv;
                ax = dx.mul_add(s, ax);
                ay = dy.mul_add(s, ay);
                az = dz.mul_add(s, az);
            }
            [ax, ay, az, 0.0]
        })
        .collect()
}

fn nbody(backend: Backend) {
    let dev = device();
    for file in variants("nbody") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [(1usize, 32u32), (100, 32), (256, 128)].iter().enumerate() {
            let mut rng = Rng::new(800 + s as u64);
            // Positions in [-1, 1) and masses in [0.5, 1.5) with random low bits.
            let mut unit = || (rng.u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0;
            let pos: Vec<[f32; 4]> = (0..n)
                .map(|_| [unit(), unit(), unit(), unit() * 0.5 + 1.0])
                .collect();
            let eps2 = 1.0e-3f32;
            let flat: Vec<f32> = pos.iter().flatten().copied().collect();
            let bp = dev.alloc_from(&flat).unwrap();
            let grid = blocks(n, block);
            // Padding threads past n write nothing: the sentinel stays.
            let sentinel = vec![-7.5f32; grid as usize * block as usize * 4];
            let ba = dev.alloc_from(&sentinel).unwrap();
            let what = format!("{file} nbody_acc n={n} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "nbody_acc",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[
                    arg(&bp),
                    arg(&ba),
                    KernelArg::from(n as i32),
                    KernelArg::from(eps2),
                ],
                &what,
            );
            let mut want: Vec<f32> = nbody_ref(&pos, eps2).into_iter().flatten().collect();
            want.resize(sentinel.len(), -7.5);
            assert_f32_bits(&dev.read::<f32>(&ba).unwrap(), &want, &what);
        }
    }
}

fn scan(backend: Backend) {
    let dev = device();
    for file in variants("scan") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [(32usize, 32u32), (1000, 256), (3000, 1024), (4096, 96)]
            .iter()
            .enumerate()
        {
            let mut rng = Rng::new(900 + s as u64);
            let input = rng.vec_u32(n); // large values: the sums wrap around
            let grid = blocks(n, block);
            let total = grid as usize * block as usize;
            let bin = dev.alloc_from(&input).unwrap();
            let bout = dev.alloc_from(&vec![0xdead_beefu32; total]).unwrap();
            let what = format!("{file} block_scan n={n} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "block_scan",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&bin), arg(&bout), KernelArg::from(n as u32)],
                &what,
            );
            let mut want = Vec::with_capacity(total);
            for chunk in input.chunks(block as usize) {
                let mut acc = 0u32;
                for &v in chunk {
                    acc = acc.wrapping_add(v);
                    want.push(acc);
                }
            }
            want.resize(total, 0xdead_beef);
            assert_slice_eq(&dev.read::<u32>(&bout).unwrap(), &want, &what);
        }
    }
}

both_backends!(sgemm, nbody, scan);
