//! A register plus a constant as a source operand: `st.u64 [a], r + 1`,
//! `add.u32 d, r + 4, s`, `setp.eq.u32 p, r + 1, 0`, `mov.u32 d, r + 20`.
//!
//! ptxas 12.9 accepts `reg + constant` wherever an instruction reads a scalar register
//! (outside `{...}` lists and call argument lists, which are syntax errors, as are
//! `reg - constant`, `constant + reg` and a vector element `v.x + 1`); the constant is an
//! integer constant expression (`r + -1`, `r + 2*3`, `r + 1 + 1`). Its cubins add the
//! constant at the register's width (sm_90: `st.global.u64 [a], b + 1` is `IADD3` +
//! `IADD3.X` then `STG.E.64`; `cvt.u32.u16 d, h + 0xffff` adds then masks to 16 bits;
//! `cvt.s64.s32 d, r + 0xffffffff` is `r - 1` sign-extended). The rule here: the sum goes
//! to a hidden register of the base register's type, computed just before the
//! instruction under its guard, and the operand is that register, under the same operand
//! size rules as the plain register (ptxas gives no meaning to other sizes: for
//! `add.u64 d, r + 1, b` with a `.u32` `r` its cubin reads the sum's high word from R1,
//! the stack pointer). Floating-point stays an error: ptxas drops the instruction
//! (`st.global.f32 [a], f + 1` and `add.f32 d, f + 1, g` leave no trace in the cubin) or
//! crashes (`mov.b32 d, f + 1`), so neither a float register nor a float operand type
//! takes the form, nor a predicate ("Arguments mismatch").

use crate::check::func::{Fx, Sym};
use crate::ir::{ArithOp, FloatMode, InstKind, Loc, Operand, RegId, Type};
use crate::parse::ast::{self, BinOp, Expr, ExprKind, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `i` with every top-level `reg + constant` operand replaced by a hidden register
    /// holding the sum (its add goes to [`Fx::pre`]); `None` when it has none.
    pub(super) fn rewrite_reg_plus(
        &mut self,
        i: &Instruction,
    ) -> Result<Option<Instruction>, PtxError> {
        if i.opcode.name == "call" {
            return Ok(None);
        }
        let mut out: Option<Instruction> = None;
        for (k, op) in i.operands.iter().enumerate() {
            let ast::Operand::Value(e) = op else { continue };
            let Some((r, name, sub)) = self.plus_base(e) else {
                continue;
            };
            if sub {
                return Err(self.err(
                    e.loc,
                    format!("'{name} - constant' is not an operand (ptxas: syntax error); write '{name} + -constant'"),
                ));
            }
            let off = self.plus_offset(e)?;
            let sum = self.plus_reg(r, &name, off, e.loc)?;
            let c = out.get_or_insert_with(|| i.clone());
            c.operands[k] = ast::Operand::Value(Expr {
                kind: ExprKind::Sym {
                    name: sum,
                    comp: None,
                },
                loc: e.loc,
            });
        }
        Ok(out)
    }

    /// The scalar register at the bottom left of `e` if `e` is `reg + ...` or
    /// `reg - ...` (`true`: the outermost operator is `-`), with its name.
    fn plus_base(&self, e: &Expr) -> Option<(RegId, String, bool)> {
        let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, _) = &e.kind else {
            return None;
        };
        let mut base = &**a;
        while let ExprKind::Binary(BinOp::Add, l, _) = &base.kind {
            base = l;
        }
        let ExprKind::Sym { name, comp: None } = &base.kind else {
            return None;
        };
        match self.lookup(name) {
            Some(Sym::Reg(r)) => Some((r, name.clone(), *op == BinOp::Sub)),
            _ => None,
        }
    }

    /// The constant of `reg + c1 + c2 ...`: the sum of the right-hand sides.
    fn plus_offset(&self, e: &Expr) -> Result<i64, PtxError> {
        let mut off = 0i64;
        let mut cur = e;
        while let ExprKind::Binary(BinOp::Add, l, r) = &cur.kind {
            off = off.wrapping_add(self.cx.eval_int(r)?);
            cur = l;
        }
        Ok(off)
    }

    /// A hidden register of `r`'s type holding `r + off` (8-bit registers: a 16-bit sum
    /// of the zero- or sign-extended value, which `ld`/`st`/`cvt` of 8-bit types read the
    /// low byte of), added to [`Fx::pre`]; its name in the scope is returned.
    fn plus_reg(&mut self, r: RegId, name: &str, off: i64, loc: Loc) -> Result<String, PtxError> {
        let ty = self.reg_ty(r);
        if ty == Type::Pred || ty.is_float() || ty.bits() > 64 {
            return Err(self.err(
                loc,
                format!("'{name} + constant' needs an integer or bit register, not {ty} (ptxas drops or rejects the instruction)"),
            ));
        }
        let (sum_ty, add_ty) = match ty.bits() {
            8 if ty.is_signed() => (Type::S16, Type::S16),
            8 => (Type::U16, Type::U16),
            16 => (ty, Type::U16),
            32 => (ty, Type::U32),
            _ => (ty, Type::U64),
        };
        let text = format!("{name}+{off}");
        let sum = self.new_reg(text.clone(), sum_ty, loc)?;
        let mut src = Operand::Reg(r);
        if ty.bits() == 8 {
            self.pre.push(InstKind::Cvt {
                dst_ty: sum_ty,
                src_ty: if ty.is_signed() { Type::S8 } else { Type::U8 },
                rnd: None,
                ftz: false,
                sat: false,
                dst: sum,
                src,
            });
            src = Operand::Reg(sum);
        }
        let mask = u64::MAX >> (64 - add_ty.bits());
        self.pre.push(InstKind::Arith {
            op: ArithOp::Add,
            ty: add_ty,
            fmode: FloatMode::default(),
            dst: sum,
            srcs: vec![src, Operand::Imm(off as u64 & mask)],
        });
        self.plus_regs.insert(sum);
        let key = format!("%reg+const.{}", sum.0);
        match self.scopes.last_mut() {
            Some(s) => s.insert(key.clone(), Sym::Reg(sum)),
            None => return Err(self.err(loc, "internal error: no scope")),
        };
        Ok(key)
    }
}
