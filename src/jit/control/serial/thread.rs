//! Threaded dispatch in the lane-by-lane form (see the parent module): the blocks
//! that lead from the targets of the loop's `brx.idx` back to it (the loop's latch and
//! header, the `brx.idx` itself) are translated once more per target, and each target
//! continues into its own copy, so each target ends in its own indirect jump.
//!
//! Profile (the `bytecode` benchmark, one lane's loop: ~45 instructions per step): the
//! samples gather at the one indirect jump that every step takes; a processor predicts
//! an indirect jump from its address and the recent history, and with one jump for all
//! opcodes its prediction can only use the history. With one jump per opcode (what an
//! interpreter written with computed gotos gets, and what LLVM's tail duplication
//! gives POCL's `switch`), the jump after opcode `a` predicts the opcode that follows
//! `a`. Each copy is the same code as the original blocks (the same checks, stop check
//! and bail-outs), so the lane's steps are unchanged.
//!
//! With copies, each target has one predecessor per copy, and a value that the
//! `brx.idx` block computes for the targets (the interpreter's stack addresses, `pc + 1`)
//! became a phi of all of them, computed before every indirect jump whether the target
//! uses it or not. When every target is reached only from the `brx.idx` block, the
//! block's pure instructions that nothing after them in the block needs ([`sinkable`])
//! are translated at the start of each target instead (LLVM sinks them the same way).

use super::Lanes;
use crate::ir::{BlockId, Idx, Terminator};
use crate::jit::translate::serial_region::Region;
use crate::jit::translate::FuncTranslator;
use cranelift_codegen::ir::Block;
use std::collections::HashMap;

/// Copies are made only while (instructions of the copied blocks) × (targets) stays at
/// most this (compile time).
const MAX_COPIED_INSTS: usize = 2048;

/// The copies of one loop's dispatch blocks.
#[derive(Default)]
pub(super) struct Threads {
    /// Per target of the `brx.idx` (by block number): the index of its copy.
    pub copy_of: HashMap<usize, usize>,
    /// The copied blocks, by block number, in block order.
    pub dup: Vec<usize>,
    /// Per (copy, copied block): its Cranelift block.
    pub blocks: HashMap<(usize, usize), Block>,
    /// The copy being translated (set for a target and for the blocks of its copy).
    pub cur: Option<usize>,
    /// The `brx.idx` block (by block number) and the indices of its instructions that
    /// are translated at the start of each target instead ([`sinkable`]).
    pub sink: Option<(usize, Vec<usize>)>,
}

/// The instructions of block `b` (a `brx.idx` block) that may run at the start of its
/// targets instead: unguarded integer `mov`/arithmetic/`cvt` whose result no later
/// instruction that stays (nor the terminator) reads or writes, and whose sources no
/// later instruction that stays writes (so they see the same values there).
fn sinkable(f: &crate::ir::Function, b: BlockId) -> Vec<usize> {
    use crate::ir::analysis::liveness::{inst_effect, term_effect};
    use crate::ir::InstKind;
    let blk = &f.blocks[b];
    let term = term_effect(f, &blk.term);
    // Registers read / written by the instructions after the current one that stay.
    let mut read: std::collections::HashSet<crate::ir::RegId> = term.uses.into_iter().collect();
    let mut written: std::collections::HashSet<crate::ir::RegId> = term.defs.into_iter().collect();
    let mut out = Vec::new();
    for (k, i) in blk.insts.iter().enumerate().rev() {
        let e = inst_effect(f, i);
        let pure = i.guard.is_none()
            && matches!(
                i.kind,
                InstKind::Arith { .. } | InstKind::Mov { .. } | InstKind::Cvt { .. }
            );
        let ok = pure
            && e.defs
                .iter()
                .all(|d| !read.contains(d) && !written.contains(d))
            && e.uses.iter().all(|u| !written.contains(u));
        if ok {
            out.push(k);
        } else {
            read.extend(e.uses);
            written.extend(e.defs);
        }
    }
    out.reverse();
    out
}

