//! 8-byte loads in 16 × 16 blocks (tests/ptx/halves64.ptx, hand-written, passes ptxas
//! 12.9): an f64 matrix product reading A's rows (one address per half-warp) and B's
//! columns (16 consecutive doubles per half-warp) from global memory, and the same from
//! 16 × 16 shared-memory tiles, on the interpreter and both JIT tiers (the JIT's
//! half-warp test, `jit::lower::mem_halves`, with 8-byte elements), against Rust summing
//! in the same order with `f64::mul_add` (bit for bit).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::KernelArg;

fn reference(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f64;
            for k in 0..n {
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            c[row * n + col] = acc;
        }
    }
    c
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/halves64.ptx", backend);
    let n = 48usize;
    let mut rng = Rng::new(64);
    let a = rng.vec_f64(n * n);
    let b = rng.vec_f64(n * n);
    let want = reference(&a, &b, n);
    let (ab, bb) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
    for kernel in ["dgemm_global", "dgemm_tiled"] {
        let cb = zeroed(dev, 8 * n * n);
        let g = (n / 16) as u32;
        let args = [arg(&ab), arg(&bb), arg(&cb), KernelArg::U32(n as u32)];
        launch(
            dev,
            &m,
            kernel,
            &cfg([g, g, 1], [16, 16, 1], backend),
            &args,
            what,
        );
        assert_f64_bits(
            &dev.read::<f64>(&cb).unwrap(),
            &want,
            &format!("{what} {kernel}"),
        );
        dev.free(cb).unwrap();
    }
    dev.free(ab).unwrap();
    dev.free(bb).unwrap();
}

interp_and_tiers!(run_on, "halves64");
