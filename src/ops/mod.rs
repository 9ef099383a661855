//! Scalar semantics of every PTX operation, in one place: used by the interpreter for
//! every lane, by JIT helper calls where Cranelift has no exact vector equivalent, and
//! by tests as the reference.
//!
//! Values are raw bit patterns in a `u64`, zero-extended from the width of their PTX
//! type (`.pred` is 0 or 1). Round-to-nearest float arithmetic uses the host's IEEE
//! operations (bit-exact by IEEE 754); directed rounding modes and integer <-> float
//! conversions with directed rounding use `rustc_apfloat` (rust-lang's port of LLVM's
//! APFloat), which implements every IEEE rounding mode in software.
//!
//! GPU conventions implemented here:
//! - a float operation whose result is NaN returns the canonical NaN (f32 `0x7fffffff`;
//!   f64 `0x7fffffffffffffff`, chosen by analogy and not yet confirmed on a GPU);
//! - `.ftz` (f32 only) flushes subnormal inputs and results to sign-preserving zero;
//! - `.sat` clamps float results to [0.0, 1.0], NaN to +0.0;
//! - `min`/`max` return the non-NaN operand when exactly one is NaN, and order -0 < +0;
//! - shifts clamp: an amount >= the width gives 0 (`shl`, `shr.u`) or the sign fill
//!   (`shr.s`);
//! - integer division never traps: x/0 gives all ones, x%0 gives x, MIN/-1 gives MIN
//!   (integer div/rem are not accepted by the front end yet).

pub mod approx;
pub mod atomic;
pub mod carry;
pub mod convert;
pub mod float;
pub mod half;
pub mod int;
pub mod matrix;
pub mod matrix_num;
pub mod video;
pub mod warp;
pub mod wgmma;

pub use convert::cvt;
pub use float::{approx_div_huge_divisor, canonical_nan, flush_f32};
pub use half::{f16_to_f64, flush_f16};

use crate::ir::{ArithOp, CmpOp, FloatMode, Type};

/// All-ones mask of `bits` bits (`bits` in 1..=64).
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// Reads `v` as a value of type `ty` and extends it to 64 bits per the type's
/// signedness (sign extension for signed types, zero extension otherwise).
#[inline]
pub fn extend(v: u64, ty: Type) -> u64 {
    let bits = ty.bits().min(64);
    if ty.is_signed() {
        sext(v, bits) as u64
    } else {
        v & mask(bits)
    }
}

/// The result of an arithmetic or logic operation. `a`, `b`, `c` are operands of type
/// `ty` (for `Shl`/`Shr`, `b` is the u32 shift amount; for `Mad(Wide)`, `c` is twice as
/// wide). Unused operands are ignored. The result has `ty`'s width, or twice that for
/// `Mul(Wide)`/`Mad(Wide)`.
pub fn arith(op: ArithOp, ty: Type, fm: FloatMode, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        Type::F32 => float::arith_f32(op, fm, a as u32, b as u32, c as u32) as u64,
        Type::F64 => float::arith_f64(op, fm, a, b, c),
        Type::Pred => int::pred(op, a & 1, b & 1),
        _ => int::arith(op, ty, a, b, c),
    }
}

/// What `set` writes for a (combined) comparison result `t`: 1.0 in the destination's
/// float format (`.f32`, `.f16`, `.bf16`), 0xffff (`.u16`/`.s16`) or 0xffffffff (32-bit
/// integer destinations) when true, 0 when false.
pub fn set_value(dty: Type, t: bool) -> u64 {
    match (t, dty) {
        (false, _) => 0,
        (true, Type::F32) => 0x3f80_0000,
        (true, Type::F16) => 0x3c00,
        (true, Type::BF16) => 0x3f80,
        (true, Type::U16 | Type::S16 | Type::B16) => 0xffff,
        (true, _) => 0xffff_ffff,
    }
}

/// The result of `setp.cmp.ty a, b` (without the BoolOp combination).
pub fn setp(cmp: CmpOp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    match ty {
        Type::F32 => {
            let (x, y) = if ftz {
                (flush_f32(a as u32), flush_f32(b as u32))
            } else {
                (a as u32, b as u32)
            };
            float::compare(cmp, f32::from_bits(x) as f64, f32::from_bits(y) as f64)
        }
        Type::F64 => float::compare(cmp, f64::from_bits(a), f64::from_bits(b)),
        Type::F16 => {
            let (x, y) = (a as u16, b as u16);
            let (x, y) = if ftz {
                (flush_f16(x), flush_f16(y))
            } else {
                (x, y)
            };
            float::compare(cmp, f16_to_f64(x), f16_to_f64(y))
        }
        Type::BF16 => {
            let bf = |v: u64| half::to_f64(half::HalfKind::BF16, v as u16);
            float::compare(cmp, bf(a), bf(b))
        }
        _ => int::compare(cmp, ty, a, b),
    }
}

#[cfg(test)]
mod tests;
