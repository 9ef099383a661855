//! Compact forms of the memory family's non-coalesced paths (issue 14, item 8: compile
//! less): the shared-memory gather as a loop over the active lanes instead of 32
//! unrolled lane loads, and the accesses the shape analysis proves strided, which skip
//! the coalesced test that cannot pass.
//!
//! The unrolled gather was about 290 CLIF instructions per `ld.shared` (the 64-bit lane
//! masks, a 16-vector range and alignment test, and 32 extract/load/insert steps); the
//! loop is about 60. Each active lane's offset is read back from the scratch address
//! slots and checked (aligned to the element, the element inside the window) before
//! its load, as the vector test did; a failing lane leaves for the helper, which redoes
//! the whole access (nothing was written). Inactive lanes load nothing: their
//! containers are whatever the scratch data slot held (the unrolled gather gave them
//! the element at offset 0); writes merge them away, or they are dead.
//!
//! Loads elsewhere (global, generic, constant) that are neither coalesced nor at one
//! address, in the optimized tier, are the same loop (`region_gather`), each lane
//! checked against the instruction's entry of the region cache instead of the window:
//! a table lookup (`gather(x, idx)`), a row read by a column of threads, a warp whose
//! mask is partial. Before it, such a load called the checked helper (`ptxjit_access`:
//! about 10 ns per lane for its region, alignment and fault checks and the copy).
//!
//! Shared-memory stores that are not one whole-warp vector store (partial masks: the
//! `if (tid < s)` steps of a tree reduction, one lane storing a result) are the same
//! kind of loop (`shared_scatter`): every active lane is checked first, so a bad lane
//! leaves for the helper, which reports it, with nothing written; then the lanes store
//! in ascending order, as the helper does (the highest active lane wins an address
//! several lanes store to). Where the lanes' addresses are known consecutive (an affine
//! address register, or a shape the analysis proves for every launch) and the 32
//! elements from lane 0's are aligned and inside the window, such a store is instead one
//! masked read-modify-write of the 32 elements (`shared_masked_store`): the inactive
//! lanes' elements are written back unchanged, which no other thread can observe, as
//! the CTA's warps (the only users of its shared window) run one at a time on one
//! worker.

