//! Which loops run lane by lane (`control::serial`): the *serial regions* of a function.
//!
//! A serial region is a natural loop (one entry, its header `h`; a back edge `l -> h`,
//! `h <= l` in the reverse post-order numbering, whose body is every block that reaches
//! `l` without passing `h`) such that:
//! - it sends lanes many ways: it contains a `brx.idx` or at least
//!   [`MIN_DIVERGENT_BRANCHES`] branches that the shape analysis does not prove uniform
//!   (a `switch` compiled to a tree of compares), so that the warp's lanes soon spread
//!   over many blocks and the dispatcher runs each block for a few lanes at the cost of
//!   32;
//! - every instruction in it is lane-private and has a scalar lowering: `mov`, integer
//!   and predicate arithmetic, integer `setp`, `selp`, integer `cvt`, `cvta` of
//!   `.global`/`.shared`, `ld.local`/`ld.global` and `st.local` of one integer element
//!   at a register address (no store outside the lane's own local memory, no atomic, no
//!   warp-level operation, barrier, call, `exit` or `ret`: nothing another lane can
//!   observe or that depends on other lanes), with operands that are registers,
//!   immediates, addresses or per-warp special registers;
//! - it writes no register that the JIT keeps as a warp-wide scalar or affine base
//!   (`translate::scalar`, `translate::affine`; it may read them);
//! - every block it can leave to is numbered above every block of the loop (so the
//!   dispatcher, which runs the lowest-numbered pending block, would run no lane's exit
//!   block while another lane is still in the loop).
//!
//! Running such a loop to completion for one lane after another gives every lane the
//! registers, local memory and exit block that the warp-wide execution gives it: each
//! lane's steps depend only on its own state and on memory the loop does not write.
//! Regions do not overlap: of nested loops, the outermost one that qualifies is taken.

use crate::ir::analysis::shape::{Divergence, Shapes};
use crate::ir::{
    AddrBase, ArithOp, BlockId, Function, Idx, IdxVec, InstKind, MulMode, Operand, RegId, Space,
    Terminator,
};

/// Whether serial regions are used: `PTXJIT_SERIAL=0` turns them off (every loop runs
/// warp-wide, as before them), to compare the two.
pub(crate) fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXJIT_SERIAL").map_or(true, |v| v != "0"))
}

/// A loop with fewer divergent two-way branches (and no `brx.idx`) stays warp-wide.
pub(crate) const MIN_DIVERGENT_BRANCHES: usize = 4;

/// One serial region, keyed by its header.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    /// Per block of the function: whether it is in the loop.
    pub inside: Vec<bool>,
    /// The highest block number in the loop.
    pub last: u32,
    /// Registers the loop reads or writes (its guards and addresses included).
    pub regs: Vec<RegId>,
    /// Registers live at the header: each lane's values are loaded at its start.
    pub loads: Vec<RegId>,
    /// Registers the loop writes that are live at one of its exits: stored back to the
    /// file when a lane leaves (the others are the loop's temporaries).
    pub stores: Vec<RegId>,
    /// Whether the loop stores to local memory.
    pub local_store: bool,
    /// Whether a terminator of the loop asserts `.uni` (then the scalar form, which
    /// does not check it, does not run under `--check-uniform`).
    pub uni: bool,
}

/// The serial regions of `f` by header. `scalar[r]` / `affine[r]`: register `r` is kept
/// as a warp-wide scalar / affine base by the translator.
pub(crate) fn serial_regions(
    f: &Function,
    shapes: &Shapes,
    scalar: &dyn Fn(RegId) -> bool,
    affine: &dyn Fn(RegId) -> bool,
) -> IdxVec<BlockId, Option<Region>> {
    let n = f.blocks.len();
    let mut out: IdxVec<BlockId, Option<Region>> = IdxVec::from_elem(None, n);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, blk) in f.blocks.iter_enumerated() {
        for s in blk.term.successors() {
            if let Some(p) = preds.get_mut(s.index()) {
                p.push(i.index());
            }
        }
    }
    let live = crate::ir::analysis::liveness::Liveness::of(f);
    let mut taken = vec![false; n];
    for h in 0..n {
        if taken[h] {
            continue;
        }
        let Some(inside) = natural_loop(f, &preds, h) else {
            continue;
        };
        if let Some(r) = qualify(f, shapes, &preds, h, inside, scalar, affine, &live) {
            for (t, &i) in taken.iter_mut().zip(&r.inside) {
                *t |= i;
            }
            if let Some(slot) = out.get_mut(BlockId(h as u32)) {
                *slot = Some(r);
            }
        }
    }
    out
}

