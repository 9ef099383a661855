//! saxpy / saxpy_mul_add / daxpy (tests/kernels/saxpy.cu) on ragged sizes, and the
//! README example (examples/saxpy.ptx with examples/x.bin, examples/y.bin).
#[macro_use]
mod common;
use common::*;

const SIZES: [usize; 5] = [1, 31, 33, 1000, 4099];
const BLOCKS: [u32; 2] = [128, 256];
const SENTINEL: f32 = 12345.5;

/// Runs a f32 `(n, a, x, y)` kernel over every size and block and checks `y` against
/// `reference(a, x, y)`; elements of `y` past n (padding up to the grid) must stay put.
fn run_f32(backend: Backend, kernel: &str, reference: impl Fn(f32, f32, f32) -> f32) {
    let dev = device();
    for file in variants("saxpy") {
        let m = module(&dev, &file, backend);
        for (s, &n) in SIZES.iter().enumerate() {
            for &block in &BLOCKS {
                let mut rng = Rng::new(10 + s as u64);
                let a = rng.f32();
                let x = rng.vec_f32(n);
                let y = rng.vec_f32(n);
                let grid = blocks(n, block);
                let total = (grid * block) as usize;
                let mut y_in = y.clone();
                y_in.resize(total, SENTINEL);
                let x_buf = dev.alloc_from(&x).unwrap();
                let y_buf = dev.alloc_from(&y_in).unwrap();
                let what = format!("{file} {kernel} n={n} block={block} a={a} {backend:?}");
                launch(
                    &dev,
                    &m,
                    kernel,
                    &cfg([grid, 1, 1], [block, 1, 1], backend),
                    &[
                        KernelArg::from(n as u32),
                        KernelArg::from(a),
                        arg(&x_buf),
                        arg(&y_buf),
                    ],
                    &what,
                );
                let mut want: Vec<f32> = (0..n).map(|i| reference(a, x[i], y[i])).collect();
                want.resize(total, SENTINEL);
                assert_f32_bits(&dev.read::<f32>(&y_buf).unwrap(), &want, &what);
            }
        }
    }
}

fn saxpy(backend: Backend) {
    // fmaf(a, x, y): fma.rn.f32, one rounding of the exact a*x + y. f32::mul_add is the
    // correctly rounded fused multiply-add.
    run_f32(backend, "saxpy", |a, x, y| a.mul_add(x, y));
}

fn saxpy_mul_add(backend: Backend) {
    // __fadd_rn(__fmul_rn(a, x), y): mul.rn.f32 then add.rn.f32, two roundings (Rust
    // never contracts a * x + y).
    run_f32(backend, "saxpy_mul_add", |a, x, y| a * x + y);
}

fn daxpy(backend: Backend) {
    let dev = device();
    for file in variants("saxpy") {
        let m = module(&dev, &file, backend);
        for (s, &n) in SIZES.iter().enumerate() {
            let block = 128;
            let mut rng = Rng::new(20 + s as u64);
            let a = rng.f64();
            let x = rng.vec_f64(n);
            let y = rng.vec_f64(n);
            let x_buf = dev.alloc_from(&x).unwrap();
            let y_buf = dev.alloc_from(&y).unwrap();
            let what = format!("{file} daxpy n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "daxpy",
                &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
                &[
                    KernelArg::from(n as u32),
                    KernelArg::from(a),
                    arg(&x_buf),
                    arg(&y_buf),
                ],
                &what,
            );
            // fma(a, x, y): fma.rn.f64.
            let want: Vec<f64> = (0..n).map(|i| a.mul_add(x[i], y[i])).collect();
            assert_f64_bits(&dev.read::<f64>(&y_buf).unwrap(), &want, &what);
        }
    }
}

/// The README's example: examples/saxpy.ptx (NVRTC output of examples/saxpy.cu) run
/// through the library with the files the CLI command uses.
fn readme_example(backend: Backend) {
    let dev = device();
    let ptx = load_root("examples/saxpy.ptx");
    let m = dev
        .load_ptx(&ptx, "saxpy.ptx")
        .unwrap_or_else(|e| panic!("examples/saxpy.ptx: {e}"));
    let x = f32_file("examples/x.bin");
    let y = f32_file("examples/y.bin");
    assert_eq!((x.len(), y.len()), (1000, 1000));
    let x_buf = dev.alloc_from(&x).unwrap();
    let y_buf = dev.alloc_from(&y).unwrap();
    launch(
        &dev,
        &m,
        "saxpy",
        &cfg([4, 1, 1], [256, 1, 1], backend),
        &[
            KernelArg::from(1000u32),
            KernelArg::from(2.0f32),
            arg(&x_buf),
            arg(&y_buf),
        ],
        "examples/saxpy.ptx",
    );
    let want: Vec<f32> = (0..1000).map(|i| 2.0f32.mul_add(x[i], y[i])).collect();
    assert_f32_bits(
        &dev.read::<f32>(&y_buf).unwrap(),
        &want,
        &format!("examples/saxpy.ptx {backend:?}"),
    );
}

pub fn f32_file(path: &str) -> Vec<f32> {
    let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

both_backends!(saxpy, saxpy_mul_add, daxpy, readme_example);
