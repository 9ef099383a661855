//! `add`/`sub`/`mul` of `.f16x2` and `.bf16x2` (tests/ptx/half_vector.ptx, passes ptxas
//! 12.9 for sm_90), which the JIT computes in f32 vectors and rounds once to the half
//! format (`jit::lower::half`): 2^19 operand pairs per operation and format (random bit
//! patterns, NaNs, infinities, subnormals, and pairs of very different magnitudes, where
//! a second rounding could go wrong), on the interpreter and both JIT tiers, against
//! `ptxjit::ops::half` (itself checked against rustc_apfloat's correctly rounded
//! operations in its unit tests and against an independent oracle in tests/half.rs).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::ir::{HalfMode, HalfOp};
use ptxjit::ops::half::{half, HalfKind};

const OPS: [HalfOp; 3] = [HalfOp::Add, HalfOp::Sub, HalfOp::Mul];

fn operand_pair(rng: &mut Rng, t: usize) -> (u32, u32) {
    let x = rng.u32();
    match t % 4 {
        // Random bits: every class.
        0 | 1 => (x, rng.u32()),
        // b's halves far below a's (same exponent field minus 10..24): sums and
        // differences whose exact value needs more than 24 bits.
        2 => {
            let shift = 10 + rng.range(0, 15);
            let lower = |h: u32| {
                let e = (h >> 10) & 0x1f;
                (h & 0x83ff) | (e.saturating_sub(shift) & 0x1f) << 10
            };
            let y = lower(x & 0xffff) | lower(x >> 16) << 16;
            (x, y ^ (rng.u32() & 0x8000_8000) ^ (rng.u32() & 0x0001_0001))
        }
        // Halves one ulp apart (cancellation).
        _ => (x, x ^ 0x0001_0001),
    }
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/half_vector.ptx", backend);
    let n = 1usize << 18;
    let mut rng = Rng::new(16);
    let mut input = Vec::with_capacity(2 * n);
    for t in 0..n {
        let (a, b) = operand_pair(&mut rng, t);
        input.extend([a, b]);
    }
    let inb = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_from(&vec![0u32; 6 * n]).unwrap();
    launch(
        dev,
        &m,
        "halfv",
        &cfg([(n / 256) as u32, 1, 1], [256, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        what,
    );
    let got = dev.read::<u32>(&out).unwrap();
    let plain = HalfMode::default();
    let mut want = Vec::with_capacity(6 * n);
    for t in 0..n {
        let (a, b) = (input[2 * t], input[2 * t + 1]);
        for kind in [HalfKind::F16, HalfKind::BF16] {
            for op in OPS {
                let lo = half(kind, op, plain, a as u16, b as u16, 0) as u32;
                let hi = half(kind, op, plain, (a >> 16) as u16, (b >> 16) as u16, 0) as u32;
                want.push(lo | hi << 16);
            }
        }
    }
    assert_slice_eq(&got, &want, what);
    dev.free(inb).unwrap();
    dev.free(out).unwrap();
}

interp_and_tiers!(run_on, "half_vector");
