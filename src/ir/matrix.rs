//! The operations of [`InstKind::Matrix`](super::InstKind::Matrix): the warp-level matrix
//! instructions `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync` and `wmma.load/store/mma`
//! (semantics in `crate::ops::matrix`, fragment layouts in [`layout`]).

use super::Type;

#[path = "matrix_layout.rs"]
pub mod layout;

/// A warp-level matrix operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixOp {
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`: `num` (1, 2 or
    /// 4) 8x8 matrices of 16-bit elements, row `r` of matrix `m` read (16 bytes) from the
    /// address of lane `8m + r`; `trans` loads them column-major.
    Ldmatrix { num: u8, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`: the inverse
    /// of `ldmatrix` (row `r` of matrix `m` written to the address of lane `8m + r`).
    Stmatrix { num: u8, trans: bool },
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: transposes an 8x8 matrix of 16-bit
    /// elements held in the `ldmatrix` fragment layout.
    Movmatrix,
    /// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype{.op.popc}`.
    Mma(MmaOp),
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type r, [p]{, stride}`.
    WmmaLoad(WmmaFrag),
    /// `wmma.store.d.sync.aligned.layout.shape{.space}.type [p], r{, stride}`.
    WmmaStore(WmmaFrag),
    /// `wmma.mma.sync.aligned.alayout.blayout.shape...`: the shape's product in the
    /// `wmma` fragment layouts.
    WmmaMma(MmaOp),
    /// `wgmma.mma_async.sync.aligned.m64nNkK...`: one warp's 16 rows of the warpgroup's
    /// product (`crate::ops::wgmma`).
    Wgmma(WgmmaOp),
}

/// A `wgmma.mma_async` (`D = A * B + scale-d * D`, A `64 x K`, B `K x N`): sources
/// are A (four `.b32` registers, or its matrix descriptor), B's descriptor, the
/// accumulator registers (D's own) and scale-d (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaOp {
    /// `N` (8 to 256).
    pub n: u16,
    pub dtype: ElemType,
    pub atype: ElemType,
    pub btype: ElemType,
    /// A comes from a matrix descriptor (else from registers).
    pub a_desc: bool,
    /// `imm-scale-a` / `imm-scale-b` of -1: the operand is negated.
    pub neg_a: bool,
    pub neg_b: bool,
    /// `imm-trans-a` / `imm-trans-b` of 1: M-major A / N-major B (else K-major).
    pub trans_a: bool,
    pub trans_b: bool,
    pub satfinite: bool,
    /// `.and.popc` of `.b1`.
    pub bop: Option<PopcOp>,
}

impl WgmmaOp {
    /// `K` of the shape, from the input type.
    pub fn k(self) -> usize {
        match self.atype {
            ElemType::F16 | ElemType::BF16 => 16,
            ElemType::TF32 => 8,
            ElemType::B1 => 256,
            _ => 32,
        }
    }

    /// Accumulator registers per lane (`.f16`: two elements per register).
    pub fn d_regs(self) -> usize {
        let n = self.n as usize;
        if self.dtype == ElemType::F16 {
            n / 4
        } else {
            n / 2
        }
    }
}

/// Element types of matrix fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    F16,
    BF16,
    TF32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
    E4M3,
    E5M2,
}

impl ElemType {
    pub const ALL: [ElemType; 13] = [
        ElemType::F16,
        ElemType::BF16,
        ElemType::TF32,
        ElemType::F32,
        ElemType::F64,
        ElemType::S8,
        ElemType::U8,
        ElemType::S4,
        ElemType::U4,
        ElemType::B1,
        ElemType::S32,
        ElemType::E4M3,
        ElemType::E5M2,
    ];

    pub fn bits(self) -> u32 {
        use ElemType::*;
        match self {
            F16 | BF16 => 16,
            TF32 | F32 | S32 => 32,
            F64 => 64,
            S8 | U8 | E4M3 | E5M2 => 8,
            S4 | U4 => 4,
            B1 => 1,
        }
    }

    pub fn name(self) -> &'static str {
        use ElemType::*;
        match self {
            F16 => "f16",
            BF16 => "bf16",
            TF32 => "tf32",
            F32 => "f32",
            F64 => "f64",
            S8 => "s8",
            U8 => "u8",
            S4 => "s4",
            U4 => "u4",
            B1 => "b1",
            S32 => "s32",
            E4M3 => "e4m3",
            E5M2 => "e5m2",
        }
    }

    pub fn from_name(s: &str) -> Option<ElemType> {
        ElemType::ALL.iter().copied().find(|t| t.name() == s)
    }

    /// The register type of a fragment register holding this type: `.f64` for f64,
    /// `.f32`/`.s32` for those, `.b32` (packed elements) otherwise.
    pub fn reg_type(self) -> Type {
        match self {
            ElemType::F64 => Type::F64,
            ElemType::F32 => Type::F32,
            ElemType::S32 => Type::S32,
            _ => Type::B32,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            ElemType::S8 | ElemType::U8 | ElemType::S4 | ElemType::U4 | ElemType::S32
        )
    }
}

/// `mma` and `wmma` shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    M8n8k4,
    M16n8k4,
    M16n8k8,
    M8n8k16,
    M16n8k16,
    M16n8k32,
    M8n8k32,
    M16n8k64,
    M8n8k128,
    M16n8k128,
    M16n8k256,
    M16n16k16,
    M32n8k16,
    M8n32k16,
    M16n16k8,
}

impl MmaShape {
    pub const ALL: [MmaShape; 15] = [
        MmaShape::M8n8k4,
        MmaShape::M16n8k4,
        MmaShape::M16n8k8,
        MmaShape::M8n8k16,
        MmaShape::M16n8k16,
        MmaShape::M16n8k32,
        MmaShape::M8n8k32,
        MmaShape::M16n8k64,
        MmaShape::M8n8k128,
        MmaShape::M16n8k128,
        MmaShape::M16n8k256,
        MmaShape::M16n16k16,
        MmaShape::M32n8k16,
        MmaShape::M8n32k16,
        MmaShape::M16n16k8,
    ];

    /// `(m, n, k)`.
    pub fn mnk(self) -> (usize, usize, usize) {
        use MmaShape::*;
        match self {
            M8n8k4 => (8, 8, 4),
            M16n8k4 => (16, 8, 4),
            M16n8k8 => (16, 8, 8),
            M8n8k16 => (8, 8, 16),
            M16n8k16 => (16, 8, 16),
            M16n8k32 => (16, 8, 32),
            M8n8k32 => (8, 8, 32),
            M16n8k64 => (16, 8, 64),
            M8n8k128 => (8, 8, 128),
            M16n8k128 => (16, 8, 128),
            M16n8k256 => (16, 8, 256),
            M16n16k16 => (16, 16, 16),
            M32n8k16 => (32, 8, 16),
            M8n32k16 => (8, 32, 16),
            M16n16k8 => (16, 16, 8),
        }
    }

    pub fn name(self) -> &'static str {
        use MmaShape::*;
        match self {
            M8n8k4 => "m8n8k4",
            M16n8k4 => "m16n8k4",
            M16n8k8 => "m16n8k8",
            M8n8k16 => "m8n8k16",
            M16n8k16 => "m16n8k16",
            M16n8k32 => "m16n8k32",
            M8n8k32 => "m8n8k32",
            M16n8k64 => "m16n8k64",
            M8n8k128 => "m8n8k128",
            M16n8k128 => "m16n8k128",
            M16n8k256 => "m16n8k256",
            M16n16k16 => "m16n16k16",
            M32n8k16 => "m32n8k16",
            M8n32k16 => "m8n32k16",
            M16n16k8 => "m16n16k8",
        }
    }

    pub fn from_name(s: &str) -> Option<MmaShape> {
        MmaShape::ALL.iter().copied().find(|x| x.name() == s)
    }

    pub fn code(self) -> u8 {
        MmaShape::ALL.iter().position(|&x| x == self).unwrap_or(0) as u8
    }
}

/// The single-bit `mma`/`wmma` operations (`.xor.popc`, `.and.popc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PopcOp {
    Xor,
    And,
}

