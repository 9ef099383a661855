//! Uniform registers as scalars (issue 14, item 2): a register whose value is the same
//! in every lane that can ever read it lives in a Cranelift variable (an `i32`, an
//! `i64`, or an `i32` of 0 / −1 for a predicate) instead of the vector register file.
//!
//! Which registers: the largest set `S` such that every definition of a register of `S`
//! - is in a block that never runs while lanes wait elsewhere (`cfg::divergent_blocks`:
//!   every live lane runs it, so no lane keeps an older value), or, in a kernel, in a
//!   block where every block that lanes can wait at meanwhile
//!   (`cfg::waiting_ranges_given`) has the register dead at its entry (per-thread
//!   liveness: a waiting lane writes it again before reading it, so the value it kept
//!   is never read; e.g. the loop after `if (i >= n) return;`),
//! - is unguarded or guarded by a predicate of `S` (all live lanes write, or none),
//! - is a lane-wise pure operation (arithmetic, compare, select, conversion, `mov`, …;
//!   not `cvta` of `.local`, whose base differs per lane) or `ld` of a kernel
//!   parameter or `.const` variable at a constant address (one load for the warp), or
//!   a weak `ld.global`/`ld.shared`/`ld.const` from a register of `S` (one instruction
//!   gives every lane the bytes at one address, as `ir::analysis::shape` says),
//! - reads only registers of `S`, immediates, addresses and per-warp special registers
//!   (`%ctaid`, `%ntid`, `%nctaid`, …), or is a `setp` whose predicates the shape
//!   analysis (of the launches the code is for) proves uniform (`%tid.x < 32` where
//!   warps are whole rows; `lower::scalar` then compares lane 0's values).
//!
//! By induction every live lane then holds the same value of a register of `S` at every
//! point (registers start at zero in every lane; lanes only ever leave, by `exit`), and
//! the warp's code, which runs each such definition once for all live lanes, tracks it
//! in one variable. Call results, and registers written anywhere else, stay vectors.
//!
//! Reading a scalar register where vectors are needed splats it. The lowerings of
//! `lower::scalar` compute definitions as scalars; any other definition of a register of
//! `S` computes the vector form as before and keeps one active lane's value (a splat
//! gives its scalar back for free: `ld.param`, special registers).

use crate::ir::analysis::liveness::{Liveness, RegSet};
use crate::ir::analysis::shape::{strong_load, Shape, Shapes, State};
use crate::ir::{
    self, AddrBase, BlockId, Guard, Idx, IdxVec, InstKind, Operand, RegClass, RegId, Space, VarRef,
};
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2, I8};
use cranelift_codegen::ir::{
    Block, InstBuilder, InstructionData, MemFlagsData, Opcode, StackSlot, StackSlotData,
    StackSlotKind, Value, ValueDef,
};
use cranelift_frontend::{FunctionBuilder, Variable};

/// The scalar registers of a function and the translator's state for them.
pub(crate) struct ScalarRegs {
    /// Per register: its variable when it is scalar.
    pub vars: IdxVec<RegId, Option<Variable>>,
    /// The guard of the instruction being translated (set with
    /// [`FuncTranslator::set_guard`]).
    pub guard: Option<Guard>,
    /// The guard predicate's scalar value as the instruction starts, where the
    /// instruction also writes that predicate (`@%p setp %p|%q, ...`): its later writes
    /// must test the guard as it was, not the predicate's new value.
    pub guard_val: Option<Value>,
    /// 256 bytes to pick one lane of a vector value (made on first use).
    slot: Option<StackSlot>,
    /// The vector form of the last bit mask expanded, in the block it was built in
    /// (issue 14, item 4: a block's instructions share one expansion of its mask).
    mask_cache: Option<(Block, Value, Vec<Value>)>,
    /// The same for the 64-bit form (16 × i64x2) of a bit mask.
    mask64_cache: Option<(Block, Value, Vec<Value>)>,
    /// The Cranelift blocks current at the start of each instruction of the IR block
    /// being translated so far (its *spine*). A lowering that branches (a memory
    /// path's fast and slow paths) ends in a join block that the block it started in
    /// dominates, so each spine block dominates the later ones; and no instruction
    /// (terminators aside) redefines the active mask.
    spine: Vec<Block>,
    /// The vector forms (8 × i32x4, 16 × i64x2) of the active mask built in a spine
    /// block: valid in every later spine block (issue 14, item 4: one expansion per IR
    /// block, not one per memory path's join).
    active_cache: Option<Vec<Value>>,
    active64_cache: Option<Vec<Value>>,
}

