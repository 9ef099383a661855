//! Which blocks can run while lanes wait elsewhere (`ir::analysis::cfg::divergent_blocks`)
//! on hand-built IR: the expected sets are worked out by hand in each test's comment
//! from the dispatcher's rule (the lowest-numbered pending block runs next; lanes at a
//! barrier wait above every block), and a brute-force check on random CFGs runs that
//! rule on a 4-lane warp with random lane decisions and asserts that every block it
//! runs while lanes wait elsewhere is one the analysis calls divergent.

use ptxjit::ir::analysis::cfg::{divergent_blocks, divergent_blocks_given, waiting_ranges_given};
use ptxjit::ir::{
    Block, BlockId, FuncKind, Function, Guard, Idx, IdxVec, InstId, Operand, PerfDirectives, RegId,
    RegInfo, Terminator, Type,
};

/// A kernel with one predicate register `%p0` and the terminators `terms`.
fn func(terms: Vec<Terminator>) -> Function {
    Function {
        name: "k".into(),
        kind: FuncKind::Entry,
        linkage: Default::default(),
        params: vec![],
        rets: vec![],
        param_size: 0,
        regs: vec![RegInfo {
            name: "%p0".into(),
            ty: Type::Pred,
        }]
        .into(),
        blocks: terms
            .into_iter()
            .map(|term| Block {
                label: None,
                insts: vec![],
                term,
            })
            .collect::<Vec<_>>()
            .into(),
        local_size: 0,
        local_align: 1,
        perf: PerfDirectives::default(),
        loc: Default::default(),
    }
}

fn jump(t: u32) -> Terminator {
    Terminator::Jump {
        target: BlockId(t),
        inst: None,
    }
}

fn branch(taken: u32, not_taken: u32) -> Terminator {
    Terminator::Branch {
        guard: Guard {
            pred: RegId(0),
            negate: false,
        },
        taken: BlockId(taken),
        not_taken: BlockId(not_taken),
        uni: false,
        inst: InstId(0),
    }
}

fn barrier(next: u32) -> Terminator {
    Terminator::Barrier {
        guard: None,
        barrier: Operand::Imm(0),
        count: None,
        red: None,
        next: BlockId(next),
        inst: InstId(0),
    }
}

fn exit() -> Terminator {
    Terminator::Exit {
        guard: None,
        next: None,
        inst: InstId(0),
    }
}

/// The analysis with the terminators of `uniform` blocks known to send all their
/// lanes one way.
fn div(f: &Function, uniform: &[u32]) -> Vec<bool> {
    let u: IdxVec<BlockId, bool> = (0..f.blocks.len() as u32)
        .map(|b| uniform.contains(&b))
        .collect::<Vec<_>>()
        .into();
    divergent_blocks_given(f, &u).iter().copied().collect()
}

/// `for (;;) { bar.sync 0; if (p) A else B; if (uniform) break; }`:
/// 0 -> 1; 1: bar -> 2; 2: p ? 4 : 3; 3 (B) -> 5; 4 (A) -> 5; 5: uniform ? 1 : 6; 6: exit.
/// 2's lanes split to 3 and 4: 3 runs while lanes wait at 4 (divergent); 3 jumps to 5,
/// so 4 runs while lanes wait at 5 (divergent). The only back edge, 5 -> 1, leaves 5,
/// which runs after 3 and 4, so nothing waits when 1 (the barrier) and 2 run, nor at 5.
#[test]
fn if_else_in_barrier_loop_reconverges() {
    let f = func(vec![
        jump(1),
        barrier(2),
        branch(4, 3),
        jump(5),
        jump(5),
        branch(1, 6),
        exit(),
    ]);
    assert_eq!(
        div(&f, &[1, 5]),
        [false, false, false, true, true, false, false]
    );
}

/// The same loop with the `if` breaking out: 0 -> 1; 1: bar -> 2; 2: p ? 4 : 3;
/// 3: uniform ? 1 : 4; 4: exit. Lanes sent to 4 by 2 wait there while the others go
/// round through 3 -> 1, so 1 (the barrier), 2 and 3 are divergent (the barrier is no
/// continuation: a part of the warp arrives), and 4 runs while lanes wait at the
/// barrier.
#[test]
fn break_out_of_barrier_loop_stays_divergent() {
    let f = func(vec![
        jump(1),
        barrier(2),
        branch(4, 3),
        branch(1, 4),
        exit(),
    ]);
    assert_eq!(div(&f, &[1, 3]), [false, true, true, true, true]);
}

