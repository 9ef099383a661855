//! Exhaustive domains: every 16-bit value against 64 edge values for the `.u16`/`.s16`
//! arithmetic (both operand orders where the operation is not symmetric), every f16 and
//! bf16 bit pattern for the unary half operations (and `x op x` for add/mul/fma), and
//! every f16/bf16 value through `cvt` to f32 and back (rounding from f32 values between
//! each pair of neighbours in every mode) once the front end takes half conversions.

use super::cvt::cvt_ref;
use super::half::{half2_ref, half_ref};
use super::int::val;
use super::oracle::{fcmp, BF16, F16};
use super::{gen, mask, Form, Reg};
use ptxjit::ir::{ArithOp, CmpOp, DivMode, FloatMode, HalfMode, HalfOp, MulMode, Rnd, Type};
use ptxjit::ops;

/// 64 edge values of 16-bit integers.
pub const EDGES: [u64; 64] = [
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256,
    257, 1000, 0x0f0f, 0x1234, 0x3fff, 0x4000, 0x4001, 0x5555, 0x7f00, 0x7ffe, 0x7fff, 0x8000,
    0x8001, 0x8002, 0x80ff, 0x9999, 0xaaaa, 0xbfff, 0xc000, 0xc001, 0xedcb, 0xf000, 0xf0f0, 0xff00,
    0xff01, 0xff7f, 0xff80, 0xff81, 0xfff0, 0xfff8, 0xfffc, 0xfffd, 0xfffe, 0xffff, 0x0100, 0x0080,
    0x00ff, 0x2000, 0x6000, 0xe000,
];

/// Lanes for "every 16-bit value x 64 edges": lane = value * 64 + edge index, so that
/// the edge operand differs between neighbouring lanes.
pub const U16_LANES: usize = 65536 * 64;

fn every_value() -> super::Gen {
    gen::by_lane(|l| (l >> 6) as u64)
}

fn edge() -> super::Gen {
    gen::by_lane(|l| EDGES[l & 63])
}