/// Whether special register `s` is the same in every lane of a warp.
fn uniform_special(s: ir::SpecialReg) -> bool {
    s.constant().is_some() || crate::exec::sreg::uniform_field(s).is_some()
}

/// Whether operand `o` is the same in every live lane, given the scalar set `s`.
fn uniform_operand(o: &Operand, s: &IdxVec<RegId, bool>) -> bool {
    match *o {
        Operand::Reg(r) => s.get(r).copied().unwrap_or(false),
        Operand::Imm(_) | Operand::VarAddr(..) | Operand::FuncAddr(_) => true,
        Operand::Special(sr) => uniform_special(sr),
    }
}

/// Whether instruction `i` of function `f` gives every live lane the same results when
/// its operands are uniform (see the module doc).
fn pure_kind(f: &ir::Function, i: &InstKind) -> bool {
    use InstKind::*;
    match i {
        Mov { .. }
        | Arith { .. }
        | Setp { .. }
        | SetpPacked { .. }
        | Selp { .. }
        | Cvt { .. }
        | Bits { .. }
        | Set { .. }
        | MinMax { .. }
        | Copysign { .. }
        | Testp { .. }
        | CvtX { .. }
        | Half { .. }
        | Sfu { .. } => true,
        Cvta { space, .. } => *space != Space::Local,
        Ld { space, addr, .. } => match addr.base {
            AddrBase::Var(VarRef::KernelParam(_)) => {
                f.kind == ir::FuncKind::Entry && matches!(space, Space::Param | Space::Generic)
            }
            AddrBase::Var(VarRef::Global(_)) => *space == Space::Const,
            _ => false,
        },
        _ => false,
    }
}

/// Whether instruction `k` of `blk` is a weak load of `.global`, `.shared` or `.const`
/// memory from a register of the scalar set `s` (plus an offset): every lane reads the
/// same bytes.
fn uniform_load(blk: &ir::Block, k: usize, s: &IdxVec<RegId, bool>) -> bool {
    let Some(InstKind::Ld { space, addr, .. }) = blk.insts.get(k).map(|i| &i.kind) else {
        return false;
    };
    matches!(space, Space::Global | Space::Shared | Space::Const)
        && matches!(addr.base, AddrBase::Reg(r) if s.get(r).copied().unwrap_or(false))
        && !crate::ir::analysis::shape::strong_load(blk, k)
}

/// Per block that can run while lanes wait elsewhere: the registers live at the entry
/// of some block those lanes may wait at (`ranges`: `cfg::waiting_ranges_given`).
/// `None` for a `.func` (lanes that returned wait for the others), and where the
/// table would take too long to build (every such block then keeps its vectors).
fn waiting_live(
    f: &ir::Function,
    div: &IdxVec<BlockId, bool>,
    ranges: &[(usize, usize, BlockId)],
) -> Option<Vec<Option<RegSet>>> {
    let n = f.blocks.len();
    let span: usize = ranges
        .iter()
        .map(|&(lo, hi, _)| hi.min(n) - lo.min(n))
        .sum();
    if f.kind != ir::FuncKind::Entry || span > 1 << 16 || n * f.regs.len() > 1 << 24 {
        return None;
    }
    let live = Liveness::of(f);
    let mut out: Vec<Option<RegSet>> = (0..n)
        .map(|b| {
            div.get(BlockId(b as u32))
                .copied()
                .unwrap_or(true)
                .then(|| RegSet::new(f.regs.len()))
        })
        .collect();
    for &(lo, hi, w) in ranges {
        for set in out[lo.min(n)..hi.min(n)].iter_mut().flatten() {
            set.union_with(&live.live_in[w]);
        }
    }
    Some(out)
}

