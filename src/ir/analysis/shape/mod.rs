//! Shapes: for every register at every program point of a function, whether its value
//! is the same in every active lane (**uniform**), a uniform base plus the lane number
//! times a constant stride in the register's width, wrapping as the per-lane arithmetic
//! wraps (**affine**), or anything else (**varying**); and for every terminator whether
//! the active lanes can disagree on where they go (**divergent**).
//!
//! This is the divergence analysis of SPMD vectorisers (ISPC, whole-function
//! vectorisation) adapted to the warp schedule both backends share (DESIGN.md "Masks and
//! divergence": after every block the warp runs the lowest-numbered block some lane
//! waits at; blocks are numbered in reverse post-order). A forward data-flow pass gives
//! every block's entry state (the meet over its predecessors' exit states); the lanes
//! that a divergent terminator splits may later meet again with different histories,
//! and at the blocks where they can meet every register written since the split is
//! forced to varying (`regions.rs`):
//!
//! - **one group leaves** (the terminator's successors are its immediate post-dominator
//!   `P` and one other block `s`, e.g. an `if` without `else` or a loop exit): the lanes
//!   sent to `P` wait there until every lane sent to `s` has left the region `R` (the
//!   blocks reachable from `s` without passing `P`), provided every block of `R` is
//!   numbered below `P` and `R` holds no barrier or split call. Only `P` is a meeting
//!   point, so a loop counter stays uniform inside a loop with a divergent exit.
//! - **clean split** (every edge from the terminator's block and from `R` goes forward,
//!   `R` holds no barrier or split call): lanes meet at `P` and at the blocks of `R`
//!   with two or more predecessors in `R` or the split block.
//! - **loops inside** (back edges among the blocks of `R`, every block of `R` numbered
//!   below `P`, no barrier or split call): the lanes leave `R` only through `P` and
//!   meet at `P` and at any block of `R`, none beyond `P` (a loop inside an `if`).
//! - **anything else** (a block of `R` numbered above `P`, barriers or split calls that park
//!   lanes, no post-dominator): the lanes may meet at any block reachable from the
//!   terminator, so every register written there is varying at the entry of each of
//!   those blocks. A value computed and used in one run of a block is still exact.
//!
//! Sources of uniform values: immediates, variable and function addresses, kernel
//! parameters (`ld.param` of the kernel's buffer), `%ctaid %nctaid %ntid %nwarpid
//! %warpid %smid` and the other per-warp special registers, weak loads from a uniform
//! address (one load instruction gives every lane the same bytes) outside `.local`,
//! `vote`/`ballot`/`redux` with a uniform member mask, `activemask`, `bar.red` results.
//! `%laneid` is affine with stride 1; `%tid.x` is affine and `%tid.y %tid.z` uniform
//! when every warp lies in one row of the block ([`LaunchShape::rows_whole_warps`]),
//! which the launch knows. Lanes whose values lie in one aligned block of `2^n` values
//! (an affine value with `31 × stride < 2^n` and a base with `n` known zero bits, such
//! as `%tid.x`) stay exact through `shr` by at least `n` (uniform: the warp number
//! `%tid.x >> 5`), `and`/`or`/`xor` with a uniform value that keeps or clears every
//! bit the lane offsets can set (the lane `%tid.x & 31`; Triton's `pid << 10 | tid`),
//! `div.u`/`rem.u` by powers of two, and integer `setp` against a bound the block
//! cannot straddle (`%tid.x < 32`: uniform, so such a branch is too).
//!
//! Widening an affine value (`cvt.u64.u32`, `mul.wide`) is exact only when no lane's
//! value wraps where another's does not; each fact therefore also carries the known
//! trailing zero bits of its base (lane 0's value, [`Fact::tz`]): a base that is a
//! multiple of `32 × stride` (stride a power of two) keeps all 32 lanes in one block of
//! `32 × stride` values, which neither 2^31 nor 2^32 splits. `%tid.x` (warps start at
//! multiples of 32), `%laneid` and `%ntid.x` when it is a multiple of 32 start such
//! chains, so `ctaid * ntid + tid` widened to a 64-bit byte address stays affine.
//!
//! Only the registers live at a block's entry ([`Liveness`]) keep a fact there; the
//! others are varying (no instruction reads them before writing them), so the memory
//! and the work per block follow the live registers, not the function's register count
//! (a 1.2 MB CUTLASS kernel: 30,000 registers, 10,000 blocks).
//!
//! The interpreter can check every claim at run time (`PTXJIT_CHECK_SHAPES=1`).

