//! The register file: every PTX register of a function lives in a stack slot (8 × i32x4
//! or 16 × i64x2, 16-byte aligned) that instructions load from and store to. Compared
//! with one Cranelift variable per vector, no value lives across IR blocks, which keeps
//! register allocation (most of the compile time) cheap, and the code spills less.
//!
//! Within one Cranelift block the translator reuses the values it last loaded or stored
//! for a register (the *cache*: Cranelift's own alias analysis forwards only the latest
//! store), and after an instruction whose lowering branched, in its last block (see
//! `inst_done`). Every write stores its value; after translation, the stores that no
//! load can observe are deleted (see [`RegFile::prune`]).
//!
//! The translator records, per IR block and variant, the order of register reads and
//! writes with two views of each:
//! - *IR level*: reads of the instruction's operands, and writes of unguarded
//!   instructions in the convergent variant (which write every lane) as the ends of the
//!   register's earlier value. Registers live at entry at this level are zeroed there:
//!   registers start at zero, as in the interpreter, and zeroing the whole file would
//!   cost more than small kernels do.
//! - *memory level*: loads from the file (cache misses, including the old value a
//!   merging write reads), and stores as the ends of the stored value when they run on
//!   every path through their IR instruction (in the instruction's first or last
//!   Cranelift block, not in a branch of it). A store is kept when a load may read it.

use crate::ir::analysis::liveness::RegSet;
use crate::ir::{self, Idx, IdxVec, Operand, RegClass, RegId};
use crate::jit::translate::lanes::WarpValue;
use crate::jit::translate::{grouped, lanes, FuncTranslator};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, F64X2, I32X4, I64, I64X2};
use cranelift_codegen::ir::{
    AliasRegionData, Block, Inst, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type,
    Value,
};
use cranelift_frontend::FunctionBuilder;

/// A cached value is reused by reads at most this many IR instructions after its load
/// or store (later reads load again: values kept across long stretches of straight-line
/// code make register allocation much slower and the code no faster).
const CACHE_WINDOW: u32 = 8;

/// Zeroing more bytes than this at entry runs a loop over the whole file.
const UNROLL_ZERO_BYTES: i32 = 2048;

/// A register access recorded during translation.
#[derive(Clone, Copy)]
enum RegEvent {
    /// `ir`: an operand read of the instruction; `mem`: a load from the file, by the
    /// loads `loads[first..first + n]` (`n == 0`: by code outside the translator's).
    Read {
        reg: u32,
        ir: bool,
        mem: bool,
        first: u32,
        n: u32,
    },
    /// A write with its stores `stores[first..first + n]`, made in Cranelift block `blk`.
    Write {
        reg: u32,
        ir_kill: bool,
        mem_kill: bool,
        blk: Option<Block>,
        first: u32,
        n: u32,
    },
}

/// A set of registers.
#[derive(Clone, PartialEq)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64)])
    }
    /// Every bit of the words (registers past `n` are never asked about).
    fn full(n: usize) -> Set {
        Set(vec![u64::MAX; n.div_ceil(64)])
    }
    fn has(&self, r: u32) -> bool {
        self.0[r as usize / 64] & (1 << (r % 64)) != 0
    }
    fn add(&mut self, r: u32) {
        self.0[r as usize / 64] |= 1 << (r % 64);
    }
    fn del(&mut self, r: u32) {
        self.0[r as usize / 64] &= !(1 << (r % 64));
    }
    fn union(&mut self, o: &Set) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
}

/// The effect of an event sequence on liveness: `in = gen | (out & !kill)`.
struct Transfer {
    gen: Set,
    kill: Set,
}

impl Transfer {
    /// From the first event about each register (reads: `read`, ends: `kill`).
    fn of(
        n: usize,
        evs: &[RegEvent],
        read: impl Fn(&RegEvent) -> Option<u32>,
        kill: impl Fn(&RegEvent) -> Option<u32>,
    ) -> Transfer {
        let mut seen = Set::new(n);
        let mut t = Transfer {
            gen: Set::new(n),
            kill: Set::new(n),
        };
        for e in evs {
            if let Some(r) = read(e) {
                if !seen.has(r) {
                    seen.add(r);
                    t.gen.add(r);
                }
            } else if let Some(r) = kill(e) {
                if !seen.has(r) {
                    seen.add(r);
                    t.kill.add(r);
                }
            }
        }
        t
    }

