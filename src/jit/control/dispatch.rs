//! Control flow: branches, divergence bookkeeping, the dispatcher, `exit`/`ret` and
//! barriers.
//!
//! Divergence (DESIGN.md): blocks are numbered in reverse post-order. Lanes that wait to
//! run a block record its number in `next` (8 × i32x4, `u32::MAX` = not waiting). In the
//! convergent variant of a block (no lane pending) a branch that is uniform over the
//! active lanes is a plain jump; otherwise, and always in the divergent variant, each
//! active lane records its successor and the dispatcher runs the lowest-numbered pending
//! block with the lanes waiting there (which reconverges at the earliest point of any
//! CFG), in its convergent variant when no other lane is left pending. `exit` removes
//! lanes from `ctx.live` for good; with no active lane left the dispatcher runs, and with
//! nothing pending either the kernel returns `ctx.status`. Lanes that arrived at a
//! barrier wait with `BAR_WAIT` set in their entry, which sorts them after every runnable
//! lane; when only they are left the warp waits for its barriers (`ptxjit_bar_wait`).
//! `brx.idx` (per-lane targets through the same dispatcher) lives in `brx.rs`.

use crate::exec::barrier::BAR_WAIT;
use crate::exec::ctx::WarpCtx;
use crate::ir::{BlockId, Guard, InstId, Operand, PredSrc, Terminator, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, JumpTableData, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// Ends the current block according to an IR terminator.
    pub(crate) fn terminator(&mut self, t: &Terminator) -> Result<(), JitError> {
        self.check_uni(t)?;
        match *t {
            Terminator::Jump { target, inst } => {
                self.cur = inst;
                let tb = self.block(target)?;
                match self.mode {
                    Mode::Conv => {
                        self.b.ins().jump(tb, &[]);
                    }
                    Mode::Div => {
                        let act = self.active_vals();
                        self.record(&act, target);
                        self.b.ins().jump(self.dispatch, &[]);
                    }
                }
                Ok(())
            }
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                inst,
                ..
            } => {
                self.cur = Some(inst);
                self.branch(guard, taken, not_taken)
            }
            Terminator::Ret { guard, next, inst } => {
                self.cur = Some(inst);
                self.exit(guard, next, true)
            }
            Terminator::Exit { guard, next, inst } => {
                self.cur = Some(inst);
                self.exit(guard, next, false)
            }
            Terminator::Call { inst, .. } | Terminator::CallIndirect { inst, .. } => {
                self.cur = Some(inst);
                self.call(t)
            }
            Terminator::Resume { call, next, inst } => {
                self.cur = Some(inst);
                let here = BlockId(self.cur_block as u32);
                self.resume(call, next, here, inst)
            }
            Terminator::Barrier {
                guard,
                barrier,
                count,
                red,
                next,
                inst,
            } => {
                self.cur = Some(inst);
                self.barrier(guard, &barrier, count.as_ref(), red, next, inst)
            }
            Terminator::BrxIdx {
                guard,
                ref index,
                ref targets,
                next,
                inst,
                ..
            } => {
                self.cur = Some(inst);
                self.brx_idx(guard, index, targets, next, inst)
            }
        }
    }

    /// The active lanes as 8 × i32x4 masks, rebuilt from `active_bits` (vector values
    /// kept across blocks and calls are costly to allocate registers for).
    pub(crate) fn active_vals(&mut self) -> Vec<Value> {
        self.active_mask()
    }

    /// Lanes in `m` wait for block `target`.
    pub(crate) fn record(&mut self, m: &[Value], target: BlockId) {
        let t = lanes::splat32(&mut self.b, target.0);
        for (k, &mk) in m.iter().enumerate() {
            let old = self.b.use_var(self.next[k]);
            let new = self.b.ins().bitselect(mk, t, old);
            self.b.def_var(self.next[k], new);
        }
    }

    /// `@p bra taken` falling through to `not_taken`.
    fn branch(&mut self, guard: Guard, taken: BlockId, not_taken: BlockId) -> Result<(), JitError> {
        let tb = self.block(taken)?;
        let nb = self.block(not_taken)?;
        if let (Mode::Conv, Some(v)) = (self.mode, self.svar(guard.pred)) {
            // A scalar predicate is the same in every live lane, and all are active.
            let p = self.b.use_var(v);
            let (t, n) = if guard.negate { (nb, tb) } else { (tb, nb) };
            self.b.ins().brif(p, t, &[], n, &[]);
            return Ok(());
        }
        // Lane bits a `setp` of this block computed from scalars (`pred_bits`): the
        // vector form only where lanes diverge.
        let memo = self.pred_bits_of(guard.pred);
        let mut pv = None;
        if self.mode == Mode::Conv {
            // Uniform over the active lanes: a plain jump.
            let pb = match memo {
                Some(pb) => pb,
                None => {
                    let p = self.pred_vals(guard.pred, false);
                    let pb = lanes::bits_from_mask(&mut self.b, &p);
                    pv = Some(p);
                    pb
                }
            };
            let ab = self.b.use_var(self.active_bits);
            let tbits = if guard.negate {
                self.b.ins().band_not(ab, pb)
            } else {
                self.b.ins().band(ab, pb)
            };
            let all = self.b.ins().icmp(IntCC::Equal, tbits, ab);
            let check2 = self.b.create_block();
            let slow = self.b.create_block();
            self.b.ins().brif(all, tb, &[], check2, &[]);
            self.b.switch_to_block(check2);
            self.b.ins().brif(tbits, slow, &[], nb, &[]);
            self.b.switch_to_block(slow);
            if let Some((body, join)) = self.if_then_body(taken, not_taken) {
                // An if-then: its body under the mask, no dispatcher (`control::join`).
                let bb = match body == taken {
                    true => tbits,
                    false => self.b.ins().band_not(ab, tbits),
                };
                self.join_enter(body, join, bb, ab);
                return Ok(());
            }
            // No lane waits anywhere yet.
            let none = lanes::splat32(&mut self.b, u32::MAX);
            for k in 0..N32 {
                self.b.def_var(self.next[k], none);
            }
        }
        let p = match (pv, memo) {
            (Some(p), _) => p,
            (None, Some(pb)) => self.mask_of_bits(pb),
            (None, None) => self.pred_vals(guard.pred, false),
        };
        let act = self.active_vals();
        let (t, n) = if guard.negate {
            (
                lanes::andnot_masks(&mut self.b, &act, &p),
                lanes::and_masks(&mut self.b, &act, &p),
            )
        } else {
            (
                lanes::and_masks(&mut self.b, &act, &p),
                lanes::andnot_masks(&mut self.b, &act, &p),
            )
        };
        // Each active lane records its successor; the dispatcher picks the lowest block.
        self.record(&t, taken);
        self.record(&n, not_taken);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// `exit` / `ret` in a kernel, optionally guarded. With a guard and a `next` block the
    /// other active lanes continue there; without `next` they stop running (as in the
    /// interpreter).
    /// In a `.func`, `ret` (`is_ret`) adds the lanes to the returned lanes instead.
    fn exit(
        &mut self,
        guard: Option<Guard>,
        next: Option<BlockId>,
        is_ret: bool,
    ) -> Result<(), JitError> {
        let mut em = self.exec_mask(guard);
        let ebits = self.mbits(&mut em);
        match self.ret_bits {
            Some(rb) if is_ret => {
                let old = self.b.use_var(rb);
                let new = self.b.ins().bor(old, ebits);
                self.b.def_var(rb, new);
            }
            _ => self.remove_live(ebits),
        }
        match (guard, next) {
            (Some(_), Some(next)) => {
                let nb = self.block(next)?;
                let act = self.active_vals();
                let em32 = self.m32(&em);
                let rest: Vec<Value> = (0..N32)
                    .map(|k| self.b.ins().band_not(act[k], em32[k]))
                    .collect();
                match self.mode {
                    Mode::Conv => {
                        for k in 0..N32 {
                            self.b.def_var(self.active[k], rest[k]);
                        }
                        let ab = self.b.use_var(self.active_bits);
                        let ab = self.b.ins().band_not(ab, ebits);
                        self.b.def_var(self.active_bits, ab);
                        self.b.ins().brif(ab, nb, &[], self.ret_status, &[]);
                    }
                    Mode::Div => {
                        self.record(&rest, next);
                        self.b.ins().jump(self.dispatch, &[]);
                    }
                }
                Ok(())
            }
            _ => {
                let to = match self.mode {
                    Mode::Conv => self.ret_status,
                    Mode::Div => self.dispatch,
                };
                self.b.ins().jump(to, &[]);
                Ok(())
            }
        }
    }

    /// `ctx.live &= !bits`.
    fn remove_live(&mut self, bits: Value) {
        let live = self.load_ctx(I32, offset_of!(WarpCtx, live), false);
        let nl = self.b.ins().band_not(live, bits);
        self.store_ctx(nl, offset_of!(WarpCtx, live));
    }

    /// The lowest block number pending in any lane (an i32; `u32::MAX` when no lane is
    /// pending): the minimum over the warp's `next` vectors.
    pub(crate) fn lowest_pending_block(&mut self) -> Value {
        let n: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.next[k])).collect();
        let mut mn = n[0];
        for &v in &n[1..] {
            mn = self.b.ins().umin(mn, v);
        }
        let l: Vec<Value> = (0..4)
            .map(|i| self.b.ins().extractlane(mn, i as u8))
            .collect();
        let a = self.b.ins().umin(l[0], l[1]);
        let c = self.b.ins().umin(l[2], l[3]);
        self.b.ins().umin(a, c)
    }

    /// The dispatcher: runs the lowest-numbered pending block with the lanes waiting there
    /// (its convergent variant if no other lane is pending, its divergent one otherwise),
    /// or returns `ctx.status` when no lane is pending.
    pub(crate) fn build_dispatch(&mut self) -> Result<(), JitError> {
        self.b.switch_to_block(self.dispatch);
        self.cont_refresh();
        let mn = self.lowest_pending_block();
        // The same values `lowest_pending_block` read (`use_var` in one block).
        let n: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.next[k])).collect();
        let done = self.b.ins().icmp_imm_u(IntCC::Equal, mn, u32::MAX as i64);
        let go = self.b.create_block();
        self.b.ins().brif(done, self.ret_status, &[], go, &[]);
        // Lanes waiting at a barrier sort after every runnable lane; when only they are
        // left, wait for the barriers, clear the flags and dispatch again.
        let wait = self.b.create_block();
        let run = self.b.create_block();
        self.b.switch_to_block(go);
        let waiting = self.b.ins().band_imm_u(mn, BAR_WAIT as i64);
        self.b.ins().brif(waiting, wait, &[], run, &[]);
        self.b.switch_to_block(wait);
        let h = self.helper(Helper::BarWait)?;
        let r = self.b.ins().call(h, &[self.ctx]);
        let res = self.b.inst_results(r)[0];
        let clear = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], clear, &[]);
        self.b.switch_to_block(clear);
        let none = lanes::splat32(&mut self.b, u32::MAX);
        let keep = lanes::splat32(&mut self.b, !BAR_WAIT);
        for k in 0..N32 {
            let nk = self.b.use_var(self.next[k]);
            let is_none = self.b.ins().icmp(IntCC::Equal, nk, none);
            let cleared = self.b.ins().band(nk, keep);
            let v = self.b.ins().bitselect(is_none, nk, cleared);
            self.b.def_var(self.next[k], v);
        }
        self.b.ins().jump(self.dispatch, &[]);
        self.b.switch_to_block(run);
        let s = self.b.ins().splat(I32X4, mn);
        let mut act = Vec::with_capacity(N32);
        let mut nn = Vec::with_capacity(N32);
        for k in 0..N32 {
            let a = self.b.ins().icmp(IntCC::Equal, n[k], s);
            let nk = self.b.ins().bor(n[k], a);
            self.b.def_var(self.active[k], a);
            self.b.def_var(self.next[k], nk);
            act.push(a);
            nn.push(nk);
        }
        let bits = lanes::bits_from_mask(&mut self.b, &act);
        self.b.def_var(self.active_bits, bits);
        let all = lanes::and_reduce(&mut self.b, &nn);
        let ones = lanes::splat32(&mut self.b, u32::MAX);
        let eq = self.b.ins().icmp(IntCC::Equal, all, ones);
        let none_left = self.b.ins().vall_true(eq);
        // Table index: the block number, plus the block count when lanes remain pending.
        let nblocks = self.blocks_c.len() as i64;
        let none_left = self.b.ins().uextend(I32, none_left);
        let pend = self.b.ins().bxor_imm_u(none_left, 1);
        let off = self.b.ins().imul_imm_u(pend, nblocks);
        let idx = self.b.ins().iadd(mn, off);
        let def = self.b.func.dfg.block_call(self.ret_status, &[]);
        let mut table = Vec::with_capacity(2 * self.blocks_c.len());
        for i in 0..self.blocks_c.len() {
            let blk = self.blocks_c[i];
            table.push(self.b.func.dfg.block_call(blk, &[]));
        }
        for i in 0..self.blocks_d.len() {
            let blk = self.blocks_d[i].unwrap_or(self.ret_status);
            table.push(self.b.func.dfg.block_call(blk, &[]));
        }
        let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
        self.b.ins().br_table(idx, jt);
        Ok(())
    }

    /// `{@p} bar.sync barrier{, count}` ending a block: the guarded active lanes arrive
    /// (`ptxjit_bar_arrive`, non-blocking) and wait at `next` with [`BAR_WAIT`] set, so
    /// the dispatcher runs every other pending lane first and calls `ptxjit_bar_wait`
    /// when only waiting lanes are left; the other active lanes go to `next` at once.
    /// In convergent mode with every active lane arriving, nothing else can run: the warp
    /// waits right here and continues at `next` with the same lanes.
    fn barrier(
        &mut self,
        guard: Option<Guard>,
        barrier: &Operand,
        count: Option<&Operand>,
        red: Option<PredSrc>,
        next: BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let nb = self.block(next)?;
        let mut m = self.exec_mask(guard);
        let bits = self.mbits(&mut m);
        if self.cont.is_some() && self.mode == Mode::Conv {
            // Every live lane arrives (`control::cont`): back to the CTA loop.
            return self.cont_sync(bits, barrier, count, red, next, inst);
        }
        let call = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bits, call, &[], cont, &[]);
        self.b.switch_to_block(call);
        let id = self.uniform_u32(barrier, bits)?;
        let count = match count {
            Some(c) => {
                let c = self.uniform_u32(c, bits)?;
                self.b.ins().uextend(I64, c)
            }
            None => lanes::iconst64(&mut self.b, u64::MAX),
        };
        if let Some(c) = red {
            self.bar_red_pending(c, bits)?;
        }
        let h = self.helper(Helper::BarArrive)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let r = self.b.ins().call(h, &[self.ctx, id, count, bits, instv]);
        let res = self.b.inst_results(r)[0];
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        if self.mode == Mode::Conv {
            let ab = self.b.use_var(self.active_bits);
            let all = self.b.ins().icmp(IntCC::Equal, bits, ab);
            let wait = self.b.create_block();
            let split = self.b.create_block();
            self.b.ins().brif(all, wait, &[], split, &[]);
            self.b.switch_to_block(wait);
            let hw = self.helper(Helper::BarWait)?;
            let r = self.b.ins().call(hw, &[self.ctx]);
            let res = self.b.inst_results(r)[0];
            self.b.ins().brif(res, self.ret_status, &[], nb, &[]);
            self.b.switch_to_block(split);
            let none = lanes::splat32(&mut self.b, u32::MAX);
            for k in 0..N32 {
                self.b.def_var(self.next[k], none);
            }
        }
        // Arrived lanes wait at `next` behind the barrier flag; the others continue there.
        let t = lanes::splat32(&mut self.b, BAR_WAIT | next.0);
        let m32 = self.m32(&m);
        for k in 0..N32 {
            let old = self.b.use_var(self.next[k]);
            let new = self.b.ins().bitselect(m32[k], t, old);
            self.b.def_var(self.next[k], new);
        }
        let act = self.active_vals();
        let rest = lanes::andnot_masks(&mut self.b, &act, &m32);
        self.record(&rest, next);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// A u32 operand's value in the first lane of `bits` (immediates directly).
    pub(crate) fn uniform_u32(&mut self, op: &Operand, bits: Value) -> Result<Value, JitError> {
        if let Operand::Imm(x) = *op {
            return Ok(lanes::iconst32(&mut self.b, x as u32));
        }
        let w = self.read(op, Type::U32, false)?;
        Ok(self.first_lane(&w, bits))
    }
}
