//! The watchdog check: every loop header (a block entered from a block at or after it
//! in reverse post-order, so every cycle of the CFG has one) reads the launch's stop
//! flag (`WarpCtx::stop`) and, once the time limit has passed, stops the warp through
//! `ptxjit_timed_out`, which names the block's first instruction.

use crate::exec::ctx::WarpCtx;
use crate::ir::{Block, InstId};
use crate::jit::abi::Helper;
use crate::jit::translate::{lanes, FuncTranslator};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    pub(crate) fn stop_check(&mut self, blk: &Block) -> Result<(), JitError> {
        let flag = self.load_ctx(I64, offset_of!(WarpCtx, stop), true);
        self.stop_check_at(blk, flag)
    }

    /// The check, with the stop flag's address `flag` (an i64) already loaded from the
    /// context (the lane-by-lane form keeps it in a variable).
    pub(crate) fn stop_check_at(&mut self, blk: &Block, flag: Value) -> Result<(), JitError> {
        let v = self
            .b
            .ins()
            .load(I32, MemFlagsData::new().with_notrap(), flag, 0);
        let stop = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(v, stop, &[], go, &[]);
        self.b.switch_to_block(stop);
        let at = blk
            .insts
            .first()
            .map(|i| i.id)
            .or_else(|| blk.term.inst())
            .unwrap_or(InstId(u32::MAX));
        let instv = lanes::iconst32(&mut self.b, at.0);
        let h = self.helper(Helper::TimedOut)?;
        self.b.ins().call(h, &[self.ctx, instv]);
        self.b.ins().jump(self.ret_status, &[]);
        self.b.switch_to_block(go);
        Ok(())
    }
}
