//! Register liveness of one function, per thread: which registers may still be read
//! before they are written again, at each block's entry and exit and at each barrier
//! (issue 14, item 5: a continuation kernel saves and restores at a barrier only the
//! registers live after it, `jit::control::cont`).
//!
//! Every instruction and terminator has a use set (registers it reads: operands,
//! address bases, guard and combine predicates, the carry flag, call arguments) and a
//! def set (registers it writes); its *kill* set is the def set when every thread that
//! runs it writes them (the instruction is unguarded) and empty otherwise: a guarded
//! write leaves the threads whose guard is false with their old value. Liveness is per
//! thread: each thread follows one path of the CFG, so a write by the lanes of a
//! divergent block kills the value for exactly the threads that read the new one.
//!
//! Conservative fallbacks (each only adds live registers, which is always safe: a live
//! register is at worst saved and restored for nothing):
//! - an instruction whose operands do not match its signature ([`InstKind::operands`]
//!   fails: `check` refuses such IR, hand-built IR may still have it) uses every
//!   register of the function and kills none;
//! - call results ([`Terminator::Call`], [`Terminator::CallIndirect`]) kill only for an
//!   unguarded call, and a [`Terminator::Resume`] (lanes finishing a split call) writes
//!   the call's results without killing them.
//!
//! [`Writes`] is the forward companion: the registers some path may have written since
//! the warp last resumed from a barrier, which a barrier need not save again when the
//! warp has resumed before (their slots still hold the values it restored).

use crate::ir::{
    AddrBase, Address, BlockId, CallDst, CallSrc, Function, Idx, IdxVec, Inst, InstKind, Operand,
    RegId, Terminator,
};

/// A set of registers of one function (a bit per register).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegSet(Vec<u64>);

impl RegSet {
    /// The empty set for a function of `n` registers.
    pub fn new(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }
    /// Every register of a function of `n` registers.
    pub fn full(n: usize) -> RegSet {
        let mut s = RegSet::new(n);
        for r in 0..n {
            s.insert(RegId(r as u32));
        }
        s
    }
    pub fn contains(&self, r: RegId) -> bool {
        let i = r.0 as usize;
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Adds `r` (ignored when out of range).
    pub fn insert(&mut self, r: RegId) {
        let i = r.0 as usize;
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    pub fn remove(&mut self, r: RegId) {
        let i = r.0 as usize;
        if let Some(w) = self.0.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    /// `self |= o`; whether `self` grew.
    pub fn union_with(&mut self, o: &RegSet) -> bool {
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            grew |= *b & !*a != 0;
            *a |= b;
        }
        grew
    }
    /// The registers of the set, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = RegId> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w & (1u64 << b) != 0)
                .map(move |b| RegId((k * 64 + b) as u32))
        })
    }
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// What one instruction or terminator does to registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effect {
    /// Registers read (before any write of the same instruction).
    pub uses: Vec<RegId>,
    /// Registers written by the threads that run it.
    pub defs: Vec<RegId>,
    /// The part of `defs` every thread reaching the instruction writes.
    pub kills: Vec<RegId>,
}

fn operand_reg(o: &Operand, into: &mut Vec<RegId>) {
    if let Operand::Reg(r) = *o {
        into.push(r);
    }
}

fn address_reg(a: &Address, into: &mut Vec<RegId>) {
    if let AddrBase::Reg(r) = a.base {
        into.push(r);
    }
}

/// The effect of instruction `inst` of `f`.
pub fn inst_effect(f: &Function, inst: &Inst) -> Effect {
    use InstKind::*;
    let mut uses = Vec::new();
    if let Some(g) = inst.guard {
        uses.push(g.pred);
    }
    let ops = inst.kind.operands();
    match &ops {
        Ok(ops) => {
            for (o, _, _) in &ops.srcs {
                operand_reg(o, &mut uses);
            }
        }
        // The documented fallback: every register is read.
        Err(_) => uses.extend(f.regs.ids()),
    }
    // `operands` leaves out addresses.
    match &inst.kind {
        Ld { addr, .. } | St { addr, .. } | Atom { addr, .. } => address_reg(addr, &mut uses),
        Matrix {
            addr: Some((_, a)), ..
        } => address_reg(a, &mut uses),
        Async { addrs, .. } => {
            for (_, a) in addrs {
                address_reg(a, &mut uses);
            }
        }
        _ => {}
    }
    let defs = inst.kind.defs();
    let kills = if inst.guard.is_none() && ops.is_ok() {
        defs.clone()
    } else {
        Vec::new()
    };
    Effect { uses, defs, kills }
}