    fn apply(&self, out: &Set, into: &mut Set) {
        for (k, w) in into.0.iter_mut().enumerate() {
            *w |= self.gen.0[k] | (out.0[k] & !self.kill.0[k]);
        }
    }
}

fn ir_read(e: &RegEvent) -> Option<u32> {
    match *e {
        RegEvent::Read { reg, ir: true, .. } => Some(reg),
        _ => None,
    }
}
fn ir_kill(e: &RegEvent) -> Option<u32> {
    match *e {
        RegEvent::Write {
            reg, ir_kill: true, ..
        } => Some(reg),
        _ => None,
    }
}
fn mem_read(e: &RegEvent) -> Option<u32> {
    match *e {
        RegEvent::Read { reg, mem: true, .. } => Some(reg),
        _ => None,
    }
}
fn mem_kill(e: &RegEvent) -> Option<u32> {
    match *e {
        RegEvent::Write {
            reg,
            mem_kill: true,
            ..
        } => Some(reg),
        _ => None,
    }
}

pub(crate) struct RegFile {
    /// The file's address (a stack slot address, defined in the entry block).
    base: Value,
    flags: MemFlagsData,
    /// Per register: (byte offset, vector count, vector type).
    regs: IdxVec<RegId, (i32, usize, Type)>,
    size: i32,
    /// Per register: the block, values and instruction number of its last load or store.
    cache: IdxVec<RegId, Option<(Block, Vec<Value>, u32)>>,
    /// IR instructions translated so far.
    count: u32,
    /// Events per (variant, IR block): index `block` (convergent), `blocks + block`
    /// (divergent) or `2 × blocks + block` (the copy of an if-then body entered without
    /// the dispatcher, `control::join`).
    events: Vec<Vec<RegEvent>>,
    stores: Vec<Inst>,
    loads: Vec<Inst>,
    nblocks: usize,
    /// Per IR block: whether its join copy exists (see `events`).
    joined: Vec<bool>,
    /// Where accesses are recorded: (IR block, convergent variant); `(blocks + block,
    /// false)` records the join copy of `block` (see `events`).
    pub recording: Option<(usize, bool)>,
    /// Nesting of IR instructions being translated (calls translate argument stores
    /// and return-value loads as instructions).
    depth: u32,
    /// The block that zeroes registers at entry, filled by [`FuncTranslator::finish_regfile`].
    pub init: Block,
    /// Every value [`Self::set_base`] gave the file's address (a continuation kernel
    /// reads it per block: `control::cont`), the first included.
    bases: Vec<Value>,
}

/// Where an IR instruction's translation started: (event count, Cranelift block).
pub(crate) type InstMark = Option<(usize, Option<Block>)>;

