//! Calls of the runtime built-ins (`vprintf`, `__assertfail`, `malloc`, `free`): a `call` to a function
//! declared without a body whose name and signature are exactly CUDA's is lowered to
//! [`InstKind::Builtin`] instead of a [`crate::ir::Terminator::Call`]; call-site `.param`
//! variables are read (and the return value written) with `.local` loads and stores
//! around it.

use super::func::Fx;
use super::operand::Val;
use super::VarSym;
use crate::ir::Fit;
use crate::ir::{
    self, AddrBase, Address, Builtin, FuncId, InstKind, Loc, Operand, Space, Type, VarRef,
};
use crate::parse::ast;
use crate::parse::PtxError;

/// The built-in a function declared without a body stands for: its name and its
/// parameter and return sizes must match CUDA's declaration exactly.
pub(super) fn builtin_of(f: &ir::Function) -> Option<Builtin> {
    if let Some(c) = ir::CdpFn::from_name(&f.name) {
        let total = |ps: &[ir::Param]| ps.iter().map(|p| p.size).collect::<Vec<u32>>();
        let rets: Vec<u32> = c.result().iter().map(|t| t.bytes()).collect();
        let ok = total(&f.params) == c.param_sizes() && total(&f.rets) == rets;
        return ok.then_some(Builtin::Cdp(c));
    }
    let sizes = |ps: &[ir::Param]| {
        ps.iter()
            .map(|p| (p.count == 1).then_some(p.size))
            .collect::<Option<Vec<u32>>>()
    };
    let (params, rets) = (sizes(&f.params)?, sizes(&f.rets)?);
    match (f.name.as_str(), params.as_slice(), rets.as_slice()) {
        ("vprintf", [8, 8], [4]) => Some(Builtin::Vprintf),
        ("__assertfail", [8, 8, 4, 8, 8], []) => Some(Builtin::AssertFail),
        ("malloc", [8], [8]) => Some(Builtin::Malloc),
        ("free", [8], []) => Some(Builtin::Free),
        _ => None,
    }
}

impl Fx<'_, '_> {
    /// `call (ret), vprintf, (a, b);` or `call __assertfail, (...);` when `func` is such
    /// a built-in (declared without a body in this module); `None` otherwise.
    pub(super) fn builtin_call(
        &mut self,
        func: FuncId,
        arg_ops: &[ast::Operand],
        ret_ops: &[ast::Operand],
        loc: Loc,
    ) -> Result<Option<Vec<InstKind>>, PtxError> {
        if self.cx.func_defined.get(func).copied().unwrap_or(true) {
            return Ok(None);
        }
        let Some(callee) = self.cx.m.functions.get(func) else {
            return Ok(None);
        };
        let Some(op) = builtin_of(callee) else {
            return Ok(None);
        };
        let name = callee.name.clone();
        let tys = op.params();
        if arg_ops.len() != tys.len() || ret_ops.len() > 1 {
            return Err(self.err(
                loc,
                format!(
                    "'{name}' takes {} argument(s), not {}",
                    tys.len(),
                    arg_ops.len()
                ),
            ));
        }
        if op.result().is_none() && !ret_ops.is_empty() {
            return Err(self.err(loc, format!("'{name}' returns no value")));
        }
        let mut insts = Vec::new();
        let mut args = Vec::new();
        for (k, (o, &ty)) in arg_ops.iter().zip(tys).enumerate() {
            if matches!(op, Builtin::Cdp(c) if c.is_dim3(k)) {
                // A dim3 by value: the built-in reads it from the call-site variable.
                let Some(off) = self.param_slot_of(o, ty)? else {
                    return Err(self.err(
                        o.loc(),
                        format!("argument {k} of '{name}' (a dim3) must be a '.param' variable"),
                    ));
                };
                args.push(Operand::VarAddr(VarRef::Local(off), 0));
                continue;
            }
            let arg = match self.param_slot_of(o, ty)? {
                Some(off) => {
                    let t = self.new_reg("%builtin_arg".into(), ty, loc)?;
                    insts.push(InstKind::Ld {
                        space: Space::Local,
                        ty,
                        dsts: vec![Some(t)],
                        addr: local_addr(off),
                    });
                    Operand::Reg(t)
                }
                None => self.src(o, ty, Fit::Relaxed)?,
            };
            args.push(arg);
        }
        let mut post = None;
        let rty = op.result().unwrap_or(Type::U32);
        let dst = match ret_ops.first() {
            None => None,
            Some(o) => match self.param_slot_of(o, rty)? {
                Some(off) => {
                    let t = self.new_reg("%builtin_ret".into(), rty, loc)?;
                    post = Some(InstKind::St {
                        space: Space::Local,
                        ty: rty,
                        srcs: vec![Operand::Reg(t)],
                        addr: local_addr(off),
                    });
                    Some(t)
                }
                None => Some(self.dst(o, rty, Fit::Relaxed)?),
            },
        };
        insts.push(InstKind::Builtin { op, args, dst });
        insts.extend(post);
        Ok(Some(insts))
    }

    /// The frame offset of a call-site `.param` variable given as a built-in's operand
    /// of type `ty`, `None` for a register or immediate.
    fn param_slot_of(&self, op: &ast::Operand, ty: Type) -> Result<Option<u32>, PtxError> {
        let ast::Operand::Value(e) = op else {
            return Err(self.err(op.loc(), "expected a call argument"));
        };
        if let ast::ExprKind::Sym { .. } = e.kind {
            if let Val::Var(v, off, name) = self.value(e)? {
                let VarSym {
                    vref: VarRef::Local(o),
                    call_param: true,
                    ..
                } = v
                else {
                    return Err(self.err(
                        e.loc,
                        format!("'{name}' is not a '.param' variable declared for this call"),
                    ));
                };
                let size = self.call_params.get(&o).copied().unwrap_or(0);
                if off != 0 || size < ty.bytes() {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "'{name}' has {size} bytes; the parameter needs {}",
                            ty.bytes()
                        ),
                    ));
                }
                return Ok(Some(o));
            }
        }
        Ok(None)
    }
}

fn local_addr(off: u32) -> Address {
    Address {
        base: AddrBase::Var(VarRef::Local(off)),
        offset: 0,
    }
}
