//! Divergent dispatch by lanes (issue 14, item 7): a loop that sends the warp's lanes
//! many ways (a `brx.idx` or a tree of divergent branches: an interpreter's `switch`)
//! runs lane by lane, as scalar code, instead of warp-wide.
//!
//! Profile (the `bytecode` benchmark: every thread interprets its own bytecode, one
//! 16-way `brx.idx` per step): after a few steps the 32 lanes wait at ~10 different
//! case blocks, and the dispatcher runs each of them for 2–3 lanes at the cost of 32
//! (vector loads, merges and stores of 8 × i32x4 per instruction, the dispatcher's
//! minimum over 8 vectors and its mask expansion per block): ~30 ns per step, against
//! 1.4 on POCL, which runs each work-item's loop as scalar code. A divergence stack or
//! a cheaper scheduler would still pay the 32-lane width for each case block; running
//! the lanes one after another makes each step a few scalar instructions.
//!
//! Which loops: [`crate::jit::translate::serial_region`] (lane-private, scalar-lowerable, one entry,
//! exits above the loop). At the loop header, both variants first try the serial form:
//! - it applies when no lane waits at a block numbered at or below the loop's last
//!   block (in the convergent variant none waits anywhere) and, if the loop stores to
//!   local memory, the local window is at most [`LOCAL_SNAP`] bytes (a multiple of 8),
//!   and, if a terminator of the loop asserts `.uni`, `--check-uniform` is off (the
//!   warp-wide path checks it);
//! - it saves the registers the loop writes that are live at its exits (their whole
//!   vectors), the active lanes' local windows, and the lanes' pending blocks (`next`)
//!   to stack slots;
//! - for each active lane, lowest first: loads that lane's values of the loop's
//!   registers live at the header into Cranelift variables (an affine register's: its
//!   base plus lane times stride) and its local window's base, runs the loop's blocks
//!   translated as scalar code (`lower::scalar`'s lowerings with every loop register
//!   as a scalar, per-lane `ld.local`/`ld.global`/`st.local` with the checks of the
//!   warp-wide path), and when the lane leaves the loop stores the written registers
//!   live at the exits back to its lanes of the file (not the loop's temporaries, which
//!   would otherwise stay live across the whole loop) and records the exit block as its
//!   pending block;
//! - then the dispatcher runs the lowest pending block, as after any divergent branch:
//!   the lanes reconverge at the loop's exits exactly as they would warp-wide.
//!
//! Anything the scalar form does not handle on its fast path (an access that fails a
//! check or misses the region cache and the lookup, a `brx.idx` index out of range, an
//! instruction without a scalar lowering) restores the saved registers and local
//! windows and runs the loop warp-wide from its header with the original lanes, so
//! faults, and which thread they name, are those of the warp-wide path. The watchdog's
//! stop check stays at every loop header of the scalar form.
//!
//! Submodules: `branch` (branches on an `and.pred`/`or.pred`), `global` (global loads'
//! region checks), `indexed` (global loads at `base + s·x` checked by their index),
//! `local` (local accesses' checks, some hoisted to the lane's start),
//! `switch` (compare trees as one jump table), `thread` (per-target copies of the
//! blocks back to a `brx.idx`: threaded dispatch).

use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::cfg;
use crate::ir::analysis::liveness::{inst_effect, term_effect, Liveness};
use crate::ir::{
    AddrBase, Address, BlockId, Idx, Inst, InstId, InstKind, Operand, RegClass, RegId,
};
use crate::ir::{Space, Terminator, Type};
use crate::jit::translate::lanes::{self, N32};
use crate::jit::translate::serial_region::Region;
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{
    Block, BlockArg, InstBuilder, JumpTableData, MemFlagsData, StackSlot, StackSlotData,
    StackSlotKind, Value,
};
use cranelift_frontend::Variable;
use std::collections::HashMap;
use std::mem::offset_of;

/// The largest local window (bytes per lane) saved for a loop that stores to local
/// memory; a larger one runs warp-wide.
pub(crate) const LOCAL_SNAP: u32 = 256;

mod branch;
mod global;
mod indexed;
mod local;
mod switch;
mod thread;

