//! Calls in the JIT. Every `.func` with a body is a Cranelift function
//! `(ctx: *mut WarpCtx, mask: u32) -> u32` compiled by the same translator as kernels
//! (convergent/divergent block variants, dispatcher): it runs the lanes of `mask` from its
//! entry and returns the lanes that returned (lanes that `exit` are removed from
//! `ctx.live`); a fault or error is signalled through `ctx.status`, which the caller
//! checks after the call. A `Terminator::Call` pushes the callee's `.local` frame
//! (`exec::call::call_push`: depth, call-stack and host-stack limits), stores the
//! arguments into it, calls the callee with the guarded active lanes, loads the return
//! values for the lanes that returned, pops the frame and continues at `next` with those
//! lanes and the lanes whose guard was false.

use crate::exec::call::callee_at;
use crate::exec::ctx::WarpCtx;
use crate::ir::{
    self, AddrBase, Address, CallDst, CallSrc, FuncId, Inst, InstKind, Operand, Space, Terminator,
    Type, VarRef,
};
use crate::jit::abi::Helper;
use crate::jit::helpers::control::IndirectSite;
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, JumpTableData, StackSlotData, StackSlotKind, Value};
use std::mem::offset_of;

fn local_addr(off: u32) -> Address {
    Address {
        base: AddrBase::Var(VarRef::Local(off)),
        offset: 0,
    }
}

