//! The quick tier's form of the accesses the shape analysis does not prove uniform or
//! contiguous (`mem`): the checked helper (`mem_slow`) without the inline coalescing and
//! one-address tests the optimized tier tries first; only 4-byte loads keep the
//! half-warp test of `mem_halves` and shared loads the lane loop of `mem_gather` (tile
//! rows in a hot loop: without them the quick tier ran sgemm 16 times slower), and
//! generic loads and stores take the lane loops of `mem_gather` instead (per-lane
//! stack frames, about 100 CLIF instructions instead of 290 for a load). And of
//! the slow path of an access proven contiguous for every launch whose vector path's
//! test fails: the helper, without the gather, scatter and one-address tests (not where
//! the shape holds only for launches whose `%ntid.x` is a multiple of 32: sgemm's
//! 16 × 16 tiles then take the slow path in their inner loop).
//! Those tests only ever take a faster path to the same bytes, and every one of them
//! leaves for the same helper when it fails, so the results and fault reports are the
//! optimized tier's; the code is about 100 to 250 CLIF instructions smaller per access
//! (README "Load time and launch cost"). The optimized tier, compiled in the background
//! for kernels that keep running, keeps the fast paths.
use super::mem::{AddrShape, LaneAddr};
use crate::ir::{AddrBase, Address, InstId, Operand, RegId, Space, Type};
use crate::jit::translate::lanes::{WarpValue, N32, N64};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32X4, I64X2};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder};