/// The forms of one 16-bit type: `(name, form)`; `swapped` puts the edge value first.
pub fn u16_forms(t: Type) -> Vec<Form> {
    let n = t.name();
    let mut v = Vec::new();
    let fm = FloatMode::default();
    let signed = t.is_signed();
    // One generator of each kind, shared by every form (one input slot each).
    let (every, edges) = (every_value(), edge());
    let mut ops: Vec<(&str, ArithOp, bool)> = vec![
        ("mul.hi", ArithOp::Mul(MulMode::Hi), false),
        ("mul.wide", ArithOp::Mul(MulMode::Wide), false),
        ("div", ArithOp::Div(DivMode::Ieee), false),
        ("div", ArithOp::Div(DivMode::Ieee), true),
        ("rem", ArithOp::Rem, false),
        ("rem", ArithOp::Rem, true),
        ("min", ArithOp::Min, false),
        ("max", ArithOp::Max, false),
    ];
    if !signed {
        // add/sub/mul.lo give the same bits for both signednesses.
        ops.extend([
            ("add", ArithOp::Add, false),
            ("sub", ArithOp::Sub, false),
            ("sub", ArithOp::Sub, true),
            ("mul.lo", ArithOp::Mul(MulMode::Lo), false),
        ]);
    }
    for (opn, op, swapped) in ops {
        let text = format!("{opn}.{n}");
        let srcs = if swapped { "{b}, {a}" } else { "{a}, {b}" };
        let wide = op == ArithOp::Mul(MulMode::Wide);
        let name = format!("{text}{}", if swapped { " (edge first)" } else { "" });
        let order = move |s: &[u64]| if swapped { (s[1], s[0]) } else { (s[0], s[1]) };
        v.push(
            Form::new(name, format!("{text} {{d}}, {srcs};"))
                .src_shared(Reg::H, every.clone())
                .src_shared(Reg::H, edges.clone())
                .dst(if wide { Reg::R } else { Reg::H })
                .ops1(move |s| {
                    let (a, b) = order(s);
                    ops::arith(op, t, fm, a, b, 0)
                })
                .indep1(move |s| {
                    let (a, b) = order(s);
                    let (x, y) = (val(t, a), val(t, b));
                    let r = match op {
                        ArithOp::Mul(MulMode::Hi) => (x * y) >> 16,
                        ArithOp::Mul(MulMode::Wide) => return (x * y) as u128 as u64 & mask(32),
                        ArithOp::Mul(_) => x * y,
                        ArithOp::Add => x + y,
                        ArithOp::Sub => x - y,
                        ArithOp::Div(_) if y == 0 => -1,
                        ArithOp::Div(_) => x / y, // -32768 / -1 = 32768 wraps to itself
                        ArithOp::Rem if y == 0 => -1, // all ones, as on an H100 (tests/golden)
                        ArithOp::Rem => x % y,
                        ArithOp::Min => x.min(y),
                        _ => x.max(y),
                    };
                    r as u128 as u64 & mask(16)
                }),
        );
    }
    // sad and a comparison (p|q gives lt and ge).
    let text = format!("sad.{n}");
    v.push(
        Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{b}};"))
            .src_shared(Reg::H, every.clone())
            .src_shared(Reg::H, edges.clone())
            .dst(Reg::H)
            .ops1(move |s| ops::int::sad(16, signed, s[0], s[1], s[1]))
            .indep1(move |s| {
                let d = (val(t, s[0]) - val(t, s[1])).abs();
                (val(t, s[1]) + d) as u128 as u64 & mask(16)
            }),
    );
    let text = format!("setp.lt.{n}");
    v.push(
        Form::new(&text, format!("{text} {{d}}|{{q}}, {{a}}, {{b}};"))
            .src_shared(Reg::H, every.clone())
            .src_shared(Reg::H, edges.clone())
            .dst(Reg::P)
            .dst(Reg::P)
            .ops(move |s| {
                let p = ops::setp(CmpOp::Lt, t, false, s[0], s[1]) as u64;
                vec![p, p ^ 1]
            })
            .indep(move |s| {
                let p = (val(t, s[0]) < val(t, s[1])) as u64;
                vec![p, p ^ 1]
            }),
    );
    v
}

