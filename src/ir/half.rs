//! The operations and modifiers of [`InstKind::Half`](super::InstKind::Half):
//! half-precision arithmetic on `.f16`, `.bf16`, `.f16x2` and `.bf16x2`.

/// Half-precision operations. Every operand and the result have the instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    /// `fma.rn`: a * b + c, rounded once.
    Fma,
    Neg,
    Abs,
    Min,
    Max,
    /// `ex2.approx` (see `crate::ops::half` for the error).
    Ex2,
    /// `tanh.approx` (see `crate::ops::half` for the error).
    Tanh,
}

impl HalfOp {
    /// Number of source operands.
    pub fn arity(self) -> usize {
        match self {
            HalfOp::Neg | HalfOp::Abs | HalfOp::Ex2 | HalfOp::Tanh => 1,
            HalfOp::Fma => 3,
            _ => 2,
        }
    }
}

/// Modifiers of a half-precision operation. Rounding is always to nearest even: `.rn`
/// is the only rounding modifier PTX has for these instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HalfMode {
    /// `.ftz`: subnormal inputs and results flush to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: the result clamps to [+0.0, 1.0], NaN to +0.0.
    pub sat: bool,
    /// `.relu` (`fma`): a negative result (or -0.0) becomes +0.0, NaN the canonical NaN.
    pub relu: bool,
    /// `min/max.NaN`: a NaN input gives the canonical NaN.
    pub nan: bool,
    /// `min/max.xorsign.abs`: compare |a| and |b|; the (non-NaN) result gets the sign
    /// of a XOR b.
    pub xorsign_abs: bool,
    /// `fma.oob`: the result is +0.0 when `a` or `b` is the tensor "OOB NaN"
    /// ([`OOB_NAN`]).
    pub oob: bool,
}

/// The tensor-memory "OOB NaN" of `fma.oob` (either sign), for f16 and bf16 alike: the
/// only 16-bit patterns an H100 treats so (tests/golden/oob_run: all 65,536 patterns
/// of `a`, of `b` and of `c` were tried; in `c` it is an ordinary NaN).
pub const OOB_NAN: u16 = 0x7ff7;
