//! Integer arithmetic, logic, shifts, comparisons and selection: the forms and their
//! references. The independent references use Rust's i128/u128 arithmetic.

use super::gen;
use super::{mask, sx, Form, Gen, Reg};
use ptxjit::ir::{ArithOp, BoolOp, CmpOp, FloatMode, MulMode, Type};
use ptxjit::ops;

pub const INT_TYPES: [Type; 6] = [
    Type::U16,
    Type::S16,
    Type::U32,
    Type::S32,
    Type::U64,
    Type::S64,
];

/// The register that holds a value of `t`.
pub fn reg(t: Type) -> Reg {
    match t.bits() {
        1 => Reg::P,
        8 | 16 => Reg::H,
        32 => Reg::R,
        _ => Reg::D,
    }
}

fn int_gen(t: Type) -> Gen {
    gen::int(t.bits())
}

/// The value of `v` as an integer of type `t`.
pub fn val(t: Type, v: u64) -> i128 {
    let w = t.bits();
    if t.is_signed() {
        sx(v, w) as i128
    } else {
        (v & mask(w)) as i128
    }
}

fn fm() -> FloatMode {
    FloatMode::default()
}

/// `op.t d, a, b` (or one source for unary ops) with the ops reference and `indep`.
fn binary(
    text: &str,
    t: Type,
    op: ArithOp,
    gb: Gen,
    indep: impl Fn(i128, i128) -> i128 + Send + Sync + 'static,
) -> Form {
    let w = t.bits();
    let r = reg(t);
    let unary = op.arity() == 1;
    let opcode = text.split(" (").next().unwrap_or(text);
    let body = if unary {
        format!("{opcode} {{d}}, {{a}};")
    } else {
        format!("{opcode} {{d}}, {{a}}, {{b}};")
    };
    let mut f = Form::new(text, body).src(r, int_gen(t));
    if !unary {
        f = f.src(
            if matches!(op, ArithOp::Shl | ArithOp::Shr) {
                Reg::R
            } else {
                r
            },
            gb,
        );
    }
    let shift = matches!(op, ArithOp::Shl | ArithOp::Shr);
    f.dst(r)
        .ops1(move |s| ops::arith(op, t, fm(), s[0], s.get(1).copied().unwrap_or(0), 0))
        .indep1(move |s| {
            let a = val(t, s[0]);
            let b = match s.get(1) {
                Some(&b) if shift => b as i128,
                Some(&b) => val(t, b),
                None => 0,
            };
            (indep(a, b) as u128 as u64) & mask(w)
        })
}

fn div_ref(t: Type) -> impl Fn(i128, i128) -> i128 + Send + Sync {
    let w = t.bits();
    move |a, b| {
        if b == 0 {
            -1 // all ones, as an H100 gives (tests/golden; PTX leaves it unspecified)
        } else if t.is_signed() && a == -(1i128 << (w - 1)) && b == -1 {
            a // MIN / -1 wraps
        } else {
            a / b // truncates toward zero
        }
    }
}

fn rem_ref(_t: Type) -> impl Fn(i128, i128) -> i128 + Send + Sync {
    // x % 0 is all ones on an H100 (tests/golden; PTX leaves it unspecified)
    move |a, b| if b == 0 { -1 } else { a % b }
}

