//! Half precision (`.f16 .f16x2 .bf16 .bf16x2`): `add sub mul fma neg abs min max` with
//! every modifier the ISA allows, `ex2.approx`/`tanh.approx` (ops only), and `setp`/`set`
//! with half sources and destinations. Independent reference: `oracle.rs` (exact
//! arithmetic in f64 rounded once into the half format) and the rules of
//! `ptxjit::ops::half`'s documentation (canonical NaN 0x7fff; `.sat`: NaN and -0 -> +0;
//! `.relu`: negatives and -0 -> +0, NaN -> 0x7fff; min/max: -0 < +0).

use super::float::FCMPS;
use super::oracle::{fcmp, fminmax, narrow_op, sat_bits, FOp, Fmt, Mode, BF16, F16};
use super::{gen, Form, Reg};
use ptxjit::ir::{CmpOp, HalfMode, HalfOp, Type};
use ptxjit::ops;

/// The reference for one 16-bit half.
pub fn half_ref(f: Fmt, op: HalfOp, m: HalfMode, a: u64, b: u64, c: u64) -> u64 {
    let fl = |x: u64| {
        if m.ftz {
            f.flush(x & 0xffff)
        } else {
            x & 0xffff
        }
    };
    let (a, b, c) = (fl(a), fl(b), fl(c));
    let sign = f.sign();
    match op {
        // A NaN gives the canonical NaN, as on an H100 (tests/golden).
        HalfOp::Neg | HalfOp::Abs if f.is_nan(a) => return 0x7fff,
        HalfOp::Neg => return a ^ sign,
        HalfOp::Abs => return a & !sign,
        HalfOp::Min | HalfOp::Max => {
            let xs = (a ^ b) & sign;
            let (a, b) = if m.xorsign_abs {
                (a & !sign, b & !sign)
            } else {
                (a, b)
            };
            if m.nan && (f.is_nan(a) || f.is_nan(b)) {
                return f.nan();
            }
            let r = fminmax(f, op == HalfOp::Max, a, b);
            return if m.xorsign_abs && !f.is_nan(r) {
                (r & !sign) | xs
            } else {
                r
            };
        }
        _ => {}
    }
    let fop = match op {
        HalfOp::Add => FOp::Add,
        HalfOp::Sub => FOp::Sub,
        HalfOp::Mul => FOp::Mul,
        _ => FOp::Fma,
    };
    let r = narrow_op(fop, Mode::Rn, f, f.to_f64(a), f.to_f64(b), f.to_f64(c));
    let mut r = if m.sat { sat_bits(f, r, true) } else { r };
    if m.relu && !f.is_nan(r) && r & sign != 0 {
        r = 0;
    }
    if m.ftz {
        f.flush(r)
    } else {
        r
    }
}

/// `half_ref` on both halves of packed operands.
pub fn half2_ref(f: Fmt, op: HalfOp, m: HalfMode, a: u64, b: u64, c: u64) -> u64 {
    let lo = half_ref(f, op, m, a, b, c);
    let hi = half_ref(f, op, m, a >> 16, b >> 16, c >> 16);
    hi << 16 | lo
}

fn mode(ftz: bool, sat: bool, relu: bool, nan: bool, xorsign_abs: bool) -> HalfMode {
    HalfMode {
        ftz,
        sat,
        relu,
        nan,
        xorsign_abs,
        oob: false,
    }
}

