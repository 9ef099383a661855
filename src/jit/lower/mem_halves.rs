//! Loads of 4-byte elements (and 8-byte ones in the plain test, `halves_load`: f64
//! tiles, dgemm's) whose half-warps each read one address or 16 consecutive
//! elements (see `mem.rs`): the rows of a 16-wide tile, such as sgemm's `As[ty][k]`
//! (one address per half) and `Bs[k][tx]` (the same 16 elements in both halves) in a
//! 16 × 16 block, and the global loads that fill such tiles (two rows of 16). Tried
//! after the coalesced test fails, before the shared gather or the helper: with all 32
//! lanes active and both halves in one of the two shapes, each half is one scalar load
//! and a splat or four vector loads, after one alignment and range check per half
//! (inside the shared window, or inside the instruction's cached region, asking
//! `ptxjit_region` once on a miss). Anything else continues where it would have.
//!
//! The shape depends only on the address register's 32 values, not on the load's
//! constant offset, so a load whose base is a 64-bit register kept in the file
//! remembers it (`FuncTranslator::halves_memo`: whether it holds, which halves are
//! consecutive, each half's first address) until the register is written or the IR
//! block ends. A later load from the same register (sgemm's 16 `As[ty][k]` and
//! `Bs[k][tx]` loads per tile are `[%rd6+4k]` and `[%rd7+64k]`) then tests only the
//! mask, alignment and range of its two half addresses before loading, with no lane
//! addresses built or compared. The first load of such a run, with all 32 lanes active,
//! makes this test before the coalesced one (`halves_first`), whose shape it covers:
//! where the lanes are tile rows (sgemm's 16 × 16 blocks), they are compared once per
//! run instead of twice. In launches whose `%ntid.x` is 16 (each half-warp one row of
//! the block), the optimized tier's general code knows the halves' shapes of registers
//! that the shape analysis run per half (`LaunchShape::HALF_ROWS`) calls uniform or
//! 4-byte affine, such as sgemm's `%rd6` and `%rd7`: such a first load, with all lanes
//! active, compares no lanes, takes the two halves' first addresses and places them
//! (`halves_known`); anything that fails there continues with the tests above.
//!
//! In `.shared`, the first load of such a run (the loads from the register up to its
//! next write in the block: sgemm's 16 loads per tile row) also tests the window once
//! for the run's whole offset range (`halves_run`, `halves_window`: alignment holds
//! for all when the offsets agree modulo 4); when that holds, a later load tests only
//! its mask and loads. When it fails, each load takes its own test as before, so a
//! fault is still reported at the load that makes it.

use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::shape::Shape;
use crate::ir::{AddrBase, Address, BlockId, InstId, InstKind, RegClass, RegId, Space};
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2, I8};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value};
use cranelift_frontend::Variable;
use std::mem::offset_of;

use super::mem::heap_flags;

/// Bytes of one element of the remembered paths (`halves_memo_*`, `halves_first`,
/// `halves_known`, `halves_run`); the plain test `halves_load` also takes 8-byte
/// elements.
const EB: u64 = 4;

/// What the per-half shape analysis knows of a load's halves
/// ([`FuncTranslator::half_rows_shape`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Known {
    /// Each half reads 16 consecutive elements (else one address).
    pub cons: bool,
    /// Only where each half's last lane is 15 elements after its first.
    pub guarded: bool,
}

