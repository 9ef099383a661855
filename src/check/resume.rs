//! Resume blocks: after every function is checked, each call whose callee (or one of
//! whose indirect targets) can reach a barrier gets an empty [`Terminator::Resume`]
//! block inserted right after the calling block, and the call names it in its `resume`
//! field. Lanes of a warp that were suspended at a barrier inside such a call while the
//! warp's other lanes went on continue the call there (see `exec::split`).
//!
//! Inserting the block right after the call keeps the numbering a reverse post-order:
//! its only predecessor is the call's block and its only successor is the call's `next`,
//! which came after the call's block already.

use crate::ir::analysis::callgraph::reaches_barrier;
use crate::ir::{Block, BlockId, FuncId, Function, IdxVec, Module, Terminator};

/// Adds the resume blocks of every function of `m`.
pub fn add_resume_blocks(m: &mut Module) {
    let reaches: IdxVec<FuncId, bool> = m.functions.ids().map(|i| reaches_barrier(m, i)).collect();
    let needs = |t: &Terminator| match t {
        Terminator::Call { func, .. } => reaches.get(*func) == Some(&true),
        Terminator::CallIndirect { targets, .. } => {
            targets.iter().any(|&f| reaches.get(f) == Some(&true))
        }
        _ => false,
    };
    for f in &mut m.functions {
        let calls: Vec<BlockId> = f
            .blocks
            .ids()
            .filter(|&i| needs(&f.blocks[i].term))
            .collect();
        if !calls.is_empty() {
            insert_after(f, &calls);
        }
    }
}

/// Inserts a resume block after each block of `calls` (ascending ids of call
/// blocks), renumbering every block reference.
fn insert_after(f: &mut Function, calls: &[BlockId]) {
    let n = f.blocks.len();
    // New number of old block i: i plus the resume blocks inserted before it.
    let mut new_id: IdxVec<BlockId, BlockId> = IdxVec::new();
    let mut shift = 0u32;
    for i in f.blocks.ids() {
        new_id.push(BlockId(i.0 + shift));
        if calls.binary_search(&i).is_ok() {
            shift += 1;
        }
    }
    let map = |b: &mut BlockId| {
        if let Some(&x) = new_id.get(*b) {
            *b = x;
        }
    };
    let old = std::mem::take(&mut f.blocks);
    let mut out = IdxVec::new();
    out.reserve(n + calls.len());
    for (i, mut b) in old.into_iter_enumerated() {
        remap(&mut b.term, &map);
        let resume = match &mut b.term {
            Terminator::Call {
                next, resume, inst, ..
            }
            | Terminator::CallIndirect {
                next, resume, inst, ..
            } if calls.binary_search(&i).is_ok() => {
                let r = BlockId(new_id[i].0 + 1);
                *resume = Some(r);
                Some(Block {
                    label: None,
                    insts: Vec::new(),
                    term: Terminator::Resume {
                        call: new_id[i],
                        next: *next,
                        inst: *inst,
                    },
                })
            }
            _ => None,
        };
        out.push(b);
        out.extend(resume);
    }
    f.blocks = out;
}

/// Applies `map` to every block a terminator names.
fn remap(t: &mut Terminator, map: &impl Fn(&mut BlockId)) {
    match t {
        Terminator::Jump { target, .. } => map(target),
        Terminator::Branch {
            taken, not_taken, ..
        } => {
            map(taken);
            map(not_taken);
        }
        Terminator::Ret { next, .. } | Terminator::Exit { next, .. } => {
            if let Some(n) = next {
                map(n);
            }
        }
        Terminator::Barrier { next, .. } => map(next),
        Terminator::BrxIdx { targets, next, .. } => {
            targets.iter_mut().for_each(map);
            map(next);
        }
        Terminator::Call { next, resume, .. } | Terminator::CallIndirect { next, resume, .. } => {
            map(next);
            if let Some(r) = resume {
                map(r);
            }
        }
        Terminator::Resume { call, next, .. } => {
            map(call);
            map(next);
        }
    }
}
