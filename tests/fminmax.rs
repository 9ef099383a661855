//! f32/f64 `min`/`max` in every modifier combination (`.ftz .NaN .xorsign.abs`),
//! `copysign`, `abs`/`neg` (with `.ftz`) and `testp` on both backends
//! (`tests/ptx/fminmax.ptx`, ptxas-validated for sm_86).
//!
//! Oracles, written here from the ISA text with Rust's `f32`/`f64` comparisons and
//! explicit bit handling:
//! - min/max: a NaN operand yields the other operand, two NaNs (or any NaN with `.NaN`)
//!   the canonical NaN `0x7fffffff` (f64: `0x7fffffffffffffff`, ptxjit's convention), and
//!   -0 < +0 (ISA: "+0.0 > -0.0");
//! - `.xorsign.abs`: the magnitudes are compared and the result gets the XOR of the input
//!   sign bits (taken before `.abs`, NaN inputs included) unless it is NaN;
//! - `.ftz`: subnormal inputs become sign-preserving zeros first;
//! - `copysign(a, b)`: `b`'s bits with `a`'s sign bit;
//! - `abs`/`neg` of a NaN is "an unspecified NaN" (ISA), so only NaN-ness is checked
//!   there (and that both backends agree bit for bit);
//! - `testp`: `f32::classify` and friends; zero counts as normal.
//!
//! The inputs: all pairs of ~40 special values (zeros, subnormals, normals, extremes,
//! infinities, NaNs with payloads and both signs) and all 65,536 combinations of two
//! sign/exponent-range bytes; `testp` sees every f32 with each of 4 low halves and
//! every f64 sign/exponent/top-mantissa pattern (16 bits) with 4 low parts.

#[macro_use]
mod common;
use common::*;

const SRC: &str = include_str!("ptx/fminmax.ptx");

fn module(dev: &Device, backend: Backend) -> ptxjit::Module {
    let r = match backend {
        Backend::Jit => dev.load_ptx(SRC, "fminmax.ptx"),
        Backend::Interp => dev.load_ptx_with(SRC, "fminmax.ptx", false),
    };
    r.unwrap_or_else(|e| panic!("{backend:?}: {e}"))
}

/// Runs `kernel(in.., out, n)` over `n` threads; returns the output buffer's words.
fn run<T: ptxjit::DeviceCopy>(
    backend: Backend,
    kernel: &str,
    inputs: &[&[T]],
    n: usize,
    out_bytes: usize,
) -> Vec<u32> {
    let dev = device();
    let m = module(&dev, backend);
    let bufs: Vec<Buffer> = inputs.iter().map(|i| dev.alloc_from(i).unwrap()).collect();
    let o = zeroed(&dev, out_bytes);
    let mut args: Vec<KernelArg> = bufs.iter().map(arg).collect();
    args.push(arg(&o));
    args.push(KernelArg::from(n as u32));
    launch(
        &dev,
        &m,
        kernel,
        &cfg([blocks(n, 256), 1, 1], [256, 1, 1], backend),
        &args,
        kernel,
    );
    dev.read(&o).unwrap()
}

const SPECIAL32: [u32; 40] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x8000_0001,
    0x0000_0002,
    0x007f_ffff, // largest subnormal
    0x807f_ffff,
    0x0040_0000,
    0x0080_0000, // smallest normal
    0x8080_0000,
    0x3f80_0000, // 1
    0xbf80_0000,
    0x3f80_0001,
    0x3fc0_0000, // 1.5
    0xbfc0_0000,
    0x4000_0000, // 2
    0xc000_0000,
    0x7f7f_ffff, // max
    0xff7f_ffff,
    0x7f80_0000, // inf
    0xff80_0000,
    0x7fc0_0000, // quiet NaN
    0xffc0_0000,
    0x7f80_0001, // signalling NaN
    0xff80_0001,
    0x7fa1_2345, // payloads
    0xffa1_2345,
    0x7fff_ffff, // canonical NaN
    0x4049_0fdb, // pi
    0xc049_0fdb,
    0x3380_0000,
    0xb380_0000,
    0x0000_8000,
    0x8000_8000,
    0x4b00_0000,
    0xcb00_0000,
    0x1234_5678,
    0x9234_5678,
    0x6543_2100,
    0xe543_2100,
];

