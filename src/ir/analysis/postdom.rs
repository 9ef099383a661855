//! Immediate post-dominators of a function's blocks (Cooper, Harvey and Kennedy's
//! iterative algorithm on the reverse CFG, with a virtual exit after every block that
//! ends the function).

use crate::ir::{BlockId, Function, Idx, IdxVec};

/// Per block: its immediate post-dominator, `None` when that is the virtual exit (the
/// paths from the block end in different `ret`/`exit` blocks) or when the block cannot
/// reach an end of the function.
pub fn immediate_postdominators(f: &Function) -> IdxVec<BlockId, Option<BlockId>> {
    // The nodes are the block indices plus the virtual exit `n`, so the tables below are
    // plain vectors indexed by `usize`.
    let n = f.blocks.len();
    let exit = n;
    let succ: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| {
            let mut s: Vec<usize> = b.term.successors().iter().map(|x| x.index()).collect();
            s.retain(|&x| x < n);
            s.sort_unstable();
            s.dedup();
            if s.is_empty() {
                s.push(exit);
            }
            s
        })
        .collect();
    // Predecessors in the CFG = successors in the reverse graph.
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (x, ss) in succ.iter().enumerate() {
        for &y in ss {
            pred[y].push(x);
        }
    }
    // Post-order of the reverse graph from the virtual exit (iterative DFS).
    let mut order = vec![usize::MAX; n + 1];
    let mut post: Vec<usize> = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
    seen[exit] = true;
    while let Some(&mut (x, ref mut k)) = stack.last_mut() {
        if let Some(&y) = pred[x].get(*k) {
            *k += 1;
            if !seen[y] {
                seen[y] = true;
                stack.push((y, 0));
            }
        } else {
            order[x] = post.len();
            post.push(x);
            stack.pop();
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n + 1];
    idom[exit] = Some(exit);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            while order[a] < order[b] {
                a = idom[a].unwrap_or(exit);
            }
            while order[b] < order[a] {
                b = idom[b].unwrap_or(exit);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &x in post.iter().rev() {
            if x == exit {
                continue;
            }
            let mut new: Option<usize> = None;
            for &y in &succ[x] {
                if idom[y].is_none() || order[y] == usize::MAX {
                    continue;
                }
                new = Some(match new {
                    None => y,
                    Some(c) => intersect(&idom, c, y),
                });
            }
            if new.is_some() && idom[x] != new {
                idom[x] = new;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|x| match idom[x] {
            Some(p) if p != exit && order[x] != usize::MAX => Some(BlockId::from_index(p)),
            _ => None,
        })
        .collect()
}
