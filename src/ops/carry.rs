//! The extended-precision carry chain (PTX ISA: extended-precision arithmetic):
//! `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`
//! on `.u32 .s32 .u64 .s64`.
//!
//! The condition code is one bit, `C`, kept the way the hardware keeps it: `add.cc`,
//! `addc.cc` and `mad.cc`/`madc.cc` set it to the carry out of the addition; `sub.cc`
//! and `subc.cc` compute `a - b` as `a + ~b + 1` (`subc`: `a + ~b + C`) and set it to
//! that addition's carry, which is 1 exactly when there is *no* borrow. Within a chain
//! of one kind this is the ISA's text (`subc` computes `a - (b + CC.CF)` with `CC.CF`
//! "the borrow"); where chains mix, the flag a `sub.cc` leaves reads as 0 in `addc` after
//! a borrow, and the carry an `add.cc` leaves makes `subc` subtract nothing. That is
//! what NVIDIA GPUs do (observed by the ZLUDA project's tests, which run the same PTX
//! on CUDA: `sub.cc 0, 1` then `addc 1, 0` gives 1; `madc.lo.cc` overflowing then
//! `subc 2, 0` gives 2); the ISA's wording does not cover mixed chains.
//!
//! Signed and unsigned types give the same bits; only `mad.hi`'s product depends on the
//! signedness.

use super::int::{self as bits, self};
use super::mask;
use crate::ir::{ArithOp, CarryOp, MulMode, Type};

/// The result of `op` on `a, b, c` (raw bits of type `ty`; `c` is used by the mad forms
/// only) and the new flag `C`. `c_in` is the flag for the forms with carry-in
/// (`addc subc madc`), `None` for the others.
pub fn carry(op: CarryOp, ty: Type, a: u64, b: u64, c: u64, c_in: Option<bool>) -> (u64, bool) {
    let w = ty.bits().clamp(1, 64);
    match op {
        CarryOp::Add => bits::add_carry(w, a, b, c_in.unwrap_or(false)),
        // a - b - borrow = a + ~b + C, with C = 1 (no borrow) for sub.cc.
        CarryOp::Sub => bits::add_carry(w, a, !b & mask(w), c_in.unwrap_or(true)),
        CarryOp::MadLo | CarryOp::MadHi => {
            let mode = if op == CarryOp::MadHi {
                MulMode::Hi
            } else {
                MulMode::Lo
            };
            let t = int::arith(ArithOp::Mul(mode), ty, a, b, 0) & mask(w);
            bits::add_carry(w, t, c, c_in.unwrap_or(false))
        }
    }
}

#[cfg(test)]
mod tests {
    //! Oracle: u128 / i128 arithmetic written here, not the helpers above.
    use super::*;

    #[test]
    fn carry_chain_matches_wide_arithmetic() {
        let vals: [u64; 9] = [
            0,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x8000_0000_0000_0000,
            u64::MAX,
            0x1234_5678_9abc_def0,
        ];
        for ty in [Type::U32, Type::S32, Type::U64, Type::S64] {
            let w = ty.bits();
            let m = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            for &a in &vals {
                for &b in &vals {
                    for cin in [None, Some(false), Some(true)] {
                        let cf = cin == Some(true);
                        let (a, b, c) = (a & m, b & m, (a ^ b.rotate_left(7)) & m);
                        let s = a as u128 + b as u128 + cf as u128;
                        assert_eq!(
                            carry(CarryOp::Add, ty, a, b, 0, cin),
                            ((s as u64) & m, s >> w != 0)
                        );
                        // The flag after sub is "no borrow"; the borrow in is !C.
                        let borrow_in = cin == Some(false);
                        let d = (a as i128) - (b as i128) - borrow_in as i128;
                        assert_eq!(
                            carry(CarryOp::Sub, ty, a, b, 0, cin),
                            ((d as u64) & m, d >= 0)
                        );
                        let p = if ty.is_signed() {
                            let sx = |v: u64| ((v << (64 - w)) as i64 >> (64 - w)) as i128;
                            (sx(a) * sx(b)) as u128
                        } else {
                            a as u128 * b as u128
                        };
                        let lo = (p as u64) & m;
                        let hi = ((p >> w) as u64) & m;
                        for (op, t) in [(CarryOp::MadLo, lo), (CarryOp::MadHi, hi)] {
                            let s = t as u128 + c as u128 + cf as u128;
                            assert_eq!(
                                carry(op, ty, a, b, c, cin),
                                ((s as u64) & m, s >> w != 0),
                                "{op:?} {ty} {a:#x} {b:#x} {c:#x} {cin:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
