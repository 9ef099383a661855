//! Where the lanes split by a divergent terminator can meet again (see the parent
//! module's doc): the registers forced to varying at those blocks' entries.

use super::transfer::term_writes;
use super::{Fact, Shape};
use crate::ir::{Function, RegId, Terminator};

/// A set of registers (one bit each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RegSet(Vec<u64>);

impl RegSet {
    pub fn new(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, r: RegId) {
        if let Some(w) = self.0.get_mut(r.0 as usize / 64) {
            *w |= 1 << (r.0 % 64);
        }
    }
    fn union(&mut self, o: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn contains(&self, r: usize) -> bool {
        self.0.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 != 0)
    }
    /// Makes the registers of the set varying in `st`.
    pub fn apply(&self, st: &mut [Fact]) {
        if self.0.iter().all(|w| *w == 0) {
            return;
        }
        for (r, x) in st.iter_mut().enumerate() {
            if self.contains(r) {
                *x = Fact::VARYING;
            }
        }
    }
}

/// Per block: the registers its instructions and terminator write.
pub(super) fn block_defs(f: &Function) -> Vec<RegSet> {
    f.blocks
        .iter()
        .map(|blk| {
            let mut s = RegSet::new(f.regs.len());
            for i in &blk.insts {
                for r in i.kind.defs() {
                    s.insert(r);
                }
            }
            let mut tmp = vec![Fact::UNIFORM; f.regs.len()];
            term_writes(&blk.term, &mut tmp);
            for (r, x) in tmp.iter().enumerate() {
                if x.shape == Shape::Varying {
                    s.insert(RegId(r as u32));
                }
            }
            s
        })
        .collect()
}

/// Blocks reachable from `from` without entering `stop` (`from` itself included unless
/// it is `stop`).
fn reach(f: &Function, from: &[usize], stop: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; f.blocks.len()];
    let mut work: Vec<usize> = Vec::new();
    for &s in from {
        if Some(s) != stop && s < seen.len() && !seen[s] {
            seen[s] = true;
            work.push(s);
        }
    }
    while let Some(x) = work.pop() {
        for y in f.blocks[x].term.successors() {
            let y = y.0 as usize;
            if Some(y) != stop && y < seen.len() && !seen[y] {
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
    b: usize,
    pdom: &[Option<usize>],
    defs: &[RegSet],
    forced: &mut [RegSet],
) {
    let n = f.blocks.len();
    let succ: Vec<usize> = f.blocks[b]
        .term
        .successors()
        .iter()
        .map(|s| s.0 as usize)
        .collect();
    let p = pdom.get(b).copied().flatten();
    let region = reach(f, &succ, p);
    let members: Vec<usize> = (0..n).filter(|&x| region[x]).collect();
    let mut written = RegSet::new(f.regs.len());
    for &x in &members {
        written.union(&defs[x]);
    }
    let parks_inside = members.iter().any(|&x| parks(&f.blocks[x].term));
    let splitting_parks = parks(&f.blocks[b].term);
    let below_p = |x: usize| p.is_none_or(|p| x < p);
    let others: Vec<usize> = succ.iter().copied().filter(|&s| Some(s) != p).collect();
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
    let forward = |x: usize| {
        f.blocks[x]
            .term
            .successors()
            .iter()
            .all(|y| (y.0 as usize) > x)
    };
    let clean = !splitting_parks
        && !parks_inside
        && forward(b)
        && members.iter().all(|&x| forward(x) && below_p(x));
    if clean {
        if let Some(p) = p {
            forced[p].union(&written);
        }
        let mut preds = vec![0u32; n];
        for &x in members.iter().chain(std::iter::once(&b)) {
            let mut ss: Vec<usize> = f.blocks[x]
                .term
                .successors()
                .iter()
                .map(|s| s.0 as usize)
                .collect();
            ss.sort_unstable();
            ss.dedup();
            for y in ss {
                if y < n {
                    preds[y] += 1;
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
    // Anything else: every block reachable from the split.
    let all = reach(f, &succ, None);
    let mut written = RegSet::new(f.regs.len());
    for x in (0..n).filter(|&x| all[x]) {
        written.union(&defs[x]);
    }
    for x in (0..n).filter(|&x| all[x]) {
        forced[x].union(&written);
    }
}
