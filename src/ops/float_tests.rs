//! Tests of the special functions and the `min`/`max`, `copysign`, `testp` forms of
//! `ops::float`.

mod special {
    use super::super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn special_case_tables() {
        use ApproxOp::*;
        let sub = 1u32; // +smallest subnormal
        let nsub = 0x8000_0001u32;
        let (inf, ninf, nz) = (f(f32::INFINITY), f(f32::NEG_INFINITY), f(-0.0));
        let nan = 0x7fff_ffff;
        // Rows: -Inf, -subnormal, -0.0, +0.0, +subnormal, +Inf, NaN (the manual's tables).
        let inputs = [ninf, nsub, nz, 0, sub, inf, 0x7fc0_0001];
        let tables: [(ApproxOp, [u32; 7]); 7] = [
            (Cos, [nan, f(1.0), f(1.0), f(1.0), f(1.0), nan, nan]),
            (Sin, [nan, nz, nz, 0, 0, nan, nan]),
            (Ex2, [0, f(1.0), f(1.0), f(1.0), f(1.0), inf, nan]),
            (Lg2, [nan, ninf, ninf, ninf, ninf, inf, nan]),
            (Rcp, [nz, ninf, ninf, inf, inf, 0, nan]),
            (Rsqrt, [nan, ninf, ninf, inf, inf, 0, nan]),
            (Sqrt, [nan, nz, nz, 0, 0, inf, nan]),
        ];
        // The tables show the flushed behaviour: `.ftz`.
        for (op, want) in tables {
            for (x, w) in inputs.iter().zip(want) {
                assert_eq!(approx_f32(op, true, *x), w, "{op:?}.ftz({x:#x})");
            }
        }
        // Without `.ftz` a subnormal input is its own value (sm_20+): e.g. rsqrt of the
        // smallest subnormal 2^-149 is 2^74.5, lg2 is -149, sin passes it through.
        assert_eq!(approx_f32(Lg2, false, sub), f(-149.0));
        assert_eq!(approx_f32(Rsqrt, false, sub), f((2f64.powf(74.5)) as f32));
        assert_eq!(approx_f32(Sin, false, nsub), nsub);
        assert_eq!(approx_f32(Ex2, false, sub), f(1.0));
        // tanh: -Inf -> -1, subnormals pass through, +Inf -> 1.
        assert_eq!(approx_f32(Tanh, false, ninf), f(-1.0));
        assert_eq!(approx_f32(Tanh, false, sub), sub);
        assert_eq!(approx_f32(Tanh, false, nsub), nsub);
        assert_eq!(approx_f32(Tanh, false, inf), f(1.0));
        assert_eq!(approx_f32(Rsqrt, false, f(-4.0)), nan, "-normal -> NaN");
    }

