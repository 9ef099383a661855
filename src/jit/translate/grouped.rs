//! Lane-group order of straight-line vector code (issue 14: n-body's inner loop).
//!
//! A 32-lane value is 8 vectors of 4 lanes (16 of 2 for 64-bit containers, see
//! [`lanes`]), and every lowering emits its instruction over all of them before the next
//! instruction begins: a run of float arithmetic then holds 8 copies of each of its
//! temporaries at once, more than the 16 vector registers, and spills them. After
//! translation, [`regroup`] cuts each Cranelift block into *segments* at every
//! instruction with an effect other than a load or store of the register file at its
//! base (calls, branches, traps, other memory), and gives every instruction of a segment
//! the *lane group* it computes:
//! - a register-file access, the group of the 16-byte vector it touches (vector `k` of a
//!   32-bit register holds lanes `4k..4k+3`: group `k`; vector `j` of a 64-bit register
//!   lanes `2j, 2j+1`: group `j / 2`);
//! - any other instruction, the group of its operands defined in the segment, or none
//!   (*common*: constants, splats of scalars, scalar arithmetic);
//! - an instruction with operands of two groups (a mask's bits, a shuffle across lanes)
//!   ends the segment instead, and stays where it is.
//!
//! A segment is then laid out group by group (group 0's instructions in their order,
//! then group 1's, ...), each common instruction just before its first user in that
//! order (or at the end). Every data dependence is kept (an operand is common or of its
//! user's group, so it is placed before the user) and every memory dependence too (two
//! accesses to the same bytes are in the same vector, hence the same group, and keep
//! their order); only the order changes, and with it the values live at once: group
//! `g`'s temporaries are dead before group `g + 1` starts.
//!
//! In the same walk, a load of a whole vector that the block stored or loaded earlier,
//! with no instruction that could write it in between, takes that value
//! (store-to-load forwarding across the segment; Cranelift's alias analysis forwards
//! only the file's latest store, and the translator's cache only within a few IR
//! instructions). A store no load then observes is deleted by `RegFile::prune`.
//!
//! `PTXJIT_GROUPED=0` turns both off (for A/B measurements).
//!
//! [`lanes`]: crate::jit::translate::lanes

use crate::jit::translate::lanes;
use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{
    Block, Function, Inst, InstBuilder, InstructionData, Opcode, Type, Value, ValueDef,
};

/// Whether [`regroup`] runs (`PTXJIT_GROUPED=0`: no).
pub(crate) fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXJIT_GROUPED").map_or(true, |v| v != "0"))
}

/// The register file's layout as [`regroup`] needs it.
pub(crate) struct FileLayout<'a> {
    /// The file's address (every value it has in the function, sorted): accesses
    /// through any other address end a segment.
    pub bases: &'a [Value],
    /// Per register, in increasing offset order: (byte offset, vectors, vector type).
    pub regs: &'a [(i32, usize, Type)],
}

impl FileLayout<'_> {
    /// The byte offset and lane group of the 16-byte vector holding an access of `size`
    /// bytes at `off`; `None` when the access is not inside one vector of a register.
    fn vector(&self, off: i64, size: u32) -> Option<(i64, u8)> {
        let i = self.regs.partition_point(|r| i64::from(r.0) <= off);
        let (ro, n, _) = *self.regs.get(i.checked_sub(1)?)?;
        let rel = off - i64::from(ro);
        let v = rel / 16;
        if v >= n as i64 || rel % 16 + i64::from(size) > 16 {
            return None;
        }
        let g = if n == lanes::N64 { v / 2 } else { v };
        Some((i64::from(ro) + 16 * v, g as u8))
    }
}

/// An instruction's place in its segment ([`Walk::class`]): not in the current segment.
const OUT: u8 = u8::MAX;
/// In the segment, of no lane group.
const COMMON: u8 = u8::MAX - 1;

/// Segments shorter than this keep their order (too few values to spill; the walk
/// costs compile time).
const MIN_SEGMENT: usize = 48;

