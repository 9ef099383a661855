//! The control flow family beyond `bra`, `ret` and `exit` (lowered in `super::lower`;
//! calls: `check/call.rs`): `brx.idx` with its `.branchtargets` lists.

use super::Mods;
use crate::check::func::{Fx, Sym};
use crate::ir::Fit;
use crate::ir::{Operand, Type};
use crate::parse::ast::{self, Ident, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// Records a checked `label: .branchtargets ...;` list (label ids): from here on (and
    /// only from here on) `brx.idx` may use `label`.
    pub(crate) fn branch_targets_checked(&mut self, label: &Ident, ids: Vec<u32>) {
        let idx = self.btlists.len() as u32;
        self.btlists.push(ids);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(label.name.clone(), Sym::BranchTargets(idx));
        }
    }

    /// `brx.idx{.uni} index, tlist`: the index operand, the target label ids and `.uni`.
    pub(super) fn brx_idx(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<(Operand, Vec<u32>, bool), PtxError> {
        if !m.has("idx") {
            return Err(self.unsupported(m));
        }
        let uni = m.has("uni");
        if i.operands.len() != 2 {
            let loc = i.operands.get(2).map(|o| o.loc()).unwrap_or(m.loc);
            return Err(self.err(
                loc,
                format!(
                    "instruction '{}' takes 2 operands (index, .branchtargets label), not {}",
                    m.text,
                    i.operands.len()
                ),
            ));
        }
        let index = self.src(&i.operands[0], Type::U32, Fit::Strict)?;
        let (name, loc) = match &i.operands[1] {
            ast::Operand::Value(e) => match &e.kind {
                ast::ExprKind::Sym { name, comp: None } => (name.as_str(), e.loc),
                _ => return Err(self.err(e.loc, "expected a .branchtargets label")),
            },
            op => return Err(self.err(op.loc(), "expected a .branchtargets label")),
        };
        let list = match self.lookup(name) {
            Some(Sym::BranchTargets(k)) => self.btlists.get(k as usize).cloned(),
            Some(Sym::Directive) => {
                return Err(self.err(
                    loc,
                    format!(
                        "'{name}' is not a .branchtargets list declared before this '{}'",
                        m.text
                    ),
                ))
            }
            Some(_) => return Err(self.err(loc, format!("'{name}' is not a .branchtargets label"))),
            None => return Err(self.err(loc, format!("unknown label '{name}'"))),
        };
        let list = list.unwrap_or_default();
        if list.is_empty() {
            return Err(self.err(loc, format!("'{name}' lists no branch targets")));
        }
        if let Operand::Imm(k) = index {
            if k >= list.len() as u64 {
                return Err(self.err(
                    i.operands[0].loc(),
                    format!(
                        "index {k} is out of range for '{name}' ({} targets)",
                        list.len()
                    ),
                ));
            }
        }
        Ok((index, list, uni))
    }
}