mod regions;
mod transfer;

use super::liveness::Liveness;
use crate::ir::{BlockId, Function, IdxVec, RegId, Type};
pub use transfer::strong_load;

/// The fact of every register at one program point: dense, remembering the registers
/// set to anything but varying so that [`Shapes::enter`] resets it in the time the
/// last block took, not in the function's register count.
#[derive(Clone, Debug, Default)]
pub struct State {
    facts: IdxVec<RegId, Fact>,
    touched: Vec<RegId>,
}

impl State {
    /// Every one of `n` registers varying.
    pub fn varying(n: usize) -> State {
        State {
            facts: IdxVec::from_elem(Fact::VARYING, n),
            touched: Vec::new(),
        }
    }
    pub fn get(&self, r: RegId) -> Option<&Fact> {
        self.facts.get(r)
    }
    /// Sets the fact of `r` (ignored when out of range).
    pub fn set(&mut self, r: RegId, x: Fact) {
        if let Some(slot) = self.facts.get_mut(r) {
            if x != Fact::VARYING {
                self.touched.push(r);
            }
            *slot = x;
        }
    }
    pub fn len(&self) -> usize {
        self.facts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.facts.len() == 0
    }
    pub fn ids(&self) -> impl Iterator<Item = RegId> {
        self.facts.ids()
    }
    /// Every register varying again.
    fn clear(&mut self) {
        for r in self.touched.drain(..) {
            self.facts[r] = Fact::VARYING;
        }
    }
}

impl std::ops::Index<RegId> for State {
    type Output = Fact;
    fn index(&self, r: RegId) -> &Fact {
        &self.facts[r]
    }
}

/// The facts of a block's live-in registers that are not varying, by register.
type Entry = Vec<(RegId, Fact)>;

/// The shape of one value across the active lanes of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// The same in every active lane.
    Uniform,
    /// Lane `l` holds `base + l * stride` (wrapping in the register's width; `stride`
    /// is nonzero and fits that width).
    Affine(u64),
    /// Anything.
    Varying,
}

impl Shape {
    /// The stride of a uniform (0) or affine value.
    pub fn stride(self) -> Option<u64> {
        match self {
            Shape::Uniform => Some(0),
            Shape::Affine(s) => Some(s),
            Shape::Varying => None,
        }
    }

    /// The shape of lanes `base + l * stride` in `bits` bits.
    pub fn from_stride(stride: u64, bits: u32) -> Shape {
        let s = stride & crate::ops::mask(bits.clamp(1, 64));
        if s == 0 {
            Shape::Uniform
        } else {
            Shape::Affine(s)
        }
    }
}

/// What the analysis knows of one value: its [`Shape`] and, for uniform and affine
/// values, how many low bits of the base (lane 0's value) are known zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub shape: Shape,
    /// Known trailing zero bits of the base (0: nothing known; 64: the base is 0).
    pub tz: u8,
    /// An affine claim that holds only where the lanes' values did not wrap: over
    /// lanes whose first and last active ones (`l0 < l1`) hold values that differ by
    /// `(l1 - l0) × stride`, in the register's width (see [`Fact::wraps_seen`]); where
    /// they differ otherwise, nothing is claimed. Only the per-half analysis
    /// ([`LaunchShape::HALF_ROWS`]) makes such facts: a per-half affine 32-bit value
    /// sign- or zero-extended (`mul.wide`, `cvt`), sgemm's tile-load addresses.
    pub guarded: bool,
}

