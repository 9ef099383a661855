//! Lowering of the carry chain (`add.cc addc sub.cc subc mad.cc madc`) into
//! [`InstKind::Carry`], and the function's hidden `CC.CF` predicate register.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{CarryOp, InstKind, Loc, RegId, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// The function's `CC.CF` register, created on first use. Its name is not a PTX
    /// identifier, so no declaration can collide with it.
    fn cc_reg(&mut self, loc: Loc) -> Result<RegId, PtxError> {
        if let Some(r) = self.cc {
            return Ok(r);
        }
        let r = self.new_reg("%CC.CF".into(), Type::Pred, loc)?;
        self.cc = Some(r);
        Ok(r)
    }

    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`,
    /// `madc{.lo,.hi}{.cc}` (`add`/`sub`/`mad` come here only with `.cc`).
    pub(super) fn carry(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let name = i.opcode.name.as_str();
        let carry_in = name.ends_with('c');
        let cc_out = m.has("cc");
        let op = match name {
            "add" | "addc" => CarryOp::Add,
            "sub" | "subc" => CarryOp::Sub,
            _ => match m.one_of(&["lo", "hi"]) {
                Some("hi") => CarryOp::MadHi,
                Some(_) => CarryOp::MadLo,
                None => return Err(self.err(m.loc, format!("'{}' needs '.lo' or '.hi'", m.text))),
            },
        };
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64) {
            return Err(self.bad_type(m, ty));
        }
        let n = if matches!(op, CarryOp::MadLo | CarryOp::MadHi) {
            3
        } else {
            2
        };
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let mut srcs = Vec::with_capacity(n);
        for o in &i.operands[1..] {
            srcs.push(self.src(o, ty, Fit::Strict)?);
        }
        let cc = self.cc_reg(m.loc)?;
        Ok(InstKind::Carry {
            op,
            ty,
            dst,
            srcs,
            cc_in: carry_in.then_some(cc),
            cc_out: cc_out.then_some(cc),
        })
    }
}
