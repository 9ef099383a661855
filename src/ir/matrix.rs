//! The operations of [`InstKind::Matrix`](super::InstKind::Matrix): the warp-level matrix
//! instructions `ldmatrix`, `mma.sync` and `movmatrix` (semantics and fragment layouts
//! in `crate::ops::matrix`).

use super::Type;

/// A warp-level matrix operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixOp {
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`: `num` (1, 2 or
    /// 4) 8x8 matrices of 16-bit elements, row `r` of matrix `m` read (16 bytes) from the
    /// address of lane `8m + r`; `trans` loads them column-major.
    Ldmatrix { num: u8, trans: bool },
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: transposes an 8x8 matrix of 16-bit
    /// elements held in the `ldmatrix` fragment layout.
    Movmatrix,
    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype`.
    Mma(MmaOp),
}

/// The shape and types of an `mma.sync` (`D = A * B + C`, A `m x k` row-major, B
/// `k x n` column-major, C and D `m x n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaOp {
    pub shape: MmaShape,
    pub dtype: Type,
    pub atype: Type,
    pub btype: Type,
    pub ctype: Type,
    /// `.satfinite` (integer forms): the sum clamps to the `.s32` range instead of
    /// wrapping.
    pub satfinite: bool,
}

/// `mma` shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    M16n8k16,
    M16n8k32,
}

impl MmaShape {
    /// `(m, n, k)`.
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16n8k16 => (16, 8, 16),
            MmaShape::M16n8k32 => (16, 8, 32),
        }
    }

    /// Registers per lane of the A, B and C/D fragments (32-bit registers).
    pub fn fragment_regs(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16n8k16 | MmaShape::M16n8k32 => (4, 2, 4),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MmaShape::M16n8k16 => "m16n8k16",
            MmaShape::M16n8k32 => "m16n8k32",
        }
    }
}

/// Number and types of a matrix operation's result registers and of its source
/// registers (in `InstKind::Matrix::srcs` order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixSignature {
    pub dsts: usize,
    pub dtype: Type,
    pub srcs: Vec<Type>,
}

impl MmaOp {
    /// Whether ptxjit implements this shape and type combination.
    pub fn supported(self) -> bool {
        use Type::*;
        match self.shape {
            MmaShape::M16n8k16 => {
                matches!(self.atype, F16 | BF16)
                    && self.btype == self.atype
                    && self.ctype == F32
                    && self.dtype == F32
                    && !self.satfinite
            }
            MmaShape::M16n8k32 => {
                matches!(self.atype, S8 | U8)
                    && matches!(self.btype, S8 | U8)
                    && self.ctype == S32
                    && self.dtype == S32
            }
        }
    }
}

impl MatrixOp {
    /// The operands of the operation, or `None` when ptxjit does not implement it.
    pub fn signature(self) -> Option<MatrixSignature> {
        match self {
            MatrixOp::Ldmatrix { num, .. } => matches!(num, 1 | 2 | 4).then(|| MatrixSignature {
                dsts: num as usize,
                dtype: Type::B32,
                srcs: vec![],
            }),
            MatrixOp::Movmatrix => Some(MatrixSignature {
                dsts: 1,
                dtype: Type::B32,
                srcs: vec![Type::B32],
            }),
            MatrixOp::Mma(m) => {
                if !m.supported() {
                    return None;
                }
                let (na, nb, nc) = m.shape.fragment_regs();
                let mut srcs = vec![Type::B32; na + nb];
                srcs.extend(std::iter::repeat_n(m.ctype, nc));
                Some(MatrixSignature {
                    dsts: nc,
                    dtype: m.dtype,
                    srcs,
                })
            }
        }
    }
}
