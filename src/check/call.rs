//! Calls: `.func` parameter frames, call-site `.param` variables and the lowering of
//! `call` into [`Terminator::Call`] (see its documentation for the calling convention).

use super::func::{Fx, TBlock, TTerm};
use super::inst::{Lowered, Mods};
use super::operand::Val;
use super::{Cx, VarSym, MAX_LOCAL_FRAME};
use crate::ir::Fit;
use crate::ir::{
    self, AddrBase, Address, CallArg, CallDst, CallRet, CallSrc, FuncId, FuncKind, InstKind, Loc,
    Operand, Space, Terminator, Type, VarRef,
};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// Lays out the parameters of every defined function before any body is checked, so that
/// a call can be lowered before its callee's body (with a prototype declared earlier).
pub fn signature(cx: &mut Cx, f: &ast::FuncDecl, id: FuncId) -> Result<(), PtxError> {
    let saved = cx.total_regs;
    let (params, rets, size) = {
        let mut fx = Fx::new(cx, f.kind, id);
        let mut offset = 0u32;
        let params = fx.params(&f.params, &mut offset, Some(fx.cx.unsized_args.of(id)))?;
        let rets = fx.params(&f.rets, &mut offset, None)?;
        (params, rets, offset)
    };
    cx.total_regs = saved;
    if let Some(slot) = cx.m.functions.get_mut(id) {
        slot.params = params;
        slot.rets = rets;
        slot.param_size = size;
    }
    Ok(())
}

