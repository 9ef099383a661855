//! Split calls in the JIT (see `exec::split`): lanes suspended at a barrier inside
//! a call wait at the call's resume block behind the barrier flag, and
//! `Terminator::Resume` continues them, loads the return values of those that return
//! and sends them on to the call's `next` block.

use crate::exec::barrier::BAR_WAIT;
use crate::exec::ctx::WarpCtx;
use crate::ir::{BlockId, InstId, Terminator};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I32;
use cranelift_codegen::ir::{InstBuilder, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// Ends the current block: lanes `cont` wait at `next`, lanes `parked` at `resume`
    /// behind the barrier flag; then the dispatcher runs.
    pub(crate) fn park_and_dispatch(
        &mut self,
        cont: Value,
        next: BlockId,
        parked: Value,
        resume: BlockId,
    ) {
        if self.mode == Mode::Conv {
            // No lane was pending: start from an empty set.
            let none = lanes::splat32(&mut self.b, u32::MAX);
            for k in 0..N32 {
                self.b.def_var(self.next[k], none);
            }
        }
        let cm = lanes::mask_from_bits(&mut self.b, cont);
        self.record(&cm, next);
        let pm = lanes::mask_from_bits(&mut self.b, parked);
        self.record(&pm, BlockId(BAR_WAIT | resume.0));
        self.b.ins().jump(self.dispatch, &[]);
    }

    /// `Terminator::Resume` of the call ending block `call` (this block is its resume
    /// block `here`), for the active lanes.
    pub(crate) fn resume(
        &mut self,
        call: BlockId,
        next: BlockId,
        here: BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let rets = match self.f.blocks.get(call).map(|b| &b.term) {
            Some(Terminator::Call { rets, .. }) | Some(Terminator::CallIndirect { rets, .. }) => {
                rets.clone()
            }
            _ => return Err(JitError::Codegen("resume block without its call".into())),
        };
        let bits = self.b.use_var(self.active_bits);
        let fr = lanes::iconst32(&mut self.b, self.f.call_frame());
        let h = self.helper(Helper::CallResume)?;
        let r = self.b.ins().call(h, &[self.ctx, fr, bits]);
        let r = self.b.inst_results(r)[0];
        let returned = self.b.ins().ireduce(I32, r);
        let hi = self.b.ins().ushr_imm_u(r, 32);
        let parked = self.b.ins().ireduce(I32, hi);
        let st = self.load_ctx(I32, offset_of!(WarpCtx, status), false);
        let got = self.b.create_block();
        self.b.ins().brif(st, self.ret_status, &[], got, &[]);
        self.b.switch_to_block(got);
        let mode = self.mode;
        self.mode = Mode::Div;
        self.load_rets(&rets, returned, fr, inst)?;
        self.mode = mode;
        let hpop = self.helper(Helper::CallPop)?;
        self.b.ins().call(hpop, &[self.ctx, fr]);
        self.park_and_dispatch(returned, next, parked, here);
        Ok(())
    }
}
