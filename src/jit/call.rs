//! Calls in the JIT. Every `.func` with a body is a Cranelift function
//! `(ctx: *mut WarpCtx, mask: u32) -> u32` compiled by the same translator as kernels
//! (convergent/divergent block variants, dispatcher): it runs the lanes of `mask` from its
//! entry and returns the lanes that returned (lanes that `exit` are removed from
//! `ctx.live`); a fault or error is signalled through `ctx.status`, which the caller
//! checks after the call. A `Terminator::Call` pushes the callee's `.local` frame
//! (`runtime::call::call_push`: depth, call-stack and host-stack limits), stores the
//! arguments into it, calls the callee with the guarded active lanes, loads the return
//! values for the lanes that returned, pops the frame and continues at `next` with those
//! lanes and the lanes whose guard was false.

use super::helpers::Helper;
use super::lanes::{self, N32};
use super::translate::{FnTx, Mode};
use super::JitError;
use crate::ir::{
    self, AddrBase, Address, CallDst, CallSrc, FuncId, Inst, InstKind, Space, Terminator, VarRef,
};
use crate::runtime::call::{call_copy, call_pop, call_push};
use crate::runtime::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK};
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, InstBuilder, Signature, Value};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;
use std::mem::offset_of;

/// The callable functions of a module as declared in one Cranelift module, and their
/// names (which the code passes to `ptxjit_call_push` for messages; they must live as
/// long as the code).
pub(crate) struct CallEnv {
    pub funcs: HashMap<FuncId, cranelift_module::FuncId>,
    pub names: Vec<Box<str>>,
}

pub(crate) fn func_signature(cm: &JITModule) -> Signature {
    let mut sig = cm.make_signature();
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I32));
    sig.returns.push(AbiParam::new(I32));
    sig
}

/// Declares every `.func` with a body of `m` in `cm`.
pub(crate) fn declare_funcs(cm: &mut JITModule, m: &ir::Module) -> Result<CallEnv, JitError> {
    let mut funcs = HashMap::new();
    let sig = func_signature(cm);
    for (i, f) in m.functions.iter().enumerate() {
        if f.kind == ir::FuncKind::Func && f.has_body() {
            let id = cm
                .declare_function(&format!("ptxjit_func_{i}"), Linkage::Local, &sig)
                .map_err(|e| JitError::Codegen(format!("declare function: {e}")))?;
            funcs.insert(FuncId(i as u32), id);
        }
    }
    let names = m
        .functions
        .iter()
        .map(|f| f.name.clone().into_boxed_str())
        .collect();
    Ok(CallEnv { funcs, names })
}

/// Whether the module has functions that kernels may call.
pub(crate) fn module_has_funcs(m: &ir::Module) -> bool {
    m.functions
        .iter()
        .any(|f| f.kind == ir::FuncKind::Func && f.has_body())
}

fn local_addr(off: u32) -> Address {
    Address {
        base: AddrBase::Var(VarRef::Local(off)),
        offset: 0,
    }
}

