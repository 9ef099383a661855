//! Dense numeric codes of IR enumerations, for packing operations into the small
//! integers that helper-call descriptors and async-operation codes carry. One table per
//! enumeration, in declaration order: `code` is the index, `from_code` its inverse.

use super::{AtomOp, Type};

/// Every [`Type`], in declaration order.
const TYPES: [Type; 20] = [
    Type::Pred,
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F16,
    Type::F16x2,
    Type::BF16,
    Type::BF16x2,
    Type::F32,
    Type::F64,
];

/// Every [`AtomOp`], in declaration order.
const ATOM_OPS: [AtomOp; 10] = [
    AtomOp::Add,
    AtomOp::Min,
    AtomOp::Max,
    AtomOp::Inc,
    AtomOp::Dec,
    AtomOp::And,
    AtomOp::Or,
    AtomOp::Xor,
    AtomOp::Exch,
    AtomOp::Cas,
];

impl Type {
    /// This type's code, below 32.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The type of code `c`.
    pub fn from_code(c: u64) -> Option<Type> {
        TYPES.get(usize::try_from(c).ok()?).copied()
    }
}

impl AtomOp {
    /// This operation's code, below 16.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The operation of code `c`.
    pub fn from_code(c: u64) -> Option<AtomOp> {
        ATOM_OPS.get(usize::try_from(c).ok()?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (i, &t) in TYPES.iter().enumerate() {
            assert_eq!(t.code(), i as u64);
            assert_eq!(Type::from_code(t.code()), Some(t));
        }
        for (i, &o) in ATOM_OPS.iter().enumerate() {
            assert_eq!(o.code(), i as u64);
            assert_eq!(AtomOp::from_code(o.code()), Some(o));
        }
        assert_eq!(Type::from_code(20), None);
        assert_eq!(AtomOp::from_code(10), None);
    }
}
