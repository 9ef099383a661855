//! The sanitizer variant's lowering (`BuildEnv::instrument`, compiled only for launches
//! under a sanitizer): loads go straight to the `ptxjit_access` helper (stores take it
//! because `st` has no fast path in this variant), so every access reaches the shadow
//! checks of `exec::sanitize` exactly as the interpreter's do; warp-synchronous
//! instructions first hand their `membermask`s to `ptxjit_san_warp`.

use crate::ir::{Address, InstId, Operand, RegId, Space, Type, WarpOp};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    /// `ld` in the sanitizer variant: the checked helper path only.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ld_instrumented(
        &mut self,
        space: Space,
        ty: Type,
        eb: u32,
        sb: u32,
        dsts: &[Option<RegId>],
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let la = self.lane_addrs(space, addr)?;
        self.slow_access(space, eb, sb, dsts.len(), false, &la, mask, inst)?;
        for (e, d) in dsts.iter().enumerate() {
            if let Some(d) = d {
                let w = self.unspill(sb == 8, SCRATCH_DATA + e as i32 * 32 * sb as i32);
                self.write(*d, ty, w, mask)?;
            }
        }
        Ok(())
    }

    /// Before a warp-synchronous instruction of the sanitizer variant: its lanes'
    /// `membermask`s go to `ptxjit_san_warp` (synccheck; `bar.warp.sync` also orders
    /// memory for racecheck); a finding that stops the warp returns from the kernel.
    pub(crate) fn san_warp(
        &mut self,
        op: WarpOp,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let Some(src) = crate::ops::warp::member_index(op).and_then(|k| srcs.get(k)) else {
            return Ok(());
        };
        let m = self.read(src, Type::B32, false)?;
        self.spill(&m, 0);
        let p = self.scratch_addr(0);
        let bits = self.mbits(mask);
        let inst = lanes::iconst32(&mut self.b, self.cur.map_or(0, |i| i.0));
        let sync = lanes::iconst32(&mut self.b, matches!(op, WarpOp::WarpSync) as u32);
        let h = self.helper(Helper::SanWarp)?;
        let call = self.b.ins().call(h, &[self.ctx, inst, bits, sync, p]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }
}
