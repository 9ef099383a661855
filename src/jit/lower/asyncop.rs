//! Asynchronous copies and mbarriers ([`InstKind::Async`]: `cp.async`, `cp.async.bulk`,
//! `mbarrier.*`): the lane addresses and sources go to the scratch slot's data area
//! (32 x u64 each, addresses first), and one `ptxjit_async` helper call runs
//! `crate::exec::asyncop::exec` (the function the interpreter uses), which may let the
//! CTA's other warps run (mbarrier waits); the lanes' results come back at the start of
//! the data area (32 x u64 each).
//!
//! [`InstKind::Async`]: crate::ir::InstKind::Async

use crate::ir::{Address, AsyncOp, InstId, Operand, RegId, Space};
use crate::jit::abi::Helper;
use crate::jit::helpers::asyncop::space_code;
use crate::jit::lower::mem::LaneAddr;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

/// Bytes of one operand of 32 lanes (u64 each) in the data area.
const SLOT: i32 = 256;

impl FuncTranslator<'_> {
    pub(crate) fn async_op(
        &mut self,
        op: AsyncOp,
        dsts: &[Option<RegId>],
        addrs: &[(Space, Address)],
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        if addrs.len() != op.naddrs() || srcs.len() != op.src_types().len() {
            return Err(self.internal(self.cur_text()));
        }
        let mut spaces = 0u32;
        for (k, (space, a)) in addrs.iter().enumerate() {
            spaces |= space_code(*space) << (4 * k);
            let w = match self.lane_addrs(*space, a)? {
                LaneAddr::Uniform(v) => {
                    let s = self.b.ins().splat(I64X2, v);
                    WarpValue::wide(vec![s; 16])
                }
                LaneAddr::PerLane(w) => w,
            };
            self.spill(&w, SCRATCH_DATA + SLOT * k as i32);
        }
        for (k, (s, t)) in srcs.iter().zip(op.src_types()).enumerate() {
            let w = self.read(s, *t, false)?;
            let w = lanes::widen_w(&mut self.b, &w, false);
            self.spill(&w, SCRATCH_DATA + SLOT * (addrs.len() + k) as i32);
        }
        let desc = lanes::iconst64(&mut self.b, op.encode());
        let spacev = lanes::iconst32(&mut self.b, spaces);
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Async)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, spacev, bits, instv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        for (k, (d, t)) in dsts.iter().zip(op.dst_types()).enumerate() {
            if let Some(d) = d {
                let r = self.unspill(true, SCRATCH_DATA + SLOT * k as i32);
                self.write(*d, *t, r, mask)?;
            }
        }
        Ok(())
    }
}
