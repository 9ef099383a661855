//! The extended-precision carry chain (PTX ISA: extended-precision arithmetic):
//! `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`
//! on `.u32 .s32 .u64 .s64`.
//!
//! The condition code's carry flag `CC.CF` holds a carry after `add`/`mad` and a borrow
//! after `sub` (ISA: `sub.cc` writes the "borrow-out" to `CC.CF`, `subc` computes
//! `a - (b + CC.CF)`). Signed and unsigned types give the same bits; only `mad.hi`'s
//! product depends on the signedness. An instruction without carry-in (`add.cc`,
//! `sub.cc`, `mad.cc`) is this function with `cf = false`.

use super::{bits, int, mask};
use crate::ir::{ArithOp, CarryOp, MulMode, Type};

/// The result of `op` on `a, b, c` (raw bits of type `ty`; `c` is used by the mad forms
/// only) with carry/borrow in `cf`, and the carry/borrow out.
pub fn carry(op: CarryOp, ty: Type, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let w = ty.bits().clamp(1, 64);
    match op {
        CarryOp::Add => bits::add_carry(w, a, b, cf),
        CarryOp::Sub => bits::sub_borrow(w, a, b, cf),
        CarryOp::MadLo | CarryOp::MadHi => {
            let mode = if op == CarryOp::MadHi {
                MulMode::Hi
            } else {
                MulMode::Lo
            };
            let t = int::arith(ArithOp::Mul(mode), ty, a, b, 0) & mask(w);
            bits::add_carry(w, t, c, cf)
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
                    for cf in [false, true] {
                        let (a, b, c) = (a & m, b & m, (a ^ b.rotate_left(7)) & m);
                        let s = a as u128 + b as u128 + cf as u128;
                        assert_eq!(
                            carry(CarryOp::Add, ty, a, b, 0, cf),
                            ((s as u64) & m, s >> w != 0)
                        );
                        let d = (a as i128) - (b as i128) - cf as i128;
                        assert_eq!(
                            carry(CarryOp::Sub, ty, a, b, 0, cf),
                            ((d as u64) & m, d < 0)
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
                                carry(op, ty, a, b, c, cf),
                                ((s as u64) & m, s >> w != 0),
                                "{op:?} {ty} {a:#x} {b:#x} {c:#x} {cf}"
                            );
                        }
                    }
                }
            }
        }
    }
}
