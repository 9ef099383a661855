//! The memory family: `ld`, `st`, `cvta`, and `isspacep` (one `ptxjit_isspacep` helper
//! call for the whole warp).
//!
//! Every access has the semantics of `exec::ctx::access` (checked per lane, lowest
//! faulting lane reported, nothing written by a faulting store):
//! - uniform loads of kernel parameters and `.global`/`.const` variables at constant,
//!   in-bounds, aligned offsets: one scalar load and a splat per element;
//! - coalesced accesses (`nvec == 1`, lane i at `a0 + i*size`, `a0` size-aligned, the
//!   whole range inside the instruction's entry of the per-instruction region cache
//!   `ctx.inst_cache`, or inside the shared window; stores need all 32 lanes active, so
//!   never while lanes are pending): whole-vector loads and stores. A well-shaped access
//!   that misses the cache asks `ptxjit_region` (one region-table lookup), which fills
//!   the entry, and then takes the vector path;
//! - loads of 4-byte (and, without the remembered forms, 8-byte) elements whose
//!   half-warps each read one address or 16 consecutive elements (`mem_halves`: tile
//!   rows), all lanes active;
//! - loads that are not coalesced, before the helper: in shared memory, lane-by-lane
//!   loads when every active lane is aligned and inside the window; elsewhere (and for
//!   `.v2/.v4` loads), one scalar load per element and a splat when every active lane
//!   uses one aligned address inside the instruction's cached region; then, in the
//!   optimized tier, lane-by-lane loads when every active lane's element is aligned and
//!   inside that region (`mem_gather::region_gather`: gathers, partial masks);
//! - `.local` at per-lane addresses: a lane loop in the generated code (`mem_local`),
//!   the helper only when a lane's access is invalid;
//! - everything else: lane addresses and data go to the scratch slot and the
//!   `ptxjit_access` helper performs the access; a nonzero result returns from the kernel
//!   (`mem_slow`: through an affine address register, lane 0's address and the stride
//!   instead). Loads whose addresses are strided (`mem_gather::strided`) skip the
//!   coalesced and half-warp tests, which cannot pass.

use super::mem_fast::{Entry, StoreMiss};
use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::shape::{Fact, Shape};
use crate::ir::InstKind;
use crate::ir::{AddrBase, Address, InstId, Operand, RegClass, RegId, Space, Type, VarRef};
use crate::jit::abi::Helper;
use crate::jit::helpers::control::ISSPACEP_SPACES;
use crate::jit::translate::lanes::{self, WarpValue, N32, N64};
use crate::jit::translate::{FuncTranslator, Mask, Mode, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I32X4, I64, I64X2, I8};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::Variable;
use std::mem::offset_of;

/// What the shape analysis (`ir::analysis::shape`) proves about the lane addresses of
/// an access: the dispatch of `ld`/`st` by shape. Instrumentation that must see every
/// lane's address belongs in the per-lane paths (`slow_access`, the helper).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddrShape {
    /// Every active lane uses one address (loads: one scalar load per element, no
    /// run-time test that the lanes agree).
    Uniform,
    /// Lane `i` uses `a0 + i × element size` (whole-warp accesses: one contiguous
    /// vector access after one alignment and range check, no per-lane test).
    Contiguous,
    /// Anything: the run-time tests pick the path.
    PerLane,
}

/// When an [`AddrShape`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Proof {
    /// For every launch.
    Always,
    /// For launches whose `%ntid.x` is a multiple of 32 (tested at run time).
    RowsLaunch,
}

/// Per-lane state-space addresses of an access.
pub(crate) enum LaneAddr {
    /// The same address for every lane (i64).
    Uniform(Value),
    /// 16 × i64x2 lane addresses.
    PerLane(WarpValue),
}