impl FuncTranslator<'_> {
    /// Whether an access to `[addr]` in `space` of shape `shape` takes the quick tier's
    /// helper form: quick tier, a register address of no proven shape, in a space whose
    /// optimized form tests lanes inline (not `.local`, which has its own lane loop, nor
    /// `.shared::cluster`, always the helper).
    pub(super) fn quick_access(&self, space: Space, addr: &Address, shape: AddrShape) -> bool {
        self.quick
            && !self.instrument
            && shape == AddrShape::PerLane
            && matches!(addr.base, AddrBase::Reg(_))
            && matches!(
                space,
                Space::Global | Space::Shared | Space::Generic | Space::Const
            )
    }

    /// The helper's lane addresses for `[addr]`: none where an affine register lets
    /// `slow_access_at` pass lane 0's address and the stride instead.
    fn quick_lane_addrs(
        &mut self,
        space: Space,
        addr: &Address,
    ) -> Result<Option<LaneAddr>, JitError> {
        match addr.base {
            AddrBase::Reg(r) if self.avar(r).is_some() => Ok(None),
            _ => self.lane_addrs(space, addr).map(Some),
        }
    }

    /// `ld` in the quick tier's helper form ([`Self::quick_access`]); generic loads first
    /// try the lane loop.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ld_quick(
        &mut self,
        space: Space,
        ty: Type,
        (eb, sb): (u32, u32),
        dsts: &[Option<RegId>],
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        if let (Space::Shared, [Some(d)]) = (space, dsts) {
            return self.ld_quick_shared(ty, (eb, sb), *d, addr, mask, inst);
        }
        let n = dsts.len();
        if space == Space::Generic {
            // The lane loop of `mem_gather::region_gather` (each active lane checked
            // against the instruction's cached region and loaded), the helper where a
            // lane fails. Generic loads of unproven shape are mostly per-lane stack
            // frames (clang's `-O0`, the `%SP` of `cvta.local`), whose lanes are never
            // half-warp rows: the half-warp test's 200 CLIF instructions bought nothing
            // there, and the helper took 10 ns a lane.
            let LaneAddr::PerLane(a) = self.lane_addrs(space, addr)? else {
                return Err(self.internal("lane addresses"));
            };
            let bits = self.mbits(mask);
            self.spill(&a, 0);
            self.region_gather_or_helper(space, (eb, sb, n), bits, mask, inst)?;
            return self.write_loaded(ty, sb, dsts, mask);
        }
        if let ([Some(d)], 4, false) = (dsts, eb, self.strided(space, addr, eb)) {
            return self.ld_quick_halves(space, ty, *d, addr, mask, inst);
        }
        let la = self.quick_lane_addrs(space, addr)?;
        self.slow_access_at(space, eb, sb, n, false, addr, la.as_ref(), mask, inst)?;
        self.write_loaded(ty, sb, dsts, mask)?;
        Ok(())
    }

    /// A shared-memory `ld` of one element in the quick tier: for 4-byte elements the
    /// half-warp test of `mem_halves` (tile rows), then the lane loop of `mem_gather`
    /// (the helper's per-warp cost made such loads in a hot loop, sgemm's 16 × 16
    /// tiles, 16 times slower than the optimized tier), the helper where a lane fails
    /// its check.
    fn ld_quick_shared(
        &mut self,
        ty: Type,
        (eb, sb): (u32, u32),
        dst: RegId,
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let wide = sb == 8;
        let a = match self.lane_addrs(Space::Shared, addr)? {
            LaneAddr::PerLane(a) => a,
            LaneAddr::Uniform(x) => {
                let s = self.b.ins().splat(I64X2, x);
                WarpValue::wide(vec![s; N64])
            }
        };
        let bits = self.mbits(mask);
        let (helper, join) = (self.b.create_block(), self.b.create_block());
        for _ in 0..if wide { N64 } else { N32 } {
            self.b
                .append_block_param(join, if wide { I64X2 } else { I32X4 });
        }
        if eb == 4 && !self.strided(Space::Shared, addr, eb) {
            // Half-warp rows first (`mem_halves`: sgemm's 16 × 16 tiles).
            let gather = self.b.create_block();
            self.halves_load(Space::Shared, 4, &a, bits, inst, join, gather, None)?;
            self.b.switch_to_block(gather);
        }
        // (With no lane active the loop visits none; the write below keeps every lane.)
        let v = self.shared_gather(eb, &a, bits, helper);
        let args: Vec<BlockArg> = v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(helper);
        // (The gather's lane loop spilled the lane addresses before leaving.)
        self.slow_access_spilled(Space::Shared, eb, sb, 1, false, mask, inst)?;
        let w = self.unspill(wide, SCRATCH_DATA);
        let args: Vec<BlockArg> = w.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        let v = self.b.block_params(join).to_vec();
        self.write(dst, ty, WarpValue { wide, v }, mask)
    }

    /// A 4-byte `ld` outside shared memory in the quick tier: the half-warp test of
    /// `mem_halves` (each half-warp one address or 16 consecutive elements: tile rows,
    /// which the helper made 16 times slower in sgemm), else the helper.
    fn ld_quick_halves(
        &mut self,
        space: Space,
        ty: Type,
        dst: RegId,
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let LaneAddr::PerLane(a) = self.lane_addrs(space, addr)? else {
            return Err(self.internal("lane addresses"));
        };
        let bits = self.mbits(mask);
        let (miss, join) = (self.b.create_block(), self.b.create_block());
        for _ in 0..N32 {
            self.b.append_block_param(join, I32X4);
        }
        self.halves_load(space, 4, &a, bits, inst, join, miss, None)?;
        self.b.switch_to_block(miss);
        self.slow_access_at(space, 4, 4, 1, false, addr, None, mask, inst)?;
        let w = self.unspill(false, SCRATCH_DATA);
        let args: Vec<BlockArg> = w.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        let v = self.b.block_params(join).to_vec();
        self.write(dst, ty, WarpValue { wide: false, v }, mask)
    }

    /// `st` in the quick tier's helper form ([`Self::quick_access`]); generic stores
    /// first try the lane loop (as generic loads in [`Self::ld_quick`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn st_quick(
        &mut self,
        space: Space,
        ty: Type,
        (eb, sb): (u32, u32),
        srcs: &[Operand],
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        for (e, s) in srcs.iter().enumerate() {
            let d = self.read(s, ty, false)?;
            self.spill(&d, SCRATCH_DATA + e as i32 * 32 * sb as i32);
        }
        let n = srcs.len();
        if space == Space::Generic {
            // As generic loads: the lane loop of `mem_gather::region_scatter` (every
            // active lane checked before the first store), the helper where one fails.
            let LaneAddr::PerLane(a) = self.lane_addrs(space, addr)? else {
                return Err(self.internal("lane addresses"));
            };
            let bits = self.mbits(mask);
            let (done, helper) = (self.b.create_block(), self.b.create_block());
            self.region_scatter((eb, sb, n), &a, bits, inst, helper);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(helper);
            self.slow_access_spilled(space, eb, sb, n, true, mask, inst)?;
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            return Ok(());
        }
        let la = self.quick_lane_addrs(space, addr)?;
        self.slow_access_at(space, eb, sb, n, true, addr, la.as_ref(), mask, inst)
    }

    /// The slow path of a coalescible `ld` in the quick tier (current block: the vector
    /// path's test failed): the helper, its values to `join` (the vector path's
    /// continuation, one block parameter per container vector), then the write of the
    /// destination after `join`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ld_quick_slow(
        &mut self,
        space: Space,
        ty: Type,
        (eb, sb): (u32, u32),
        dst: Option<RegId>,
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
        join: Block,
    ) -> Result<(), JitError> {
        let wide = sb == 8;
        self.slow_access_at(space, eb, sb, 1, false, addr, None, mask, inst)?;
        let w = self.unspill(wide, SCRATCH_DATA);
        let args: Vec<BlockArg> = w.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        let v = self.b.block_params(join).to_vec();
        if let Some(d) = dst {
            self.write(d, ty, WarpValue { wide, v }, mask)?;
        }
        Ok(())
    }
}