/// Registers the results `rets` of a call write.
fn ret_regs(rets: &[crate::ir::CallRet]) -> Vec<RegId> {
    rets.iter()
        .filter_map(|r| match r.dst {
            CallDst::Reg(d, _) => Some(d),
            CallDst::Local(_) => None,
        })
        .collect()
}

fn arg_regs(args: &[crate::ir::CallArg], into: &mut Vec<RegId>) {
    for a in args {
        if let CallSrc::Value(o, _) = &a.src {
            operand_reg(o, into);
        }
    }
}

/// The effect of terminator `t` of `f` (`Resume` reads the results of its call block).
pub fn term_effect(f: &Function, t: &Terminator) -> Effect {
    let mut e = Effect::default();
    let guard = |g: &Option<crate::ir::Guard>, into: &mut Vec<RegId>| {
        if let Some(g) = g {
            into.push(g.pred);
        }
    };
    match t {
        Terminator::Jump { .. } => {}
        Terminator::Branch { guard: g, .. } => e.uses.push(g.pred),
        Terminator::Ret { guard: g, .. } | Terminator::Exit { guard: g, .. } => {
            guard(g, &mut e.uses)
        }
        Terminator::Barrier {
            guard: g,
            barrier,
            count,
            red,
            ..
        } => {
            guard(g, &mut e.uses);
            operand_reg(barrier, &mut e.uses);
            if let Some(c) = count {
                operand_reg(c, &mut e.uses);
            }
            if let Some(p) = red {
                e.uses.push(p.reg);
            }
        }
        Terminator::BrxIdx {
            guard: g, index, ..
        } => {
            guard(g, &mut e.uses);
            operand_reg(index, &mut e.uses);
        }
        Terminator::Call {
            guard: g,
            args,
            rets,
            ..
        } => {
            guard(g, &mut e.uses);
            arg_regs(args, &mut e.uses);
            e.defs = ret_regs(rets);
            if g.is_none() {
                e.kills = e.defs.clone();
            }
        }
        Terminator::CallIndirect {
            guard: g,
            addr,
            args,
            rets,
            ..
        } => {
            guard(g, &mut e.uses);
            e.uses.push(*addr);
            arg_regs(args, &mut e.uses);
            e.defs = ret_regs(rets);
            if g.is_none() {
                e.kills = e.defs.clone();
            }
        }
        Terminator::Resume { call, .. } => {
            if let Some(Terminator::Call { rets, .. } | Terminator::CallIndirect { rets, .. }) =
                f.blocks.get(*call).map(|b| &b.term)
            {
                e.defs = ret_regs(rets);
            }
        }
    }
    e
}

/// `live = (live − kills) ∪ uses`: the registers live before something of effect `e`
/// given those live after it.
fn step_back(live: &mut RegSet, e: &Effect) {
    for &r in &e.kills {
        live.remove(r);
    }
    for &r in &e.uses {
        live.insert(r);
    }
}

/// Live registers at block boundaries of one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// Registers live at the entry of each block.
    pub live_in: IdxVec<BlockId, RegSet>,
    /// Registers live at the exit of each block (after its terminator ran, before its
    /// successors: the union of their `live_in`).
    pub live_out: IdxVec<BlockId, RegSet>,
}

