//! Error bounds of the approximate forms, from the PTX ISA (floating-point and
//! half-precision instruction chapters). A bound stated as an absolute error over a range
//! where the result is of order 1 (ex2, rsqrt, rcp over their primary ranges) is applied
//! relative to the result, its natural scale-free reading. Each result may also differ by
//! one unit in the last place of its format (both sides round). Lanes outside the range
//! the ISA states the bound for are counted and not checked; NaN and infinite results must
//! match exactly inside it.

use super::{Fmt, Report};

struct Spec {
    fmt: Fmt,
    /// Absolute and relative error allowed (the ISA's), in units of the result.
    abs: f64,
    rel: f64,
    /// Extra units in the last place of the result's format.
    ulps: f64,
    /// Whether the ISA's bound applies to these inputs (the first two sources).
    domain: fn(f64, f64) -> bool,
}

fn any(_: f64, _: f64) -> bool {
    true
}

fn spec(case: &str) -> Option<Spec> {
    let p = |e: f64| 2f64.powf(-e);
    let f32s = |abs, rel, ulps, domain| Spec {
        fmt: Fmt::F32,
        abs,
        rel,
        ulps,
        domain,
    };
    let base = case.replace("_ftz", "");
    Some(match base.as_str() {
        // "The maximum absolute error is 2^-20.9 in quadrant 00" (|x| <= pi here).
        "sin_approx_f32" | "cos_approx_f32" => {
            f32s(p(20.9), 0.0, 1.0, |x, _| x.abs() <= std::f64::consts::PI)
        }
        // "The maximum absolute error is 2^-22.6 for mantissa."
        "lg2_approx_f32" => f32s(p(22.6), 0.0, 1.0, |x, _| x > 0.0 && x.is_finite()),
        // "2^-22.5 for fraction in the primary range" (the result is 2^int * 2^frac).
        "ex2_approx_f32" => f32s(0.0, p(22.5), 1.0, |x, _| x.is_finite()),
        // "2^-22.4 over the range 1.0-4.0"
        "rsqrt_approx_f32" => f32s(0.0, p(22.4), 1.0, |x, _| x > 0.0 && x.is_finite()),
        // "2^-23.0 over the range 1.0-2.0"
        "rcp_approx_f32" => f32s(0.0, p(23.0), 1.0, |x, _| x.is_finite() && x != 0.0),
        // The ISA states no bound for sqrt.approx.f32: one ulp.
        "sqrt_approx_f32" => f32s(0.0, 0.0, 1.0, |x, _| x >= 0.0 && x.is_finite()),
        // As the ISA states for tanh.approx.f16 (none is stated for .f32).
        "tanh_approx_f32" => f32s(p(10.987), 0.0, 1.0, any),
        // "For |b| in [2^-126, 2^126], the maximum ulp error is 2."
        "div_approx_f32" => f32s(0.0, 0.0, 2.0 + 1.0, |_, b| {
            (2f64.powi(-126)..=2f64.powi(126)).contains(&b.abs())
        }),
        // "The maximum ulp error is 2 across the full range of inputs."
        "div_full_f32" => f32s(0.0, 0.0, 3.0, any),
        // "The maximum relative error for .f16 type is 2^-9.9 ... for .bf16 type is 2^-7."
        "ex2_approx_f16" | "ex2_approx_f16x2" => Spec {
            fmt: if base.ends_with("x2") {
                Fmt::F16x2
            } else {
                Fmt::F16
            },
            abs: 0.0,
            rel: p(9.9),
            ulps: 1.0,
            domain: any,
        },
        "ex2_approx_bf16" => Spec {
            fmt: Fmt::Bf16,
            abs: 0.0,
            rel: p(7.0),
            ulps: 1.0,
            domain: any,
        },
        // "The maximum absolute error for .f16 type is 2^-10.987 ... for .bf16 is 2^-8."
        "tanh_approx_f16" => Spec {
            fmt: Fmt::F16,
            abs: p(10.987),
            rel: 0.0,
            ulps: 1.0,
            domain: any,
        },
        "tanh_approx_bf16" => Spec {
            fmt: Fmt::Bf16,
            abs: p(8.0),
            rel: 0.0,
            ulps: 1.0,
            domain: any,
        },
        // Emulated in software by ptxas (more precise than its .ftz form); the ISA
        // states no bound: the .f32 one.
        "rsqrt_approx_f64" => Spec {
            fmt: Fmt::F64,
            abs: 0.0,
            rel: p(22.4),
            ulps: 1.0,
            domain: |x, _| x > 0.0 && x.is_finite(),
        },
        _ => return None,
    })
}

/// The value of `v` in the (scalar) format `f`.
pub fn value(f: Fmt, v: u64) -> f64 {
    match f {
        Fmt::F16 => half::f16::from_bits(v as u16).to_f64(),
        Fmt::Bf16 => f32::from_bits((v as u32 & 0xffff) << 16) as f64,
        Fmt::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

/// One unit in the last place at `x` in format `f` (subnormal spacing below the normals).
fn ulp(f: Fmt, x: f64) -> f64 {
    let (mant, emin) = match f {
        Fmt::F16 => (10, -14),
        Fmt::Bf16 => (7, -126),
        Fmt::F32 => (23, -126),
        _ => (52, -1022),
    };
    let e = if x == 0.0 || !x.is_finite() {
        emin
    } else {
        (x.abs().log2().floor() as i32).max(emin)
    };
    2f64.powi(e - mant)
}

/// Checks one lane (`gpu != got`): `Some("")` when within the bound or outside its
/// domain (recorded in the report), `None` when outside the bound.
pub fn check(case: &str, s: &[u64], gpu: u64, got: u64, r: &mut Report) -> Option<&'static str> {
    let sp = spec(case)?;
    let (scalar, parts) = match sp.fmt {
        Fmt::F16x2 => (Fmt::F16, 2),
        f => (f, 1),
    };
    let entry = r.approx.entry(case.to_string()).or_insert((0.0, 0.0, 0));
    for k in 0..parts {
        let sh = if parts == 2 { 16 * k } else { 0 };
        let m = if parts == 2 { 0xffff } else { u64::MAX };
        let (g, x) = ((gpu >> sh) & m, (got >> sh) & m);
        if g == x {
            continue;
        }
        let a = value(scalar, (s[0] >> sh) & m);
        let b = s.get(1).map_or(0.0, |&v| value(scalar, v));
        if !(sp.domain)(a, b) {
            entry.2 += 1;
            continue;
        }
        let (gv, xv) = (value(scalar, g), value(scalar, x));
        if !gv.is_finite() || !xv.is_finite() {
            return None;
        }
        let err = (gv - xv).abs();
        let bound = sp.abs + sp.rel * gv.abs() + sp.ulps * ulp(scalar, gv);
        if err > bound {
            return None;
        }
        if err / bound > entry.0 {
            entry.0 = err / bound;
        }
        entry.1 = entry.1.max(err);
    }
    Some("")
}
