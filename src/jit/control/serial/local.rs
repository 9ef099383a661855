//! The lane-by-lane form's local accesses: the one-compare check of each access
//! ([`FuncTranslator::serial_local`]) and, for those whose address the loop builds as
//! `base + (x & m)` (an interpreter's stack indexed by a masked stack pointer), a check
//! once per lane, at its start, instead of at every access.
//!
//! Profile (the `bytecode` benchmark): every step of the interpreter makes two or
//! three `ld.local`/`st.local` at `%SPL + ((sp << 2) & 28)`-style addresses, and each
//! paid the one-compare check of [`FuncTranslator::serial_local`] (a load of the limit,
//! a rotate, a compare, a branch) — a quarter of the step's instructions.
//!
//! An access qualifies when its address register `r` (64-bit) is not live at the loop
//! header (so every read of `r` in the loop reads a definition made in the loop) and
//! every definition of `r` in the loop is an unguarded `add.{s,u}64 r, inv, t` (either
//! order) where `inv` is a register the loop never writes and `t` is an immediate or a
//! 64-bit register, not live at the header either, whose every definition in the loop
//! is an unguarded `and.b64 t, _, m` (`m` an immediate below [`MAX_MASK`]). Then `t`
//! lies in `[0, M]` (`M` the largest such immediate) and is a multiple of `2^z` (`z` the
//! fewest trailing zeros among them). With access size `eb` dividing `2^z` and the
//! access's offset `o`, the address `inv + t + o` passes the per-access check for every
//! such `t` exactly when `c = inv + o` is a multiple of `eb` and `c <= size − eb − M`
//! (`size >= eb + M`; no wrap then): the lane's start checks that, bailing out like a
//! failed access otherwise (the warp-wide form then runs the loop and faults where an
//! access in fact fails).

use super::Lanes;
use crate::ir::analysis::liveness::term_effect;
use crate::ir::{AddrBase, ArithOp, BlockId, Idx, InstId, InstKind, Operand, RegClass, RegId};
use crate::ir::{Space, Type};
use crate::jit::translate::serial_region::Region;
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, Value};
use std::collections::{HashMap, HashSet};

/// The largest mask `m` of an `and` taken as bounding an offset (a larger one would
/// make the per-lane check fail on windows that the accesses themselves fit).
pub(super) const MAX_MASK: u64 = 1 << 12;

/// A bound checked at each lane's start: `inv + off` is a multiple of `eb` and at most
/// `size − eb − max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct LaneCheck {
    pub inv: RegId,
    pub off: i64,
    pub max: u64,
    pub eb: i64,
}

/// The local accesses checked at the lanes' start and those checks.
#[derive(Default)]
pub(super) struct LocalBounds {
    pub proven: HashSet<InstId>,
    pub checks: Vec<LaneCheck>,
}

/// A register whose every definition in the loop is `add inv, t` with `t` in
/// `[0, max]`, a multiple of `2^tz`.
#[derive(Clone, Copy)]
struct Based {
    inv: RegId,
    max: u64,
    tz: u32,
}

