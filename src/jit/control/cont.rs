//! Barriers as continuations (issue 14, item 5). In a kernel whose every `bar.sync` is
//! reached by the whole warp (unguarded, in a block that never runs while lanes wait
//! elsewhere: `cfg::divergent_blocks` with the shape analysis's uniform branches), and
//! which makes no call and nothing else that suspends a warp (`bar.arrive`, mbarrier
//! waits, cluster barriers), a barrier does not switch stacks: the warp records its
//! arrival, saves its scalar registers (and affine registers' bases) into their slots of the register file, stores
//! the barrier's next block in `WarpCtx::resume` and returns [`RET_BARRIER`] to the CTA
//! loop (`runtime::launch`), which runs the other warps. The register file of such a
//! kernel lives in per-warp memory the launch provides (`WarpCtx::cont_regs`), not in
//! the stack frame, so the vector registers are already where the next run finds them.
//! Calling the kernel again with `resume` set restores the scalar registers, sets the
//! active lanes to the live ones (a convergent block runs with every live lane) and
//! jumps to the resume block.
//!
//! Every other kernel with barriers keeps the coroutine scheme (`exec::barrier`), as
//! does the interpreter; both schemes record the same arrivals in the same order, so the
//! barriers complete, and the warps run, exactly as before.

use crate::exec::barrier::RET_BARRIER;
use crate::exec::ctx::WarpCtx;
use crate::ir::{self, Idx, RegClass, Terminator};
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{Block, InstBuilder, JumpTableData, MemFlagsData};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// In the entry block of a continuation kernel: a warp called with `ctx.resume` set
    /// goes to the resume block (filled by [`Self::build_resume`]), others on to `start`.
    pub(crate) fn cont_entry(&mut self, start: Block, resume: Block) {
        let r = self.load_ctx(I32, offset_of!(WarpCtx, resume), false);
        self.b.ins().brif(r, resume, &[], start, &[]);
    }

    /// The Cranelift variable that holds register `k` when it is not in the register
    /// file: a scalar register's value or an affine register's base (lane 0's value,
    /// of the register's width).
    fn kept_var(&self, k: ir::RegId) -> Option<cranelift_frontend::Variable> {
        self.sregs.vars.get(k).copied().flatten().or_else(|| {
            self.affine
                .vars
                .get(k)
                .copied()
                .flatten()
                .map(|(v, _stride)| v)
        })
    }

    /// A convergent `bar.sync` of a continuation kernel after the arrival: saves the
    /// scalar registers and affine bases, records `next` as the resume point and returns to the CTA loop.
    pub(crate) fn cont_barrier(&mut self, next: ir::BlockId) {
        let fl = MemFlagsData::new().with_notrap().with_aligned();
        for k in self.f.regs.ids() {
            if let Some(v) = self.kept_var(k) {
                let x = self.b.use_var(v);
                let off = self.rf.offset(k);
                let base = self.rf.base();
                self.b.ins().store(fl, x, base, off);
            }
        }
        let r = lanes::iconst32(&mut self.b, next.0 + 1);
        self.store_ctx(r, offset_of!(WarpCtx, resume));
        let ret = lanes::iconst32(&mut self.b, RET_BARRIER);
        self.b.ins().return_(&[ret]);
    }

    /// The resume block: clears `ctx.resume`, restores the scalar registers and affine
    /// bases, makes every
    /// live lane active with nothing pending and jumps to the block after the barrier.
    pub(crate) fn build_resume(&mut self, resume: Block) -> Result<(), JitError> {
        self.b.switch_to_block(resume);
        let r = self.load_ctx(I32, offset_of!(WarpCtx, resume), false);
        let zero = lanes::iconst32(&mut self.b, 0);
        self.store_ctx(zero, offset_of!(WarpCtx, resume));
        let fl = MemFlagsData::new().with_notrap().with_aligned();
        for k in self.f.regs.ids() {
            if let Some(v) = self.kept_var(k) {
                let ty = match self.f.regs[k].ty.class() {
                    RegClass::R64 => I64,
                    _ => I32,
                };
                let off = self.rf.offset(k);
                let base = self.rf.base();
                let x = self.b.ins().load(ty, fl, base, off);
                self.b.def_var(v, x);
            }
        }
        let live = self.load_ctx(I32, offset_of!(WarpCtx, live), false);
        let act = lanes::mask_from_bits(&mut self.b, live);
        for k in 0..N32 {
            self.b.def_var(self.active[k], act[k]);
        }
        self.b.def_var(self.active_bits, live);
        let none = lanes::splat32(&mut self.b, u32::MAX);
        for k in 0..N32 {
            self.b.def_var(self.next[k], none);
        }
        // Only the blocks after barriers are resume points. A Cranelift jump table
        // indexed by block number (`ctx.resume - 1`), so a raw vector.
        let n = self.f.blocks.len();
        let mut table = vec![self.b.func.dfg.block_call(self.ret_status, &[]); n];
        for blk in &self.f.blocks {
            if let Terminator::Barrier { next, .. } = blk.term {
                let i = next.index();
                let tb = self.block(next)?;
                if let Some(e) = table.get_mut(i) {
                    *e = self.b.func.dfg.block_call(tb, &[]);
                }
            }
        }
        let idx = self.b.ins().iadd_imm_s(r, -1);
        let none_live = self.b.ins().icmp_imm_u(IntCC::Equal, live, 0);
        let go = self.b.create_block();
        self.b.ins().brif(none_live, self.ret_status, &[], go, &[]);
        self.b.switch_to_block(go);
        let def = self.b.func.dfg.block_call(self.ret_status, &[]);
        let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
        self.b.ins().br_table(idx, jt);
        Ok(())
    }
}
