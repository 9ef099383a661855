//! Bit manipulation and packed-integer instructions (`popc clz brev bfind bfe bfi prmt
//! lop3 shf cnot mul24 mad24 sad dp4a dp2a fns bmsk szext add.sat sub.sat`), the
//! extended integer `min`/`max` (`.relu`, `.u16x2`, `.s16x2`) and the carry chain.
//! Independent references: the ISA's pseudocode transcribed bit by bit (loops over bit
//! positions, the `prmt` tables as printed), i128 arithmetic for the rest.

use super::int::{reg, val};
use super::{gen, mask, sx, Form, Gen, Reg};
use ptxjit::ir::{BitOp, CarryOp, MinMaxOp, PrmtMode, Type};
use ptxjit::ops;
use std::sync::Arc;

fn bit(v: u64, i: u32) -> u64 {
    (v >> i) & 1
}

/// `ops::int::eval` as a one-result oracle.
fn bits_ops(op: BitOp, ty: Type) -> impl Fn(&[u64]) -> u64 + Send + Sync {
    move |s| ops::int::eval(op, ty, s)
}

fn unary(
    text: String,
    op: BitOp,
    ty: Type,
    dst: Reg,
    r: impl Fn(u64) -> u64 + Send + Sync + 'static,
) -> Form {
    Form::new(&text, format!("{text} {{d}}, {{a}};"))
        .src(reg(ty), gen::int(ty.bits()))
        .dst(dst)
        .ops1(bits_ops(op, ty))
        .indep1(move |s| r(s[0]))
}

/// The ISA's bfe loop.
fn bfe_ref(w: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let msb = w - 1;
    let (pos, len) = ((b & 0xff) as u32, (c & 0xff) as u32);
    let sbit = if !signed || len == 0 {
        0
    } else {
        bit(a, (pos + len - 1).min(msb))
    };
    let mut d = 0;
    for i in 0..=msb {
        let x = if i < len && pos + i <= msb {
            bit(a, pos + i)
        } else {
            sbit
        };
        d |= x << i;
    }
    d
}

fn bfi_ref(w: u32, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let msb = w - 1;
    let (pos, len) = ((c & 0xff) as u32, (d & 0xff) as u32);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | bit(a, i) << (pos + i);
        i += 1;
    }
    f
}

fn bfind_ref(w: u32, signed: bool, shiftamt: bool, a: u64) -> u64 {
    let msb = w - 1;
    let a = if signed && bit(a, msb) == 1 {
        !a & mask(w)
    } else {
        a
    };
    let mut d = 0xffff_ffffu64;
    for i in (0..=msb).rev() {
        if bit(a, i) == 1 {
            d = i as u64;
            break;
        }
    }
    if shiftamt && d != 0xffff_ffff {
        d = msb as u64 - d;
    }
    d
}

/// The prmt mode tables as printed in the ISA: for each selector, the source byte of
/// d.b3, d.b2, d.b1, d.b0.
fn prmt_table(m: PrmtMode) -> [[u32; 4]; 4] {
    match m {
        PrmtMode::F4e => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        PrmtMode::B4e => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        PrmtMode::Rc8 => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        PrmtMode::Ecl => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        PrmtMode::Ecr => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        PrmtMode::Rc16 => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    }
}

fn prmt_ref(mode: Option<PrmtMode>, a: u64, b: u64, c: u64) -> u64 {
    let src = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let byte = |i: u32| (src >> (8 * i)) & 0xff;
    let mut d = 0;
    for k in 0..4u32 {
        let v = match mode {
            None => {
                let ctl = ((c >> (4 * k)) & 0xf) as u32;
                let v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                }
            }
            Some(m) => byte(prmt_table(m)[(c & 3) as usize][3 - k as usize]),
        };
        d |= v << (8 * k);
    }
    d
}

fn lop3_ref(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut d = 0;
    for i in 0..32 {
        let idx = bit(a, i) << 2 | bit(b, i) << 1 | bit(c, i);
        d |= ((lut as u64 >> idx) & 1) << i;
    }
    d
}

fn bmsk_ref(clamp: bool, a: u64, b: u64) -> u64 {
    let a1 = a & 0x1f;
    let mut mask0 = (!0u32 as u64) << a1 & 0xffff_ffff;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 {
        0
    } else {
        (!0u32 as u64) << sum & 0xffff_ffff
    };
    let sum_overflow = sum >= 32;
    let (mut pos_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = 0xffff_ffff;
    }
    mask0 & !mask1 & 0xffff_ffff
}

