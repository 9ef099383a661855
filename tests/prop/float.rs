//! f32 and f64 arithmetic (every rounding mode, `.ftz`, `.sat`), `div` flavours, `sqrt`
//! `rcp` and the `.approx` functions, `min max abs neg` with their extended forms,
//! `copysign`, `testp`, and `setp`/`set` on floats. Independent references:
//! `oracle.rs` (exact arithmetic rounded once) and the PTX rules spelled out here.

use super::oracle::{self, fcmp, FOp, Mode, F32, F64, MODES};
use super::{gen, Form, Gen, Reg};
use ptxjit::ir::{
    ArithOp, BoolOp, CmpOp, DivMode, FloatMode, MinMaxOp, MulMode, Rnd, SfuOp, TestpOp, Type,
};
use ptxjit::ops;
use std::sync::Arc;

fn rnd_of(m: Mode) -> Rnd {
    match m {
        Mode::Rn => Rnd::Rn,
        Mode::Rz => Rnd::Rz,
        Mode::Rm => Rnd::Rm,
        Mode::Rp => Rnd::Rp,
    }
}

fn dot(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(".{s}")
    }
}

/// A third fma operand: often minus the (rounded) product of the first two, so that the
/// sum cancels, or a small value beside it.
fn fma_c(f64_ty: bool) -> Gen {
    Arc::new(move |r, _, prev| {
        let (a, b) = (prev[0], prev[1]);
        if r.u32() & 1 == 0 {
            return if f64_ty {
                gen::f64_value(r)
            } else {
                gen::f32_value(r) as u64
            };
        }
        if f64_ty {
            let p = f64::from_bits(a) * f64::from_bits(b);
            let c = (-p).to_bits();
            c.wrapping_add(r.range(0, 3) as u64).wrapping_sub(1)
        } else {
            let p = f32::from_bits(a as u32) * f32::from_bits(b as u32);
            let c = (-p).to_bits();
            c.wrapping_add(r.range(0, 3)).wrapping_sub(1) as u64
        }
    })
}

