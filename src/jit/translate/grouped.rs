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
use cranelift_codegen::ir::{
    Block, Function, Inst, InstBuilder, InstructionData, Opcode, Type, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// Whether [`regroup`] runs (`PTXJIT_GROUPED=0`: no).
pub(crate) fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXJIT_GROUPED").map_or(true, |v| v != "0"))
}

/// The register file's layout as [`regroup`] needs it.
pub(crate) struct FileLayout<'a> {
    /// The file's address: accesses through any other address end a segment.
    pub base: Value,
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

/// An instruction's place in its segment.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Common,
    Group(u8),
}

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

/// The segment being collected in one block.
#[derive(Default)]
struct Segment {
    /// Its instructions in layout order, with their classes.
    insts: Vec<(Inst, Class)>,
    class: HashMap<Inst, Class>,
}

impl Segment {
    /// The class of `inst` from its operands defined in the segment (`None`: two groups).
    fn operand_class(&self, func: &Function, inst: Inst) -> Option<Class> {
        let mut c = Class::Common;
        for v in func.dfg.inst_values(inst) {
            let v = func.dfg.resolve_aliases(v);
            let ValueDef::Result(d, _) = func.dfg.value_def(v) else {
                continue;
            };
            match (c, self.class.get(&d)) {
                (_, None | Some(Class::Common)) => {}
                (Class::Common, Some(&g)) => c = g,
                (x, Some(&g)) if x == g => {}
                _ => return None,
            }
        }
        Some(c)
    }

    fn push(&mut self, inst: Inst, c: Class) {
        self.insts.push((inst, c));
        self.class.insert(inst, c);
    }

    /// Lays the segment out group by group before `anchor` (the instruction that ended
    /// it; `None`: the end of `blk`), and empties it.
    fn flush(&mut self, func: &mut Function, blk: Block, anchor: Option<Inst>) {
        let insts = std::mem::take(&mut self.insts);
        let class = std::mem::take(&mut self.class);
        let mut groups = insts.iter().filter_map(|&(_, c)| match c {
            Class::Group(g) => Some(g),
            Class::Common => None,
        });
        let first = groups.next();
        if !groups.any(|g| Some(g) != first) {
            return;
        }
        let mut order = Vec::with_capacity(insts.len());
        let mut placed = HashSet::with_capacity(insts.len());
        for g in 0..lanes::N32 as u8 {
            for &(i, c) in &insts {
                if c == Class::Group(g) {
                    place(func, &class, i, &mut order, &mut placed);
                }
            }
        }
        for &(i, _) in &insts {
            place(func, &class, i, &mut order, &mut placed);
        }
        for &(i, _) in &insts {
            func.layout.remove_inst(i);
        }
        for i in order {
            match anchor {
                Some(a) => func.layout.insert_inst(i, a),
                None => func.layout.append_inst(i, blk),
            }
        }
    }
}

/// Appends `inst` to `order` after the common instructions of the segment it depends on
/// that are not placed yet (operands first), unless it is placed already.
fn place(
    func: &Function,
    class: &HashMap<Inst, Class>,
    inst: Inst,
    order: &mut Vec<Inst>,
    placed: &mut HashSet<Inst>,
) {
    // Depth first, iteratively: `(i, true)` is emitted once its operands are.
    let mut stack = vec![(inst, false)];
    let mut visiting = HashSet::new();
    while let Some((i, done)) = stack.pop() {
        if done {
            if placed.insert(i) {
                order.push(i);
            }
            continue;
        }
        if placed.contains(&i) || !visiting.insert(i) {
            continue;
        }
        stack.push((i, true));
        for v in func.dfg.inst_values(i) {
            let v = func.dfg.resolve_aliases(v);
            if let ValueDef::Result(d, _) = func.dfg.value_def(v) {
                if class.get(&d) == Some(&Class::Common) && !placed.contains(&d) {
                    stack.push((d, false));
                }
            }
        }
    }
}

/// Lays out every block's segments lane group by lane group and forwards register-file
/// stores to loads (see the module doc). A forwarded load is removed from the layout or,
/// where the stored value's type differs, becomes a `bitcast` of it.
pub(crate) fn regroup(func: &mut Function, file: &FileLayout) {
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for blk in blocks {
        let insts: Vec<Inst> = func.layout.block_insts(blk).collect();
        let mut seg = Segment::default();
        // The value each 16-byte vector of the file holds, by its offset.
        let mut known: HashMap<i64, Value> = HashMap::new();
        for inst in insts {
            let access = file_access(func, inst)
                .filter(|a| func.dfg.resolve_aliases(a.0) == file.base)
                .and_then(|(_, off, size, store)| {
                    file.vector(off, size).map(|v| (off, size, store, v))
                });
            if let Some((off, size, store, (voff, g))) = access {
                let whole = off == voff && size == 16;
                if store {
                    let val = func.dfg.inst_args(inst)[0];
                    match seg.operand_class(func, inst) {
                        Some(Class::Common) => {}
                        Some(c) if c == Class::Group(g) => {}
                        _ => {
                            // A value of another group (never made by the lowerings).
                            seg.flush(func, blk, Some(inst));
                            known.clear();
                            continue;
                        }
                    }
                    if whole {
                        known.insert(voff, val);
                    } else {
                        known.remove(&voff);
                    }
                    seg.push(inst, Class::Group(g));
                    continue;
                }
                let r = func.dfg.first_result(inst);
                let ty = func.dfg.value_type(r);
                match known.get(&voff).copied().filter(|_| whole) {
                    Some(v) if func.dfg.value_type(v) == ty => {
                        func.layout.remove_inst(inst);
                        func.dfg.clear_results(inst);
                        func.dfg.change_to_alias(r, v);
                    }
                    Some(v) => {
                        func.replace(inst).bitcast(ty, lanes::le(), v);
                        let c = seg.operand_class(func, inst).unwrap_or(Class::Group(g));
                        seg.push(inst, c);
                    }
                    None => {
                        if whole {
                            known.insert(voff, r);
                        }
                        seg.push(inst, Class::Group(g));
                    }
                }
                continue;
            }
            if is_pure(func, inst) {
                match seg.operand_class(func, inst) {
                    Some(c) => seg.push(inst, c),
                    None => seg.flush(func, blk, Some(inst)),
                }
                continue;
            }
            seg.flush(func, blk, Some(inst));
            known.clear();
        }
        seg.flush(func, blk, None);
    }
}