/// The translator's state for one scalar form of a loop.
struct Lanes {
    /// The lanes still to run (i32 bits).
    todo: Variable,
    /// The lane running (i64).
    lane: Variable,
    /// The scalar form of each block of the loop, by block number.
    blocks: HashMap<usize, Block>,
    /// Blocks outside the loop: a block that records the lane's exit there.
    exits: HashMap<usize, Block>,
    /// Stores the lane's registers and records its exit block (an i32 parameter).
    exit: Block,
    /// Restores the saved state and runs the loop warp-wide.
    bail: Block,
    /// Whether some instruction had no scalar lowering (the form always bails).
    failed: bool,
    /// The launch's stop flag's address (i64), loaded once at the setup.
    stop: Variable,
    /// Per `ld.global` of the loop: its region-cache entry `[lo, hi)` as `(base, n)`
    /// (i64s) for a one-compare check ([`FuncTranslator::serial_global`]): `base` =
    /// `lo` rounded up to the access size `2^k`, `n` = `((hi − 2^k − base) >> k) + 1`
    /// (0, which no address passes, for an entry too small): loaded at the setup and
    /// again after each successful region lookup, the only code that changes the entry
    /// while the scalar form runs.
    globals: HashMap<InstId, (Variable, Variable)>,
    /// The global loads at `b + s·x` (`indexed`): checked by their index instead.
    indexed: HashMap<InstId, indexed::Indexed>,
    /// The largest local access of the loop (bytes; 0: none).
    local_max: i64,
    /// Per local access size `2^k` of the loop: `(local_size − 2^k) >> k` (i64), set at
    /// each lane's start (see [`FuncTranslator::serial_local`]).
    lims: [Option<Variable>; 4],
    /// The stop flag's address lives in this stack slot, at these offsets: set at the
    /// setup and loaded at each use (each loop header). The other values that stay the
    /// same while a lane runs (the local window's base and limits, the global loads'
    /// cached ranges, the registers the loop reads but never writes) are variables,
    /// live across the region lookup's call (not stored and reloaded around it, see
    /// [`FuncTranslator::serial_kept`]), so the register allocator keeps the hot ones
    /// in registers and spills the rest. Session 16 kept them all in this slot (their
    /// store and reload around the call made the loop's counters spill, a
    /// store-to-load chain per step); with them out of it, `bytecode` took 0.88× the
    /// time per step (the stop flag's address as a variable: 0.91×, the pressure).
    mem: StackSlot,
    mem_off: Vec<(Variable, i32)>,
    /// The function's liveness (which registers the region lookup's call keeps).
    live: Liveness,
    /// The IR block and index of the instruction being translated.
    at: (BlockId, usize),
    /// The local accesses checked once per lane, at its start (`local`).
    bounds: local::LocalBounds,
    /// The per-target copies of the dispatch blocks (`thread`).
    threads: thread::Threads,
}

/// Stack slots of one loop's scalar form: the written registers' vectors, the active
/// lanes' local windows, and the pending blocks of the 32 lanes.
struct Slots {
    regs: StackSlot,
    local: Option<StackSlot>,
    next: StackSlot,
    /// [`Lanes::mem`].
    mem: StackSlot,
    /// The integer registers the loop reads and never writes: warp-wide scalars and
    /// registers live at the header.
    invariant: Vec<RegId>,
}