/// `add sub mul fma mad div` on f32 and f64 in every rounding mode (none, .rn .rz .rm
/// .rp), with `.ftz` and `.sat` on f32.
pub fn arith_forms() -> Vec<Form> {
    let mut v = Vec::new();
    let ops3 = [
        ("add", ArithOp::Add, FOp::Add),
        ("sub", ArithOp::Sub, FOp::Sub),
        ("mul", ArithOp::Mul(MulMode::Lo), FOp::Mul),
        ("fma", ArithOp::Fma, FOp::Fma),
        ("mad", ArithOp::Mad(MulMode::Lo), FOp::Fma),
        ("div", ArithOp::Div(DivMode::Ieee), FOp::Div),
    ];
    for (opn, op, fop) in ops3 {
        let three = fop == FOp::Fma;
        let rnd_required = three || fop == FOp::Div;
        let mut rnds: Vec<(Option<Mode>, &str)> =
            MODES.iter().map(|&(m, s)| (Some(m), s)).collect();
        if !rnd_required {
            rnds.insert(0, (None, ""));
        }
        for &(mode, rs) in &rnds {
            // f32 with .ftz and .sat (div has no .sat).
            for ftz in [false, true] {
                for sat in [false, true] {
                    if sat && fop == FOp::Div {
                        continue;
                    }
                    let text = format!(
                        "{opn}{}{}{}.f32",
                        dot(rs),
                        if ftz { ".ftz" } else { "" },
                        if sat { ".sat" } else { "" }
                    );
                    let fm = FloatMode {
                        rnd: mode.map(rnd_of),
                        ftz,
                        sat,
                    };
                    let m = mode.unwrap_or(Mode::Rn);
                    let body = if three {
                        format!("{text} {{d}}, {{a}}, {{b}}, {{c}};")
                    } else {
                        format!("{text} {{d}}, {{a}}, {{b}};")
                    };
                    let mut f = Form::new(&text, body)
                        .src(Reg::R, gen::f32())
                        .src(Reg::R, gen::f32_near(0));
                    if three {
                        f = f.src(Reg::R, fma_c(false));
                    }
                    v.push(
                        f.dst(Reg::R)
                            .ops1(move |s| {
                                ops::arith(
                                    op,
                                    Type::F32,
                                    fm,
                                    s[0],
                                    s[1],
                                    s.get(2).copied().unwrap_or(0),
                                )
                            })
                            .indep1(move |s| {
                                let c = s.get(2).copied().unwrap_or(0) as u32;
                                oracle::f32_op(fop, m, ftz, sat, s[0] as u32, s[1] as u32, c) as u64
                            }),
                    );
                }
            }
            // f64.
            let text = format!("{opn}{}.f64", dot(rs));
            let fm = FloatMode {
                rnd: mode.map(rnd_of),
                ..Default::default()
            };
            let m = mode.unwrap_or(Mode::Rn);
            let body = if three {
                format!("{text} {{d}}, {{a}}, {{b}}, {{c}};")
            } else {
                format!("{text} {{d}}, {{a}}, {{b}};")
            };
            let mut f = Form::new(&text, body)
                .src(Reg::D, gen::f64())
                .src(Reg::D, gen::f64_near(0));
            if three {
                f = f.src(Reg::D, fma_c(true));
            }
            v.push(
                f.dst(Reg::D)
                    .ops1(move |s| {
                        ops::arith(
                            op,
                            Type::F64,
                            fm,
                            s[0],
                            s[1],
                            s.get(2).copied().unwrap_or(0),
                        )
                    })
                    .indep(move |s| {
                        let c = s.get(2).copied().unwrap_or(0);
                        oracle::f64_op(fop, m, s[0], s[1], c).into_iter().collect()
                    }),
            );
        }
    }
    // div.full / div.approx (f32): ptxjit computes them correctly rounded (inside their
    // 2-ulp bound), so the reference is div.rn; except that for 2^126 < |b| < 2^128 the
    // ISA defines div.approx as a * (1/b) with the reciprocal flushed: a zero with the
    // sign of a*b, NaN for an infinite (or NaN) a.
    for (flav, mode) in [("full", DivMode::Full), ("approx", DivMode::Approx)] {
        for ftz in [false, true] {
            let text = format!("div.{flav}{}.f32", if ftz { ".ftz" } else { "" });
            let fm = FloatMode {
                rnd: None,
                ftz,
                sat: false,
            };
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(Reg::R, gen::f32())
                    .src(Reg::R, gen::f32_near(0))
                    .dst(Reg::R)
                    .ops1(move |s| ops::arith(ArithOp::Div(mode), Type::F32, fm, s[0], s[1], 0))
                    .indep1(move |s| {
                        let (a, b) = (s[0] as u32, s[1] as u32);
                        let big_b = (0x7e80_0001..0x7f80_0000).contains(&(b & 0x7fff_ffff));
                        if mode == DivMode::Approx && big_b {
                            let a = if ftz { F32.flush(a as u64) as u32 } else { a };
                            return if F32.is_nan(a as u64) || F32.is_inf(a as u64) {
                                F32.nan()
                            } else {
                                ((a ^ b) & 0x8000_0000) as u64
                            };
                        }
                        oracle::f32_op(FOp::Div, Mode::Rn, ftz, false, a, b, 0) as u64
                    }),
            );
        }
    }
    v
}