pub fn arith_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for ty in [Type::F16, Type::F16x2, Type::BF16, Type::BF16x2] {
        let n = ty.name();
        let bf = matches!(ty, Type::BF16 | Type::BF16x2);
        let packed = matches!(ty, Type::F16x2 | Type::BF16x2);
        let f = if bf { BF16 } else { F16 };
        let r = if packed { Reg::R } else { Reg::H };
        let g = if packed {
            gen::half2(bf)
        } else {
            gen::half(bf)
        };
        let near = gen::half_near(0, bf, packed);
        let reference = move |op: HalfOp, m: HalfMode, s: &[u64]| {
            let (b, c) = (
                s.get(1).copied().unwrap_or(0),
                s.get(2).copied().unwrap_or(0),
            );
            if packed {
                half2_ref(f, op, m, s[0], b, c)
            } else {
                half_ref(f, op, m, s[0], b, c)
            }
        };
        let mut push = |text: String, op: HalfOp, m: HalfMode, arity: usize, indep: bool| {
            let body = match arity {
                1 => format!("{text} {{d}}, {{a}};"),
                2 => format!("{text} {{d}}, {{a}}, {{b}};"),
                _ => format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"),
            };
            let mut form = Form::new(&text, body).src(r, g.clone());
            if arity >= 2 {
                form = form.src(r, near.clone());
            }
            if arity == 3 {
                form = form.src(r, g.clone());
            }
            form = form.dst(r).ops1(move |s| {
                let (b, c) = (
                    s.get(1).copied().unwrap_or(0),
                    s.get(2).copied().unwrap_or(0),
                );
                ops::half::eval(op, ty, m, s[0], b, c)
            });
            if indep {
                form = form.indep1(move |s| reference(op, m, s));
            }
            v.push(form);
        };
        // add sub mul: {.rn}{.ftz}{.sat} (f16), {.rn} (bf16).
        for (opn, op) in [
            ("add", HalfOp::Add),
            ("sub", HalfOp::Sub),
            ("mul", HalfOp::Mul),
        ] {
            for rn in [false, true] {
                for ftz in [false, true] {
                    for sat in [false, true] {
                        if bf && (ftz || sat) {
                            continue;
                        }
                        let text = format!(
                            "{opn}{}{}{}.{n}",
                            if rn { ".rn" } else { "" },
                            if ftz { ".ftz" } else { "" },
                            if sat { ".sat" } else { "" }
                        );
                        push(text, op, mode(ftz, sat, false, false, false), 2, true);
                    }
                }
            }
        }
        // fma.rn{.ftz}{.sat|.relu} (f16), fma.rn{.relu} (bf16).
        for ftz in [false, true] {
            for (sat, relu) in [(false, false), (true, false), (false, true)] {
                if bf && (ftz || sat) {
                    continue;
                }
                let text = format!(
                    "fma.rn{}{}{}.{n}",
                    if ftz { ".ftz" } else { "" },
                    if sat { ".sat" } else { "" },
                    if relu { ".relu" } else { "" }
                );
                push(
                    text,
                    HalfOp::Fma,
                    mode(ftz, sat, relu, false, false),
                    3,
                    true,
                );
            }
        }
        for (opn, op) in [("neg", HalfOp::Neg), ("abs", HalfOp::Abs)] {
            for ftz in [false, true] {
                if bf && ftz {
                    continue;
                }
                let text = format!("{opn}{}.{n}", if ftz { ".ftz" } else { "" });
                push(text, op, mode(ftz, false, false, false, false), 1, true);
            }
        }
        for (opn, op) in [("min", HalfOp::Min), ("max", HalfOp::Max)] {
            for ftz in [false, true] {
                for (nan, xs) in [(false, false), (true, false), (false, true), (true, true)] {
                    if bf && ftz {
                        continue;
                    }
                    let text = format!(
                        "{opn}{}{}{}.{n}",
                        if ftz { ".ftz" } else { "" },
                        if nan { ".NaN" } else { "" },
                        if xs { ".xorsign.abs" } else { "" }
                    );
                    push(text, op, mode(ftz, false, false, nan, xs), 2, true);
                }
            }
        }
        // The approximations: ops only (their accuracy is checked in tests/half.rs).
        let ex2 = if bf {
            format!("ex2.approx.ftz.{n}")
        } else {
            format!("ex2.approx.{n}")
        };
        push(
            ex2,
            HalfOp::Ex2,
            mode(bf, false, false, false, false),
            1,
            false,
        );
        push(
            format!("tanh.approx.{n}"),
            HalfOp::Tanh,
            mode(false, false, false, false, false),
            1,
            false,
        );
    }
    v
}

fn one(f: Fmt) -> u64 {
    f.one()
}