/// A register-file access: (address, offset, bytes, is a store).
fn file_access(func: &Function, inst: Inst) -> Option<(Value, i64, u32, bool)> {
    match func.dfg.insts[inst] {
        InstructionData::Load {
            opcode: Opcode::Load,
            arg,
            offset,
            ..
        } => {
            let ty = func.dfg.value_type(func.dfg.first_result(inst));
            Some((arg, i64::from(offset), ty.bytes(), false))
        }
        InstructionData::Store {
            opcode: Opcode::Store,
            args,
            offset,
            ..
        } => {
            let ty = func.dfg.value_type(args[0]);
            Some((args[1], i64::from(offset), ty.bytes(), true))
        }
        _ => None,
    }
}

/// An instruction with no effect but its results (it may move freely).
fn is_pure(func: &Function, inst: Inst) -> bool {
    let op = func.dfg.insts[inst].opcode();
    !(op.is_call()
        || op.is_branch()
        || op.is_terminator()
        || op.is_return()
        || op.can_trap()
        || op.other_side_effects()
        || op.can_store()
        || op.can_load())
}

/// The walk over one function's blocks; per-instruction tables are indexed by the
/// instruction's number and reused from block to block.
struct Walk {
    /// Per instruction: [`OUT`], [`COMMON`] or its lane group.
    class: Vec<u8>,
    /// Per instruction: the segment number in which it was placed (new layout) or
    /// entered (depth-first search of its common operands).
    placed: Vec<u32>,
    visiting: Vec<u32>,
    /// The current segment's instructions in layout order.
    seg: Vec<Inst>,
    /// Segments started so far.
    gen: u32,
    /// The block's new layout.
    out: Vec<Inst>,
    stack: Vec<(Inst, bool)>,
    /// The block's instructions (a buffer).
    insts: Vec<Inst>,
    /// Per 16-byte vector of the file: the value it holds (`None`: unknown), and the
    /// vectors set since the last clear.
    known: Vec<Option<Value>>,
    set: Vec<usize>,
}

impl Walk {
    /// The class of `inst` from its operands defined in the segment (`None`: two groups).
    fn operand_class(&self, func: &Function, inst: Inst) -> Option<u8> {
        let mut c = COMMON;
        for v in func.dfg.inst_values(inst) {
            let ValueDef::Result(d, _) = func.dfg.value_def(v) else {
                continue;
            };
            match self.class[d.index()] {
                OUT | COMMON => {}
                g if c == COMMON => c = g,
                g if g == c => {}
                _ => return None,
            }
        }
        Some(c)
    }

    fn push(&mut self, inst: Inst, c: u8) {
        self.seg.push(inst);
        self.class[inst.index()] = c;
    }

    fn forget(&mut self) {
        for k in self.set.drain(..) {
            self.known[k] = None;
        }
    }

    fn learn(&mut self, k: usize, v: Option<Value>) {
        if let Some(x) = self.known.get_mut(k) {
            *x = v;
            self.set.push(k);
        }
    }

    /// Appends the segment to the block's new layout group by group, and empties it.
    fn flush(&mut self, func: &Function) {
        let seg = std::mem::take(&mut self.seg);
        let mut groups = seg
            .iter()
            .map(|i| self.class[i.index()])
            .filter(|&c| c < COMMON);
        let first = groups.next();
        if seg.len() >= MIN_SEGMENT && groups.any(|g| Some(g) != first) {
            self.gen += 1;
            for g in 0..lanes::N32 as u8 {
                for &i in &seg {
                    if self.class[i.index()] == g {
                        self.place(func, i);
                    }
                }
            }
            for &i in &seg {
                self.place(func, i);
            }
        } else {
            self.out.extend_from_slice(&seg);
        }
        for &i in &seg {
            self.class[i.index()] = OUT;
        }
        self.seg = seg;
        self.seg.clear();
    }