/// `sqrt rcp` in every rounding mode and the `.approx` functions (`sqrt rcp rsqrt sin
/// cos lg2 ex2 tanh`; ops only for those: their result is ptxjit's choice within a
/// bound, checked in `tests/sfu.rs`).
pub fn sfu_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for (opn, op, fop) in [
        ("sqrt", SfuOp::Sqrt, FOp::Sqrt),
        ("rcp", SfuOp::Rcp, FOp::Rcp),
    ] {
        for (mode, rs) in MODES {
            for ftz in [false, true] {
                let text = format!("{opn}.{rs}{}.f32", if ftz { ".ftz" } else { "" });
                let rnd = Some(rnd_of(mode));
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}};"))
                        .src(Reg::R, gen::f32())
                        .dst(Reg::R)
                        .ops1(move |s| ops::float::sfu(op, Type::F32, false, rnd, ftz, s[0]))
                        .indep1(move |s| {
                            oracle::f32_op(fop, mode, ftz, false, s[0] as u32, 0, 0) as u64
                        }),
                );
            }
            let text = format!("{opn}.{rs}.f64");
            let rnd = Some(rnd_of(mode));
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(Reg::D, gen::f64())
                    .dst(Reg::D)
                    .ops1(move |s| ops::float::sfu(op, Type::F64, false, rnd, false, s[0]))
                    .indep(move |s| oracle::f64_op(fop, mode, s[0], 0, 0).into_iter().collect()),
            );
        }
    }
    let approx = [
        ("sqrt", SfuOp::Sqrt),
        ("rcp", SfuOp::Rcp),
        ("rsqrt", SfuOp::Rsqrt),
        ("sin", SfuOp::Sin),
        ("cos", SfuOp::Cos),
        ("lg2", SfuOp::Lg2),
        ("ex2", SfuOp::Ex2),
        ("tanh", SfuOp::Tanh),
    ];
    for (opn, op) in approx {
        for ftz in [false, true] {
            if ftz && op == SfuOp::Tanh {
                continue;
            }
            let text = format!("{opn}.approx{}.f32", if ftz { ".ftz" } else { "" });
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(Reg::R, gen::f32())
                    .dst(Reg::R)
                    .ops1(move |s| ops::float::sfu(op, Type::F32, true, None, ftz, s[0])),
            );
        }
    }
    v.push(
        Form::new("rsqrt.approx.f64", "rsqrt.approx.f64 {d}, {a};")
            .src(Reg::D, gen::f64())
            .dst(Reg::D)
            .ops1(|s| ops::float::sfu(SfuOp::Rsqrt, Type::F64, true, None, false, s[0])),
    );
    v
}