use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::shape::{Fact, Shape};
use crate::ir::{AddrBase, Address, InstId, Space};
use crate::jit::lower::mem::heap_flags;
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// Whether the shape analysis proves the lane addresses of `[addr]` (in this build's
    /// launches) to be `base + lane × stride` with a stride other than the element size
    /// `eb`: such an access is never one coalesced vector access, so the coalesced test
    /// is skipped (taking the per-lane path is always correct; it is only slower for a
    /// warp whose single active lane the test would have let through).
    pub(super) fn strided(&self, space: Space, addr: &Address, eb: u32) -> bool {
        if !matches!(addr.base, AddrBase::Reg(_)) || space == Space::Local {
            return false;
        }
        let strided = |x: Fact| matches!(x.shape, Shape::Affine(s) if s != eb as u64);
        let any = self
            .shapes
            .0
            .address(self.f, &self.shape_now.0, space, addr);
        if strided(any) {
            return true;
        }
        // Code built for launches whose `%ntid.x` is a multiple of 32 only.
        self.affine.rows
            && strided(
                self.shapes
                    .1
                    .address(self.f, &self.shape_now.1, space, addr),
            )
    }

    /// A shared-memory load of one `eb`-byte element per active lane (`bits`, nonzero)
    /// from the shared-window offsets `a`: a loop over the active lanes, each checked
    /// (aligned to `eb`, inside the window) before its load; branches to `bad` at the
    /// first lane that fails. Returns the containers (zero-extended; 8 × i32x4, or
    /// 16 × i64x2 for 8-byte elements).
    pub(super) fn shared_gather(
        &mut self,
        eb: u32,
        a: &WarpValue,
        bits: Value,
        bad: Block,
    ) -> Vec<Value> {
        let len = eb as i64;
        let done = self.b.create_block();
        let (w, check) = self.shared_lanes(a, len, bits, bad);
        let (base, lim, pa, pd) = (w.base, w.lim, w.pa, w.pd);
        let m = self.lane_loop(check, done);
        let fl = MemFlagsData::new().with_notrap();
        let (lane, lane8, o) = self.scratch_lane(pa, m);
        let fail = self.shared_lane_fails(o, lim, len);
        let ok = self.b.create_block();
        self.b.ins().brif(fail, bad, &[], ok, &[]);
        self.b.switch_to_block(ok);
        let h = self.b.ins().iadd(base, o);
        let wide = eb == 8;
        let (cty, lsb) = if wide {
            (I64, lane8)
        } else {
            (I32, self.b.ins().ishl_imm_u(lane, 2))
        };
        let hf = heap_flags();
        let x = match eb {
            1 => self.b.ins().uload8(cty, hf, h, 0),
            2 => self.b.ins().uload16(cty, hf, h, 0),
            _ => self.b.ins().load(cty, hf, h, 0),
        };
        let slot = self.b.ins().iadd(pd, lsb);
        self.b.ins().store(fl, x, slot, 0);
        self.lane_loop_next(check, m);
        self.b.switch_to_block(done);
        self.unspill(wide, SCRATCH_DATA).v
    }

    /// A load of `n` consecutive `eb`-byte elements per active lane (`bits`; `n` > 1 for
    /// `ld.v2/.v4`) outside shared memory, from the host addresses in the scratch address
    /// slot (spilled by the caller): a loop over the active lanes, each checked (aligned
    /// to the access, `n × eb` bytes, which lie inside instruction `inst`'s entry of the
    /// region cache) before its loads; branches to `bad` at the first lane that fails
    /// (the helper then redoes the whole access, reports a fault, or fills the entry for
    /// the next time). The elements go to the scratch data slot as the helper leaves
    /// them (element `e` of a lane at `SCRATCH_DATA + (e × 32 + lane) × sb`, zero-extended).
    pub(super) fn region_gather(
        &mut self,
        (eb, sb, n): (u32, u32, usize),
        bits: Value,
        inst: InstId,
        bad: Block,
    ) {
        let len = (eb as usize * n) as i64;
        let pd = self.scratch_addr(SCRATCH_DATA);
        let (head, w) = self.region_lanes(len, bits, inst, bad);
        let done = self.b.create_block();
        let m = self.lane_loop(head, done);
        let (lane, lane8, h) = self.scratch_lane(w.pa, m);
        let fail = self.region_lane_fails(h, &w, len);
        let ok = self.b.create_block();
        self.b.ins().brif(fail, bad, &[], ok, &[]);
        self.b.switch_to_block(ok);
        let (cty, lsb) = if sb == 8 {
            (I64, lane8)
        } else {
            (I32, self.b.ins().ishl_imm_u(lane, 2))
        };
        let slot = self.b.ins().iadd(pd, lsb);
        let (hf, fl) = (heap_flags(), MemFlagsData::new().with_notrap());
        for e in 0..n as i32 {
            let at = e * eb as i32;
            let x = match eb {
                1 => self.b.ins().uload8(cty, hf, h, at),
                2 => self.b.ins().uload16(cty, hf, h, at),
                _ => self.b.ins().load(cty, hf, h, at),
            };
            self.b.ins().store(fl, x, slot, e * 32 * sb as i32);
        }
        self.lane_loop_next(head, m);
        self.b.switch_to_block(done);
    }

    /// [`Self::region_gather`] of the lane addresses in the scratch address slot, then
    /// the helper (`ld`, `space`) where a lane fails; continues after both with the
    /// elements in the scratch data slot.
    pub(super) fn region_gather_or_helper(
        &mut self,
        space: Space,
        (eb, sb, n): (u32, u32, usize),
        bits: Value,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let (loaded, helper) = (self.b.create_block(), self.b.create_block());
        self.region_gather((eb, sb, n), bits, inst, helper);
        self.b.ins().jump(loaded, &[]);
        self.b.switch_to_block(helper);
        self.slow_access_spilled(space, eb, sb, n, false, mask, inst)?;
        self.b.ins().jump(loaded, &[]);
        self.b.switch_to_block(loaded);
        Ok(())
    }

    /// A store of `n` consecutive `eb`-byte elements per active lane (`bits`; `n` > 1 for
    /// `st.v2/.v4`) outside shared memory to the host addresses `a`, the data already in
    /// the scratch data slot (`sb` bytes per lane and element, as for the helper): a loop
    /// that checks every active lane (aligned to the access, `n × eb` bytes, which lie
    /// inside instruction `inst`'s entry of the region cache, which only lookups for
    /// writable regions fill for a store) and branches to `bad` at the first that
    /// fails, having written nothing; then a loop that stores the lanes in ascending
    /// order, as the helper does. Continues (nothing emitted) after the stores.
    pub(super) fn region_scatter(
        &mut self,
        (eb, sb, n): (u32, u32, usize),
        a: &WarpValue,
        bits: Value,
        inst: InstId,
        bad: Block,
    ) {
        let len = (eb as usize * n) as i64;
        self.spill(a, 0);
        // The checks.
        let pd = self.scratch_addr(SCRATCH_DATA);
        let (check, w) = self.region_lanes(len, bits, inst, bad);
        let pa = w.pa;
        let checked = self.b.create_block();
        let m = self.lane_loop(check, checked);
        let (_, _, h) = self.scratch_lane(pa, m);
        let fail = self.region_lane_fails(h, &w, len);
        self.lane_loop_next_unless(check, m, fail, bad);
        // The stores, lane by lane in ascending order.
        self.b.switch_to_block(checked);
        let store = self.lane_loop_block();
        let done = self.b.create_block();
        self.b.ins().jump(store, &[BlockArg::Value(bits)]);
        let m = self.lane_loop(store, done);
        let (lane, lane8, h) = self.scratch_lane(pa, m);
        let lsb = match sb {
            8 => lane8,
            _ => self.b.ins().ishl_imm_u(lane, 2),
        };
        let slot = self.b.ins().iadd(pd, lsb);
        let cty = if sb == 8 { I64 } else { I32 };
        let fl = MemFlagsData::new().with_notrap();
        let hf = heap_flags();
        for e in 0..n as i32 {
            let x = self.b.ins().load(cty, fl, slot, e * 32 * sb as i32);
            let at = e * eb as i32;
            match eb {
                1 => self.b.ins().istore8(hf, x, h, at),
                2 => self.b.ins().istore16(hf, x, h, at),
                _ => self.b.ins().store(hf, x, h, at),
            };
        }
        self.lane_loop_next(store, m);
        self.b.switch_to_block(done);
    }

    /// A shared-memory store of one `eb`-byte element per active lane (`bits`) to the
    /// shared-window offsets `a`, the data already in the scratch data slot (`sb` bytes
    /// per lane): a loop that checks every active lane (aligned to `eb`, inside the
    /// window) and branches to `bad` at the first that fails, having written nothing;
    /// then a loop that stores the lanes in ascending order. Continues (nothing
    /// emitted) after the stores.
    pub(super) fn shared_scatter(
        &mut self,
        (eb, sb): (u32, u32),
        a: &WarpValue,
        bits: Value,
        bad: Block,
    ) {
        let len = eb as i64;
        let fl = MemFlagsData::new().with_notrap();
        // The checks.
        let checked = self.b.create_block();
        let (w, check) = self.shared_lanes(a, len, bits, bad);
        let m = self.lane_loop(check, checked);
        let (_, _, o) = self.scratch_lane(w.pa, m);
        let fail = self.shared_lane_fails(o, w.lim, len);
        self.lane_loop_next_unless(check, m, fail, bad);
        // The stores, lane by lane in ascending order.
        self.b.switch_to_block(checked);
        let store = self.lane_loop_block();
        let done = self.b.create_block();
        self.b.ins().jump(store, &[BlockArg::Value(bits)]);
        let m = self.lane_loop(store, done);
        let (lane, lane8, o) = self.scratch_lane(w.pa, m);
        let h = self.b.ins().iadd(w.base, o);
        let lsb = match sb {
            8 => lane8,
            _ => self.b.ins().ishl_imm_u(lane, 2),
        };
        let slot = self.b.ins().iadd(w.pd, lsb);
        let cty = if sb == 8 { I64 } else { I32 };
        let x = self.b.ins().load(cty, fl, slot, 0);
        let hf = heap_flags();
        match eb {
            1 => self.b.ins().istore8(hf, x, h, 0),
            2 => self.b.ins().istore16(hf, x, h, 0),
            _ => self.b.ins().store(hf, x, h, 0),
        };
        self.lane_loop_next(store, m);
        self.b.switch_to_block(done);
    }

    /// A shared-memory store of one `eb`-byte element (4 or 8) per active lane whose lane
    /// offsets are `a0 + lane × eb` (`a0`: lane 0's offset), the data (`sb` = `eb` bytes
    /// per lane) in the scratch data slot: when the 32 elements from `a0` are aligned
    /// and inside the window, the 32 elements are loaded, the active lanes' (`mask`)
    /// replaced by the data and all stored back; else continues at `other` (nothing
    /// emitted there, nothing written). Returns the block after the stores (not
    /// switched to).
    pub(super) fn shared_masked_store(
        &mut self,
        eb: u32,
        a0: Value,
        mask: &mut Mask,
        other: Block,
    ) -> Block {
        let len = 32 * eb as i64;
        let wide = eb == 8;
        let (loc, h) = self.in_shared_window(a0, len);
        let low = self.b.ins().band_imm_u(a0, eb as i64 - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let ok = self.b.ins().band(loc, aligned);
        let rmw = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(ok, rmw, &[], other, &[]);
        self.b.switch_to_block(rmw);
        let m = if wide { self.m64(mask) } else { self.m32(mask) };
        let d = self.unspill(wide, SCRATCH_DATA);
        let hf = heap_flags();
        let vty = if wide { I64X2 } else { I32X4 };
        for (k, (&mk, &dk)) in m.iter().zip(&d.v).enumerate() {
            let old = self.b.ins().load(vty, hf, h, 16 * k as i32);
            let new = self.b.ins().bitselect(mk, dk, old);
            self.b.ins().store(hf, new, h, 16 * k as i32);
        }
        self.b.ins().jump(done, &[]);
        done
    }

    /// Lane 0's shared-window offset of a store's lane offsets `a` (`bits`: the active
    /// lanes) when they are known to be `a0 + lane × eb` in the active lanes: `a` built
    /// from an affine address register of stride `eb` (every lane), or `proven` (the
    /// shape analysis, for every launch of this code: the lowest active lane's offset
    /// minus its lane × `eb`; with no lane active, any offset, as nothing is stored).
    pub(super) fn contiguous_lane0(
        &mut self,
        eb: u32,
        a: &WarpValue,
        bits: Value,
        proven: bool,
    ) -> Option<Value> {
        if self.affine_contiguous(a, eb) {
            return Some(match self.affine_lane0(a) {
                Some(x) => x,
                None => self.b.ins().extractlane(a.v[0], 0),
            });
        }
        if !proven {
            return None;
        }
        // (With no lane active, `ctz` is 32 and the slot's next word is read: any
        // offset serves, as the masked store then writes every element back.)
        let x = self.first_lane_u64(a, bits);
        let lane = self.b.ins().ctz(bits);
        let lane = self.b.ins().uextend(I64, lane);
        let back = self.b.ins().imul_imm_u(lane, eb as i64);
        Some(self.b.ins().isub(x, back))
    }

    /// Spills the lane offsets `a` to the scratch address slot and reads the shared
    /// window for `len`-byte accesses; returns it and a lane-loop block (see
    /// [`Self::lane_loop`]), entered with the lanes `bits` where the window holds one
    /// access, else the code branches to `bad`.
    fn shared_lanes(
        &mut self,
        a: &WarpValue,
        len: i64,
        bits: Value,
        bad: Block,
    ) -> (SharedLanes, Block) {
        self.spill(a, 0);
        let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        let lim = self.b.ins().iadd_imm_s(size, -len);
        let pa = self.scratch_addr(0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let head = self.lane_loop_block();
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, len);
        self.b
            .ins()
            .brif(big, head, &[BlockArg::Value(bits)], bad, &[]);
        (SharedLanes { base, lim, pa, pd }, head)
    }

    /// Instruction `inst`'s cached region as the lane loops outside shared memory test
    /// it for `len`-byte accesses, and a lane-loop block (see [`Self::lane_loop`]),
    /// entered with the lanes `bits` where the region holds one access, else the code
    /// branches to `bad` (this ends the current block).
    fn region_lanes(
        &mut self,
        len: i64,
        bits: Value,
        inst: InstId,
        bad: Block,
    ) -> (Block, RegionLanes) {
        let (lo, hi) = self.cached_region(inst);
        // A lane's access fits when `a - lo <= (hi - lo) - len` (unsigned), with
        // `hi - lo >= len` tested once.
        let span = self.b.ins().isub(hi, lo);
        let lim = self.b.ins().iadd_imm_s(span, -len);
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, span, len);
        let pa = self.scratch_addr(0);
        let head = self.lane_loop_block();
        self.b
            .ins()
            .brif(big, head, &[BlockArg::Value(bits)], bad, &[]);
        (head, RegionLanes { lo, lim, pa })
    }

    /// Whether a `len`-byte access at host address `h` fails the region test of
    /// [`Self::region_lanes`]: outside the region or not aligned to `len`.
    fn region_lane_fails(&mut self, h: Value, w: &RegionLanes, len: i64) -> Value {
        let o = self.b.ins().isub(h, w.lo);
        let fail = self.b.ins().icmp(IntCC::UnsignedGreaterThan, o, w.lim);
        if len == 1 {
            return fail;
        }
        let low = self.b.ins().band_imm_u(h, len - 1);
        let mis = self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
        self.b.ins().bor(fail, mis)
    }

    /// A block taking the lane set (i32) still to visit: the head of a lane loop.
    fn lane_loop_block(&mut self) -> Block {
        let head = self.b.create_block();
        self.b.append_block_param(head, I32);
        head
    }

    /// Enters the lane-loop block `head`: leaves for `exit` when no lane is left, else
    /// continues in the loop's body; returns the lane set (nonzero in the body).
    fn lane_loop(&mut self, head: Block, exit: Block) -> Value {
        self.b.switch_to_block(head);
        let m = self.b.block_params(head)[0];
        let body = self.b.create_block();
        self.b.ins().brif(m, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        m
    }

    /// Ends a checking lane loop's body: to `bad` where `fail` (i8), else back to `head`
    /// without the lowest lane of `m`.
    fn lane_loop_next_unless(&mut self, head: Block, m: Value, fail: Value, bad: Block) {
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let rest = self.b.ins().band(m, m1);
        self.b
            .ins()
            .brif(fail, bad, &[], head, &[BlockArg::Value(rest)]);
    }

    /// Ends a lane loop's body: back to `head` without the lowest lane of `m`.
    fn lane_loop_next(&mut self, head: Block, m: Value) {
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let rest = self.b.ins().band(m, m1);
        self.b.ins().jump(head, &[BlockArg::Value(rest)]);
    }

    /// The lowest lane of the lane set `m` (i32, nonzero): its index (i64), the index × 8
    /// and its 64-bit address operand from the scratch address slot at `pa`.
    fn scratch_lane(&mut self, pa: Value, m: Value) -> (Value, Value, Value) {
        let lane = self.b.ins().ctz(m);
        let lane = self.b.ins().uextend(I64, lane);
        let lane8 = self.b.ins().ishl_imm_u(lane, 3);
        let sa = self.b.ins().iadd(pa, lane8);
        let fl = MemFlagsData::new().with_notrap();
        let o = self.b.ins().load(I64, fl, sa, 0);
        (lane, lane8, o)
    }

    /// Whether a `len`-byte access at shared-window offset `o` fails: past `lim` (the
    /// window's size − `len`) or not aligned to `len`.
    fn shared_lane_fails(&mut self, o: Value, lim: Value, len: i64) -> Value {
        let fail = self.b.ins().icmp(IntCC::UnsignedGreaterThan, o, lim);
        if len == 1 {
            return fail;
        }
        let low = self.b.ins().band_imm_u(o, len - 1);
        let mis = self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
        self.b.ins().bor(fail, mis)
    }
}

/// The shared window as the lane loops use it: its host base, the last offset a
/// `len`-byte access may start at, and the scratch address and data slots.
struct SharedLanes {
    base: Value,
    lim: Value,
    pa: Value,
    pd: Value,
}

/// The cached region as the lane loops outside shared memory use it: its start, the
/// last offset from it a `len`-byte access may start at, and the scratch address slot.
struct RegionLanes {
    lo: Value,
    lim: Value,
    pa: Value,
}
