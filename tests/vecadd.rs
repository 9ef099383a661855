//! vecadd / vecadd4 / vecsubmul_f64 (tests/kernels/vecadd.cu), clang and NVRTC PTX, on
//! ragged sizes: n not a multiple of the block, several CTAs, threads past n idle.
#[macro_use]
mod common;
use common::*;

const SIZES: [usize; 6] = [1, 31, 33, 1000, 4099, 256];
const BLOCKS: [u32; 2] = [128, 256];
/// Written into output elements that no thread may touch.
const SENTINEL: f32 = -7.0e30;

fn vecadd(backend: Backend) {
    let dev = device();
    for file in variants("vecadd") {
        let m = module(&dev, &file, backend);
        for (s, &n) in SIZES.iter().enumerate() {
            for &block in &BLOCKS {
                let mut rng = Rng::new(1000 + s as u64);
                let a = rng.vec_f32(n);
                let b = rng.vec_f32(n);
                let grid = blocks(n, block);
                // The output covers every launched thread; threads i >= n must not store.
                let total = (grid * block) as usize;
                let a_buf = dev.alloc_from(&a).unwrap();
                let b_buf = dev.alloc_from(&b).unwrap();
                let c_buf = dev.alloc_from(&vec![SENTINEL; total]).unwrap();
                let what = format!("{file} vecadd n={n} block={block} {backend:?}");
                launch(
                    &dev,
                    &m,
                    "vecadd",
                    &cfg([grid, 1, 1], [block, 1, 1], backend),
                    &[
                        arg(&a_buf),
                        arg(&b_buf),
                        arg(&c_buf),
                        KernelArg::from(n as u32),
                    ],
                    &what,
                );
                let mut want: Vec<f32> = (0..n).map(|i| a[i] + b[i]).collect();
                want.resize(total, SENTINEL);
                assert_f32_bits(&dev.read::<f32>(&c_buf).unwrap(), &want, &what);
            }
        }
    }
}

fn vecadd4(backend: Backend) {
    let dev = device();
    for file in variants("vecadd") {
        let m = module(&dev, &file, backend);
        for (s, &n) in [1usize, 3, 4, 5, 31, 33, 1000, 1003, 4099]
            .iter()
            .enumerate()
        {
            for &block in &[32u32, 128] {
                let mut rng = Rng::new(2000 + s as u64);
                let a = rng.vec_f32(n);
                let b = rng.vec_f32(n);
                // Thread i covers elements 4i..4i+3.
                let threads = n.div_ceil(4);
                let grid = blocks(threads, block);
                let a_buf = dev.alloc_from(&a).unwrap();
                let b_buf = dev.alloc_from(&b).unwrap();
                let c_buf = dev.alloc_from(&vec![SENTINEL; n]).unwrap();
                let what = format!("{file} vecadd4 n={n} block={block} {backend:?}");
                launch(
                    &dev,
                    &m,
                    "vecadd4",
                    &cfg([grid, 1, 1], [block, 1, 1], backend),
                    &[
                        arg(&a_buf),
                        arg(&b_buf),
                        arg(&c_buf),
                        KernelArg::from(n as u32),
                    ],
                    &what,
                );
                let want: Vec<f32> = (0..n).map(|i| a[i] + b[i]).collect();
                assert_f32_bits(&dev.read::<f32>(&c_buf).unwrap(), &want, &what);
            }
        }
    }
}

fn vecsubmul_f64(backend: Backend) {
    let dev = device();
    for file in variants("vecadd") {
        let m = module(&dev, &file, backend);
        for (s, &n) in [1usize, 33, 1000].iter().enumerate() {
            let mut rng = Rng::new(3000 + s as u64);
            let mut a = rng.vec_f64(n);
            let mut b = rng.vec_f64(n);
            // Special values in the first elements: signed zeros, infinities, subnormals,
            // a product that overflows and one that underflows to a subnormal.
            let specials: [(f64, f64); 8] = [
                (0.0, -0.0),
                (-0.0, -0.0),
                (f64::INFINITY, 2.0),
                (f64::INFINITY, f64::INFINITY),
                (5e-324, 0.5),
                (1e300, 1e10),
                (1e-300, 1e-10),
                (-2.2250738585072014e-308, 3.0),
            ];
            for (k, &(x, y)) in specials.iter().enumerate().take(n) {
                a[k] = x;
                b[k] = y;
            }
            let a_buf = dev.alloc_from(&a).unwrap();
            let b_buf = dev.alloc_from(&b).unwrap();
            let c_buf = dev.alloc_zeroed(n * 8).unwrap();
            let d_buf = dev.alloc_zeroed(n * 8).unwrap();
            let what = format!("{file} vecsubmul_f64 n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "vecsubmul_f64",
                &cfg([blocks(n, 64), 1, 1], [64, 1, 1], backend),
                &[
                    arg(&a_buf),
                    arg(&b_buf),
                    arg(&c_buf),
                    arg(&d_buf),
                    KernelArg::from(n as u32),
                ],
                &what,
            );
            // inf - inf is NaN: the ISA leaves that NaN's bits unspecified.
            let want_c: Vec<f64> = (0..n).map(|i| a[i] - b[i]).collect();
            let want_d: Vec<f64> = (0..n).map(|i| a[i] * b[i]).collect();
            assert_f64_bits_nan_any(
                &dev.read::<f64>(&c_buf).unwrap(),
                &want_c,
                &format!("{what} (sub)"),
            );
            assert_f64_bits(
                &dev.read::<f64>(&d_buf).unwrap(),
                &want_d,
                &format!("{what} (mul)"),
            );
        }
    }
}

both_backends!(vecadd, vecadd4, vecsubmul_f64);
