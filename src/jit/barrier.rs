//! `bar.arrive` ([`InstKind::BarArrive`]) and the `bar.red` parts that are not the
//! barrier itself: the predicate bits each warp contributes (before the arrival in
//! `control.rs`) and the result ([`InstKind::BarRedResult`]), through small helpers over
//! `crate::exec::ctx`.
//!
//! [`InstKind::BarArrive`]: crate::ir::InstKind::BarArrive
//! [`InstKind::BarRedResult`]: crate::ir::InstKind::BarRedResult

use super::helpers::Helper;
use super::lanes;
use super::translate::{FnTx, Mask};
use super::JitError;
use crate::exec::barrier;
use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK};
use crate::ir::{BarRedOp, InstId, Operand, PredSrc, RegId, Type};
use cranelift_codegen::ir::{InstBuilder, Value};

impl FnTx<'_> {
    /// `bar.arrive a, b` for the lanes of `mask` (none: nothing happens).
    pub(crate) fn bar_arrive_inst(
        &mut self,
        barrier: &Operand,
        count: &Operand,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let bits = self.mbits(mask);
        let call = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bits, call, &[], cont, &[]);
        self.b.switch_to_block(call);
        let id = self.uniform_u32(barrier, bits)?;
        let cnt = self.uniform_u32(count, bits)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let h = self.helper(Helper::BarArriveNoWait)?;
        let r = self.b.ins().call(h, &[self.ctx, id, cnt, bits, instv]);
        let res = self.b.inst_results(r)[0];
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// Records the `bar.red` predicate bits of the lanes in `arriving` (i32 bits) for the
    /// arrival that follows.
    pub(crate) fn bar_red_pending(&mut self, c: PredSrc, arriving: Value) -> Result<(), JitError> {
        let p = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
        let pb = lanes::bits_from_mask(&mut self.b, &p);
        let bits = self.b.ins().band(pb, arriving);
        let h = self.helper(Helper::BarRedPending)?;
        self.b.ins().call(h, &[self.ctx, bits]);
        Ok(())
    }

    /// The result of the last `bar.red` on `barrier`, written to `dst` under `mask`.
    pub(crate) fn bar_red_result(
        &mut self,
        op: BarRedOp,
        barrier: &Operand,
        dst: RegId,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let bits = self.mbits(mask);
        let id = self.uniform_u32(barrier, bits)?;
        let opv = lanes::iconst32(&mut self.b, op as u32);
        let h = self.helper(Helper::BarRedResult)?;
        let r = self.b.ins().call(h, &[self.ctx, id, opv]);
        let v = self.b.inst_results(r)[0];
        if op == BarRedOp::Popc {
            let w = lanes::splat_scalar(&mut self.b, v);
            self.write(dst, Type::U32, w, mask)
        } else {
            let zero = lanes::iconst32(&mut self.b, 0);
            let m = self.b.ins().isub(zero, v); // 1 -> all ones
            let w = lanes::splat_scalar(&mut self.b, m);
            let masks = w.v.clone();
            self.write_pred(dst, &masks, mask)
        }
    }
}

/// `bar.arrive` for lanes `mask`: returns 0, or the warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_arrive_nowait`.
pub unsafe extern "C" fn ptxjit_bar_arrive_nowait(
    ctx: *mut WarpCtx,
    id: u32,
    count: u32,
    mask: u32,
    inst: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    match unsafe { barrier::bar_arrive_nowait(ctx, id, count, mask, InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Stores the `bar.red` predicate bits for the next arrival.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bar_red_pending(ctx: *mut WarpCtx, bits: u32) {
    let ctx = unsafe { &mut *ctx };
    unsafe { (*ctx.env).pending_red = Some(bits) };
}

/// The result of the last `bar.red` (op 0 popc, 1 and, 2 or) on barrier `id`.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`.
pub unsafe extern "C" fn ptxjit_bar_red_result(ctx: *mut WarpCtx, id: u32, op: u32) -> u32 {
    let ctx = unsafe { &*ctx };
    let op = match op {
        0 => BarRedOp::Popc,
        1 => BarRedOp::And,
        _ => BarRedOp::Or,
    };
    unsafe { barrier::bar_red_result(ctx, id, op) }
}