impl FuncTranslator<'_> {
    /// `Terminator::Call` and `Terminator::CallIndirect` (see the module docs).
    pub(crate) fn call(&mut self, t: &Terminator) -> Result<(), JitError> {
        match t {
            Terminator::Call {
                guard,
                func,
                args,
                rets,
                next,
                inst,
                resume,
                ..
            } => {
                let mut m = self.exec_mask(*guard);
                let bits = self.mbits(&mut m);
                let abits = self.b.use_var(self.active_bits);
                let docall = self.b.create_block();
                let join = self.b.create_block();
                self.b.append_block_param(join, I32);
                self.b.append_block_param(join, I32);
                let zero = lanes::iconst32(&mut self.b, 0);
                self.b
                    .ins()
                    .brif(bits, docall, &[], join, &[zero.into(), zero.into()]);
                self.b.switch_to_block(docall);
                let split = resume.is_some();
                let (returned, parked) = self.call_one(*func, args, rets, bits, *inst, split)?;
                self.b.ins().jump(join, &[returned.into(), parked.into()]);
                self.b.switch_to_block(join);
                let returned = self.b.block_params(join)[0];
                let parked = self.b.block_params(join)[1];
                self.call_done(abits, bits, returned, *next, parked, *resume)
            }
            Terminator::CallIndirect {
                guard,
                addr,
                targets,
                args,
                rets,
                next,
                inst,
                resume,
            } => {
                let mut m = self.exec_mask(*guard);
                let bits = self.mbits(&mut m);
                let abits = self.b.use_var(self.active_bits);
                // Every lane's address, for `ptxjit_call_pick`.
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    256,
                    4,
                ));
                let w = self.read(&Operand::Reg(*addr), Type::U64, false)?;
                for (k, &v) in w.v.iter().enumerate() {
                    self.b.ins().stack_store(I64, v, slot, 16 * k as i32);
                }
                let site = Box::new(IndirectSite {
                    inst: *inst,
                    nfuncs: self.m.functions.len(),
                    targets: targets.iter().map(|f| f.0).collect(),
                });
                let site_ptr = &*site as *const IndirectSite as u64;
                self.calls
                    .sites
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(site);
                let lp = self.b.create_block();
                self.b.append_block_param(lp, I32);
                self.b.append_block_param(lp, I32);
                self.b.append_block_param(lp, I32);
                let join = self.b.create_block();
                self.b.append_block_param(join, I32);
                self.b.append_block_param(join, I32);
                let zero = lanes::iconst32(&mut self.b, 0);
                self.b
                    .ins()
                    .jump(lp, &[bits.into(), zero.into(), zero.into()]);
                self.b.switch_to_block(lp);
                let left = self.b.block_params(lp)[0];
                let acc = self.b.block_params(lp)[1];
                let pacc = self.b.block_params(lp)[2];
                let pick = self.b.create_block();
                self.b
                    .ins()
                    .brif(left, pick, &[], join, &[acc.into(), pacc.into()]);
                self.b.switch_to_block(pick);
                let h = self.helper(Helper::CallPick)?;
                let sa = self.b.ins().stack_addr(I64, slot, 0);
                let sp = lanes::iconst64(&mut self.b, site_ptr);
                let r = self.b.ins().call(h, &[self.ctx, sa, left, sp]);
                let r = self.b.inst_results(r)[0];
                let group = self.b.ins().ireduce(I32, r);
                let idx = self.b.ins().ushr_imm_u(r, 32);
                let idx = self.b.ins().ireduce(I32, idx);
                let sw = self.b.create_block();
                self.b.ins().brif(group, sw, &[], self.ret_status, &[]);
                self.b.switch_to_block(sw);
                let tblocks: Vec<_> = targets.iter().map(|_| self.b.create_block()).collect();
                let def = self.b.func.dfg.block_call(self.ret_status, &[]);
                let table: Vec<_> = tblocks
                    .iter()
                    .map(|&tb| self.b.func.dfg.block_call(tb, &[]))
                    .collect();
                let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
                self.b.ins().br_table(idx, jt);
                for (i, &tb) in tblocks.iter().enumerate() {
                    self.b.switch_to_block(tb);
                    let split = resume.is_some();
                    let (returned, parked) =
                        self.call_one(targets[i], args, rets, group, *inst, split)?;
                    let left2 = self.b.ins().band_not(left, group);
                    let acc2 = self.b.ins().bor(acc, returned);
                    let pacc2 = self.b.ins().bor(pacc, parked);
                    self.b
                        .ins()
                        .jump(lp, &[left2.into(), acc2.into(), pacc2.into()]);
                }
                self.b.switch_to_block(join);
                let returned = self.b.block_params(join)[0];
                let parked = self.b.block_params(join)[1];
                self.call_done(abits, bits, returned, *next, parked, *resume)
            }
            _ => Err(JitError::Codegen("not a call".into())),
        }
    }

    /// Sets the active lanes (vector and bit forms) to `bits`.
    pub(crate) fn set_active(&mut self, bits: Value) {
        let m = lanes::mask_from_bits(&mut self.b, bits);
        for k in 0..N32 {
            self.b.def_var(self.active[k], m[k]);
        }
        self.b.def_var(self.active_bits, bits);
    }

    /// Calls `func` with the lanes `group`: pushes its frame, stores the arguments,
    /// calls (through `ptxjit_call_split` if `split`, see `exec::split`), loads the
    /// return values of the lanes that returned and pops the frame. Returns the lanes
    /// that returned and the lanes suspended, in the block where the code continues.
    fn call_one(
        &mut self,
        func: FuncId,
        args: &[ir::CallArg],
        rets: &[ir::CallRet],
        group: Value,
        inst: ir::InstId,
        split: bool,
    ) -> Result<(Value, Value), JitError> {
        let callee = self
            .m
            .functions
            .get(func)
            .ok_or_else(|| JitError::Codegen("call to a function out of range".into()))?;
        let cid =
            *self.calls.funcs.get(&func).ok_or_else(|| {
                JitError::Codegen(format!("function {} not declared", callee.name))
            })?;
        let frame = self.f.call_frame();
        let name: Box<str> = callee_at(self.m, func, inst).into_boxed_str();
        let (np, nl) = (name.as_ptr() as u64, name.len() as u64);
        self.calls
            .texts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(name);
        let hp = self.helper(Helper::CallPush)?;
        let fr = lanes::iconst32(&mut self.b, frame);
        let sz = lanes::iconst32(&mut self.b, callee.local_size);
        let zf = lanes::iconst32(&mut self.b, callee.rets_start());
        let npv = lanes::iconst64(&mut self.b, np);
        let nlv = lanes::iconst64(&mut self.b, nl);
        let iv = lanes::iconst32(&mut self.b, inst.0);
        let r = self
            .b
            .ins()
            .call(hp, &[self.ctx, group, fr, sz, zf, npv, nlv, iv]);
        let res = self.b.inst_results(r)[0];
        let pushed = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], pushed, &[]);
        self.b.switch_to_block(pushed);
        // Argument stores and return-value loads run under the called / returned lanes,
        // merging (the other lanes keep their registers).
        let mode = self.mode;
        self.mode = Mode::Div;
        self.set_active(group);
        let hc = self.helper(Helper::CallCopy)?;
        for a in args {
            match a.src {
                CallSrc::Local(o) => {
                    let c = [o, a.dst, a.size, 1].map(|x| lanes::iconst32(&mut self.b, x));
                    self.b
                        .ins()
                        .call(hc, &[self.ctx, group, fr, c[0], c[1], c[2], c[3]]);
                }
                CallSrc::Value(op, ty) => {
                    // A store into the callee's frame (the local window has moved).
                    self.inst_at(&Inst {
                        guard: None,
                        kind: InstKind::St {
                            space: Space::Local,
                            ty,
                            srcs: vec![op],
                            addr: local_addr(a.dst),
                        },
                        id: inst,
                    })?;
                }
            }
        }
        let fref = self.callee_ref(cid);
        let (returned, parked) = if split {
            let addr = self.b.ins().func_addr(I64, fref);
            let h = self.helper(Helper::CallSplit)?;
            let r = self.b.ins().call(h, &[self.ctx, addr, group]);
            let r = self.b.inst_results(r)[0];
            let returned = self.b.ins().ireduce(I32, r);
            let hi = self.b.ins().ushr_imm_u(r, 32);
            (returned, self.b.ins().ireduce(I32, hi))
        } else {
            let r = self.b.ins().call(fref, &[self.ctx, group]);
            let returned = self.b.inst_results(r)[0];
            (returned, lanes::iconst32(&mut self.b, 0))
        };
        let st = self.load_ctx(I32, offset_of!(WarpCtx, status), false);
        let got = self.b.create_block();
        self.b.ins().brif(st, self.ret_status, &[], got, &[]);
        self.b.switch_to_block(got);
        self.load_rets(rets, returned, fr, inst)?;
        self.mode = mode;
        let hpop = self.helper(Helper::CallPop)?;
        self.b.ins().call(hpop, &[self.ctx, fr]);
        Ok((returned, parked))
    }

    /// Loads the return values `rets` of the lanes `returned` from the callee's frame
    /// (pushed with `fr`), in divergent mode.
    pub(crate) fn load_rets(
        &mut self,
        rets: &[ir::CallRet],
        returned: Value,
        fr: Value,
        inst: ir::InstId,
    ) -> Result<(), JitError> {
        let hc = self.helper(Helper::CallCopy)?;
        if !rets.is_empty() {
            self.set_active(returned);
            for r in rets {
                match r.dst {
                    CallDst::Local(o) => {
                        let c = [o, r.src, r.size, 0].map(|x| lanes::iconst32(&mut self.b, x));
                        self.b
                            .ins()
                            .call(hc, &[self.ctx, returned, fr, c[0], c[1], c[2], c[3]]);
                    }
                    CallDst::Reg(d, ty) => {
                        self.inst_at(&Inst {
                            guard: None,
                            kind: InstKind::Ld {
                                space: Space::Local,
                                ty,
                                dsts: vec![Some(d)],
                                addr: local_addr(r.src),
                            },
                            id: inst,
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// After a call: the lanes whose guard was false (`abits & !bits`) and the lanes
    /// that returned continue at `next`; lanes `parked` (suspended in a split call)
    /// wait at the `resume` block behind the barrier flag.
    fn call_done(
        &mut self,
        abits: Value,
        bits: Value,
        returned: Value,
        next: ir::BlockId,
        parked: Value,
        resume: Option<ir::BlockId>,
    ) -> Result<(), JitError> {
        let nb = self.block(next)?;
        let rest = self.b.ins().band_not(abits, bits);
        let cont = self.b.ins().bor(rest, returned);
        if let Some(r) = resume {
            let park = self.b.create_block();
            let go = self.b.create_block();
            self.b.ins().brif(parked, park, &[], go, &[]);
            self.b.switch_to_block(park);
            self.park_and_dispatch(cont, next, parked, r);
            self.b.switch_to_block(go);
        }
        match self.mode {
            Mode::Conv => {
                self.set_active(cont);
                self.b.ins().brif(cont, nb, &[], self.ret_status, &[]);
            }
            Mode::Div => {
                let cm = lanes::mask_from_bits(&mut self.b, cont);
                self.record(&cm, next);
                self.b.ins().jump(self.dispatch, &[]);
            }
        }
        Ok(())
    }
}