/// Per block and instruction: the instruction is a `setp` with an affine source whose
/// predicate results the shape analysis proves uniform (`%tid.x < 32` where warps are
/// whole rows). (Not a `setp` of uniform sources outside the scalar set: taking those
/// as scalar predicates made the bytecode benchmark's dispatch loop 7x slower.)
fn uniform_predicates(f: &ir::Function, shapes: &Shapes) -> Vec<Vec<bool>> {
    let mut st = State::default();
    let mut out = Vec::with_capacity(f.blocks.len());
    for (b, blk) in f.blocks.iter_enumerated() {
        shapes.enter(b, &mut st);
        let mut row = Vec::with_capacity(blk.insts.len());
        for (k, inst) in blk.insts.iter().enumerate() {
            // A source affine before it (uniform sources are the scalar set's own rule).
            let affine = |o: &Operand| match *o {
                Operand::Reg(r) => st
                    .get(r)
                    .is_some_and(|x| matches!(x.shape, Shape::Affine(_))),
                Operand::Special(sr) => {
                    matches!(sr, ir::SpecialReg::LaneId | ir::SpecialReg::Tid(ir::Dim::X))
                }
                _ => false,
            };
            let from_affine =
                matches!(&inst.kind, InstKind::Setp { a, b, .. } if affine(a) || affine(b));
            shapes.step(f, &mut st, inst, strong_load(blk, k));
            let defs = inst.kind.defs();
            row.push(
                from_affine
                    && !defs.is_empty()
                    && defs.iter().all(|&d| {
                        f.regs
                            .get(d)
                            .is_some_and(|r| r.ty.class() == RegClass::Pred)
                            && st.get(d).is_some_and(|x| x.shape == Shape::Uniform)
                    }),
            );
        }
        out.push(row);
    }
    out
}