fn szext_ref(clamp: bool, signed: bool, a: u64, b: u64) -> u64 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let m = if too_large {
        0
    } else {
        (0xffff_ffffu64 << b1) & 0xffff_ffff
    };
    let sign_pos = (b1.wrapping_sub(1)) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || !signed) && bit(a, sign_pos as u32) == 1;
    ((a & !m) | if sign_bit { m } else { 0 }) & 0xffff_ffff
}

fn fns_ref(m: u64, base: u64, offset: u64) -> u64 {
    let offset = offset as u32 as i32;
    if offset == 0 {
        return if bit(m, base as u32) == 1 {
            base
        } else {
            0xffff_ffff
        };
    }
    let mut pos = base as i64;
    let mut count = offset.unsigned_abs() as i64 - 1;
    let inc = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if bit(m, pos as u32) == 1 {
            if count == 0 {
                return pos as u64;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

/// The parts of a packed word as integers: `n` parts, signed or not.
fn parts(v: u64, n: u32, signed: bool) -> Vec<i128> {
    let w = 32 / n;
    (0..n)
        .map(|i| {
            let x = (v >> (i * w)) & mask(w);
            if signed {
                sx(x, w) as i128
            } else {
                x as i128
            }
        })
        .collect()
}

/// A base for `fns`: 0..31 (larger bases are undefined in the ISA).
fn fns_base() -> Gen {
    Arc::new(|r, _, _| r.range(0, 32) as u64)
}

/// An `fns` offset: small of either sign, or large.
fn fns_offset() -> Gen {
    Arc::new(|r, _, _| match r.range(0, 4) {
        0 => r.u32() as u64,
        _ => (r.range(0, 70) as i32 - 35) as u32 as u64,
    })
}

pub fn bit_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for t in [Type::B32, Type::B64] {
        let n = t.name();
        let w = t.bits();
        v.push(unary(
            format!("popc.{n}"),
            BitOp::Popc,
            t,
            Reg::R,
            move |a| (a & mask(w)).count_ones() as u64,
        ));
        v.push(unary(format!("clz.{n}"), BitOp::Clz, t, Reg::R, move |a| {
            (0..w).rev().take_while(|&i| bit(a, i) == 0).count() as u64
        }));
        v.push(unary(
            format!("brev.{n}"),
            BitOp::Brev,
            t,
            reg(t),
            move |a| (0..w).fold(0, |d, i| d | bit(a, i) << (w - 1 - i)),
        ));
        v.push(unary(
            format!("cnot.{n}"),
            BitOp::Cnot,
            t,
            reg(t),
            move |a| (a & mask(w) == 0) as u64,
        ));
        let text = format!("bfi.{n}");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}}, {{e}};"))
                .src(reg(t), gen::int(w))
                .src(reg(t), gen::int(w))
                .src(Reg::R, gen::field(w))
                .src(Reg::R, gen::field(w))
                .dst(reg(t))
                .ops1(bits_ops(BitOp::Bfi, t))
                .indep1(move |s| bfi_ref(w, s[0], s[1], s[2], s[3])),
        );
    }
    v.push(unary(
        "cnot.b16".into(),
        BitOp::Cnot,
        Type::B16,
        Reg::H,
        |a| (a & 0xffff == 0) as u64,
    ));
    for t in [Type::U32, Type::U64, Type::S32, Type::S64] {
        let n = t.name();
        let w = t.bits();
        let signed = t.is_signed();
        for sa in [false, true] {
            let text = format!("bfind{}.{n}", if sa { ".shiftamt" } else { "" });
            v.push(unary(
                text,
                BitOp::Bfind { shiftamt: sa },
                t,
                Reg::R,
                move |a| bfind_ref(w, signed, sa, a),
            ));
        }
        let text = format!("bfe.{n}");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                .src(reg(t), gen::int(w))
                .src(Reg::R, gen::field(w))
                .src(Reg::R, gen::field(w))
                .dst(reg(t))
                .ops1(bits_ops(BitOp::Bfe, t))
                .indep1(move |s| bfe_ref(w, signed, s[0], s[1], s[2])),
        );
    }
    // prmt: the generic form with random selectors, and every mode.
    let modes = [
        ("", None),
        (".f4e", Some(PrmtMode::F4e)),
        (".b4e", Some(PrmtMode::B4e)),
        (".rc8", Some(PrmtMode::Rc8)),
        (".ecl", Some(PrmtMode::Ecl)),
        (".ecr", Some(PrmtMode::Ecr)),
        (".rc16", Some(PrmtMode::Rc16)),
    ];
    for (ms, m) in modes {
        let text = format!("prmt.b32{ms}");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                .src(Reg::R, gen::any())
                .src(Reg::R, gen::any())
                .src(Reg::R, gen::any())
                .dst(Reg::R)
                .ops1(bits_ops(BitOp::Prmt(m), Type::B32))
                .indep1(move |s| prmt_ref(m, s[0], s[1], s[2])),
        );
    }
    // lop3: every look-up table.
    for lut in 0..=255u8 {
        let text = format!("lop3.b32 (lut {lut:#04x})");
        v.push(
            Form::new(
                &text,
                format!("lop3.b32 {{d}}, {{a}}, {{b}}, {{c}}, {lut};"),
            )
            .src(Reg::R, gen::int(32))
            .src(Reg::R, gen::int(32))
            .src(Reg::R, gen::any())
            .dst(Reg::R)
            .ops1(move |s| ops::int::lop3(s[0] as u32, s[1] as u32, s[2] as u32, lut) as u64)
            .indep1(move |s| lop3_ref(s[0], s[1], s[2], lut)),
        );
    }
    // lop3 with a predicate output: p = (d != 0) BoolOp {!}q.
    for (bn, or) in [("and", false), ("or", true)] {
        for neg in [false, true] {
            let lut = if or { 0x96u8 } else { 0xe8 };
            let bang = if neg { "!" } else { "" };
            let text = format!("lop3.{bn}.b32 d|p (q {bang}p)");
            v.push(
                Form::new(
                    &text,
                    format!("lop3.{bn}.b32 {{d}}|{{q}}, {{a}}, {{b}}, {{c}}, {lut}, {bang}{{e}};"),
                )
                .src(Reg::R, gen::int(32))
                .src(Reg::R, gen::int(32))
                .src(Reg::R, gen::int(32))
                .src(Reg::P, gen::pred())
                .dst(Reg::R)
                .dst(Reg::P)
                .ops(move |s| {
                    let d = ops::int::lop3(s[0] as u32, s[1] as u32, s[2] as u32, lut) as u64;
                    let q = (s[3] != 0) ^ neg;
                    let p = if or { d != 0 || q } else { d != 0 && q };
                    vec![d, p as u64]
                })
                .indep(move |s| {
                    let d = lop3_ref(s[0], s[1], s[2], lut);
                    let q = (s[3] != 0) ^ neg;
                    vec![d, if or { d != 0 || q } else { d != 0 && q } as u64]
                }),
            );
        }
    }
    for left in [false, true] {
        for clamp in [false, true] {
            let text = format!(
                "shf.{}.{}.b32",
                if left { "l" } else { "r" },
                if clamp { "clamp" } else { "wrap" }
            );
            for (what, g) in [
                ("", gen::shift(32)),
                (" (uniform amount)", gen::uniform(gen::shift(32))),
            ] {
                v.push(
                    Form::new(
                        format!("{text}{what}"),
                        format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"),
                    )
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, g)
                    .dst(Reg::R)
                    .ops1(bits_ops(BitOp::Shf { left, clamp }, Type::B32))
                    .indep1(move |s| {
                        // The ISA's formulas, with 64-bit shifts (32 - n may be 32).
                        let n = if clamp { s[2].min(32) } else { s[2] & 0x1f };
                        let (a, b) = (s[0], s[1]);
                        let d = if left {
                            (b << n) | (a >> (32 - n))
                        } else {
                            (b << (32 - n)) | (a >> n)
                        };
                        d & 0xffff_ffff
                    }),
                );
            }
        }
    }
    for t in [Type::U32, Type::S32] {
        let n = t.name();
        let signed = t.is_signed();
        let v24 = move |x: u64| {
            if signed {
                sx(x & 0xff_ffff, 24) as i128
            } else {
                (x & 0xff_ffff) as i128
            }
        };
        for hi in [false, true] {
            let hs = if hi { "hi" } else { "lo" };
            let sel = move |p: i128| (if hi { p >> 16 } else { p }) as u64 & 0xffff_ffff;
            let text = format!("mul24.{hs}.{n}");
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::int(32))
                    .dst(Reg::R)
                    .ops1(bits_ops(BitOp::Mul24 { hi }, t))
                    .indep1(move |s| sel(v24(s[0]) * v24(s[1]))),
            );
            for sat in [false, true] {
                if sat && !(hi && signed) {
                    continue;
                }
                let text = format!("mad24.{hs}{}.{n}", if sat { ".sat" } else { "" });
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                        .src(Reg::R, gen::int(32))
                        .src(Reg::R, gen::int(32))
                        .src(Reg::R, gen::int(32))
                        .dst(Reg::R)
                        .ops1(bits_ops(BitOp::Mad24 { hi, sat }, t))
                        .indep1(move |s| {
                            let p = sel(v24(s[0]) * v24(s[1]));
                            if sat {
                                let r = sx(p, 32) as i128 + sx(s[2], 32) as i128;
                                r.clamp(i32::MIN as i128, i32::MAX as i128) as u64 & 0xffff_ffff
                            } else {
                                p.wrapping_add(s[2]) & 0xffff_ffff
                            }
                        }),
                );
            }
        }
        for clamp in [false, true] {
            let text = format!("szext.{}.{n}", if clamp { "clamp" } else { "wrap" });
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::field(32))
                    .dst(Reg::R)
                    .ops1(bits_ops(BitOp::Szext { clamp }, t))
                    .indep1(move |s| szext_ref(clamp, signed, s[0], s[1])),
            );
        }
    }
    for t in [
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S16,
        Type::S32,
        Type::S64,
    ] {
        let n = t.name();
        let w = t.bits();
        let text = format!("sad.{n}");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                .src(reg(t), gen::int(w))
                .src(reg(t), gen::int(w))
                .src(reg(t), gen::int(w))
                .dst(reg(t))
                .ops1(bits_ops(BitOp::Sad, t))
                .indep1(move |s| {
                    let d = (val(t, s[0]) - val(t, s[1])).abs();
                    (val(t, s[2]) + d) as u128 as u64 & mask(w)
                }),
        );
    }
    for a_signed in [false, true] {
        for b_signed in [false, true] {
            let tn = |s: bool| if s { "s32" } else { "u32" };
            let acc = if a_signed || b_signed {
                Type::S32
            } else {
                Type::U32
            };
            let text = format!("dp4a.{}.{}", tn(a_signed), tn(b_signed));
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::int(32))
                    .dst(Reg::R)
                    .ops1(bits_ops(BitOp::Dp4a { a_signed, b_signed }, acc))
                    .indep1(move |s| {
                        let (va, vb) = (parts(s[0], 4, a_signed), parts(s[1], 4, b_signed));
                        let dot: i128 = (0..4).map(|i| va[i] * vb[i]).sum();
                        (val(acc, s[2]) + dot) as u128 as u64 & 0xffff_ffff
                    }),
            );
            for hi in [false, true] {
                let text = format!(
                    "dp2a.{}.{}.{}",
                    if hi { "hi" } else { "lo" },
                    tn(a_signed),
                    tn(b_signed)
                );
                v.push(
                    Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}}, {{c}};"))
                        .src(Reg::R, gen::int(32))
                        .src(Reg::R, gen::int(32))
                        .src(Reg::R, gen::int(32))
                        .dst(Reg::R)
                        .ops1(bits_ops(
                            BitOp::Dp2a {
                                hi,
                                a_signed,
                                b_signed,
                            },
                            acc,
                        ))
                        .indep1(move |s| {
                            let (va, vb) = (parts(s[0], 2, a_signed), parts(s[1], 4, b_signed));
                            let sel = if hi { 2 } else { 0 };
                            let dot: i128 = (0..2).map(|i| va[i] * vb[sel + i]).sum();
                            (val(acc, s[2]) + dot) as u128 as u64 & 0xffff_ffff
                        }),
                );
            }
        }
    }
    v.push(
        Form::new("fns.b32", "fns.b32 {d}, {a}, {b}, {c};")
            .src(Reg::R, gen::int(32))
            .src(Reg::R, fns_base())
            .src(Reg::R, fns_offset())
            .dst(Reg::R)
            .ops1(bits_ops(BitOp::Fns, Type::B32))
            .indep1(|s| fns_ref(s[0], s[1], s[2])),
    );
    for clamp in [false, true] {
        let text = format!("bmsk.{}.b32", if clamp { "clamp" } else { "wrap" });
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(Reg::R, gen::field(32))
                .src(Reg::R, gen::field(32))
                .dst(Reg::R)
                .ops1(bits_ops(BitOp::Bmsk { clamp }, Type::B32))
                .indep1(move |s| bmsk_ref(clamp, s[0], s[1])),
        );
    }
    for (opn, op, sub) in [("add", BitOp::AddSat, false), ("sub", BitOp::SubSat, true)] {
        let text = format!("{opn}.sat.s32");
        v.push(
            Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                .src(Reg::R, gen::int(32))
                .src(Reg::R, gen::int(32))
                .dst(Reg::R)
                .ops1(bits_ops(op, Type::S32))
                .indep1(move |s| {
                    let (a, b) = (sx(s[0], 32) as i128, sx(s[1], 32) as i128);
                    let r = if sub { a - b } else { a + b };
                    r.clamp(i32::MIN as i128, i32::MAX as i128) as u64 & 0xffff_ffff
                }),
        );
    }
    v
}

