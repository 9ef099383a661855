//! The logic and shift family: `and or xor not` (also on predicates), `shl shr`, and
//! the predicate-output form `lop3.{and,or}.b32 d|p, a, b, c, lut, q` (a `lop3` followed
//! by `setp.ne.{and,or}.u32 p, d, 0, q`). (`lop3 shf cnot` themselves: `int.rs`.)

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{ArithOp, BitOp, BoolOp, CmpOp, FloatMode, InstKind, Operand, PredSrc, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    pub(super) fn logic(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        // ISA: `.type = { .pred, .b16, .b32, .b64 }` (ptxas rejects `or.u32`).
        if ty != Type::Pred && !(ty.is_bits() && ty.bits() >= 16) {
            return Err(self.bad_type(m, ty));
        }
        let op = match i.opcode.name.as_str() {
            "and" => ArithOp::And,
            "or" => ArithOp::Or,
            "xor" => ArithOp::Xor,
            _ => ArithOp::Not,
        };
        self.arith(i, m, op, ty, FloatMode::default())
    }

    pub(super) fn shift(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        // ISA: `shl` takes `.b16 .b32 .b64`; `shr` also the signed and unsigned types.
        let shl_bad = i.opcode.name == "shl" && !ty.is_bits();
        if shl_bad || ty.is_float() || ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        let op = if i.opcode.name == "shl" {
            ArithOp::Shl
        } else {
            ArithOp::Shr
        };
        self.arith(i, m, op, ty, FloatMode::default())
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
            op => self.dst(op, Type::B32, Fit::Strict)?,
        };
        let p = self.dst(p, Type::Pred, Fit::Strict)?;
        let mut srcs = Vec::with_capacity(3);
        for o in &i.operands[1..4] {
            srcs.push(self.src(o, Type::B32, Fit::Strict)?);
        }
        // Only the immediate's low 8 bits count, as in ptxas (see `Cx::bits_with`).
        let lut = match self.src(&i.operands[4], Type::B32, Fit::Strict)? {
            Operand::Imm(v) if self.const_i64(&i.operands[4]).is_some() => v as u8,
            _ => {
                return Err(self.err(
                    i.operands[4].loc(),
                    "the lop3 look-up table must be an integer immediate",
                ))
            }
        };
        let q = &i.operands[5];
        // q: a predicate register (possibly negated) or the constant 0 or 1.
        let q: Result<PredSrc, bool> = match q {
            ast::Operand::Value(e) if !matches!(e.kind, ast::ExprKind::Sym { .. }) => {
                match self.src(q, Type::U32, Fit::Strict)? {
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
