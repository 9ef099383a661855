//! The instruction families: one name per family in every stage, following the PTX ISA
//! manual's chapters (big chapters subdivided). `check/inst/<family>.rs` builds the
//! family's instructions, `ops/<family>.rs` holds their scalar semantics,
//! `interp/<family>.rs` runs them and the JIT lowers them per family;
//! [`InstKind::family`] is the one place that says which family an instruction is in.
//!
//! Block terminators (`bra brx.idx call ret exit`, `bar.sync`) are the control flow
//! family (`check/cflow.rs`, `check/call.rs`, the backends' control code). Texture and
//! surface instructions have no IR yet: `check` rejects them.

use super::*;

/// An instruction family (the PTX ISA chapter it is specified in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Integer arithmetic: `add sub mul mad mul24 mad24 sad div rem abs neg min max`
    /// (with `.sat`, `.relu` and the packed forms), `popc clz bfind fns brev bfe bfi bmsk
    /// szext dp4a dp2a`.
    Int,
    /// Extended-precision integer arithmetic: `add.cc addc sub.cc subc mad.cc madc`.
    Carry,
    /// f32/f64 arithmetic: `add sub mul fma mad div abs neg min max rcp sqrt rsqrt sin
    /// cos lg2 ex2 tanh copysign testp`.
    Float,
    /// Half precision: `.f16 .bf16 .f16x2 .bf16x2` arithmetic.
    Half,
    /// Comparison and selection: `set setp selp` (every type, half included).
    Compare,
    /// Logic and shift: `and or xor not cnot lop3 shf shl shr`.
    Logic,
    /// Register moves: `mov` (special registers, addresses), `prmt`.
    Data,
    /// Memory: `ld st cvta isspacep`.
    Mem,
    /// Conversion: `cvt`, `cvt.pack`.
    Convert,
    /// Parallel synchronisation: `bar.arrive`, `bar.red`'s result, `membar fence
    /// nanosleep` (`bar.sync` itself ends a block).
    Sync,
    /// Atomics: `atom red`.
    Atomic,
    /// Warp-level: `shfl vote match redux activemask elect bar.warp.sync`.
    Warp,
    /// Warp-level matrix: `mma ldmatrix movmatrix`.
    Matrix,
    /// Miscellaneous: the built-in calls `vprintf`, `__assertfail`, `malloc`, `free`
    /// and the `trap`/`brkpt` instructions.
    Misc,
    /// The scalar and SIMD video instructions: `vadd vsub vabsdiff vmin vmax vshl vshr
    /// vmad vset` and `vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4`.
    Video,
}

impl Family {
    /// The name used for the family's files (`check/inst/int.rs`, `ops/int.rs`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Family::Int => "int",
            Family::Carry => "carry",
            Family::Float => "float",
            Family::Half => "half",
            Family::Compare => "compare",
            Family::Logic => "logic",
            Family::Data => "data",
            Family::Mem => "mem",
            Family::Convert => "convert",
            Family::Sync => "sync",
            Family::Atomic => "atomic",
            Family::Warp => "warp",
            Family::Matrix => "matrix",
            Family::Misc => "misc",
            Family::Video => "video",
        }
    }
}

impl ArithOp {
    /// Whether this is a logic or shift operation (`and or xor not shl shr`).
    pub fn is_logic(self) -> bool {
        matches!(
            self,
            ArithOp::And | ArithOp::Or | ArithOp::Xor | ArithOp::Not | ArithOp::Shl | ArithOp::Shr
        )
    }
}

impl InstKind {
    /// The family this instruction belongs to.
    pub fn family(&self) -> Family {
        use InstKind::*;
        match self {
            Arith { op, ty, .. } => {
                if ty.is_float() {
                    Family::Float
                } else if op.is_logic() || *ty == Type::Pred {
                    Family::Logic
                } else {
                    Family::Int
                }
            }
            Bits { op, .. } => match op {
                BitOp::Lop3 { .. } | BitOp::Shf { .. } | BitOp::Cnot => Family::Logic,
                BitOp::Prmt(_) => Family::Data,
                _ => Family::Int,
            },
            MinMax { ty, .. } if ty.is_float() => Family::Float,
            MinMax { .. } => Family::Int,
            Carry { .. } => Family::Carry,
            Sfu { .. } | Copysign { .. } | Testp { .. } => Family::Float,
            Half { .. } => Family::Half,
            Setp { .. } | Set { .. } | SetpPacked { .. } | Selp { .. } => Family::Compare,
            Mov { .. } => Family::Data,
            Ld { .. } | St { .. } | Cvta { .. } | Isspacep { .. } => Family::Mem,
            Cvt { .. } | CvtX { .. } => Family::Convert,
            BarArrive { .. } | BarRedResult { .. } | Fence | OrderPoint | Nanosleep { .. } => {
                Family::Sync
            }
            Atom { .. } => Family::Atomic,
            Warp { .. } => Family::Warp,
            Matrix { .. } => Family::Matrix,
            Builtin { .. } | Texture { .. } => Family::Misc,
            Video { .. } => Family::Video,
            Async { .. } => Family::Sync,
        }
    }
}