impl FnTx<'_> {
    /// `Terminator::Call` (see the module docs).
    pub(crate) fn call(&mut self, t: &Terminator) -> Result<(), JitError> {
        let Terminator::Call {
            guard,
            func,
            args,
            rets,
            next,
            inst,
            ..
        } = t
        else {
            return Err(JitError::Codegen("not a call".into()));
        };
        let (func, next, inst, guard) = (*func, *next, *inst, *guard);
        let nb = self.block(next)?;
        let callee = self
            .m
            .functions
            .get(func.0 as usize)
            .ok_or_else(|| JitError::Codegen("call to a function out of range".into()))?;
        let cid =
            *self.calls.funcs.get(&func).ok_or_else(|| {
                JitError::Codegen(format!("function {} not declared", callee.name))
            })?;
        let frame = self.f.call_frame();
        let mut m = self.exec_mask(guard);
        let bits = self.mbits(&mut m);
        let act_before: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.active[k])).collect();
        let abits_before = self.b.use_var(self.active_bits);
        let docall = self.b.create_block();
        let pushed = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, I32);
        let zero = lanes::iconst32(&mut self.b, 0);
        self.b.ins().brif(bits, docall, &[], join, &[zero.into()]);

        self.b.switch_to_block(docall);
        let name = self.calls.names.get(func.0 as usize).map_or("?", |s| s);
        let (np, nl) = (name.as_ptr() as u64, name.len() as u64);
        let hp = self.helper(Helper::CallPush)?;
        let fr = lanes::iconst32(&mut self.b, frame);
        let sz = lanes::iconst32(&mut self.b, callee.local_size);
        let zf = lanes::iconst32(&mut self.b, callee.rets_start());
        let npv = lanes::iconst64(&mut self.b, np);
        let nlv = lanes::iconst64(&mut self.b, nl);
        let r = self
            .b
            .ins()
            .call(hp, &[self.ctx, bits, fr, sz, zf, npv, nlv]);
        let res = self.b.inst_results(r)[0];
        self.b.ins().brif(res, self.ret_status, &[], pushed, &[]);

        self.b.switch_to_block(pushed);
        let hc = self.helper(Helper::CallCopy)?;
        for a in args {
            match a.src {
                CallSrc::Local(o) => {
                    let c = [o, a.dst, a.size, 1].map(|x| lanes::iconst32(&mut self.b, x));
                    self.b
                        .ins()
                        .call(hc, &[self.ctx, bits, fr, c[0], c[1], c[2], c[3]]);
                }
                CallSrc::Value(op, ty) => {
                    // A store into the callee's frame (the local window has moved).
                    self.inst_at(&Inst {
                        guard,
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
        let r = self.b.ins().call(fref, &[self.ctx, bits]);
        let returned = self.b.inst_results(r)[0];
        let st = self.load_ctx(I32, offset_of!(WarpCtx, status), false);
        let got = self.b.create_block();
        self.b.ins().brif(st, self.ret_status, &[], got, &[]);
        self.b.switch_to_block(got);
        if !rets.is_empty() {
            // Return values: loads for the returned lanes only (merging).
            let rm = lanes::mask_from_bits(&mut self.b, returned);
            for k in 0..N32 {
                self.b.def_var(self.active[k], rm[k]);
            }
            self.b.def_var(self.active_bits, returned);
            let mode = self.mode;
            self.mode = Mode::Div;
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
            self.mode = mode;
            for k in 0..N32 {
                self.b.def_var(self.active[k], act_before[k]);
            }
            self.b.def_var(self.active_bits, abits_before);
        }
        let hpop = self.helper(Helper::CallPop)?;
        self.b.ins().call(hpop, &[self.ctx, fr]);
        self.b.ins().jump(join, &[returned.into()]);

        self.b.switch_to_block(join);
        let returned = self.b.block_params(join)[0];
        let rest = self.b.ins().band_not(abits_before, bits);
        let cont = self.b.ins().bor(rest, returned);
        let cm = lanes::mask_from_bits(&mut self.b, cont);
        match self.mode {
            Mode::Conv => {
                for k in 0..N32 {
                    self.b.def_var(self.active[k], cm[k]);
                }
                self.b.def_var(self.active_bits, cont);
                self.b.ins().brif(cont, nb, &[], self.ret_status, &[]);
            }
            Mode::Div => {
                self.record(&cm, next);
                self.b.ins().jump(self.dispatch, &[]);
            }
        }
        Ok(())
    }
}

/// `ptxjit_call_push(ctx, mask, frame, size, zero_from, name_ptr, name_len) -> status`.
pub(crate) unsafe extern "C" fn ptxjit_call_push(
    ctx: *mut WarpCtx,
    mask: u32,
    frame: u32,
    size: u32,
    zero_from: u32,
    name_ptr: *const u8,
    name_len: u64,
) -> u32 {
    // SAFETY: generated code passes its live warp context and a name owned by the
    // `JitModule` that owns the code.
    let ctx = unsafe { &mut *ctx };
    let name = unsafe { std::slice::from_raw_parts(name_ptr, name_len as usize) };
    let name = std::str::from_utf8(name).unwrap_or("?");
    match unsafe { call_push(ctx, mask, frame, size, zero_from, name) } {
        Ok(()) => STATUS_OK,
        Err(_) => STATUS_FAULT,
    }
}

/// `ptxjit_call_pop(ctx, frame)`.
pub(crate) unsafe extern "C" fn ptxjit_call_pop(ctx: *mut WarpCtx, frame: u32) {
    // SAFETY: as above.
    call_pop(unsafe { &mut *ctx }, frame);
}

/// `ptxjit_call_copy(ctx, mask, frame, caller, callee, size, to_callee)`.
pub(crate) unsafe extern "C" fn ptxjit_call_copy(
    ctx: *mut WarpCtx,
    mask: u32,
    frame: u32,
    caller: u32,
    callee: u32,
    size: u32,
    to_callee: u32,
) {
    // SAFETY: the frame is pushed and the offsets were validated by `check`.
    unsafe { call_copy(&*ctx, mask, frame, caller, callee, size, to_callee != 0) };
}