/// `min max` (plain, `.ftz`, `.NaN`, `.xorsign.abs`), `abs neg` (`.ftz`), `copysign`,
/// `testp`.
pub fn sign_minmax_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for max in [false, true] {
        let opn = if max { "max" } else { "min" };
        let op = if max { ArithOp::Max } else { ArithOp::Min };
        for ftz in [false, true] {
            for (nan, xs) in [(false, false), (true, false), (false, true), (true, true)] {
                let text = format!(
                    "{opn}{}{}{}.f32",
                    if ftz { ".ftz" } else { "" },
                    if nan { ".NaN" } else { "" },
                    if xs { ".xorsign.abs" } else { "" }
                );
                let mm = MinMaxOp {
                    max,
                    ftz,
                    nan,
                    xorsign_abs: xs,
                    relu: false,
                    packed: false,
                };
                let plain = !nan && !xs;
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                        .src(Reg::R, gen::f32())
                        .src(Reg::R, gen::f32_near(0))
                        .dst(Reg::R)
                        .ops1(move |s| {
                            if plain {
                                let fm = FloatMode {
                                    ftz,
                                    ..Default::default()
                                };
                                ops::arith(op, Type::F32, fm, s[0], s[1], 0)
                            } else {
                                ops::float::minmax(mm, Type::F32, s[0], s[1])
                            }
                        })
                        .indep1(move |s| {
                            let fl = |x: u64| if ftz { F32.flush(x) } else { x };
                            let (a, b) = (fl(s[0]), fl(s[1]));
                            let sign = (a ^ b) & F32.sign();
                            let (a, b) = if xs {
                                (a & !F32.sign(), b & !F32.sign())
                            } else {
                                (a, b)
                            };
                            if nan && (F32.is_nan(a) || F32.is_nan(b)) {
                                return F32.nan();
                            }
                            let r = oracle::fminmax(F32, max, a, b);
                            if xs && !F32.is_nan(r) {
                                (r & !F32.sign()) | sign
                            } else {
                                r
                            }
                        }),
                );
            }
        }
        let text = format!("{opn}.f64");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(Reg::D, gen::f64())
                .src(Reg::D, gen::f64_near(0))
                .dst(Reg::D)
                .ops1(move |s| ops::arith(op, Type::F64, FloatMode::default(), s[0], s[1], 0))
                .indep1(move |s| oracle::fminmax(F64, max, s[0], s[1])),
        );
    }
    for (opn, op) in [("abs", ArithOp::Abs), ("neg", ArithOp::Neg)] {
        for ftz in [false, true] {
            let text = format!("{opn}{}.f32", if ftz { ".ftz" } else { "" });
            let fm = FloatMode {
                ftz,
                ..Default::default()
            };
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(Reg::R, gen::f32())
                    .dst(Reg::R)
                    .ops1(move |s| ops::arith(op, Type::F32, fm, s[0], 0, 0))
                    .indep1(move |s| {
                        let a = if ftz { F32.flush(s[0]) } else { s[0] };
                        // A NaN gives the canonical NaN, as on an H100 (tests/golden).
                        if f32::from_bits(a as u32).is_nan() {
                            0x7fff_ffff
                        } else if op == ArithOp::Abs {
                            a & !F32.sign()
                        } else {
                            a ^ F32.sign()
                        }
                    }),
            );
        }
        let text = format!("{opn}.f64");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}};"))
                .src(Reg::D, gen::f64())
                .dst(Reg::D)
                .ops1(move |s| ops::arith(op, Type::F64, FloatMode::default(), s[0], 0, 0))
                .indep1(move |s| {
                    // A NaN passes through quieted, as on an H100 (tests/golden).
                    if f64::from_bits(s[0]).is_nan() {
                        s[0] | 1 << 51
                    } else if op == ArithOp::Abs {
                        s[0] & !F64.sign()
                    } else {
                        s[0] ^ F64.sign()
                    }
                }),
        );
    }
    for (t, r, f, g) in [
        (Type::F32, Reg::R, F32, gen::f32()),
        (Type::F64, Reg::D, F64, gen::f64()),
    ] {
        let n = t.name();
        v.push(
            Form::new(
                format!("copysign.{n}"),
                format!("copysign.{n} {{d}}, {{a}}, {{b}};"),
            )
            .src(r, g.clone())
            .src(r, g.clone())
            .dst(r)
            .ops1(move |s| ops::float::copysign(t, s[0], s[1]))
            .indep1(move |s| (s[1] & !f.sign()) | (s[0] & f.sign())),
        );
        for (tn, op) in [
            ("finite", TestpOp::Finite),
            ("infinite", TestpOp::Infinite),
            ("number", TestpOp::Number),
            ("notanumber", TestpOp::NotANumber),
            ("normal", TestpOp::Normal),
            ("subnormal", TestpOp::Subnormal),
        ] {
            let text = format!("testp.{tn}.{n}");
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(r, g.clone())
                    .dst(Reg::P)
                    .ops1(move |s| ops::float::testp(op, t, s[0]) as u64)
                    .indep1(move |s| {
                        let x = f.to_f64(s[0]);
                        (match tn {
                            "finite" => x.is_finite(),
                            "infinite" => x.is_infinite(),
                            "number" => !x.is_nan(),
                            "notanumber" => x.is_nan(),
                            // The ISA counts zeros as normal.
                            "normal" => x.is_finite() && !f.is_subnormal(s[0]),
                            _ => f.is_subnormal(s[0]),
                        }) as u64
                    }),
            );
        }
    }
    v
}

pub const FCMPS: [(&str, CmpOp); 14] = [
    ("eq", CmpOp::Eq),
    ("ne", CmpOp::Ne),
    ("lt", CmpOp::Lt),
    ("le", CmpOp::Le),
    ("gt", CmpOp::Gt),
    ("ge", CmpOp::Ge),
    ("equ", CmpOp::Equ),
    ("neu", CmpOp::Neu),
    ("ltu", CmpOp::Ltu),
    ("leu", CmpOp::Leu),
    ("gtu", CmpOp::Gtu),
    ("geu", CmpOp::Geu),
    ("num", CmpOp::Num),
    ("nan", CmpOp::Nan),
];

