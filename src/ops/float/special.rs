//! `sqrt`, `rcp` (correctly rounded in every rounding mode) and the `.approx` family
//! (`sqrt rcp rsqrt sin cos lg2 ex2 tanh`), with the PTX manual's special-case tables.
//!
//! ptxjit computes the `.approx` functions in f64 and rounds once to f32, so their error
//! is at most 0.5 ulp of the f32 result plus the host libm's error in f64 — far inside the
//! manual's bounds (e.g. 2^-20.9 absolute for `sin`/`cos`, 2^-22.5 for `ex2`); `tests`
//! checks the bounds. Subnormal inputs: the manual says that since sm_20 "by default,
//! subnormal numbers are supported" and that the `.ftz` forms flush them; its special-
//! value tables (`+subnormal` → `+Inf` for `rsqrt`, `-Inf` for `lg2`) show the flushed
//! behaviour. Without `.ftz` ptxjit computes the function of the subnormal value itself:
//! NVIDIA's math library depends on it (libdevice's `cbrtf` takes `lg2.approx.f32` of
//! |x| and `rsqrtf` is one `rsqrt.approx.f32`, and the CUDA guide documents 1 and 2 ulp
//! for them over the whole range, subnormals included; `tests/mathlib.rs`). With `.ftz`
//! a subnormal input is a zero of the same sign (`tanh` has no `.ftz` and passes it
//! through).

use crate::ir::Rnd;
use crate::ops::float::{canonical_nan, flush_f32, round_of};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::Float;

/// The `.approx` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApproxOp {
    Sqrt,
    Rcp,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

fn is_subnormal(x: f32) -> bool {
    x != 0.0 && x.is_finite() && !x.is_normal()
}

/// `op.approx{.ftz}.f32 d, a` on raw bits.
pub fn approx_f32(op: ApproxOp, ftz: bool, a: u32) -> u32 {
    let x = f32::from_bits(a);
    let x = if !ftz || op == ApproxOp::Tanh || !is_subnormal(x) {
        x
    } else {
        f32::from_bits(a & 0x8000_0000)
    };
    if x.is_nan() {
        return canonical_nan(32) as u32;
    }
    let d = x as f64;
    let r: f64 = match op {
        ApproxOp::Sqrt => {
            if d < 0.0 {
                f64::NAN
            } else {
                d.sqrt() // sqrt(-0.0) = -0.0, as the table says
            }
        }
        ApproxOp::Rcp => 1.0 / d,
        ApproxOp::Rsqrt => {
            if d == 0.0 {
                if d.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else if d < 0.0 {
                f64::NAN
            } else {
                1.0 / d.sqrt()
            }
        }
        ApproxOp::Sin => d.sin(),
        ApproxOp::Cos => d.cos(),
        ApproxOp::Lg2 => {
            if d == 0.0 {
                f64::NEG_INFINITY
            } else {
                d.log2()
            }
        }
        ApproxOp::Ex2 => d.exp2(),
        ApproxOp::Tanh => d.tanh(),
    };
    let r = r as f32;
    if r.is_nan() {
        return canonical_nan(32) as u32;
    }
    if ftz {
        flush_f32(r.to_bits())
    } else {
        r.to_bits()
    }
}

/// `sqrt{.rnd}{.ftz}.f32`, correctly rounded (`None`/`.rn`: nearest even).
pub fn sqrt_f32(rnd: Option<Rnd>, ftz: bool, a: u32) -> u32 {
    let a = if ftz { flush_f32(a) } else { a };
    let x = f32::from_bits(a);
    if x.is_nan() || x < 0.0 {
        return canonical_nan(32) as u32;
    }
    let mut r = x.sqrt();
    if r.is_finite() && r != 0.0 {
        // r is exact in f64 and so is r*r (48 significant bits): compare with x exactly.
        let sq = r as f64 * r as f64;
        let x = x as f64;
        match rnd {
            Some(Rnd::Rz | Rnd::Rm) if sq > x => r = r.next_down(),
            Some(Rnd::Rp) if sq < x => r = r.next_up(),
            _ => {}
        }
    }
    if ftz {
        flush_f32(r.to_bits())
    } else {
        r.to_bits()
    }
}

/// `sqrt{.rnd}.f64`, correctly rounded.
pub fn sqrt_f64(rnd: Option<Rnd>, a: u64) -> u64 {
    let x = f64::from_bits(a);
    if x.is_nan() || x < 0.0 {
        return canonical_nan(64);
    }
    if x == 0.0 || x.is_infinite() {
        return x.sqrt().to_bits();
    }
    // Scale tiny inputs by 2^128 (sqrt scales by 2^64, exactly) so that r*r - x cannot
    // underflow and its sign is exact.
    let (xs, unscale) = if x < 2f64.powi(-900) {
        (x * 2f64.powi(128), 2f64.powi(-64))
    } else {
        (x, 1.0)
    };
    let mut r = xs.sqrt();
    let e = r.mul_add(r, -xs); // sign of r^2 - x, exact
    match rnd {
        Some(Rnd::Rz | Rnd::Rm) if e > 0.0 => r = r.next_down(),
        Some(Rnd::Rp) if e < 0.0 => r = r.next_up(),
        _ => {}
    }
    (r * unscale).to_bits()
}

/// `rcp{.rnd}{.ftz}.f32` (IEEE 1/x in the rounding mode).
pub fn rcp_f32(rnd: Option<Rnd>, ftz: bool, a: u32) -> u32 {
    let a = if ftz { flush_f32(a) } else { a };
    let r = Single::from_bits(1.0f32.to_bits() as u128)
        .div_r(Single::from_bits(a as u128), round_of(rnd))
        .value;
    let r = r.to_bits() as u32;
    if f32::from_bits(r).is_nan() {
        canonical_nan(32) as u32
    } else if ftz {
        flush_f32(r)
    } else {
        r
    }
}

/// `rcp{.rnd}.f64` (IEEE 1/x in the rounding mode).
pub fn rcp_f64(rnd: Option<Rnd>, a: u64) -> u64 {
    let r = Double::from_bits(1.0f64.to_bits() as u128)
        .div_r(Double::from_bits(a as u128), round_of(rnd))
        .value;
    let r = r.to_bits() as u64;
    if f64::from_bits(r).is_nan() {
        canonical_nan(64)
    } else {
        r
    }
}

/// `rcp.approx.ftz.f64` (`rsqrt` false) and `rsqrt.approx.ftz.f64`: the reciprocal (or
/// reciprocal square root) of the upper 32 bits of `a` (1.11.20 format), in the upper
/// 32 bits of the result, whose lower 32 bits are zero. Subnormal inputs and results
/// are flushed to sign-preserving zero; NaN results are `0x7fffffff00000000`, as the
/// ISA's tables say. The ISA only calls the value an approximation; here it is the
/// correctly rounded f64 result truncated to its upper word (relative error below
/// 2^-20). Not compared with a GPU.
pub fn approx_hi_f64(rsqrt: bool, a: u64) -> u64 {
    const HI: u64 = 0xffff_ffff_0000_0000;
    const NAN: u64 = 0x7fff_ffff_0000_0000;
    let mut x = f64::from_bits(a & HI);
    if x.is_nan() {
        return NAN;
    }
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        x = 0.0f64.copysign(x);
    }
    let r = if rsqrt { 1.0 / x.sqrt() } else { 1.0 / x };
    if r.is_nan() {
        return NAN;
    }
    let r = if r != 0.0 && r.abs() < f64::MIN_POSITIVE {
        0.0f64.copysign(r)
    } else {
        r
    };
    r.to_bits() & HI
}

