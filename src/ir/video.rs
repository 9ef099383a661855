//! The video instructions ([`InstKind::Video`]): the scalar `vadd vsub vabsdiff vmin vmax
//! vshl vshr vmad vset` and the SIMD `vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4
//! vmax2/4 vset2/4`, each described by one [`VideoOp`] (types, selectors, saturation,
//! secondary operation). All operands are 32-bit; the semantics are `crate::ops::video`.
//!
//! [`InstKind::Video`]: super::InstKind::Video

/// The primary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoKind {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    /// SIMD only: the rounded average.
    Avrg,
    /// Scalar only.
    Shl,
    /// Scalar only.
    Shr,
    /// Scalar only: `vmad`.
    Mad,
    /// The comparison `vset`, `vset2`, `vset4`.
    Set(VideoCmp),
}

/// The comparison of `vset*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The secondary operation with `c` (`.add .min .max`; SIMD forms have only `.add`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoOp2 {
    Add,
    Min,
    Max,
}

/// A byte or half-word selector of a scalar video operand (`.b0 .. .b3`, `.h0`, `.h1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoSel {
    Byte(u8),
    Half(u8),
}

/// One video instruction's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VideoOp {
    pub kind: VideoKind,
    /// 1 for the scalar instructions, 2 (`...2`: half-words) or 4 (`...4`: bytes).
    pub lanes: u8,
    /// The destination type is `.s32` (`vset`: the intermediate is unsigned; this is
    /// `atype`'s signedness, which the GPU uses for the secondary operation).
    pub dsigned: bool,
    pub asigned: bool,
    pub bsigned: bool,
    pub sat: bool,
    pub op2: Option<VideoOp2>,
    /// Scalar: the destination selector (`d.b1`: merge with `c`). SIMD: unused.
    pub dsel: Option<VideoSel>,
    /// Scalar: the operand selectors.
    pub asel: Option<VideoSel>,
    pub bsel: Option<VideoSel>,
    /// SIMD: the element of `{b, a}` (bytes 0-7 or half-words 0-3) each lane of `a`'s and
    /// `b`'s operand takes, lane 0 in the low nibble (`.b3210` = 0x3210, the default of
    /// `a`; `.b7654` of `b`; `.h10`/`.h32` for two lanes).
    pub simd_asel: u16,
    pub simd_bsel: u16,
    /// SIMD: the lanes written (bit i: lane i; `.b3210`/`.h10` by default).
    pub simd_mask: u8,
    /// `vshl`/`vshr`: `.clamp` (else `.wrap`).
    pub clamp: bool,
    /// `vmad`: `.shr7`/`.shr15` (0: none).
    pub scale: u8,
    /// `vmad`: `.po` (plus one).
    pub po: bool,
    /// `vmad`: exactly one of `a`, `b` negated (the product is negated).
    pub neg_prod: bool,
    /// `vmad`: `c` negated.
    pub neg_c: bool,
}

impl VideoOp {
    /// Whether the instruction reads a third operand `c`.
    pub fn has_c(&self) -> bool {
        self.lanes > 1 || self.kind == VideoKind::Mad || self.op2.is_some() || self.dsel.is_some()
    }
}
