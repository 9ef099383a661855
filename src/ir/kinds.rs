//! The operation enums of the synchronisation, atomic, carry, min/max, class-test and
//! narrow-conversion instruction families, and [`InstKind::defs`] (the registers an
//! instruction writes).

use super::*;

impl InstKind {
    /// Whether this is the grid barrier of a cooperative launch
    /// (`__cuda_syscall_CGS_sync`, `crate::exec::gridsync`), which suspends the warp as
    /// a barrier does.
    pub fn waits_for_grid(&self) -> bool {
        matches!(
            self,
            InstKind::Builtin {
                op: Builtin::Cdp(CdpFn::CgsSync),
                ..
            }
        )
    }

    /// The registers this instruction writes.
    pub fn defs(&self) -> Vec<RegId> {
        use InstKind::*;
        let one = |r: &RegId| vec![*r];
        let opt = |rs: &[Option<RegId>]| rs.iter().flatten().copied().collect::<Vec<_>>();
        match self {
            Mov { dst, .. }
            | Arith { dst, .. }
            | Selp { dst, .. }
            | Cvta { dst, .. }
            | Cvt { dst, .. }
            | Bits { dst, .. }
            | Set { dst, .. }
            | Sfu { dst, .. }
            | BarRedResult { dst, .. }
            | Half { dst, .. }
            | Isspacep { dst, .. }
            | MinMax { dst, .. }
            | Copysign { dst, .. }
            | Testp { dst, .. }
            | CvtX { dst, .. }
            | Video { dst, .. } => one(dst),
            Setp { dst, dst_neg, .. } => opt(&[*dst, *dst_neg]),
            SetpPacked { dst_lo, dst_hi, .. } => opt(&[*dst_lo, *dst_hi]),
            Warp { dst, pred, .. } => opt(&[*dst, *pred]),
            Carry { dst, cc_out, .. } => opt(&[Some(*dst), *cc_out]),
            Atom { dst, .. } => opt(&[*dst]),
            Ld { dsts, .. } | Matrix { dsts, .. } | Texture { dsts, .. } => opt(dsts),
            Builtin { dst, .. } => opt(&[*dst]),
            Async { dsts, .. } => opt(dsts),
            St { .. } | Nanosleep { .. } | Fence | BarArrive { .. } | OrderPoint => vec![],
        }
    }
}

/// The reductions of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.popc.u32`: the number of threads whose predicate is true.
    Popc,
    /// `.and.pred`: all true.
    And,
    /// `.or.pred`: any true.
    Or,
}

/// The operations of [`InstKind::Atom`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// The operations of [`InstKind::Warp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    Shfl(ShflMode),
    /// `vote.all/any/uni.pred`.
    Vote(VoteMode),
    /// `vote.ballot.b32`.
    Ballot,
    /// `match.any` / `match.all` (`.b32`, `.b64`).
    Match {
        all: bool,
    },
    /// `redux.sync.op.type`.
    Redux(ReduxOp),
    Activemask,
    Elect,
    /// `bar.warp.sync`: no data effect (lanes of a warp run in lockstep here).
    WarpSync,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    All,
    Any,
    Uni,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// The operations of [`InstKind::Carry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CarryOp {
    /// `d = a + b (+ CF)`, carry out.
    Add,
    /// `d = a - b - borrow` with borrow = `!CF` (`a + ~b + CF`); the new flag is 1 when
    /// there is no borrow (see `crate::ops::carry`).
    Sub,
    /// `d = (a * b).lo + c (+ CF)`, carry out of the addition.
    MadLo,
    /// `d = (a * b).hi + c (+ CF)` (signed product for `.s32`/`.s64`), carry out of the
    /// addition.
    MadHi,
}

/// The modifiers of an [`InstKind::MinMax`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MinMaxOp {
    /// `max` (else `min`).
    pub max: bool,
    /// `.ftz` (f32).
    pub ftz: bool,
    /// `.NaN`: a NaN input gives the canonical NaN (f32).
    pub nan: bool,
    /// `.xorsign.abs`: compare magnitudes; the result's sign is the XOR of the inputs'
    /// signs unless it is NaN (f32).
    pub xorsign_abs: bool,
    /// `.relu`: negative results become 0 (`.s32`, `.s16x2`).
    pub relu: bool,
    /// Two 16-bit halves of a `.b32` (`.u16x2`, `.s16x2`).
    pub packed: bool,
}

/// The tests of [`InstKind::Testp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestpOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// Float formats of the [`InstKind::CvtX`] conversions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MiniFmt {
    F16,
    BF16,
    /// `.tf32`: an f32 whose mantissa is rounded to 10 bits (low 13 bits zero).
    Tf32,
    /// fp8 `.e4m3` (bias 7, no infinity, NaN `0x7f`/`0xff`, max 448).
    E4m3,
    /// fp8 `.e5m2` (bias 15, IEEE-like, max 57344).
    E5m2,
    /// fp6 `.e2m3` (bias 1, no infinity or NaN, max 7.5), one per byte.
    E2m3,
    /// fp6 `.e3m2` (bias 3, no infinity or NaN, max 28), one per byte.
    E3m2,
    /// fp4 `.e2m1` (bias 1, no infinity or NaN, max 6), two per byte.
    E2m1,
    /// `.ue8m0`: unsigned power of two `2^(e-127)`, `0xff` is NaN.
    Ue8m0,
}

/// Rounding modes of the [`InstKind::CvtX`] conversions (`.rna`: to nearest, ties away
/// from zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtXRnd {
    Rn,
    Rna,
    Rz,
    Rp,
}

/// The conversions of [`InstKind::CvtX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtXOp {
    /// `cvt.rnd{.relu}{.satfinite}.fmt.f32 d, a` (`pair`: `.fmtx2.f32 d, a, b`, `a`
    /// converted into the upper half of `d`, `b` into the lower half).
    FromF32 {
        fmt: MiniFmt,
        pair: bool,
        rnd: CvtXRnd,
        relu: bool,
        satfinite: bool,
    },
    /// `cvt.rnd{.relu}{.satfinite}.fmtx2.f16x2 d, a` (`.ue8m0x2.bf16x2` for `Ue8m0`): the
    /// upper half of `a` into the upper half of `d`.
    FromX2 {
        fmt: MiniFmt,
        rnd: CvtXRnd,
        relu: bool,
        satfinite: bool,
    },
    /// `cvt.rn{.relu}.f16x2.fmtx2 d, a` (`.bf16x2.ue8m0x2` for `Ue8m0`).
    ToX2 { fmt: MiniFmt, relu: bool },
    /// `cvt.pack.sat.{u,s}{16,8,4,2}.s32{.b32} d, a, b{, c}`: `a` and `b` saturated to
    /// `bits`-bit integers, `a` above `b` in the low `2*bits` bits of `d`; the bits above
    /// come from the low bits of `c` (`with_c`) or are zero.
    Pack {
        bits: u8,
        signed: bool,
        with_c: bool,
    },
}