/// Unary half operations (and `x op x`) on every bit pattern: 65,536 lanes; the packed
/// forms get the lane's value in the low half and its negation in the high half.
pub fn half_unary_forms() -> Vec<Form> {
    let mut v = Vec::new();
    let m = |ftz: bool| HalfMode {
        ftz,
        ..Default::default()
    };
    // (type, text, op, mode, operands as "a", "a, a" or "a, a, a", independent?)
    let list: Vec<(Type, String, HalfOp, HalfMode, usize, bool)> = vec![
        (Type::F16, "neg.f16".into(), HalfOp::Neg, m(false), 1, true),
        (
            Type::F16,
            "neg.ftz.f16".into(),
            HalfOp::Neg,
            m(true),
            1,
            true,
        ),
        (Type::F16, "abs.f16".into(), HalfOp::Abs, m(false), 1, true),
        (
            Type::F16,
            "abs.ftz.f16".into(),
            HalfOp::Abs,
            m(true),
            1,
            true,
        ),
        (
            Type::F16,
            "ex2.approx.f16".into(),
            HalfOp::Ex2,
            m(false),
            1,
            false,
        ),
        (
            Type::F16,
            "tanh.approx.f16".into(),
            HalfOp::Tanh,
            m(false),
            1,
            false,
        ),
        (Type::F16, "add.f16".into(), HalfOp::Add, m(false), 2, true),
        (
            Type::F16,
            "mul.rn.ftz.f16".into(),
            HalfOp::Mul,
            m(true),
            2,
            true,
        ),
        (Type::F16, "mul.f16".into(), HalfOp::Mul, m(false), 2, true),
        (
            Type::F16,
            "fma.rn.f16".into(),
            HalfOp::Fma,
            m(false),
            3,
            true,
        ),
        (
            Type::F16x2,
            "neg.ftz.f16x2".into(),
            HalfOp::Neg,
            m(true),
            1,
            true,
        ),
        (
            Type::F16x2,
            "ex2.approx.f16x2".into(),
            HalfOp::Ex2,
            m(false),
            1,
            false,
        ),
        (
            Type::F16x2,
            "tanh.approx.f16x2".into(),
            HalfOp::Tanh,
            m(false),
            1,
            false,
        ),
        (
            Type::F16x2,
            "fma.rn.sat.f16x2".into(),
            HalfOp::Fma,
            HalfMode {
                sat: true,
                ..m(false)
            },
            3,
            true,
        ),
        (
            Type::BF16,
            "neg.bf16".into(),
            HalfOp::Neg,
            m(false),
            1,
            true,
        ),
        (
            Type::BF16,
            "abs.bf16".into(),
            HalfOp::Abs,
            m(false),
            1,
            true,
        ),
        (
            Type::BF16,
            "ex2.approx.ftz.bf16".into(),
            HalfOp::Ex2,
            m(true),
            1,
            false,
        ),
        (
            Type::BF16,
            "tanh.approx.bf16".into(),
            HalfOp::Tanh,
            m(false),
            1,
            false,
        ),
        (
            Type::BF16,
            "add.bf16".into(),
            HalfOp::Add,
            m(false),
            2,
            true,
        ),
        (
            Type::BF16,
            "mul.bf16".into(),
            HalfOp::Mul,
            m(false),
            2,
            true,
        ),
        (
            Type::BF16,
            "fma.rn.relu.bf16".into(),
            HalfOp::Fma,
            HalfMode {
                relu: true,
                ..m(false)
            },
            3,
            true,
        ),
        (
            Type::BF16x2,
            "abs.bf16x2".into(),
            HalfOp::Abs,
            m(false),
            1,
            true,
        ),
        (
            Type::BF16x2,
            "ex2.approx.ftz.bf16x2".into(),
            HalfOp::Ex2,
            m(true),
            1,
            false,
        ),
        (
            Type::BF16x2,
            "tanh.approx.bf16x2".into(),
            HalfOp::Tanh,
            m(false),
            1,
            false,
        ),
    ];
    for (ty, text, op, mode, arity, indep) in list {
        let packed = matches!(ty, Type::F16x2 | Type::BF16x2);
        let f = if matches!(ty, Type::BF16 | Type::BF16x2) {
            BF16
        } else {
            F16
        };
        let r = if packed { Reg::R } else { Reg::H };
        let g = if packed {
            gen::by_lane(|l| l as u64 | ((l as u64 ^ 0x8000) << 16))
        } else {
            gen::lane(0)
        };
        let args = ["{a}", "{a}, {a}", "{a}, {a}, {a}"][arity - 1];
        let mut form = Form::new(&text, format!("{text} {{d}}, {args};"))
            .src(r, g)
            .dst(r)
            .ops1(move |s| ops::half::eval(op, ty, mode, s[0], s[0], s[0]));
        if indep {
            form = form.indep1(move |s| {
                if packed {
                    half2_ref(f, op, mode, s[0], s[0], s[0])
                } else {
                    half_ref(f, op, mode, s[0], s[0], s[0])
                }
            });
        }
        v.push(form);
    }
    // Every f16 against its neighbours and specials in a comparison.
    for (ty, f) in [(Type::F16, F16), (Type::BF16, BF16)] {
        let text = format!("setp.ltu.{}", ty.name());
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(Reg::H, gen::lane(0))
                .src(
                    Reg::H,
                    gen::by_lane(|l| {
                        (l as u64).wrapping_add((l as u64 % 3).wrapping_sub(1)) & 0xffff
                    }),
                )
                .dst(Reg::P)
                .ops1(move |s| ops::setp(CmpOp::Ltu, ty, false, s[0], s[1]) as u64)
                .indep1(move |s| fcmp("ltu", f.to_f64(s[0]), f.to_f64(s[1])) as u64),
        );
    }
    v
}

