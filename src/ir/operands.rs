//! Operand typing, declared once: for every instruction, the type each destination and
//! source operand is written or read as, given the instruction's type suffix and
//! modifiers, and how a register may fit that type ([`Fit`]).
//!
//! `check` builds instructions with these types, `check::validate` re-checks every
//! operand of a checked module against [`InstKind::operands`], and both backends read
//! and write operands as the per-family signatures say ([`ArithOp::src_type`],
//! [`BitOp::signature`] in `int.rs`, [`WarpOp::signature`], [`CvtXOp::signature`],
//! [`MatrixOp::signature`], [`Builtin::params`], ...). A new operation declares its
//! operand types once, next to its IR enum, and every stage reads them from there.

use super::*;

/// How a register operand's declared type may differ from the type the instruction
/// reads or writes it as (PTX's operand-size rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Same size (most instructions).
    Strict,
    /// `ld`, `st`, `atom` and built-in arguments: bit and integer registers may be wider
    /// than the instruction type.
    Relaxed,
    /// `Relaxed`, and `.f16` operands may also be wider bit registers (`cvt` only).
    Cvt,
    /// Any 32- or 64-bit integer or bit register (the generic address of `isspacep`); an
    /// immediate or other operand is read as `.u64`.
    Address,
}

impl Fit {
    /// Whether a register of type `reg` may be used for an operand of type `ty`.
    ///
    /// - float instruction types: the register has the same type, or is a bit type of
    ///   the same size (clang keeps floats in `.b32`/`.b64` registers);
    /// - bit instruction types: any register of the same size (`Relaxed`: at least the
    ///   size), float registers included;
    /// - integer instruction types: integer or bit registers of the same size
    ///   (`Relaxed`: at least the size);
    /// - `.pred` only with `.pred`; `.b128` registers are not executable yet.
    pub fn fits(self, reg: Type, ty: Type) -> bool {
        if self == Fit::Address {
            return matches!(reg.bits(), 32 | 64) && !reg.is_float();
        }
        if reg == Type::Pred || ty == Type::Pred {
            return reg == ty;
        }
        if reg.bits() > 64 || ty.bits() > 64 {
            return false;
        }
        if ty == Type::BF16 && self == Fit::Cvt {
            // ptxas takes only 16-bit registers for a `.bf16` `cvt` operand.
            return reg == ty || reg.is_bits() && reg.bits() == 16;
        }
        if ty == Type::F16 && self == Fit::Cvt {
            // `cvt` may write an `.f16` result to (and read one from) a wider bit register.
            return reg == ty || reg.is_bits() && reg.bits() >= 16;
        }
        if ty.is_float() {
            // A float instruction type takes its own type or a bit-size register: of the
            // same size (`Strict`), or wider where the ISA's relaxed rules allow it
            // (`ld`/`st`/`cvt`: "Operand Size Exceeding Instruction-Type Size": the low
            // bits are used, a loaded value is zero-extended).
            return reg == ty
                || reg.is_bits()
                    && match self {
                        Fit::Strict => reg.bits() == ty.bits(),
                        _ => reg.bits() >= ty.bits(),
                    };
        }
        let size_ok = match self {
            Fit::Strict => reg.bits() == ty.bits(),
            Fit::Relaxed | Fit::Cvt | Fit::Address => reg.bits() >= ty.bits(),
        };
        size_ok && (ty.is_bits() || !reg.is_float())
    }
}

impl ArithOp {
    /// Number of source operands.
    pub fn arity(self) -> usize {
        match self {
            ArithOp::Neg | ArithOp::Abs | ArithOp::Not => 1,
            ArithOp::Mad(_) | ArithOp::Fma => 3,
            _ => 2,
        }
    }
    /// The type source `k` is read as with instruction type `ty`: the shift amount of
    /// `shl`/`shr` is `.u32`, the addend of `mad.wide` is twice as wide; every other
    /// source has the instruction type.
    pub fn src_type(self, ty: Type, k: usize) -> Type {
        match (self, k) {
            (ArithOp::Shl | ArithOp::Shr, 1) => Type::U32,
            (ArithOp::Mad(MulMode::Wide), 2) => ty.widened().unwrap_or(ty),
            _ => ty,
        }
    }
    /// The type of the result: twice as wide for `mul.wide`/`mad.wide`, else `ty`.
    pub fn dst_type(self, ty: Type) -> Type {
        match self {
            ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide) => ty.widened().unwrap_or(ty),
            _ => ty,
        }
    }
}

