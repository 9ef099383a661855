//! Validation of the proxy and restricted fences, which are order points here (proxies
//! are one memory on the CPU): `fence.proxy.proxykind` / `membar.proxy.proxykind`
//! (`.alias`, `.async{.global,.shared::cta,.shared::cluster}`),
//! `fence.proxy.tensormap::generic.release.scope` and
//! `fence.proxy.tensormap::generic.acquire.scope [addr], 128`, and
//! `fence.mbarrier_init.release.cluster`. Any other modifier, or a missing proxy kind,
//! semantics, scope or operand, is a located error (as in ptxas 12.9).

use super::{Lowered, Mods};
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::{InstKind, Space};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

const SCOPES: &[&str] = &["cta", "cluster", "gpu", "sys"];

impl Fx<'_, '_> {
    /// A `fence`/`membar` with `.proxy` or `.mbarrier_init` (all modifiers in `m`).
    pub(super) fn fence_proxy(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Lowered, PtxError> {
        let membar = i.opcode.name == "membar";
        if !membar && m.has("mbarrier_init") {
            if !m.has("release") {
                return Err(self.err(m.loc, format!("'{}' needs '.release'", m.text)));
            }
            if !m.has("cluster") {
                return Err(self.err(m.loc, format!("'{}' needs '.cluster'", m.text)));
            }
            self.no_more_mods(m)?;
            self.proxy_nops(i, m, 0)?;
            return Ok(Lowered::Insts(vec![InstKind::OrderPoint]));
        }
        if !m.has("proxy") {
            return Err(self.unsupported(m));
        }
        if !membar && m.has("tensormap::generic") {
            let sem = m.one_of(&["acquire", "release"]);
            let Some(sem) = sem else {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs '.acquire' or '.release'", m.text),
                ));
            };
            if m.one_of(SCOPES).is_none() {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs a scope (.cta, .cluster, .gpu, .sys)", m.text),
                ));
            }
            self.no_more_mods(m)?;
            if sem == "acquire" {
                self.proxy_nops(i, m, 2)?;
                self.address(&i.operands[0], Space::Generic)?;
                self.size_128(&i.operands[1])?;
            } else {
                self.proxy_nops(i, m, 0)?;
            }
            return Ok(Lowered::Insts(vec![InstKind::OrderPoint]));
        }
        match m.one_of(&["alias", "async"]) {
            Some("async") => {
                m.one_of(&["global", "shared::cta", "shared::cluster"]);
            }
            Some("alias") => {}
            _ => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs a proxy kind (.alias, .async)", m.text),
                ))
            }
        }
        self.no_more_mods(m)?;
        self.proxy_nops(i, m, 0)?;
        Ok(Lowered::Insts(vec![InstKind::OrderPoint]))
    }

    fn no_more_mods(&self, m: &mut Mods) -> Result<(), PtxError> {
        match m.take_if(|_| true) {
            Some((name, loc)) => Err(self.err(
                loc,
                format!("modifier '.{name}' is not allowed in '{}'", m.text),
            )),
            None => Ok(()),
        }
    }

    fn proxy_nops(&self, i: &Instruction, m: &Mods, n: usize) -> Result<(), PtxError> {
        if i.operands.len() == n {
            return Ok(());
        }
        let loc = i.operands.first().map_or(m.loc, |o| o.loc());
        Err(self.err(
            loc,
            format!("'{}' takes {n} operands, not {}", m.text, i.operands.len()),
        ))
    }

    /// The `size` operand of `fence.proxy.tensormap::generic.acquire`: the integer 128.
    fn size_128(&self, op: &ast::Operand) -> Result<(), PtxError> {
        if let ast::Operand::Value(e) = op {
            if let Val::Const(c) = self.value(e)? {
                if c.as_i64() == Some(128) {
                    return Ok(());
                }
            }
        }
        Err(self.err(op.loc(), "the size operand must be the integer 128"))
    }
}