/// `min/max.relu.s32`, `min/max.u16x2`, `min/max{.relu}.s16x2`.
pub fn int_minmax_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for max in [false, true] {
        let opn = if max { "max" } else { "min" };
        let pick = move |a: i128, b: i128| if max { a.max(b) } else { a.min(b) };
        for (ts, ty, packed, relu) in [
            ("relu.s32", Type::S32, false, true),
            ("u16x2", Type::U16, true, false),
            ("s16x2", Type::S16, true, false),
            ("relu.s16x2", Type::S16, true, true),
        ] {
            let text = format!("{opn}.{ts}");
            let op = MinMaxOp {
                max,
                relu,
                packed,
                ..Default::default()
            };
            v.push(
                Form::new(&text, format!("{text} {{d}}, {{a}}, {{b}};"))
                    .src(Reg::R, gen::int(32))
                    .src(Reg::R, gen::int(32))
                    .dst(Reg::R)
                    .ops1(move |s| ops::float::minmax(op, ty, s[0], s[1]))
                    .indep1(move |s| {
                        let n = if packed { 2 } else { 1 };
                        let (pa, pb) = (
                            parts(s[0], n, ty.is_signed()),
                            parts(s[1], n, ty.is_signed()),
                        );
                        let w = 32 / n;
                        (0..n as usize).fold(0, |d, i| {
                            let r = pick(pa[i], pb[i]);
                            let r = if relu && r < 0 { 0 } else { r };
                            d | ((r as u128 as u64) & mask(w)) << (w * i as u32)
                        })
                    }),
            );
        }
    }
    v
}

