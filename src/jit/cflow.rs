//! `brx.idx`: an indirect branch through a `.branchtargets` list.
//!
//! The guarded active lanes check their indices first (the lowest lane with an index
//! past the list faults, as in the interpreter, before any lane moves). In the
//! convergent variant, when every active lane takes the branch with the same index, it
//! is a `br_table` over the targets' convergent blocks; otherwise each lane records its
//! own target (a select per list entry) and the dispatcher runs the lowest pending block.

use super::helpers::Helper;
use super::lanes::{self, N32};
use super::translate::{FnTx, Mask, Mode, SCRATCH_DATA};
use super::JitError;
use crate::exec::ctx::{self, WarpCtx, STATUS_FAULT};
use crate::ir::{BlockId, Guard, InstId, Operand, Type};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, JumpTableData, Value};

impl FnTx<'_> {
    pub(crate) fn brx_idx(
        &mut self,
        guard: Option<Guard>,
        index: &Operand,
        targets: &[BlockId],
        next: BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let nb = self.block(next)?;
        let len = targets.len() as u32;
        let mut m = self.exec_mask(guard);
        let tbits = self.mbits(&mut m);
        let idx = self.read(index, Type::U32, false)?;
        // Bad indices among the taking lanes.
        let lenv = lanes::splat32(&mut self.b, len);
        let bad: Vec<Value> = (0..N32)
            .map(|k| {
                let c = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, idx.v[k], lenv);
                self.b.ins().band(c, m.m32[k])
            })
            .collect();
        let badbits = lanes::bits_from_mask(&mut self.b, &bad);
        let fault = self.b.create_block();
        let ok = self.b.create_block();
        self.b.ins().brif(badbits, fault, &[], ok, &[]);
        self.b.switch_to_block(fault);
        let k = self.first_lane(&idx, badbits);
        let h = self.helper(Helper::BadBranch)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let lenc = lanes::iconst32(&mut self.b, len);
        self.b.ins().call(h, &[self.ctx, instv, badbits, k, lenc]);
        self.b.ins().jump(self.ret_status, &[]);
        self.b.switch_to_block(ok);
        if self.mode == Mode::Conv {
            // Every active lane takes the branch with one index: a direct jump table.
            let ab = self.b.use_var(self.active_bits);
            let all = self.b.ins().icmp(IntCC::Equal, tbits, ab);
            let none = self.b.create_block();
            let check_uni = self.b.create_block();
            let slow = self.b.create_block();
            let some = self.b.create_block();
            self.b.ins().brif(all, check_uni, &[], some, &[]);
            self.b.switch_to_block(some);
            self.b.ins().brif(tbits, slow, &[], none, &[]);
            self.b.switch_to_block(none);
            self.b.ins().jump(nb, &[]);
            self.b.switch_to_block(check_uni);
            let first = self.first_lane(&idx, ab);
            let fv = self
                .b
                .ins()
                .splat(cranelift_codegen::ir::types::I32X4, first);
            let eq: Vec<Value> = (0..N32)
                .map(|k| self.b.ins().icmp(IntCC::Equal, idx.v[k], fv))
                .collect();
            let eqbits = lanes::bits_from_mask(&mut self.b, &eq);
            let eqa = self.b.ins().band(eqbits, ab);
            let uni = self.b.ins().icmp(IntCC::Equal, eqa, ab);
            let table = self.b.create_block();
            self.b.ins().brif(uni, table, &[], slow, &[]);
            self.b.switch_to_block(table);
            let def = self.b.func.dfg.block_call(slow, &[]);
            let mut calls = Vec::with_capacity(targets.len());
            for t in targets {
                let blk = self.block(*t)?;
                calls.push(self.b.func.dfg.block_call(blk, &[]));
            }
            let jt = self.b.create_jump_table(JumpTableData::new(def, &calls));
            self.b.ins().br_table(first, jt);
            self.b.switch_to_block(slow);
            let nonev = lanes::splat32(&mut self.b, u32::MAX);
            for k in 0..N32 {
                self.b.def_var(self.next[k], nonev);
            }
        }
        // Each taking lane records its own target, the others `next`.
        for (j, t) in targets.iter().enumerate() {
            let jv = lanes::splat32(&mut self.b, j as u32);
            let sel: Vec<Value> = (0..N32)
                .map(|k| {
                    let e = self.b.ins().icmp(IntCC::Equal, idx.v[k], jv);
                    self.b.ins().band(e, m.m32[k])
                })
                .collect();
            self.record(&sel, *t);
        }
        let act = self.active_vals();
        let rest = lanes::andnot_masks(&mut self.b, &act, &m.m32);
        self.record(&rest, next);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }
}

/// Records a bad `brx.idx` index: `bits` are the taking lanes with a bad index (the
/// lowest one is reported), `index` its index, `len` the list's length. Returns the
/// warp's (nonzero) status.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bad_branch(
    ctx: *mut WarpCtx,
    inst: u32,
    bits: u32,
    index: u32,
    len: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let lane = bits.trailing_zeros().min(31);
    // SAFETY: as the caller's contract.
    unsafe { ctx::bad_branch_index(ctx, InstId(inst), lane, index, len) };
    ctx.status.max(STATUS_FAULT)
}

impl FnTx<'_> {
    /// `nanosleep.u32 t`: one helper call per warp-instruction with the lanes' delays.
    pub(crate) fn nanosleep(&mut self, t: &Operand, mask: &mut Mask) -> Result<(), JitError> {
        let bits = self.mbits(mask);
        let w = self.read(t, Type::U32, false)?;
        self.spill(&w, SCRATCH_DATA);
        let p = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Nanosleep)?;
        self.b.ins().call(h, &[bits, p]);
        Ok(())
    }
}

/// `nanosleep`: sleeps once for the smallest delay of the lanes in `mask` (`ts`: 32 u32
/// lane values), capped at 1 ms.
///
/// # Safety
/// `ts` must be valid for 32 u32 values.
pub unsafe extern "C" fn ptxjit_nanosleep(mask: u32, ts: *const u32) {
    let ts = unsafe { &*(ts as *const [u32; 32]) };
    ctx::nanosleep((0..32).filter(|l| mask >> l & 1 != 0).map(|l| ts[l]));
}
