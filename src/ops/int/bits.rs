//! Bit-manipulation and packed-integer semantics (PTX ISA: integer arithmetic, logic and
//! shift chapters, and `prmt`): `bfe bfi bfind bmsk brev clz popc fns dp4a dp2a mul24
//! mad24 sad szext lop3 shf prmt cnot` and saturating 32-bit add/sub.
//!
//! Values are raw bits zero-extended in a `u64`; `w` is the operation width (32 or 64).
//! Each function implements the ISA's pseudocode; `tests` checks them against literal
//! transcriptions of that pseudocode.

use crate::ir::{BitOp, Type};
use crate::ops::{mask, sext};

/// `bfe.{u,s}{32,64} d, a, pos, len` (pos and len use their low 8 bits).
pub fn bfe(w: u32, signed: bool, a: u64, pos: u32, len: u32) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let msb = w - 1;
    let a = a & mask(w);
    let sbit = if !signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    // Bits i < len with pos + i <= msb come from a; the rest are the sign bit.
    let take = if pos > msb { 0 } else { len.min(w - pos) };
    let field = if take == 0 {
        0
    } else {
        (a >> pos) & mask(take)
    };
    let fill = if sbit == 1 { mask(w) & !mask(take) } else { 0 };
    (field | fill) & mask(w)
}

/// `bfi.b{32,64} f, a, b, pos, len`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(w: u32, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let b = b & mask(w);
    if len == 0 || pos >= w {
        return b;
    }
    let n = len.min(w - pos);
    let m = mask(n) << pos;
    (b & !m) | ((a << pos) & m)
}

