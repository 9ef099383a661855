//! Lowering of `atom` and `red` into [`InstKind::Atom`]: `.sem` (`.relaxed .acquire
//! .release .acq_rel`) and `.scope` (`.cta .cluster .gpu .sys`) are accepted (host atomics
//! are sequentially consistent), `.space` is `.global`, `.shared{::cta}` or generic,
//! `.L2::cache_hint` takes its policy operand, and `.noftz` is required on the half
//! types as in the ISA. Vector (`.v2 .v4 .v8`) and `.b128` forms are load-time errors.

use super::super::func::Fx;
use super::super::inst::Mods;
use super::super::operand::Rule;
use crate::ir::{AtomOp, InstKind, Space, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `atom{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}.type d, [a], b{, c}{, policy}`
    /// and `red...type [a], b{, policy}`.
    pub(in crate::check) fn atom(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let red = i.opcode.name == "red";
        m.one_of(&["relaxed", "acquire", "release", "acq_rel"]);
        m.one_of(&["cta", "cluster", "gpu", "sys"]);
        if m.any(|x| matches!(x, "v2" | "v4" | "v8")) {
            return Err(self.unsupported(m));
        }
        let hint = m.has("L2::cache_hint");
        let space = self.space_mod(m, false)?;
        if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}' must address .global, .shared or generic memory",
                    m.text
                ),
            ));
        }
        let op = match m.one_of(&[
            "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas",
        ]) {
            Some("add") => AtomOp::Add,
            Some("min") => AtomOp::Min,
            Some("max") => AtomOp::Max,
            Some("inc") => AtomOp::Inc,
            Some("dec") => AtomOp::Dec,
            Some("and") => AtomOp::And,
            Some("or") => AtomOp::Or,
            Some("xor") => AtomOp::Xor,
            Some("exch") => AtomOp::Exch,
            Some(_) => AtomOp::Cas,
            None => return Err(self.err(m.loc, format!("'{}' needs an operation", m.text))),
        };
        let noftz = m.has("noftz");
        let ts = m.types();
        let ty = match ts.as_slice() {
            [(t, _)] => *t,
            [] => return Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            [_, (_, l), ..] => {
                return Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
        };
        if ty == Type::B128 {
            return Err(self.unsupported(m));
        }
        let half = matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2);
        if half && op == AtomOp::Add && !noftz {
            return Err(self.err(m.loc, format!("'{}' needs '.noftz'", m.text)));
        }
        if !crate::ops::atomic::valid(op, ty) || (red && op == AtomOp::Cas) || noftz != half {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        if red && op == AtomOp::Exch {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        let nsrc = if op == AtomOp::Cas { 2 } else { 1 };
        let first = if red { 0 } else { 1 };
        self.cache_hint(i, m, hint, first + 1 + nsrc)?;
        let dst = if red {
            None
        } else {
            Some(self.dst(&i.operands[0], ty, Rule::Relaxed)?)
        };
        let addr = self.address(&i.operands[first], space)?;
        let mut srcs = Vec::with_capacity(nsrc);
        for op in &i.operands[first + 1..first + 1 + nsrc] {
            srcs.push(self.src(op, ty, Rule::Relaxed)?);
        }
        Ok(InstKind::Atom {
            op,
            ty,
            space,
            dst,
            addr,
            srcs,
        })
    }
}
