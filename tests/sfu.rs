//! Special functions (`sqrt rcp rsqrt sin cos lg2 ex2 tanh`) on both backends
//! (`tests/ptx/sfu.ptx`, ptxas-validated). Correctly rounded forms are compared with the
//! host's IEEE results (and, for directed modes, with the defining inequality); the
//! `.approx` forms with `ptxjit::ops::float`, whose own tests check the manual's
//! special-case tables and error bounds, plus an error-bound check here.

use ptxjit::ops::float::{approx_f32, ApproxOp};
use ptxjit::{Backend, Device, LaunchConfig};

fn inputs() -> (Vec<f32>, Vec<f64>) {
    let mut x: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        2.0,
        0.25,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40, // subnormal
        -1e-40,
        3.0e38,
        1.5,
        0.1,
        100.0,
        -2.5,
    ];
    let mut s = 0x1234_5678u32;
    while x.len() < 96 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        x.push(f32::from_bits(s & 0x7fff_ffff) % 50.0 + (s >> 28) as f32 * 0.01);
    }
    let d: Vec<f64> = x.iter().map(|&v| v as f64 * 1.000000123).collect();
    (x, d)
}

/// The GPU's canonical NaN for NaN results. Tested on the bits: in an optimised build,
/// rustc 1.95 folded `is_nan()` of an inlined `sqrt(-1.0)` to false in a small repro.
fn canon32(v: f32) -> u32 {
    let b = v.to_bits();
    if b & 0x7f80_0000 == 0x7f80_0000 && b & 0x007f_ffff != 0 {
        0x7fff_ffff
    } else {
        b
    }
}

#[test]
fn special_functions_on_both_backends() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/sfu.ptx"), "sfu.ptx")
        .unwrap();
    let (x, d) = inputs();
    let n = x.len();
    for b in [Backend::Jit, Backend::Interp] {
        let bx = dev.alloc_from(&x).unwrap();
        let bd = dev.alloc_from(&d).unwrap();
        let o32 = dev.alloc_zeroed(n * 44).unwrap();
        let o64 = dev.alloc_zeroed(n * 24).unwrap();
        let cfg = LaunchConfig::new(1, n as u32).backend(b);
        dev.launch(
            &m,
            "sfu",
            &cfg,
            &[(&bx).into(), (&bd).into(), (&o32).into(), (&o64).into()],
        )
        .unwrap();
        let r32: Vec<u32> = dev.read(&o32).unwrap();
        let r64: Vec<u64> = dev.read(&o64).unwrap();
        for t in 0..n {
            let (xi, di) = (x[t], d[t]);
            let g = |k: usize| r32[t * 11 + k];
            let ctx = format!("{b:?} x={xi:e} ({:#x})", xi.to_bits());
            // sqrt.rn / rcp.rn: the host's IEEE results (NaN canonical).
            assert_eq!(g(0), canon32(xi.sqrt()), "sqrt.rn {ctx}");
            assert_eq!(g(3), canon32(1.0 / xi), "rcp.rn {ctx}");
            // sqrt.rz: r*r <= x < next_up(r)^2 for positive finite x.
            if xi > 0.0 && xi.is_finite() {
                let r = f32::from_bits(g(1)) as f64;
                let up = f32::from_bits(g(1)).next_up() as f64;
                assert!(r * r <= xi as f64 && (xi as f64) < up * up, "sqrt.rz {ctx}");
            }
            let approx = [
                (2, ApproxOp::Sqrt, false),
                (4, ApproxOp::Rcp, true),
                (5, ApproxOp::Rsqrt, false),
                (6, ApproxOp::Sin, false),
                (7, ApproxOp::Cos, false),
                (8, ApproxOp::Lg2, false),
                (9, ApproxOp::Ex2, true),
                (10, ApproxOp::Tanh, false),
            ];
            for (k, op, ftz) in approx {
                assert_eq!(g(k), approx_f32(op, ftz, xi.to_bits()), "{op:?} {ctx}");
            }
            // Subnormal inputs: without .ftz the function of the subnormal value itself
            // (sm_20+: "subnormal numbers are supported"; NVIDIA's cbrtf/rsqrtf rely on
            // it), with .ftz (rcp here) the table's value for a flushed input.
            if xi != 0.0 && xi.abs() < f32::MIN_POSITIVE {
                let f = |k: usize| f32::from_bits(g(k)) as f64;
                let xd = xi as f64;
                if xi > 0.0 {
                    assert!(((f(2) - xd.sqrt()) / xd.sqrt()).abs() < 1e-6, "sqrt {ctx}");
                    let rs = 1.0 / xd.sqrt();
                    assert!(((f(5) - rs) / rs).abs() < 1e-6, "rsqrt {ctx}");
                    assert!((f(8) - xd.log2()).abs() < 1e-5, "lg2 {ctx}");
                } else {
                    assert!(f(5).is_nan() && f(8).is_nan(), "rsqrt/lg2 {ctx}");
                }
                assert_eq!(
                    f(4),
                    if xi > 0.0 {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    }
                );
                assert_eq!(g(9), 1.0f32.to_bits(), "ex2.ftz {ctx}");
            }
            // Independent bound check for sin in its primary range (manual: 2^-20.9).
            if (0.0..1.5).contains(&xi) {
                let got = f32::from_bits(g(6)) as f64;
                assert!(
                    (got - (xi as f64).sin()).abs() <= 2f64.powf(-20.9),
                    "sin {ctx}"
                );
            }
            let g64 = |k: usize| r64[t * 3 + k];
            let canon64 = |v: f64| {
                let b = v.to_bits();
                if b & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000
                    && b & 0x000f_ffff_ffff_ffff != 0
                {
                    0x7fff_ffff_ffff_ffff
                } else {
                    b
                }
            };
            assert_eq!(g64(0), canon64(di.sqrt()), "sqrt.rn.f64 {ctx}");
            // rcp.rp.f64: the smallest f64 >= 1/d (checked exactly via r*d vs 1 with fma).
            let r = f64::from_bits(g64(1));
            if di.is_finite() && di != 0.0 && di.abs() < 1e300 && di.abs() > 1e-300 {
                let lo = r.next_down();
                // r >= 1/d and next_down(r) < 1/d, for d > 0 (signs flip for d < 0).
                let (e_r, e_lo) = (r.mul_add(di, -1.0), lo.mul_add(di, -1.0));
                if di > 0.0 {
                    assert!(e_r >= 0.0 && e_lo < 0.0, "rcp.rp.f64 {ctx}");
                } else {
                    assert!(e_r <= 0.0 && e_lo > 0.0, "rcp.rp.f64 {ctx}");
                }
            }
            if di > 0.0 && di.is_finite() {
                let got = f64::from_bits(g64(2));
                assert!(
                    (got - 1.0 / di.sqrt()).abs() <= got.abs() * 1e-15,
                    "rsqrt.approx.f64 {ctx}"
                );
            }
        }
    }
}

