//! Call-graph facts: the functions a kernel can reach through calls, whether it can reach
//! a barrier (check inserts resume blocks after such calls; a launch runs such kernels in
//! coroutines), and how many bytes of call stack each thread needs.

use crate::ir::{FuncId, IdxVec, InstKind, Module, Terminator, MAX_CALL_DEPTH};

/// Call-stack bytes per thread above which recursion stops with an error.
pub const MAX_CALL_STACK: u64 = 256 * 1024;

fn callees(m: &Module, f: FuncId) -> impl Iterator<Item = FuncId> + '_ {
    m.functions
        .get(f)
        .into_iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| match &b.term {
            Terminator::Call { func, .. } => std::slice::from_ref(func),
            Terminator::CallIndirect { targets, .. } => targets.as_slice(),
            _ => &[],
        })
        .copied()
}

/// Functions reachable from `root` through calls (`root` included), and whether the
/// call graph below `root` has a cycle.
fn reachable(m: &Module, root: FuncId) -> (Vec<FuncId>, bool) {
    let n = m.functions.len();
    // 0 = unseen, 1 = on the DFS stack, 2 = done.
    let mut state: IdxVec<FuncId, u8> = IdxVec::from_elem(0, n);
    let mut order = Vec::new();
    let mut cyclic = false;
    let mut stack: Vec<(FuncId, Vec<FuncId>, usize)> = Vec::new();
    if state.get(root).is_some() {
        state[root] = 1;
        stack.push((root, callees(m, root).collect(), 0));
        order.push(root);
    }
    while let Some(top) = stack.last_mut() {
        if let Some(&c) = top.1.get(top.2) {
            top.2 += 1;
            match state.get(c) {
                Some(0) => {
                    state[c] = 1;
                    order.push(c);
                    let cs = callees(m, c).collect();
                    stack.push((c, cs, 0));
                }
                Some(1) => cyclic = true,
                _ => {}
            }
        } else {
            state[top.0] = 2;
            stack.pop();
        }
    }
    (order, cyclic)
}

/// The functions `root` can reach through calls, direct or through a call table
/// (`root` first): what the JIT compiles for a kernel's first launch.
pub fn reachable_funcs(m: &Module, root: FuncId) -> Vec<FuncId> {
    reachable(m, root).0
}

/// Whether kernel `f` contains a call.
pub fn has_calls(m: &Module, f: FuncId) -> bool {
    callees(m, f).next().is_some()
}

/// Whether `f` or a function it can call contains a barrier (the grid barrier too).
pub fn reaches_barrier(m: &Module, f: FuncId) -> bool {
    reachable(m, f).0.iter().any(|g| {
        m.functions[*g].blocks.iter().any(|b| {
            matches!(b.term, Terminator::Barrier { .. })
                || b.insts.iter().any(|i| {
                    matches!(i.kind, InstKind::BarArrive { .. }) || i.kind.waits_for_grid()
                })
        })
    })
}

/// Whether `f` or a function it can call contains an mbarrier wait, which lets the
/// CTA's other warps run ([`AsyncOp::polls`](crate::ir::AsyncOp::polls)).
pub fn polls(m: &Module, f: FuncId) -> bool {
    reachable(m, f).0.iter().any(|g| {
        m.functions[*g].blocks.iter().any(|b| {
            b.insts
                .iter()
                .any(|i| matches!(i.kind, InstKind::Async { op, .. } if op.polls()))
        })
    })
}

/// Bytes of call stack each thread of kernel `f` needs below its own frame: the deepest
/// chain of callee frames, or for recursive call graphs [`MAX_CALL_DEPTH`] of the
/// largest frame, at most [`MAX_CALL_STACK`].
pub fn call_stack_bytes(m: &Module, f: FuncId) -> u64 {
    let (order, cyclic) = reachable(m, f);
    let frame = |g: FuncId| m.functions[g].call_frame() as u64;
    if cyclic {
        let max = order.iter().skip(1).map(|&g| frame(g)).max().unwrap_or(0);
        return (max * (MAX_CALL_DEPTH as u64 + 1)).min(MAX_CALL_STACK);
    }
    // Acyclic: longest path, callees first (reverse DFS pre-order is not enough in
    // general, so iterate to a fixed point; the graph is small).
    let mut need: IdxVec<FuncId, u64> = IdxVec::from_elem(0, m.functions.len());
    for _ in 0..order.len() {
        let mut changed = false;
        for &g in order.iter().rev() {
            let v = callees(m, g).map(|c| frame(c) + need[c]).max().unwrap_or(0);
            if v != need[g] {
                need[g] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    need[f].min(MAX_CALL_STACK)
}
