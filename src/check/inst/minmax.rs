//! Lowering of the `min`/`max` forms with modifiers (`.NaN`, `.xorsign.abs`, `.relu`,
//! `.u16x2`, `.s16x2`) into [`InstKind::MinMax`], of `copysign` and `testp`, and of the
//! predicate-output form `lop3.{and,or}.b32 d|p, a, b, c, lut, q` (a `lop3` followed by
//! `setp.ne.{and,or}.u32 p, d, 0, q`).

use super::{Mods, Rule};
use crate::check::func::Fx;
use crate::ir::{BitOp, BoolOp, CmpOp, InstKind, MinMaxOp, Operand, PredSrc, TestpOp, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// Modifiers that send `min`/`max` to [`Fx::min_max_ext`].
pub(super) fn is_ext_minmax_mod(m: &str) -> bool {
    matches!(m, "NaN" | "xorsign" | "abs" | "relu" | "u16x2" | "s16x2")
}

impl Fx<'_, '_> {
    pub(super) fn min_max_ext(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let max = i.opcode.name == "max";
        let nan = m.has("NaN");
        let xorsign = m.has("xorsign");
        let abs = m.has("abs");
        let relu = m.has("relu");
        let ftz = m.has("ftz");
        if xorsign != abs {
            return Err(self.err(
                m.loc,
                format!("'.xorsign' and '.abs' go together in '{}'", m.text),
            ));
        }
        let packed = m.one_of(&["u16x2", "s16x2"]);
        let ty = match packed {
            Some(p) => {
                if let Some((_, l)) = m.types().first() {
                    return Err(self.err(*l, format!("'{}' has too many types", m.text)));
                }
                if p == "u16x2" {
                    Type::U16
                } else {
                    Type::S16
                }
            }
            None => self.one_type(m)?,
        };
        let invalid = |s: &Self, what: &str| {
            s.err(
                m.loc,
                format!("'{what}' is not valid for this type in '{}'", m.text),
            )
        };
        let float_mods = [(nan, ".NaN"), (xorsign, ".xorsign.abs"), (ftz, ".ftz")];
        match (ty, packed.is_some()) {
            (Type::F32, false) => {
                if relu {
                    return Err(invalid(self, ".relu"));
                }
            }
            (Type::S32, false) | (Type::S16, true) | (Type::U16, true) => {
                if let Some((_, w)) = float_mods.iter().find(|(on, _)| *on) {
                    return Err(invalid(self, w));
                }
                if relu && ty == Type::U16 {
                    return Err(invalid(self, ".relu"));
                }
            }
            (Type::F64, false) => {
                // Only the plain form exists for .f64.
                let first = float_mods.iter().find(|(on, _)| *on);
                return Err(invalid(self, first.map_or(".relu", |(_, w)| w)));
            }
            _ => return Err(self.bad_type(m, ty)),
        }
        self.nops(i, m, 3)?;
        let oty = if packed.is_some() { Type::B32 } else { ty };
        let dst = self.dst(&i.operands[0], oty, Rule::Strict)?;
        let a = self.src(&i.operands[1], oty, Rule::Strict)?;
        let b = self.src(&i.operands[2], oty, Rule::Strict)?;
        let op = MinMaxOp {
            max,
            ftz,
            nan,
            xorsign_abs: xorsign,
            relu,
            packed: packed.is_some(),
        };
        Ok(InstKind::MinMax { op, ty, dst, a, b })
    }

    pub(super) fn copysign(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 3)?;
        let dst = self.dst(&i.operands[0], ty, Rule::Strict)?;
        let a = self.src(&i.operands[1], ty, Rule::Strict)?;
        let b = self.src(&i.operands[2], ty, Rule::Strict)?;
        Ok(InstKind::Copysign { ty, dst, a, b })
    }

    pub(super) fn testp(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let op = match m.one_of(&[
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ]) {
            Some("finite") => TestpOp::Finite,
            Some("infinite") => TestpOp::Infinite,
            Some("number") => TestpOp::Number,
            Some("notanumber") => TestpOp::NotANumber,
            Some("normal") => TestpOp::Normal,
            Some(_) => TestpOp::Subnormal,
            None => return Err(self.err(m.loc, format!("'{}' needs a test (.finite ...)", m.text))),
        };
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 2)?;
        let dst = self.dst(&i.operands[0], Type::Pred, Rule::Strict)?;
        let src = self.src(&i.operands[1], ty, Rule::Strict)?;
        Ok(InstKind::Testp { op, ty, dst, src })
    }

    /// `lop3.{and,or}.b32 d|p, a, b, c, lut, q`: `p = (d != 0) BoolOp q`; `d` may be `_`.
    pub(super) fn lop3_pred(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let bop = match m.one_of(&["and", "or", "xor"]) {
            Some("and") => BoolOp::And,
            Some("or") => BoolOp::Or,
            _ => {
                return Err(self.err(
                    m.loc,
                    format!("the BoolOp of '{}' must be '.and' or '.or'", m.text),
                ))
            }
        };
        let ty = self.one_type(m)?;
        if ty != Type::B32 {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 6)?;
        let ast::Operand::Pair(d, p) = &i.operands[0] else {
            return Err(self.err(
                i.operands[0].loc(),
                format!("'{}' needs a destination pair 'd|p'", m.text),
            ));
        };
        let d = match &**d {
            ast::Operand::Sink(_) => self.new_reg("%__lop3".into(), Type::B32, m.loc)?,
            op => self.dst(op, Type::B32, Rule::Strict)?,
        };
        let p = self.dst(p, Type::Pred, Rule::Strict)?;
        let mut srcs = Vec::with_capacity(3);
        for o in &i.operands[1..4] {
            srcs.push(self.src(o, Type::B32, Rule::Strict)?);
        }
        let lut = match self.src(&i.operands[4], Type::B32, Rule::Strict)? {
            Operand::Imm(v) if v <= 0xff => v as u8,
            _ => {
                return Err(self.err(
                    i.operands[4].loc(),
                    "the lop3 look-up table must be an immediate 0..255",
                ))
            }
        };
        let q = &i.operands[5];
        // q: a predicate register (possibly negated) or the constant 0 or 1.
        let q: Result<PredSrc, bool> = match q {
            ast::Operand::Value(e) if !matches!(e.kind, ast::ExprKind::Sym { .. }) => {
                match self.src(q, Type::U32, Rule::Strict)? {
                    Operand::Imm(v) if v <= 1 => Err(v == 1),
                    _ => return Err(self.err(q.loc(), "expected a predicate or 0 or 1")),
                }
            }
            _ => Ok(self.pred_src(q)?),
        };
        let mut out = vec![InstKind::Bits {
            op: BitOp::Lop3 { lut },
            ty,
            dst: d,
            srcs,
        }];
        let test = |combine| InstKind::Setp {
            cmp: CmpOp::Ne,
            ty: Type::U32,
            ftz: false,
            dst: Some(p),
            dst_neg: None,
            a: Operand::Reg(d),
            b: Operand::Imm(0),
            combine,
        };
        out.push(match (q, bop) {
            (Ok(q), _) => test(Some((bop, q))),
            // (d != 0) and 1, (d != 0) or 0
            (Err(q), BoolOp::And) if q => test(None),
            (Err(q), BoolOp::Or) if !q => test(None),
            // (d != 0) and 0, (d != 0) or 1
            (Err(q), _) => InstKind::Mov {
                ty: Type::Pred,
                dst: p,
                src: Operand::Imm(q as u64),
            },
        });
        Ok(out)
    }
}
