//! Control flow: branches, divergence bookkeeping, the dispatcher, `exit`/`ret` and
//! `bar.sync`.
//!
//! Divergence (DESIGN.md): blocks are numbered in reverse post-order. Lanes that wait to
//! run a block record its number in `next` (8 × i32x4, `u32::MAX` = not waiting) and the
//! `pending` flag is set. A branch that is uniform over the active lanes while nothing is
//! pending is a plain jump. Otherwise each active lane records its successor and the
//! dispatcher runs the lowest-numbered pending block with the lanes waiting there (which
//! reconverges at the earliest point of any CFG). `exit` removes lanes from `ctx.live`
//! and the active mask for good; with no active lane left the dispatcher runs, and with
//! nothing pending either the kernel returns `ctx.status`.

use super::helpers::Helper;
use super::lanes::{self, N32};
use super::translate::FnTx;
use super::JitError;
use crate::interp::BAR_WAIT;
use crate::ir::{BlockId, Guard, InstId, Operand, Terminator, Type};
use crate::runtime::ctx::WarpCtx;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I8};
use cranelift_codegen::ir::{InstBuilder, JumpTableData, Value};
use std::mem::offset_of;

impl FnTx<'_> {
    /// Ends the current block according to an IR terminator.
    pub(crate) fn terminator(&mut self, t: &Terminator) -> Result<(), JitError> {
        match *t {
            Terminator::Jump { target, inst } => {
                self.cur = inst;
                self.goto(target)
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
            Terminator::Ret { guard, next, inst } | Terminator::Exit { guard, next, inst } => {
                self.cur = Some(inst);
                self.exit(guard, next)
            }
            Terminator::Barrier {
                guard,
                barrier,
                count,
                next,
                inst,
            } => {
                self.cur = Some(inst);
                self.barrier(guard, &barrier, count.as_ref(), next, inst)
            }
        }
    }

    /// All active lanes continue at `target`.
    fn goto(&mut self, target: BlockId) -> Result<(), JitError> {
        let tb = self.block(target)?;
        let pend = self.b.use_var(self.pending);
        let slow = self.b.create_block();
        self.b.ins().brif(pend, slow, &[], tb, &[]);
        self.b.switch_to_block(slow);
        let act: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.active[k])).collect();
        self.record(&act, target);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// Lanes in `m` wait for block `target`.
    fn record(&mut self, m: &[Value], target: BlockId) {
        let t = lanes::splat32(&mut self.b, target.0);
        for (k, &mk) in m.iter().enumerate() {
            let old = self.b.use_var(self.next[k]);
            let new = self.b.ins().bitselect(mk, t, old);
            self.b.def_var(self.next[k], new);
        }
        let one = self.b.ins().iconst(I8, 1);
        self.b.def_var(self.pending, one);
    }

    /// `@p bra taken` falling through to `not_taken`.
    fn branch(&mut self, guard: Guard, taken: BlockId, not_taken: BlockId) -> Result<(), JitError> {
        let tb = self.block(taken)?;
        let nb = self.block(not_taken)?;
        let act: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.active[k])).collect();
        let p = self.pred_vals(guard.pred, false);
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
        let any_t = lanes::any_true(&mut self.b, &t);
        let any_n = lanes::any_true(&mut self.b, &n);
        let pend = self.b.use_var(self.pending);
        let check = self.b.create_block();
        let check2 = self.b.create_block();
        let slow = self.b.create_block();
        self.b.ins().brif(pend, slow, &[], check, &[]);
        self.b.switch_to_block(check);
        self.b.ins().brif(any_n, check2, &[], tb, &[]);
        self.b.switch_to_block(check2);
        self.b.ins().brif(any_t, slow, &[], nb, &[]);
        self.b.switch_to_block(slow);
        self.record(&t, taken);
        self.record(&n, not_taken);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// `exit` / `ret` in a kernel, optionally guarded (the other lanes go to `next`).
    fn exit(&mut self, guard: Option<Guard>, next: Option<BlockId>) -> Result<(), JitError> {
        let (guard, next) = match (guard, next) {
            (Some(g), Some(n)) => (g, n),
            _ => {
                // Every active lane exits.
                let bits = self.b.use_var(self.active_bits);
                self.remove_live(bits);
                let z = lanes::splat32(&mut self.b, 0);
                for k in 0..N32 {
                    self.b.def_var(self.active[k], z);
                }
                let z32 = self.b.ins().iconst(I32, 0);
                self.b.def_var(self.active_bits, z32);
                let pend = self.b.use_var(self.pending);
                self.b
                    .ins()
                    .brif(pend, self.dispatch, &[], self.ret_status, &[]);
                return Ok(());
            }
        };
        let mut em = self.exec_mask(Some(guard));
        let ebits = self.mbits(&mut em);
        self.remove_live(ebits);
        let act: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.active[k])).collect();
        for k in 0..N32 {
            let a = self.b.ins().band_not(act[k], em.m32[k]);
            self.b.def_var(self.active[k], a);
        }
        let ab = self.b.use_var(self.active_bits);
        let ab = self.b.ins().band_not(ab, ebits);
        self.b.def_var(self.active_bits, ab);
        let cont = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(ab, cont, &[], done, &[]);
        self.b.switch_to_block(done);
        let pend = self.b.use_var(self.pending);
        self.b
            .ins()
            .brif(pend, self.dispatch, &[], self.ret_status, &[]);
        self.b.switch_to_block(cont);
        self.goto(next)
    }

    /// `ctx.live &= !bits`.
    fn remove_live(&mut self, bits: Value) {
        let live = self.load_ctx(I32, offset_of!(WarpCtx, live), false);
        let nl = self.b.ins().band_not(live, bits);
        self.store_ctx(nl, offset_of!(WarpCtx, live));
    }

    /// The dispatcher: runs the lowest-numbered pending block with the lanes waiting there,
    /// or returns `ctx.status` when no lane is pending.
    pub(crate) fn build_dispatch(&mut self) -> Result<(), JitError> {
        self.b.switch_to_block(self.dispatch);
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
        let mn = self.b.ins().umin(a, c);
        let done = self.b.ins().icmp_imm_u(IntCC::Equal, mn, u32::MAX as i64);
        let go = self.b.create_block();
        self.b.ins().brif(done, self.ret_status, &[], go, &[]);
        // Only lanes waiting at barriers are left: wait for the barriers, clear the
        // flags and dispatch again.
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
        let pend = self.b.ins().icmp_imm_u(IntCC::Equal, none_left, 0);
        self.b.def_var(self.pending, pend);
        let def = self.b.func.dfg.block_call(self.ret_status, &[]);
        let table: Vec<_> = self
            .blocks
            .clone()
            .into_iter()
            .map(|blk| self.b.func.dfg.block_call(blk, &[]))
            .collect();
        let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
        self.b.ins().br_table(mn, jt);
        Ok(())
    }

    /// `{@p} bar.sync barrier{, count}`: the guarded lanes arrive and wait at `next`
    /// with [`BAR_WAIT`] set (the dispatcher runs every other pending lane first); the
    /// other active lanes go to `next` at once.
    fn barrier(
        &mut self,
        guard: Option<Guard>,
        barrier: &Operand,
        count: Option<&Operand>,
        next: BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let mut m = self.exec_mask(guard);
        let bits = self.mbits(&mut m);
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
        let h = self.helper(Helper::BarArrive)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let r = self.b.ins().call(h, &[self.ctx, id, count, bits, instv]);
        let res = self.b.inst_results(r)[0];
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        // Arrived lanes wait at `next` behind the barrier flag.
        let t = lanes::splat32(&mut self.b, BAR_WAIT | next.0);
        for k in 0..N32 {
            let old = self.b.use_var(self.next[k]);
            let new = self.b.ins().bitselect(m.m32[k], t, old);
            self.b.def_var(self.next[k], new);
        }
        // The others continue at `next`.
        let act: Vec<Value> = (0..N32).map(|k| self.b.use_var(self.active[k])).collect();
        let rest = lanes::andnot_masks(&mut self.b, &act, &m.m32);
        self.record(&rest, next);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// A u32 operand's value in the first lane of `bits` (immediates directly).
    fn uniform_u32(&mut self, op: &Operand, bits: Value) -> Result<Value, JitError> {
        if let Operand::Imm(x) = *op {
            return Ok(lanes::iconst32(&mut self.b, x as u32));
        }
        let w = self.read(op, Type::U32, false)?;
        Ok(self.first_lane(&w, bits))
    }
}