impl FuncTranslator<'_> {
    /// Tests the lane addresses `a` (16 × i64x2; shared-window offsets in `.shared`) of
    /// a 4-byte load for the half-warp shapes with all lanes active (`bits`); on a hit,
    /// loads and jumps to `join` with the 8 × i32x4 containers; otherwise jumps to
    /// `miss`. `memo`: the address register and the load's offset, whose shape is then
    /// remembered (see the module doc).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn halves_load(
        &mut self,
        space: Space,
        eb: u64,
        a: &WarpValue,
        bits: Value,
        inst: InstId,
        join: Block,
        miss: Block,
        memo: Option<(RegId, i64)>,
    ) -> Result<(), JitError> {
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
        if memo.is_none() {
            // Nothing to remember: a partial warp (a stencil's interior, a guarded tile
            // edge) leaves before the lane comparisons.
            let test = self.b.create_block();
            self.b.ins().brif(full, test, &[], miss, &[]);
            self.b.switch_to_block(test);
        }
        let mut ok = full;
        // Both halves one address or consecutive (i8), whatever the mask and offset.
        let mut shaped: Option<Value> = None;
        // Per half: (address of its first lane, consecutive (i8)).
        let mut halves = Vec::with_capacity(2);
        // Both halves' first addresses aligned (i8).
        let mut aligned: Option<Value> = None;
        for h in 0..2usize {
            let base = self.b.ins().extractlane(a.v[8 * h], 0);
            let s = self.b.ins().splat(I64X2, base);
            let (mut cons, mut uni): (Option<Value>, Option<Value>) = (None, None);
            for k in 0..8usize {
                let x = a.v[8 * h + k];
                // (As `fast_check`: parts 0 and 1 against the half's first address plus
                // their offsets, later parts against the part two before plus 4 elements.)
                let exp = match k {
                    0 | 1 => {
                        let l = 2 * k as u64;
                        let off = lanes::const_i64x2(&mut self.b, [l * eb, (l + 1) * eb]);
                        self.b.ins().iadd(s, off)
                    }
                    _ => {
                        let step = lanes::const_i64x2(&mut self.b, [4 * eb, 4 * eb]);
                        self.b.ins().iadd(a.v[8 * h + k - 2], step)
                    }
                };
                let c = self.b.ins().icmp(IntCC::Equal, x, exp);
                let u = self.b.ins().icmp(IntCC::Equal, x, s);
                cons = Some(match cons {
                    None => c,
                    Some(y) => self.b.ins().band(y, c),
                });
                uni = Some(match uni {
                    None => u,
                    Some(y) => self.b.ins().band(y, u),
                });
            }
            let (cons, uni) = (cons.unwrap_or(s), uni.unwrap_or(s));
            let cons = self.b.ins().vall_true(cons);
            let uni = self.b.ins().vall_true(uni);
            let either = self.b.ins().bor(cons, uni);
            ok = self.b.ins().band(ok, either);
            shaped = Some(match shaped {
                None => either,
                Some(y) => self.b.ins().band(y, either),
            });
            let low = self.b.ins().band_imm_u(base, eb as i64 - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, al);
            aligned = Some(match aligned {
                None => al,
                Some(y) => self.b.ins().band(y, al),
            });
            halves.push((base, cons));
        }
        // (Only 4-byte loads are remembered: the memo's paths load 4-byte elements.)
        if let (Some((r, off)), Some(shaped), Some(al), EB) = (memo, shaped, aligned, eb) {
            let window = self.halves_window(r, space, off, shaped, al, &halves);
            self.halves_remember(r, off, shaped, window, &halves);
        }
        self.halves_place((space, eb), inst, &halves, ok, join, miss, None)
    }

    /// The first load of a remembered register's run (see the module doc): with all 32
    /// lanes active (`bits`), the half-warp test of [`Self::halves_load`] before the
    /// coalesced one, whose shape it covers (a coalesced warp is two consecutive
    /// halves), so that the usual first-load sequence (coalesced test, then this one)
    /// tests the lanes once; a hit loads and jumps to `join`, anything else continues
    /// in a new current block with the usual tests (which then skip this one: the
    /// register's shape is remembered here, as it would be there). `rows`: the lanes
    /// are proven consecutive in launches whose `%ntid.x` is a multiple of 32, which
    /// keep their proven path (no test here). Whether the test was emitted: not for a
    /// run of one load without `rows` (hist_shared's coalesced grid-stride load was 20%
    /// slower with it, even skipped at run time in its launches). `known`: each half's
    /// shape (consecutive or one address) in launches whose `%ntid.x` is 16
    /// ([`Self::half_rows_shape`]), which then take [`Self::halves_known`] instead of
    /// the lane comparisons.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn halves_first(
        &mut self,
        space: Space,
        a: &WarpValue,
        bits: Value,
        inst: InstId,
        join: Block,
        memo: (RegId, i64),
        (rows, known): (bool, Option<Known>),
    ) -> Result<bool, JitError> {
        let tested = rows || self.halves_run_continues(memo.0);
        if !tested && known.is_none() {
            return Ok(false);
        }
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
        let rest = self.b.create_block();
        if let Some(cons) = known {
            let x = self.load_ctx(I32, offset_of!(WarpCtx, ntid), true);
            let x16 = self.b.ins().icmp_imm_u(IntCC::Equal, x, 16);
            let go = self.b.ins().band(full, x16);
            let half = self.b.create_block();
            let other = self.b.create_block();
            self.b.ins().brif(go, half, &[], other, &[]);
            self.b.switch_to_block(half);
            self.halves_known(space, a, inst, join, rest, memo, cons)?;
            self.b.switch_to_block(other);
            if !tested {
                // A run of one load whose shape is known only per half: in other launches
                // (or when it failed), the usual paths, which test the halves as before.
                self.b.ins().jump(rest, &[]);
                self.b.switch_to_block(rest);
                return Ok(false);
            }
        }
        let test = self.b.create_block();
        let go = if rows {
            let r = self.rows_launch();
            let not = self.b.ins().bxor_imm_u(r, 1);
            self.b.ins().band(full, not)
        } else {
            full
        };
        self.b.ins().brif(go, test, &[], rest, &[]);
        self.b.switch_to_block(test);
        self.halves_load(space, EB, a, bits, inst, join, rest, Some(memo))?;
        self.b.switch_to_block(rest);
        Ok(true)
    }

    /// The per-half shape of the 4-byte lanes of `[addr]` in launches whose `%ntid.x`
    /// is 16 (`FuncTranslator::shapes_half`): `cons` when each half reads 16
    /// consecutive elements, else one address each; `guarded` when the claim holds
    /// only where a half's first and last lanes are 15 elements apart (a widened
    /// 32-bit index that may wrap: `Fact::guarded`), which is then tested.
    pub(super) fn half_rows_shape(&self, space: Space, addr: &Address) -> Option<Known> {
        let (sh, now) = self.shapes_half.as_ref()?;
        let x = sh.address(self.f, now, space, addr);
        let cons = match x.shape {
            Shape::Uniform => false,
            Shape::Affine(s) if s == EB => true,
            _ => return None,
        };
        Some(Known {
            cons,
            guarded: x.guarded,
        })
    }

    /// [`Self::halves_load`] where all 32 lanes are active and each half's shape is
    /// known (`cons`: consecutive, else one address; see [`Self::half_rows_shape`]):
    /// no lane compared, only each half's first address taken, aligned and placed.
    #[allow(clippy::too_many_arguments)]
    fn halves_known(
        &mut self,
        space: Space,
        a: &WarpValue,
        inst: InstId,
        join: Block,
        miss: Block,
        (r, off): (RegId, i64),
        Known { cons, guarded }: Known,
    ) -> Result<(), JitError> {
        let c = self.b.ins().iconst(I8, i64::from(cons));
        let mut halves = Vec::with_capacity(2);
        let mut shaped = self.b.ins().iconst(I8, 1);
        for h in 0..2usize {
            let base = self.b.ins().extractlane(a.v[8 * h], 0);
            halves.push((base, c));
            if guarded {
                // The half's last lane 15 elements after its first: no wrap inside.
                let last = self.b.ins().extractlane(a.v[8 * h + 7], 1);
                let d = self.b.ins().isub(last, base);
                let ok = self.b.ins().icmp_imm_u(IntCC::Equal, d, 15 * EB as i64);
                shaped = self.b.ins().band(shaped, ok);
            }
        }
        let al = self.halves_aligned(&halves).unwrap_or(c);
        let al = self.b.ins().band(al, shaped);
        let window = self.halves_window(r, space, off, shaped, al, &halves);
        self.halves_remember(r, off, shaped, window, &halves);
        self.halves_place((space, EB), inst, &halves, al, join, miss, Some(cons))
    }

    /// From the halves' (first address, consecutive) and `ok` (i8: shape, mask and
    /// alignment hold): the range checks, then the loads, to `join`; else `miss`.
    /// `known`: the halves' shape where it is known when compiling (no branch on it).
    #[allow(clippy::too_many_arguments)]
    fn halves_place(
        &mut self,
        (space, eb): (Space, u64),
        inst: InstId,
        halves: &[(Value, Value)],
        ok: Value,
        join: Block,
        miss: Block,
        known: Option<bool>,
    ) -> Result<(), JitError> {
        let go = self.b.create_block();
        for _ in 0..2 {
            self.b.append_block_param(go, I64);
        }
        let placed = self.b.create_block();
        self.b.ins().brif(ok, placed, &[], miss, &[]);
        self.b.switch_to_block(placed);
        if space == Space::Shared {
            let mut inside = None;
            let mut hosts = Vec::with_capacity(2);
            let window = self.shared_window();
            for &(base, cons) in halves {
                // 16 elements for a consecutive half, else one.
                let len = self.half_len(cons, eb);
                let (x, host) = self.in_shared_window_dyn(window, base, len);
                inside = Some(match inside {
                    None => x,
                    Some(y) => self.b.ins().band(y, x),
                });
                hosts.push(BlockArg::Value(host));
            }
            let inside = inside.unwrap_or(ok);
            self.b.ins().brif(inside, go, &hosts, miss, &[]);
        } else {
            let hosts: Vec<BlockArg> = halves.iter().map(|&(x, _)| BlockArg::Value(x)).collect();
            let inside = self.halves_cached(inst, halves, eb);
            let lookup = self.b.create_block();
            self.b.ins().brif(inside, go, &hosts, lookup, &[]);
            // A cache miss: one region-table lookup for the first half, then the test
            // again.
            self.b.switch_to_block(lookup);
            let (b0, c0) = halves[0];
            let len = self.half_len(c0, eb);
            let found = self.region_lookup(inst, b0, len, false)?;
            let again = self.b.create_block();
            self.b.ins().brif(found, again, &[], miss, &[]);
            self.b.switch_to_block(again);
            let inside = self.halves_cached(inst, halves, eb);
            self.b.ins().brif(inside, go, &hosts, miss, &[]);
        }
        self.b.switch_to_block(go);
        let hosts = self.b.block_params(go).to_vec();
        let mut out = Vec::with_capacity(16);
        let (vty, sty, parts) = half_parts(eb);
        for (h, &(_, cons)) in hosts.into_iter().zip(halves) {
            match known {
                Some(true) => {
                    out.extend((0..parts).map(|k| self.b.ins().load(vty, heap_flags(), h, 16 * k)))
                }
                Some(false) => {
                    let x = self.b.ins().load(sty, heap_flags(), h, 0);
                    let v = self.b.ins().splat(vty, x);
                    out.extend((0..parts).map(|_| v));
                }
                None => out.extend(self.half_values(h, cons, eb)),
            }
        }
        let args: Vec<BlockArg> = out.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        Ok(())
    }

    /// The bytes a half reads (i64): 16 elements of `eb` bytes when consecutive (`cons`,
    /// i8), else one.
    fn half_len(&mut self, cons: Value, eb: u64) -> Value {
        let big = lanes::iconst64(&mut self.b, 16 * eb);
        let small = lanes::iconst64(&mut self.b, eb);
        self.b.ins().select(cons, big, small)
    }

    /// Whether both halves (first address, consecutive) lie in instruction `inst`'s
    /// cached region (i8).
    fn halves_cached(&mut self, inst: InstId, halves: &[(Value, Value)], eb: u64) -> Value {
        let mut all = None;
        let range = self.cached_region(inst);
        for &(base, cons) in halves {
            let len = self.half_len(cons, eb);
            let x = self.in_range_dyn(range, base, len);
            all = Some(match all {
                None => x,
                Some(y) => self.b.ins().band(y, x),
            });
        }
        all.unwrap_or_else(|| self.b.ins().iconst(I8, 0))
    }

    /// The containers of one half of `eb`-byte elements at host address `host` (four
    /// i32x4 or eight i64x2): vector loads when `cons` (i8) is set, else one scalar load
    /// splat.
    fn half_values(&mut self, host: Value, cons: Value, eb: u64) -> Vec<Value> {
        let (vty, sty, parts) = half_parts(eb);
        let vec = self.b.create_block();
        let one = self.b.create_block();
        let done = self.b.create_block();
        for _ in 0..parts {
            self.b.append_block_param(done, vty);
        }
        self.b.ins().brif(cons, vec, &[], one, &[]);
        self.b.switch_to_block(vec);
        let v: Vec<BlockArg> = (0..parts)
            .map(|k| {
                let x = self.b.ins().load(vty, heap_flags(), host, 16 * k);
                BlockArg::Value(x)
            })
            .collect();
        self.b.ins().jump(done, &v);
        self.b.switch_to_block(one);
        let x = self.b.ins().load(sty, heap_flags(), host, 0);
        let s = self.b.ins().splat(vty, x);
        let v: Vec<BlockArg> = (0..parts).map(|_| BlockArg::Value(s)).collect();
        self.b.ins().jump(done, &v);
        self.b.switch_to_block(done);
        self.b.block_params(done).to_vec()
    }
}