/// `setp` on `.f16 .bf16` (p) and `.f16x2 .bf16x2` (p|q, one per half), with and without
/// `.ftz` (f16); `set` with half sources (integer and half destinations) and with a half
/// destination from f32/f64/integer sources.
pub fn compare_forms() -> Vec<Form> {
    let mut v = Vec::new();
    let mut i = 0usize;
    for (ty, ftz) in [
        (Type::F16, false),
        (Type::F16, true),
        (Type::BF16, false),
        (Type::F16x2, false),
        (Type::F16x2, true),
        (Type::BF16x2, false),
    ] {
        let n = ty.name();
        let bf = matches!(ty, Type::BF16 | Type::BF16x2);
        let packed = matches!(ty, Type::F16x2 | Type::BF16x2);
        let f = if bf { BF16 } else { F16 };
        let et = if bf { Type::BF16 } else { Type::F16 };
        let r = if packed { Reg::R } else { Reg::H };
        let g = if packed {
            gen::half2(bf)
        } else {
            gen::half(bf)
        };
        let near = gen::half_near(0, bf, packed);
        let fz = if ftz { ".ftz" } else { "" };
        let val = move |x: u64| f.to_f64(if ftz { f.flush(x & 0xffff) } else { x & 0xffff });
        for (c, cmp) in FCMPS {
            i += 1;
            let text = format!("setp.{c}{fz}.{n}");
            let ops_cmp =
                move |a: u64, b: u64| ops::setp(cmp, et, ftz, a & 0xffff, b & 0xffff) as u64;
            let ind_cmp = move |a: u64, b: u64| fcmp(c, val(a), val(b)) as u64;
            if packed {
                v.push(
                    Form::new(&text, format!("{text} {{d}}|{{q}}, {{a}}, {{b}};"))
                        .src(r, g.clone())
                        .src(r, near.clone())
                        .dst(Reg::P)
                        .dst(Reg::P)
                        .ops(move |s| vec![ops_cmp(s[0], s[1]), ops_cmp(s[0] >> 16, s[1] >> 16)])
                        .indep(move |s| vec![ind_cmp(s[0], s[1]), ind_cmp(s[0] >> 16, s[1] >> 16)]),
                );
                // set: u32/s32 destinations (0xffff per half) or the packed half (1.0).
                let dty = [Type::U32, Type::S32, ty][i % 3];
                let t1 = if dty == ty { one(f) } else { 0xffff };
                let text = format!("set.{c}{fz}.{}.{n}", dty.name());
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                        .src(r, g.clone())
                        .src(r, near.clone())
                        .dst(Reg::R)
                        .ops1(move |s| {
                            let one = if dty == ty {
                                ops::set_value(et, true)
                            } else {
                                0xffff
                            };
                            (one * ops_cmp(s[0], s[1]))
                                | ((one * ops_cmp(s[0] >> 16, s[1] >> 16)) << 16)
                        })
                        .indep1(move |s| {
                            (t1 * ind_cmp(s[0], s[1]))
                                | ((t1 * ind_cmp(s[0] >> 16, s[1] >> 16)) << 16)
                        }),
                );
            } else {
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                        .src(r, g.clone())
                        .src(r, near.clone())
                        .dst(Reg::P)
                        .ops1(move |s| ops_cmp(s[0], s[1]))
                        .indep1(move |s| ind_cmp(s[0], s[1])),
                );
                let dty = [Type::U32, Type::S32, Type::U16, Type::S16, et][i % 5];
                let dr = if dty.bits() == 16 { Reg::H } else { Reg::R };
                let t1 = match dty.bits() {
                    32 => 0xffff_ffff,
                    _ if dty == et => one(f),
                    _ => 0xffff,
                };
                let text = format!("set.{c}{fz}.{}.{n}", dty.name());
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                        .src(r, g.clone())
                        .src(r, near.clone())
                        .dst(dr)
                        .ops1(move |s| ops::set_value(dty, ops_cmp(s[0], s[1]) != 0))
                        .indep1(move |s| t1 * ind_cmp(s[0], s[1])),
                );
            }
        }
    }
    // A half destination from other source types.
    for (k, (c, cmp)) in FCMPS.iter().enumerate() {
        let (dty, f) = if k % 2 == 0 {
            (Type::F16, F16)
        } else {
            (Type::BF16, BF16)
        };
        let (sty, sr, g, sf) = match k % 3 {
            0 => (Type::F32, Reg::R, gen::f32(), Some(super::oracle::F32)),
            1 => (Type::F64, Reg::D, gen::f64(), Some(super::oracle::F64)),
            _ => (Type::S32, Reg::R, gen::int(32), None),
        };
        if sf.is_none()
            && !matches!(
                cmp,
                CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
            )
        {
            continue;
        }
        let (c, cmp) = (*c, *cmp);
        let text = format!("set.{c}.{}.{}", dty.name(), sty.name());
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(sr, g.clone())
                .src(sr, g)
                .dst(Reg::H)
                .ops1(move |s| ops::set_value(dty, ops::setp(cmp, sty, false, s[0], s[1])))
                .indep1(move |s| {
                    let t = match sf {
                        Some(sf) => fcmp(c, sf.to_f64(s[0]), sf.to_f64(s[1])),
                        None => {
                            let (a, b) = (s[0] as u32 as i32, s[1] as u32 as i32);
                            fcmp(c, a as f64, b as f64)
                        }
                    };
                    if t {
                        f.one()
                    } else {
                        0
                    }
                }),
        );
    }
    v
}