impl Fact {
    pub const VARYING: Fact = Fact {
        shape: Shape::Varying,
        tz: 0,
        guarded: false,
    };
    pub const UNIFORM: Fact = Fact {
        shape: Shape::Uniform,
        tz: 0,
        guarded: false,
    };
    /// The constant `v` (as a `bits`-bit value).
    pub fn constant(v: u64, bits: u32) -> Fact {
        let v = v & crate::ops::mask(bits.clamp(1, 64));
        Fact {
            shape: Shape::Uniform,
            tz: if v == 0 { 64 } else { v.trailing_zeros() as u8 },
            guarded: false,
        }
    }
    /// `base + lane * stride` in `bits` bits with `tz` known zero bits of the base.
    pub fn affine(stride: u64, tz: u32, bits: u32) -> Fact {
        let shape = Shape::from_stride(stride, bits);
        if shape == Shape::Varying {
            return Fact::VARYING;
        }
        Fact {
            shape,
            tz: tz.min(64) as u8,
            guarded: false,
        }
    }
    /// A guarded affine fact (see [`Fact::guarded`]): varying where the stride is 0 (a
    /// wrapped value is not uniform).
    pub fn affine_guarded(stride: u64, tz: u32, bits: u32) -> Fact {
        match Fact::affine(stride, tz, bits) {
            x if matches!(x.shape, Shape::Affine(_)) => Fact { guarded: true, ..x },
            _ => Fact::VARYING,
        }
    }
    /// The fact of a value that may come from either of two sources.
    pub fn meet(self, other: Fact) -> Fact {
        if self.shape != other.shape || self.shape == Shape::Varying {
            return Fact::VARYING;
        }
        Fact {
            shape: self.shape,
            tz: self.tz.min(other.tz),
            guarded: self.guarded || other.guarded,
        }
    }
    /// For a guarded fact (see [`Fact::guarded`]): whether the first and last of `vals`
    /// (the active lanes' values, by increasing lane) differ by other than their lanes'
    /// distance times the stride, so that nothing is claimed.
    pub fn wraps_seen(self, bits: u32, vals: &[(usize, u64)]) -> bool {
        let (Some(s), Some(&(l0, v0)), Some(&(l1, v1))) =
            (self.shape.stride(), vals.first(), vals.last())
        else {
            return false;
        };
        let m = crate::ops::mask(bits.clamp(1, 64));
        self.guarded && v1.wrapping_sub(v0) & m != s.wrapping_mul(l1.wrapping_sub(l0) as u64) & m
    }
    /// Whether `vals` (the active lanes' values, as `(lane, value)`, of a `bits`-bit
    /// register) agree with this fact.
    pub fn holds(self, bits: u32, vals: &[(usize, u64)]) -> bool {
        let m = crate::ops::mask(bits.clamp(1, 64));
        let Some(stride) = self.shape.stride() else {
            return true;
        };
        let Some(&(l0, v0)) = vals.first() else {
            return true;
        };
        if self.wraps_seen(bits, vals) {
            return true;
        }
        let base = v0.wrapping_sub(stride.wrapping_mul(l0 as u64)) & m;
        let tz = u32::from(self.tz).min(bits);
        let low = if tz >= 64 { u64::MAX } else { (1u64 << tz) - 1 };
        base & low == 0
            && vals
                .iter()
                .all(|&(l, v)| v & m == base.wrapping_add(stride.wrapping_mul(l as u64)) & m)
    }
}

/// Whether the active lanes of a terminator can go different ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Divergence {
    /// Every active lane goes the same way (or the terminator has one way).
    Uniform,
    /// The lanes may split.
    Divergent,
}

/// What the launch tells about the layout of threads in warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// Every warp lies in one row of the block (`%ntid.x % 32 == 0`, or `%ntid.y ==
    /// %ntid.z == 1`): `%tid.x` is affine with stride 1 and a base that is a multiple
    /// of 32, `%tid.y` and `%tid.z` are uniform.
    pub rows_whole_warps: bool,
    /// `%ntid.x % 32 == 0`.
    pub ntid_x_mult32: bool,
    /// `%ntid.x == 16`, and the facts are meant for each half-warp alone (lanes 0–15 and
    /// 16–31 each one row of the block: [`LaunchShape::HALF_ROWS`]).
    pub half_rows: bool,
}

impl LaunchShape {
    /// The shape facts of a launch with block dimensions `ntid`.
    pub fn of_block(ntid: [u32; 3]) -> LaunchShape {
        LaunchShape {
            rows_whole_warps: ntid[0].is_multiple_of(32) || (ntid[1] <= 1 && ntid[2] <= 1),
            ntid_x_mult32: ntid[0].is_multiple_of(32),
            half_rows: false,
        }
    }

