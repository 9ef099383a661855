//! The integer family's bit-manipulation and packed-integer operations
//! ([`InstKind::Bits`](super::InstKind::Bits)) and their operand signature. `lop3`, `shf`,
//! `cnot` (logic) and `prmt` (data movement) share the operand shape and are here too
//! (their family: [`InstKind::family`](super::InstKind::family)).

use super::Type;

/// The operations of [`InstKind::Bits`](super::InstKind::Bits), with their modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    Popc,
    Clz,
    Brev,
    Bfind {
        shiftamt: bool,
    },
    Bfe,
    Bfi,
    Prmt(Option<PrmtMode>),
    Lop3 {
        lut: u8,
    },
    Shf {
        left: bool,
        clamp: bool,
    },
    Cnot,
    Mul24 {
        hi: bool,
    },
    Mad24 {
        hi: bool,
        sat: bool,
    },
    Sad,
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    Fns,
    Bmsk {
        clamp: bool,
    },
    Szext {
        clamp: bool,
    },
    AddSat,
    SubSat,
}

/// `prmt` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

impl BitOp {
    /// Operand types (in order) and result type with instruction type `ty` (for
    /// `dp4a`/`dp2a`, `ty` is the accumulator's type: `.u32` when both inputs are
    /// unsigned, else `.s32`).
    pub fn signature(self, ty: Type) -> (Vec<Type>, Type) {
        use Type::{B32, S32, U32};
        match self {
            BitOp::Popc | BitOp::Clz | BitOp::Bfind { .. } => (vec![ty], U32),
            BitOp::Brev | BitOp::Cnot => (vec![ty], ty),
            BitOp::Bfe => (vec![ty, U32, U32], ty),
            BitOp::Bfi => (vec![ty, ty, U32, U32], ty),
            BitOp::Prmt(_) | BitOp::Lop3 { .. } => (vec![B32, B32, B32], B32),
            BitOp::Shf { .. } => (vec![B32, B32, U32], B32),
            BitOp::Mul24 { .. } => (vec![ty, ty], ty),
            BitOp::Mad24 { .. } | BitOp::Sad => (vec![ty, ty, ty], ty),
            BitOp::Dp4a { .. } | BitOp::Dp2a { .. } => (vec![U32, U32, ty], ty),
            // The ISA types `base` .u32 and `offset` .s32, but ptxas 12.9 takes any 32-bit
            // register and hexadecimal float constants for all three (as bits, like `prmt`).
            BitOp::Fns => (vec![B32, B32, B32], B32),
            BitOp::Bmsk { .. } => (vec![B32, U32], B32),
            BitOp::Szext { .. } => (vec![ty, U32], ty),
            BitOp::AddSat | BitOp::SubSat => (vec![S32, S32], S32),
        }
    }
}