impl FuncTranslator<'_> {
    /// At the start of IR block `h`'s variant (the current Cranelift block, empty):
    /// when `h` heads a serial region, the scalar form and the test that picks it;
    /// leaves the builder in the block that runs `h` warp-wide.
    pub(crate) fn serial_driver(&mut self, h: BlockId) -> Result<(), JitError> {
        let Some(region) = self.serial.regions.get(h).cloned().flatten() else {
            return Ok(());
        };
        let cb = self
            .b
            .current_block()
            .ok_or_else(|| JitError::Codegen("serial region outside a block".into()))?;
        for &r in &region.regs {
            self.note_read(r);
        }
        let vec_body = self.b.create_block();
        let slots = self.serial_slots(&region);
        let recording = self.rf.recording.take();
        let mode = self.mode;
        let saved_vars = self.sregs.vars.clone();
        let saved_guard = (self.sregs.guard, self.sregs.guard_val);
        let res = self.serial_form(&region, h, mode, vec_body, &slots);
        self.rf.recording = recording;
        self.mode = mode;
        self.serial.invariant.clear();
        self.sregs.vars = saved_vars;
        (self.sregs.guard, self.sregs.guard_val) = saved_guard;
        let setup = res?;
        self.b.switch_to_block(cb);
        match setup {
            Some(setup) => {
                let ok = self.serial_applies(&region, mode);
                self.b.ins().brif(ok, setup, &[], vec_body, &[]);
            }
            None => {
                self.b.ins().jump(vec_body, &[]);
            }
        }
        self.b.switch_to_block(vec_body);
        Ok(())
    }

    fn serial_slots(&mut self, region: &Region) -> Slots {
        let bytes: i32 = region.stores.iter().map(|&r| self.reg_slot(r).2).sum();
        let invariant = self.serial_invariants(region);
        // The stop flag.
        let mem_bytes = 8;
        let mut slot = |n: u32| {
            self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                n.max(16),
                4,
            ))
        };
        Slots {
            regs: slot(bytes as u32),
            local: region
                .local_store
                .then(|| slot(LOCAL_SNAP * N32 as u32 * 4)),
            next: slot(4 * 32),
            mem: slot(mem_bytes),
            invariant,
        }
    }

    /// The integer registers that loop `region` reads and never writes and that are
    /// either warp-wide scalars or live at its header ([`Slots::invariant`]).
    fn serial_invariants(&self, region: &Region) -> Vec<RegId> {
        let mut written = std::collections::HashSet::new();
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if !region.inside.get(id.index()).copied().unwrap_or(false) {
                continue;
            }
            for i in &blk.insts {
                written.extend(inst_effect(self.f, i).defs);
            }
            written.extend(term_effect(self.f, &blk.term).defs);
        }
        region
            .regs
            .iter()
            .copied()
            .filter(|r| !written.contains(r))
            .filter(|&r| {
                self.f
                    .regs
                    .get(r)
                    .is_some_and(|i| matches!(i.ty.class(), RegClass::R32 | RegClass::R64))
            })
            .filter(|&r| self.svar(r).is_some() || region.loads.contains(&r))
            .collect()
    }

    /// Whether the scalar form may run now (an i8; see the module doc).
    fn serial_applies(&mut self, region: &Region, mode: Mode) -> Value {
        let mut ok = self.b.ins().iconst(cranelift_codegen::ir::types::I8, 1);
        if mode == Mode::Div {
            // The active lanes' entries are `u32::MAX` (the dispatcher set them).
            let mn = self.lowest_pending_block();
            ok = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, mn, region.last as i64);
        }
        if region.uni {
            let flag = self.load_ctx(I32, offset_of!(WarpCtx, check_uniform), true);
            let off = self.b.ins().icmp_imm_u(IntCC::Equal, flag, 0);
            ok = self.b.ins().band(ok, off);
        }
        if region.local_store {
            let size = self.load_ctx(I64, offset_of!(WarpCtx, local_size), true);
            let small =
                self.b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, size, LOCAL_SNAP as i64);
            let low = self.b.ins().band_imm_u(size, 7);
            let even = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            let fits = self.b.ins().band(small, even);
            ok = self.b.ins().band(ok, fits);
        }
        ok
    }

    /// Builds the scalar form of `region` for the variant `mode` of its header `h`:
    /// returns its setup block, or `None` when some instruction has no scalar lowering.
    fn serial_form(
        &mut self,
        region: &Region,
        h: BlockId,
        mode: Mode,
        vec_body: Block,
        slots: &Slots,
    ) -> Result<Option<Block>, JitError> {
        // Every register of the loop that is not a warp-wide scalar becomes a variable.
        let mut vars: Vec<(RegId, Variable)> = Vec::new();
        for &r in &region.regs {
            if self.svar(r).is_some() {
                continue;
            }
            let ty = match self.reg_info(r)?.ty.class() {
                RegClass::R64 => I64,
                RegClass::R32 | RegClass::Pred => I32,
                RegClass::R128 => return Ok(None),
            };
            let v = self.b.declare_var(ty);
            if let Some(s) = self.sregs.vars.get_mut(r) {
                *s = Some(v);
            }
            vars.push((r, v));
        }
        self.mode = Mode::Conv;
        let mut st = Lanes {
            todo: self.b.declare_var(I32),
            lane: self.b.declare_var(I64),
            blocks: HashMap::new(),
            exits: HashMap::new(),
            exit: self.b.create_block(),
            bail: self.b.create_block(),
            failed: false,
            stop: self.b.declare_var(I64),
            globals: HashMap::new(),
            indexed: HashMap::new(),
            local_max: 0,
            lims: [None; 4],
            mem: slots.mem,
            mem_off: Vec::new(),
            live: Liveness::of(self.f),
            at: (h, 0),
            bounds: self.serial_local_bounds(region),
            threads: thread::Threads::default(),
        };
        self.serial_accesses(region, &mut st);
        self.serial.lane = Some(st.lane);
        let lb = self.b.declare_var(I64);
        self.serial.local = Some((lb, self.b.declare_var(I64)));
        st.mem_off = vec![(st.stop, 0)];
        self.serial.invariant = slots.invariant.iter().copied().collect();
        self.b.append_block_param(st.exit, I32);
        for (i, &inside) in region.inside.iter().enumerate() {
            if inside {
                st.blocks.insert(i, self.b.create_block());
            }
        }
        // A block per exit that records the lane's exit there.
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if !st.blocks.contains_key(&id.index()) {
                continue;
            }
            for t in blk.term.successors() {
                if st.blocks.contains_key(&t.index()) || st.exits.contains_key(&t.index()) {
                    continue;
                }
                let b = self.b.create_block();
                // Out of line (once per lane): a latch's branch to it is one `jae`,
                // with the register moves of its edge out of the loop's code.
                self.b.set_cold_block(b);
                self.b.switch_to_block(b);
                let e = lanes::iconst32(&mut self.b, t.0);
                self.b.ins().jump(st.exit, &[BlockArg::Value(e)]);
                st.exits.insert(t.index(), b);
            }
        }
        st.threads = self.serial_threads(region);
        let headers = cfg::loop_headers(self.f);
        for (id, _) in self.f.blocks.iter_enumerated() {
            let Some(&sb) = st.blocks.get(&id.index()) else {
                continue;
            };
            st.threads.cur = st.threads.copy_of.get(&id.index()).copied();
            self.serial_block(id, sb, headers[id], &mut st)?;
        }
        for k in 0..st.threads.copy_of.len() {
            for d in st.threads.dup.clone() {
                let Some(&sb) = st.threads.blocks.get(&(k, d)) else {
                    continue;
                };
                st.threads.cur = Some(k);
                let id = BlockId(d as u32);
                self.serial_block(id, sb, headers[id], &mut st)?;
            }
        }
        st.threads.cur = None;
        if st.failed {
            // Unreachable: give the blocks made so far a terminator each.
            for b in [st.exit, st.bail] {
                self.b.switch_to_block(b);
                self.b.ins().jump(vec_body, &[]);
            }
            return Ok(None);
        }
        let first = st.blocks.get(&h.index()).copied().unwrap_or(st.bail);
        self.serial_lanes(region, mode, slots, &st, &vars, first, vec_body)
            .map(Some)
    }

    /// IR block `id` of the loop as scalar code in Cranelift block `sb` (`header`: a
    /// loop header, which checks the launch's stop flag).
    fn serial_block(
        &mut self,
        id: BlockId,
        sb: Block,
        header: bool,
        st: &mut Lanes,
    ) -> Result<(), JitError> {
        let f = self.f;
        let blk = &f.blocks[id];
        self.b.switch_to_block(sb);
        if header {
            let flag = self.lane_get(st, st.stop);
            self.stop_check_at(blk, flag)?;
        }
        let sunk = st.threads.sink.clone();
        if let Some((b, ks)) = &sunk {
            // A target of the `brx.idx` block: that block's sunk instructions first.
            if st.threads.copy_of.contains_key(&id.index()) {
                let bid = BlockId(*b as u32);
                for &k in ks {
                    st.at = (bid, k);
                    self.serial_inst_or_bail(&f.blocks[bid].insts[k], st)?;
                }
            }
        }
        for (k, inst) in blk.insts.iter().enumerate() {
            if let Some((b, ks)) = &sunk {
                if *b == id.index() && ks.contains(&k) {
                    continue;
                }
            }
            st.at = (id, k);
            self.serial_inst_or_bail(inst, st)?;
        }
        st.at = (id, blk.insts.len());
        self.serial_term(&blk.term, st)
    }

    /// `inst` as scalar code; where it has no scalar form, the lane bails out (the
    /// form is then unreachable: [`Lanes::failed`]).
    fn serial_inst_or_bail(&mut self, inst: &Inst, st: &mut Lanes) -> Result<(), JitError> {
        if !self.serial_inst(inst, st)? {
            st.failed = true;
            self.b.ins().jump(st.bail, &[]);
            let dead = self.b.create_block();
            self.b.switch_to_block(dead);
        }
        Ok(())
    }

    /// The setup (saves, then the loop over the lanes), the start of each lane (its
    /// registers into `vars`, then `first`), its exit, the end (back to the dispatcher)
    /// and the bail-out of a scalar form; returns the setup block.
    #[allow(clippy::too_many_arguments)]
    fn serial_lanes(
        &mut self,
        region: &Region,
        mode: Mode,
        slots: &Slots,
        st: &Lanes,
        vars: &[(RegId, Variable)],
        first: Block,
        vec_body: Block,
    ) -> Result<Block, JitError> {
        let setup = self.b.create_block();
        let lane_loop = self.b.create_block();
        let done = self.b.create_block();
        // Setup: save, then run the lanes.
        self.b.switch_to_block(setup);
        let bits = self.b.use_var(self.active_bits);
        let fl = MemFlagsData::new().with_notrap();
        let pn = self.b.ins().stack_addr(I64, slots.next, 0);
        for k in 0..N32 {
            let v = match mode {
                Mode::Div => self.b.use_var(self.next[k]),
                Mode::Conv => lanes::splat32(&mut self.b, u32::MAX),
            };
            self.b.ins().store(fl, v, pn, 16 * k as i32);
        }
        self.serial_save(region, slots, bits, true)?;
        let stop = self.load_ctx(I64, offset_of!(WarpCtx, stop), true);
        self.lane_set(st, st.stop, stop);
        let mut globals: Vec<_> = st.globals.iter().map(|(&i, &v)| (i, v)).collect();
        globals.sort_by_key(|g| g.0 .0);
        for (inst, (base, n)) in globals {
            let eb = self.global_size(inst);
            self.load_region_vars(st, inst, eb, base, n);
        }
        self.b.def_var(st.todo, bits);
        self.b.ins().jump(lane_loop, &[]);
        // The loop over the lanes.
        self.b.switch_to_block(lane_loop);
        let m = self.b.use_var(st.todo);
        let start = self.b.create_block();
        self.b.ins().brif(m, start, &[], done, &[]);
        self.b.switch_to_block(start);
        let l = self.b.ins().ctz(m);
        let l = self.b.ins().uextend(I64, l);
        self.b.def_var(st.lane, l);
        if let Some((lb, ls)) = self.serial.local {
            let fl = MemFlagsData::new().with_notrap();
            let l8 = self.b.ins().ishl_imm_u(l, 3);
            let cb = self.b.ins().iadd(self.ctx, l8);
            let off = offset_of!(WarpCtx, local_base) as i32;
            let base = self.b.ins().load(I64, fl, cb, off);
            self.lane_set(st, lb, base);
            let size = self.load_ctx(I64, offset_of!(WarpCtx, local_size), true);
            self.b.def_var(ls, size);
            self.lane_local_limits(st, base, size)?;
        }
        for &(r, v) in vars {
            if !region.loads.contains(&r) {
                continue;
            }
            let x = match self.avar(r) {
                // An affine register: base + lane × stride, wrapping in its width.
                Some((bv, stride)) => {
                    let base = self.b.use_var(bv);
                    let ls = self.b.ins().imul_imm_u(l, stride as i64);
                    let ls = match self.b.func.dfg.value_type(base) {
                        I64 => ls,
                        _ => self.b.ins().ireduce(I32, ls),
                    };
                    self.b.ins().iadd(base, ls)
                }
                None => {
                    let (a, off, fl, ty) = self.lane_slot(r, l)?;
                    self.b.ins().load(ty, fl, a, off)
                }
            };
            self.b.def_var(v, x);
        }
        if let Some((_, ls)) = self.serial.local {
            let size = self.b.use_var(ls);
            self.lane_bound_checks(st, size)?;
        }
        self.lane_index_lims(st)?;
        self.b.ins().jump(first, &[]);
        // A lane leaves the loop.
        self.b.switch_to_block(st.exit);
        let e = self.b.block_params(st.exit)[0];
        let l = self.b.use_var(st.lane);
        for &r in &region.stores {
            let Some(v) = self.svar(r) else { continue };
            let (a, off, fl, _) = self.lane_slot(r, l)?;
            let x = self.b.use_var(v);
            self.b.ins().store(fl, x, a, off);
        }
        let l4 = self.b.ins().ishl_imm_u(l, 2);
        let pn = self.b.ins().stack_addr(I64, slots.next, 0);
        let pl = self.b.ins().iadd(pn, l4);
        self.b.ins().store(fl, e, pl, 0);
        let m = self.b.use_var(st.todo);
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let rest = self.b.ins().band(m, m1);
        self.b.def_var(st.todo, rest);
        self.b.ins().jump(lane_loop, &[]);
        // Every lane is done: the dispatcher runs the lowest pending block.
        self.b.switch_to_block(done);
        let pn = self.b.ins().stack_addr(I64, slots.next, 0);
        for k in 0..N32 {
            let v = self.b.ins().load(I32X4, fl, pn, 16 * k as i32);
            self.b.def_var(self.next[k], v);
        }
        self.b.ins().jump(self.dispatch, &[]);
        // Bail out: restore, then warp-wide.
        self.b.switch_to_block(st.bail);
        let bits = self.b.use_var(self.active_bits);
        self.serial_save(region, slots, bits, false)?;
        self.b.ins().jump(vec_body, &[]);
        Ok(setup)
    }

    /// The address, offset, flags and scalar type of lane `l`'s container of register
    /// `r` in the file.
    fn lane_slot(
        &mut self,
        r: RegId,
        l: Value,
    ) -> Result<(Value, i32, MemFlagsData, cranelift_codegen::ir::Type), JitError> {
        let (fl, off, _) = self.reg_slot(r);
        let wide = self.reg_info(r)?.ty.class() == RegClass::R64;
        let lw = self.b.ins().ishl_imm_u(l, if wide { 3 } else { 2 });
        let a = self.b.ins().iadd(self.rf.base(), lw);
        Ok((a, off, fl, if wide { I64 } else { I32 }))
    }

    /// Copies the written registers and the local windows of the lanes of `bits` to
    /// the slots (`save`) or back.
    fn serial_save(
        &mut self,
        region: &Region,
        slots: &Slots,
        bits: Value,
        save: bool,
    ) -> Result<(), JitError> {
        let sfl = MemFlagsData::new().with_notrap();
        let ps = self.b.ins().stack_addr(I64, slots.regs, 0);
        let base = self.rf.base();
        let mut pos = 0i32;
        for &r in &region.stores {
            let (fl, off, bytes) = self.reg_slot(r);
            for o in (0..bytes).step_by(16) {
                if save {
                    let v = self.b.ins().load(I32X4, fl, base, off + o);
                    self.b.ins().store(sfl, v, ps, pos + o);
                } else {
                    let v = self.b.ins().load(I32X4, sfl, ps, pos + o);
                    self.b.ins().store(fl, v, base, off + o);
                }
            }
            pos += bytes;
        }
        if let Some(ls) = slots.local {
            self.copy_windows(ls, bits, save);
        }
        Ok(())
    }

    /// Copies the local windows of the lanes of `bits` to slot `ls` (`save`) or back,
    /// 8 bytes at a time (the window size is a multiple of 8 here).
    fn copy_windows(&mut self, ls: StackSlot, bits: Value, save: bool) {
        let fl = MemFlagsData::new().with_notrap();
        let size = self.load_ctx(I64, offset_of!(WarpCtx, local_size), true);
        let lanes_b = self.b.create_block();
        let body = self.b.create_block();
        let inner = self.b.create_block();
        let step = self.b.create_block();
        let next = self.b.create_block();
        let after = self.b.create_block();
        self.b.append_block_param(lanes_b, I32);
        self.b.append_block_param(inner, I64);
        self.b.ins().jump(lanes_b, &[BlockArg::Value(bits)]);
        self.b.switch_to_block(lanes_b);
        let m = self.b.block_params(lanes_b)[0];
        self.b.ins().brif(m, body, &[], after, &[]);
        self.b.switch_to_block(body);
        let l = self.b.ins().ctz(m);
        let l = self.b.ins().uextend(I64, l);
        let l8 = self.b.ins().ishl_imm_u(l, 3);
        let cb = self.b.ins().iadd(self.ctx, l8);
        let lb = self
            .b
            .ins()
            .load(I64, fl, cb, offset_of!(WarpCtx, local_base) as i32);
        let ps = self.b.ins().stack_addr(I64, ls, 0);
        let lo = self.b.ins().imul_imm_u(l, LOCAL_SNAP as i64);
        let sb = self.b.ins().iadd(ps, lo);
        let z = self.b.ins().iconst(I64, 0);
        self.b.ins().jump(inner, &[BlockArg::Value(z)]);
        self.b.switch_to_block(inner);
        let o = self.b.block_params(inner)[0];
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, o, size);
        self.b.ins().brif(more, step, &[], next, &[]);
        self.b.switch_to_block(step);
        let hp = self.b.ins().iadd(lb, o);
        let sp = self.b.ins().iadd(sb, o);
        let (from, to) = if save { (hp, sp) } else { (sp, hp) };
        let v = self.b.ins().load(I64, fl, from, 0);
        self.b.ins().store(fl, v, to, 0);
        let o8 = self.b.ins().iadd_imm_s(o, 8);
        self.b.ins().jump(inner, &[BlockArg::Value(o8)]);
        self.b.switch_to_block(next);
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let rest = self.b.ins().band(m, m1);
        self.b.ins().jump(lanes_b, &[BlockArg::Value(rest)]);
        self.b.switch_to_block(after);
    }

    /// One instruction of the scalar form; `false`: no scalar lowering (the caller
    /// bails out).
    fn serial_inst(&mut self, i: &Inst, st: &Lanes) -> Result<bool, JitError> {
        self.cur = Some(i.id);
        self.set_guard(i.guard, &i.kind);
        let (space, ty, addr, dst, src) = match &i.kind {
            InstKind::Ld {
                space,
                ty,
                dsts,
                addr,
            } if dsts.len() == 1 => (*space, *ty, addr, dsts[0], None),
            InstKind::St {
                space,
                ty,
                srcs,
                addr,
            } if srcs.len() == 1 && *space == Space::Local => {
                (*space, *ty, addr, None, Some(srcs[0]))
            }
            InstKind::Ld { .. } | InstKind::St { .. } => return Ok(false),
            _ => return self.try_scalar(i),
        };
        if !matches!(space, Space::Local | Space::Global) || !matches!(ty.bits(), 8 | 16 | 32 | 64)
        {
            return Ok(false);
        }
        // Everything that can fail first, then the control flow.
        let guard = match i.guard {
            Some(g) => match self.svar(g.pred) {
                Some(pv) => Some((pv, g.negate)),
                None => return Ok(false),
            },
            None => None,
        };
        let Some(a) = self.serial_addr(addr)? else {
            return Ok(false);
        };
        let x = match src {
            Some(s) => match self.sread(&s, ty, false)? {
                Some(x) => Some(x),
                None => return Ok(false),
            },
            None => None,
        };
        // A guarded access runs only where the guard holds.
        let cont = self.b.create_block();
        if let Some((pv, negate)) = guard {
            let p = self.b.use_var(pv);
            let p = self.pred_cond(p);
            let go = self.b.create_block();
            let (t, f) = if negate { (cont, go) } else { (go, cont) };
            self.b.ins().brif(p, t, &[], f, &[]);
            self.b.switch_to_block(go);
            self.set_guard(None, &i.kind);
        }
        let eb = (ty.bits() / 8) as i64;
        let h = match space {
            Space::Local if st.bounds.proven.contains(&i.id) => match self.serial.local {
                Some((lb, _)) => {
                    let base = self.lane_get(st, lb);
                    self.b.ins().iadd(base, a)
                }
                None => self.serial_local(a, eb, st),
            },
            Space::Local => self.serial_local(a, eb, st),
            _ => self.serial_global(a, eb, i.id, st)?,
        };
        let fl = MemFlagsData::new().with_notrap();
        let cty = if eb == 8 { I64 } else { I32 };
        match x {
            Some(x) => {
                match eb {
                    1 => self.b.ins().istore8(fl, x, h, 0),
                    2 => self.b.ins().istore16(fl, x, h, 0),
                    _ => self.b.ins().store(fl, x, h, 0),
                };
            }
            None => {
                let x = match eb {
                    1 => self.b.ins().uload8(cty, fl, h, 0),
                    2 => self.b.ins().uload16(cty, fl, h, 0),
                    _ => self.b.ins().load(cty, fl, h, 0),
                };
                if let Some(d) = dst {
                    self.scalar_write(d, ty, x)?;
                }
            }
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        Ok(true)
    }

    /// The lane's address of `addr` (an i64), if its register has a scalar form.
    fn serial_addr(&mut self, addr: &Address) -> Result<Option<Value>, JitError> {
        let AddrBase::Reg(r) = addr.base else {
            return Ok(None);
        };
        let wide = self.reg_info(r)?.ty.bits() == 64;
        let ty = if wide { Type::U64 } else { Type::U32 };
        let Some(x) = self.sread(&Operand::Reg(r), ty, false)? else {
            return Ok(None);
        };
        let x = if wide {
            x
        } else {
            self.b.ins().uextend(I64, x)
        };
        Ok(Some(if addr.offset != 0 {
            self.b.ins().iadd_imm_s(x, addr.offset)
        } else {
            x
        }))
    }

    /// Finds the loop's global loads and local access sizes, and declares their
    /// variables ([`Lanes::globals`], [`Lanes::lims`]).
    fn serial_accesses(&mut self, region: &Region, st: &mut Lanes) {
        let inside = |id: BlockId| region.inside.get(id.index()).copied().unwrap_or(false);
        let mut written = std::collections::HashSet::new();
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if inside(id) {
                for i in &blk.insts {
                    written.extend(inst_effect(self.f, i).defs);
                }
                written.extend(term_effect(self.f, &blk.term).defs);
            }
        }
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if !inside(id) {
                continue;
            }
            for (k, i) in blk.insts.iter().enumerate() {
                let (space, ty) = match &i.kind {
                    InstKind::Ld { space, ty, .. } | InstKind::St { space, ty, .. } => {
                        (*space, *ty)
                    }
                    _ => continue,
                };
                let eb = (ty.bits() / 8) as i64;
                if !matches!(eb, 1 | 2 | 4 | 8) {
                    continue;
                }
                match space {
                    Space::Local => {
                        st.local_max = st.local_max.max(eb);
                        let k = eb.trailing_zeros() as usize;
                        if let Some(l) = st.lims.get_mut(k) {
                            if l.is_none() {
                                *l = Some(self.b.declare_var(I64));
                            }
                        }
                    }
                    Space::Global if matches!(i.kind, InstKind::Ld { .. }) => {
                        if let Some((x, b, off, ks)) = self.indexed_shape(region, blk, k, &written)
                        {
                            let lim = self.b.declare_var(I64);
                            let ix = indexed::Indexed {
                                x,
                                b,
                                off,
                                ks,
                                eb,
                                lim,
                            };
                            st.indexed.insert(i.id, ix);
                            continue;
                        }
                        let lo = self.b.declare_var(I64);
                        let lim = self.b.declare_var(I64);
                        st.globals.insert(i.id, (lo, lim));
                    }
                    _ => {}
                }
            }
        }
    }

    /// A terminator of the scalar form.
    fn serial_term(&mut self, t: &Terminator, st: &mut Lanes) -> Result<(), JitError> {
        match t {
            Terminator::Jump { target, .. } => {
                let tb = self.serial_target(*target, st);
                self.b.ins().jump(tb, &[]);
            }
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                ..
            } => {
                if let Some(sw) = self.serial_switch(st.at.0, st) {
                    return self.serial_switch_table(&sw, st);
                }
                let tb = self.serial_target(*taken, st);
                let nb = self.serial_target(*not_taken, st);
                if self.serial_split_branch(guard, tb, nb, st) {
                    return Ok(());
                }
                let Some(pv) = self.svar(guard.pred) else {
                    st.failed = true;
                    self.b.ins().jump(st.bail, &[]);
                    return Ok(());
                };
                let p = self.b.use_var(pv);
                let p = self.pred_cond(p);
                let (x, y) = if guard.negate { (nb, tb) } else { (tb, nb) };
                self.b.ins().brif(p, x, &[], y, &[]);
            }
            Terminator::BrxIdx {
                guard,
                index,
                targets,
                next,
                ..
            } => {
                if let Some(g) = guard {
                    let nb = self.serial_target(*next, st);
                    let Some(pv) = self.svar(g.pred) else {
                        st.failed = true;
                        self.b.ins().jump(st.bail, &[]);
                        return Ok(());
                    };
                    let p = self.b.use_var(pv);
                    let p = self.pred_cond(p);
                    let go = self.b.create_block();
                    let (x, y) = if g.negate { (nb, go) } else { (go, nb) };
                    self.b.ins().brif(p, x, &[], y, &[]);
                    self.b.switch_to_block(go);
                }
                let Some(idx) = self.sread(index, Type::U32, false)? else {
                    st.failed = true;
                    self.b.ins().jump(st.bail, &[]);
                    return Ok(());
                };
                // An index out of range takes the table's default: the bail-out.
                let mut calls = Vec::with_capacity(targets.len());
                for &t in targets {
                    let tb = self.serial_target(t, st);
                    calls.push(self.b.func.dfg.block_call(tb, &[]));
                }
                let def = self.b.func.dfg.block_call(st.bail, &[]);
                let jt = self.b.create_jump_table(JumpTableData::new(def, &calls));
                self.b.ins().br_table(idx, jt);
            }
            _ => {
                st.failed = true;
                self.b.ins().jump(st.bail, &[]);
            }
        }
        Ok(())
    }

    /// Compare tree `sw` as one jump table on its register (indices past its ends, which
    /// its mask rules out, take the bail-out).
    fn serial_switch_table(&mut self, sw: &switch::Switch, st: &mut Lanes) -> Result<(), JitError> {
        let Some(idx) = self.sread(&Operand::Reg(sw.x), Type::U32, false)? else {
            st.failed = true;
            self.b.ins().jump(st.bail, &[]);
            return Ok(());
        };
        // Per value: its end, or a block running the `mov`s on its way first (one per
        // distinct way).
        let mut calls = Vec::with_capacity(sw.targets.len());
        let mut ways: Vec<(usize, Block)> = Vec::new();
        for (k, (movs, t)) in sw.targets.iter().enumerate() {
            let tb = self.serial_target(*t, st);
            let b = if movs.is_empty() {
                tb
            } else if let Some(w) = ways.iter().find(|w| sw.targets[w.0] == sw.targets[k]) {
                w.1
            } else {
                let b = self.b.create_block();
                ways.push((k, b));
                b
            };
            calls.push(self.b.func.dfg.block_call(b, &[]));
        }
        let def = self.b.func.dfg.block_call(st.bail, &[]);
        let jt = self.b.create_jump_table(JumpTableData::new(def, &calls));
        self.b.ins().br_table(idx, jt);
        for (k, b) in ways {
            let (movs, t) = &sw.targets[k];
            self.b.switch_to_block(b);
            for &(blk, i) in movs {
                st.at = (blk, i);
                if !self.serial_inst(&self.f.blocks[blk].insts[i], st)? {
                    st.failed = true;
                    self.b.ins().jump(st.bail, &[]);
                    return Ok(());
                }
            }
            let tb = self.serial_target(*t, st);
            self.b.ins().jump(tb, &[]);
        }
        Ok(())
    }

    /// The scalar form's block for IR block `t`: its own form inside the loop, else a
    /// block that records the lane's exit to `t`.
    fn serial_target(&self, t: BlockId, st: &Lanes) -> Block {
        if let Some(b) = self.thread_target(t, st) {
            return b;
        }
        if let Some(&b) = st.blocks.get(&t.index()) {
            return b;
        }
        st.exits.get(&t.index()).copied().unwrap_or(st.bail)
    }
}