impl RegFile {
    /// `in_ctx`: the file is the per-warp memory at `WarpCtx::cont_regs` (a kernel with
    /// barriers as continuations, `control::cont`), not a stack slot.
    pub(crate) fn new(b: &mut FunctionBuilder, f: &ir::Function, in_ctx: Option<Value>) -> RegFile {
        let mut regs = IdxVec::new();
        let mut size = 0i32;
        for r in &f.regs {
            let (n, ty) = match r.ty.class() {
                RegClass::Pred | RegClass::R32 => (lanes::N32, I32X4),
                RegClass::R64 => (lanes::N64, I64X2),
                // 128-bit registers are declared but never used by executable instructions.
                RegClass::R128 => (0, I64X2),
            };
            regs.push((size, n, ty));
            size += 16 * n as i32;
        }
        let base = match in_ctx {
            Some(ctx) => {
                let fl = MemFlagsData::new().with_notrap().with_readonly();
                let off = std::mem::offset_of!(crate::exec::ctx::WarpCtx, cont_regs) as i32;
                b.ins().load(I64, fl, ctx, off)
            }
            None => {
                let slot = b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    size.max(16) as u32,
                    4,
                ));
                b.ins().stack_addr(I64, slot, 0)
            }
        };
        let region = b.func.dfg.alias_regions.insert(AliasRegionData {
            user_id: 1,
            description: "PTX registers".into(),
        });
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_aligned()
            .with_alias_region(Some(region));
        RegFile {
            base,
            flags,
            cache: IdxVec::from_elem(None, regs.len()),
            count: 0,
            regs,
            size,
            events: vec![Vec::new(); 3 * f.blocks.len()],
            stores: Vec::new(),
            loads: Vec::new(),
            nblocks: f.blocks.len(),
            joined: vec![false; f.blocks.len()],
            recording: None,
            depth: 0,
            init: b.create_block(),
            bases: vec![base],
        }
    }

    /// The file's address from here on in the block being built (a continuation
    /// kernel's, loaded again per block: `control::cont`).
    pub(crate) fn set_base(&mut self, base: Value) {
        self.base = base;
        self.bases.push(base);
    }

    /// The file's address.
    pub(crate) fn base(&self) -> Value {
        self.base
    }

    /// Byte offset of register `r` in the file.
    pub(crate) fn offset(&self, r: RegId) -> i32 {
        self.regs.get(r).map_or(0, |x| x.0)
    }

    fn slot_events(&mut self) -> Option<&mut Vec<RegEvent>> {
        let (blk, conv) = self.recording?;
        let i = if conv { blk } else { self.nblocks + blk };
        self.events.get_mut(i)
    }

    /// Records the accesses that follow in the join copy of IR block `blk`.
    pub(crate) fn record_join(&mut self, blk: usize) {
        if let Some(j) = self.joined.get_mut(blk) {
            *j = true;
            self.recording = Some((self.nblocks + blk, false));
        }
    }

    /// Transfers of every (variant, block) at the memory level; a join copy that does
    /// not exist passes nothing on (it kills every register and reads none).
    fn mem_transfers(&self) -> Vec<Transfer> {
        let n = self.regs.len();
        let absent = |i: usize| i >= 2 * self.nblocks && !self.joined[i - 2 * self.nblocks];
        (self.events.iter().enumerate())
            .map(|(i, e)| match absent(i) {
                true => Transfer {
                    gen: Set::new(n),
                    kill: Set::full(n),
                },
                false => Transfer::of(n, e, mem_read, mem_kill),
            })
            .collect()
    }

    /// Live-in sets of every IR block: each block's `transfers` (one per variant; a set
    /// is live at a block's entry if it is in either variant).
    fn live_in(&self, f: &ir::Function, transfers: &[&[Transfer]]) -> Vec<Set> {
        let n = self.regs.len();
        // Per-variant tables are raw vectors (`events` holds both variants of every
        // block, at `block` and `nblocks + block`), so blocks are numbers here.
        let succs: Vec<Vec<usize>> = f
            .blocks
            .iter()
            .map(|b| b.term.successors().iter().map(|s| s.index()).collect())
            .collect();
        let mut live = vec![Set::new(n); self.nblocks];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..self.nblocks).rev() {
                let out = self.live_out(&succs[b], &live);
                let mut inn = Set::new(n);
                for t in transfers {
                    t[b].apply(&out, &mut inn);
                }
                if inn != live[b] {
                    live[b] = inn;
                    changed = true;
                }
            }
        }
        live
    }

    fn live_out(&self, succs: &[usize], live_in: &[Set]) -> Set {
        let mut out = Set::new(self.regs.len());
        for &s in succs {
            if let Some(l) = live_in.get(s) {
                out.union(l);
            }
        }
        out
    }

    /// Marks the reads whose every load was forwarded (`grouped::regroup`: removed from
    /// the layout, or a `bitcast` now) as no longer reading the file.
    fn forget_forwarded(&mut self, func: &cranelift_codegen::ir::Function) {
        let loads = &self.loads;
        let gone = |i: Inst| {
            func.layout.inst_block(i).is_none()
                || func.dfg.insts[i].opcode() != cranelift_codegen::ir::Opcode::Load
        };
        for evs in &mut self.events {
            for e in evs.iter_mut() {
                if let RegEvent::Read {
                    mem: mem @ true,
                    first,
                    n,
                    ..
                } = e
                {
                    let ls = &loads[*first as usize..(*first + *n) as usize];
                    if *n > 0 && ls.iter().all(|&i| gone(i)) {
                        *mem = false;
                    }
                }
            }
        }
    }

    /// Deletes the stores no load can observe; returns the registers live at entry at
    /// the IR level.
    fn prune(&self, f: &ir::Function, func: &mut cranelift_codegen::ir::Function) -> Set {
        let n = self.regs.len();
        let ir: Vec<Transfer> = self.events[..self.nblocks]
            .iter()
            .map(|e| Transfer::of(n, e, ir_read, ir_kill))
            .collect();
        let ir_live = self.live_in(f, &[&ir]);
        let mem = self.mem_transfers();
        let (conv, rest) = mem.split_at(self.nblocks);
        let (div, join) = rest.split_at(self.nblocks);
        let mem_live = self.live_in(f, &[conv, div, join]);
        for (b, blk) in f.blocks.iter().enumerate() {
            let succs: Vec<usize> = blk.term.successors().iter().map(|s| s.index()).collect();
            let out = self.live_out(&succs, &mem_live);
            for v in [b, self.nblocks + b, 2 * self.nblocks + b] {
                let mut live = out.clone();
                for e in self.events[v].iter().rev() {
                    match *e {
                        RegEvent::Read { reg, mem: true, .. } => live.add(reg),
                        RegEvent::Read { .. } => {}
                        RegEvent::Write {
                            reg,
                            mem_kill,
                            first,
                            n,
                            ..
                        } => {
                            if !live.has(reg) {
                                for &i in &self.stores[first as usize..(first + n) as usize] {
                                    func.layout.remove_inst(i);
                                }
                            }
                            if mem_kill {
                                live.del(reg);
                            }
                        }
                    }
                }
            }
        }
        ir_live.into_iter().next().unwrap_or_else(|| Set::new(n))
    }
}