/// The result of [`crate::ir::InstKind::Sfu`] on raw bits (f32 in the low 32 bits).
pub fn sfu(
    op: crate::ir::SfuOp,
    ty: crate::ir::Type,
    approx: bool,
    rnd: Option<Rnd>,
    ftz: bool,
    a: u64,
) -> u64 {
    use crate::ir::SfuOp;
    let f64_ty = ty == crate::ir::Type::F64;
    if approx {
        let aop = match op {
            SfuOp::Sqrt => ApproxOp::Sqrt,
            SfuOp::Rcp => ApproxOp::Rcp,
            SfuOp::Rsqrt => ApproxOp::Rsqrt,
            SfuOp::Sin => ApproxOp::Sin,
            SfuOp::Cos => ApproxOp::Cos,
            SfuOp::Lg2 => ApproxOp::Lg2,
            SfuOp::Ex2 => ApproxOp::Ex2,
            SfuOp::Tanh => ApproxOp::Tanh,
        };
        if f64_ty && ftz {
            return approx_hi_f64(op == SfuOp::Rsqrt, a);
        }
        if f64_ty {
            // `rsqrt.approx.f64` (the only other f64 .approx form the front end accepts):
            // computed as 1/sqrt(x) in f64 (within the GPU's documented approximation).
            let x = f64::from_bits(a);
            let r = if x == 0.0 {
                if x.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                1.0 / x.sqrt()
            };
            return if r.is_nan() {
                canonical_nan(64)
            } else {
                r.to_bits()
            };
        }
        return approx_f32(aop, ftz, a as u32) as u64;
    }
    match (op, f64_ty) {
        (SfuOp::Sqrt, false) => sqrt_f32(rnd, ftz, a as u32) as u64,
        (SfuOp::Sqrt, true) => sqrt_f64(rnd, a),
        (SfuOp::Rcp, false) => rcp_f32(rnd, ftz, a as u32) as u64,
        (SfuOp::Rcp, true) => rcp_f64(rnd, a),
        // The front end accepts the other functions only in their .approx forms.
        _ => canonical_nan(if f64_ty { 64 } else { 32 }),
    }
}

/// Packs an `Sfu` instruction's parameters for a JIT helper.
pub fn sfu_encode(
    op: crate::ir::SfuOp,
    ty: crate::ir::Type,
    approx: bool,
    rnd: Option<Rnd>,
    ftz: bool,
) -> u64 {
    use crate::ir::SfuOp::*;
    let o = [Sqrt, Rcp, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh]
        .iter()
        .position(|&x| x == op)
        .unwrap_or(0) as u64;
    let r = match rnd {
        None => 0,
        Some(Rnd::Rn) => 1,
        Some(Rnd::Rz) => 2,
        Some(Rnd::Rm) => 3,
        Some(Rnd::Rp) => 4,
        Some(_) => 0,
    };
    o | ((ty == crate::ir::Type::F64) as u64) << 4
        | (approx as u64) << 5
        | (ftz as u64) << 6
        | r << 8
}

/// Inverse of [`sfu_encode`].
pub fn sfu_decode(d: u64) -> (crate::ir::SfuOp, crate::ir::Type, bool, Option<Rnd>, bool) {
    use crate::ir::SfuOp::*;
    let op = [Sqrt, Rcp, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh][(d & 7) as usize];
    let ty = if d >> 4 & 1 == 1 {
        crate::ir::Type::F64
    } else {
        crate::ir::Type::F32
    };
    let rnd = match d >> 8 & 7 {
        1 => Some(Rnd::Rn),
        2 => Some(Rnd::Rz),
        3 => Some(Rnd::Rm),
        4 => Some(Rnd::Rp),
        _ => None,
    };
    (op, ty, d >> 5 & 1 == 1, rnd, d >> 6 & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

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