/// `bfind{.shiftamt}.{u,s}{32,64} d, a`: position of the most significant non-sign bit,
/// 0xffffffff if none.
pub fn bfind(w: u32, signed: bool, shiftamt: bool, a: u64) -> u32 {
    let msb = w - 1;
    let mut a = a & mask(w);
    if signed && (a >> msb) & 1 == 1 {
        a = !a & mask(w);
    }
    if a == 0 {
        return u32::MAX;
    }
    let d = 63 - a.leading_zeros();
    if shiftamt {
        msb - d
    } else {
        d
    }
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`.
pub fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
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
        mask1 = u32::MAX;
    }
    mask0 & !mask1
}

/// `brev.b{32,64}`.
pub fn brev(w: u32, a: u64) -> u64 {
    (a & mask(w)).reverse_bits() >> (64 - w)
}

/// `clz.b{32,64}` (result .u32).
pub fn clz(w: u32, a: u64) -> u32 {
    let a = a & mask(w);
    a.leading_zeros() - (64 - w)
}

/// `popc.b{32,64}` (result .u32).
pub fn popc(w: u32, a: u64) -> u32 {
    (a & mask(w)).count_ones()
}

/// `fns.b32 d, mask, base, offset`: the `offset`-th set bit of `mask` counting from `base`
/// (upwards for positive, downwards for negative offsets), 0xffffffff if none.
pub fn fns(m: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        // Undefined by the ISA; ptxjit returns "not found".
        return u32::MAX;
    }
    if offset == 0 {
        return if (m >> base) & 1 == 1 { base } else { u32::MAX };
    }
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i32;
    let inc = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if (m >> pos) & 1 == 1 {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += inc;
    }
    u32::MAX
}

fn lanes_of(v: u32, n: u32, signed: bool) -> impl Iterator<Item = i64> {
    let bits = 32 / n;
    (0..n).map(move |i| {
        let x = ((v >> (i * bits)) as u64) & mask(bits);
        if signed {
            sext(x, bits)
        } else {
            x as i64
        }
    })
}

/// `dp4a.atype.btype d, a, b, c`: c + sum of the four byte products (wrapping 32-bit).
pub fn dp4a(a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let s: i64 = lanes_of(a, 4, a_signed)
        .zip(lanes_of(b, 4, b_signed))
        .map(|(x, y)| x * y)
        .sum();
    (c as i64).wrapping_add(s) as u32
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: c + the two products of a's 16-bit halves with
/// the low (`.lo`) or high (`.hi`) two bytes of b.
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let bs: Vec<i64> = lanes_of(b, 4, b_signed).collect();
    let sel = if hi { 2 } else { 0 };
    let s: i64 = lanes_of(a, 2, a_signed)
        .enumerate()
        .map(|(i, x)| x * bs[sel + i])
        .sum();
    (c as i64).wrapping_add(s) as u32
}

fn product24(signed: bool, a: u32, b: u32) -> i64 {
    if signed {
        sext(a as u64 & 0xff_ffff, 24) * sext(b as u64 & 0xff_ffff, 24)
    } else {
        ((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) as i64
    }
}

/// `mul24.{lo,hi}.{u,s}32`: the low or high 32 bits (bits 47..16) of the 48-bit product
/// of the low 24 bits of a and b.
pub fn mul24(hi: bool, signed: bool, a: u32, b: u32) -> u32 {
    let t = product24(signed, a, b);
    if hi {
        (t >> 16) as u32
    } else {
        t as u32
    }
}

/// `mad24.{lo,hi}{.sat}.{u,s}32`: `mul24` plus c; `.sat` (s32 `.hi` only) clamps the
/// signed addition.
pub fn mad24(hi: bool, signed: bool, sat: bool, a: u32, b: u32, c: u32) -> u32 {
    let p = mul24(hi, signed, a, b);
    if sat && signed {
        (p as i32).saturating_add(c as i32) as u32
    } else {
        p.wrapping_add(c)
    }
}

/// `sad.type d, a, b, c`: c + |a - b| (wrapping in the type's width).
pub fn sad(w: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let diff = if signed {
        let (x, y) = (sext(a, w), sext(b, w));
        (x as i128 - y as i128).unsigned_abs() as u64
    } else {
        let (x, y) = (a & mask(w), b & mask(w));
        x.abs_diff(y)
    };
    c.wrapping_add(diff) & mask(w)
}

/// `szext.{clamp,wrap}.{u,s}32 d, a, b`: sign- or zero-extend the low `b` bits of a.
pub fn szext(clamp: bool, signed: bool, a: u32, b: u32) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let m = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    (a & !m) | if sign_bit { m } else { 0 }
}

/// `lop3.b32 d, a, b, c, lut`: each result bit is `lut` indexed by the bits of a, b, c
/// (a is the most significant index bit).
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..8u32 {
        if lut >> i & 1 == 1 {
            let ta = if i & 4 != 0 { a } else { !a };
            let tb = if i & 2 != 0 { b } else { !b };
            let tc = if i & 1 != 0 { c } else { !c };
            d |= ta & tb & tc;
        }
    }
    d
}

/// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: funnel shift of the 64-bit value `{b, a}`.
pub fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let v = ((b as u64) << 32) | a as u64;
    if left {
        ((v << n) >> 32) as u32
    } else {
        (v >> n) as u32
    }
}

pub use crate::ir::PrmtMode;

/// `prmt.b32{.mode} d, a, b, c`: pick four bytes of `{b, a}`.
pub fn prmt(mode: Option<PrmtMode>, a: u32, b: u32, c: u32) -> u32 {
    let src = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((src >> (8 * (i & 7))) & 0xff) as u32;
    let mut d = 0u32;
    match mode {
        None => {
            for k in 0..4 {
                let ctl = (c >> (4 * k)) & 0xf;
                let mut v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * k);
            }
        }
        Some(m) => {
            let s = c & 3;
            // Source byte for destination bytes b0..b3 (the ISA's table read right to left).
            let sel: [u32; 4] = match m {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
                PrmtMode::Rc8 => [s; 4],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                PrmtMode::Rc16 => {
                    let lo = (s & 1) * 2;
                    [lo, lo + 1, lo, lo + 1]
                }
            };
            for (k, &i) in sel.iter().enumerate() {
                d |= byte(i) << (8 * k);
            }
        }
    }
    d
}

/// `cnot.b{16,32,64}`: 1 if a == 0, else 0.
pub fn cnot(w: u32, a: u64) -> u64 {
    (a & mask(w) == 0) as u64
}

/// `add.sat.s32`: clamps to MININT..MAXINT.
pub fn add_sat_s32(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}

/// `sub.sat.s32`: clamps to MININT..MAXINT.
pub fn sub_sat_s32(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}

/// The carry chain (`add.cc`, `addc{.cc}`): a + b + carry_in in width `w`, and the carry out.
pub fn add_carry(w: u32, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let s = (a & mask(w)) as u128 + (b & mask(w)) as u128 + carry_in as u128;
    ((s as u64) & mask(w), s >> w != 0)
}

/// Subtraction with borrow: a - b - borrow_in in width `w`, and the borrow out (the
/// carry chain keeps its flag as the complement, see `crate::ops::carry`).
pub fn sub_borrow(w: u32, a: u64, b: u64, borrow_in: bool) -> (u64, bool) {
    let (x, y) = (
        (a & mask(w)) as u128,
        (b & mask(w)) as u128 + borrow_in as u128,
    );
    (x.wrapping_sub(y) as u64 & mask(w), x < y)
}

/// The result of `op` on operands `s` (raw bits of the types `signature` gives; missing
/// operands read as 0).
pub fn eval(op: BitOp, ty: Type, s: &[u64]) -> u64 {
    let g = |i: usize| s.get(i).copied().unwrap_or(0);
    let w = ty.bits().clamp(1, 64);
    let (a32, b32, c32) = (g(0) as u32, g(1) as u32, g(2) as u32);
    match op {
        BitOp::Popc => popc(w, g(0)) as u64,
        BitOp::Clz => clz(w, g(0)) as u64,
        BitOp::Brev => brev(w, g(0)),
        BitOp::Bfind { shiftamt } => bfind(w, ty.is_signed(), shiftamt, g(0)) as u64,
        BitOp::Bfe => bfe(w, ty.is_signed(), g(0), g(1) as u32, g(2) as u32),
        BitOp::Bfi => bfi(w, g(0), g(1), g(2) as u32, g(3) as u32),
        BitOp::Prmt(mode) => prmt(mode, a32, b32, c32) as u64,
        BitOp::Lop3 { lut } => lop3(a32, b32, c32, lut) as u64,
        BitOp::Shf { left, clamp } => shf(left, clamp, a32, b32, c32) as u64,
        BitOp::Cnot => cnot(w, g(0)),
        BitOp::Mul24 { hi } => mul24(hi, ty.is_signed(), a32, b32) as u64,
        BitOp::Mad24 { hi, sat } => mad24(hi, ty.is_signed(), sat, a32, b32, c32) as u64,
        BitOp::Sad => sad(w, ty.is_signed(), g(0), g(1), g(2)),
        BitOp::Dp4a { a_signed, b_signed } => dp4a(a_signed, b_signed, a32, b32, c32) as u64,
        BitOp::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => dp2a(hi, a_signed, b_signed, a32, b32, c32) as u64,
        BitOp::Fns => fns(a32, b32, c32 as i32) as u64,
        BitOp::Bmsk { clamp } => bmsk(clamp, a32, b32) as u64,
        BitOp::Szext { clamp } => szext(clamp, ty.is_signed(), a32, b32) as u64,
        BitOp::AddSat => add_sat_s32(a32, b32) as u64,
        BitOp::SubSat => sub_sat_s32(a32, b32) as u64,
    }
}

const TYPES: [Type; 8] = [
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
];
const TYPES2: [Type; 1] = [Type::S64];

fn type_code(t: Type) -> u64 {
    TYPES
        .iter()
        .chain(TYPES2.iter())
        .position(|&x| x == t)
        .map_or(0xff, |i| i as u64)
}

fn type_from(c: u64) -> Option<Type> {
    TYPES.iter().chain(TYPES2.iter()).nth(c as usize).copied()
}

/// Packs `(op, ty)` into one integer (for passing to a JIT helper).
pub fn encode(op: BitOp, ty: Type) -> u64 {
    let (kind, flags): (u64, u64) = match op {
        BitOp::Popc => (0, 0),
        BitOp::Clz => (1, 0),
        BitOp::Brev => (2, 0),
        BitOp::Bfind { shiftamt } => (3, shiftamt as u64),
        BitOp::Bfe => (4, 0),
        BitOp::Bfi => (5, 0),
        BitOp::Prmt(m) => (
            6,
            match m {
                None => 0,
                Some(PrmtMode::F4e) => 1,
                Some(PrmtMode::B4e) => 2,
                Some(PrmtMode::Rc8) => 3,
                Some(PrmtMode::Ecl) => 4,
                Some(PrmtMode::Ecr) => 5,
                Some(PrmtMode::Rc16) => 6,
            },
        ),
        BitOp::Lop3 { lut } => (7, lut as u64),
        BitOp::Shf { left, clamp } => (8, left as u64 | (clamp as u64) << 1),
        BitOp::Cnot => (9, 0),
        BitOp::Mul24 { hi } => (10, hi as u64),
        BitOp::Mad24 { hi, sat } => (11, hi as u64 | (sat as u64) << 1),
        BitOp::Sad => (12, 0),
        BitOp::Dp4a { a_signed, b_signed } => (13, a_signed as u64 | (b_signed as u64) << 1),
        BitOp::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => (
            14,
            hi as u64 | (a_signed as u64) << 1 | (b_signed as u64) << 2,
        ),
        BitOp::Fns => (15, 0),
        BitOp::Bmsk { clamp } => (16, clamp as u64),
        BitOp::Szext { clamp } => (17, clamp as u64),
        BitOp::AddSat => (18, 0),
        BitOp::SubSat => (19, 0),
    };
    kind | flags << 8 | type_code(ty) << 16
}

/// Inverse of [`encode`].
pub fn decode(code: u64) -> Option<(BitOp, Type)> {
    let f = (code >> 8) & 0xff;
    let b = |i: u64| f >> i & 1 != 0;
    let op = match code & 0xff {
        0 => BitOp::Popc,
        1 => BitOp::Clz,
        2 => BitOp::Brev,
        3 => BitOp::Bfind { shiftamt: b(0) },
        4 => BitOp::Bfe,
        5 => BitOp::Bfi,
        6 => BitOp::Prmt(match f {
            0 => None,
            1 => Some(PrmtMode::F4e),
            2 => Some(PrmtMode::B4e),
            3 => Some(PrmtMode::Rc8),
            4 => Some(PrmtMode::Ecl),
            5 => Some(PrmtMode::Ecr),
            6 => Some(PrmtMode::Rc16),
            _ => return None,
        }),
        7 => BitOp::Lop3 { lut: f as u8 },
        8 => BitOp::Shf {
            left: b(0),
            clamp: b(1),
        },
        9 => BitOp::Cnot,
        10 => BitOp::Mul24 { hi: b(0) },
        11 => BitOp::Mad24 {
            hi: b(0),
            sat: b(1),
        },
        12 => BitOp::Sad,
        13 => BitOp::Dp4a {
            a_signed: b(0),
            b_signed: b(1),
        },
        14 => BitOp::Dp2a {
            hi: b(0),
            a_signed: b(1),
            b_signed: b(2),
        },
        15 => BitOp::Fns,
        16 => BitOp::Bmsk { clamp: b(0) },
        17 => BitOp::Szext { clamp: b(0) },
        18 => BitOp::AddSat,
        19 => BitOp::SubSat,
        _ => return None,
    };
    Some((op, type_from((code >> 16) & 0xff)?))
}

#[cfg(test)]
mod tests {
    //! The oracle: literal transcriptions of the PTX ISA pseudocode (bit loops), compared
    //! with the implementations above over exhaustive small ranges and pseudo-random values.
    use super::*;

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed | 1;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    fn samples() -> Vec<u64> {
        let mut r = rng(42);
        let mut v = vec![
            0,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            u64::MAX,
            1 << 63,
            0x8000_0000_0000_0001,
        ];
        v.extend((0..200).map(|_| r()));
        v
    }

    fn bit(x: u64, i: u32) -> u64 {
        if i >= 64 {
            0
        } else {
            (x >> i) & 1
        }
    }

    /// ISA: bfe semantics, verbatim.
    fn bfe_spec(w: u32, signed: bool, a: u64, b: u32, c: u32) -> u64 {
        let msb = w - 1;
        let pos = b & 0xff;
        let len = c & 0xff;
        let sbit = if !signed || len == 0 {
            0
        } else {
            bit(a, (pos + len - 1).min(msb))
        };
        let mut d = 0u64;
        for i in 0..=msb {
            let v = if i < len && pos + i <= msb {
                bit(a, pos + i)
            } else {
                sbit
            };
            d |= v << i;
        }
        d
    }

    /// ISA: bfi semantics, verbatim.
    fn bfi_spec(w: u32, a: u64, b: u64, c: u32, d: u32) -> u64 {
        let msb = w - 1;
        let pos = c & 0xff;
        let len = d & 0xff;
        let mut f = b & mask(w);
        let mut i = 0;
        while i < len && pos + i <= msb {
            f = (f & !(1 << (pos + i))) | (bit(a, i) << (pos + i));
            i += 1;
        }
        f
    }

    #[test]
    fn bfe_and_bfi_match_the_isa_pseudocode() {
        for &a in &samples()[..40] {
            for w in [32, 64] {
                for pos in (0..300u32).step_by(3).chain([31, 32, 63, 64, 255, 256 + 5]) {
                    for len in (0..300u32).step_by(7).chain([0, 1, 32, 33, 64, 255]) {
                        for signed in [false, true] {
                            assert_eq!(
                                bfe(w, signed, a, pos, len),
                                bfe_spec(w, signed, a & mask(w), pos, len),
                                "bfe w{w} s{signed} a{a:#x} pos{pos} len{len}"
                            );
                        }
                        let b = a.rotate_left(17) ^ 0x5555_5555_5555_5555;
                        assert_eq!(
                            bfi(w, a, b, pos, len),
                            bfi_spec(w, a, b, pos, len),
                            "bfi w{w} a{a:#x} pos{pos} len{len}"
                        );
                    }
                }
            }
        }
        // Hand-checked: bfe.s32 of 0xf0 at pos 4, len 4 is 0xf sign-extended = -1.
        assert_eq!(bfe(32, true, 0xf0, 4, 4), 0xffff_ffff);
        assert_eq!(bfe(32, false, 0xf0, 4, 4), 0xf);
    }

    #[test]
    fn bfind_brev_clz_popc_cnot() {
        for &a in &samples() {
            for w in [32u32, 64] {
                let x = a & mask(w);
                // bfind spec: negate negative signed inputs, then the highest set bit.
                for signed in [false, true] {
                    let mut y = x;
                    if signed && bit(y, w - 1) == 1 {
                        y = !y & mask(w);
                    }
                    let mut d = u32::MAX;
                    for i in (0..w).rev() {
                        if bit(y, i) == 1 {
                            d = i;
                            break;
                        }
                    }
                    assert_eq!(bfind(w, signed, false, x), d);
                    let sa = if d == u32::MAX { d } else { w - 1 - d };
                    assert_eq!(bfind(w, signed, true, x), sa);
                }
                let mut r = 0u64;
                for i in 0..w {
                    r |= bit(x, i) << (w - 1 - i);
                }
                assert_eq!(brev(w, x), r);
                let lz = (0..w).rev().take_while(|&i| bit(x, i) == 0).count() as u32;
                assert_eq!(clz(w, x), lz);
                assert_eq!(popc(w, x), (0..w).map(|i| bit(x, i) as u32).sum::<u32>());
                assert_eq!(cnot(w, x), (x == 0) as u64);
            }
        }
        assert_eq!(
            bfind(32, true, false, 0xffff_ffff),
            u32::MAX,
            "-1 has no non-sign bit"
        );
        assert_eq!(clz(32, 0), 32);
    }

    #[test]
    fn bmsk_szext_examples_and_ranges() {
        // ISA example: bmsk.wrap.b32 rd, 1, 2 creates 0x00000006.
        assert_eq!(bmsk(false, 1, 2), 6);
        assert_eq!(bmsk(true, 32, 4), 0);
        assert_eq!(bmsk(true, 0, 32), u32::MAX);
        assert_eq!(bmsk(false, 4, 0), 0);
        assert_eq!(bmsk(false, 28, 8), 0xf000_0000);
        // szext: low 8 bits of 0x1f0 as signed = 0xf0 -> 0xfffffff0; unsigned -> 0xf0.
        assert_eq!(szext(false, true, 0x1f0, 8), 0xffff_fff0);
        assert_eq!(szext(false, false, 0x1f0, 8), 0xf0);
        assert_eq!(
            szext(true, true, 0x1234, 40),
            0x1234,
            "clamp with N >= 32 returns a"
        );
        assert_eq!(szext(false, true, 0x1234, 0), 0);
        assert_eq!(
            szext(false, true, 0xffff_ffff, 33),
            0xffff_ffff,
            "wrap: N = 1, sign bit set"
        );
    }

    #[test]
    fn encode_decode_round_trip() {
        let ops = [
            BitOp::Popc,
            BitOp::Bfind { shiftamt: true },
            BitOp::Prmt(Some(PrmtMode::Rc16)),
            BitOp::Lop3 { lut: 0x96 },
            BitOp::Shf {
                left: false,
                clamp: true,
            },
            BitOp::Mad24 {
                hi: true,
                sat: true,
            },
            BitOp::Dp2a {
                hi: true,
                a_signed: false,
                b_signed: true,
            },
            BitOp::Szext { clamp: true },
            BitOp::SubSat,
        ];
        for op in ops {
            for ty in [Type::B32, Type::U64, Type::S32, Type::S64, Type::U16] {
                assert_eq!(decode(encode(op, ty)), Some((op, ty)));
            }
        }
    }

    #[test]
    fn lop3_reproduces_its_lut() {
        for lut in 0..=255u8 {
            // The defining property holds on the 8 bits the constants populate.
            assert_eq!(
                lop3(0xF0, 0xCC, 0xAA, lut) & 0xff,
                lut as u32,
                "F(0xF0, 0xCC, 0xAA) must be the LUT"
            );
        }
        let mut r = rng(7);
        for _ in 0..500 {
            let (a, b, c) = (r() as u32, r() as u32, r() as u32);
            assert_eq!(lop3(a, b, c, 0x80), a & b & c);
            assert_eq!(lop3(a, b, c, 0xFE), a | b | c);
            assert_eq!(lop3(a, b, c, 0x1A), (a & b | c) ^ a);
            assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
        }
    }

    #[test]
    fn shf_matches_the_isa_formula() {
        let mut r = rng(9);
        for _ in 0..300 {
            let (a, b) = (r() as u32, r() as u32);
            for c in (0..70u32).chain([u32::MAX, 1 << 31]) {
                for clamp in [false, true] {
                    let n = if clamp { c.min(32) } else { c & 0x1f };
                    // ISA: d = (b << n) | (a >> (32-n)) for .l; (b << (32-n)) | (a >> n) for .r,
                    // with shifts of 32 producing 0.
                    let sh = |x: u32, s: u32, left: bool| -> u32 {
                        if s >= 32 {
                            0
                        } else if left {
                            x << s
                        } else {
                            x >> s
                        }
                    };
                    assert_eq!(
                        shf(true, clamp, a, b, c),
                        sh(b, n, true) | sh(a, 32 - n, false)
                    );
                    assert_eq!(
                        shf(false, clamp, a, b, c),
                        sh(b, 32 - n, true) | sh(a, n, false)
                    );
                }
            }
        }
        // Rotate left by 8 with a == b.
        assert_eq!(shf(true, false, 0x1234_5678, 0x1234_5678, 8), 0x3456_7812);
    }

    #[test]
    fn prmt_tables() {
        let (a, b) = (0x3322_1100u32, 0x7766_5544u32); // byte i of {b, a} is 0xii
        assert_eq!(prmt(None, a, b, 0x3210), a);
        assert_eq!(prmt(None, a, b, 0x7654), b);
        assert_eq!(prmt(None, a, b, 0x0123), 0x0011_2233);
        // Sign replication: selector 8 = byte 0 (0x80) with its sign replicated -> 0xff;
        // selectors 4 pick byte 4 (b's low byte, 0) for d.b1..d.b3.
        assert_eq!(prmt(None, 0x80, 0, 0x4448), 0x0000_00ff);
        // Selector 0 copies byte 0 literally: 0x80 in d.b1..d.b3.
        assert_eq!(prmt(None, 0x80, 0, 0x0008), 0x8080_80ff);
        // The ISA's mode tables, rows for c[1:0] = 0..3 as (b3, b2, b1, b0).
        let table = |m, rows: [[u32; 4]; 4]| {
            for (s, row) in rows.iter().enumerate() {
                let want = row.iter().fold(0u32, |d, &i| (d << 8) | (i * 0x11));
                assert_eq!(prmt(Some(m), a, b, s as u32), want, "{m:?} c={s}");
            }
        };
        table(
            PrmtMode::F4e,
            [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        );
        table(
            PrmtMode::B4e,
            [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        );
        table(
            PrmtMode::Rc8,
            [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        );
        table(
            PrmtMode::Ecl,
            [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        );
        table(
            PrmtMode::Ecr,
            [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        );
        table(
            PrmtMode::Rc16,
            [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
        );
    }

    #[test]
    fn fns_dp_mul24_sad_sat_carry() {
        // fns: set bits of 0b1011_0100 are 2, 4, 5, 7.
        let m = 0b1011_0100;
        assert_eq!(fns(m, 0, 1), 2);
        assert_eq!(fns(m, 0, 3), 5);
        assert_eq!(fns(m, 0, 5), u32::MAX);
        assert_eq!(fns(m, 7, -1), 7);
        assert_eq!(fns(m, 6, -2), 4);
        assert_eq!(fns(m, 4, 0), 4);
        assert_eq!(fns(m, 3, 0), u32::MAX);
        // dp4a.s32.s32: bytes (-1, 2, 3, 4) . (5, -6, 7, 8) = -5 - 12 + 21 + 32 = 36, + 100.
        let a = u32::from_le_bytes([0xff, 2, 3, 4]);
        let b = u32::from_le_bytes([5, 0xfa, 7, 8]);
        assert_eq!(dp4a(true, true, a, b, 100), 136);
        // unsigned: 255*5 + 2*250 + 21 + 32 = 1275 + 500 + 53 = 1828.
        assert_eq!(dp4a(false, false, a, b, 0), 1828);
        // dp2a.lo.s32.s32: a halves (-1, 3) . b bytes 0,1 (5, -6) = -5 - 18 = -23.
        let a2 = 0x0003_ffff;
        assert_eq!(dp2a(false, true, true, a2, b, 0) as i32, -23);
        // .hi uses bytes 2,3 (7, 8): -7 + 24 = 17.
        assert_eq!(dp2a(true, true, true, a2, b, 0), 17);
        // mul24: 0x00ffffff as s24 is -1; (-1) * 2 = -2.
        assert_eq!(mul24(false, true, 0xffff_ffff, 2) as i32, -2);
        assert_eq!(
            mul24(false, false, 0x0100_0003, 5),
            15,
            "bits above 24 ignored"
        );
        // 0xffffff * 0xffffff = 0xfffffe000001; bits 47..16 = 0xfffffe00.
        assert_eq!(mul24(true, false, 0xff_ffff, 0xff_ffff), 0xffff_fe00);
        assert_eq!(mad24(false, false, false, 3, 4, 5), 17);
        assert_eq!(
            mad24(true, true, true, 0x7f_ffff, 0x7f_ffff, 0x7fff_ffff),
            0x7fff_ffff
        );
        assert_eq!(sad(32, true, 0xffff_fffe, 3, 10), 15, "|-2 - 3| + 10");
        assert_eq!(
            sad(32, false, 0xffff_fffe, 3, 10),
            (0xffff_fffbu64 + 10) & 0xffff_ffff
        );
        assert_eq!(sad(16, false, 2, 9, 1), 8);
        assert_eq!(add_sat_s32(0x7fff_ffff, 1), 0x7fff_ffff);
        assert_eq!(sub_sat_s32(0x8000_0000, 1), 0x8000_0000);
        assert_eq!(add_carry(32, 0xffff_ffff, 1, false), (0, true));
        assert_eq!(add_carry(32, 0xffff_ffff, 0, true), (0, true));
        assert_eq!(add_carry(64, 5, 6, true), (12, false));
        assert_eq!(sub_borrow(32, 0, 1, false), (0xffff_ffff, true));
        assert_eq!(sub_borrow(32, 5, 5, true), (0xffff_ffff, true));
        assert_eq!(sub_borrow(64, 7, 5, false), (2, false));
    }
}