impl FuncTranslator<'_> {
    /// The container vectors of register `r`; `ir`: an operand read of the instruction
    /// (not the old value a merging write keeps).
    /// An operand read of a register of `nan_lazy` (`ir::analysis::nan::nan_lazy`: only
    /// stores and moves observe its bits) gives the canonical NaN for a NaN, unless the
    /// reader ignores NaN payloads (`blind_read`).
    pub(crate) fn reg_load(&mut self, r: RegId, ir: bool) -> Vec<Value> {
        let ty = self.rf.regs.get(r).map_or(I32X4, |x| x.2);
        let v = self.reg_load_as(r, ir, ty);
        if !(ir && self.nan_lazy.contains(r)) || self.blind_read {
            return v;
        }
        self.canon_now(&WarpValue {
            wide: ty == I64X2,
            v,
        })
        .v
    }

    /// [`Self::reg_load`] as vectors of type `ty`, the container type or the float
    /// vector type of the same lanes: a float operand loads its register's slot as
    /// `F32X4`/`F64X2` directly, and a cached value of the other type is bitcast once
    /// (the cache then holds that form; a bitcast back is free, see [`lanes::bitcast`]).
    pub(crate) fn reg_load_as(&mut self, r: RegId, ir: bool, ty: Type) -> Vec<Value> {
        let cur = self.b.current_block();
        let now = self.rf.count;
        let hit = match &self.rf.cache[r] {
            Some((blk, v, at)) if Some(*blk) == cur && now - at <= CACHE_WINDOW => {
                Some((v.clone(), *at))
            }
            _ => None,
        };
        let (off, n, _) = self.rf.regs[r];
        let first = self.rf.loads.len() as u32;
        if let Some(e) = self.rf.slot_events() {
            e.push(RegEvent::Read {
                reg: r.0,
                ir,
                mem: hit.is_none(),
                first,
                n: if hit.is_none() { n as u32 } else { 0 },
            });
        }
        if let Some((v, at)) = hit {
            if v.first()
                .is_none_or(|&x| self.b.func.dfg.value_type(x) == ty)
            {
                return v;
            }
            let v: Vec<Value> = v
                .iter()
                .map(|&x| lanes::bitcast(&mut self.b, ty, x))
                .collect();
            if let Some(blk) = cur {
                self.rf.cache[r] = Some((blk, v.clone(), at));
            }
            return v;
        }
        let a = self.rf.base;
        let v: Vec<Value> = (0..n)
            .map(|k| self.b.ins().load(ty, self.rf.flags, a, off + 16 * k as i32))
            .collect();
        for &x in &v {
            let i = self.b.func.dfg.value_def(x).unwrap_inst();
            self.rf.loads.push(i);
        }
        if let Some(blk) = cur {
            self.rf.cache[r] = Some((blk, v.clone(), now));
        }
        v
    }

    /// Stores the container vectors of register `r` (or float vectors of the same lanes,
    /// see [`Self::reg_load_as`]); `full`: every lane is written.
    pub(crate) fn reg_store(&mut self, r: RegId, v: &[Value], full: bool) {
        let off = self.rf.regs[r].0;
        let a = self.rf.base;
        let first = self.rf.stores.len() as u32;
        for (k, &x) in v.iter().enumerate() {
            let i = self.b.ins().store(self.rf.flags, x, a, off + 16 * k as i32);
            self.rf.stores.push(i);
        }
        let cur = self.b.current_block();
        let conv = self.rf.recording.is_some_and(|(_, c)| c);
        if let Some(e) = self.rf.slot_events() {
            e.push(RegEvent::Write {
                reg: r.0,
                ir_kill: full && conv,
                // Decided when the instruction is done (see `inst_done`).
                mem_kill: false,
                blk: cur,
                first,
                n: v.len() as u32,
            });
        }
        if let Some(blk) = cur {
            self.rf.cache[r] = Some((blk, v.to_vec(), self.rf.count));
        }
    }

    /// Records an operand read of register `r` (code outside the usual lowerings, such
    /// as `control::serial`'s per-lane loads, reads the file directly).
    pub(crate) fn note_read(&mut self, r: RegId) {
        if let Some(e) = self.rf.slot_events() {
            e.push(RegEvent::Read {
                reg: r.0,
                ir: true,
                mem: true,
                first: 0,
                n: 0,
            });
        }
    }

    /// The file's memory flags and register `r`'s byte offset and size in bytes.
    pub(crate) fn reg_slot(&self, r: RegId) -> (MemFlagsData, i32, i32) {
        let (off, n, _) = self.rf.regs.get(r).copied().unwrap_or((0, 0, I32X4));
        (self.rf.flags, off, 16 * n as i32)
    }

    /// Marks the start of an IR instruction's translation.
    pub(crate) fn inst_start(&mut self) -> InstMark {
        self.rf.depth += 1;
        self.rf.count += 1;
        if self.rf.depth > 1 {
            return None;
        }
        let cur = self.b.current_block();
        let len = self.rf.slot_events().map_or(0, |e| e.len());
        Some((len, cur))
    }

    /// The end of an IR instruction started at `mark`: its stores made in its first or
    /// last Cranelift block run on every path through it.
    ///
    /// A lowering that branches (a load's fast and slow paths) is entered only at its
    /// first block, which therefore dominates its last: the values cached in the first
    /// block (and not replaced by a write in a branch) stay valid in the last one, so a
    /// read after the instruction reuses them instead of loading the register again;
    /// their stores then become dead when no later load observes them (the `fma` after
    /// sgemm's second `ld.shared` of a k step read the first load's value back).
    pub(crate) fn inst_done(&mut self, mark: InstMark) {
        self.rf.depth = self.rf.depth.saturating_sub(1);
        let Some((from, start)) = mark else { return };
        let end = self.b.current_block();
        if let (Some(s), Some(e)) = (start, end) {
            if s != e {
                for c in self.rf.cache.iter_mut().flatten() {
                    if c.0 == s {
                        c.0 = e;
                    }
                }
            }
        }
        if let Some(evs) = self.rf.slot_events() {
            for e in evs.iter_mut().skip(from) {
                if let RegEvent::Write { blk, mem_kill, .. } = e {
                    *mem_kill = blk.is_some() && (*blk == start || *blk == end);
                }
            }
        }
    }

    /// Deletes the stores no load observes and fills the entry's register
    /// initialisation block: zeroes the registers live at entry, then jumps to `first`.
    /// Call after every block was translated.
    pub(crate) fn finish_regfile(&mut self, first: Block) {
        self.rf.recording = None;
        if grouped::enabled() {
            let regs: Vec<(i32, usize, Type)> = self.rf.regs.iter().copied().collect();
            let mut bases = self.rf.bases.clone();
            bases.sort_unstable();
            bases.dedup();
            let file = grouped::FileLayout {
                bases: &bases,
                regs: &regs,
            };
            grouped::regroup(self.b.func, &file);
            self.rf.forget_forwarded(self.b.func);
        }
        let live = self.rf.prune(self.f, self.b.func);
        let need: Vec<RegId> = (self.rf.regs.ids())
            .filter(|&r| live.has(r.0) && self.rf.regs[r].1 > 0)
            .collect();
        self.b.switch_to_block(self.rf.init);
        // (A continuation kernel's started warp's file.)
        self.cont_refresh();
        let bytes: i32 = need.iter().map(|&r| 16 * self.rf.regs[r].1 as i32).sum();
        if bytes > 0 {
            let z = lanes::splat32(&mut self.b, 0);
            let base = self.rf.base;
            if bytes <= UNROLL_ZERO_BYTES {
                for &r in &need {
                    let (off, n, _) = self.rf.regs[r];
                    for k in 0..n as i32 {
                        self.b.ins().store(self.rf.flags, z, base, off + 16 * k);
                    }
                }
            } else {
                // The file is a multiple of 128 bytes: 64 bytes a step.
                let lp = self.b.create_block();
                let done = self.b.create_block();
                self.b.append_block_param(lp, I64);
                self.b.ins().jump(lp, &[base.into()]);
                self.b.switch_to_block(lp);
                let p = self.b.block_params(lp)[0];
                for o in (0..64).step_by(16) {
                    self.b.ins().store(self.rf.flags, z, p, o);
                }
                let p2 = self.b.ins().iadd_imm_s(p, 64);
                let end = self.b.ins().iadd_imm_s(base, self.rf.size as i64);
                let more = self.b.ins().icmp(IntCC::UnsignedLessThan, p2, end);
                self.b.ins().brif(more, lp, &[p2.into()], done, &[]);
                self.b.switch_to_block(done);
            }
        }
        self.b.ins().jump(first, &[]);
    }
}