    #[test]
    fn approx_error_bounds_from_the_manual() {
        // Absolute error bounds: sin/cos 2^-20.9 (quadrant 00), ex2 2^-22.5 (fraction in
        // the primary range), lg2 2^-22.6 (mantissa in [1,2)), rcp 2^-23.0 on [1,2),
        // rsqrt 2^-22.4 on [1,4).
        let mut s = 0x1234_5678u32;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as f64 / u32::MAX as f64
        };
        for _ in 0..20_000 {
            let t = next();
            let check = |op: ApproxOp, x: f64, exact: f64, bound: f64| {
                let got = f32::from_bits(approx_f32(op, false, (x as f32).to_bits())) as f64;
                let x32 = x as f32 as f64;
                let exact = match op {
                    ApproxOp::Sin => x32.sin(),
                    ApproxOp::Cos => x32.cos(),
                    ApproxOp::Ex2 => x32.exp2(),
                    ApproxOp::Lg2 => x32.log2(),
                    ApproxOp::Rcp => 1.0 / x32,
                    ApproxOp::Rsqrt => 1.0 / x32.sqrt(),
                    _ => exact,
                };
                assert!(
                    (got - exact).abs() <= 2f64.powf(bound),
                    "{op:?}({x}) = {got}, exact {exact}"
                );
            };
            check(ApproxOp::Sin, t * std::f64::consts::FRAC_PI_2, 0.0, -20.9);
            check(ApproxOp::Cos, t * std::f64::consts::FRAC_PI_2, 0.0, -20.9);
            check(ApproxOp::Ex2, t, 0.0, -22.5);
            check(ApproxOp::Lg2, 1.0 + t, 0.0, -22.6);
            check(ApproxOp::Rcp, 1.0 + t, 0.0, -23.0);
            check(ApproxOp::Rsqrt, 1.0 + 3.0 * t, 0.0, -22.4);
        }
    }

    #[test]
    fn sqrt_and_rcp_rounding_modes() {
        // sqrt(2) = 1.41421356237309504880...; f32 neighbours 0x3fb504f3 (1.41421354)
        // and 0x3fb504f4 (1.41421366): RN and RZ/RM give the lower, RP the upper.
        assert_eq!(sqrt_f32(None, false, f(2.0)), 0x3fb5_04f3);
        assert_eq!(sqrt_f32(Some(Rnd::Rz), false, f(2.0)), 0x3fb5_04f3);
        assert_eq!(sqrt_f32(Some(Rnd::Rp), false, f(2.0)), 0x3fb5_04f4);
        // Exact squares are unaffected by the mode.
        for r in [None, Some(Rnd::Rz), Some(Rnd::Rm), Some(Rnd::Rp)] {
            assert_eq!(sqrt_f32(r, false, f(9.0)), f(3.0));
            assert_eq!(sqrt_f64(r, 0.25f64.to_bits()), 0.5f64.to_bits());
        }
        assert_eq!(sqrt_f32(None, false, f(-1.0)), 0x7fff_ffff);
        assert_eq!(sqrt_f32(None, false, f(-0.0)), f(-0.0));
        assert_eq!(
            sqrt_f32(None, true, 1),
            0,
            "ftz flushes the subnormal input"
        );
        // f64: the two candidates bracket sqrt(2) and RP is one ulp above RZ.
        let rz = sqrt_f64(Some(Rnd::Rz), 2.0f64.to_bits());
        let rp = sqrt_f64(Some(Rnd::Rp), 2.0f64.to_bits());
        assert_eq!(rp, rz + 1);
        assert_eq!(sqrt_f64(None, 2.0f64.to_bits()), 2f64.sqrt().to_bits());
        // Tiny inputs take the scaled path: sqrt(2^-1074) = 2^-537 exactly.
        assert_eq!(sqrt_f64(Some(Rnd::Rp), 1), 2f64.powi(-537).to_bits());
        // Exhaustive-ish f32 check of the directed modes against the defining property:
        // RZ result r satisfies r^2 <= x < next_up(r)^2.
        for i in (0x0080_0000u32..0x7f80_0000).step_by(9973) {
            let x = f32::from_bits(i) as f64;
            let r = f32::from_bits(sqrt_f32(Some(Rnd::Rz), false, i));
            let (lo, hi) = (r as f64, r.next_up() as f64);
            assert!(lo * lo <= x && x < hi * hi, "sqrt.rz({x})");
            let p = f32::from_bits(sqrt_f32(Some(Rnd::Rp), false, i)) as f64;
            assert!(p * p >= x, "sqrt.rp({x})");
        }
        // rcp: 1/3 rounds to 0x3eaaaaab (RN) and 0x3eaaaaaa (RZ).
        assert_eq!(rcp_f32(None, false, f(3.0)), 0x3eaa_aaab);
        assert_eq!(rcp_f32(Some(Rnd::Rz), false, f(3.0)), 0x3eaa_aaaa);
        assert_eq!(rcp_f64(None, 4.0f64.to_bits()), 0.25f64.to_bits());
        assert_eq!(rcp_f32(None, false, 0), f(f32::INFINITY));
    }
}

mod minmax {
    //! Oracle: Rust's `f32`/`f64` classification and comparisons, with the PTX rules
    //! spelled out case by case.
    use super::super::*;

    const SPECIAL: [u32; 14] = [
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
    ];