    /// Facts about each half-warp of a launch whose `%ntid.x` is 16 (sgemm's 16 × 16
    /// tiles), read as if the half were lanes 0–15 of a warp: there `%tid.x` is the
    /// lane number (its row starts at 0), `%tid.y %tid.z` are uniform and `%ntid.x` is
    /// 16; `%laneid` (16 more in the upper half) is varying. What the analysis proves
    /// about lanes 0–15 of that warp holds for each real half (its values are those
    /// lanes' values), so a fact's uniform or affine claim holds per half, not across
    /// the halves (`PTXJIT_CHECK_SHAPES` checks it so in such launches, per half).
    pub const HALF_ROWS: LaunchShape = LaunchShape {
        rows_whole_warps: true,
        ntid_x_mult32: false,
        half_rows: true,
    };
}

/// The result of the analysis for one function.
#[derive(Clone, Debug)]
pub struct Shapes {
    launch: LaunchShape,
    /// Per block: the facts at the block's entry (live-in registers; the others, and
    /// the registers not listed, are varying).
    entry: IdxVec<BlockId, Entry>,
    /// The function's register count.
    nregs: usize,
    /// Per block: its terminator.
    term: IdxVec<BlockId, Divergence>,
    /// Per register: its width in bits (1 for predicates).
    bits: IdxVec<RegId, u32>,
}

impl Shapes {
    /// Analyses function `f` for launches described by `launch`.
    pub fn analyze(f: &Function, launch: LaunchShape) -> Shapes {
        let n = f.blocks.len();
        let bits = f.regs.iter().map(|r| r.ty.bits().min(64)).collect();
        let mut s = Shapes {
            launch,
            entry: IdxVec::from_elem(Entry::new(), n),
            nregs: f.regs.len(),
            term: IdxVec::from_elem(Divergence::Uniform, n),
            bits,
        };
        if n == 0 {
            return s;
        }
        let defs = regions::block_defs(f);
        let pdom = super::postdom::immediate_postdominators(f);
        let live = Liveness::of(f);
        let mut forced = IdxVec::from_elem(regions::RegSet::new(f.regs.len()), n);
        let mut st = State::varying(f.regs.len());
        loop {
            s.flow(f, &forced, &live);
            let term: IdxVec<BlockId, Divergence> = (f.blocks.ids())
                .map(|b| s.divergence(f, b, &mut st))
                .collect();
            let mut new_forced = IdxVec::from_elem(regions::RegSet::new(f.regs.len()), n);
            for (b, d) in term.iter_enumerated() {
                if *d == Divergence::Divergent {
                    regions::meeting_points(f, b, &pdom, &defs, &mut new_forced);
                }
            }
            let done = term == s.term && new_forced == forced;
            s.term = term;
            forced = new_forced;
            if done {
                break;
            }
        }
        s
    }

    /// The launch facts the analysis assumed.
    pub fn launch(&self) -> LaunchShape {
        self.launch
    }

    /// The fact of every register at the entry of block `b` (empty for a function
    /// without body).
    pub fn block_entry(&self, b: BlockId) -> State {
        let mut st = State::default();
        self.enter(b, &mut st);
        st
    }

    /// Makes `st` the state at the entry of block `b` (reusing it: the cost is that of
    /// the registers set since its last `enter`, plus `b`'s live-in registers).
    pub fn enter(&self, b: BlockId, st: &mut State) {
        let n = if self.entry.get(b).is_some() {
            self.nregs
        } else {
            0
        };
        if st.len() == n {
            st.clear();
        } else {
            *st = State::varying(n);
        }
        for &(r, x) in self.entry.get(b).map_or(&[][..], |e| e.as_slice()) {
            st.set(r, x);
        }
    }

    /// Whether the terminator of block `b` can split the active lanes.
    pub fn terminator(&self, b: BlockId) -> Divergence {
        self.term.get(b).copied().unwrap_or(Divergence::Divergent)
    }