impl FuncTranslator<'_> {
    /// Reads a float source of type `F32`/`F64` as `F32X4`/`F64X2` vectors: a register
    /// of that width is loaded (or its cached value reused) as floats, an immediate is a
    /// float constant, with no bitcast from the integer form (issue 14, item 8: the
    /// bitcasts were a fifth of the CLIF of float code).
    pub(crate) fn read_float(&mut self, op: &Operand, ty: ir::Type) -> Result<WarpValue, JitError> {
        let wide = ty.bits() == 64;
        let (fty, class) = if wide {
            (F64X2, RegClass::R64)
        } else {
            (F32X4, RegClass::R32)
        };
        match *op {
            Operand::Reg(r)
                if self.reg_info(r)?.ty.class() == class
                    && self.svar(r).is_none()
                    && self.avar(r).is_none() =>
            {
                let v = self.reg_load_as(r, true, fty);
                Ok(WarpValue { wide, v })
            }
            Operand::Imm(x) => {
                let bytes: Vec<u8> = if wide {
                    (0..2).flat_map(|_| x.to_le_bytes()).collect()
                } else {
                    (0..4).flat_map(|_| (x as u32).to_le_bytes()).collect()
                };
                let c = lanes::vconst(&mut self.b, fty, bytes);
                Ok(WarpValue {
                    wide,
                    v: vec![c; if wide { lanes::N64 } else { lanes::N32 }],
                })
            }
            _ => {
                let w = self.read(op, ty, false)?;
                Ok(lanes::map1(&w, |&x| lanes::bitcast(&mut self.b, fty, x)))
            }
        }
    }

    /// The first step of [`FuncTranslator::write`]: a value of float vectors (a float
    /// lowering's result) that fills a register of its width (not a scalar or affine
    /// register) is stored as it is, or merged with the old value as floats under
    /// `mask` (`None`: done); any other float value is turned into the integer
    /// containers the rest of `write` expects.
    pub(crate) fn write_float(
        &mut self,
        dst: RegId,
        ty: ir::Type,
        val: WarpValue,
        mask: &mut crate::jit::translate::Mask,
    ) -> Result<Option<WarpValue>, JitError> {
        let fty = match val.v.first() {
            Some(&x) if self.b.func.dfg.value_type(x).lane_type().is_float() => {
                self.b.func.dfg.value_type(x)
            }
            _ => return Ok(Some(val)),
        };
        let rty = self.reg_info(dst)?.ty;
        let cw = if val.wide { 64 } else { 32 };
        let class = if val.wide {
            RegClass::R64
        } else {
            RegClass::R32
        };
        if rty.class() != class
            || rty.bits() != cw
            || ty.bits() != cw
            || self.svar(dst).is_some()
            || self.avar(dst).is_some()
        {
            return Ok(Some(lanes::map1(&val, |&x| lanes::as_int(&mut self.b, x))));
        }
        if !self.merges(dst, mask) {
            self.reg_store(dst, &val.v, true);
            return Ok(None);
        }
        let m = if val.wide {
            self.m64(mask)
        } else {
            self.m32(mask)
        };
        let old = self.reg_load_as(dst, false, fty);
        let new: Vec<Value> = (0..old.len())
            .map(|k| {
                let mk = lanes::bitcast(&mut self.b, fty, m[k]);
                self.b.ins().bitselect(mk, val.v[k], old[k])
            })
            .collect();
        self.reg_store(dst, &new, false);
        Ok(None)
    }
}