/// A half's containers for `eb`-byte elements: (vector type, element type, count).
fn half_parts(
    eb: u64,
) -> (
    cranelift_codegen::ir::Type,
    cranelift_codegen::ir::Type,
    i32,
) {
    match eb {
        8 => (I64X2, I64, 8),
        _ => (I32X4, I32, 4),
    }
}

/// Bits of a remembered state (the memo's i8 variable; zero: nothing known): the
/// register's halves are each one address or consecutive, half 0 and half 1 consecutive.
const SHAPED: i64 = 1;
const CONS: [i64; 2] = [2, 4];
/// Every `.shared` load of the register's run (see [`FuncTranslator::halves_run`]) is
/// aligned and inside the shared window, whatever its offset.
const WINDOW: i64 = 8;

impl FuncTranslator<'_> {
    /// The address register of a 4-byte, one-element load whose half-warp shape may be
    /// remembered: a 64-bit register kept in the file (not a scalar or affine base,
    /// whose loads take their own paths), outside the lane-by-lane forms.
    pub(super) fn halves_memo_reg(&self, addr: &Address) -> Option<RegId> {
        let AddrBase::Reg(r) = addr.base else {
            return None;
        };
        let kept = self.avar(r).is_some() || self.sregs.vars.get(r).is_some_and(|v| v.is_some());
        let r64 = self.f.regs.get(r)?.ty.class() == RegClass::R64;
        (r64 && !kept && self.rf.recording.is_some()).then_some(r)
    }

    fn halves_vars(&mut self, r: RegId) -> [Variable; 3] {
        if let Some((v, ..)) = self.halves_memo.get(&r) {
            return *v;
        }
        let v = [
            self.b.declare_var(I8),
            self.b.declare_var(I64),
            self.b.declare_var(I64),
        ];
        self.halves_memo.insert(r, (v, false, false));
        v
    }

    /// Whether a load from `r` was translated since the IR block's start or `r`'s last
    /// write; marks it so. When not, the state is set to zero here (nothing to test):
    /// only the halves test below records a shape, so every other path from this load
    /// (the coalesced one) must find the state cleared here, not the value an earlier
    /// run of the block left (a loop's previous iteration, the previous chained warp:
    /// the memo is declared at its first load, after the block's start and the
    /// register's write have been translated, so neither cleared it).
    pub(super) fn halves_seen(&mut self, r: RegId) -> bool {
        let [st, ..] = self.halves_vars(r);
        let seen = match self.halves_memo.get_mut(&r) {
            Some((_, seen, _)) => std::mem::replace(seen, true),
            None => false,
        };
        if !seen {
            self.b.def_var(st, self.zero8);
        }
        seen
    }

    /// Records register `r`'s shape (`shaped`, i8) and halves (first lane address of the
    /// load at offset `off`, consecutive).
    fn halves_remember(
        &mut self,
        r: RegId,
        off: i64,
        shaped: Value,
        window: Option<Value>,
        halves: &[(Value, Value)],
    ) {
        let [st, b0, b1] = self.halves_vars(r);
        let mut s = shaped;
        if let Some(w) = window {
            let w = self.b.ins().imul_imm_s(w, WINDOW);
            s = self.b.ins().bor(s, w);
        }
        for (&(base, cons), (bv, bit)) in halves.iter().zip([(b0, CONS[0]), (b1, CONS[1])]) {
            let reg = self.b.ins().iadd_imm_s(base, off.wrapping_neg());
            self.b.def_var(bv, reg);
            let c = self.b.ins().imul_imm_s(cons, bit);
            s = self.b.ins().bor(s, c);
        }
        self.b.def_var(st, s);
    }

    /// The run of loads that share register `r`'s remembered shape, from the load being
    /// translated (at offset `off`) up to the next write of `r` in the IR block: the
    /// lowest and highest offsets of its 4-byte `.shared` loads, when they are all
    /// congruent to `off` modulo 4 (so that this load's alignment is theirs) and small
    /// enough for immediate offsets. Loads that turn out to take other paths only widen
    /// the range.
    fn halves_run(&self, r: RegId, off: i64) -> Option<(i64, i64)> {
        let blk = self.f.blocks.get(BlockId(self.cur_block as u32))?;
        let cur = self.cur?;
        let start = blk.insts.iter().position(|i| i.id == cur)?;
        let (mut lo, mut hi) = (off, off);
        for i in &blk.insts[start..] {
            if let InstKind::Ld {
                space: Space::Shared,
                ty,
                dsts,
                addr,
            } = &i.kind
            {
                if addr.base == AddrBase::Reg(r) && ty.bytes() == EB as u32 && dsts.len() == 1 {
                    if addr.offset.wrapping_sub(off) & (EB as i64 - 1) != 0 {
                        return None;
                    }
                    lo = lo.min(addr.offset);
                    hi = hi.max(addr.offset);
                }
            }
            if i.kind.defs().contains(&r) {
                break;
            }
        }
        const LIMIT: i64 = 1 << 24;
        (lo > -LIMIT && hi < LIMIT && hi > lo).then_some((lo, hi))
    }

    /// Whether another 4-byte, one-element load from `r` follows the load being
    /// translated in its IR block before `r`'s next write (the current load writing
    /// `r` ends the run): a run of one load takes [`Self::halves_first`]'s test only
    /// where its lanes are proven consecutive in some launches (`Proof::RowsLaunch`).
    pub(super) fn halves_run_continues(&self, r: RegId) -> bool {
        let (Some(blk), Some(cur)) = (self.f.blocks.get(BlockId(self.cur_block as u32)), self.cur)
        else {
            return false;
        };
        let Some(start) = blk.insts.iter().position(|i| i.id == cur) else {
            return false;
        };
        if blk.insts[start].kind.defs().contains(&r) {
            return false;
        }
        for i in &blk.insts[start + 1..] {
            if let InstKind::Ld {
                space,
                ty,
                dsts,
                addr,
            } = &i.kind
            {
                if addr.base == AddrBase::Reg(r)
                    && *space != Space::Local
                    && ty.bytes() == EB as u32
                    && dsts.len() == 1
                {
                    return true;
                }
            }
            if i.kind.defs().contains(&r) {
                return false;
            }
        }
        false
    }

    /// At the first `.shared` load of a run (see [`Self::halves_run`]): whether the
    /// halves (`shaped` and `aligned`, i8) of every load of the run lie in the shared
    /// window (i8), so that the later loads need no test but the mask (`None`: no run,
    /// or not `.shared`). Marks the register's memo as window-tested.
    fn halves_window(
        &mut self,
        r: RegId,
        space: Space,
        off: i64,
        shaped: Value,
        aligned: Value,
        halves: &[(Value, Value)],
    ) -> Option<Value> {
        if space != Space::Shared {
            return None;
        }
        let (lo, hi) = self.halves_run(r, off)?;
        let mut win = self.b.ins().band(shaped, aligned);
        let window = self.shared_window();
        for &(base, cons) in halves {
            // `base + (lo - off)` wraps like each load's `reg + offset`; a range that
            // fits below the window's size does not wrap.
            let a = self.b.ins().iadd_imm_s(base, lo - off);
            let big = lanes::iconst64(&mut self.b, (hi - lo) as u64 + 16 * EB);
            let small = lanes::iconst64(&mut self.b, (hi - lo) as u64 + EB);
            let len = self.b.ins().select(cons, big, small);
            let (x, _) = self.in_shared_window_dyn(window, a, len);
            win = self.b.ins().band(win, x);
        }
        if let Some((_, _, window)) = self.halves_memo.get_mut(&r) {
            *window = true;
        }
        Some(win)
    }

    /// A `.shared` load `[r+off]` of a run whose window the first load tested: with all
    /// 32 lanes active and the test passed (`s`: the state), each half is one scalar
    /// load and a splat or four vector loads, to `join`; otherwise continues in a new
    /// current block.
    fn halves_window_load(&mut self, r: RegId, s: Value, full: Value, off: i64, join: Block) {
        let [_, b0, b1] = self.halves_vars(r);
        let both = self.b.ins().band_imm_u(s, SHAPED | WINDOW);
        let both = self.b.ins().icmp_imm_u(IntCC::Equal, both, SHAPED | WINDOW);
        let go = self.b.ins().band(full, both);
        let fast = self.b.create_block();
        let other = self.b.create_block();
        self.b.ins().brif(go, fast, &[], other, &[]);
        self.b.switch_to_block(fast);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        let mut out = Vec::with_capacity(8);
        for (bv, bit) in [(b0, CONS[0]), (b1, CONS[1])] {
            let reg = self.b.use_var(bv);
            let a = self.b.ins().iadd_imm_s(reg, off);
            let host = self.b.ins().iadd(base, a);
            let c = self.b.ins().band_imm_u(s, bit);
            let cons = self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0);
            out.extend(self.half_values(host, cons, EB));
        }
        let args: Vec<BlockArg> = out.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(other);
    }

    /// Forgets what loads found about registers `regs` (after an instruction writes
    /// them).
    pub(crate) fn halves_forget(&mut self, regs: &[RegId]) {
        for r in regs {
            if let Some(([st, ..], seen, window)) = self.halves_memo.get_mut(r) {
                (*seen, *window) = (false, false);
                self.b.def_var(*st, self.zero8);
            }
        }
    }

    /// Forgets every remembered shape (at the start of an IR block).
    pub(crate) fn halves_forget_all(&mut self) {
        for ([st, ..], seen, window) in self.halves_memo.values_mut() {
            (*seen, *window) = (false, false);
            self.b.def_var(*st, self.zero8);
        }
    }

    /// A 4-byte load `[r+off]` whose register's shape a load found: with all 32 lanes
    /// active, each half's address aligned and in place, loads and jumps to `join`
    /// with the 8 × i32x4 containers; otherwise (or when nothing is known) jumps to
    /// `miss`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn halves_memo_load(
        &mut self,
        r: RegId,
        space: Space,
        off: i64,
        bits: Value,
        inst: InstId,
        join: Block,
        miss: Block,
    ) -> Result<(), JitError> {
        let [st, b0, b1] = self.halves_vars(r);
        let s = self.b.use_var(st);
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
        let window = self.halves_memo.get(&r).is_some_and(|m| m.2);
        if space == Space::Shared && window {
            self.halves_window_load(r, s, full, off, join);
        }
        let shaped = self.b.ins().band_imm_u(s, SHAPED);
        let shaped = self.b.ins().icmp_imm_u(IntCC::NotEqual, shaped, 0);
        let known = self.b.ins().band(full, shaped);
        let hit = self.b.create_block();
        self.b.ins().brif(known, hit, &[], miss, &[]);
        self.b.switch_to_block(hit);
        let mut halves = Vec::with_capacity(2);
        for (bv, bit) in [(b0, CONS[0]), (b1, CONS[1])] {
            let reg = self.b.use_var(bv);
            let base = self.b.ins().iadd_imm_s(reg, off);
            let c = self.b.ins().band_imm_u(s, bit);
            let cons = self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0);
            halves.push((base, cons));
        }
        let ok = self.halves_aligned(&halves).unwrap_or(known);
        self.halves_place((space, EB), inst, &halves, ok, join, miss, None)
    }

    /// Whether every half's first address in `halves` (`(address, consecutive)`) is
    /// aligned to the element size; `None` for no halves.
    fn halves_aligned(&mut self, halves: &[(Value, Value)]) -> Option<Value> {
        let mut all: Option<Value> = None;
        for &(base, _) in halves {
            let low = self.b.ins().band_imm_u(base, EB as i64 - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            all = Some(match all {
                None => al,
                Some(y) => self.b.ins().band(y, al),
            });
        }
        all
    }
}