fn is_nan32(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}

fn flush32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The oracle for `min/max{.ftz}{.NaN}{.xorsign.abs}.f32`.
fn minmax32(max: bool, ftz: bool, nan: bool, xorsign: bool, a: u32, b: u32) -> u32 {
    const CANON: u32 = 0x7fff_ffff;
    let (mut a, mut b) = if ftz {
        (flush32(a), flush32(b))
    } else {
        (a, b)
    };
    let xs = (a ^ b) & 0x8000_0000;
    if xorsign {
        a &= 0x7fff_ffff;
        b &= 0x7fff_ffff;
    }
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    let d = if (fa.is_nan() && fb.is_nan()) || (nan && (fa.is_nan() || fb.is_nan())) {
        CANON
    } else if fa.is_nan() {
        b
    } else if fb.is_nan() {
        a
    } else if fa == fb {
        // Equal values: only +0 and -0 have different bits; -0 is the smaller.
        let neg = if a >> 31 == 1 { a } else { b };
        let pos = if a >> 31 == 1 { b } else { a };
        if max {
            pos
        } else {
            neg
        }
    } else if (fa < fb) != max {
        a
    } else {
        b
    };
    if xorsign && !is_nan32(d) {
        (d & 0x7fff_ffff) | xs
    } else {
        d
    }
}

fn pairs32() -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for &a in &SPECIAL32 {
        for &b in &SPECIAL32 {
            v.push((a, b));
        }
    }
    // Every pair of top bytes (sign and exponent range), with low bits mixed in.
    let low = |i: u32| (i.wrapping_mul(0x9e37_79b9) >> 8) & 0x00ff_ffff;
    for i in 0..256u32 {
        for j in 0..256u32 {
            v.push((i << 24 | low(i), j << 24 | low(j ^ 0x55)));
        }
    }
    v
}