/// add sub mul.{lo,hi,wide} mad.{lo,hi,wide} div rem min max abs neg on every integer type,
/// with register and immediate operands.
pub fn arith_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for t in INT_TYPES {
        let n = t.name();
        let w = t.bits();
        let g = int_gen(t);
        v.push(binary(
            &format!("add.{n}"),
            t,
            ArithOp::Add,
            g.clone(),
            |a, b| a + b,
        ));
        v.push(binary(
            &format!("sub.{n}"),
            t,
            ArithOp::Sub,
            g.clone(),
            |a, b| a - b,
        ));
        v.push(binary(
            &format!("mul.lo.{n}"),
            t,
            ArithOp::Mul(MulMode::Lo),
            g.clone(),
            |a, b| a.wrapping_mul(b),
        ));
        v.push(binary(
            &format!("mul.hi.{n}"),
            t,
            ArithOp::Mul(MulMode::Hi),
            g.clone(),
            move |a, b| a.wrapping_mul(b) >> w,
        ));
        v.push(binary(
            &format!("div.{n}"),
            t,
            ArithOp::Div(ptxjit::ir::DivMode::Ieee),
            g.clone(),
            div_ref(t),
        ));
        v.push(binary(
            &format!("rem.{n}"),
            t,
            ArithOp::Rem,
            g.clone(),
            rem_ref(t),
        ));
        v.push(binary(
            &format!("min.{n}"),
            t,
            ArithOp::Min,
            g.clone(),
            |a, b| a.min(b),
        ));
        v.push(binary(
            &format!("max.{n}"),
            t,
            ArithOp::Max,
            g.clone(),
            |a, b| a.max(b),
        ));
        if t.is_signed() {
            v.push(binary(
                &format!("abs.{n}"),
                t,
                ArithOp::Abs,
                g.clone(),
                |a, _| a.abs(),
            ));
            v.push(binary(
                &format!("neg.{n}"),
                t,
                ArithOp::Neg,
                g.clone(),
                |a, _| -a,
            ));
        }
        // mad.lo / mad.hi: a * b + c in the type's width.
        for (mode, hi) in [(MulMode::Lo, false), (MulMode::Hi, true)] {
            let text = format!("mad.{}.{n}", if hi { "hi" } else { "lo" });
            let r = reg(t);
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                    .src(r, g.clone())
                    .src(r, g.clone())
                    .src(r, g.clone())
                    .dst(r)
                    .ops1(move |s| ops::arith(ArithOp::Mad(mode), t, fm(), s[0], s[1], s[2]))
                    .indep1(move |s| {
                        let p = val(t, s[0]).wrapping_mul(val(t, s[1]));
                        let p = if hi { p >> w } else { p };
                        (p.wrapping_add(val(t, s[2])) as u128 as u64) & mask(w)
                    }),
            );
        }
        // .wide forms (16 and 32 bits): a 2w-bit product (+ a 2w-bit addend).
        if w <= 32 {
            let wt = t.widened().unwrap();
            let (r, rw) = (reg(t), reg(wt));
            let text = format!("mul.wide.{n}");
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(r, g.clone())
                    .src(r, g.clone())
                    .dst(rw)
                    .ops1(move |s| ops::arith(ArithOp::Mul(MulMode::Wide), t, fm(), s[0], s[1], 0))
                    .indep1(move |s| (val(t, s[0]) * val(t, s[1])) as u128 as u64 & mask(2 * w)),
            );
            let text = format!("mad.wide.{n}");
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                    .src(r, g.clone())
                    .src(r, g.clone())
                    .src(rw, gen::int(2 * w))
                    .dst(rw)
                    .ops1(move |s| {
                        ops::arith(ArithOp::Mad(MulMode::Wide), t, fm(), s[0], s[1], s[2])
                    })
                    .indep1(move |s| {
                        let p = val(t, s[0]) * val(t, s[1]);
                        (p.wrapping_add(s[2] as i128) as u128 as u64) & mask(2 * w)
                    }),
            );
            // Multiplication by power-of-two immediates (the JIT turns them into shifts).
            for k in [1u32, 4, w - 2, w - 1] {
                let imm = 1u64 << k;
                let text = format!("mul.wide.{n} (imm {imm})");
                v.push(
                    Form::new(&text, format!("mul.wide.{n} {{d}}, {{a}}, {imm};"))
                        .src(r, g.clone())
                        .dst(rw)
                        .ops1(move |s| {
                            ops::arith(ArithOp::Mul(MulMode::Wide), t, fm(), s[0], imm, 0)
                        })
                        .indep1(move |s| (val(t, s[0]) * val(t, imm)) as u128 as u64 & mask(2 * w)),
                );
            }
        }
        // Immediate operands: mul.lo by powers of two (shifts in the JIT), add/min by
        // constants, div/rem by constants (including 0 and -1).
        let r = reg(t);
        let imms: Vec<u64> = vec![1, 2, 8, 1 << (w - 2), 1 << (w - 1), 3, 0, mask(w), 7];
        for imm in imms {
            for (opn, op) in [
                ("mul.lo", ArithOp::Mul(MulMode::Lo)),
                ("add", ArithOp::Add),
                ("div", ArithOp::Div(ptxjit::ir::DivMode::Ieee)),
                ("rem", ArithOp::Rem),
                ("max", ArithOp::Max),
            ] {
                // PTX immediates are 64-bit two's complement: write signed types' negative
                // constants as such.
                let lit = if t.is_signed() {
                    format!("{}", sx(imm, w))
                } else {
                    format!("{imm}")
                };
                let text = format!("{opn}.{n} (imm {lit})");
                let f: Box<dyn Fn(i128, i128) -> i128 + Send + Sync> = match op {
                    ArithOp::Mul(_) => Box::new(|a, b| a.wrapping_mul(b)),
                    ArithOp::Add => Box::new(|a, b| a + b),
                    ArithOp::Div(_) => Box::new(div_ref(t)),
                    ArithOp::Rem => Box::new(rem_ref(t)),
                    _ => Box::new(|a, b| a.max(b)),
                };
                v.push(
                    Form::new(&text, format!("{opn}.{n} {{d}}, {{a}}, {lit};"))
                        .src(r, g.clone())
                        .dst(r)
                        .ops1(move |s| ops::arith(op, t, fm(), s[0], imm, 0))
                        .indep1(move |s| (f(val(t, s[0]), val(t, imm)) as u128 as u64) & mask(w)),
                );
            }
        }
    }
    v
}