pub(super) fn heap_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl FuncTranslator<'_> {
    /// The shape of the lane addresses of `[addr]` (a register base) in `space` for
    /// elements of `eb` bytes, and when it holds.
    pub(crate) fn addr_shape(&self, space: Space, addr: &Address, eb: u32) -> (AddrShape, Proof) {
        if !matches!(addr.base, AddrBase::Reg(_)) || space == Space::Local {
            return (AddrShape::PerLane, Proof::Always);
        }
        let classify = |x: Fact| match x.shape {
            Shape::Uniform => AddrShape::Uniform,
            Shape::Affine(s) if s == eb as u64 => AddrShape::Contiguous,
            _ => AddrShape::PerLane,
        };
        let any = classify(
            self.shapes
                .0
                .address(self.f, &self.shape_now.0, space, addr),
        );
        if any != AddrShape::PerLane {
            return (any, Proof::Always);
        }
        let rows = classify(
            self.shapes
                .1
                .address(self.f, &self.shape_now.1, space, addr),
        );
        // The code for launches whose `%ntid.x` is a multiple of 32 needs no test.
        let when = match self.affine.rows {
            true => Proof::Always,
            false => Proof::RowsLaunch,
        };
        (rows, when)
    }

    /// Element type checks shared by `ld` and `st`; returns (elem bytes, slot bytes).
    fn mem_shape(&self, ty: Type, n: usize) -> Result<(u32, u32), JitError> {
        if !matches!(ty.bits(), 8 | 16 | 32 | 64) || !matches!(n, 1 | 2 | 4 | 8) {
            return Err(self.internal(self.cur_text()));
        }
        Ok((ty.bytes(), if ty.bits() > 32 { 8 } else { 4 }))
    }

    /// The lane addresses of `[base+offset]` in `space`.
    pub(crate) fn lane_addrs(
        &mut self,
        space: Space,
        addr: &Address,
    ) -> Result<LaneAddr, JitError> {
        let off = addr.offset;
        match addr.base {
            AddrBase::Reg(r) => {
                if let Some(w) = self.affine_lane_addrs(r, off) {
                    return Ok(LaneAddr::PerLane(w));
                }
                let rty = self.reg_info(r)?.ty;
                let w = match rty.class() {
                    RegClass::R64 => self.read(&Operand::Reg(r), Type::U64, false)?,
                    RegClass::R32 => {
                        // A 32-bit address wraps in 32 bits: add the offset, then widen.
                        let n = self.read(&Operand::Reg(r), Type::U32, false)?;
                        let n = if off == 0 {
                            n
                        } else {
                            let o = lanes::splat32(&mut self.b, off as u32);
                            let b = &mut self.b;
                            lanes::map1(&n, |&x| b.ins().iadd(x, o))
                        };
                        return Ok(LaneAddr::PerLane(lanes::widen_w(&mut self.b, &n, false)));
                    }
                    _ => return Err(self.internal(format!("address register of type {rty}"))),
                };
                if off == 0 {
                    return Ok(LaneAddr::PerLane(w));
                }
                let o = lanes::splat64(&mut self.b, off as u64);
                let b = &mut self.b;
                Ok(LaneAddr::PerLane(lanes::map1(&w, |&x| b.ins().iadd(x, o))))
            }
            AddrBase::Var(v) => {
                if space == Space::Generic {
                    match v {
                        VarRef::Shared(o) => {
                            let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
                            return Ok(LaneAddr::Uniform(
                                self.b.ins().iadd_imm_s(base, (o as i64).wrapping_add(off)),
                            ));
                        }
                        VarRef::Local(o) => {
                            let lb = self.local_bases();
                            let o =
                                lanes::splat64(&mut self.b, (o as i64).wrapping_add(off) as u64);
                            let b = &mut self.b;
                            return Ok(LaneAddr::PerLane(lanes::map1(&lb, |&x| {
                                b.ins().iadd(x, o)
                            })));
                        }
                        _ => {}
                    }
                }
                Ok(LaneAddr::Uniform(self.var_addr(v, off)?))
            }
            AddrBase::Abs => Ok(LaneAddr::Uniform(lanes::iconst64(&mut self.b, off as u64))),
        }
    }

    /// `ctx.local_base` as 16 × i64x2.
    fn local_bases(&mut self) -> WarpValue {
        let ro = MemFlagsData::new().with_notrap().with_readonly();
        let base = offset_of!(WarpCtx, local_base);
        WarpValue::wide(
            (0..N64)
                .map(|k| {
                    self.b
                        .ins()
                        .load(I64X2, ro, self.ctx, (base + 16 * k) as i32)
                })
                .collect(),
        )
    }

    /// A load that is the same for every lane and known valid: `ld.param` of a kernel
    /// parameter, or of a `.global`/`.const` variable, at an in-bounds, aligned constant
    /// offset. Returns the host address and whether the memory is read-only during the
    /// launch (parameters, `.const`; a `.global` variable may be stored to, so its loads
    /// must not be merged across stores).
    fn uniform_load_addr(
        &mut self,
        space: Space,
        addr: &Address,
        len: u64,
    ) -> Option<(Value, bool)> {
        let AddrBase::Var(v) = addr.base else {
            return None;
        };
        let off = u64::try_from(addr.offset).ok()?;
        match (v, space) {
            (VarRef::KernelParam(o), Space::Param | Space::Generic) => {
                let start = (o as u64).checked_add(off)?;
                if start.checked_add(len)? > self.f.param_size as u64 || start % len != 0 {
                    return None;
                }
                let base = self.load_ctx(I64, offset_of!(WarpCtx, param_base), true);
                Some((self.b.ins().iadd_imm_s(base, start as i64), true))
            }
            (VarRef::Global(g), Space::Global | Space::Const | Space::Generic) => {
                let var = self.m.globals.get(g)?;
                let base = *self.layout.global_addrs.get(g)?;
                if base == 0 || var.external || off.checked_add(len)? > var.size {
                    return None;
                }
                let a = base.checked_add(off)?;
                if a % len != 0 {
                    return None;
                }
                Some((lanes::iconst64(&mut self.b, a), var.space == Space::Const))
            }
            _ => None,
        }
    }

    pub(crate) fn ld(
        &mut self,
        space: Space,
        ty: Type,
        dsts: &[Option<RegId>],
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let (eb, sb) = self.mem_shape(ty, dsts.len())?;
        let n = dsts.len();
        // `.shared::cluster` addresses are decoded by the checked helper only.
        if self.instrument || space == Space::SharedCluster {
            return self.ld_instrumented(space, ty, eb, sb, dsts, addr, mask, inst);
        }
        if let Some((h, readonly)) = self.uniform_load_addr(space, addr, eb as u64 * n as u64) {
            let fl = if readonly {
                heap_flags().with_readonly()
            } else {
                heap_flags()
            };
            for (e, d) in dsts.iter().enumerate() {
                let Some(d) = d else { continue };
                let x = self.load_container(h, e as u32 * eb, eb, fl);
                let w = lanes::splat_scalar(&mut self.b, x);
                self.write(*d, ty, w, mask)?;
            }
            return Ok(());
        }
        let shape = self.addr_shape(space, addr, eb);
        if self.quick_access(space, addr, shape.0) {
            return self.ld_quick(space, ty, (eb, sb), dsts, addr, mask, inst);
        }
        // A register whose half-warp shape an earlier load found (`mem_halves`): its
        // test first, the usual paths (which remember the shape) on a miss.
        let proven = shape.1 == Proof::Always
            && matches!(shape.0, AddrShape::Uniform | AddrShape::Contiguous);
        // (Never for strided addresses: no half-warp shape can hold.)
        let memo = (eb == 4 && n == 1 && space != Space::Local && !proven)
            .then(|| self.halves_memo_reg(addr))
            .flatten()
            .filter(|_| !self.strided(space, addr, eb));
        let mut pre = None;
        if let Some(r) = memo {
            // The first load from `r` in the block only remembers (the state is zero).
            let seen = self.halves_seen(r);
            let bits = self.mbits(mask);
            let join = self.b.create_block();
            for _ in 0..N32 {
                self.b.append_block_param(join, I32X4);
            }
            if seen {
                let miss = self.b.create_block();
                self.halves_memo_load(r, space, addr.offset, bits, inst, join, miss)?;
                self.b.switch_to_block(miss);
            }
            pre = Some((join, r, !seen));
        }
        let la = self.lane_addrs(space, addr)?;
        self.ld_lanes(space, ty, (eb, sb), dsts, addr, &la, mask, inst, shape, pre)
    }

    /// `ld` through per-lane addresses: the coalesced vector path or the helper.
    #[allow(clippy::too_many_arguments)]
    fn ld_lanes(
        &mut self,
        space: Space,
        ty: Type,
        (eb, sb): (u32, u32),
        dsts: &[Option<RegId>],
        addr: &Address,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
        shape: (AddrShape, Proof),
        pre: Option<(Block, RegId, bool)>,
    ) -> Result<(), JitError> {
        let n = dsts.len();
        let wide = sb == 8;
        // A uniform address proven for every launch: straight to the scalar load.
        let proven_uniform = shape == (AddrShape::Uniform, Proof::Always);
        let vectorizable = n == 1
            && matches!(la, LaneAddr::PerLane(_))
            && space != Space::Local
            && !proven_uniform;
        if let (false, LaneAddr::PerLane(a), false) = (vectorizable, la, space == Space::Local) {
            return self.ld_elements(
                space,
                ty,
                (eb, sb),
                dsts,
                (addr, la, a),
                mask,
                inst,
                proven_uniform,
            );
        }
        if let (LaneAddr::Uniform(a0), Space::Shared) = (la, space) {
            return self.ld_shared_uniform(ty, (eb, sb), dsts, *a0, mask, inst);
        }
        if !vectorizable {
            if space == Space::Local {
                self.local_access(eb, sb, n, false, la, mask, inst)?;
            } else {
                self.slow_access_at(space, eb, sb, n, false, addr, Some(la), mask, inst)?;
            }
            self.write_loaded(ty, sb, dsts, mask)?;
            return Ok(());
        }
        let LaneAddr::PerLane(a) = la else {
            return Err(JitError::Codegen("lane addresses".into()));
        };
        let vty = if wide { I64X2 } else { I32X4 };
        let nparts = if wide { N64 } else { N32 };
        let join = match pre {
            Some((j, ..)) => j,
            None => {
                let j = self.b.create_block();
                for _ in 0..nparts {
                    self.b.append_block_param(j, vty);
                }
                j
            }
        };
        let memo = pre.map(|(_, r, _)| (r, addr.offset));
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        // Computed here so that it dominates the paths below.
        let bits = self.mbits(mask);
        let proof = (shape.0 == AddrShape::Contiguous).then_some(shape.1);
        let strided = self.strided(space, addr, eb);
        // (Not where every launch is proven contiguous, nor where the addresses are
        // strided: the halves then never apply. A strided half-warp is neither one
        // address nor 16 consecutive elements.)
        // (8-byte elements: the plain test only, `halves_first` remembers 4-byte loads.)
        let try_halves = matches!(eb, 4 | 8) && proof != Some(Proof::Always) && !strided;
        // The first load of a remembered register's run: the half-warp test first
        // (`mem_halves::halves_first`), not again on the paths below.
        // (Not where the quick tier's slow path tests the halves itself.)
        let halves_first = match (memo, pre) {
            (Some(m), Some((.., true)))
                if try_halves && !(self.quick && shape.1 == Proof::Always) =>
            {
                let rows = proof == Some(Proof::RowsLaunch);
                let known = self.half_rows_shape(space, addr);
                self.halves_first(space, a, bits, inst, join, m, (rows, known))?
            }
            _ => false,
        };
        if strided {
            // Never coalesced (`mem_gather`): the fast path below is unreachable.
            self.b.append_block_param(fast, I64);
            self.b.ins().jump(slow, &[]);
        } else {
            let (entry, known) = self.load_entry(space, eb, addr, inst);
            self.branch_fast(space, eb, a, false, entry, mask, fast, slow, proof, None)?;
            if let Some(v) = known {
                self.b.switch_to_block(fast);
                let one = self.b.ins().iconst(I8, 1);
                self.b.def_var(v, one);
            }
        }
        // Fast path: whole-vector loads.
        self.b.switch_to_block(fast);
        let h = self.b.block_params(fast)[0];
        // (Only where the shape analysis proves the lanes consecutive: a stream, not a
        // tile row or a table read of an interpreter loop.)
        if space == Space::Global && proof.is_some() {
            self.load_ahead(h, 32 * i64::from(eb), inst);
        }
        let v = self.vector_load(h, eb);
        let args: Vec<BlockArg> = v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(slow);
        if self.quick && shape.1 == Proof::Always {
            return self.ld_quick_slow(space, ty, (eb, sb), dsts[0], addr, mask, inst, join);
        }
        let try_halves = try_halves && !halves_first;
        self.ld_lanes_general(
            space,
            (eb, sb),
            a,
            bits,
            addr,
            mask,
            inst,
            join,
            (memo, try_halves),
        )?;
        self.b.switch_to_block(join);
        let v = self.b.block_params(join).to_vec();
        if let Some(d) = dsts[0] {
            self.write(d, ty, WarpValue { wide, v }, mask)?;
        }
        Ok(())
    }

    /// A multi-element load (`ld.v2/.v4`) with per-lane addresses, outside local memory
    /// (`proven_uniform`: the address is one value in every launch): every active lane
    /// at one address is one scalar load per element (e.g. a structure every lane
    /// reads); else the helper.
    #[allow(clippy::too_many_arguments)]
    fn ld_elements(
        &mut self,
        space: Space,
        ty: Type,
        (eb, sb): (u32, u32),
        dsts: &[Option<RegId>],
        (addr, la, a): (&Address, &LaneAddr, &WarpValue),
        mask: &mut Mask,
        inst: InstId,
        proven_uniform: bool,
    ) -> Result<(), JitError> {
        let n = dsts.len();
        // Vector loads (`ld.v2/.v4`): every active lane at one address is one scalar
        // load per element (e.g. a structure every lane reads); else a lane loop
        // (optimized tier, outside shared memory), then the helper.
        let bits = self.mbits(mask);
        // The 64-bit mask is built here, where it dominates both paths below:
        // `write` caches it in `mask`, and a form first built in the fast path
        // would be used by the helper path, which that block does not dominate.
        let m64 = self.m64(mask);
        let m64 = if proven_uniform { Vec::new() } else { m64 };
        let done = self.b.create_block();
        let other = self.b.create_block();
        // Spilled once for both paths (the helper's lane addresses).
        let spilled = self.spill_first(addr);
        if spilled {
            self.spill(a, 0);
        }
        let how = (proven_uniform, spilled);
        let vals = self.uniform_lane_values(space, eb, n, a, bits, &m64, inst, other, how)?;
        for (d, w) in dsts.iter().zip(vals) {
            if let Some(d) = d {
                self.write(*d, ty, w, mask)?;
            }
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(other);
        // In the optimized tier, each lane's elements in a loop inside the cached region
        // (`mem_gather::region_gather`: arrays of `float4`), then the helper.
        // (Not where every launch is proven uniform: only a fault or a cache miss gets
        // here.)
        let gather = !self.quick
            && !proven_uniform
            && matches!(space, Space::Global | Space::Generic | Space::Const);
        if gather {
            if !spilled {
                self.spill(a, 0);
            }
            self.region_gather_or_helper(space, (eb, sb, n), bits, mask, inst)?;
        } else if spilled {
            self.slow_access_spilled(space, eb, sb, n, false, mask, inst)?;
        } else {
            self.slow_access_at(space, eb, sb, n, false, addr, Some(la), mask, inst)?;
        }
        self.write_loaded(ty, sb, dsts, mask)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// `ld.shared` at one address for every lane (a shared variable at a constant
    /// offset, `a0` its window offset): when it is aligned to the access and inside the
    /// window, one scalar load per element, splat; else (or with no lane active) the
    /// helper, which reports the fault.
    fn ld_shared_uniform(
        &mut self,
        ty: Type,
        (eb, sb): (u32, u32),
        dsts: &[Option<RegId>],
        a0: Value,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let n = dsts.len();
        let len = eb as i64 * n as i64;
        // Both built here, where they dominate both paths (`write` caches the masks).
        let bits = self.mbits(mask);
        self.m64(mask);
        let any = self.b.create_block();
        let fast = self.b.create_block();
        let other = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(bits, any, &[], other, &[]);
        self.b.switch_to_block(any);
        let low = self.b.ins().band_imm_u(a0, len - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let (loc, h) = self.in_shared_window(a0, len);
        let ok = self.b.ins().band(aligned, loc);
        self.b.ins().brif(ok, fast, &[], other, &[]);
        self.b.switch_to_block(fast);
        for (e, d) in dsts.iter().enumerate() {
            let Some(d) = d else { continue };
            let x = self.load_container(h, e as u32 * eb, eb, heap_flags());
            let w = lanes::splat_scalar(&mut self.b, x);
            self.write(*d, ty, w, mask)?;
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(other);
        let la = LaneAddr::Uniform(a0);
        self.slow_access(Space::Shared, eb, sb, n, false, &la, mask, inst)?;
        self.write_loaded(ty, sb, dsts, mask)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    pub(crate) fn st(
        &mut self,
        space: Space,
        ty: Type,
        srcs: &[Operand],
        addr: &Address,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let (eb, sb) = self.mem_shape(ty, srcs.len())?;
        let n = srcs.len();
        let shape = self.addr_shape(space, addr, eb);
        if self.quick_access(space, addr, shape.0) {
            return self.st_quick(space, ty, (eb, sb), srcs, addr, mask, inst);
        }
        // A single `nan_lazy` register's NaNs are made canonical below, by path.
        let lazy = n == 1 && self.lazy_store_data(&srcs[0], ty);
        let mut data = Vec::with_capacity(n);
        self.blind_read = lazy;
        for s in srcs {
            data.push(self.read(s, ty, false));
        }
        self.blind_read = false;
        let mut data = data.into_iter().collect::<Result<Vec<_>, _>>()?;
        let la = self.lane_addrs(space, addr)?;
        // (The sanitizers' variant checks every lane's store: no shortcut.)
        let cluster = space == Space::SharedCluster;
        if let (LaneAddr::PerLane(a), (AddrShape::Uniform, Proof::Always), 1, false) =
            (&la, shape, n, self.instrument || cluster)
        {
            if lazy {
                data[0] = self.canon_now(&data[0]);
            }
            return self.st_uniform(space, (eb, sb), &data[0], a, &la, mask, inst);
        }
        // A store's fast path needs all 32 lanes active, impossible while lanes wait.
        let vectorizable = n == 1
            && matches!(la, LaneAddr::PerLane(_))
            && space != Space::Local
            && self.mode == Mode::Conv
            && !self.instrument
            && !cluster
            && !self.strided(space, addr, eb);
        if lazy {
            data[0] = if vectorizable {
                self.canon_tested(&data[0])
            } else {
                self.canon_now(&data[0])
            };
        }
        if !vectorizable {
            for (e, d) in data.iter().enumerate() {
                self.spill(d, SCRATCH_DATA + e as i32 * 32 * sb as i32);
            }
            if self.instrument {
                return self.san_access(space, eb, sb, n, true, addr, &la, mask, inst);
            }
            if space == Space::Local {
                return self.local_access(eb, sb, n, true, &la, mask, inst);
            }
            return self.st_shared_or_helper(space, (eb, sb), n, addr, &la, mask, inst);
        }
        let LaneAddr::PerLane(a) = &la else {
            return Err(JitError::Codegen("lane addresses".into()));
        };
        let cont = self.b.create_block();
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let proof = (shape.0 == AddrShape::Contiguous).then_some(shape.1);
        let entry = Entry { inst, write: true };
        // The data is read once, above: the fast path stores it from registers; the
        // region lookup spills it before its call and the paths after the call read it
        // from the scratch slot (`StoreMiss`), so no data vector lives across a call
        // (each would be spilled at its definition, on the fast path too).
        // (Shared memory has no lookup.)
        let spilled = self.b.create_block();
        let miss = (space != Space::Shared).then(|| {
            let found = self.b.create_block();
            self.b.append_block_param(found, I64);
            StoreMiss {
                data: data[0].clone(),
                at: SCRATCH_DATA,
                found,
                missing: spilled,
            }
        });
        let miss = miss.as_ref();
        match self.store_memo.remove(&inst) {
            Some((_, known)) => {
                // A load of this block found the range in place for this store: with all
                // 32 lanes active, straight to the vector store at lane 0's address.
                let bits = self.mbits(mask);
                let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
                let k = self.b.use_var(known);
                let k = self.b.ins().icmp_imm_u(IntCC::NotEqual, k, 0);
                let go = self.b.ins().band(full, k);
                let a0 = match self.affine_lane0(a) {
                    Some(x) => x,
                    None => self.b.ins().extractlane(a.v[0], 0),
                };
                let (direct, tested) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(go, direct, &[], tested, &[]);
                self.b.switch_to_block(tested);
                self.branch_fast(space, eb, a, true, entry, mask, fast, slow, proof, miss)?;
                self.b.switch_to_block(direct);
                self.b.ins().jump(fast, &[BlockArg::Value(a0)]);
            }
            None => self.branch_fast(space, eb, a, true, entry, mask, fast, slow, proof, miss)?,
        }
        self.b.switch_to_block(fast);
        let h = self.b.block_params(fast)[0];
        self.vector_store(h, eb, &data[0]);
        self.b.ins().jump(cont, &[]);
        if let Some(found) = miss.map(|m| m.found) {
            self.b.switch_to_block(found);
            let h = self.b.block_params(found)[0];
            let d = self.unspill(data[0].wide, SCRATCH_DATA);
            self.vector_store(h, eb, &d);
            self.b.ins().jump(cont, &[]);
        }
        self.b.switch_to_block(slow);
        self.spill(&data[0], SCRATCH_DATA);
        self.b.ins().jump(spilled, &[]);
        self.b.switch_to_block(spilled);
        let lanes = space == Space::Shared && !(self.quick && shape.1 == Proof::Always);
        if lanes || self.region_scatters(space) {
            let la = self.lane_addrs(space, addr)?;
            self.st_shared_or_helper(space, (eb, sb), 1, addr, &la, mask, inst)?;
        } else {
            self.slow_access_at(space, eb, sb, 1, true, addr, None, mask, inst)?;
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// Writes a load's results from the scratch data slot, where the helper and the lane
    /// loops leave them (element `e` at `SCRATCH_DATA + e × 32 × sb`), to the
    /// destination registers `dsts` in the active lanes.
    pub(super) fn write_loaded(
        &mut self,
        ty: Type,
        sb: u32,
        dsts: &[Option<RegId>],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        for (e, d) in dsts.iter().enumerate() {
            if let Some(d) = d {
                let w = self.unspill(sb == 8, SCRATCH_DATA + e as i32 * 32 * sb as i32);
                self.write(*d, ty, w, mask)?;
            }
        }
        Ok(())
    }

    /// The region-cache entry a coalesced load `inst` tests: its own, or a later
    /// store's ([`Self::later_store`]), then with the i8 variable (zero here) that the
    /// load's fast path sets for the store (`store_memo`).
    fn load_entry(
        &mut self,
        space: Space,
        eb: u32,
        addr: &Address,
        inst: InstId,
    ) -> (Entry, Option<Variable>) {
        let later = self.later_store(space, eb, addr, inst);
        let entry = Entry {
            inst: later.unwrap_or(inst),
            write: later.is_some(),
        };
        let known = later.map(|st| {
            let v = self.b.declare_var(I8);
            self.b.def_var(v, self.zero8);
            self.store_memo.insert(st, (inst, v));
            v
        });
        (entry, known)
    }

    /// The store of this IR block that a coalesced load `ld.space [addr]` of `eb`-byte
    /// elements (instruction `inst`, all lanes converged) can test the range of: the
    /// first later `st.space` of one element of `eb` bytes at the same register and
    /// offset (the same lane addresses), with no write of the register from the load on.
    /// A load whose fast path passes the range test against that store's region-cache
    /// entry (writable regions only) has tested the store's range, shape and alignment
    /// too (`store_memo`); a load from a read-only region that such a store follows
    /// takes the helper (the store faults, unless its lanes are all inactive).
    fn later_store(&self, space: Space, eb: u32, addr: &Address, inst: InstId) -> Option<InstId> {
        let AddrBase::Reg(r) = addr.base else {
            return None;
        };
        if !matches!(space, Space::Global | Space::Generic) || self.mode != Mode::Conv {
            return None;
        }
        let insts = &self
            .f
            .blocks
            .get(crate::ir::BlockId(self.cur_block as u32))?
            .insts;
        let at = insts.iter().position(|i| i.id == inst)?;
        if insts[at].kind.defs().contains(&r) {
            return None;
        }
        for i in &insts[at + 1..] {
            if let InstKind::St {
                space: s,
                ty,
                srcs,
                addr: a,
            } = &i.kind
            {
                if *s == space && a == addr && ty.bytes() == eb && srcs.len() == 1 {
                    return Some(i.id);
                }
            }
            if i.kind.defs().contains(&r) {
                return None;
            }
        }
        None
    }

    /// Whether a store in `space` that is not one whole-warp vector store takes the lane
    /// loop of `mem_gather::region_scatter` before the helper: global and generic
    /// stores in the optimized tier (partial masks, scattered lanes).
    fn region_scatters(&self, space: Space) -> bool {
        !self.quick && matches!(space, Space::Global | Space::Generic)
    }

    /// A store that is not one whole-warp vector store, its data in the scratch data
    /// slot, not instrumented: in shared memory (one element per lane), a masked
    /// read-modify-write of 32 consecutive elements where the lanes are known
    /// consecutive, or the lane loop of `mem_gather` when every active lane is valid;
    /// in global and generic memory ([`Self::region_scatters`]), the lane loop inside
    /// the instruction's cached region; else the helper.
    #[allow(clippy::too_many_arguments)]
    fn st_shared_or_helper(
        &mut self,
        space: Space,
        (eb, sb): (u32, u32),
        n: usize,
        addr: &Address,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let elsewhere = self.region_scatters(space);
        let lanes = (space == Space::Shared && n == 1) || elsewhere;
        if !lanes || self.instrument {
            return self.slow_access_at(space, eb, sb, n, true, addr, Some(la), mask, inst);
        }
        let a = match la {
            LaneAddr::PerLane(a) => a.clone(),
            LaneAddr::Uniform(x) => {
                let s = self.b.ins().splat(I64X2, *x);
                WarpValue::wide(vec![s; N64])
            }
        };
        let bits = self.mbits(mask);
        let helper = self.b.create_block();
        let done = self.b.create_block();
        // Consecutive lanes: one masked read-modify-write when the warp's 32 elements are
        // in the window (`mem_gather::shared_masked_store`; not in the quick tier, which
        // compiles less).
        let proven = self.addr_shape(space, addr, eb) == (AddrShape::Contiguous, Proof::Always);
        let a0 = match eb {
            4 | 8 if !self.quick && !elsewhere => self.contiguous_lane0(eb, &a, bits, proven),
            _ => None,
        };
        if let Some(a0) = a0 {
            let scatter = self.b.create_block();
            let stored = self.shared_masked_store(eb, a0, mask, scatter);
            self.b.switch_to_block(stored);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(scatter);
        }
        if elsewhere {
            self.region_scatter((eb, sb, n), &a, bits, inst, helper);
        } else {
            self.shared_scatter((eb, sb), &a, bits, helper);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(helper);
        // (The scatters' checks spilled the lane addresses before leaving.)
        self.slow_access_spilled(space, eb, sb, n, true, mask, inst)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// One `eb`-byte element at host address `h + off`, as its container (i32,
    /// zero-extended, or i64).
    pub(super) fn load_container(
        &mut self,
        h: Value,
        off: u32,
        eb: u32,
        fl: MemFlagsData,
    ) -> Value {
        let sty = match eb {
            1 => I8,
            2 => I16,
            4 => I32,
            _ => I64,
        };
        let x = self.b.ins().load(sty, fl, h, off as i32);
        if eb < 4 {
            self.b.ins().uextend(I32, x)
        } else {
            x
        }
    }

    /// Whether the per-lane paths of an access at `[addr]` spill its lane addresses
    /// once, up front, for the helper to reuse: not through an affine address register
    /// (its helper call passes lane 0's address and the stride; its first active lane's
    /// address is computed, not loaded).
    pub(super) fn spill_first(&self, addr: &Address) -> bool {
        !matches!(addr.base, AddrBase::Reg(r) if self.avar(r).is_some())
    }

    /// The 64-bit value of the lowest lane of `bits` in `a` (16 × i64x2).
    pub(super) fn first_lane_u64(&mut self, a: &WarpValue, bits: Value) -> Value {
        if let Some(x) = self.affine_first_lane(a, bits) {
            return x;
        }
        self.spill(a, 0);
        self.first_lane_spilled(bits)
    }

    /// The 64-bit lane address of the lowest lane of `bits` in the scratch address slot.
    pub(super) fn first_lane_spilled(&mut self, bits: Value) -> Value {
        let lane = self.b.ins().ctz(bits);
        let lane = self.b.ins().uextend(I64, lane);
        let off = self.b.ins().ishl_imm_u(lane, 3);
        let base = self.scratch_addr(0);
        let p = self.b.ins().iadd(base, off);
        self.b
            .ins()
            .load(I64, MemFlagsData::new().with_notrap(), p, 0)
    }

    /// `cvta{.to}.space.size d, a`.
    pub(crate) fn cvta(
        &mut self,
        to_generic: bool,
        space: Space,
        ty: Type,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let v = self.read(src, ty, false)?;
        let base = match space {
            Space::Shared => {
                let b = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
                if v.wide {
                    lanes::splat_scalar(&mut self.b, b)
                } else {
                    let b32 = self.b.ins().ireduce(I32, b);
                    lanes::splat_scalar(&mut self.b, b32)
                }
            }
            Space::Local => {
                let lb = self.local_bases();
                if v.wide {
                    lb
                } else {
                    lanes::narrow_w(&mut self.b, &lb)
                }
            }
            _ => return self.write(dst, ty, v, mask),
        };
        let b = &mut self.b;
        let r = lanes::map2(&v, &base, |x, y| {
            if to_generic {
                b.ins().iadd(x, y)
            } else {
                b.ins().isub(x, y)
            }
        });
        self.write(dst, ty, r, mask)
    }
}

impl FuncTranslator<'_> {
    /// `isspacep.space p, a+offset`.
    pub(crate) fn isspacep(
        &mut self,
        space: Space,
        dst: RegId,
        src: &Operand,
        offset: i64,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let code = ISSPACEP_SPACES
            .iter()
            .position(|&s| s == space)
            .ok_or_else(|| self.internal(format!("isspacep in {}", space.name())))?;
        let a = self.read(src, Type::U64, false)?;
        let a = if offset != 0 {
            let o = lanes::splat64(&mut self.b, offset as u64);
            let b = &mut self.b;
            lanes::map1(&a, |&x| b.ins().iadd(x, o))
        } else {
            a
        };
        self.spill(&a, 0);
        let bits = self.mbits(mask);
        let p = self.scratch_addr(0);
        let code = lanes::iconst32(&mut self.b, code as u32);
        let h = self.helper(Helper::Isspacep)?;
        let call = self.b.ins().call(h, &[self.ctx, code, bits, p]);
        let r = self.b.inst_results(call)[0];
        let v = lanes::mask_from_bits(&mut self.b, r);
        self.write_pred(dst, &v, mask)
    }
}
