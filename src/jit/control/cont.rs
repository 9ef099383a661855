//! Barriers as continuations (issue 14, item 5). In a kernel whose every `bar.sync` is
//! reached by the whole warp (unguarded, in a block that never runs while lanes wait
//! elsewhere: `cfg::divergent_blocks` with the shape analysis's uniform branches), and
//! which makes no call and nothing else that suspends a warp (`bar.arrive`, mbarrier
//! waits, cluster barriers), a barrier does not switch stacks: the warp records its
//! arrival, saves its scalar registers (and affine registers' bases) that are live after
//! the barrier (`ir::analysis::liveness`) into their slots of the register file, stores
//! the barrier's next block in `WarpCtx::resume` and returns [`RET_BARRIER`] to the CTA
//! loop (`runtime::launch`), which runs the other warps. The register file of such a
//! kernel lives in per-warp memory the launch provides (`WarpCtx::cont_regs`), not in
//! the stack frame, so the vector registers are already where the next run finds them.
//! Calling the kernel again with `resume` set restores the scalar registers live at the
//! resume block, sets the active lanes to the live ones (a convergent block runs with
//! every live lane) and jumps to the resume block.
//!
//! A warp that has resumed before saves at a barrier only the live registers some path
//! may have written since its last resume ([`Writes`]): the slots of the others still
//! hold the values that resume restored. A variable (`translate::cont::ContLive::resumed`: 0 on the
//! paths from the kernel's start, 1 on those from a resume) picks, at run time, whether
//! the other live registers are saved too (the first barrier a warp reaches).
//!
//! A call may run several warps of a CTA ([`FuncTranslator::chain_hop`], the in-order
//! fast path of `runtime::launch::cont`): a warp whose arrival leaves the barrier
//! incomplete stores what it would store before returning and jumps, with the next
//! warp's context, to the chain's head block (`translate::cont::ContLive`), which
//! starts or resumes that warp as a call would; the CTA loop records the chained
//! arrivals after the call.
//!
//! The warp context and the register file's address are loaded again at the top of
//! every block the translator starts ([`FuncTranslator::cont_refresh`]) instead of
//! being the head's values, live (and spilled) across the whole kernel.
//!
//! Every other kernel with barriers keeps the coroutine scheme (`exec::barrier`), as
//! does the interpreter; both schemes record the same arrivals in the same order, so the
//! barriers complete, and the warps run, exactly as before.