/// and/or/xor/not on .b16/.b32/.b64 and .pred; shl/shr with per-lane, warp-uniform and
/// immediate amounts on every bit and integer type.
pub fn logic_shift_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for t in [Type::B16, Type::B32, Type::B64] {
        let n = t.name();
        let g = gen::int(t.bits());
        v.push(binary(
            &format!("and.{n}"),
            t,
            ArithOp::And,
            g.clone(),
            |a, b| a & b,
        ));
        v.push(binary(
            &format!("or.{n}"),
            t,
            ArithOp::Or,
            g.clone(),
            |a, b| a | b,
        ));
        v.push(binary(
            &format!("xor.{n}"),
            t,
            ArithOp::Xor,
            g.clone(),
            |a, b| a ^ b,
        ));
        v.push(binary(
            &format!("not.{n}"),
            t,
            ArithOp::Not,
            g.clone(),
            |a, _| !a,
        ));
    }
    for (opn, op) in [
        ("and", ArithOp::And),
        ("or", ArithOp::Or),
        ("xor", ArithOp::Xor),
        ("not", ArithOp::Not),
    ] {
        let text = format!("{opn}.pred");
        let unary = op == ArithOp::Not;
        let body = if unary {
            format!("{text} {{d}}, {{a}};")
        } else {
            format!("{text} {{d}}, {{a}}, {{b}};")
        };
        let mut f = Form::new(&text, body).src(Reg::P, gen::pred());
        if !unary {
            f = f.src(Reg::P, gen::pred());
        }
        v.push(
            f.dst(Reg::P)
                .ops1(move |s| {
                    ops::arith(
                        op,
                        Type::Pred,
                        fm(),
                        s[0],
                        s.get(1).copied().unwrap_or(0),
                        0,
                    )
                })
                .indep1(move |s| {
                    let b = s.get(1).copied().unwrap_or(0);
                    match op {
                        ArithOp::And => s[0] & b,
                        ArithOp::Or => s[0] | b,
                        ArithOp::Xor => s[0] ^ b,
                        _ => s[0] ^ 1,
                    }
                }),
        );
    }
    let shl = |w: u32| {
        move |a: i128, s: i128| {
            if s >= w as i128 {
                0
            } else {
                a << s
            }
        }
    };
    let shr = |w: u32, signed: bool| {
        move |a: i128, s: i128| {
            if s >= w as i128 {
                if signed && a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> s
            }
        }
    };
    let types = [
        Type::B16,
        Type::B32,
        Type::B64,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S16,
        Type::S32,
        Type::S64,
    ];
    for t in types {
        let n = t.name();
        let w = t.bits();
        let signed = t.is_signed();
        let amounts: [(&str, Gen); 2] = [
            ("", gen::shift(w)),
            (" (uniform amount)", gen::uniform(gen::shift(w))),
        ];
        for (what, ga) in amounts {
            // shl exists on bit types only (ptxas rejects shl.u32; ptxjit accepts it).
            if t.is_bits() {
                v.push(binary(
                    &format!("shl.{n}{what}"),
                    t,
                    ArithOp::Shl,
                    ga.clone(),
                    shl(w),
                ));
            }
            if t != Type::B16 || what.is_empty() {
                v.push(binary(
                    &format!("shr.{n}{what}"),
                    t,
                    ArithOp::Shr,
                    ga,
                    shr(w, signed),
                ));
            }
        }
        for s in [
            0u64,
            1,
            w as u64 / 2 + 1,
            w as u64 - 1,
            w as u64,
            w as u64 + 1,
            255,
        ] {
            let r = reg(t);
            for (opn, op) in [("shl", ArithOp::Shl), ("shr", ArithOp::Shr)] {
                if !t.is_bits() && op == ArithOp::Shl {
                    continue;
                }
                let text = format!("{opn}.{n} (imm {s})");
                let f: Box<dyn Fn(i128, i128) -> i128 + Send + Sync> = if op == ArithOp::Shl {
                    Box::new(shl(w))
                } else {
                    Box::new(shr(w, signed))
                };
                v.push(
                    Form::new(&text, format!("{opn}.{n} {{d}}, {{a}}, {s};"))
                        .src(r, gen::int(w))
                        .dst(r)
                        .ops1(move |x| ops::arith(op, t, fm(), x[0], s, 0))
                        .indep1(move |x| (f(val(t, x[0]), s as i128) as u128 as u64) & mask(w)),
                );
            }
        }
    }
    v
}

