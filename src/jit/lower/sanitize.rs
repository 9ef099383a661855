//! The sanitizer variant's lowering (`BuildEnv::instrument`, compiled only for launches
//! under a sanitizer): loads go straight to the `ptxjit_access` helper (stores take it
//! because `st` has no fast path in this variant), so every access reaches the shadow
//! checks of `exec::sanitize` exactly as the interpreter's do; warp-synchronous
//! instructions first hand their `membermask`s to `ptxjit_san_warp`. A one-element
//! access whose lane `l` is at `a0 + l * size` passes lane 0's address alone to
//! `ptxjit_access_run` (`exec::ctx::access_affine`: the run entry with no lane test and
//! no spill of 32 addresses) instead of 32 lane addresses to `ptxjit_access`: with no
//! test when the address is an affine 64-bit register of that stride (so by
//! construction), else after one vector compare of the 32 lane addresses.

use super::mem::LaneAddr;
use crate::exec::ctx::AccessReq;
use crate::ir::{AddrBase, Address, InstId, Operand, RegClass, RegId, Space, Type, WarpOp};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::{InstBuilder, Value};

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
        self.write_loaded(ty, sb, dsts, mask)?;
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
        let plain = n == 1 && !matches!(space, Space::Local | Space::SharedCluster);
        let w = match la {
            LaneAddr::PerLane(w) if plain => w,
            _ => return self.slow_access(space, eb, sb, n, write, la, mask, inst),
        };
        let a0 = match addr.base {
            AddrBase::Reg(r) => {
                let r64 = self.reg_info(r)?.ty.class() == RegClass::R64;
                let stride = self.avar(r).map(|(_, s)| s);
                (r64 && stride == Some(eb as u64))
                    .then(|| self.affine_lane0(w))
                    .flatten()
            }
            _ => None,
        };
        if let Some(a0) = a0 {
            return self.access_run_call(space, eb, sb, write, a0, mask, inst);
        }
        // Not known to be contiguous: the 32 lane addresses are tested here (lane `l` at
        // lane 0's plus `l * eb`), and lane 0's address alone is passed when they are.
        // (The mask bits are computed here so that they dominate both calls.)
        self.mbits(mask);
        let a0 = self.b.ins().extractlane(w.v[0], 0);
        let s = self.b.ins().splat(I64X2, a0);
        let offs = lanes::lane_index(&mut self.b, true, eb as u64);
        let mut all = None;
        for (k, &x) in w.v.iter().enumerate() {
            let exp = self.b.ins().iadd(s, offs.v[k]);
            let eq = self.b.ins().icmp(IntCC::Equal, x, exp);
            all = Some(match all {
                None => eq,
                Some(a) => self.b.ins().band(a, eq),
            });
        }
        let Some(all) = all else {
            return self.slow_access(space, eb, sb, n, write, la, mask, inst);
        };
        let ok = self.b.ins().vall_true(all);
        let (run, per_lane) = (self.b.create_block(), self.b.create_block());
        let join = self.b.create_block();
        self.b.ins().brif(ok, run, &[], per_lane, &[]);
        self.b.switch_to_block(run);
        self.access_run_call(space, eb, sb, write, a0, mask, inst)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(per_lane);
        self.slow_access(space, eb, sb, n, write, la, mask, inst)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// `ptxjit_access_run` for a one-element access whose lane `l` is at `a0 + l * eb`
    /// (a store's data already in the scratch slots); returns from the kernel on a fault.
    #[allow(clippy::too_many_arguments)]
    fn access_run_call(
        &mut self,
        space: Space,
        eb: u32,
        sb: u32,
        write: bool,
        a0: Value,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let req = AccessReq {
            space,
            elem_bytes: eb,
            nvec: 1,
            slot_bytes: sb,
            write,
            mask: 0,
            inst,
        };
        self.call_access(Helper::AccessRun, &req, mask, a0)
    }

    /// The call of a checked access helper (`ptxjit_access` with the address of the
    /// spilled lane addresses, `ptxjit_access_run` with lane 0's address: `addr`) for
    /// access `req`, the data in the scratch slots; returns from the kernel on a fault.
    /// Shared with [`FuncTranslator::slow_access`].
    pub(crate) fn call_access(
        &mut self,
        helper: Helper,
        req: &AccessReq,
        mask: &mut Mask,
        addr: Value,
    ) -> Result<(), JitError> {
        let shape = lanes::iconst64(&mut self.b, req.pack_shape());
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, req.inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(helper)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, shape, bits, instv, addr, pd]);
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