    /// The fact of every register right before instruction `i` of block `b`.
    pub fn before(&self, f: &Function, b: BlockId, i: usize) -> State {
        let mut st = self.block_entry(b);
        if let Some(blk) = f.blocks.get(b) {
            for (k, inst) in blk.insts.iter().enumerate().take(i) {
                self.step(f, &mut st, inst, strong_load(blk, k));
            }
        }
        st
    }

    /// Whether no terminator of the function can split the warp: the whole function runs
    /// convergent.
    pub fn convergent(&self) -> bool {
        self.term.iter().all(|d| *d == Divergence::Uniform)
    }

    /// The forward data flow with the meeting points `forced` (registers varying at a
    /// block's entry), iterated to a fixed point; entries keep live-in registers only.
    fn flow(&mut self, f: &Function, forced: &IdxVec<BlockId, regions::RegSet>, live: &Liveness) {
        let n = f.blocks.len();
        let mut entry: IdxVec<BlockId, Option<Entry>> = IdxVec::from_elem(None, n);
        // Registers start zeroed in both backends.
        entry[BlockId(0)] = Some(
            (live.live_in[BlockId(0)].iter())
                .map(|r| (r, Fact::constant(0, 64)))
                .collect(),
        );
        let mut st = State::varying(f.regs.len());
        let mut changed = true;
        while changed {
            changed = false;
            for b in f.blocks.ids() {
                let Some(e) = &entry[b] else {
                    continue;
                };
                st.clear();
                for &(r, x) in e {
                    st.set(r, x);
                }
                forced[b].apply(&mut st);
                let blk = &f.blocks[b];
                for (k, inst) in blk.insts.iter().enumerate() {
                    self.step(f, &mut st, inst, strong_load(blk, k));
                }
                for r in transfer::term_writes(&blk.term) {
                    st.set(r, Fact::VARYING);
                }
                for succ in blk.term.successors() {
                    let Some(slot) = entry.get_mut(succ) else {
                        continue;
                    };
                    match slot {
                        None => {
                            *slot = Some(
                                (live.live_in[succ].iter())
                                    .map(|r| (r, st[r]))
                                    .filter(|(_, x)| *x != Fact::VARYING)
                                    .collect(),
                            );
                            changed = true;
                        }
                        Some(cur) => {
                            let before = cur.len();
                            for (r, c) in cur.iter_mut() {
                                let m = c.meet(st[*r]);
                                if m != *c {
                                    *c = m;
                                    changed = true;
                                }
                            }
                            cur.retain(|(_, x)| *x != Fact::VARYING);
                            changed |= cur.len() != before;
                        }
                    }
                }
            }
        }
        self.entry = entry
            .into_iter()
            .zip(forced)
            .map(|(e, fset)| {
                let mut e = e.unwrap_or_default();
                e.retain(|(r, _)| !fset.contains(*r));
                e
            })
            .collect();
    }

    /// Whether the terminator of block `b` can split its lanes, given the entry states.
    fn divergence(&self, f: &Function, b: BlockId, st: &mut State) -> Divergence {
        use crate::ir::Terminator;
        let blk = &f.blocks[b];
        self.enter(b, st);
        for (k, inst) in blk.insts.iter().enumerate() {
            self.step(f, st, inst, strong_load(blk, k));
        }
        let st = &*st;
        let uni = |r: RegId| st.get(r).map(|x| x.shape) == Some(Shape::Uniform);
        let guard_uni = |g: Option<crate::ir::Guard>| g.is_none_or(|g| uni(g.pred));
        let d = match &blk.term {
            Terminator::Jump { .. } | Terminator::Resume { .. } => true,
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                ..
            } => taken == not_taken || uni(guard.pred),
            Terminator::Ret { guard, .. }
            | Terminator::Exit { guard, .. }
            | Terminator::Barrier { guard, .. } => guard_uni(*guard),
            Terminator::BrxIdx { guard, index, .. } => {
                guard_uni(*guard) && self.operand(st, index, Type::U32).shape == Shape::Uniform
            }
            // A call whose callee can reach a barrier may park some lanes there.
            Terminator::Call { guard, resume, .. }
            | Terminator::CallIndirect { guard, resume, .. } => {
                guard_uni(*guard) && resume.is_none()
            }
        };
        if d {
            Divergence::Uniform
        } else {
            Divergence::Divergent
        }
    }
}

#[cfg(test)]
mod tests;