    /// Appends `inst` to the new layout after the segment's common instructions it
    /// depends on that are not placed yet (operands first), unless it is placed already.
    fn place(&mut self, func: &Function, inst: Inst) {
        let gen = self.gen;
        if self.placed[inst.index()] == gen {
            return;
        }
        // Depth first, iteratively: `(i, true)` is emitted once its operands are.
        self.stack.push((inst, false));
        while let Some((i, done)) = self.stack.pop() {
            if done {
                if self.placed[i.index()] != gen {
                    self.placed[i.index()] = gen;
                    self.out.push(i);
                }
                continue;
            }
            if self.placed[i.index()] == gen || self.visiting[i.index()] == gen {
                continue;
            }
            self.visiting[i.index()] = gen;
            self.stack.push((i, true));
            for v in func.dfg.inst_values(i) {
                if let ValueDef::Result(d, _) = func.dfg.value_def(v) {
                    if self.class[d.index()] == COMMON && self.placed[d.index()] != gen {
                        self.stack.push((d, false));
                    }
                }
            }
        }
    }

    /// Walks one block: forwards loads, collects and orders its segments, and rewrites
    /// its layout if the order changed.
    fn block(&mut self, func: &mut Function, file: &FileLayout, blk: Block) {
        let mut insts = std::mem::take(&mut self.insts);
        insts.clear();
        insts.extend(func.layout.block_insts(blk));
        self.out.clear();
        self.forget();
        for &inst in &insts {
            let access = file_access(func, inst)
                .filter(|a| {
                    let v = func.dfg.resolve_aliases(a.0);
                    file.bases.binary_search(&v).is_ok()
                })
                .and_then(|(_, off, size, store)| {
                    file.vector(off, size).map(|v| (off, size, store, v))
                });
            let Some((off, size, store, (voff, g))) = access else {
                if is_pure(func, inst) {
                    match self.operand_class(func, inst) {
                        Some(c) => self.push(inst, c),
                        None => {
                            self.flush(func);
                            self.out.push(inst);
                        }
                    }
                } else {
                    self.flush(func);
                    self.out.push(inst);
                    self.forget();
                }
                continue;
            };
            let k = (voff / 16) as usize;
            let whole = off == voff && size == 16;
            if store {
                match self.operand_class(func, inst) {
                    Some(c) if c == COMMON || c == g => {}
                    _ => {
                        // A value of another group (the lowerings make none).
                        self.flush(func);
                        self.out.push(inst);
                        self.forget();
                        continue;
                    }
                }
                let val = func.dfg.inst_args(inst)[0];
                self.learn(k, whole.then_some(val));
                self.push(inst, g);
                continue;
            }
            let r = func.dfg.first_result(inst);
            let ty = func.dfg.value_type(r);
            match self.known.get(k).copied().flatten().filter(|_| whole) {
                Some(v) if func.dfg.value_type(v) == ty => {
                    func.layout.remove_inst(inst);
                    func.dfg.clear_results(inst);
                    func.dfg.change_to_alias(r, v);
                }
                Some(v) => {
                    func.replace(inst).bitcast(ty, lanes::le(), v);
                    let c = self.operand_class(func, inst).unwrap_or(g);
                    self.push(inst, c);
                }
                None => {
                    if whole {
                        self.learn(k, Some(r));
                    }
                    self.push(inst, g);
                }
            }
        }
        self.flush(func);
        let now = insts
            .iter()
            .filter(|&&i| func.layout.inst_block(i).is_some());
        if now.ne(self.out.iter()) {
            for &i in &self.out {
                func.layout.remove_inst(i);
            }
            for &i in &self.out {
                func.layout.append_inst(i, blk);
            }
        }
        self.insts = insts;
    }
}

/// Lays out every block's segments lane group by lane group and forwards register-file
/// stores to loads (see the module doc). A forwarded load is removed from the layout or,
/// where the stored value's type differs, becomes a `bitcast` of it.
pub(crate) fn regroup(func: &mut Function, file: &FileLayout) {
    let n = func.dfg.num_insts();
    let vectors = file.regs.last().map_or(0, |r| r.0 as usize / 16 + r.1);
    let mut w = Walk {
        class: vec![OUT; n],
        placed: vec![0; n],
        visiting: vec![0; n],
        seg: Vec::new(),
        gen: 0,
        out: Vec::new(),
        stack: Vec::new(),
        insts: Vec::new(),
        known: vec![None; vectors],
        set: Vec::new(),
    };
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for blk in blocks {
        w.block(func, file, blk);
    }
}