fn f32ops(backend: Backend) {
    let pairs = pairs32();
    let n = pairs.len();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let got = run(backend, "f32ops", &[&input[..]], n, n * 21 * 4);
    let mut bad = Vec::new();
    for (t, &(a, b)) in pairs.iter().enumerate() {
        let g = &got[t * 21..t * 21 + 21];
        let mut k = 0;
        for max in [false, true] {
            for (ftz, nan, xorsign) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (true, true, false),
                (false, false, true),
                (true, false, true),
                (false, true, true),
                (true, true, true),
            ] {
                let want = minmax32(max, ftz, nan, xorsign, a, b);
                if g[k] != want && bad.len() < 12 {
                    bad.push(format!(
                        "{} ftz={ftz} NaN={nan} xorsign.abs={xorsign} a={a:#x} b={b:#x}: got {:#x} want {want:#x}",
                        if max { "max" } else { "min" },
                        g[k]
                    ));
                }
                k += 1;
            }
        }
        let copysign = (b & 0x7fff_ffff) | (a & 0x8000_0000);
        let fa = flush32(a);
        let unary = [
            ("copysign", copysign, false),
            ("abs", a & 0x7fff_ffff, true),
            ("abs.ftz", fa & 0x7fff_ffff, true),
            ("neg", a ^ 0x8000_0000, true),
            ("neg.ftz", fa ^ 0x8000_0000, true),
        ];
        for (i, (what, want, nan_any)) in unary.iter().enumerate() {
            let got = g[16 + i];
            let ok = if *nan_any && is_nan32(a) {
                is_nan32(got)
            } else {
                got == *want
            };
            if !ok && bad.len() < 12 {
                bad.push(format!(
                    "{what} a={a:#x} b={b:#x}: got {got:#x} want {want:#x}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{backend:?}:\n{}", bad.join("\n"));
}

fn f64ops(backend: Backend) {
    let sp: Vec<u64> = SPECIAL32
        .iter()
        .map(|&x| {
            let f = f32::from_bits(x);
            if f.is_nan() {
                // Keep sign and payload: NaN f32 -> f64 NaN with the payload shifted up.
                ((x as u64 & 0x8000_0000) << 32)
                    | 0x7ff0_0000_0000_0000
                    | ((x as u64 & 0x7f_ffff) << 29)
            } else {
                (f as f64).to_bits()
            }
        })
        .chain([
            1,
            0x8000_0000_0000_0001,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
        ])
        .collect();
    let mut pairs = Vec::new();
    for &a in &sp {
        for &b in &sp {
            pairs.push((a, b));
        }
    }
    let n = pairs.len();
    let input: Vec<u64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let got = run(backend, "f64ops", &[&input[..]], n, n * 40);
    const CANON: u64 = 0x7fff_ffff_ffff_ffff;
    for (t, &(a, b)) in pairs.iter().enumerate() {
        let g: Vec<u64> = (0..5)
            .map(|i| got[t * 10 + 2 * i] as u64 | (got[t * 10 + 2 * i + 1] as u64) << 32)
            .collect();
        let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
        let mm = |max: bool| {
            if fa.is_nan() && fb.is_nan() {
                CANON
            } else if fa.is_nan() {
                b
            } else if fb.is_nan() {
                a
            } else if fa == fb {
                let neg = a >> 63 == 1;
                match (max, neg) {
                    (false, true) | (true, false) => a,
                    _ => b,
                }
            } else if (fa < fb) != max {
                a
            } else {
                b
            }
        };
        let ctx = format!("{backend:?} a={a:#x} b={b:#x}");
        assert_eq!(g[0], mm(false), "min.f64 {ctx}");
        assert_eq!(g[1], mm(true), "max.f64 {ctx}");
        assert_eq!(
            g[2],
            (b & !(1 << 63)) | (a & (1 << 63)),
            "copysign.f64 {ctx}"
        );
        if fa.is_nan() {
            assert!(
                f64::from_bits(g[3]).is_nan() && f64::from_bits(g[4]).is_nan(),
                "{ctx}"
            );
        } else {
            assert_eq!(g[3], a & !(1 << 63), "abs.f64 {ctx}");
            assert_eq!(g[4], a ^ (1 << 63), "neg.f64 {ctx}");
        }
    }
}

fn testp(backend: Backend) {
    let lows32 = [0u32, 1, 0x8000, 0xffff];
    let lows64 = [0u64, 1, 0x8000_0000_0000, 0xffff_ffff_ffff];
    let mut x32 = Vec::new();
    let mut x64 = Vec::new();
    for hi in 0..=0xffffu64 {
        for k in 0..4 {
            x32.push((hi as u32) << 16 | lows32[k]);
            x64.push(hi << 48 | lows64[k]);
        }
    }
    let n = x32.len();
    let dev = device();
    let m = module(&dev, backend);
    let b32 = dev.alloc_from(&x32).unwrap();
    let b64 = dev.alloc_from(&x64).unwrap();
    let o = zeroed(&dev, n * 48);
    launch(
        &dev,
        &m,
        "testp",
        &cfg([blocks(n, 256), 1, 1], [256, 1, 1], backend),
        &[arg(&b32), arg(&b64), arg(&o), KernelArg::from(n as u32)],
        "testp",
    );
    let got: Vec<u32> = dev.read(&o).unwrap();
    for t in 0..n {
        let f = f32::from_bits(x32[t]);
        let d = f64::from_bits(x64[t]);
        use std::num::FpCategory::{Normal, Subnormal, Zero};
        let want = [
            f.is_finite(),
            f.is_infinite(),
            !f.is_nan(),
            f.is_nan(),
            matches!(f.classify(), Normal | Zero),
            f.classify() == Subnormal,
            d.is_finite(),
            d.is_infinite(),
            !d.is_nan(),
            d.is_nan(),
            matches!(d.classify(), Normal | Zero),
            d.classify() == Subnormal,
        ]
        .map(|b| b as u32);
        assert_eq!(
            &got[t * 12..t * 12 + 12],
            &want[..],
            "{backend:?} f32 {:#x} f64 {:#x}",
            x32[t],
            x64[t]
        );
    }
}

/// Both backends give identical bits everywhere, including the unspecified NaNs.
fn backends_agree(_: Backend) {
    let pairs = pairs32();
    let n = pairs.len();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let j = run(Backend::Jit, "f32ops", &[&input[..]], n, n * 84);
    let i = run(Backend::Interp, "f32ops", &[&input[..]], n, n * 84);
    assert!(j == i, "the backends differ on f32ops");
}

both_backends!(f32ops, f64ops, testp);

#[test]
fn jit_and_interp_agree_bit_for_bit() {
    backends_agree(Backend::Jit);
}
