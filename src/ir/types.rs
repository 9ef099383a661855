//! PTX types ([`Type`], the register class that holds each, widths and signedness) and
//! state spaces ([`Space`]).

use super::*;

/// PTX types. Registers store 8/16/32-bit types in 32-bit containers, 64-bit types in
/// 64-bit containers and predicates as lane masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
}

/// How a type is held in a register container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// `.pred`: one bit per lane (JIT: lane masks).
    Pred,
    /// 8-, 16- and 32-bit types: a 32-bit container, value zero-extended.
    R32,
    /// 64-bit types.
    R64,
    /// 128-bit (`.b128`): not executable yet; `check` rejects instructions using it.
    R128,
}

impl Type {
    /// Width in bits (1 for `.pred`).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | BF16 => 16,
            B32 | U32 | S32 | F32 | F16x2 | BF16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }
    /// Size in memory in bytes (`.pred` counts as 1 for layout purposes).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
    pub fn class(self) -> RegClass {
        match self.bits() {
            1 => RegClass::Pred,
            8 | 16 | 32 => RegClass::R32,
            64 => RegClass::R64,
            _ => RegClass::R128,
        }
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64)
    }
    pub fn is_unsigned(self) -> bool {
        matches!(self, Type::U8 | Type::U16 | Type::U32 | Type::U64)
    }
    pub fn is_bits(self) -> bool {
        matches!(
            self,
            Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128
        )
    }
    pub fn is_int(self) -> bool {
        self.is_signed() || self.is_unsigned()
    }
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 | Type::F32 | Type::F64
        )
    }
    pub fn name(self) -> &'static str {
        use Type::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            BF16 => "bf16",
            BF16x2 => "bf16x2",
            F32 => "f32",
            F64 => "f64",
        }
    }
    pub fn from_name(s: &str) -> Option<Type> {
        use Type::*;
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => BF16,
            "bf16x2" => BF16x2,
            "f32" => F32,
            "f64" => F64,
            _ => return None,
        })
    }
    /// The unsigned integer type of the same width (bit pattern type).
    pub fn to_unsigned(self) -> Type {
        match self.bits() {
            8 => Type::U8,
            16 => Type::U16,
            32 => Type::U32,
            64 => Type::U64,
            _ => self,
        }
    }
    /// The signed integer type of the same width.
    pub fn to_signed(self) -> Type {
        match self.bits() {
            8 => Type::S8,
            16 => Type::S16,
            32 => Type::S32,
            64 => Type::S64,
            _ => self,
        }
    }
    /// The type twice as wide (for `.wide` results): s16 -> s32, u32 -> u64, ...
    pub fn widened(self) -> Option<Type> {
        use Type::*;
        Some(match self {
            U8 => U16,
            U16 => U32,
            U32 => U64,
            S8 => S16,
            S16 => S32,
            S32 => S64,
            B8 => B16,
            B16 => B32,
            B32 => B64,
            _ => return None,
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// PTX state spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Const,
    Param,
    /// No state space: the address is a generic address.
    Generic,
    /// `.shared::cluster`: the shared memory of every CTA of the cluster
    /// (`crate::exec::cluster` gives the address encoding; an address of the CTA's own
    /// `.shared` window is one of its own `.shared::cluster` addresses).
    SharedCluster,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
            Space::Generic => "generic",
            Space::SharedCluster => "shared::cluster",
        }
    }
}
