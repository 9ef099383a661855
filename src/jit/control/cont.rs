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
use crate::ir::{self, Idx, InstId, Operand, PredSrc, RegClass, Terminator};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{Block, InstBuilder, JumpTableData, MemFlagsData, Value};
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

    /// A convergent `{bar.sync|bar.red} barrier{, count}` of a continuation kernel, whose
    /// lanes `bits` (every live lane) arrive: the arrival goes into the warp context
    /// (`WarpCtx::bar_*`, no helper call), the scalar registers and affine bases into
    /// their slots of the register file, `next` into `WarpCtx::resume`, and the warp
    /// returns [`RET_BARRIER`] to the CTA loop (`runtime::launch::cont`). Operands
    /// `exec::barrier::bar_arrive` refuses (an id over 15, a count that is not a positive
    /// multiple of 32) go to that helper, which stops the warp with its error.
    pub(crate) fn cont_sync(
        &mut self,
        bits: Value,
        barrier: &Operand,
        count: Option<&Operand>,
        red: Option<PredSrc>,
        next: ir::BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let nb = self.block(next)?;
        let arrive = self.b.create_block();
        self.b.ins().brif(bits, arrive, &[], nb, &[]);
        self.b.switch_to_block(arrive);
        let id = self.uniform_u32(barrier, bits)?;
        let cnt = match count {
            Some(c) => self.uniform_u32(c, bits)?,
            None => lanes::iconst32(&mut self.b, 0),
        };
        let id_ok = matches!(*barrier, Operand::Imm(x) if x <= 15);
        let count_ok = match count {
            None => true,
            Some(Operand::Imm(c)) => *c != 0 && c.is_multiple_of(32) && *c <= u32::MAX as u64,
            Some(_) => false,
        };
        if !(id_ok && count_ok) {
            let idv = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, id, 15);
            let mut ok = idv;
            if count.is_some() {
                let low = self.b.ins().band_imm_u(cnt, 31);
                let mult = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
                let pos = self.b.ins().icmp_imm_u(IntCC::NotEqual, cnt, 0);
                let c_ok = self.b.ins().band(mult, pos);
                ok = self.b.ins().band(ok, c_ok);
            }
            let fast = self.b.create_block();
            let bad = self.b.create_block();
            self.b.ins().brif(ok, fast, &[], bad, &[]);
            self.b.switch_to_block(bad);
            // The helper refuses exactly these operands: it records the error and
            // returns the warp's nonzero status.
            let c64 = match count {
                Some(_) => self.b.ins().uextend(I64, cnt),
                None => lanes::iconst64(&mut self.b, u64::MAX),
            };
            let instv = lanes::iconst32(&mut self.b, inst.0);
            let h = self.helper(Helper::BarArrive)?;
            self.b.ins().call(h, &[self.ctx, id, c64, bits, instv]);
            self.b.ins().jump(self.ret_status, &[]);
            self.b.switch_to_block(fast);
        }
        self.store_ctx(id, offset_of!(WarpCtx, bar_id));
        self.store_ctx(cnt, offset_of!(WarpCtx, bar_count));
        self.store_ctx(bits, offset_of!(WarpCtx, bar_mask));
        let n = self.b.ins().popcnt(bits);
        self.store_ctx(n, offset_of!(WarpCtx, bar_lanes));
        let instv = lanes::iconst32(&mut self.b, inst.0);
        self.store_ctx(instv, offset_of!(WarpCtx, bar_inst));
        let redv = match red {
            Some(c) => {
                let p = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
                let pb = lanes::bits_from_mask(&mut self.b, &p);
                let yes = self.b.ins().band(pb, bits);
                let yes = self.b.ins().uextend(I64, yes);
                self.b.ins().bor_imm_u(yes, 1i64 << 32)
            }
            None => lanes::iconst64(&mut self.b, 0),
        };
        self.store_ctx(redv, offset_of!(WarpCtx, bar_red));
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
        Ok(())
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