use crate::exec::barrier::RET_BARRIER;
use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::liveness::RegSet;
use crate::ir::{self, BlockId, Idx, InstId, Operand, PredSrc, RegClass, RegId, Terminator};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{Block, InstBuilder, JumpTableData, MemFlagsData, Value};
use cranelift_frontend::Variable;
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// In the entry block of a continuation kernel: a warp called with `ctx.resume` set
    /// goes to the resume block (filled by [`Self::build_resume`]), others on to `start`.
    pub(crate) fn cont_entry(&mut self, start: Block, resume: Block) {
        let r = self.load_ctx(I32, offset_of!(WarpCtx, resume), false);
        if let Some(cl) = &mut self.cont_live {
            let zero = self.b.ins().iconst(I8, 0);
            self.b.def_var(cl.resumed, zero);
            cl.resume_at = Some(r);
        }
        self.b.ins().brif(r, resume, &[], start, &[]);
    }

    /// Where the translator starts a Cranelift block (an IR block's variants, join
    /// copies, the dispatcher, the stubs, the start, resume and restore blocks, the
    /// register initialisation, the return): in a continuation kernel, `ctx` and the
    /// register file's base are loaded again there (`ContLive::ctx_slot`), so that no
    /// value of the chain's head stays live across the whole kernel.
    pub(crate) fn cont_refresh(&mut self) {
        if let Some(cl) = &self.cont_live {
            let ctx = self.b.ins().stack_load(I64, I64, cl.ctx_slot, 0);
            self.ctx = ctx;
            let fl = MemFlagsData::new().with_notrap().with_readonly();
            let off = offset_of!(WarpCtx, cont_regs) as i32;
            let base = self.b.ins().load(I64, fl, ctx, off);
            self.rf.set_base(base);
        }
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
        // `bits` are the warp's live lanes (a convergent block), never none while the
        // warp runs; a warp without any returns as at its start. No edge goes from
        // here to `next`: only the restore block enters it from the barrier, so no SSA
        // value of the code before the barrier is live after it (such an edge made
        // every value the code after the barrier reads a block parameter merged with
        // the restored one, and the register allocator spilled them across the step).
        let arrive = self.b.create_block();
        self.b.ins().brif(bits, arrive, &[], self.ret_status, &[]);
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
        let n = self.b.ins().popcnt(bits);
        let redv = match red {
            Some(c) => {
                let p = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
                let pb = lanes::bits_from_mask(&mut self.b, &p);
                let yes = self.b.ins().band(pb, bits);
                let yes = self.b.ins().uextend(I64, yes);
                Some(self.b.ins().bor_imm_u(yes, 1i64 << 32))
            }
            None => None,
        };
        self.save_live(next)?;
        let r = lanes::iconst32(&mut self.b, next.0 + 1);
        self.store_ctx(r, offset_of!(WarpCtx, resume));
        if count.is_none() && red.is_none() {
            self.chain_hop(id, bits, n);
        }
        // The arrival, for the CTA loop (a chained warp's is counted by the chain).
        self.store_ctx(id, offset_of!(WarpCtx, bar_id));
        self.store_ctx(cnt, offset_of!(WarpCtx, bar_count));
        self.store_ctx(bits, offset_of!(WarpCtx, bar_mask));
        self.store_ctx(n, offset_of!(WarpCtx, bar_lanes));
        let instv = lanes::iconst32(&mut self.b, inst.0);
        self.store_ctx(instv, offset_of!(WarpCtx, bar_inst));
        let redv = match redv {
            Some(v) => v,
            None => lanes::iconst64(&mut self.b, 0),
        };
        self.store_ctx(redv, offset_of!(WarpCtx, bar_red));
        let ret = lanes::iconst32(&mut self.b, RET_BARRIER);
        self.b.ins().return_(&[ret]);
        Ok(())
    }

    /// An i32 field (`WarpCtx::chain_*`) of the chain's first warp `ctx0`.
    fn chain_field(&mut self, ctx0: Value, off: usize) -> Value {
        let fl = MemFlagsData::new().with_notrap();
        self.b.ins().load(I32, fl, ctx0, off as i32)
    }

    /// Sets an i32 field (`WarpCtx::chain_*`) of the chain's first warp `ctx0`.
    fn set_chain_field(&mut self, ctx0: Value, v: Value, off: usize) {
        let fl = MemFlagsData::new().with_notrap();
        self.b.ins().store(fl, v, ctx0, off as i32);
    }

    /// After a warp's arrival (lanes `bits`, `n` of them) at barrier `id` without a
    /// thread count: when the chain may go on (`WarpCtx::chain_*`: a warp left to chain,
    /// the chain's barrier, no lane exited since the warp's step began, and the barrier
    /// still waiting for more than `n` threads), counts the arrival and starts the
    /// chain's next warp; otherwise falls through to the warp's return.
    fn chain_hop(&mut self, id: Value, bits: Value, n: Value) {
        let Some(cl) = &self.cont_live else {
            return;
        };
        let (left_v, need_v, ran_v, live_v) = (cl.left, cl.need, cl.ran, cl.step_live);
        let (ctx0, head) = (cl.ctx0, cl.head);
        let left0 = self.b.use_var(left_v);
        let need0 = self.b.use_var(need_v);
        let live0 = self.b.use_var(live_v);
        let (left, need) = (left0, need0);
        let cid = self.chain_field(ctx0, offset_of!(WarpCtx, chain_id));
        let has = self.b.ins().icmp_imm_u(IntCC::NotEqual, left, 0);
        let same = self.b.ins().icmp(IntCC::Equal, id, cid);
        let whole = self.b.ins().icmp(IntCC::Equal, bits, live0);
        let short = self.b.ins().icmp(IntCC::UnsignedLessThan, n, need);
        let a = self.b.ins().band(has, same);
        let c = self.b.ins().band(whole, short);
        let go = self.b.ins().band(a, c);
        let hop = self.b.create_block();
        let stay = self.b.create_block();
        self.b.ins().brif(go, hop, &[], stay, &[]);
        self.b.switch_to_block(hop);
        let need = self.b.ins().isub(need, n);
        let left = self.b.ins().iadd_imm_s(left, -1);
        let ran = self.b.use_var(ran_v);
        let ran = self.b.ins().iadd_imm_s(ran, 1);
        self.b.def_var(need_v, need);
        self.b.def_var(left_v, left);
        self.b.def_var(ran_v, ran);
        self.set_chain_field(ctx0, need, offset_of!(WarpCtx, chain_need));
        self.set_chain_field(ctx0, ran, offset_of!(WarpCtx, chain_ran));
        let nxt = self.load_ctx(I64, offset_of!(WarpCtx, chain_next), false);
        self.b.ins().jump(head, &[nxt.into()]);
        self.b.switch_to_block(stay);
        let same_whole = self.b.ins().band(same, whole);
        self.chain_wrap(left0, need0, n, same_whole);
    }

    /// The last warp of a chain that may wrap (`WarpCtx::chain_wrap`: the whole CTA,
    /// from its first warp) completes the barrier (the warp's `n` arrivals meet the
    /// `need0` left, `same_whole`: the chain's barrier, every lane): the next round
    /// starts at the first warp in this call, as the CTA loop would start it next;
    /// otherwise falls through. `left0`, `need0`: the chain's counts at the arrival.
    fn chain_wrap(&mut self, left0: Value, need0: Value, n: Value, same_whole: Value) {
        let Some(cl) = &self.cont_live else {
            return;
        };
        let (left_v, need_v, ran_v) = (cl.left, cl.need, cl.ran);
        let (ctx0, head) = (cl.ctx0, cl.head);
        let k = self.chain_field(ctx0, offset_of!(WarpCtx, chain_wrap));
        let last = self.b.ins().icmp_imm_u(IntCC::Equal, left0, 0);
        let may = self.b.ins().icmp_imm_u(IntCC::NotEqual, k, 0);
        let full = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, n, need0);
        let a = self.b.ins().band(last, may);
        let a = self.b.ins().band(a, same_whole);
        let go = self.b.ins().band(a, full);
        let wrap = self.b.create_block();
        let stay = self.b.create_block();
        self.b.ins().brif(go, wrap, &[], stay, &[]);
        self.b.switch_to_block(wrap);
        let need = self.chain_field(ctx0, offset_of!(WarpCtx, chain_need0));
        let wraps = self.chain_field(ctx0, offset_of!(WarpCtx, chain_wraps));
        let wraps = self.b.ins().iadd_imm_s(wraps, 1);
        let zero = lanes::iconst32(&mut self.b, 0);
        self.b.def_var(need_v, need);
        self.b.def_var(left_v, k);
        self.b.def_var(ran_v, zero);
        self.set_chain_field(ctx0, need, offset_of!(WarpCtx, chain_need));
        self.set_chain_field(ctx0, zero, offset_of!(WarpCtx, chain_ran));
        self.set_chain_field(ctx0, wraps, offset_of!(WarpCtx, chain_wraps));
        self.b.ins().jump(head, &[ctx0.into()]);
        self.b.switch_to_block(stay);
    }

    /// The kept registers (scalar registers and affine bases) of `set`.
    fn kept_of(&self, set: Option<&RegSet>) -> Vec<(RegId, Variable)> {
        match set {
            Some(s) => s
                .iter()
                .filter_map(|k| self.kept_var(k).map(|v| (k, v)))
                .collect(),
            // No liveness (never for a continuation kernel): every kept register.
            None => (self.f.regs.ids())
                .filter_map(|k| self.kept_var(k).map(|v| (k, v)))
                .collect(),
        }
    }

    fn store_kept(&mut self, regs: &[(RegId, Variable)]) {
        let fl = MemFlagsData::new().with_notrap().with_aligned();
        for &(k, v) in regs {
            let x = self.b.use_var(v);
            let off = self.rf.offset(k);
            let base = self.rf.base();
            self.b.ins().store(fl, x, base, off);
        }
    }

    /// At the barrier ending the block being translated (whose threads go on at
    /// `next`): saves the kept registers live at `next`; those no path may have written
    /// since the warp's last resume only when the warp has not resumed yet.
    fn save_live(&mut self, next: ir::BlockId) -> Result<(), JitError> {
        let cur = BlockId(self.cur_block as u32);
        let (live, written, resumed) = match &self.cont_live {
            Some(cl) => (
                cl.live.live_in.get(next).cloned(),
                cl.writes.at_exit.get(cur).cloned(),
                Some(cl.resumed),
            ),
            None => (None, None, None),
        };
        let live = self.kept_of(live.as_ref());
        let (dirty, clean): (Vec<_>, Vec<_>) = live
            .into_iter()
            .partition(|(k, _)| written.as_ref().is_none_or(|w| w.contains(*k)));
        self.store_kept(&dirty);
        if let (false, Some(rv)) = (clean.is_empty(), resumed) {
            let first = self.b.create_block();
            let done = self.b.create_block();
            let r = self.b.use_var(rv);
            self.b.ins().brif(r, done, &[], first, &[]);
            self.b.switch_to_block(first);
            self.store_kept(&clean);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
        }
        Ok(())
    }

    /// A block that restores the kept registers live at `next` and jumps there.
    fn restore_block(&mut self, next: ir::BlockId) -> Result<Block, JitError> {
        let live = self
            .cont_live
            .as_ref()
            .and_then(|cl| cl.live.live_in.get(next).cloned());
        let regs = self.kept_of(live.as_ref());
        let tb = self.block(next)?;
        let rb = self.b.create_block();
        self.b.switch_to_block(rb);
        self.cont_refresh();
        let fl = MemFlagsData::new().with_notrap().with_aligned();
        for (k, v) in regs {
            let ty = match self.f.regs[k].ty.class() {
                RegClass::R64 => I64,
                _ => I32,
            };
            let off = self.rf.offset(k);
            let base = self.rf.base();
            let x = self.b.ins().load(ty, fl, base, off);
            self.b.def_var(v, x);
        }
        self.b.ins().jump(tb, &[]);
        Ok(rb)
    }

    /// The resume block: clears `ctx.resume`, makes every live lane active with nothing
    /// pending and jumps, through the block that restores the scalar registers and
    /// affine bases live there, to the block after the barrier (`ctx.resume - 1`).
    pub(crate) fn build_resume(&mut self, resume: Block) -> Result<(), JitError> {
        // Only the blocks after barriers are resume points; each restores the kept
        // registers live there. A Cranelift jump table indexed by block number, so a
        // raw vector.
        let n = self.f.blocks.len();
        // (One block call per entry: a shared one would share its argument list.)
        let mut table: Vec<_> = (0..n)
            .map(|_| self.b.func.dfg.block_call(self.ret_status, &[]))
            .collect();
        let mut targets = Vec::new();
        for blk in &self.f.blocks {
            if let Terminator::Barrier { next, .. } = blk.term {
                if next.index() < n && !targets.contains(&next) {
                    targets.push(next);
                }
            }
        }
        let mut restores = Vec::with_capacity(targets.len());
        for &next in &targets {
            let rb = self.restore_block(next)?;
            table[next.index()] = self.b.func.dfg.block_call(rb, &[]);
            restores.push(rb);
        }
        self.b.switch_to_block(resume);
        self.cont_refresh();
        // One resume point: no need to read which.
        let r = match (
            restores.len(),
            self.cont_live.as_ref().and_then(|c| c.resume_at),
        ) {
            (1, _) => None,
            // (Read in the chain's head, which this block's only predecessor ends.)
            (_, Some(r)) => Some(r),
            _ => Some(self.load_ctx(I32, offset_of!(WarpCtx, resume), false)),
        };
        let zero = lanes::iconst32(&mut self.b, 0);
        self.store_ctx(zero, offset_of!(WarpCtx, resume));
        if let Some(cl) = &self.cont_live {
            let one = self.b.ins().iconst(I8, 1);
            self.b.def_var(cl.resumed, one);
        }
        let live = self.load_ctx(I32, offset_of!(WarpCtx, live), false);
        if let Some(cl) = &self.cont_live {
            self.b.def_var(cl.step_live, live);
        }
        let act = lanes::mask_from_bits(&mut self.b, live);
        for k in 0..N32 {
            self.b.def_var(self.active[k], act[k]);
        }
        self.b.def_var(self.active_bits, live);
        let none = lanes::splat32(&mut self.b, u32::MAX);
        for k in 0..N32 {
            self.b.def_var(self.next[k], none);
        }
        let none_live = self.b.ins().icmp_imm_u(IntCC::Equal, live, 0);
        let go = self.b.create_block();
        self.b.ins().brif(none_live, self.ret_status, &[], go, &[]);
        self.b.switch_to_block(go);
        match (r, restores.as_slice()) {
            (None, [rb]) => {
                self.b.ins().jump(*rb, &[]);
            }
            (Some(r), _) => {
                let idx = self.b.ins().iadd_imm_s(r, -1);
                let def = self.b.func.dfg.block_call(self.ret_status, &[]);
                let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
                self.b.ins().br_table(idx, jt);
            }
            (None, _) => {
                self.b.ins().jump(self.ret_status, &[]);
            }
        }
        Ok(())
    }
}