impl WarpOp {
    /// Types of the source operands with instruction type `ty` (the order of
    /// `InstKind::Warp::srcs`), and the type of the value result (`None`: none).
    pub fn signature(self, ty: Type) -> (Vec<Type>, Option<Type>) {
        use Type::*;
        match self {
            WarpOp::Shfl(_) => (vec![B32, B32, B32, B32], Some(B32)),
            WarpOp::Vote(_) => (vec![B32], None),
            WarpOp::Ballot => (vec![B32], Some(B32)),
            WarpOp::Match { .. } => (vec![ty, B32], Some(B32)),
            WarpOp::Redux(_) => (vec![ty, B32], Some(ty)),
            WarpOp::Activemask => (vec![], Some(B32)),
            WarpOp::Elect => (vec![B32], Some(U32)),
            WarpOp::WarpSync => (vec![B32], None),
        }
    }
    /// Whether the operation reads a predicate source (`vote`'s `{!}p`).
    pub fn reads_pred(self) -> bool {
        matches!(self, WarpOp::Vote(_) | WarpOp::Ballot)
    }
}

/// The register type of one value of `fmt` in the packed conversions (fp4 pairs fit in
/// a byte).
fn x2_type(fmt: MiniFmt) -> Type {
    match fmt {
        MiniFmt::F16 | MiniFmt::BF16 | MiniFmt::Tf32 => Type::B32,
        MiniFmt::E2m1 => Type::B8,
        _ => Type::B16,
    }
}

impl CvtXOp {
    /// Source operand types and the result type.
    pub fn signature(self) -> (&'static [Type], Type) {
        match self {
            CvtXOp::FromF32 {
                fmt, pair: false, ..
            } => (
                &[Type::F32],
                if fmt == MiniFmt::Tf32 {
                    Type::B32
                } else {
                    Type::B16
                },
            ),
            CvtXOp::FromF32 { fmt, .. } => (&[Type::F32, Type::F32], x2_type(fmt)),
            CvtXOp::FromX2 { fmt, .. } => (&[Type::B32], x2_type(fmt)),
            CvtXOp::ToX2 { fmt, .. } => (
                if fmt == MiniFmt::E2m1 {
                    &[Type::B8]
                } else {
                    &[Type::B16]
                },
                Type::B32,
            ),
            CvtXOp::Pack { with_c: false, .. } => (&[Type::S32, Type::S32], Type::B32),
            CvtXOp::Pack { with_c: true, .. } => (&[Type::S32, Type::S32, Type::B32], Type::B32),
        }
    }
}

impl CarryOp {
    /// Number of source operands (`a, b` or `a, b, c`), all of the instruction type.
    pub fn arity(self) -> usize {
        match self {
            CarryOp::Add | CarryOp::Sub => 2,
            CarryOp::MadLo | CarryOp::MadHi => 3,
        }
    }
}

impl MinMaxOp {
    /// The type of both sources and the result: `.b32` for the packed forms, else `ty`.
    pub fn operand_type(self, ty: Type) -> Type {
        if self.packed {
            Type::B32
        } else {
            ty
        }
    }
}

impl BarRedOp {
    /// The result type: `.u32` for `.popc`, else a predicate.
    pub fn result_type(self) -> Type {
        match self {
            BarRedOp::Popc => Type::U32,
            BarRedOp::And | BarRedOp::Or => Type::Pred,
        }
    }
}

impl AtomOp {
    /// Number of value sources: 2 for `cas` (compare, new), else 1.
    pub fn arity(self) -> usize {
        if self == AtomOp::Cas {
            2
        } else {
            1
        }
    }
}

impl BoolOp {
    /// `a op b`: how `setp`/`set` combine a comparison with their predicate `c`.
    pub fn eval(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a && b,
            BoolOp::Or => a || b,
            BoolOp::Xor => a != b,
        }
    }
}

/// `t` combined with `c` per `combine` (`t` itself without one).
pub fn combine(combine: Option<(BoolOp, bool)>, t: bool) -> bool {
    combine.map_or(t, |(op, c)| op.eval(t, c))
}