/// `setp` (`p|q`, combined with `.and/.or/.xor` and `{!}c`) and `set` (`.u32 .s32 .f32`
/// destinations) on f32 (with and without `.ftz`) and f64.
pub fn compare_forms() -> Vec<Form> {
    let mut v = Vec::new();
    let mut i = 0usize;
    for (t, ftz) in [(Type::F32, false), (Type::F32, true), (Type::F64, false)] {
        let (r, f, g, near) = if t == Type::F32 {
            (Reg::R, F32, gen::f32(), gen::f32_near(0))
        } else {
            (Reg::D, F64, gen::f64(), gen::f64_near(0))
        };
        let fz = if ftz { ".ftz" } else { "" };
        let n = t.name();
        for (c, cmp) in FCMPS {
            i += 1;
            let val = move |x: u64| f.to_f64(if ftz { f.flush(x) } else { x });
            let text = format!("setp.{c}{fz}.{n}");
            v.push(
                Form::new(&text, format!("{text} {{d}}|{{q}}, {{a}}, {{b}};"))
                    .src(r, g.clone())
                    .src(r, near.clone())
                    .dst(Reg::P)
                    .dst(Reg::P)
                    .ops(move |s| {
                        let p = ops::setp(cmp, t, ftz, s[0], s[1]) as u64;
                        vec![p, p ^ 1]
                    })
                    .indep(move |s| {
                        let p = fcmp(c, val(s[0]), val(s[1])) as u64;
                        vec![p, p ^ 1]
                    }),
            );
            let (bn, bop) = [
                ("and", BoolOp::And),
                ("or", BoolOp::Or),
                ("xor", BoolOp::Xor),
            ][i % 3];
            let neg = i.is_multiple_of(2);
            let bang = if neg { "!" } else { "" };
            let text = format!("setp.{c}.{bn}{fz}.{n}");
            v.push(
                Form::new(
                    &text,
                    format!("{text} {{d}}|{{q}}, {{a}}, {{b}}, {bang}{{c}};"),
                )
                .src(r, g.clone())
                .src(r, near.clone())
                .src(Reg::P, gen::pred())
                .dst(Reg::P)
                .dst(Reg::P)
                .ops(move |s| {
                    let p = ops::setp(cmp, t, ftz, s[0], s[1]);
                    let c = (s[2] != 0) ^ neg;
                    vec![
                        super::int::bool_op(bop, p, c) as u64,
                        super::int::bool_op(bop, !p, c) as u64,
                    ]
                })
                .indep(move |s| {
                    let p = fcmp(c, val(s[0]), val(s[1]));
                    let c = (s[2] != 0) ^ neg;
                    vec![
                        super::int::bool_op(bop, p, c) as u64,
                        super::int::bool_op(bop, !p, c) as u64,
                    ]
                }),
            );
            let dty = [Type::U32, Type::S32, Type::F32][i % 3];
            let text = format!("set.{c}{fz}.{}.{n}", dty.name());
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(r, g.clone())
                    .src(r, near.clone())
                    .dst(Reg::R)
                    .ops1(move |s| ops::set_value(dty, ops::setp(cmp, t, ftz, s[0], s[1])))
                    .indep1(move |s| match (fcmp(c, val(s[0]), val(s[1])), dty) {
                        (false, _) => 0,
                        (true, Type::F32) => 0x3f80_0000,
                        _ => 0xffff_ffff,
                    }),
            );
        }
    }
    v
}