#[test]
fn modifier_rules_are_checked_at_load_time() {
    let head = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\t.reg .f32 %f<2>;\n\t.reg .f64 %d<2>;\n";
    let cases = [
        ("\tsin.f32 %f1, %f0;", "needs '.approx'"),
        (
            "\tsqrt.f32 %f1, %f0;",
            "needs '.approx' or a rounding modifier",
        ),
        ("\tsqrt.approx.rn.f32 %f1, %f0;", "has both"),
        ("\tsin.rn.f32 %f1, %f0;", "exists only as '.approx'"),
        ("\tsin.approx.f64 %d1, %d0;", "f64"),
    ];
    for (body, want) in cases {
        let src = format!("{head}{body}\n\tret;\n}}\n");
        let e = ptxjit::check::parse_and_check(&src, "e.ptx")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("e.ptx:8:") && e.contains(want), "{body}: {e}");
    }
}

/// `rcp.approx.ftz.f64` / `rsqrt.approx.ftz.f64`: computed from the upper word of the
/// input (1.11.20 format), result in the upper word with the lower word zero; the
/// ISA's special-value tables (subnormals flushed, NaN → 0x7fffffff00000000); finite
/// results within 2^-19 relative of the function of the truncated input.
#[test]
fn f64_upper_word_approximations() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/sfu_f64hi.ptx"), "sfu_f64hi.ptx")
        .unwrap();
    let mut x: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        -1e-310,
        1.0,
        -3.0,
        f64::MAX,
        1e-300,
        2.5e300,
    ];
    let mut rng = 0x1234_5678_9abc_def0u64;
    while x.len() < 64 {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x.push(f64::from_bits(rng));
    }
    for b in [Backend::Jit, Backend::Interp] {
        let bx = dev.alloc_from(&x).unwrap();
        let out = dev.alloc_zeroed(x.len() * 16).unwrap();
        let cfg = LaunchConfig::new(1, x.len() as u32).backend(b);
        dev.launch(&m, "f64hi", &cfg, &[(&bx).into(), (&out).into()])
            .unwrap();
        let r: Vec<u64> = dev.read(&out).unwrap();
        for (i, &xi) in x.iter().enumerate() {
            let t = f64::from_bits(xi.to_bits() & 0xffff_ffff_0000_0000);
            let t = if t != 0.0 && t.abs() < f64::MIN_POSITIVE {
                0.0f64.copysign(t)
            } else {
                t
            };
            for (k, exact) in [(0, 1.0 / t), (1, 1.0 / t.sqrt())] {
                let got = r[2 * i + k];
                let ctx = format!("{b:?} {} x={xi:e}", ["rcp", "rsqrt"][k]);
                assert_eq!(got & 0xffff_ffff, 0, "low word {ctx}");
                let g = f64::from_bits(got);
                if exact.is_nan() {
                    assert_eq!(got, 0x7fff_ffff_0000_0000, "{ctx}");
                } else if exact == 0.0 || exact.is_infinite() || exact.abs() < f64::MIN_POSITIVE {
                    let want = if exact.is_infinite() {
                        exact
                    } else {
                        0.0f64.copysign(exact)
                    };
                    assert_eq!(got, want.to_bits(), "{ctx}");
                } else {
                    assert!(
                        ((g - exact) / exact).abs() < 2f64.powi(-19),
                        "{ctx}: {g:e} vs {exact:e}"
                    );
                }
            }
        }
    }
}
