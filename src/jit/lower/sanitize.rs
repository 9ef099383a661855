//! The sanitizer variant's lowering (`BuildEnv::instrument`, compiled only for launches
//! under a sanitizer): loads go straight to the `ptxjit_access` helper (stores take it
//! because `st` has no fast path in this variant), so every access reaches the shadow
//! checks of `exec::sanitize` exactly as the interpreter's do; warp-synchronous
//! instructions first hand their `membermask`s to `ptxjit_san_warp`. A one-element
//! access through an affine 64-bit address register whose stride is the element size
//! (lane `l` at `a0 + l * size` by construction) passes lane 0's address alone to
//! `ptxjit_access_run` (`exec::ctx::access_affine`: the run entry with no lane test)
//! instead of 32 lane addresses to `ptxjit_access`.

use super::mem::LaneAddr;
use crate::ir::{AddrBase, Address, InstId, Operand, RegClass, RegId, Space, Type, WarpOp};
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
        self.san_access(space, eb, sb, dsts.len(), false, addr, &la, mask, inst)?;
        for (e, d) in dsts.iter().enumerate() {
            if let Some(d) = d {
                let w = self.unspill(sb == 8, SCRATCH_DATA + e as i32 * 32 * sb as i32);
                self.write(*d, ty, w, mask)?;
            }
        }
        Ok(())
    }

    /// The sanitizer variant's checked access (a store's data already in the scratch
    /// slots): `ptxjit_access_run` with lane 0's address when `addr` is an affine 64-bit
    /// register (plus offset) of stride `eb` and the access has one element, else the
    /// lane addresses `la` to `ptxjit_access` ([`FuncTranslator::slow_access`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn san_access(
        &mut self,
        space: Space,
        eb: u32,
        sb: u32,
        n: usize,
        write: bool,
        addr: &Address,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let a0 = match (la, addr.base) {
            (LaneAddr::PerLane(w), AddrBase::Reg(r))
                if n == 1 && !matches!(space, Space::Local | Space::SharedCluster) =>
            {
                let r64 = self.reg_info(r)?.ty.class() == RegClass::R64;
                let stride = self.avar(r).map(|(_, s)| s);
                (r64 && stride == Some(eb as u64))
                    .then(|| self.affine_lane0(w))
                    .flatten()
            }
            _ => None,
        };
        let Some(a0) = a0 else {
            return self.slow_access(space, eb, sb, n, write, la, mask, inst);
        };
        let req = crate::exec::ctx::AccessReq {
            space,
            elem_bytes: eb,
            nvec: 1,
            slot_bytes: sb,
            write,
            mask: 0,
            inst,
        };
        let shape = lanes::iconst64(&mut self.b, req.pack_shape());
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::AccessRun)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, shape, bits, instv, a0, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
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