impl Liveness {
    /// Computes the fixed point of the backward equations (blocks in reverse order: one
    /// pass per loop nesting level, as blocks are in reverse post-order).
    pub fn of(f: &Function) -> Liveness {
        let n = f.regs.len();
        let nb = f.blocks.len();
        // Per block: the registers read before any kill (gen) and the killed ones.
        let mut gens = Vec::with_capacity(nb);
        let mut kills = Vec::with_capacity(nb);
        for blk in &f.blocks {
            let mut gen = RegSet::new(n);
            let mut kill = RegSet::new(n);
            let effects = std::iter::once(term_effect(f, &blk.term))
                .chain(blk.insts.iter().rev().map(|i| inst_effect(f, i)));
            for e in effects {
                step_back(&mut gen, &e);
                for &r in &e.kills {
                    kill.insert(r);
                }
            }
            gens.push(gen);
            kills.push(kill);
        }
        let mut live_in: IdxVec<BlockId, RegSet> = IdxVec::from_elem(RegSet::new(n), nb);
        let mut live_out: IdxVec<BlockId, RegSet> = IdxVec::from_elem(RegSet::new(n), nb);
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..nb).rev() {
                let b = BlockId(i as u32);
                let blk = &f.blocks[b];
                let mut out = RegSet::new(n);
                for s in blk.term.successors() {
                    if let Some(l) = live_in.get(s) {
                        out.union_with(l);
                    }
                }
                // in = gen ∪ (out − kill)
                let mut inn = out.clone();
                for (w, k) in inn.0.iter_mut().zip(&kills[b.index()].0) {
                    *w &= !k;
                }
                inn.union_with(&gens[b.index()]);
                changed |= live_in[b].union_with(&inn);
                live_out[b] = out;
            }
        }
        Liveness { live_in, live_out }
    }

    /// The registers live right before instruction `i` of block `b` (`i` = the number of
    /// instructions: before the terminator).
    pub fn before(&self, f: &Function, b: BlockId, i: usize) -> RegSet {
        let blk = &f.blocks[b];
        let mut live = self.live_out[b].clone();
        step_back(&mut live, &term_effect(f, &blk.term));
        for inst in blk.insts.iter().skip(i).rev() {
            step_back(&mut live, &inst_effect(f, inst));
        }
        live
    }

    /// For a block ending in a barrier: the registers live when the threads go on after
    /// it (the live-in set of the barrier's `next` block). `None` for other blocks.
    pub fn after_barrier(&self, f: &Function, b: BlockId) -> Option<&RegSet> {
        match f.blocks.get(b)?.term {
            Terminator::Barrier { next, .. } => self.live_in.get(next),
            _ => None,
        }
    }
}

/// Registers possibly written since the warp last resumed after a barrier: a forward,
/// may analysis over the paths that start at a barrier's `next` block and cross no
/// barrier (paths from the function's entry are left out: a warp that has not resumed
/// yet must save every live register). At a barrier a warp reaches after a resume, a
/// live register outside this set still holds, in its slot, the value the resume
/// restored: it was live at the resume point too (no write in between) and nothing
/// but a barrier writes the slots.
#[derive(Clone, Debug)]
pub struct Writes {
    /// Per block: at its exit (after its terminator's writes); empty for blocks no
    /// path from a resume point reaches.
    pub at_exit: IdxVec<BlockId, RegSet>,
}

impl Writes {
    pub fn of(f: &Function) -> Writes {
        let n = f.regs.len();
        let nb = f.blocks.len();
        let mut defs = Vec::with_capacity(nb);
        for blk in &f.blocks {
            let mut d = RegSet::new(n);
            for r in blk.insts.iter().flat_map(|i| inst_effect(f, i).defs) {
                d.insert(r);
            }
            for r in term_effect(f, &blk.term).defs {
                d.insert(r);
            }
            defs.push(d);
        }
        let mut at_exit: IdxVec<BlockId, RegSet> = IdxVec::from_elem(RegSet::new(n), nb);
        let mut at_entry: IdxVec<BlockId, RegSet> = IdxVec::from_elem(RegSet::new(n), nb);
        // Blocks some path from a resume point reaches (without crossing a barrier).
        let mut reached: IdxVec<BlockId, bool> = IdxVec::from_elem(false, nb);
        for blk in &f.blocks {
            if let Terminator::Barrier { next, .. } = blk.term {
                if let Some(r) = reached.get_mut(next) {
                    *r = true;
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for (b, blk) in f.blocks.iter_enumerated() {
                if !reached[b] {
                    continue;
                }
                let mut out = at_entry[b].clone();
                out.union_with(&defs[b.index()]);
                changed |= at_exit[b].union_with(&out);
                if matches!(blk.term, Terminator::Barrier { .. }) {
                    continue;
                }
                for s in blk.term.successors() {
                    if let Some(r) = reached.get_mut(s) {
                        changed |= !*r;
                        *r = true;
                    }
                    if let Some(e) = at_entry.get_mut(s) {
                        changed |= e.union_with(&at_exit[b]);
                    }
                }
            }
        }
        Writes { at_exit }
    }
}