/// The shape, layouts and types of an `mma.sync` or `wmma.mma` (`D = A * B + C`, A
/// `m x k`, B `k x n`, C and D `m x n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaOp {
    pub shape: MmaShape,
    pub dtype: ElemType,
    pub atype: ElemType,
    pub btype: ElemType,
    pub ctype: ElemType,
    /// Layout qualifiers (`.row` = true); for `mma` (layout-independent fragments
    /// except `m8n8k4` f16) they are `.row.col`.
    pub arow: bool,
    pub brow: bool,
    /// `.satfinite` (integer forms): the sum clamps to the `.s32` range instead of
    /// wrapping.
    pub satfinite: bool,
    /// `.xor.popc` / `.and.popc` of the `.b1` forms.
    pub bop: Option<PopcOp>,
    /// `wmma` f64 rounding (`.rn`, `.rz`, `.rm`, `.rp`: 0..3; `None` = `.rn`).
    pub rnd: Option<u8>,
    /// `mma.sp` (and `mma.sp::ordered_metadata`): A is 2:4 sparse, held compressed
    /// (`m x k/2`); the metadata register and the sparsity selector follow C.
    pub sparse: bool,
}

/// Which fragment a `wmma.load`/`wmma.store` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Frag {
    A,
    B,
    C,
    D,
}

