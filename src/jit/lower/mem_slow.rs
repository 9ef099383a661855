//! The memory family's checked helper path (see `mem`): the lane addresses and a
//! store's data go to `ptxjit_access` through the scratch slots, which performs the
//! access lane by lane and reports the lowest faulting lane. Cheaper forms of the same
//! call, with the same lane addresses: lanes whose addresses a lane loop already
//! spilled (the shared gather and scatter, `.local`) are not spilled again, and an
//! affine address register (lane `l` at `a0 + l × stride`) or one address for every
//! lane passes `a0` and the stride to `ptxjit_access_affine`, which builds the 32
//! addresses itself: no vector built or spilled in the generated code (about 35 CLIF
//! instructions fewer per such access; these paths run only for accesses the inline
//! paths cannot do, such as faults). Also the chain a coalescable load whose vector
//! path's test fails tries before the helper (`ld_lanes_general`).

use super::mem::LaneAddr;
use crate::exec::ctx::AccessReq;
use crate::ir::{AddrBase, Address, InstId, RegId, Space};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value};

/// The checked helpers' description of an access (`mask` is passed apart).
fn access_req(space: Space, eb: u32, sb: u32, n: usize, write: bool, inst: InstId) -> AccessReq {
    AccessReq {
        space,
        elem_bytes: eb,
        nvec: n as u32,
        slot_bytes: sb,
        write,
        mask: 0,
        inst,
    }
}

impl FuncTranslator<'_> {
    /// The helper path: lane addresses to the scratch slot (data must already be there
    /// for stores), `ptxjit_access`, return on a fault.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn slow_access(
        &mut self,
        space: Space,
        eb: u32,
        sb: u32,
        n: usize,
        write: bool,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let req = access_req(space, eb, sb, n, write, inst);
        match la {
            // One address for every lane: stride 0, nothing spilled.
            LaneAddr::Uniform(a) => self.access_affine_call(&req, *a, 0, 64, mask),
            LaneAddr::PerLane(w) => {
                self.spill(w, 0);
                self.slow_access_spilled(space, eb, sb, n, write, mask, inst)
            }
        }
    }

    /// The helper path of an access whose lane addresses are already in the scratch
    /// address slot (spilled by a lane loop that left for the helper), data as for
    /// [`Self::slow_access`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn slow_access_spilled(
        &mut self,
        space: Space,
        eb: u32,
        sb: u32,
        n: usize,
        write: bool,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let req = access_req(space, eb, sb, n, write, inst);
        let pa = self.scratch_addr(0);
        self.call_access(Helper::Access, &req, mask, pa)
    }

    /// The helper path of an access at `[addr]` (data already in the scratch slot for
    /// stores): through an affine address register, lane 0's address and the stride
    /// to `ptxjit_access_affine`, which builds the same 32 lane addresses
    /// [`Self::lane_addrs`] does (no vector built or spilled here); else
    /// [`Self::slow_access`] with the lane addresses `la`, or built again when `None`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn slow_access_at(
        &mut self,
        space: Space,
        eb: u32,
        sb: u32,
        n: usize,
        write: bool,
        addr: &Address,
        la: Option<&LaneAddr>,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let affine = match addr.base {
            AddrBase::Reg(r) => self.avar(r),
            _ => None,
        };
        let Some((var, stride)) = affine else {
            return match la {
                Some(la) => self.slow_access(space, eb, sb, n, write, la, mask, inst),
                None => {
                    let la = self.lane_addrs(space, addr)?;
                    self.slow_access(space, eb, sb, n, write, &la, mask, inst)
                }
            };
        };
        let base = self.b.use_var(var);
        // As `affine_lane_addrs`: a 32-bit base adds the offset in 32 bits.
        let wide = self.b.func.dfg.value_type(base) == I64;
        let a = match (addr.offset, wide) {
            (0, _) => base,
            (o, true) => self.b.ins().iadd_imm_s(base, o),
            (o, false) => self.b.ins().iadd_imm_s(base, o as i32 as i64),
        };
        let (a0, bits) = match wide {
            true => (a, 64),
            false => (self.b.ins().uextend(I64, a), 32),
        };
        let req = access_req(space, eb, sb, n, write, inst);
        self.access_affine_call(&req, a0, stride, bits, mask)
    }

    /// `ptxjit_access_affine` for access `req` at lane addresses `a0 + l × stride`
    /// (wrapping in `bits`, see the helper), the data in the scratch slots; returns
    /// from the kernel on a fault.
    fn access_affine_call(
        &mut self,
        req: &AccessReq,
        a0: Value,
        stride: u64,
        bits: u32,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let shape = lanes::iconst64(&mut self.b, req.pack_shape());
        let mbits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, req.inst.0);
        let st = lanes::iconst64(&mut self.b, stride);
        let wv = lanes::iconst32(&mut self.b, bits);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::AccessAffine)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, shape, mbits, instv, a0, st, wv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }
}

