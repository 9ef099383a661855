//! `rsqrt`, `ex2` and `lg2` `.approx.f32`, with and without `.ftz` (tests/ptx/sfu_vector.ptx,
//! hand-written, passes ptxas 12.9 for sm_70), on the interpreter and both JIT tiers (the
//! JIT's vector forms, `jit::lower::sfu`): special values, every binade of f32 (subnormals
//! included), the ranges where ex2 overflows and underflows, random bit patterns; a
//! uniform operand (a kernel parameter) and a divergent branch.
//!
//! Two oracles: the bits of `ptxjit::ops::float::approx_f32` (the semantics both backends
//! implement, so the backends agree bit for bit), and, independently, the host library's
//! f64 `exp2`/`log2`/`sqrt` rounded to f32, from which every finite result may differ by
//! at most one unit in the last place (the ISA allows about two).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::ops::float::{approx_f32, ApproxOp};
use ptxjit::KernelArg;

const OPS: [(ApproxOp, bool); 6] = [
    (ApproxOp::Rsqrt, false),
    (ApproxOp::Rsqrt, true),
    (ApproxOp::Ex2, false),
    (ApproxOp::Ex2, true),
    (ApproxOp::Lg2, false),
    (ApproxOp::Lg2, true),
];

fn inputs() -> Vec<u32> {
    let mut v: Vec<u32> = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        2.0,
        0.5,
        0.75,
        1.5,
        std::f32::consts::SQRT_2,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        127.0,
        127.999_99,
        128.0,
        -126.0,
        -127.5,
        -149.0,
        -149.5,
        -150.0,
        -151.0,
        200.0,
        -200.0,
        1e30,
        -1e30,
        0.1,
        -0.1,
        1e-7,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    // NaNs (canonical, quiet with payload, negative, signalling) and subnormals.
    v.extend([
        0x7fff_ffff,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        1,
        0x007f_ffff,
        0x8000_0001,
        0x8040_0000,
        0x0000_1234,
    ]);
    let mut rng = Rng::new(14);
    // Every binade, random mantissas, both signs.
    for e in 0..256u32 {
        for _ in 0..24 {
            let m = rng.u32() & 0x007f_ffff;
            let s = rng.u32() & 0x8000_0000;
            v.push(s | e << 23 | m);
        }
    }
    // ex2's interesting domain, and values near 1 (lg2 near zero).
    while v.len() < 16384 {
        v.push((rng.f32() * 300.0 - 165.0).to_bits());
        v.push((1.0 + (rng.f32() - 0.5) * 1e-3).to_bits());
    }
    while v.len() < 32768 {
        v.push(rng.u32());
    }
    v.truncate(32768);
    v
}

/// Whether `got` is within one unit in the last place of `want` (NaN matches NaN).
fn within_ulp(got: u32, want: u32) -> bool {
    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
    if g.is_nan() || w.is_nan() {
        return g.is_nan() && w.is_nan();
    }
    if g == w {
        return true;
    }
    // Same sign (or a zero next to the smallest subnormal): ordered integer distance.
    let key = |b: u32| {
        if b >> 31 == 1 {
            -((b & 0x7fff_ffff) as i64)
        } else {
            b as i64
        }
    };
    (key(got) - key(want)).abs() <= 1
}

/// The host library's value rounded to f32 (without `.ftz`).
fn library(op: ApproxOp, x: u32) -> u32 {
    let d = f32::from_bits(x) as f64;
    let r = match op {
        ApproxOp::Rsqrt => 1.0 / d.sqrt(),
        ApproxOp::Ex2 => d.exp2(),
        _ => d.log2(),
    };
    (r as f32).to_bits()
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/sfu_vector.ptx", backend);
    let x = inputs();
    let n = x.len();
    let inb = dev.alloc_from(&x).unwrap();
    for u in [0.3f32, -149.5, 1e-40] {
        let out = dev.alloc_from(&vec![0u32; 8 * n]).unwrap();
        launch(
            dev,
            &m,
            "sfu",
            &cfg([n as u32 / 256, 1, 1], [256, 1, 1], backend),
            &[arg(&inb), arg(&out), KernelArg::F32(u)],
            what,
        );
        let got = dev.read::<u32>(&out).unwrap();
        let mut want = Vec::with_capacity(8 * n);
        for (t, &xt) in x.iter().enumerate() {
            want.extend(OPS.iter().map(|&(op, ftz)| approx_f32(op, ftz, xt)));
            want.push(approx_f32(ApproxOp::Ex2, true, u.to_bits()));
            want.push(match t % 2 {
                1 => approx_f32(ApproxOp::Lg2, false, xt),
                _ => xt,
            });
        }
        assert_slice_eq(&got, &want, &format!("{what}, u = {u}"));
        dev.free(out).unwrap();
        // The independent oracle, on the non-ftz forms.
        let mut exact = 0usize;
        for (t, &xt) in x.iter().enumerate() {
            for (k, op) in [(0, ApproxOp::Rsqrt), (2, ApproxOp::Ex2), (4, ApproxOp::Lg2)] {
                let (g, l) = (got[8 * t + k], library(op, xt));
                assert!(
                    within_ulp(g, l),
                    "{what}: {op:?}({:e} = {xt:#x}) = {:e}, library {:e}",
                    f32::from_bits(xt),
                    f32::from_bits(g),
                    f32::from_bits(l)
                );
                exact += usize::from(g == l || f32::from_bits(g).is_nan());
            }
        }
        // Nearly every result is the library's rounding (all but a few near midpoints).
        assert!(
            exact * 1000 >= 3 * n * 999,
            "{what}: only {exact} of {} equal",
            3 * n
        );
    }
    dev.free(inb).unwrap();
}

interp_and_tiers!(run_on, "sfu_vector");