/// `cvt` between every f16/bf16 value and f32/f64, both ways: the widening of every
/// value, the round trip back (`cvt.rn`), and every rounding mode on f32 values between
/// each value and the next (16 lanes per value: 65536 * 16 lanes in all, in one suite).
pub fn half_cvt_forms() -> (Vec<Form>, Vec<Form>) {
    let mut wide = Vec::new();
    let mut narrow = Vec::new();
    for (ht, f) in [(Type::F16, F16), (Type::BF16, BF16)] {
        let h = ht.name();
        for wt in [Type::F32, Type::F64] {
            let w = wt.name();
            let wr = if wt == Type::F32 { Reg::R } else { Reg::D };
            let text = format!("cvt.{w}.{h}");
            wide.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(Reg::H, gen::lane(0))
                    .dst(wr)
                    .ops1(move |s| ops::cvt(wt, ht, None, false, false, s[0]))
                    .indep1(move |s| cvt_ref(wt, ht, None, false, false, s[0])),
            );
            let text = format!("cvt.{w}.{h} + cvt.rn.{h}.{w}");
            let reg = if wt == Type::F32 {
                ".reg .b32 %cvt_t;"
            } else {
                ".reg .b64 %cvt_t;"
            };
            wide.push(
                Form::new(
                    &text,
                    format!(
                        "{{\n{reg}\ncvt.{w}.{h} %cvt_t, {{a}};\ncvt.rn.{h}.{w} {{d}}, %cvt_t;\n}}"
                    ),
                )
                .src(Reg::H, gen::lane(0))
                .dst(Reg::H)
                .ops1(move |s| {
                    ops::cvt(
                        ht,
                        wt,
                        Some(Rnd::Rn),
                        false,
                        false,
                        ops::cvt(wt, ht, None, false, false, s[0]),
                    )
                })
                .indep1(move |s| if f.is_nan(s[0]) { f.nan() } else { s[0] }),
            );
        }
        // f32 values from each half value towards the next (same sign): 16 offsets per
        // value, in f32 ulps, around the rounding tie (q/2) and the ends, three of them
        // pseudo-random (q = 2^(24 - p) f32 ulps is one ulp of the half format).
        for (rn, rnd) in [
            ("rn", Rnd::Rn),
            ("rz", Rnd::Rz),
            ("rm", Rnd::Rm),
            ("rp", Rnd::Rp),
        ] {
            let text = format!("cvt.{rn}.{h}.f32");
            let p = f.p;
            let g = gen::by_lane(move |l| {
                let x = (l >> 4) as u64;
                let q = 1u64 << (24 - p);
                let mix = (l as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                let offsets = [
                    0,
                    1,
                    2,
                    q / 8,
                    q / 4,
                    q / 2 - 2,
                    q / 2 - 1,
                    q / 2,
                    q / 2 + 1,
                    q / 2 + 2,
                    3 * q / 4,
                    q - 2,
                    q - 1,
                    mix % q,
                    (mix >> 8) % q,
                    (mix >> 16) % q,
                ];
                half_to_f32_bits(x, p) + offsets[l & 15]
            });
            narrow.push(
                Form::new(&text, format!("{text} {{d}}, {{a}};"))
                    .src(Reg::R, g)
                    .dst(Reg::H)
                    .ops1(move |s| ops::cvt(ht, Type::F32, Some(rnd), false, false, s[0]))
                    .indep1(move |s| cvt_ref(ht, Type::F32, Some(rnd), false, false, s[0])),
            );
        }
    }
    (wide, narrow)
}

/// The f32 bits of a half value `x` (format with `p` significand bits), for inputs: the
/// bits placed into an f32 pattern (exact for normal values; NaNs and infinities become
/// values near the top of the f32 range, which are inputs all the same).
fn half_to_f32_bits(x: u64, p: u32) -> u64 {
    if p == 8 {
        return x << 16;
    }
    let bits = ::half::f16::from_bits(x as u16).to_f32().to_bits() as u64;
    if bits & 0x7f80_0000 == 0x7f80_0000 {
        0x7f00_0000 | (x & 0x3ff) << 13 | (x & 0x8000) << 16
    } else {
        bits
    }
}