/// The carry chain: every form on u32/s32/u64/s64, with the carry-in set from a
/// per-lane predicate (`add.cc x, e, -1` carries iff e = 1) and the flag read back with
/// `addc q, 0, 0`.
pub fn carry_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for t in [Type::U32, Type::S32, Type::U64, Type::S64] {
        let n = t.name();
        let w = t.bits();
        let r = reg(t);
        let un = if w == 32 { "u32" } else { "u64" };
        let scratch = if w == 32 {
            ".reg .b32 %cc_t;"
        } else {
            ".reg .b64 %cc_t;"
        };
        let get_cf = format!("addc.{un} {{q}}, 0, 0;");
        // (name, op, uses c, carry-in, carry-out)
        let forms: [(&str, CarryOp, bool, bool, bool); 14] = [
            ("add.cc", CarryOp::Add, false, false, true),
            ("addc.cc", CarryOp::Add, false, true, true),
            ("addc", CarryOp::Add, false, true, false),
            ("sub.cc", CarryOp::Sub, false, false, true),
            ("subc.cc", CarryOp::Sub, false, true, true),
            ("subc", CarryOp::Sub, false, true, false),
            ("mad.lo.cc", CarryOp::MadLo, true, false, true),
            ("mad.hi.cc", CarryOp::MadHi, true, false, true),
            ("madc.lo.cc", CarryOp::MadLo, true, true, true),
            ("madc.hi.cc", CarryOp::MadHi, true, true, true),
            ("madc.lo", CarryOp::MadLo, true, true, false),
            ("madc.hi", CarryOp::MadHi, true, true, false),
            ("add.cc (then addc chain)", CarryOp::Add, false, false, true),
            ("sub.cc (then subc chain)", CarryOp::Sub, false, false, true),
        ];
        for (i, (name, op, three, cin, cout)) in forms.into_iter().enumerate() {
            let opcode = name.split(' ').next().unwrap_or(name);
            let chain = i >= 12;
            let mut body = format!("{{\n{scratch}\n");
            if cin {
                // The carry-in word is the last source: {e} after a, b, c, else {c}.
                let e = if three { "{e}" } else { "{c}" };
                body += &format!("add.cc.{un} %cc_t, {e}, -1;\n");
            }
            let srcs = if three { "{a}, {b}, {c}" } else { "{a}, {b}" };
            if chain {
                // A two-word chain: the low words through op.cc, the high words through
                // addc/subc; d = low result, q = high result.
                let next = if op == CarryOp::Add { "addc" } else { "subc" };
                body += &format!(
                    "{opcode}.{n} {{d}}, {{a}}, {{b}};\n{next}.{n} {{q}}, {{c}}, {{e}};\n}}"
                );
            } else {
                body += &format!("{opcode}.{n} {{d}}, {srcs};\n");
                if cout {
                    body += &get_cf;
                    body += "\n";
                }
                body += "}";
            }
            let mut f = Form::new(format!("{name}.{n}"), body)
                .src(r, gen::int(w))
                .src(r, gen::int(w));
            if three || chain {
                f = f.src(r, gen::int(w));
            }
            if cin || chain {
                f = f.src(r, if chain { gen::int(w) } else { gen::pred() });
            }
            f = f.dst(r);
            if cout || chain {
                f = f.dst(r);
            }
            let (srcs_n, has_c) = (three, three || chain);
            v.push(
                f.ops(move |s| {
                    if chain {
                        let (lo, cf) = ops::carry::carry(op, t, s[0], s[1], 0, None);
                        let (hi, _) = ops::carry::carry(op, t, s[2], s[3], 0, Some(cf));
                        return vec![lo, hi];
                    }
                    let c = if srcs_n { s[2] } else { 0 };
                    let c_in = cin.then(|| s[if has_c { 3 } else { 2 }] != 0);
                    let (d, cf) = ops::carry::carry(op, t, s[0], s[1], c, c_in);
                    if cout {
                        vec![d, cf as u64]
                    } else {
                        vec![d]
                    }
                })
                .indep(move |s| {
                    let m = mask(w) as u128;
                    let (a, b) = (s[0] as u128 & m, s[1] as u128 & m);
                    if chain {
                        // The 2w-bit sum or difference of {s2, s0} and {s3, s1}.
                        let x = (s[2] as u128 & m) << w | a;
                        let y = (s[3] as u128 & m) << w | b;
                        let r = if op == CarryOp::Add {
                            x.wrapping_add(y)
                        } else {
                            x.wrapping_sub(y)
                        };
                        return vec![(r & m) as u64, ((r >> w) & m) as u64];
                    }
                    let cf = if cin {
                        s[if has_c { 3 } else { 2 }] != 0
                    } else {
                        op == CarryOp::Sub
                    };
                    let (sum, flag) = match op {
                        CarryOp::Add => {
                            let s = a + b + cf as u128;
                            (s & m, s >> w != 0)
                        }
                        CarryOp::Sub => {
                            // a - b - borrow with borrow = !CF; the new flag is "no borrow".
                            let d = a as i128 - b as i128 - (!cf) as i128;
                            ((d as u128) & m, d >= 0)
                        }
                        _ => {
                            let p = if t.is_signed() {
                                (val(t, s[0]) * val(t, s[1])) as u128
                            } else {
                                a * b
                            };
                            let part = if op == CarryOp::MadHi {
                                (p >> w) & m
                            } else {
                                p & m
                            };
                            let s = part + (s[2] as u128 & m) + cf as u128;
                            (s & m, s >> w != 0)
                        }
                    };
                    if cout {
                        vec![sum as u64, flag as u64]
                    } else {
                        vec![sum as u64]
                    }
                }),
            );
        }
    }
    v
}