    #[test]
    fn testp_matches_classify() {
        use std::num::FpCategory::*;
        for hi in 0..=0xffffu32 {
            for lo in [0u32, 1, 0x8000, 0xffff] {
                let x = hi << 16 | lo;
                let f = f32::from_bits(x);
                let c = f.classify();
                let t = |op| testp(op, Type::F32, x as u64);
                assert_eq!(t(TestpOp::Finite), f.is_finite());
                assert_eq!(t(TestpOp::Infinite), f.is_infinite());
                assert_eq!(t(TestpOp::Number), !f.is_nan());
                assert_eq!(t(TestpOp::NotANumber), f.is_nan());
                assert_eq!(t(TestpOp::Normal), c == Normal || c == Zero);
                assert_eq!(t(TestpOp::Subnormal), c == Subnormal);
                let d = (f as f64).to_bits();
                let g = f64::from_bits(d);
                assert_eq!(
                    testp(TestpOp::Normal, Type::F64, d),
                    g.is_normal() || g == 0.0
                );
                assert_eq!(testp(TestpOp::NotANumber, Type::F64, d), g.is_nan());
            }
        }
        assert!(testp(TestpOp::Subnormal, Type::F64, 1));
        assert!(!testp(TestpOp::Normal, Type::F64, 0x000f_ffff_ffff_ffff));
    }

    #[test]
    fn nan_and_xorsign_forms() {
        let nan = 0x7fff_ffffu64;
        for &a in &SPECIAL {
            for &b in &SPECIAL {
                let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                for max in [false, true] {
                    let op = MinMaxOp {
                        max,
                        ..Default::default()
                    };
                    let plain = minmax(op, Type::F32, a as u64, b as u64);
                    let with_nan =
                        minmax(MinMaxOp { nan: true, ..op }, Type::F32, a as u64, b as u64);
                    if fa.is_nan() || fb.is_nan() {
                        assert_eq!(with_nan, nan);
                    } else {
                        assert_eq!(with_nan, plain);
                    }
                    let xa = minmax(
                        MinMaxOp {
                            xorsign_abs: true,
                            ..op
                        },
                        Type::F32,
                        a as u64,
                        b as u64,
                    );
                    let (ma, mb) = (fa.abs(), fb.abs());
                    let want = if ma.is_nan() && mb.is_nan() {
                        nan as u32
                    } else {
                        let m = if ma.is_nan() {
                            mb
                        } else if mb.is_nan() || (ma < mb) != max {
                            ma
                        } else {
                            mb
                        };
                        m.to_bits() | ((a ^ b) & 0x8000_0000)
                    };
                    assert_eq!(xa, want as u64, "{a:#x} {b:#x} max={max}");
                }
            }
        }
        // min.xorsign.abs(-3, 2) = -2; max.xorsign.abs(-3, -2) = +3.
        let x = |max, a: f32, b: f32| {
            let op = MinMaxOp {
                max,
                xorsign_abs: true,
                ..Default::default()
            };
            f32::from_bits(minmax(op, Type::F32, a.to_bits() as u64, b.to_bits() as u64) as u32)
        };
        assert_eq!(x(false, -3.0, 2.0), -2.0);
        assert_eq!(x(true, -3.0, -2.0), 3.0);
    }

    #[test]
    fn relu_packed_copysign() {
        let op = |max, relu, packed| MinMaxOp {
            max,
            relu,
            packed,
            ..Default::default()
        };
        assert_eq!(minmax(op(false, true, false), Type::S32, 0xffff_fffe, 5), 0);
        assert_eq!(minmax(op(true, true, false), Type::S32, 0xffff_fffe, 5), 5);
        // halves (lo, hi): a = (-2, 7), b = (3, -9).
        let (a, b) = (0x0007_fffe, 0xfff7_0003);
        assert_eq!(minmax(op(false, false, true), Type::S16, a, b), 0xfff7_fffe);
        assert_eq!(minmax(op(false, true, true), Type::S16, a, b), 0);
        assert_eq!(minmax(op(true, false, true), Type::S16, a, b), 0x0007_0003);
        assert_eq!(minmax(op(false, false, true), Type::U16, a, b), 0x0007_0003);
        assert_eq!(copysign(Type::F32, 0x8000_0000, 0x7fc0_0001), 0xffc0_0001);
        assert_eq!(
            copysign(Type::F64, 0, 0xbff0_0000_0000_0000),
            0x3ff0_0000_0000_0000
        );
    }
}