impl FuncTranslator<'_> {
    /// The general path of [`Self::ld_lanes`]'s coalescable load (from its `slow`
    /// block): half-warp rows, the shared gather or one uniform address, then the
    /// helper; each jumps to `join` with the loaded vectors.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ld_lanes_general(
        &mut self,
        space: Space,
        (eb, sb): (u32, u32),
        a: &WarpValue,
        bits: Value,
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
        join: Block,
        (memo, try_halves): (Option<(RegId, i64)>, bool),
    ) -> Result<(), JitError> {
        let wide = sb == 8;
        if space == Space::Shared && try_halves {
            // Half-warp rows (`mem_halves`) before the gather.
            let gather = self.b.create_block();
            self.halves_load(space, eb as u64, a, bits, inst, join, gather, memo)?;
            self.b.switch_to_block(gather);
        }
        let helper = self.b.create_block();
        let spilled = space != Space::Shared && self.spill_first(addr);
        // Elsewhere, half-warp rows (`mem_halves`) when the lanes do not agree.
        let halves = (space != Space::Shared && try_halves).then(|| self.b.create_block());
        // Then, in the optimized tier, a gather inside the instruction's cached region
        // (`mem_gather::region_gather`) before the helper.
        let gather = (!self.quick
            && matches!(space, Space::Global | Space::Generic | Space::Const))
        .then(|| self.b.create_block());
        let miss = gather.unwrap_or(helper);
        let v = if space == Space::Shared {
            // Shared memory: a gather when every active lane is aligned and inside the
            // window (e.g. tiles whose rows are narrower than a warp; `mem_gather`).
            self.shared_gather(eb, a, bits, helper)
        } else {
            // (The 64-bit lane masks are built in the uniform test where it needs them,
            // after its scalar pre-test, local to that path.)
            let m64 = Vec::new();
            // The lane addresses spilled once, for the first active lane's address and
            // for the helper (the half-warp test leaves the scratch slot alone).
            if spilled {
                self.spill(a, 0);
            }
            // Every active lane at one address: one scalar load and a splat.
            let other = halves.unwrap_or(miss);
            let how = (false, spilled);
            let mut w = self.uniform_lane_values(space, eb, 1, a, bits, &m64, inst, other, how)?;
            w.pop().map(|w| w.v).unwrap_or_default()
        };
        let args: Vec<BlockArg> = v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        if let Some(h) = halves {
            self.b.switch_to_block(h);
            self.halves_load(space, eb as u64, a, bits, inst, join, miss, memo)?;
        }
        if let Some(g) = gather {
            self.b.switch_to_block(g);
            if !spilled {
                self.spill(a, 0);
            }
            self.region_gather((eb, sb, 1), bits, inst, helper);
            let v = self.unspill(wide, SCRATCH_DATA).v;
            let args: Vec<BlockArg> = v.iter().map(|&x| BlockArg::Value(x)).collect();
            self.b.ins().jump(join, &args);
        }
        self.b.switch_to_block(helper);
        if space == Space::Shared || spilled || gather.is_some() {
            // Only the gathers' lane loops leave for the helper in shared memory and
            // with a gather, after spilling the lane addresses; elsewhere they were
            // spilled above.
            self.slow_access_spilled(space, eb, sb, 1, false, mask, inst)?;
        } else {
            // Slow path (lane addresses not kept: values kept across the fast path's
            // blocks and calls cost register allocation time and spills).
            self.slow_access_at(space, eb, sb, 1, false, addr, None, mask, inst)?;
        }
        let w = self.unspill(wide, SCRATCH_DATA);
        let args: Vec<BlockArg> = w.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        Ok(())
    }
}
