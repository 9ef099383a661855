//! The read-modify-write operations of `atom` and `red`: the new memory value from the
//! old one and the operands, per the ISA's semantics (`inc(r, s) = r >= s ? 0 : r + 1`,
//! `dec(r, s) = r == 0 || r > s ? s : r - 1`, `cas(r, s, t) = r == s ? t : r`). The
//! runtime applies them atomically (`crate::exec::atomic`).

use crate::ir::{ArithOp, AtomOp, FloatMode, HalfMode, HalfOp, Type};

/// Whether `(op, ty)` is an `atom`/`red` form of the ISA (scalar forms).
pub fn valid(op: AtomOp, ty: Type) -> bool {
    use Type::*;
    match op {
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(ty, B32 | B64),
        AtomOp::Exch => matches!(ty, B32 | B64),
        AtomOp::Cas => matches!(ty, B16 | B32 | B64),
        AtomOp::Add => matches!(
            ty,
            U32 | S32 | U64 | S64 | F32 | F64 | F16 | F16x2 | BF16 | BF16x2
        ),
        AtomOp::Inc | AtomOp::Dec => ty == U32,
        AtomOp::Min | AtomOp::Max => matches!(ty, U32 | S32 | U64 | S64),
    }
}

fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2)
}

/// Whether `(op, ty)` is an element of a vector `atom`/`red` form (`.v2 .v4 .v8`): `.f32`
/// add, or add/min/max on the half types.
pub fn valid_vector_elem(op: AtomOp, ty: Type) -> bool {
    match ty {
        Type::F32 => op == AtomOp::Add,
        _ => is_half(ty) && matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max),
    }
}

/// The value stored by `op` at a location holding `old` (raw bits of `ty`), with
/// operands `b` and `c` (`c` only for `cas`). `ftz`: flush f32 subnormal inputs and
/// result (`atom.add.f32` on global memory).
pub fn apply(op: AtomOp, ty: Type, old: u64, b: u64, c: u64, ftz: bool) -> u64 {
    let bits = ty.bits();
    let m = super::mask(bits);
    let (old, b, c) = (old & m, b & m, c & m);
    let signed = ty.is_signed();
    let key = |v: u64| {
        if signed {
            super::sext(v, bits) as i128
        } else {
            v as i128
        }
    };
    let r = match op {
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Min | AtomOp::Max if is_half(ty) => {
            let hop = if op == AtomOp::Min {
                HalfOp::Min
            } else {
                HalfOp::Max
            };
            super::half::eval(hop, ty, HalfMode::default(), old, b, 0)
        }
        AtomOp::Min => {
            if key(b) < key(old) {
                b
            } else {
                old
            }
        }
        AtomOp::Max => {
            if key(b) > key(old) {
                b
            } else {
                old
            }
        }
        AtomOp::Add => match ty {
            Type::F32 => {
                let fm = FloatMode {
                    ftz,
                    ..FloatMode::default()
                };
                super::arith(ArithOp::Add, Type::F32, fm, old, b, 0)
            }
            Type::F64 => super::arith(ArithOp::Add, Type::F64, FloatMode::default(), old, b, 0),
            Type::F16 | Type::BF16 | Type::F16x2 | Type::BF16x2 => {
                super::half::eval(HalfOp::Add, ty, HalfMode::default(), old, b, 0)
            }
            _ => old.wrapping_add(b),
        },
    };
    r & m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inc_dec_wrap_as_the_isa_says() {
        // inc: 0, 1, .., b, then back to 0.
        assert_eq!(apply(AtomOp::Inc, Type::U32, 4, 5, 0, false), 5);
        assert_eq!(apply(AtomOp::Inc, Type::U32, 5, 5, 0, false), 0);
        assert_eq!(apply(AtomOp::Inc, Type::U32, 9, 5, 0, false), 0);
        // dec: b when 0 or above b.
        assert_eq!(apply(AtomOp::Dec, Type::U32, 0, 5, 0, false), 5);
        assert_eq!(apply(AtomOp::Dec, Type::U32, 9, 5, 0, false), 5);
        assert_eq!(apply(AtomOp::Dec, Type::U32, 3, 5, 0, false), 2);
    }

    #[test]
    fn min_max_signedness_and_cas() {
        let neg1 = 0xffff_ffffu64;
        assert_eq!(apply(AtomOp::Min, Type::S32, 3, neg1, 0, false), neg1);
        assert_eq!(apply(AtomOp::Min, Type::U32, 3, neg1, 0, false), 3);
        assert_eq!(apply(AtomOp::Max, Type::S64, 3, u64::MAX, 0, false), 3);
        assert_eq!(
            apply(AtomOp::Cas, Type::B16, 0x1234, 0x1234, 0xbeef, false),
            0xbeef
        );
        assert_eq!(
            apply(AtomOp::Cas, Type::B16, 0x1235, 0x1234, 0xbeef, false),
            0x1235
        );
        assert_eq!(apply(AtomOp::Add, Type::U32, neg1, 2, 0, false), 1);
    }

    #[test]
    fn f32_add_flushes_only_with_ftz() {
        let tiny = 0x0000_0001u64; // smallest subnormal
        assert_eq!(apply(AtomOp::Add, Type::F32, tiny, tiny, 0, false), 2);
        assert_eq!(apply(AtomOp::Add, Type::F32, tiny, tiny, 0, true), 0);
        // 1.0 + 2.0 = 3.0; f16 1.0 (0x3c00) + 1.0 = 2.0 (0x4000); bf16 likewise.
        assert_eq!(
            apply(AtomOp::Add, Type::F32, 0x3f80_0000, 0x4000_0000, 0, true),
            0x4040_0000
        );
        assert_eq!(
            apply(AtomOp::Add, Type::F16, 0x3c00, 0x3c00, 0, false),
            0x4000
        );
        assert_eq!(
            apply(
                AtomOp::Add,
                Type::BF16x2,
                0x3f80_3f80,
                0x3f80_4000,
                0,
                false
            ),
            0x4000_4040
        );
    }
}