/// Nested loops, the inner one left by a divergent branch, the outer one uniform:
/// 0 -> 1; 1 -> 2; 2: p ? 4 : 3; 3 -> 2; 4: uniform ? 1 : 5; 5: exit. Lanes sent to 4
/// wait while the others go round 3 -> 2, so 2 and 3 are divergent; every lane reaches
/// 4 before the outer back edge, so 1 (and 4) run with the whole warp.
#[test]
fn inner_loop_exit_reconverges_before_outer_loop() {
    let f = func(vec![
        jump(1),
        jump(2),
        branch(4, 3),
        jump(2),
        branch(1, 5),
        exit(),
    ]);
    assert_eq!(div(&f, &[4]), [false, false, true, true, false, false]);
}

/// A divergent branch whose both targets are back edges: 0 -> 1; 1 -> 2;
/// 2: p ? 1 : 2; 3: exit (unreached). 2's lanes split to 1 and 2 (itself), and 1
/// (lower) runs first with lanes waiting at 2: 1 is divergent; 2 runs only once 1 has
/// sent its lanes there, so with the whole warp.
#[test]
fn both_targets_back_edges() {
    let f = func(vec![jump(1), jump(2), branch(1, 2), exit()]);
    assert_eq!(div(&f, &[]), [false, true, false, false]);
}

/// Straight-line: 0: p ? 2 : 1; 1 -> 2; 2: bar -> 3; 3: exit. 1 runs while lanes wait
/// at 2; the barrier block 2 runs with every lane.
#[test]
fn barrier_after_reconverged_if() {
    let f = func(vec![branch(2, 1), jump(2), barrier(3), exit()]);
    assert_eq!(div(&f, &[2]), [false, true, false, false]);
    // A divergent barrier (its block not known to send its lanes one way, as a guarded
    // one would) leaves every later block divergent.
    assert_eq!(
        divergent_blocks(&f).iter().copied().collect::<Vec<_>>(),
        [false, true, false, true]
    );
}

/// A small generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random CFG in reverse post-order, and which of its blocks are uniform.
fn random_cfg(r: &mut Rng) -> (Function, Vec<u32>) {
    let n = 2 + r.below(9) as usize;
    // Terminators over the raw numbering: (kind, targets).
    let raw: Vec<(u64, Vec<usize>)> = (0..n)
        .map(|_| {
            let k = r.below(10);
            let t = |r: &mut Rng| r.below(n as u64) as usize;
            match k {
                0..=2 => (0, vec![t(r)]),
                3..=6 => (1, vec![t(r), t(r)]),
                7 | 8 => (2, vec![t(r)]),
                _ => (3, vec![]),
            }
        })
        .collect();
    // Reverse post-order from block 0 (iterative DFS).
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if let Some(&s) = raw[b].1.get(*i) {
            *i += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    let mut num = vec![0u32; n];
    for (i, &b) in post.iter().enumerate() {
        num[b] = i as u32;
    }
    let mut uniform = Vec::new();
    let terms = post
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let t = &raw[b].1;
            if r.below(3) == 0 {
                uniform.push(i as u32);
            }
            match raw[b].0 {
                0 => jump(num[t[0]]),
                1 => branch(num[t[0]], num[t[1]]),
                2 => barrier(num[t[0]]),
                _ => exit(),
            }
        })
        .collect();
    (func(terms), uniform)
}

/// Runs `f` on a 4-lane warp as the dispatcher does (lowest pending block first, lanes
/// at barriers above every block, a barrier completing when every lane left waits
/// there), lanes of a branch going each its own way at random unless the block is
/// `uniform`; returns the blocks that ran while lanes waited elsewhere.
fn simulate(f: &Function, uniform: &[u32], r: &mut Rng) -> Vec<bool> {
    simulate_waits(f, uniform, r).0
}