const CMPS: [(&str, CmpOp); 6] = [
    ("eq", CmpOp::Eq),
    ("ne", CmpOp::Ne),
    ("lt", CmpOp::Lt),
    ("le", CmpOp::Le),
    ("gt", CmpOp::Gt),
    ("ge", CmpOp::Ge),
];

fn int_cmp(cmp: CmpOp, a: i128, b: i128) -> bool {
    match cmp {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        _ => a >= b,
    }
}

pub fn bool_op(b: BoolOp, x: bool, y: bool) -> bool {
    match b {
        BoolOp::And => x && y,
        BoolOp::Or => x || y,
        BoolOp::Xor => x ^ y,
    }
}

/// setp (with `p|q` and `.and/.or/.xor` with `{!}c`), set (u32/s32/f32 destinations) and
/// selp on integer and bit types.
pub fn compare_forms() -> Vec<Form> {
    let mut v = Vec::new();
    let mut types: Vec<(Type, &str, CmpOp)> = Vec::new();
    for t in INT_TYPES {
        for (c, op) in CMPS {
            types.push((t, c, op));
        }
    }
    for t in [Type::U16, Type::U32, Type::U64] {
        for (c, op) in [
            ("lo", CmpOp::Lt),
            ("ls", CmpOp::Le),
            ("hi", CmpOp::Gt),
            ("hs", CmpOp::Ge),
        ] {
            types.push((t, c, op));
        }
    }
    for t in [Type::B16, Type::B32, Type::B64] {
        for (c, op) in [("eq", CmpOp::Eq), ("ne", CmpOp::Ne)] {
            types.push((t, c, op));
        }
    }
    for (i, (t, c, cmp)) in types.into_iter().enumerate() {
        let n = t.name();
        let r = reg(t);
        let g = gen::int(t.bits());
        let near = near_int(t.bits());
        // Compare as the unsigned type for bit types (as `check` does).
        let ct = if t.is_bits() { t.to_unsigned() } else { t };
        // Plain p|q.
        let text = format!("setp.{c}.{n}");
        v.push(
            Form::new(&text, format!("{text} {{d}}|{{q}}, {{a}}, {{b}};"))
                .src(r, g.clone())
                .src(r, near.clone())
                .dst(Reg::P)
                .dst(Reg::P)
                .ops(move |s| {
                    let p = ops::setp(cmp, ct, false, s[0], s[1]) as u64;
                    vec![p, p ^ 1]
                })
                .indep(move |s| {
                    let p = int_cmp(cmp, val(ct, s[0]), val(ct, s[1])) as u64;
                    vec![p, p ^ 1]
                }),
        );
        // A combined form (rotating through and/or/xor and the negated c).
        let (bn, bop) = [
            ("and", BoolOp::And),
            ("or", BoolOp::Or),
            ("xor", BoolOp::Xor),
        ][i % 3];
        let neg = i % 2 == 1;
        let text = format!("setp.{c}.{bn}.{n}");
        let bang = if neg { "!" } else { "" };
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
                let p = ops::setp(cmp, ct, false, s[0], s[1]);
                let c = (s[2] != 0) ^ neg;
                vec![bool_op(bop, p, c) as u64, bool_op(bop, !p, c) as u64]
            })
            .indep(move |s| {
                let p = int_cmp(cmp, val(ct, s[0]), val(ct, s[1]));
                let c = (s[2] != 0) ^ neg;
                vec![bool_op(bop, p, c) as u64, bool_op(bop, !p, c) as u64]
            }),
        );
        // set with a u32, s32 or f32 destination.
        let dty = [Type::U32, Type::S32, Type::F32][i % 3];
        let text = format!("set.{c}.{}.{n}", dty.name());
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(r, g.clone())
                .src(r, near.clone())
                .dst(Reg::R)
                .ops1(move |s| ops::set_value(dty, ops::setp(cmp, ct, false, s[0], s[1])))
                .indep1(move |s| {
                    let p = int_cmp(cmp, val(ct, s[0]), val(ct, s[1]));
                    match (p, dty) {
                        (false, _) => 0,
                        (true, Type::F32) => 1f32.to_bits() as u64,
                        _ => 0xffff_ffff,
                    }
                }),
        );
    }
    // selp on every type (the predicate from a word).
    for t in [
        Type::B16,
        Type::U16,
        Type::S16,
        Type::B32,
        Type::U32,
        Type::S32,
        Type::F32,
        Type::B64,
        Type::U64,
        Type::S64,
        Type::F64,
    ] {
        let n = t.name();
        let r = reg(t);
        let text = format!("selp.{n}");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                .src(r, gen::any())
                .src(r, gen::any())
                .src(Reg::P, gen::pred())
                .dst(r)
                .indep1(|s| if s[2] != 0 { s[0] } else { s[1] }),
        );
        let text = format!("selp.{n} (negated, imm)");
        let (lit, imm) = match t {
            Type::F32 => ("0f40E00000".to_string(), 7f32.to_bits() as u64),
            Type::F64 => ("0d401C000000000000".to_string(), 7f64.to_bits()),
            _ => ("7".to_string(), 7),
        };
        v.push(
            Form::new(&text, format!("selp.{n} {{d}}, {{a}}, {lit}, !{{b}};"))
                .src(r, gen::any())
                .src(Reg::P, gen::pred())
                .dst(r)
                .indep1(move |s| if s[1] == 0 { s[0] } else { imm }),
        );
    }
    v
}

/// A second comparison operand: often equal to the first or one away from it.
fn near_int(w: u32) -> Gen {
    std::sync::Arc::new(move |r, _, prev| {
        let a = prev.first().copied().unwrap_or(0);
        match r.range(0, 6) {
            0 => a,
            1 => a.wrapping_add(1) & mask(w),
            2 => a.wrapping_sub(1) & mask(w),
            _ => gen::int_value(r, w),
        }
    })
}