/// Immediate float operands: hex (`0f...`, `0d...`, NaN payloads and subnormals
/// included) and decimal literals (a double, rounded to nearest into f32 for .f32
/// instructions), as first or second operand.
pub fn immediate_forms() -> Vec<Form> {
    let mut v = Vec::new();
    // (literal, f32 bits it denotes)
    let f32_imms: [(&str, u32); 9] = [
        ("0f3F800000", 0x3f80_0000),
        ("0f80000000", 0x8000_0000),
        ("0f00000001", 0x0000_0001),
        ("0f7F7FFFFF", 0x7f7f_ffff),
        ("0fFF800000", 0xff80_0000),
        ("0f7FC01234", 0x7fc0_1234),
        ("0.1", 0x3dcc_cccd), // 0.1 rounded to nearest f32
        ("1.5", 0x3fc0_0000),
        ("1e-40", 0x0001_16c2), // a subnormal f32 (1e-40 rounded to nearest)
    ];
    for (lit, bits) in f32_imms {
        let b = bits as u64;
        for (opn, op, fop) in [
            ("add.rz", ArithOp::Add, FOp::Add),
            ("mul.rn", ArithOp::Mul(MulMode::Lo), FOp::Mul),
            ("sub.rm.ftz", ArithOp::Sub, FOp::Sub),
        ] {
            let ftz = opn.contains("ftz");
            let mode = if opn.contains("rz") {
                Mode::Rz
            } else if opn.contains("rm") {
                Mode::Rm
            } else {
                Mode::Rn
            };
            let fm = FloatMode {
                rnd: Some(rnd_of(mode)),
                ftz,
                sat: false,
            };
            let text = format!("{opn}.f32 (imm {lit})");
            v.push(
                Form::new(&text, format!("{opn}.f32 {{d}}, {{a}}, {lit};"))
                    .src(Reg::R, gen::f32())
                    .dst(Reg::R)
                    .ops1(move |s| ops::arith(op, Type::F32, fm, s[0], b, 0))
                    .indep1(move |s| {
                        oracle::f32_op(fop, mode, ftz, false, s[0] as u32, bits, 0) as u64
                    }),
            );
        }
        let text = format!("fma.rn.f32 (imm {lit} first)");
        v.push(
            Form::new(&text, format!("fma.rn.f32 {{d}}, {lit}, {{a}}, {{b}};"))
                .src(Reg::R, gen::f32())
                .src(Reg::R, gen::f32())
                .dst(Reg::R)
                .ops1(move |s| {
                    ops::arith(
                        ArithOp::Fma,
                        Type::F32,
                        FloatMode {
                            rnd: Some(Rnd::Rn),
                            ..Default::default()
                        },
                        b,
                        s[0],
                        s[1],
                    )
                })
                .indep1(move |s| {
                    oracle::f32_op(
                        FOp::Fma,
                        Mode::Rn,
                        false,
                        false,
                        bits,
                        s[0] as u32,
                        s[1] as u32,
                    ) as u64
                }),
        );
        let text = format!("min.f32 (imm {lit})");
        v.push(
            Form::new(&text, format!("min.f32 {{d}}, {{a}}, {lit};"))
                .src(Reg::R, gen::f32())
                .dst(Reg::R)
                .ops1(move |s| {
                    ops::arith(ArithOp::Min, Type::F32, FloatMode::default(), s[0], b, 0)
                })
                .indep1(move |s| oracle::fminmax(F32, false, s[0], b)),
        );
        let text = format!("setp.ltu.f32 (imm {lit})");
        v.push(
            Form::new(&text, format!("setp.ltu.f32 {{d}}, {{a}}, {lit};"))
                .src(Reg::R, gen::f32())
                .dst(Reg::P)
                .ops1(move |s| ops::setp(CmpOp::Ltu, Type::F32, false, s[0], b) as u64)
                .indep1(move |s| fcmp("ltu", F32.to_f64(s[0]), F32.to_f64(b)) as u64),
        );
    }
    let f64_imms: [(&str, u64); 6] = [
        ("0d3FF0000000000000", 0x3ff0_0000_0000_0000),
        ("0d8000000000000000", 0x8000_0000_0000_0000),
        ("0d0000000000000001", 1),
        ("0d7FF8000000000123", 0x7ff8_0000_0000_0123),
        ("0.1", 0x3fb9_9999_9999_999a),
        ("-2.5e300", 0xfe4d_dd4b_aa00_9303),
    ];
    for (lit, bits) in f64_imms {
        for (opn, op, fop, mode) in [
            ("add.rp", ArithOp::Add, FOp::Add, Mode::Rp),
            ("div.rn", ArithOp::Div(DivMode::Ieee), FOp::Div, Mode::Rn),
        ] {
            let fm = FloatMode {
                rnd: Some(rnd_of(mode)),
                ..Default::default()
            };
            let text = format!("{opn}.f64 (imm {lit} first)");
            v.push(
                Form::new(&text, format!("{opn}.f64 {{d}}, {lit}, {{a}};"))
                    .src(Reg::D, gen::f64())
                    .dst(Reg::D)
                    .ops1(move |s| ops::arith(op, Type::F64, fm, bits, s[0], 0))
                    .indep(move |s| {
                        oracle::f64_op(fop, mode, bits, s[0], 0)
                            .into_iter()
                            .collect()
                    }),
            );
        }
        let text = format!("setp.geu.f64 (imm {lit})");
        v.push(
            Form::new(&text, format!("setp.geu.f64 {{d}}, {{a}}, {lit};"))
                .src(Reg::D, gen::f64())
                .dst(Reg::P)
                .ops1(move |s| ops::setp(CmpOp::Geu, Type::F64, false, s[0], bits) as u64)
                .indep1(move |s| fcmp("geu", F64.to_f64(s[0]), F64.to_f64(bits)) as u64),
        );
    }
    v
}