/// Registers whose value no lane outside those running an unguarded write can need, so
/// such a write stores without merging (in the divergent variant too): never live at
/// a block's entry (`ir::analysis::liveness`, per thread: a lane that waits at a block,
/// or has exited or returned, writes them again before it reads them) and read only by
/// instructions that read their own lane's value (a `shfl`, `mma`, `match`, ... may read
/// a lane that is not running, which sees its old value in the interpreter; an `atom`
/// reads its running lanes' address and operands only, a vector range check over every
/// lane only deciding between the inline access and the exact per-lane test), and by no
/// terminator but as a branch's guard.
pub(crate) fn block_local_regs(f: &ir::Function) -> RegSet {
    use crate::ir::analysis::liveness::{inst_effect, term_effect, Liveness};
    use crate::ir::{InstKind, Terminator};
    let n = f.regs.len();
    let mut not_local = RegSet::new(n);
    for l in Liveness::of(f).live_in.iter() {
        not_local.union_with(l);
    }
    for b in &f.blocks {
        for i in &b.insts {
            let own_lane = matches!(
                i.kind,
                InstKind::Mov { .. }
                    | InstKind::Arith { .. }
                    | InstKind::Setp { .. }
                    | InstKind::Selp { .. }
                    | InstKind::Ld { .. }
                    | InstKind::St { .. }
                    | InstKind::Cvta { .. }
                    | InstKind::Cvt { .. }
                    | InstKind::Bits { .. }
                    | InstKind::Set { .. }
                    | InstKind::SetpPacked { .. }
                    | InstKind::Sfu { .. }
                    | InstKind::Half { .. }
                    | InstKind::MinMax { .. }
                    | InstKind::Copysign { .. }
                    | InstKind::Testp { .. }
                    | InstKind::Atom { .. }
            );
            if !own_lane {
                for r in inst_effect(f, i).uses {
                    not_local.insert(r);
                }
            }
        }
        // A branch reads its guard in the running lanes only (`active & p`).
        if !matches!(b.term, Terminator::Branch { .. }) {
            for r in term_effect(f, &b.term).uses {
                not_local.insert(r);
            }
        }
    }
    let mut local = RegSet::new(n);
    for r in f.regs.ids() {
        if !not_local.contains(r) {
            local.insert(r);
        }
    }
    local
}

impl FuncTranslator<'_> {
    /// Whether a write to `dst` under `mask` keeps the other lanes' old values: not for
    /// an unguarded write to a block-local register ([`block_local_regs`]).
    pub(crate) fn merges(&self, dst: RegId, mask: &crate::jit::translate::Mask) -> bool {
        mask.merge && !(mask.unguarded && self.local_regs.contains(dst))
    }
}