/// The operands of one instruction, each with the type the instruction writes or reads
/// it as and how its register may fit that type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Operands {
    /// Destinations (`None`: the `_` sink or an absent optional result).
    pub dsts: Vec<(Option<RegId>, Type, Fit)>,
    /// Sources, predicate sources (`{!}c`, `vote`'s `p`, the carry flag) included as
    /// `Operand::Reg` of type `.pred`.
    pub srcs: Vec<(Operand, Type, Fit)>,
}

impl Operands {
    fn dst(&mut self, r: Option<RegId>, ty: Type, fit: Fit) {
        self.dsts.push((r, ty, fit));
    }
    fn src(&mut self, o: Operand, ty: Type, fit: Fit) {
        self.srcs.push((o, ty, fit));
    }
    fn pred(&mut self, r: Option<RegId>) {
        if let Some(r) = r {
            self.src(Operand::Reg(r), Type::Pred, Fit::Strict);
        }
    }
    fn strict(&mut self, srcs: &[Operand], tys: &[Type]) -> Result<(), String> {
        if srcs.len() != tys.len() {
            return Err(format!("{} sources, {} expected", srcs.len(), tys.len()));
        }
        for (s, t) in srcs.iter().zip(tys) {
            self.src(*s, *t, Fit::Strict);
        }
        Ok(())
    }
    fn all(&mut self, srcs: &[Operand], ty: Type, n: usize, fit: Fit) -> Result<(), String> {
        if srcs.len() != n {
            return Err(format!("{} sources, {n} expected", srcs.len()));
        }
        for s in srcs {
            self.src(*s, ty, fit);
        }
        Ok(())
    }
}

impl InstKind {
    /// Every operand with its declared type (addresses excluded: see `Ld`, `St`, `Atom`,
    /// `Matrix`). `Err` when the number of operands does not match the operation's
    /// signature (or the operation has none: an unsupported `mma`).
    pub fn operands(&self) -> Result<Operands, String> {
        use Fit::Strict;
        use InstKind::*;
        let mut o = Operands::default();
        match self {
            Mov { ty, dst, src } => {
                o.dst(Some(*dst), *ty, Strict);
                o.src(*src, *ty, Strict);
            }
            Arith {
                op, ty, dst, srcs, ..
            } => {
                let tys: Vec<Type> = (0..op.arity()).map(|k| op.src_type(*ty, k)).collect();
                o.dst(Some(*dst), op.dst_type(*ty), Strict);
                o.strict(srcs, &tys)?;
            }
            Setp {
                ty,
                dst,
                dst_neg,
                a,
                b,
                combine,
                ..
            }
            | SetpPacked {
                ty,
                dst_lo: dst,
                dst_hi: dst_neg,
                a,
                b,
                combine,
                ..
            } => {
                o.dst(*dst, Type::Pred, Strict);
                o.dst(*dst_neg, Type::Pred, Strict);
                o.strict(&[*a, *b], &[*ty, *ty])?;
                o.pred(combine.map(|(_, c)| c.reg));
            }
            Set {
                dty,
                ty,
                dst,
                a,
                b,
                combine,
                ..
            } => {
                o.dst(Some(*dst), *dty, Strict);
                o.strict(&[*a, *b], &[*ty, *ty])?;
                o.pred(combine.map(|(_, c)| c.reg));
            }
            Selp {
                ty,
                dst,
                a,
                b,
                cond,
            } => {
                o.dst(Some(*dst), *ty, Strict);
                o.strict(&[*a, *b], &[*ty, *ty])?;
                o.pred(Some(cond.reg));
            }
            Bits { op, ty, dst, srcs } => {
                let (stys, dty) = op.signature(*ty);
                o.dst(Some(*dst), dty, Strict);
                o.strict(srcs, &stys)?;
            }
            Sfu { ty, dst, src, .. } => {
                o.dst(Some(*dst), *ty, Strict);
                o.src(*src, *ty, Strict);
            }
            Half {
                op, ty, dst, srcs, ..
            } => {
                o.dst(Some(*dst), *ty, Strict);
                o.all(srcs, *ty, op.arity(), Strict)?;
            }
            Carry {
                op,
                ty,
                dst,
                srcs,
                cc_in,
                cc_out,
            } => {
                o.dst(Some(*dst), *ty, Strict);
                o.dst(*cc_out, Type::Pred, Strict);
                o.all(srcs, *ty, op.arity(), Strict)?;
                o.pred(*cc_in);
            }
            MinMax { op, ty, dst, a, b } => {
                let t = op.operand_type(*ty);
                o.dst(Some(*dst), t, Strict);
                o.strict(&[*a, *b], &[t, t])?;
            }
            Copysign { ty, dst, a, b } => {
                o.dst(Some(*dst), *ty, Strict);
                o.strict(&[*a, *b], &[*ty, *ty])?;
            }
            Testp { ty, dst, src, .. } => {
                o.dst(Some(*dst), Type::Pred, Strict);
                o.src(*src, *ty, Strict);
            }
            CvtX { op, dst, srcs } => {
                let (stys, dty) = op.signature();
                o.dst(Some(*dst), dty, Fit::Cvt);
                o.strict(srcs, stys)?;
            }
            _ => self.other_operands(&mut o)?,
        }
        Ok(o)
    }