/// A `wmma.load`/`wmma.store` fragment: which matrix, shape, element type and memory
/// layout (`row`: row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaFrag {
    pub frag: Frag,
    pub shape: MmaShape,
    pub ty: ElemType,
    pub row: bool,
}

/// Number and types of a matrix operation's result registers and of its source
/// registers (in `InstKind::Matrix::srcs` order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixSignature {
    pub dsts: usize,
    pub dtype: Type,
    pub srcs: Vec<Type>,
}

impl MatrixOp {
    /// The operands of the operation, or `None` when ptxjit does not implement it.
    pub fn signature(self) -> Option<MatrixSignature> {
        let sig = |dsts, dtype, srcs| Some(MatrixSignature { dsts, dtype, srcs });
        match self {
            MatrixOp::Ldmatrix { num, .. } => {
                matches!(num, 1 | 2 | 4).then_some(())?;
                sig(num as usize, Type::B32, vec![])
            }
            MatrixOp::Stmatrix { num, .. } => {
                matches!(num, 1 | 2 | 4).then_some(())?;
                sig(0, Type::B32, vec![Type::B32; num as usize])
            }
            MatrixOp::Movmatrix => sig(1, Type::B32, vec![Type::B32]),
            MatrixOp::Mma(m) | MatrixOp::WmmaMma(m) => {
                let wmma = matches!(self, MatrixOp::WmmaMma(_));
                let regs = |f, ty| layout::frag_regs(wmma, m.shape, f, ty);
                let na = if m.sparse {
                    layout::sparse_a_regs(m)?
                } else {
                    regs(Frag::A, m.atype)?
                };
                let nb = regs(Frag::B, m.btype)?;
                let (nc, nd) = (regs(Frag::C, m.ctype)?, regs(Frag::D, m.dtype)?);
                layout::mma_supported(wmma, m).then_some(())?;
                let mut srcs = vec![m.atype.reg_type(); na];
                srcs.extend(std::iter::repeat_n(m.btype.reg_type(), nb));
                srcs.extend(std::iter::repeat_n(m.ctype.reg_type(), nc));
                if m.sparse {
                    srcs.extend([Type::B32, Type::U32]);
                }
                sig(nd, m.dtype.reg_type(), srcs)
            }
            MatrixOp::WmmaLoad(f) => {
                let n = layout::frag_regs(true, f.shape, f.frag, f.ty)?;
                sig(n, f.ty.reg_type(), vec![Type::U32])
            }
            MatrixOp::WmmaStore(f) => {
                let n = layout::frag_regs(true, f.shape, f.frag, f.ty)?;
                let mut srcs = vec![f.ty.reg_type(); n];
                srcs.push(Type::U32);
                sig(0, Type::B32, srcs)
            }
            MatrixOp::Wgmma(w) => {
                let mut srcs = if w.a_desc {
                    vec![Type::U64]
                } else {
                    vec![Type::B32; 4]
                };
                srcs.push(Type::U64);
                let dty = w.dtype.reg_type();
                srcs.extend(std::iter::repeat_n(dty, w.d_regs()));
                srcs.push(Type::U32);
                sig(w.d_regs(), dty, srcs)
            }
        }
    }
}
