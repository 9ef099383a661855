//! Lowering of the CTA barriers: `bar{.cta}.sync a{, b}` / `barrier{.cta}.sync{.aligned}`
//! (a [`Lowered::Barrier`] block terminator), `bar{.cta}.arrive a, b`
//! ([`InstKind::BarArrive`]) and `bar{.cta}.red.popc.u32 d, a{, b}, {!}c` /
//! `bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c` (a barrier terminator that carries `c`,
//! followed by an [`InstKind::BarRedResult`] writing `d`).

use super::{Lowered, Mods};
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{BarRedOp, InstKind, Operand, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `membar.{cta,gl,sys}` and `fence{.sem}{.scope}` / `fence.proxy.*` /
    /// `fence.mbarrier_init.*`: [`InstKind::Fence`] for the sequentially consistent
    /// forms (`membar`, `fence.sc`, and a plain `fence.scope`, whose default is `.sc`),
    /// an [`InstKind::OrderPoint`] for the others (x86-64's TSO already gives acquire and
    /// release ordering; proxies are one memory here).
    pub(super) fn fence_inst(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Lowered, PtxError> {
        let name = i.opcode.name.as_str();
        if m.any(|x| x == "proxy" || x == "mbarrier_init") {
            return self.fence_proxy(i, m);
        }
        let membar = name == "membar";
        let sem = m.take_if(|x| matches!(x, "acq_rel" | "acquire" | "release" | "sc"));
        let weak = matches!(sem, Some((x, _)) if x != "sc");
        let sc = matches!(sem, Some(("sc", _)));
        // `membar.level`, level = {.cta, .gl, .sys}; `fence{.sem}.scope`, scope =
        // {.cta, .cluster, .gpu, .sys}: ptxas rejects `membar.gl.release`, `fence.gl`.
        let scopes: &[&str] = if membar {
            &["cta", "gl", "sys"]
        } else {
            &["cta", "cluster", "gpu", "sys"]
        };
        let scope = m.one_of(scopes);
        if let (true, Some((x, loc))) = (membar, sem) {
            return Err(self.err(
                loc,
                format!("modifier '.{x}' is not allowed in '{}'", m.text),
            ));
        }
        if membar && scope.is_none() {
            return Err(self.err(m.loc, format!("'{}' needs '.cta', '.gl' or '.sys'", m.text)));
        }
        // ptxas: "Scope modifier required for instruction 'fence'" (`fence`, `fence.sc`).
        if !membar && scope.is_none() {
            return Err(self.err(
                m.loc,
                format!("'{}' needs a scope (.cta, .cluster, .gpu, .sys)", m.text),
            ));
        }
        if !i.operands.is_empty() {
            return Err(self.err(
                i.operands[0].loc(),
                format!("'{}' takes no operands", m.text),
            ));
        }
        let kind = if weak && !sc {
            InstKind::OrderPoint
        } else {
            InstKind::Fence
        };
        Ok(Lowered::Insts(vec![kind]))
    }

    pub(super) fn barrier_inst(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Lowered, PtxError> {
        m.has("cta");
        m.has("aligned");
        let kind = m.one_of(&["sync", "arrive", "red"]);
        let red_op = match kind {
            Some("red") => Some(match m.one_of(&["popc", "and", "or"]) {
                Some("popc") => BarRedOp::Popc,
                Some("and") => BarRedOp::And,
                Some(_) => BarRedOp::Or,
                None => {
                    return Err(self.err(
                        m.loc,
                        format!("'{}' needs '.popc', '.and' or '.or'", m.text),
                    ))
                }
            }),
            _ => None,
        };
        if kind.is_none() {
            return Err(self.unsupported(m));
        }
        match (kind, red_op) {
            (Some("sync"), _) => {
                // The barrier operand is required (ptxas rejects `bar.sync;`).
                let (1..=2, Some(op)) = (i.operands.len(), i.operands.first()) else {
                    return Err(self.err(
                        m.loc,
                        format!("instruction '{}' takes 1 or 2 operands", m.text),
                    ));
                };
                let barrier = self.barrier_id(op)?;
                let count = i
                    .operands
                    .get(1)
                    .map(|op| self.thread_count(op))
                    .transpose()?;
                Ok(Lowered::Barrier {
                    barrier,
                    count,
                    red: None,
                })
            }
            (Some("arrive"), _) => {
                self.nops(i, m, 2)?;
                let barrier = self.barrier_id(&i.operands[0])?;
                let count = self.thread_count(&i.operands[1])?;
                Ok(Lowered::Insts(vec![InstKind::BarArrive { barrier, count }]))
            }
            (_, Some(op)) => {
                let want = if op == BarRedOp::Popc {
                    Type::U32
                } else {
                    Type::Pred
                };
                let ty = self.one_type(m)?;
                if ty != want {
                    return Err(self.bad_type(m, ty));
                }
                if !(3..=4).contains(&i.operands.len()) {
                    return Err(self.err(
                        m.loc,
                        format!("instruction '{}' takes 3 or 4 operands", m.text),
                    ));
                }
                let n = i.operands.len();
                let dst = self.dst(&i.operands[0], want, Fit::Strict)?;
                let barrier = self.barrier_id(&i.operands[1])?;
                let count = match n {
                    4 => Some(self.thread_count(&i.operands[2])?),
                    _ => None,
                };
                let c = self.pred_src(&i.operands[n - 1])?;
                Ok(Lowered::Barrier {
                    barrier,
                    count,
                    red: Some((op, c, dst)),
                })
            }
            _ => Err(self.unsupported(m)),
        }
    }

    /// A barrier number `a`: an immediate 0..15 or a `.u32` register.
    fn barrier_id(&self, op: &ast::Operand) -> Result<Operand, PtxError> {
        let v = self.src(op, Type::U32, Fit::Strict)?;
        if let Operand::Imm(n) = v {
            if n > 15 {
                return Err(self.err(
                    op.loc(),
                    format!("barrier number {n} is out of range 0..15"),
                ));
            }
        }
        Ok(v)
    }

    /// A thread count `b`: a positive multiple of the warp size (checked at run time for
    /// a register).
    fn thread_count(&self, op: &ast::Operand) -> Result<Operand, PtxError> {
        let v = self.src(op, Type::U32, Fit::Strict)?;
        if let Operand::Imm(n) = v {
            if n == 0 || n % 32 != 0 {
                return Err(self.err(
                    op.loc(),
                    format!("thread count {n} must be a positive multiple of the warp size"),
                ));
            }
        }
        Ok(v)
    }

    /// `nanosleep.u32 t` (register or immediate).
    pub(super) fn nanosleep(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        if !m.has("u32") {
            return Err(self.err(m.loc, format!("'{}' needs the type .u32", m.text)));
        }
        if i.operands.len() != 1 {
            let loc = i.operands.get(1).map(|o| o.loc()).unwrap_or(m.loc);
            return Err(self.err(
                loc,
                format!(
                    "instruction '{}' takes 1 operand, not {}",
                    m.text,
                    i.operands.len()
                ),
            ));
        }
        let t = self.src(&i.operands[0], Type::U32, Fit::Strict)?;
        Ok(InstKind::Nanosleep { t })
    }
}
