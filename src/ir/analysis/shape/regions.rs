//! Where the lanes split by a divergent terminator can meet again (see the parent
//! module's doc): the registers forced to varying at those blocks' entries.

use super::transfer::term_writes;
use super::{Fact, State};
use crate::ir::{BlockId, Function, Idx, IdxVec, RegId, Terminator};

/// A set of registers (one bit each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RegSet(Vec<u64>);

impl RegSet {
    pub fn new(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, r: RegId) {
        // One bit per register: the word is the register's index over 64.
        if let Some(w) = self.0.get_mut(r.index() / 64) {
            *w |= 1 << (r.0 % 64);
        }
    }
    fn union(&mut self, o: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    pub fn contains(&self, r: RegId) -> bool {
        let r = r.index();
        self.0.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 != 0)
    }
    /// Makes the registers of the set varying in `st`.
    pub fn apply(&self, st: &mut State) {
        for (k, &w) in self.0.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                st.set(RegId((k * 64 + b) as u32), Fact::VARYING);
            }
        }
    }
}

/// Per block: the registers its instructions and terminator write.
pub(super) fn block_defs(f: &Function) -> IdxVec<BlockId, RegSet> {
    f.blocks
        .iter()
        .map(|blk| {
            let mut s = RegSet::new(f.regs.len());
            for i in &blk.insts {
                for r in i.kind.defs() {
                    s.insert(r);
                }
            }
            for r in term_writes(&blk.term) {
                s.insert(r);
            }
            s
        })
        .collect()
}

/// Blocks reachable from `from` without entering `stop` (`from` itself included unless
/// it is `stop`).
fn reach(f: &Function, from: &[BlockId], stop: Option<BlockId>) -> IdxVec<BlockId, bool> {
    let mut seen = IdxVec::from_elem(false, f.blocks.len());
    let mut work: Vec<BlockId> = Vec::new();
    for &s in from {
        if Some(s) != stop && seen.get(s) == Some(&false) {
            seen[s] = true;
            work.push(s);
        }
    }
    while let Some(x) = work.pop() {
        for y in f.blocks[x].term.successors() {
            if Some(y) != stop && seen.get(y) == Some(&false) {
                seen[y] = true;
                work.push(y);
            }
        }
    }
    seen
}

/// Whether a terminator can park lanes (a barrier, or a call that may split).
fn parks(t: &Terminator) -> bool {
    matches!(
        t,
        Terminator::Barrier { .. }
            | Terminator::Call {
                resume: Some(_),
                ..
            }
            | Terminator::CallIndirect {
                resume: Some(_),
                ..
            }
            | Terminator::Resume { .. }
    )
}

/// Adds to `forced` the registers that are varying at the blocks where the lanes split
/// by the divergent terminator of block `b` can meet again (see the module doc).
pub(super) fn meeting_points(
    f: &Function,
    b: BlockId,
    pdom: &IdxVec<BlockId, Option<BlockId>>,
    defs: &IdxVec<BlockId, RegSet>,
    forced: &mut IdxVec<BlockId, RegSet>,
) {
    let succ: Vec<BlockId> = f.blocks[b].term.successors();
    let p = pdom.get(b).copied().flatten();
    let region = reach(f, &succ, p);
    let members: Vec<BlockId> = f.blocks.ids().filter(|&x| region[x]).collect();
    let mut written = RegSet::new(f.regs.len());
    for &x in &members {
        written.union(&defs[x]);
    }
    let parks_inside = members.iter().any(|&x| parks(&f.blocks[x].term));
    let splitting_parks = parks(&f.blocks[b].term);
    let below_p = |x: BlockId| p.is_none_or(|p| x < p);
    let others: Vec<BlockId> = succ.iter().copied().filter(|&s| Some(s) != p).collect();
    let one_group = !splitting_parks
        && !others.is_empty()
        && others.iter().all(|&s| s == others[0])
        && p.is_some()
        && members.iter().all(|&x| below_p(x))
        && !parks_inside;
    if one_group {
        if let Some(p) = p {
            forced[p].union(&written);
        }
        return;
    }
    let forward = |x: BlockId| f.blocks[x].term.successors().iter().all(|&y| y > x);
    let clean = !splitting_parks
        && !parks_inside
        && forward(b)
        && members.iter().all(|&x| forward(x) && below_p(x));
    if clean {
        if let Some(p) = p {
            forced[p].union(&written);
        }
        let mut preds: IdxVec<BlockId, u32> = IdxVec::from_elem(0, f.blocks.len());
        for &x in members.iter().chain(std::iter::once(&b)) {
            let mut ss: Vec<BlockId> = f.blocks[x].term.successors();
            ss.sort_unstable();
            ss.dedup();
            for y in ss {
                if let Some(p) = preds.get_mut(y) {
                    *p += 1;
                }
            }
        }
        for &x in &members {
            if preds[x] >= 2 {
                forced[x].union(&written);
            }
        }
        return;
    }
    // Loops inside the region (its only other difference from a clean split): the
    // lanes still leave the region only through `p`, which no lane runs before every
    // lane in the region has reached it or exited (`p` is numbered above every block
    // of the region), but with back edges the lanes can meet at any block of the
    // region, so the registers written in it are varying at each of its blocks and at
    // `p`, not beyond `p` (a loop inside an `if`: `for (k = tid; k < 64; k += ntid)`
    // before a grid-stride loop).
    let enclosed =
        !splitting_parks && !parks_inside && p.is_some() && members.iter().all(|&x| below_p(x));
    if let (true, Some(p)) = (enclosed, p) {
        for &x in members.iter().chain(std::iter::once(&p)) {
            forced[x].union(&written);
        }
        return;
    }
    // Anything else: every block reachable from the split.
    let all = reach(f, &succ, None);
    let mut written = RegSet::new(f.regs.len());
    for x in f.blocks.ids().filter(|&x| all[x]) {
        written.union(&defs[x]);
    }
    for x in f.blocks.ids().filter(|&x| all[x]) {
        forced[x].union(&written);
    }
}