/// [`simulate`], also returning each block run while lanes waited elsewhere with the
/// blocks they waited at (a barrier's lanes: at its next block).
fn simulate_waits(
    f: &Function,
    uniform: &[u32],
    r: &mut Rng,
) -> (Vec<bool>, Vec<(usize, Vec<usize>)>) {
    let n = f.blocks.len();
    let mut ran_div = vec![false; n];
    let mut waits = Vec::new();
    // Lanes pending at each block, and lanes at a barrier with their next block.
    let mut pending = vec![0u8; n];
    let mut at_bar: Vec<(u8, usize)> = Vec::new();
    pending[0] = 0b1111;
    for _ in 0..200 {
        let Some(b) = pending.iter().position(|&m| m != 0) else {
            if at_bar.is_empty() {
                break;
            }
            for (m, next) in at_bar.drain(..) {
                pending[next] |= m;
            }
            continue;
        };
        let lanes = std::mem::take(&mut pending[b]);
        if pending.iter().any(|&m| m != 0) || !at_bar.is_empty() {
            ran_div[b] = true;
            let at: Vec<usize> = (0..n)
                .filter(|&w| pending[w] != 0)
                .chain(at_bar.iter().map(|&(_, next)| next))
                .collect();
            waits.push((b, at));
        }
        match &f.blocks[BlockId(b as u32)].term {
            Terminator::Jump { target, .. } => pending[target.index()] |= lanes,
            Terminator::Branch {
                taken, not_taken, ..
            } => {
                let split = if uniform.contains(&(b as u32)) {
                    if r.below(2) == 0 {
                        lanes
                    } else {
                        0
                    }
                } else {
                    r.below(16) as u8 & lanes
                };
                pending[taken.index()] |= split;
                pending[not_taken.index()] |= lanes & !split;
            }
            Terminator::Barrier { next, .. } => at_bar.push((lanes, next.index())),
            _ => {}
        }
    }
    (ran_div, waits)
}

/// Every block that the dispatcher's rule runs while lanes wait elsewhere is divergent
/// for the analysis, on 3,000 random CFGs with 20 runs each.
#[test]
fn random_cfgs_never_run_a_convergent_block_divergently() {
    let mut r = Rng(0x5eed);
    for case in 0..3000 {
        let (f, uniform) = random_cfg(&mut r);
        let d = div(&f, &uniform);
        for _ in 0..20 {
            let ran = simulate(&f, &uniform, &mut r);
            for (b, (&ran, &d)) in ran.iter().zip(&d).enumerate() {
                assert!(
                    !ran || d,
                    "case {case}: block {b} ran divergently but the analysis says not: {:?} uniform {uniform:?}",
                    f.blocks.iter().map(|b| b.term.successors()).collect::<Vec<_>>()
                );
            }
        }
    }
}

/// Every block `w` that lanes wait at while a block `b` runs (the dispatcher's rule, as
/// in [`simulate`]) has a triple `(lo, hi, w)` of `waiting_ranges_given` with `b` in
/// `[lo, hi)` (the JIT keeps a register scalar in a divergent block when it is dead at
/// every such `w`), on 3,000 random CFGs with 20 runs each.
#[test]
fn random_cfgs_wait_only_where_the_ranges_say() {
    let mut r = Rng(0x5eed);
    for case in 0..3000 {
        let (f, uniform) = random_cfg(&mut r);
        let u: IdxVec<BlockId, bool> = (0..f.blocks.len() as u32)
            .map(|b| uniform.contains(&b))
            .collect::<Vec<_>>()
            .into();
        let ranges = waiting_ranges_given(&f, &u);
        for _ in 0..20 {
            let (_, waits) = simulate_waits(&f, &uniform, &mut r);
            for (b, at) in waits {
                for w in at {
                    let covered = ranges
                        .iter()
                        .any(|&(lo, hi, at)| lo <= b && b < hi && at == BlockId(w as u32));
                    assert!(
                        covered,
                        "case {case}: lanes wait at {w} while {b} runs, no range says so: \
                         {ranges:?} {:?} uniform {uniform:?}",
                        f.blocks
                            .iter()
                            .map(|b| b.term.successors())
                            .collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}
