//! Lowering of `prefetch` and `prefetchu` (cache hints: they lower to nothing, so they
//! never fault, whatever the address) and `isspacep` ([`InstKind::Isspacep`]).

use super::{Mods, Rule};
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::{InstKind, Operand, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `prefetch{.global,.local}.{L1,L2} [a]`, `prefetch{.global}.L2::evict_{last,normal}
    /// [a]`, `prefetch{.const,.param}.tensormap [a]`, `prefetchu.L1 [a]`.
    pub(super) fn prefetch(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let bad = |m: &Mods, what: &str| Err(self.err(m.loc, format!("{what} in '{}'", m.text)));
        let space = if i.opcode.name == "prefetchu" {
            if !m.has("L1") {
                return bad(m, "'prefetchu' needs '.L1' and no state space");
            }
            Space::Generic
        } else {
            let space = match m.one_of(&["global", "local", "const", "param", "param::entry"]) {
                None => Space::Generic,
                Some("global") => Space::Global,
                Some("local") => Space::Local,
                Some("const") => Space::Const,
                Some(_) => Space::Param,
            };
            let tensormap = m.has("tensormap");
            let level = m.one_of(&["L1", "L2", "L2::evict_last", "L2::evict_normal"]);
            match (tensormap, level) {
                (true, None) => {
                    if matches!(space, Space::Global | Space::Local) {
                        return bad(m, "'.tensormap' needs .const, .param or generic addressing");
                    }
                }
                (false, Some("L1" | "L2")) => {
                    if matches!(space, Space::Const | Space::Param) {
                        return bad(m, "'prefetch' needs .global, .local or generic addressing");
                    }
                }
                (false, Some(_)) => {
                    if !matches!(space, Space::Global | Space::Generic) {
                        return bad(
                            m,
                            "an eviction priority needs .global or generic addressing",
                        );
                    }
                }
                (true, Some(_)) => return bad(m, "'.tensormap' takes no cache level"),
                (false, None) => return bad(m, "'prefetch' needs a cache level (.L1 or .L2)"),
            }
            space
        };
        self.nops(i, m, 1)?;
        // Checked like any address, then dropped: a prefetch has no effect on a CPU.
        self.address(&i.operands[0], space)?;
        Ok(Vec::new())
    }

    /// `isspacep.space p, a`.
    pub(super) fn isspacep(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let space = match m.one_of(&[
            "global",
            "shared",
            "shared::cta",
            "shared::cluster",
            "local",
            "const",
            "param",
            "param::entry",
        ]) {
            None => {
                return Err(self.err(m.loc, format!("'{}' needs a state space", m.text)));
            }
            Some("global") => Space::Global,
            Some("local") => Space::Local,
            Some("const") => Space::Const,
            Some(s) if s.starts_with("shared") => Space::Shared,
            Some(_) => Space::Param,
        };
        self.nops(i, m, 2)?;
        let dst = self.dst(&i.operands[0], Type::Pred, Rule::Strict)?;
        let a = &i.operands[1];
        let ast::Operand::Value(e) = a else {
            return Err(self.err(a.loc(), "expected an address register"));
        };
        let (src, offset) = match self.value(e)? {
            Val::Reg(r, off) => {
                let t = self.reg_ty(r);
                if t == Type::Pred || t.is_float() || !(t.bits() == 32 || t.bits() == 64) {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "the address of '{}' must be a .u32 or .u64 register, not {t}",
                            m.text
                        ),
                    ));
                }
                (Operand::Reg(r), off)
            }
            Val::Const(c) => match c.as_i64() {
                Some(v) => (Operand::Imm(v as u64), 0),
                None => return Err(self.err(e.loc, "an address must be an integer")),
            },
            _ => {
                return Err(self.err(
                    e.loc,
                    format!("'{}' takes a register or an integer address", m.text),
                ))
            }
        };
        Ok(InstKind::Isspacep {
            space,
            dst,
            src,
            offset,
        })
    }
}