/// The blocks of the natural loop of header `h` (`None`: no back edge reaches `h`).
fn natural_loop(f: &Function, preds: &[Vec<usize>], h: usize) -> Option<Vec<bool>> {
    let n = f.blocks.len();
    let latches: Vec<usize> = preds.get(h)?.iter().copied().filter(|&p| p >= h).collect();
    if latches.is_empty() {
        return None;
    }
    let mut inside = vec![false; n];
    inside[h] = true;
    let mut work = Vec::new();
    for l in latches {
        if !inside[l] {
            inside[l] = true;
            work.push(l);
        }
    }
    while let Some(b) = work.pop() {
        for &p in &preds[b] {
            if !inside[p] {
                inside[p] = true;
                work.push(p);
            }
        }
    }
    Some(inside)
}

/// `h`'s loop as a [`Region`] if it qualifies (see the module doc).
#[allow(clippy::too_many_arguments)]
fn qualify(
    f: &Function,
    shapes: &Shapes,
    preds: &[Vec<usize>],
    h: usize,
    inside: Vec<bool>,
    scalar: &dyn Fn(RegId) -> bool,
    affine: &dyn Fn(RegId) -> bool,
    live: &crate::ir::analysis::liveness::Liveness,
) -> Option<Region> {
    let mut last = h;
    let mut brx = false;
    let mut divergent = 0usize;
    let mut regs = vec![false; f.regs.len()];
    let mut writes = vec![false; f.regs.len()];
    let mut local_store = false;
    let mut uni = false;
    for (i, blk) in f.blocks.iter_enumerated() {
        let b = i.index();
        if !inside[b] {
            continue;
        }
        last = last.max(b);
        // One entry: only the header has predecessors outside the loop.
        if b != h && preds[b].iter().any(|&p| !inside[p]) {
            return None;
        }
        for inst in &blk.insts {
            if let Some(g) = inst.guard {
                *regs.get_mut(g.pred.index())? = true;
            }
            local_store |= matches!(inst.kind, InstKind::St { .. });
            if !lane_private(&inst.kind, &mut regs)? {
                return None;
            }
            for d in inst.kind.defs() {
                *regs.get_mut(d.index())? = true;
                *writes.get_mut(d.index())? = true;
            }
        }
        let div = shapes.terminator(i) == Divergence::Divergent;
        match &blk.term {
            Terminator::Jump { .. } => {}
            Terminator::Branch { guard, uni: u, .. } => {
                uni |= *u;
                *regs.get_mut(guard.pred.index())? = true;
                divergent += usize::from(div);
            }
            Terminator::BrxIdx {
                guard,
                index,
                uni: u,
                ..
            } => {
                uni |= *u;
                if let Some(g) = guard {
                    *regs.get_mut(g.pred.index())? = true;
                }
                if !operand_ok(index, &mut regs) {
                    return None;
                }
                brx |= div;
            }
            _ => return None,
        }
    }
    if !brx && divergent < MIN_DIVERGENT_BRANCHES {
        return None;
    }
    // Every exit is numbered above the loop; what is live there is stored back.
    let mut at_exits = crate::ir::analysis::liveness::RegSet::new(f.regs.len());
    for (i, blk) in f.blocks.iter_enumerated() {
        if !inside[i.index()] {
            continue;
        }
        for s in blk.term.successors() {
            if inside[s.index()] {
                continue;
            }
            if s.index() <= last {
                return None;
            }
            at_exits.union_with(live.live_in.get(s)?);
        }
    }
    let at_header = live.live_in.get(BlockId(h as u32))?;
    let regs: Vec<RegId> = (0..regs.len())
        .filter(|&r| regs[r])
        .map(|r| RegId(r as u32))
        .collect();
    let writes: Vec<RegId> = regs.iter().copied().filter(|r| writes[r.index()]).collect();
    if writes.iter().any(|&r| affine(r) || scalar(r)) {
        return None;
    }
    Some(Region {
        inside,
        last: last as u32,
        loads: regs
            .iter()
            .copied()
            .filter(|&r| at_header.contains(r))
            .collect(),
        stores: writes
            .iter()
            .copied()
            .filter(|&r| at_exits.contains(r))
            .collect(),
        regs,
        local_store,
        uni,
    })
}