/// After every function is checked: each called function must have a body.
pub fn check_calls(cx: &Cx) -> Result<(), PtxError> {
    for f in &cx.m.functions {
        for b in &f.blocks {
            if let Terminator::Call { func, inst, .. } = &b.term {
                let callee = cx.m.functions.get(*func);
                if !callee.is_some_and(|c| c.has_body()) {
                    let loc = cx.m.inst_info.get(*inst).map(|i| i.loc);
                    let name = callee.map_or("?", |c| c.name.as_str());
                    if ir::CdpFn::is_unsupported(name) || ir::CdpFn::from_name(name).is_some() {
                        return Err(cx.err(
                            loc.unwrap_or_default(),
                            format!(
                                "device runtime function '{name}' is not supported (ptxjit provides the launch, stream, event, device and error entry points of CDP2 with CUDA's signatures; cudaDeviceSynchronize was removed from device code in CDP2)"
                            ),
                        ));
                    }
                    return Err(cx.err(
                        loc.unwrap_or_default(),
                        format!(
                            "call to function '{}', which has no body in this module (linking is not supported)",
                            callee.map_or("?", |c| c.name.as_str())
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// IR validation of a [`Terminator::Call`] in `f` (operands, callee, frame offsets).
pub fn validate_call(m: &ir::Module, f: &ir::Function, t: &Terminator) -> Result<(), String> {
    let Terminator::Call {
        func, args, rets, ..
    } = t
    else {
        return Ok(());
    };
    let callee = m
        .functions
        .get(*func)
        .ok_or("call to a function out of range")?;
    if callee.kind != FuncKind::Func || !callee.has_body() {
        return Err(format!(
            "call to '{}', not a .func with a body",
            callee.name
        ));
    }
    let in_callee = |off: u32, size: u32| off as u64 + size as u64 <= callee.local_size as u64;
    let in_caller = |off: u32, size: u32| off as u64 + size as u64 <= f.local_size as u64;
    let reg = |r: ir::RegId| {
        f.regs
            .get(r)
            .map(|i| i.ty)
            .ok_or("call register out of range")
    };
    for a in args {
        if !in_callee(a.dst, a.size) {
            return Err("call argument outside the callee's frame".into());
        }
        match a.src {
            CallSrc::Local(o) if !in_caller(o, a.size) => {
                return Err("call argument outside the caller's frame".into())
            }
            CallSrc::Local(_) => {}
            CallSrc::Value(op, ty) => {
                if ty.bytes() != a.size || ty == Type::Pred || ty.bits() > 64 {
                    return Err("call value argument of a bad size".into());
                }
                match op {
                    Operand::Reg(r) => {
                        reg(r)?;
                    }
                    Operand::Imm(_) => {}
                    _ => return Err("call argument must be a register or immediate".into()),
                }
            }
        }
    }
    for r in rets {
        if !in_callee(r.src, r.size) {
            return Err("call return value outside the callee's frame".into());
        }
        match r.dst {
            CallDst::Local(o) if !in_caller(o, r.size) => {
                return Err("call return value outside the caller's frame".into())
            }
            CallDst::Local(_) => {}
            CallDst::Reg(d, ty) => {
                let rt = reg(d)?;
                if ty.bytes() != r.size
                    || ty == Type::Pred
                    || ty.bits() > 64
                    || rt.class() == ir::RegClass::Pred
                    || rt.class() == ir::RegClass::R128
                {
                    return Err("call return register of a bad type".into());
                }
            }
        }
    }
    Ok(())
}

impl Fx<'_, '_> {
    /// The offset of a parameter of `size` bytes aligned to `align` after `offset`.
    pub(super) fn param_slot(
        &self,
        offset: &mut u32,
        align: u32,
        size: u32,
        loc: Loc,
    ) -> Result<u32, PtxError> {
        let off = offset
            .checked_next_multiple_of(align.max(1))
            .ok_or_else(|| self.err(loc, "parameters too large"))?;
        *offset = off
            .checked_add(size)
            .filter(|&e| self.kind == FuncKind::Entry || e <= MAX_LOCAL_FRAME)
            .ok_or_else(|| self.err(loc, "parameters too large"))?;
        Ok(off)
    }

    /// A call-site `.param` variable: a slot of the local frame.
    pub(super) fn call_param_slot(
        &mut self,
        size: u64,
        align: u32,
        loc: Loc,
    ) -> Result<u32, PtxError> {
        let too_large = || {
            self.err(
                loc,
                format!("local frame too large (at most {MAX_LOCAL_FRAME} bytes)"),
            )
        };
        let size = u32::try_from(size).map_err(|_| too_large())?;
        let off = self
            .local_size
            .checked_next_multiple_of(align.max(1))
            .ok_or_else(too_large)?;
        self.local_size = off
            .checked_add(size)
            .filter(|&e| e <= MAX_LOCAL_FRAME)
            .ok_or_else(too_large)?;
        self.local_align = self.local_align.max(align);
        self.call_params.insert(off, size);
        Ok(off)
    }

    /// A `.func`'s frame starts with its parameters and return values; `.reg` parameters
    /// are loaded from their slots at the entry.
    pub(super) fn func_frame(
        &mut self,
        params: &[ir::Param],
        rets: &[ir::Param],
        size: u32,
        loc: Loc,
    ) -> Result<(), PtxError> {
        self.local_size = size;
        for p in params.iter().chain(rets) {
            self.local_align = self.local_align.max(p.align);
        }
        if params
            .iter()
            .chain(rets)
            .any(|p| !p.regs.is_empty() && p.ty == Type::Pred)
        {
            self.pred_slot_tmp = Some(self.new_reg("%pred_slot".into(), Type::U16, loc)?);
        }
        for (p, k, r) in params.iter().flat_map(reg_elems) {
            {
                let off = p.offset + k * p.ty.bytes();
                let id = self.cx.inst_info(
                    loc,
                    format!("ld.param.{} (parameter {})", p.ty.name(), p.name),
                    self.id,
                );
                match self.pred_slot_tmp.filter(|_| p.ty == Type::Pred) {
                    Some(t) => {
                        self.push(None, slot_ld(Type::U8, t, off), id);
                        self.push(None, byte_to_pred(r, t), id);
                    }
                    None => self.push(None, slot_ld(p.ty, r, off), id),
                }
            }
        }
        self.reg_rets = rets
            .iter()
            .flat_map(reg_elems)
            .map(|(p, k, r)| (r, p.ty, p.offset + k * p.ty.bytes()))
            .collect();
        Ok(())
    }

    /// Appends the stores of `.reg` return values to a block ending in `ret`.
    pub(super) fn ret_stores(&mut self, tb: &mut TBlock, close: Loc) {
        if self.kind != FuncKind::Func || (self.reg_rets.is_empty() && self.stack_saved.is_none()) {
            return;
        }
        let (guard, loc) = match &tb.term {
            Some(TTerm::Ret { guard, inst, .. }) => (
                *guard,
                self.cx.m.inst_info.get(*inst).map_or(close, |i| i.loc),
            ),
            Some(TTerm::FallOff) | None => (None, close),
            _ => return,
        };
        for (r, ty, off) in self.reg_rets.clone() {
            let id = self.cx.inst_info(
                loc,
                format!("st.param.{} (return value)", ty.name()),
                self.id,
            );
            let (ty, src) = match self.pred_slot_tmp.filter(|_| ty == Type::Pred) {
                Some(t) => {
                    tb.insts.push(ir::Inst {
                        guard,
                        kind: pred_to_byte(t, r),
                        id,
                    });
                    (Type::U8, t)
                }
                None => (ty, r),
            };
            tb.insts.push(ir::Inst {
                guard,
                kind: InstKind::St {
                    space: Space::Local,
                    ty,
                    srcs: vec![Operand::Reg(src)],
                    addr: local_addr(off),
                },
                id,
            });
        }
        if let Some(sp) = self.stack_saved {
            let id = self.cx.inst_info(
                loc,
                "stackrestore.u64 (alloca's memory is freed at ret)".into(),
                self.id,
            );
            tb.insts.push(ir::Inst {
                guard,
                kind: InstKind::Builtin {
                    op: ir::Builtin::StackRestore { wide: true },
                    args: vec![Operand::Reg(sp)],
                    dst: None,
                },
                id,
            });
        }
    }

    /// `call{.uni} {(rets),} func{, (args)};`
    pub(super) fn call(&mut self, i: &Instruction, m: &mut Mods) -> Result<Lowered, PtxError> {
        let uni = m.has("uni");
        let ops = &i.operands;
        let mut k = 0;
        let ret_ops: &[ast::Operand] = match ops.first() {
            Some(ast::Operand::List(v, _)) => {
                k = 1;
                v
            }
            _ => &[],
        };
        let target = match ops.get(k) {
            Some(ast::Operand::Value(e)) => match self.value(e)? {
                Val::Func(f) => Ok(f),
                Val::Reg(r, 0) => match self.reg_ty(r) {
                    Type::U64 | Type::B64 | Type::S64 => Err(r),
                    // ptxas also takes a 32-bit register and calls through its value (the
                    // cubin's `CALL.REL` reads one 32-bit register either way): the low
                    // 32 bits of a function address, here its `FuncId` above
                    // `FUNC_ADDR_BASE`.
                    Type::U32 | Type::B32 | Type::S32 => {
                        let wide = self.new_reg("%__calladdr".into(), Type::B64, e.loc)?;
                        self.pre.push(InstKind::Cvt {
                            dst_ty: Type::U64,
                            src_ty: Type::U32,
                            rnd: None,
                            ftz: false,
                            sat: false,
                            dst: wide,
                            src: Operand::Reg(r),
                        });
                        self.pre.push(InstKind::Arith {
                            op: crate::ir::ArithOp::Or,
                            ty: Type::B64,
                            fmode: crate::ir::FloatMode::default(),
                            dst: wide,
                            srcs: vec![Operand::Reg(wide), Operand::Imm(crate::ir::FUNC_ADDR_BASE)],
                        });
                        Err(wide)
                    }
                    _ => return Err(self.err(
                        e.loc,
                        "the address of an indirect call must be a 32- or 64-bit integer register",
                    )),
                },
                _ => return Err(self.err(e.loc, "expected a function name or register")),
            },
            Some(op) => return Err(self.err(op.loc(), "expected a function name")),
            None => return Err(self.err(m.loc, "'call' needs a function")),
        };
        k += 1;
        // `None`: no argument list (`call f;`), unlike `call f, ();`.
        let arg_ops: Option<&[ast::Operand]> = match ops.get(k) {
            Some(ast::Operand::List(v, _)) => {
                k += 1;
                Some(v)
            }
            _ => None,
        };
        let rest = ops.get(k..).unwrap_or(&[]);
        match target {
            Ok(func) => self.call_direct(func, rest, arg_ops, ret_ops, m, uni),
            Err(addr) => self.call_indirect(addr, rest, arg_ops, ret_ops, m),
        }
    }

    /// A direct call of `func` (or of a built-in); `rest` are the operands after the
    /// arguments (none are allowed).
    fn call_direct(
        &mut self,
        func: FuncId,
        rest: &[ast::Operand],
        arg_ops: Option<&[ast::Operand]>,
        ret_ops: &[ast::Operand],
        m: &Mods,
        uni: bool,
    ) -> Result<Lowered, PtxError> {
        if let Some(op) = rest.first() {
            return Err(self.err(
                op.loc(),
                "unexpected operand (a prototype is only valid in an indirect call)",
            ));
        }
        let Some(callee) = self.cx.m.functions.get(func) else {
            return Err(self.err(m.loc, "internal error: unknown function"));
        };
        if callee.kind == FuncKind::Entry {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}' is a kernel (.entry) and cannot be called",
                    callee.name
                ),
            ));
        }
        if let Some(insts) = self.builtin_call(func, arg_ops.unwrap_or(&[]), ret_ops, m.loc)? {
            return Ok(Lowered::Insts(insts));
        }
        let Some(callee) = self.cx.m.functions.get(func) else {
            return Err(self.err(m.loc, "internal error: unknown function"));
        };
        let (name, params, prets) = (
            callee.name.clone(),
            callee.params.clone(),
            callee.rets.clone(),
        );
        let ops = self.call_operands(&name, arg_ops, ret_ops, &params, &prets, m.loc)?;
        Ok(Lowered::Call { func, ops, uni })
    }

    /// An indirect call through register `addr`; `rest` holds the `.calltargets` or
    /// `.callprototype` label (or call table) after the arguments.
    fn call_indirect(
        &mut self,
        addr: ir::RegId,
        rest: &[ast::Operand],
        arg_ops: Option<&[ast::Operand]>,
        ret_ops: &[ast::Operand],
        m: &Mods,
    ) -> Result<Lowered, PtxError> {
        let (dir, dloc) = match rest.first() {
            Some(ast::Operand::Value(e)) => match &e.kind {
                ast::ExprKind::Sym { name, comp: None } => (name.clone(), e.loc),
                _ => {
                    return Err(
                        self.err(e.loc, "expected a '.calltargets' or '.callprototype' label")
                    )
                }
            },
            Some(op) => {
                return Err(self.err(
                    op.loc(),
                    "expected a '.calltargets' or '.callprototype' label",
                ))
            }
            None => {
                return Err(self.err(
                    m.loc,
                    "an indirect call needs a '.calltargets' or '.callprototype' label",
                ))
            }
        };
        if let Some(op) = rest.get(1) {
            return Err(self.err(op.loc(), "unexpected operand"));
        }
        let Some(d) = self
            .call_dirs
            .get(&dir)
            .cloned()
            .or_else(|| self.call_table(&dir).map(Ok))
        else {
            return Err(self.err(
                dloc,
                format!(
                    "'{dir}' is not a '.calltargets' or '.callprototype' label of this function, nor a call table (an array initialized with function names)"
                ),
            ));
        };
        let (targets, params, prets) = self.indirect_targets(d, &dir, dloc)?;
        let ops = self.call_operands(&dir, arg_ops, ret_ops, &params, &prets, m.loc)?;
        Ok(Lowered::CallIndirect { addr, targets, ops })
    }

    /// The functions an indirect call through `dir` (its directive `d`) may reach and
    /// their common parameter and return layout.
    #[allow(clippy::type_complexity)]
    fn indirect_targets(
        &self,
        d: super::func::CallDir,
        dir: &str,
        dloc: Loc,
    ) -> Result<(Vec<FuncId>, Vec<ir::Param>, Vec<ir::Param>), PtxError> {
        let defined = |cx: &Cx, f: FuncId| {
            cx.func_defined.get(f).copied().unwrap_or(false)
                && cx
                    .m
                    .functions
                    .get(f)
                    .is_some_and(|g| g.kind == FuncKind::Func)
        };
        Ok(match d {
            Ok(ids) => {
                let Some(first) = ids.first().and_then(|f| self.cx.m.functions.get(*f)) else {
                    return Err(self.err(dloc, format!("'{dir}' lists no function")));
                };
                let (params, prets) = (first.params.clone(), first.rets.clone());
                for &f in &ids {
                    let g = &self.cx.m.functions[f];
                    if !defined(self.cx, f) {
                        return Err(self.err(
                            dloc,
                            format!(
                                "call target '{}' is not a function defined in this module",
                                g.name
                            ),
                        ));
                    }
                    if !same_layout(&g.params, &params) || !same_layout(&g.rets, &prets) {
                        return Err(self.err(
                            dloc,
                            format!(
                                "call targets '{}' and '{}' have different parameters",
                                first.name, g.name
                            ),
                        ));
                    }
                }
                (ids, params, prets)
            }
            Err((params, prets)) => {
                let ids = (0..self.cx.m.functions.len() as u32)
                    .map(FuncId)
                    .filter(|&f| {
                        let g = &self.cx.m.functions[f];
                        defined(self.cx, f)
                            && same_layout(&g.params, &params)
                            && same_layout(&g.rets, &prets)
                    })
                    .collect();
                (ids, params, prets)
            }
        })
    }

    /// The functions of a call table: a `.global`/`.const` array initialized with
    /// function names (`.global .u64 jmptbl[3] = { f, g, h };`), which the ISA allows as
    /// an indirect call's target list; `None` when `name` is not such a variable.
    fn call_table(&self, name: &str) -> Option<Vec<FuncId>> {
        let Some(super::func::Sym::Var(VarSym {
            vref: crate::ir::VarRef::Global(g),
            ..
        })) = self.lookup(name)
        else {
            return None;
        };
        let mut ids: Vec<FuncId> = Vec::new();
        for r in &self.cx.m.globals.get(g)?.relocs {
            if let crate::ir::RelocTarget::Func(f) = r.target {
                if !ids.contains(&f) {
                    ids.push(f);
                }
            }
        }
        (!ids.is_empty()).then_some(ids)
    }

    /// The layout of a `.callprototype`'s parameters and return values.
    pub(super) fn proto_layout(
        &mut self,
        proto: &ast::Prototype,
    ) -> Result<(Vec<ir::Param>, Vec<ir::Param>), PtxError> {
        // Laid out as a `.func`'s parameters, with any names in a scope of their own.
        let kind = self.kind;
        self.kind = FuncKind::Func;
        self.scopes.push(std::collections::HashMap::new());
        let mut offset = 0u32;
        let r = (|| {
            let params = self.params(
                &proto.params,
                &mut offset,
                Some(self.cx.unsized_args.indirect),
            )?;
            let rets = self.params(&proto.rets, &mut offset, None)?;
            Ok((params, rets))
        })();
        self.scopes.pop();
        self.kind = kind;
        r
    }

    /// Lowers the argument and return-value lists of a call to a function (or prototype)
    /// with `params` and `prets`.
    fn call_operands(
        &mut self,
        name: &str,
        arg_ops: Option<&[ast::Operand]>,
        ret_ops: &[ast::Operand],
        params: &[ir::Param],
        prets: &[ir::Param],
        loc: Loc,
    ) -> Result<CallOperands, PtxError> {
        // The ISA: an unsized last argument "may be omitted from the `call` instruction if
        // no parameter is passed through it" (ptxas: `call f, ();`, not `call f;`).
        let omitted = arg_ops.is_some_and(|a| a.len() + 1 == params.len())
            && params.last().is_some_and(|p| p.unsized_array);
        let arg_ops = arg_ops.unwrap_or(&[]);
        if arg_ops.len() != params.len() && !omitted {
            return Err(self.err(
                loc,
                format!(
                    "'{name}' takes {} argument(s), not {}",
                    params.len(),
                    arg_ops.len()
                ),
            ));
        }
        if ret_ops.len() != prets.len() {
            return Err(self.err(
                loc,
                format!(
                    "'{name}' returns {} value(s), not {}",
                    prets.len(),
                    ret_ops.len()
                ),
            ));
        }
        let mut ops = CallOperands::default();
        for (op, p) in arg_ops.iter().zip(params) {
            if p.regs.len() > 1 {
                for (k, src) in self.reg_vector(op, p)?.into_iter().enumerate() {
                    let eb = p.ty.bytes();
                    ops.args.push(CallArg {
                        src: CallSrc::Value(src, p.ty),
                        dst: p.offset + k as u32 * eb,
                        size: eb,
                    });
                }
                continue;
            }
            if p.unsized_array {
                let (o, size) = self.unsized_arg(op, p)?;
                ops.args.push(CallArg {
                    src: CallSrc::Local(o),
                    dst: p.offset,
                    size,
                });
                continue;
            }
            let src = match self.param_var(op, p)? {
                Some(o) => CallSrc::Local(o),
                // A predicate travels as the byte 0/1 (see `Fx::pred_slot_tmp`).
                None if p.ty == Type::Pred => match self.src(op, Type::Pred, Fit::Strict)? {
                    Operand::Reg(r) => {
                        let t = self.new_reg("%pred_arg".into(), Type::U16, loc)?;
                        ops.pre.push(pred_to_byte(t, r));
                        CallSrc::Value(Operand::Reg(t), Type::U8)
                    }
                    Operand::Imm(v) => CallSrc::Value(Operand::Imm(v & 1), Type::U8),
                    _ => return Err(self.err(op.loc(), "expected a predicate")),
                },
                None => CallSrc::Value(self.src(op, p.ty, Fit::Relaxed)?, p.ty),
            };
            ops.args.push(CallArg {
                src,
                dst: p.offset,
                size: p.size,
            });
        }
        for (op, p) in ret_ops.iter().zip(prets) {
            if p.regs.len() > 1 {
                for (k, d) in self.reg_vector(op, p)?.into_iter().enumerate() {
                    let Operand::Reg(d) = d else {
                        return Err(self.err(op.loc(), "expected a destination register"));
                    };
                    let eb = p.ty.bytes();
                    ops.rets.push(CallRet {
                        src: p.offset + k as u32 * eb,
                        dst: CallDst::Reg(d, p.ty),
                        size: eb,
                    });
                }
                continue;
            }
            let dst = match self.param_var(op, p)? {
                Some(o) => CallDst::Local(o),
                None if p.ty == Type::Pred => {
                    let d = self.dst(op, Type::Pred, Fit::Strict)?;
                    let t = self.new_reg("%pred_ret".into(), Type::U16, loc)?;
                    ops.post.push(byte_to_pred(d, t));
                    CallDst::Reg(t, Type::U8)
                }
                None => CallDst::Reg(self.dst(op, p.ty, Fit::Relaxed)?, p.ty),
            };
            ops.rets.push(CallRet {
                src: p.offset,
                dst,
                size: p.size,
            });
        }
        Ok(ops)
    }

    /// The elements of a vector argument or result for the vector `.reg` parameter `p`
    /// (`{a, b}` or a vector register), one per element.
    fn reg_vector(&self, op: &ast::Operand, p: &ir::Param) -> Result<Vec<Operand>, PtxError> {
        self.vector_srcs(op, &vec![p.ty; p.regs.len()], Fit::Relaxed, |_| {
            format!(
                "parameter '{}' takes a vector of {} elements",
                p.name,
                p.regs.len()
            )
        })
    }

    /// A call-site `.param` variable given for parameter `p` (its frame offset), `None`
    /// for a register or immediate (then `p` must be a scalar).
    fn param_var(&self, op: &ast::Operand, p: &ir::Param) -> Result<Option<u32>, PtxError> {
        let ast::Operand::Value(e) = op else {
            return Err(self.err(op.loc(), "expected a call argument"));
        };
        if let ast::ExprKind::Sym { .. } = e.kind {
            if let Val::Var(v, off, name) = self.value(e)? {
                return self.call_var(v, off, &name, p, e.loc).map(Some);
            }
        }
        if p.count != 1 {
            return Err(self.err(
                e.loc,
                format!(
                    "parameter '{}' must be passed in a call-site '.param' variable",
                    p.name
                ),
            ));
        }
        Ok(None)
    }

    /// The argument of unsized array parameter `p`: a one-dimensional call-site `.param`
    /// array of `p`'s alignment (ptxas 12.9: "Type of argument does not match formal
    /// parameter" for a scalar or a register, "Alignment of argument does not match" for
    /// another alignment; element types may differ), as its offset and size.
    fn unsized_arg(&self, op: &ast::Operand, p: &ir::Param) -> Result<(u32, u32), PtxError> {
        let ast::Operand::Value(e) = op else {
            return Err(self.err(op.loc(), "expected a call argument"));
        };
        let var = match &e.kind {
            ast::ExprKind::Sym { .. } => match self.value(e)? {
                Val::Var(v, 0, name) if v.call_param => match v.vref {
                    VarRef::Local(o) => Some((o, name)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some((o, name)) = var else {
            return Err(self.err(
                e.loc,
                format!(
                    "unsized array parameter '{}' takes a call-site '.param' array",
                    p.name
                ),
            ));
        };
        let Some(&align) = self.call_param_arrays.get(&o) else {
            return Err(self.err(
                e.loc,
                format!(
                    "'{name}' is not a one-dimensional array; unsized array parameter '{}' takes one",
                    p.name
                ),
            ));
        };
        if align != p.align {
            return Err(self.err(
                e.loc,
                format!(
                    "'{name}' is aligned to {align} bytes; unsized array parameter '{}' to {}",
                    p.name, p.align
                ),
            ));
        }
        let size = self.call_params.get(&o).copied().unwrap_or(0);
        if size > p.size {
            return Err(self.err(
                e.loc,
                format!(
                    "internal error: '{name}' ({size} bytes) exceeds the slot of '{}' ({} bytes)",
                    p.name, p.size
                ),
            ));
        }
        Ok((o, size))
    }

    fn call_var(
        &self,
        v: VarSym,
        off: i64,
        name: &str,
        p: &ir::Param,
        loc: Loc,
    ) -> Result<u32, PtxError> {
        let (VarRef::Local(o), true, 0) = (v.vref, v.call_param, off) else {
            return Err(self.err(
                loc,
                format!("'{name}' is not a '.param' variable declared for this call"),
            ));
        };
        let size = self.call_params.get(&o).copied().unwrap_or(0);
        if size < p.size {
            return Err(self.err(
                loc,
                format!(
                    "'{name}' has {size} bytes; parameter '{}' needs {}",
                    p.name, p.size
                ),
            ));
        }
        Ok(o)
    }
}

/// Whether two parameter lists have the same layout (sizes, offsets, element widths).
/// The registers of a `.reg` parameter with their element index.
fn reg_elems(p: &ir::Param) -> impl Iterator<Item = (&ir::Param, u32, ir::RegId)> {
    p.regs
        .iter()
        .enumerate()
        .map(move |(k, &r)| (p, k as u32, r))
}

fn same_layout(a: &[ir::Param], b: &[ir::Param]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            // An unsized array's slot size depends on the calls (`check/open_array.rs`).
            (p.size == q.size && p.count == q.count || p.unsized_array && q.unsized_array)
                && p.unsized_array == q.unsized_array
                && p.offset == q.offset
                && p.ty.bits() == q.ty.bits()
        })
}

fn local_addr(off: u32) -> Address {
    Address {
        base: AddrBase::Var(VarRef::Local(off)),
        offset: 0,
    }
}

/// The lowered operands of a call: what it copies in and out, and the conversions of
/// `.pred` values to and from their one-byte slots before (`pre`) and after (`post`) it.
#[derive(Default)]
pub(super) struct CallOperands {
    pub args: Vec<CallArg>,
    pub rets: Vec<CallRet>,
    pub pre: Vec<InstKind>,
    pub post: Vec<InstKind>,
}

/// `selp.u16 t, 1, 0, p`: a predicate as the byte (0 or 1) of its frame slot.
fn pred_to_byte(t: ir::RegId, p: ir::RegId) -> InstKind {
    InstKind::Selp {
        ty: Type::U16,
        dst: t,
        a: Operand::Imm(1),
        b: Operand::Imm(0),
        cond: ir::PredSrc {
            reg: p,
            negate: false,
        },
    }
}

/// `setp.ne.u16 p, t, 0`: a predicate from the byte of its frame slot.
fn byte_to_pred(p: ir::RegId, t: ir::RegId) -> InstKind {
    InstKind::Setp {
        cmp: ir::CmpOp::Ne,
        ty: Type::U16,
        ftz: false,
        dst: Some(p),
        dst_neg: None,
        a: Operand::Reg(t),
        b: Operand::Imm(0),
        combine: None,
    }
}

fn slot_ld(ty: Type, r: ir::RegId, off: u32) -> InstKind {
    InstKind::Ld {
        space: Space::Local,
        ty,
        dsts: vec![Some(r)],
        addr: local_addr(off),
    }
}