    /// [`InstKind::operands`] of the memory, conversion, synchronisation, atomic, warp,
    /// matrix and built-in instructions.
    fn other_operands(&self, o: &mut Operands) -> Result<(), String> {
        use Fit::{Relaxed, Strict};
        use InstKind::*;
        match self {
            Ld { ty, dsts, .. } => {
                for d in dsts {
                    o.dst(*d, *ty, Relaxed);
                }
            }
            St { ty, srcs, .. } => o.all(srcs, *ty, srcs.len(), Relaxed)?,
            Cvta { ty, dst, src, .. } => {
                o.dst(Some(*dst), *ty, Strict);
                o.src(*src, *ty, Strict);
            }
            Cvt {
                dst_ty,
                src_ty,
                dst,
                src,
                ..
            } => {
                o.dst(Some(*dst), *dst_ty, Fit::Cvt);
                o.src(*src, *src_ty, Fit::Cvt);
            }
            Nanosleep { t } => o.src(*t, Type::U32, Strict),
            Video { op, dst, srcs } => {
                o.dst(Some(*dst), Type::U32, Strict);
                let n = if op.has_c() { 3 } else { 2 };
                o.all(srcs, Type::U32, n, Strict)?;
            }
            Warp {
                op,
                ty,
                dst,
                pred,
                srcs,
                vote_src,
            } => {
                let (stys, dty) = op.signature(*ty);
                match (dst, dty) {
                    (_, Some(t)) => o.dst(*dst, t, Strict),
                    (None, None) => {}
                    (Some(_), None) => return Err(format!("{op:?} has no value result")),
                }
                o.dst(*pred, Type::Pred, Strict);
                o.strict(srcs, &stys)?;
                if op.reads_pred() != vote_src.is_some() {
                    return Err(format!("{op:?} with a bad vote source"));
                }
                o.pred(vote_src.map(|p| p.reg));
            }
            Fence | OrderPoint => {}
            BarArrive { barrier, count } => o.strict(&[*barrier, *count], &[Type::U32; 2])?,
            BarRedResult { op, barrier, dst } => {
                o.dst(Some(*dst), op.result_type(), Strict);
                o.src(*barrier, Type::U32, Strict);
            }
            Atom {
                op, ty, dst, srcs, ..
            } => {
                o.dst(*dst, *ty, Relaxed);
                o.all(srcs, *ty, op.arity(), Relaxed)?;
            }
            Isspacep { dst, src, .. } => {
                o.dst(Some(*dst), Type::Pred, Strict);
                o.src(*src, Type::U64, Fit::Address);
            }
            Matrix { op, dsts, srcs, .. } => {
                let sig = op
                    .signature()
                    .ok_or_else(|| format!("unsupported {op:?}"))?;
                if dsts.len() != sig.dsts {
                    return Err(format!("{op:?} with {} results", dsts.len()));
                }
                for d in dsts {
                    o.dst(*d, sig.dtype, Strict);
                }
                o.strict(srcs, &sig.srcs)?;
            }
            Async {
                op,
                dsts,
                addrs,
                srcs,
            } => {
                if addrs.len() != op.naddrs() {
                    return Err(format!("{op:?} with {} addresses", addrs.len()));
                }
                if dsts.len() != op.dst_types().len() {
                    return Err(format!("{op:?} with {} results", dsts.len()));
                }
                for (d, t) in dsts.iter().zip(op.dst_types()) {
                    o.dst(*d, *t, Relaxed);
                }
                if srcs.len() != op.src_types().len() {
                    return Err(format!("{op:?} with {} sources", srcs.len()));
                }
                for (s, t) in srcs.iter().zip(op.src_types()) {
                    o.src(*s, *t, Relaxed);
                }
            }
            Texture { op, dsts, srcs } => {
                let sig = op.signature();
                if dsts.len() != sig.dsts.len() {
                    return Err(format!("{op:?} with {} results", dsts.len()));
                }
                for (d, t) in dsts.iter().zip(&sig.dsts) {
                    o.dst(*d, *t, Fit::Relaxed);
                }
                if srcs.len() != sig.srcs.len() {
                    return Err(format!("{op:?} with {} sources", srcs.len()));
                }
                for (s, t) in srcs.iter().zip(&sig.srcs) {
                    o.src(*s, *t, Fit::Relaxed);
                }
            }
            Builtin { op, args, dst } => {
                if args.len() != op.params().len() {
                    return Err(format!("{op:?} with {} operands", args.len()));
                }
                for (a, t) in args.iter().zip(op.params()) {
                    o.src(*a, *t, Relaxed);
                }
                match (op.result(), dst) {
                    (Some(t), _) => o.dst(*dst, t, Relaxed),
                    (None, None) => {}
                    (None, Some(_)) => return Err(format!("{op:?} has no result")),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Builtin {
    /// The operand types, in parameter order.
    pub fn params(self) -> &'static [Type] {
        match self {
            Builtin::Vprintf => &[Type::U64, Type::U64],
            Builtin::AssertFail => &[Type::U64, Type::U64, Type::U32, Type::U64, Type::U64],
            Builtin::Trap | Builtin::Brkpt => &[],
            Builtin::Malloc | Builtin::Free => &[Type::U64],
            Builtin::Cdp(f) => f.params(),
            Builtin::Alloca { wide: true, .. } | Builtin::StackRestore { wide: true } => {
                &[Type::U64]
            }
            Builtin::Alloca { wide: false, .. } | Builtin::StackRestore { wide: false } => {
                &[Type::U32]
            }
            Builtin::StackSave { .. } => &[],
        }
    }
    /// The type of the return value (`vprintf`'s `.b32`), if any.
    pub fn result(self) -> Option<Type> {
        match self {
            Builtin::Vprintf => Some(Type::U32),
            Builtin::Malloc => Some(Type::U64),
            Builtin::Alloca { wide, .. } | Builtin::StackSave { wide } => {
                Some(if wide { Type::U64 } else { Type::U32 })
            }
            Builtin::AssertFail
            | Builtin::Trap
            | Builtin::Brkpt
            | Builtin::Free
            | Builtin::StackRestore { .. } => None,
            Builtin::Cdp(f) => f.result(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Type::*;

    #[test]
    fn fits_follow_the_operand_size_rules() {
        assert!(Fit::Strict.fits(B32, F32));
        assert!(!Fit::Strict.fits(U32, F32));
        assert!(Fit::Relaxed.fits(B64, F32));
        assert!(!Fit::Relaxed.fits(F64, F32));
        assert!(!Fit::Strict.fits(B64, F32));
        assert!(Fit::Strict.fits(F32, B32));
        assert!(!Fit::Strict.fits(F32, U32));
        assert!(Fit::Strict.fits(S32, U32));
        assert!(!Fit::Strict.fits(U64, U32));
        assert!(Fit::Relaxed.fits(U64, U8));
        assert!(Fit::Relaxed.fits(F32, B16));
        assert!(!Fit::Relaxed.fits(U16, U32));
        assert!(!Fit::Relaxed.fits(Pred, B32));
        assert!(!Fit::Relaxed.fits(B128, B64));
        assert!(Fit::Cvt.fits(B32, F16));
        assert!(Fit::Address.fits(U32, U64));
        assert!(!Fit::Address.fits(F64, U64));
        assert!(!Fit::Address.fits(Pred, U64));
    }

    #[test]
    fn wide_forms_widen_the_result_and_the_addend() {
        let mad = ArithOp::Mad(MulMode::Wide);
        assert_eq!(mad.dst_type(S32), S64);
        assert_eq!(mad.src_type(S32, 1), S32);
        assert_eq!(mad.src_type(S32, 2), S64);
        assert_eq!(ArithOp::Shl.src_type(B64, 1), U32);
        assert_eq!(ArithOp::Add.dst_type(U16), U16);
    }
}