/// The scalar registers of `f` (see the module doc); `div[b]`: block `b` can run while
/// lanes wait elsewhere; `ranges`: where they can wait (`cfg::waiting_ranges_given`);
/// `shapes`: the shape analysis of the launches the code is for.
pub(crate) fn scalar_set(
    f: &ir::Function,
    div: &IdxVec<BlockId, bool>,
    ranges: &[(usize, usize, BlockId)],
    shapes: &Shapes,
) -> IdxVec<RegId, bool> {
    let waiting = waiting_live(f, div, ranges);
    let uniform_pred = uniform_predicates(f, shapes);
    let mut s: IdxVec<RegId, bool> = f
        .regs
        .iter()
        .map(|r| matches!(r.ty.class(), RegClass::Pred | RegClass::R32 | RegClass::R64))
        .collect();
    // Call results are written by terminators.
    for blk in &f.blocks {
        if let ir::Terminator::Call { rets, .. } | ir::Terminator::CallIndirect { rets, .. } =
            &blk.term
        {
            for r in rets {
                if let ir::CallDst::Reg(d, _) = r.dst {
                    if let Some(x) = s.get_mut(d) {
                        *x = false;
                    }
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for (b, blk) in f.blocks.iter_enumerated() {
            let conv = !div.get(b).copied().unwrap_or(true);
            let dead_while_waiting = |d: &RegId| match &waiting {
                Some(w) => w
                    .get(b.index())
                    .and_then(|x| x.as_ref())
                    .is_some_and(|set| !set.contains(*d)),
                None => false,
            };
            for (k, i) in blk.insts.iter().enumerate() {
                let defs = i.kind.defs();
                if defs.iter().all(|&d| !s.get(d).copied().unwrap_or(false)) {
                    continue;
                }
                let ok = (conv || defs.iter().all(dead_while_waiting))
                    && i.guard
                        .is_none_or(|g| s.get(g.pred).copied().unwrap_or(false))
                    && (pure_kind(f, &i.kind) || uniform_load(blk, k, &s))
                    && (uniform_pred[b.index()][k]
                        || i.kind.operands().is_ok_and(|o| {
                            o.srcs.iter().all(|(op, _, _)| uniform_operand(op, &s))
                        }));
                if !ok {
                    for d in defs {
                        if let Some(x) = s.get_mut(d) {
                            *x = false;
                        }
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            return s;
        }
    }
}

impl ScalarRegs {
    /// Declares a variable for every scalar register of `f`.
    pub(crate) fn new(
        b: &mut FunctionBuilder,
        f: &ir::Function,
        div: &IdxVec<BlockId, bool>,
        ranges: &[(usize, usize, BlockId)],
        shapes: &Shapes,
    ) -> ScalarRegs {
        let set = scalar_set(f, div, ranges, shapes);
        let vars = f
            .regs
            .iter()
            .zip(&set)
            .map(|(r, &on)| {
                on.then(|| {
                    b.declare_var(if r.ty.class() == RegClass::R64 {
                        I64
                    } else {
                        I32
                    })
                })
            })
            .collect();
        ScalarRegs {
            vars,
            guard: None,
            guard_val: None,
            slot: None,
            mask_cache: None,
            mask64_cache: None,
            spine: Vec::new(),
            active_cache: None,
            active64_cache: None,
        }
    }
}

impl FuncTranslator<'_> {
    /// Starts the spine of an IR block, or ends it where its terminator starts
    /// (terminators may redefine the active mask): forgets the active mask's forms.
    pub(crate) fn spine_clear(&mut self) {
        self.sregs.spine.clear();
        self.sregs.active_cache = None;
        self.sregs.active64_cache = None;
    }

    /// Records the current block as the start of the next instruction.
    pub(crate) fn spine_mark(&mut self) {
        if let Some(c) = self.b.current_block() {
            if self.sregs.spine.last() != Some(&c) {
                self.sregs.spine.push(c);
            }
        }
    }

    /// Whether the current block is the latest spine block.
    fn on_spine(&self) -> bool {
        let c = self.b.current_block();
        c.is_some() && self.sregs.spine.last() == c.as_ref()
    }

    /// The active lanes as 8 × i32x4 masks: built once per IR block where its
    /// instructions start (see `spine`), else once per Cranelift block.
    pub(crate) fn active_mask(&mut self) -> Vec<Value> {
        let spine = self.on_spine();
        if spine {
            if let Some(m) = &self.sregs.active_cache {
                return m.clone();
            }
        }
        let bits = self.b.use_var(self.active_bits);
        let m = self.mask_of_bits(bits);
        if spine {
            self.sregs.active_cache = Some(m.clone());
        }
        m
    }

    /// The active lanes as 16 × i64x2 masks, built like [`Self::active_mask`].
    pub(crate) fn active_mask64(&mut self) -> Vec<Value> {
        if !self.on_spine() {
            let bits = self.b.use_var(self.active_bits);
            return self.mask64_of_bits(bits);
        }
        if let Some(m) = &self.sregs.active64_cache {
            return m.clone();
        }
        let m32 = self.active_mask();
        let m = lanes::mask64(&mut self.b, &m32);
        self.sregs.active64_cache = Some(m.clone());
        m
    }

    /// The 8 × i32x4 lane masks of bit mask `bits`, built once per Cranelift block.
    pub(crate) fn mask_of_bits(&mut self, bits: Value) -> Vec<Value> {
        let cur = self.b.current_block();
        if let (Some((blk, b, m)), Some(c)) = (&self.sregs.mask_cache, cur) {
            if *blk == c && *b == bits {
                return m.clone();
            }
        }
        let m = lanes::mask_from_bits(&mut self.b, bits);
        if let Some(c) = cur {
            self.sregs.mask_cache = Some((c, bits, m.clone()));
        }
        m
    }

    /// The 16 × i64x2 lane masks of bit mask `bits`, built once per Cranelift block (the
    /// merge mask of every 64-bit write in a divergent block).
    pub(crate) fn mask64_of_bits(&mut self, bits: Value) -> Vec<Value> {
        let cur = self.b.current_block();
        if let (Some((blk, b, m)), Some(c)) = (&self.sregs.mask64_cache, cur) {
            if *blk == c && *b == bits {
                return m.clone();
            }
        }
        let m32 = self.mask_of_bits(bits);
        let m = lanes::mask64(&mut self.b, &m32);
        if let Some(c) = cur {
            self.sregs.mask64_cache = Some((c, bits, m.clone()));
        }
        m
    }

    /// The variable of register `r` if it is scalar.
    pub(crate) fn svar(&self, r: RegId) -> Option<Variable> {
        self.sregs.vars.get(r).copied().flatten()
    }

    /// Zeroes the scalar registers (call in the entry block).
    pub(crate) fn scalar_init(&mut self) {
        for k in self.sregs.vars.ids() {
            if let Some(v) = self.sregs.vars[k] {
                let ty = if self.f.regs[k].ty.class() == RegClass::R64 {
                    I64
                } else {
                    I32
                };
                let z = self.b.ins().iconst(ty, 0);
                self.b.def_var(v, z);
            }
        }
    }

    /// The containers of scalar register `r` as a vector value (a splat).
    pub(crate) fn scalar_vals(&mut self, r: RegId) -> Option<Vec<Value>> {
        let v = self.svar(r)?;
        let x = self.b.use_var(v);
        Some(lanes::splat_scalar(&mut self.b, x).v)
    }

    /// Sets scalar register `dst` to `x` (its container type) where the instruction's
    /// guard holds.
    pub(crate) fn scalar_set_reg(&mut self, dst: RegId, x: Value) -> Result<(), JitError> {
        let v = self
            .svar(dst)
            .ok_or_else(|| JitError::Codegen(format!("register {} is not scalar", dst.0)))?;
        self.def_var_guarded(v, x)
    }

    /// Makes `g` the guard of the instruction being translated, `i`; where `i` writes
    /// the guard's predicate too, keeps that predicate's value from before `i`.
    pub(crate) fn set_guard(&mut self, g: Option<Guard>, i: &InstKind) {
        self.sregs.guard = g;
        self.sregs.guard_val = g
            .filter(|g| i.defs().contains(&g.pred))
            .and_then(|g| self.svar(g.pred))
            .map(|pv| self.b.use_var(pv));
    }

    /// Defines variable `v` as `x` where the instruction's guard (a scalar predicate)
    /// holds and keeps its old value elsewhere: the write of a scalar register or of an
    /// affine register's base.
    pub(crate) fn def_var_guarded(&mut self, v: Variable, x: Value) -> Result<(), JitError> {
        let x = match self.sregs.guard {
            None => x,
            Some(g) => {
                let pv = self.svar(g.pred).ok_or_else(|| {
                    JitError::Codegen("guard of a scalar write not scalar".into())
                })?;
                let p = match self.sregs.guard_val {
                    Some(p) => p,
                    None => self.b.use_var(pv),
                };
                let p = self.pred_cond(p);
                let old = self.b.use_var(v);
                if g.negate {
                    self.b.ins().select(p, old, x)
                } else {
                    self.b.ins().select(p, x, old)
                }
            }
        };
        self.b.def_var(v, x);
        Ok(())
    }

    /// The scalar whose splat `w` is (all parts one `splat`, or one constant with equal
    /// lanes), if it is one.
    pub(crate) fn scalar_of(&mut self, w: &[Value]) -> Option<Value> {
        let first = *w.first()?;
        if w.iter().any(|&x| x != first) {
            return None;
        }
        let ValueDef::Result(inst, 0) = self.b.func.dfg.value_def(first) else {
            return None;
        };
        let vty = self.b.func.dfg.value_type(first);
        match self.b.func.dfg.insts[inst] {
            InstructionData::Unary {
                opcode: Opcode::Splat,
                arg,
            } => Some(arg),
            InstructionData::UnaryConst {
                opcode: Opcode::Vconst,
                constant_handle,
            } => {
                let bytes = self.b.func.dfg.constants.get(constant_handle).as_slice();
                let n = if vty == I64X2 { 8 } else { 4 };
                if bytes.len() != 16 || (vty != I64X2 && vty != I32X4) {
                    return None;
                }
                let lane = &bytes[..n];
                if bytes.chunks(n).any(|c| c != lane) {
                    return None;
                }
                let mut le = [0u8; 8];
                le[..n].copy_from_slice(lane);
                let x = u64::from_le_bytes(le);
                let ty = if n == 8 { I64 } else { I32 };
                Some(self.b.ins().iconst(ty, x as i64))
            }
            _ => None,
        }
    }

    /// One active lane's value of the vector value `w` (8 × i32x4 or 16 × i64x2).
    pub(crate) fn any_active_lane(&mut self, w: &[Value], wide: bool) -> Value {
        if let Some(x) = self.scalar_of(w) {
            return x;
        }
        self.lowest_active_lane(w, wide).0
    }

    /// The lowest active lane's value of the vector value `w` (8 × i32x4 or 16 ×
    /// i64x2), and that lane's number (i64), read back through a stack slot.
    pub(crate) fn lowest_active_lane(&mut self, w: &[Value], wide: bool) -> (Value, Value) {
        let slot = match self.sregs.slot {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    256,
                    4,
                ));
                self.sregs.slot = Some(s);
                s
            }
        };
        let fl = MemFlagsData::new().with_notrap();
        let base = self.b.ins().stack_addr(I64, slot, 0);
        for (k, &x) in w.iter().enumerate() {
            self.b.ins().store(fl, x, base, 16 * k as i32);
        }
        let bits = self.b.use_var(self.active_bits);
        let lane = self.b.ins().ctz(bits);
        let lane = self.b.ins().uextend(I64, lane);
        let off = self.b.ins().ishl_imm_u(lane, if wide { 3 } else { 2 });
        let p = self.b.ins().iadd(base, off);
        let x = self.b.ins().load(if wide { I64 } else { I32 }, fl, p, 0);
        (x, lane)
    }

    /// [`FuncTranslator::write`] of the containers `v` (already in the register's
    /// width) to scalar register `dst`.
    pub(crate) fn scalar_write_vec(&mut self, dst: RegId, v: &WarpValue) -> Result<(), JitError> {
        let x = self.any_active_lane(&v.v, v.wide);
        self.scalar_set_reg(dst, x)
    }

    /// The `i8` 0 / 1 condition that scalar predicate `p` (0 / −1) is the `bmask` of,
    /// when that is visible here (the predicate was computed earlier in the same block),
    /// else `p`: branches and selects test it directly, so a compare feeds the branch
    /// without being widened to 0 / −1 first (the `bmask` is then dead unless the
    /// predicate is read elsewhere).
    pub(crate) fn pred_cond(&self, p: Value) -> Value {
        if let ValueDef::Result(inst, 0) = self.b.func.dfg.value_def(p) {
            if let InstructionData::Unary {
                opcode: Opcode::Bmask,
                arg,
            } = self.b.func.dfg.insts[inst]
            {
                if self.zero_one(arg, 4) {
                    return arg;
                }
            }
        }
        p
    }

    /// Whether `x` is an `i8` known to be 0 or 1: a compare, the constant 0 or 1, or
    /// `band`/`bor`/`bxor` of such values (looked through `depth` levels).
    fn zero_one(&self, x: Value, depth: u32) -> bool {
        let dfg = &self.b.func.dfg;
        if depth == 0 || dfg.value_type(x) != I8 {
            return false;
        }
        let ValueDef::Result(inst, 0) = dfg.value_def(x) else {
            return false;
        };
        match dfg.insts[inst] {
            InstructionData::IntCompare { .. } => true,
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => matches!(imm.bits(), 0 | 1),
            InstructionData::Binary {
                opcode: Opcode::Band | Opcode::Bor | Opcode::Bxor,
                args,
            } => self.zero_one(args[0], depth - 1) && self.zero_one(args[1], depth - 1),
            _ => false,
        }
    }

    /// `op` (`band`, `bor`, `bxor`) of scalar predicates `a` and `c` (0 / −1); done on
    /// their `i8` conditions when both are visible (see [`Self::pred_cond`]).
    pub(crate) fn spred_logic(&mut self, op: Opcode, a: Value, c: Value) -> Value {
        let (x, y) = (self.pred_cond(a), self.pred_cond(c));
        let narrow = x != a && y != c;
        let (x, y) = if narrow { (x, y) } else { (a, c) };
        let r = match op {
            Opcode::Band => self.b.ins().band(x, y),
            Opcode::Bor => self.b.ins().bor(x, y),
            _ => self.b.ins().bxor(x, y),
        };
        if narrow {
            self.b.ins().bmask(I32, r)
        } else {
            r
        }
    }

    /// The negation of scalar predicate `a` (0 / −1), on its `i8` condition when
    /// visible (see [`Self::pred_cond`]).
    pub(crate) fn spred_not(&mut self, a: Value) -> Value {
        let x = self.pred_cond(a);
        if x == a {
            return self.b.ins().bnot(a);
        }
        let n = self.b.ins().bxor_imm_u(x, 1);
        self.b.ins().bmask(I32, n)
    }

    /// [`FuncTranslator::write_pred`] of lane masks to scalar predicate `dst`.
    pub(crate) fn scalar_write_pred(&mut self, dst: RegId, m: &[Value]) -> Result<(), JitError> {
        let x = self.any_active_lane(m, false);
        // Lane masks are 0 / -1 already; normalise anyway (a constant or a splat of
        // a helper's 0/1 result would not be).
        let x = self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0);
        let x = self.b.ins().bmask(I32, x);
        self.scalar_set_reg(dst, x)
    }
}