/// Integer or bit type of at most 64 bits.
fn int_like(t: crate::ir::Type) -> bool {
    (t.is_int() || t.is_bits()) && t.bits() <= 64
}

/// Whether source operand `o` has a scalar per-lane reading (noting its register).
fn operand_ok(o: &Operand, regs: &mut [bool]) -> bool {
    match *o {
        Operand::Reg(r) => match regs.get_mut(r.index()) {
            Some(x) => {
                *x = true;
                true
            }
            None => false,
        },
        Operand::Imm(_) | Operand::FuncAddr(_) => true,
        Operand::VarAddr(v, _) => !matches!(v, crate::ir::VarRef::KernelParam(_)),
        Operand::Special(s) => {
            s.constant().is_some() || crate::exec::sreg::uniform_field(s).is_some()
        }
    }
}

/// Whether instruction `k` is lane-private with a scalar lowering (see the module doc),
/// noting the registers it reads; `None` on a register number out of range.
fn lane_private(k: &InstKind, regs: &mut [bool]) -> Option<bool> {
    use InstKind::*;
    let kind_ok = match k {
        Mov { ty, .. } => int_like(*ty) || *ty == crate::ir::Type::Pred,
        Arith { op, ty, .. } => {
            if *ty == crate::ir::Type::Pred {
                matches!(op, ArithOp::And | ArithOp::Or | ArithOp::Xor | ArithOp::Not)
            } else {
                int_like(*ty)
                    && match op {
                        ArithOp::Add
                        | ArithOp::Sub
                        | ArithOp::And
                        | ArithOp::Or
                        | ArithOp::Xor
                        | ArithOp::Not
                        | ArithOp::Neg
                        | ArithOp::Min
                        | ArithOp::Max
                        | ArithOp::Abs
                        | ArithOp::Shl
                        | ArithOp::Shr
                        | ArithOp::Mul(MulMode::Lo)
                        | ArithOp::Mad(MulMode::Lo) => true,
                        ArithOp::Mul(MulMode::Hi) => true,
                        ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(_) => ty.bits() <= 32,
                        _ => false,
                    }
            }
        }
        Setp { ty, .. } => int_like(*ty),
        Selp { ty, .. } => int_like(*ty),
        Cvt {
            dst_ty,
            src_ty,
            rnd,
            sat,
            ..
        } => int_like(*dst_ty) && int_like(*src_ty) && rnd.is_none() && (!*sat || dst_ty == src_ty),
        Cvta { space, .. } => matches!(space, Space::Global | Space::Shared),
        Ld {
            space,
            ty,
            dsts,
            addr,
        } => {
            matches!(space, Space::Local | Space::Global)
                && int_like(*ty)
                && dsts.len() == 1
                && addr_ok(addr, regs)
        }
        St {
            space,
            ty,
            srcs,
            addr,
        } => {
            *space == Space::Local
                && int_like(*ty)
                && srcs.len() == 1
                && addr_ok(addr, regs)
                && operand_ok(&srcs[0], regs)
        }
        _ => false,
    };
    if !kind_ok {
        return Some(false);
    }
    let Ok(ops) = k.operands() else {
        return Some(false);
    };
    Some(ops.srcs.iter().all(|(o, _, _)| operand_ok(o, regs)))
}

/// A register address (noting the register).
fn addr_ok(a: &crate::ir::Address, regs: &mut [bool]) -> bool {
    match a.base {
        AddrBase::Reg(r) => operand_ok(&Operand::Reg(r), regs),
        _ => false,
    }
}