/// Whether threaded dispatch is used: `PTXJIT_SERIAL_THREAD=0` turns it off, to compare.
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXJIT_SERIAL_THREAD").map_or(true, |v| v != "0"))
}

impl FuncTranslator<'_> {
    /// The copies for loop `region` (none unless it has exactly one `brx.idx`, without a
    /// guard, and the copies stay small); creates their Cranelift blocks.
    pub(super) fn serial_threads(&mut self, region: &Region) -> Threads {
        let mut t = Threads::default();
        if !enabled() {
            return t;
        }
        let f = self.f;
        let inside = |b: usize| region.inside.get(b).copied().unwrap_or(false);
        let mut brx = None;
        for (id, blk) in f.blocks.iter_enumerated() {
            if !inside(id.index()) {
                continue;
            }
            if let Terminator::BrxIdx { guard, targets, .. } = &blk.term {
                if brx.is_some() || guard.is_some() {
                    return t;
                }
                brx = Some((id.index(), targets));
            }
        }
        let Some((b, targets)) = brx else {
            return t;
        };
        let mut tset: Vec<usize> = targets.iter().map(|x| x.index()).collect();
        tset.sort_unstable();
        tset.dedup();
        if tset.contains(&b) || tset.iter().any(|&x| !inside(x)) {
            return t;
        }
        let n = f.blocks.len();
        let is_target = |x: usize| tset.binary_search(&x).is_ok();
        // Forward from the targets' successors (not into a target, not past `b`).
        let mut fwd = vec![false; n];
        let mut work: Vec<usize> = Vec::new();
        for &x in &tset {
            for s in f.blocks[BlockId(x as u32)].term.successors() {
                work.push(s.index());
            }
        }
        while let Some(x) = work.pop() {
            if x >= n || !inside(x) || is_target(x) || fwd[x] {
                continue;
            }
            fwd[x] = true;
            if x != b {
                work.extend(
                    f.blocks[BlockId(x as u32)]
                        .term
                        .successors()
                        .iter()
                        .map(|s| s.index()),
                );
            }
        }
        // Backward from `b` (not through a target).
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (id, blk) in f.blocks.iter_enumerated() {
            for s in blk.term.successors() {
                if let Some(p) = preds.get_mut(s.index()) {
                    p.push(id.index());
                }
            }
        }
        let mut bwd = vec![false; n];
        let mut work = vec![b];
        while let Some(x) = work.pop() {
            if !inside(x) || is_target(x) || bwd[x] {
                continue;
            }
            bwd[x] = true;
            work.extend(preds[x].iter().copied());
        }
        let dup: Vec<usize> = (0..n).filter(|&x| fwd[x] && bwd[x]).collect();
        let insts: usize = dup
            .iter()
            .map(|&x| f.blocks[BlockId(x as u32)].insts.len() + 1)
            .sum();
        if !dup.contains(&b) || insts * tset.len() > MAX_COPIED_INSTS {
            return t;
        }
        for (k, &x) in tset.iter().enumerate() {
            t.copy_of.insert(x, k);
            for &d in &dup {
                t.blocks.insert((k, d), self.b.create_block());
            }
        }
        t.dup = dup;
        // Every target reached only from the `brx.idx` block: its values can be computed
        // in the target (each target's own SSA values, not phis of its 1 + copies
        // predecessors).
        let sole = tset.iter().all(|&x| preds[x].iter().all(|&p| p == b));
        if sole {
            let k = sinkable(f, BlockId(b as u32));
            if !k.is_empty() {
                t.sink = Some((b, k));
            }
        }
        t
    }

    /// The block of copy `st.threads.cur` for IR block `t`, if `t` is copied.
    pub(super) fn thread_target(&self, t: BlockId, st: &Lanes) -> Option<Block> {
        let k = st.threads.cur?;
        st.threads.blocks.get(&(k, t.index())).copied()
    }
}