impl FuncTranslator<'_> {
    /// The local accesses of loop `region` whose bounds hold for every lane that passes
    /// the checks at its start (see the module doc).
    pub(super) fn serial_local_bounds(&self, region: &Region) -> LocalBounds {
        let mut out = LocalBounds::default();
        // Per register: its definitions in the loop (guarded?, instruction).
        let mut writes: HashMap<RegId, Vec<(bool, &InstKind)>> = HashMap::new();
        // Registers a terminator of the loop writes (none of a serial region's does).
        let mut term_written = HashSet::new();
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if !in_loop(region, id) {
                continue;
            }
            for i in &blk.insts {
                for d in i.kind.defs() {
                    writes
                        .entry(d)
                        .or_default()
                        .push((i.guard.is_some(), &i.kind));
                }
            }
            term_written.extend(term_effect(self.f, &blk.term).defs);
        }
        let written = |r: RegId| writes.contains_key(&r) || term_written.contains(&r);
        let wide = |r: RegId| {
            self.f
                .regs
                .get(r)
                .is_some_and(|i| i.ty.class() == RegClass::R64)
        };
        // Registers not live at the header whose every definition has the form `f` wants.
        let private = |r: RegId| {
            region.regs.contains(&r) && !region.loads.contains(&r) && !term_written.contains(&r)
        };
        let masked = |r: RegId| -> Option<(u64, u32)> {
            if !wide(r) || !private(r) {
                return None;
            }
            let ds = writes.get(&r)?;
            let mut max = 0u64;
            let mut tz = 64u32;
            for (g, k) in ds {
                let InstKind::Arith {
                    op: ArithOp::And,
                    ty,
                    srcs,
                    ..
                } = k
                else {
                    return None;
                };
                if *g || ty.bits() != 64 {
                    return None;
                }
                let m = srcs.iter().find_map(|s| match s {
                    Operand::Imm(m) => Some(*m),
                    _ => None,
                })?;
                if m >= MAX_MASK {
                    return None;
                }
                max = max.max(m);
                tz = tz.min(m.trailing_zeros());
            }
            Some((max, tz))
        };
        let mut defs: HashMap<RegId, Option<Based>> = HashMap::new();
        let mut based = |r: RegId| -> Option<Based> {
            if let Some(d) = defs.get(&r) {
                return *d;
            }
            let d = (|| {
                if !wide(r) || !private(r) {
                    return None;
                }
                let mut acc: Option<Based> = None;
                for (g, k) in writes.get(&r)? {
                    let InstKind::Arith {
                        op: ArithOp::Add,
                        ty,
                        srcs,
                        ..
                    } = k
                    else {
                        return None;
                    };
                    if *g || ty.bits() != 64 || !ty.is_int() || srcs.len() != 2 {
                        return None;
                    }
                    let (inv, (max, tz)) = [(0, 1), (1, 0)].into_iter().find_map(|(a, b)| {
                        let Operand::Reg(inv) = srcs[a] else {
                            return None;
                        };
                        if !wide(inv) || written(inv) {
                            return None;
                        }
                        let t = match srcs[b] {
                            Operand::Imm(c) if c < MAX_MASK => {
                                (c, if c == 0 { 64 } else { c.trailing_zeros() })
                            }
                            Operand::Reg(t) => masked(t)?,
                            _ => return None,
                        };
                        Some((inv, t))
                    })?;
                    acc = match acc {
                        None => Some(Based { inv, max, tz }),
                        Some(a) if a.inv == inv => Some(Based {
                            inv,
                            max: a.max.max(max),
                            tz: a.tz.min(tz),
                        }),
                        Some(_) => return None,
                    };
                }
                acc
            })();
            defs.insert(r, d);
            d
        };
        self.local_checks(region, &mut based, &mut out);
        out
    }

    /// Adds to `out` every local access of loop `region` through a register `based`
    /// describes as an invariant base plus a bounded, aligned offset.
    fn local_checks(
        &self,
        region: &Region,
        based: &mut dyn FnMut(RegId) -> Option<Based>,
        out: &mut LocalBounds,
    ) {
        let mut seen = HashSet::new();
        for (id, blk) in self.f.blocks.iter_enumerated() {
            if !in_loop(region, id) {
                continue;
            }
            for i in &blk.insts {
                let (InstKind::Ld {
                    space: Space::Local,
                    ty,
                    addr,
                    ..
                }
                | InstKind::St {
                    space: Space::Local,
                    ty,
                    addr,
                    ..
                }) = &i.kind
                else {
                    continue;
                };
                let AddrBase::Reg(r) = addr.base else {
                    continue;
                };
                let eb = (ty.bits() / 8) as i64;
                let Some(Based { inv, max, tz }) = based(r) else {
                    continue;
                };
                // Every `t` a multiple of `eb` (or `t` = 0 only).
                if !matches!(eb, 1 | 2 | 4 | 8)
                    || (max != 0 && (tz as i64) < eb.trailing_zeros() as i64)
                {
                    continue;
                }
                // `max` itself is a multiple of `2^tz` and so of `eb`.
                out.proven.insert(i.id);
                let c = LaneCheck {
                    inv,
                    off: addr.offset,
                    max,
                    eb,
                };
                if seen.insert(c) {
                    out.checks.push(c);
                }
            }
        }
    }

    /// The host address of the lane's `eb`-byte local access at `a`, continuing at
    /// `st.bail` where `exec::ctx::access` would refuse it (outside the window, host
    /// address not aligned).
    ///
    /// One compare: the lane's start checked that its window base is a multiple of the
    /// loop's largest local access `M` and that the window holds `M` bytes (else the
    /// form bails out there), so with `eb = 2^k` dividing `M` the host address is aligned
    /// exactly when `a` is, and `a` is aligned with `a <= size - eb` exactly when
    /// `rotr(a, k) <= (size - eb) >> k` (a misaligned `a` rotates low bits into the top
    /// `k` bits, above any `x >> k`).
    pub(super) fn serial_local(&mut self, a: Value, eb: i64, st: &Lanes) -> Value {
        let k = eb.trailing_zeros() as usize;
        let (base, lim) = match (self.serial.local, st.lims.get(k).copied().flatten()) {
            (Some((lb, _)), Some(lim)) => (self.lane_get(st, lb), self.lane_get(st, lim)),
            _ => {
                // Unreachable (every local access of the loop has its limit): bail.
                let z = self.b.ins().iconst(I64, 0);
                let go = self.b.create_block();
                self.b.ins().jump(st.bail, &[]);
                self.b.switch_to_block(go);
                return z;
            }
        };
        let r = if k == 0 {
            a
        } else {
            self.b.ins().rotr_imm_u(a, k as i64)
        };
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, r, lim);
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], st.bail, &[]);
        self.b.switch_to_block(go);
        self.b.ins().iadd(base, a)
    }

    /// At a lane's start (`base`, `size`: its local window): bails out unless the
    /// window base is a multiple of the loop's largest local access `M` and the window
    /// holds at least `M` bytes, then sets the limit of each access size
    /// ([`Lanes::lims`]).
    pub(super) fn lane_local_limits(
        &mut self,
        st: &Lanes,
        base: Value,
        size: Value,
    ) -> Result<(), JitError> {
        let m = st.local_max;
        if m == 0 {
            return Ok(());
        }
        let low = self.b.ins().band_imm_u(base, m - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, m);
        let ok = self.b.ins().band(aligned, big);
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], st.bail, &[]);
        self.b.switch_to_block(go);
        for (k, lim) in st.lims.iter().enumerate() {
            let Some(lim) = *lim else { continue };
            let x = self.b.ins().iadd_imm_s(size, -(1i64 << k));
            let x = self.b.ins().ushr_imm_u(x, k as i64);
            self.lane_set(st, lim, x);
        }
        Ok(())
    }

    /// At a lane's start (`size`: its local window's size): bails out to `st.bail`
    /// unless every check of `st.bounds` holds (see the module doc).
    pub(super) fn lane_bound_checks(&mut self, st: &Lanes, size: Value) -> Result<(), JitError> {
        for c in &st.bounds.checks {
            let Some(inv) = self.sread(&Operand::Reg(c.inv), Type::U64, false)? else {
                // Unreachable (the loop's registers all have a scalar reading): bail.
                let go = self.b.create_block();
                self.b.ins().jump(st.bail, &[]);
                self.b.switch_to_block(go);
                continue;
            };
            let x = if c.off != 0 {
                self.b.ins().iadd_imm_s(inv, c.off)
            } else {
                inv
            };
            let need = c.eb + c.max as i64;
            let big = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, need);
            let k = c.eb.trailing_zeros() as i64;
            let lim = self.b.ins().iadd_imm_s(size, -need);
            let lim = self.b.ins().ushr_imm_u(lim, k);
            let r = if k == 0 {
                x
            } else {
                self.b.ins().rotr_imm_u(x, k)
            };
            let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, r, lim);
            let ok = self.b.ins().band(big, fits);
            let go = self.b.create_block();
            self.b.ins().brif(ok, go, &[], st.bail, &[]);
            self.b.switch_to_block(go);
        }
        Ok(())
    }
}

fn in_loop(region: &Region, b: BlockId) -> bool {
    region.inside.get(b.index()).copied().unwrap_or(false)
}
