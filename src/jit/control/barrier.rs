//! `bar.arrive` ([`InstKind::BarArrive`]) and the `bar.red` parts that are not the
//! barrier itself: the predicate bits each warp contributes (before the arrival in
//! `dispatch.rs`) and the result ([`InstKind::BarRedResult`]), through small helpers over
//! `crate::exec::ctx`.
//!
//! [`InstKind::BarArrive`]: crate::ir::InstKind::BarArrive
//! [`InstKind::BarRedResult`]: crate::ir::InstKind::BarRedResult

use crate::ir::{BarRedOp, InstId, Operand, PredSrc, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::{InstBuilder, Value};

impl FuncTranslator<'_> {
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
