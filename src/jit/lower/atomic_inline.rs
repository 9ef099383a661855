//! Inline `atom` / `red` on `.global` and `.shared` (outside the sanitizer variant; in
//! the quick tier on `.shared` only, without the vector test (except a proven span's
//! two compares) and the 32-lane unrolled form, while `.global` takes the
//! `ptxjit_atom` call there: about 400 CLIF instructions fewer per atomic): host atomic
//! instructions in the generated code instead of one `ptxjit_atom` call.
//!
//! The lane addresses go to the scratch slot's address area and the operands to the
//! lane-wise operand slots (the helper's layout, so the fallback passes them on as they
//! are). A check loop then visits the active lanes: every one must be aligned to the
//! access and inside the shared window (`.shared`) or inside the instruction's entry of
//! the per-instruction region cache (`.global`; a miss asks `ptxjit_region` once per
//! lane, which only caches writable regions). A vector test of all lanes at once comes
//! first; the loop runs where it fails. Any lane that fails sends the whole
//! instruction to the helper, which checks every lane before any access exactly as
//! before, so faults are reported as they always were. When every lane passes, an
//! access loop performs one read-modify-write per active lane (the new value as
//! `crate::exec::atomic` computes it):
//! - `.global`: host atomics (`atomic_rmw` for add/and/or/xor/exch/min/max,
//!   `atomic_cas` for cas, a compare-exchange loop computing the new value inline for
//!   inc/dec and `.f32` add), the lanes taken by 64-byte host line: the lowest
//!   remaining lane and every remaining lane on its line, ascending, then the next
//!   line. Lanes at one address keep ascending order (so each gets the old value the
//!   interpreter's lane order gives it), and the lanes of one instruction are
//!   different threads with no order between their accesses to different addresses.
//!   The grouping makes the worker take each line once per instruction instead of
//!   once per lane, which is what other workers' atomics on the same lines (a
//!   histogram) make expensive. An integer add/and/or/xor/min/max combines a line's
//!   lanes per word (`atomic_combine`: one atomic per distinct word, the operands in
//!   ascending order; where the destination is live, each lane gets the word's old
//!   value combined with the operands of the lanes below it, what one-by-one gives)
//!   when the line has more active lanes than words by a quarter (more than 20 lanes
//!   on 16 words, 10 on 8): the combining passes cost about 4 more instructions per
//!   lane and 50 per line, which fewer atomics than lanes repay only there (measured:
//!   all 32 lanes at one word 2.3× faster, 8 lanes over 16 words 11% slower).
//! - `.shared`: ascending lanes, a plain load, the new value and a store: a CTA's
//!   warps, and all the CTAs of a cluster, run on one OS thread (`runtime::launch`,
//!   `exec::cluster`), and warps switch only at barriers and calls, never inside an
//!   instruction, so no other thread can touch the window meanwhile. With every lane
//!   active the accesses are straight-line code, lanes 0 to 31 (a dead `add` of a
//!   constant is one `add` to memory per lane), no lane loop.
//!
//! With every lane active (either space) the vector test is two reductions over the
//! lanes' 32-bit halves, an unsigned maximum and an OR (`check_full`).
//!
//! Where the destination is dead (`lower::atomic` passes no `dst`), no old value is
//! gathered.
//!
//! `.f32` add flushes subnormals on global memory but not on shared memory (the helper
//! decides by the host address): the inline global form also requires the lane's
//! address to lie outside the warp's own shared window and the launch to have no
//! cluster windows.
//!
//! **Combining.** Where the shape analysis proves the address uniform (for every
//! launch), integer add/and/or/xor/min/max perform one atomic (on `.shared`, one
//! plain read-modify-write) with the operands of the
//! active lanes combined in ascending lane order; lane `i` receives the old value
//! combined with the operands of the active lanes below it: the value the per-lane
//! sequence gives it, bit for bit (add wraps in the type's width as each step would).
//! inc/dec, exch and cas are not combined (inc/dec wrap at the operand).

use crate::exec::ctx::WarpCtx;
use crate::ir::{Address, AtomOp, InstId, RegId, Space, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::memory::encode;
use crate::jit::lower::mem::{AddrShape, LaneAddr, Proof};
use crate::jit::translate::lanes::{self, WarpValue, N32, N64};
use crate::jit::translate::scratch::{slot, SLOT_OUT};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{AtomicRmwOp, Block, InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

/// log2 of the line size the global access loop groups lanes by (a host cache line).
pub(super) const LINE_SHIFT: i64 = 6;

/// How the inline form computes an operation's new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// One `atomic_rmw`.
    Rmw(AtomicRmwOp),
    /// One `atomic_cas` (`cas`).
    Cas,
    /// A compare-exchange loop (inc, dec, `.f32` add).
    Loop,
}

/// The inline form of `(op, ty)` on `space`, if it has one.
fn form(op: AtomOp, ty: Type, space: Space) -> Option<Form> {
    use Type::*;
    if !matches!(space, Space::Global | Space::Shared) {
        return None;
    }
    let int = matches!(ty, U32 | S32 | B32 | U64 | S64 | B64);
    let signed = matches!(ty, S32 | S64);
    Some(match (op, ty) {
        (AtomOp::Add, F32) => Form::Loop,
        (_, _) if !int => return None,
        (AtomOp::Add, _) => Form::Rmw(AtomicRmwOp::Add),
        (AtomOp::And, _) => Form::Rmw(AtomicRmwOp::And),
        (AtomOp::Or, _) => Form::Rmw(AtomicRmwOp::Or),
        (AtomOp::Xor, _) => Form::Rmw(AtomicRmwOp::Xor),
        (AtomOp::Exch, _) => Form::Rmw(AtomicRmwOp::Xchg),
        (AtomOp::Min, _) if signed => Form::Rmw(AtomicRmwOp::Smin),
        (AtomOp::Max, _) if signed => Form::Rmw(AtomicRmwOp::Smax),
        (AtomOp::Min, _) => Form::Rmw(AtomicRmwOp::Umin),
        (AtomOp::Max, _) => Form::Rmw(AtomicRmwOp::Umax),
        (AtomOp::Cas, _) => Form::Cas,
        (AtomOp::Inc | AtomOp::Dec, U32) => Form::Loop,
        _ => return None,
    })
}

/// Whether the warp's operands of `op` may be combined into one atomic (see the module
/// documentation).
fn combinable(op: AtomOp, ty: Type) -> bool {
    use Type::*;
    matches!(ty, U32 | S32 | B32 | U64 | S64 | B64)
        && matches!(
            op,
            AtomOp::Add | AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Min | AtomOp::Max
        )
}

pub(super) fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// One `atom`/`red` instruction, as the inline lowering sees it.
pub(crate) struct AtomInst {
    pub op: AtomOp,
    pub ty: Type,
    pub space: Space,
    pub dst: Option<RegId>,
    pub inst: InstId,
    /// The first operand where it is an immediate: its bits and the splat `read` gives
    /// of it. The access loop uses the bits (in the container's width, as the splat) as
    /// a constant instead of loading operand slot 0, which only the helper path fills
    /// (from the splat).
    pub imm: Option<(u64, WarpValue)>,
    /// `.shared`: `(lo, M)` where every lane's address lies in `[lo, lo + M]`
    /// (`atomic_range`).
    pub span: Option<(u64, u64)>,
}

impl FuncTranslator<'_> {
    /// Whether `atom`/`red` `(op, ty)` on `space` has an inline lowering here (in the
    /// quick tier only on `.shared`, where the helper's per-warp cost made a shared
    /// histogram 5 times slower).
    pub(crate) fn atom_inlinable(&self, op: AtomOp, ty: Type, space: Space) -> bool {
        !self.instrument && (!self.quick || space == Space::Shared) && form(op, ty, space).is_some()
    }

    /// Whether this `atom` combines the warp's operands: a combinable operation at an
    /// address that is one value or that the shape analysis proves uniform for every
    /// launch.
    pub(crate) fn atom_uniform(
        &self,
        op: AtomOp,
        ty: Type,
        space: Space,
        addr: &Address,
        la: &LaneAddr,
    ) -> bool {
        combinable(op, ty)
            && (matches!(la, LaneAddr::Uniform(_))
                || self.addr_shape(space, addr, ty.bytes()) == (AddrShape::Uniform, Proof::Always))
    }

    /// The inline `atom`/`red`: the lane addresses are in the scratch address area and
    /// the operands in operand slots 0 and 1 already; leaves the old values in
    /// [`SLOT_OUT`] (for the active lanes) and continues in a new current block.
    /// `uniform`: combine the warp's operands (see the module documentation).
    pub(crate) fn atom_inline(
        &mut self,
        a: &AtomInst,
        mask: &mut Mask,
        uniform: bool,
    ) -> Result<(), JitError> {
        let Some(form) = form(a.op, a.ty, a.space) else {
            return Err(JitError::Codegen("atom without an inline form".into()));
        };
        let bits = self.mbits(mask);
        let cont = self.b.create_block();
        let slow = self.b.create_block();
        let any = self.b.create_block();
        self.b.ins().brif(bits, any, &[], cont, &[]);
        self.b.switch_to_block(any);
        if uniform {
            let go = self.b.create_block();
            self.b.append_block_param(go, I64);
            let lane = self.b.ins().ctz(bits);
            self.atom_check_lane(a, lane, go, slow)?;
            self.b.switch_to_block(go);
            let h = self.b.block_params(go)[0];
            self.atom_combined(a, form, bits, h);
            self.b.ins().jump(cont, &[]);
        } else {
            // The vector test first; where it fails (a region-cache miss, say), the
            // lane-by-lane test that can look regions up.
            let go = self.b.create_block();
            let scalar = self.b.create_block();
            // (Not in the quick tier, except a proven `.shared` span's two compares: the
            // lane-by-lane test only, fewer instructions.)
            let len = a.ty.bytes() as u64;
            let span = a.span.filter(|&(lo, m)| (lo | m) % len == 0);
            if let (true, Some((lo, m))) = (self.quick && a.space == Space::Shared, span) {
                self.check_span(lo + m, len as i64, go, scalar);
            } else if self.quick
                || (a.op == AtomOp::Add && a.ty == Type::F32 && a.space == Space::Global)
            {
                self.b.ins().jump(scalar, &[]);
            } else {
                self.atom_check_vector(a, bits, go, scalar);
            }
            self.b.switch_to_block(scalar);
            let checked = self.atom_check_all(a, bits, slow)?;
            self.b.switch_to_block(checked);
            self.b.ins().jump(go, &[]);
            self.b.switch_to_block(go);
            self.atom_each(a, form, bits, cont)?;
        }
        self.b.switch_to_block(slow);
        if let Some((_, w)) = &a.imm {
            self.spill(w, slot(0));
        }
        self.atom_helper(a, bits)?;
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The `ptxjit_atom` call on the spilled lane addresses and operands; returns from
    /// the kernel on a fault.
    pub(crate) fn atom_helper(&mut self, a: &AtomInst, bits: Value) -> Result<(), JitError> {
        let desc = lanes::iconst64(&mut self.b, encode(a.op, a.ty, a.space));
        let instv = lanes::iconst32(&mut self.b, a.inst.0);
        let pa = self.scratch_addr(0);
        let lead = [self.ctx, desc, bits, instv, pa];
        let call = self.call_lanewise(Helper::Atom, &lead, &[], 2)?;
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The state-space address of lane `lane` (i32) from the scratch address area.
    pub(super) fn spilled_addr(&mut self, lane: Value) -> Value {
        let l = self.b.ins().uextend(I64, lane);
        let off = self.b.ins().ishl_imm_u(l, 3);
        let base = self.scratch_addr(0);
        let p = self.b.ins().iadd(base, off);
        self.b.ins().load(I64, flags(), p, 0)
    }

    /// Lane `lane`'s (i32) entry of data slot `at` (4 or 8 bytes per lane).
    pub(super) fn slot_entry(&mut self, at: i32, lane: Value, wide: bool) -> Value {
        let l = self.b.ins().uextend(I64, lane);
        let off = self.b.ins().ishl_imm_u(l, if wide { 3 } else { 2 });
        let base = self.scratch_addr(at);
        self.b.ins().iadd(base, off)
    }

    /// Lane `lane`'s (i32) first operand: the immediate's constant, or operand slot 0.
    pub(super) fn lane_operand(&mut self, a: &AtomInst, lane: Value, wide: bool) -> Value {
        let ity = if wide { I64 } else { I32 };
        if let Some((x, _)) = a.imm {
            return if wide {
                lanes::iconst64(&mut self.b, x)
            } else {
                lanes::iconst32(&mut self.b, x as u32)
            };
        }
        let pb = self.slot_entry(slot(0), lane, wide);
        self.b.ins().load(ity, flags(), pb, 0)
    }

    /// Checks every active lane at once: aligned, and inside the shared window or the
    /// instruction's cached region; branches to `ok` or `other`. Where every lane is
    /// active, the reductions of [`Self::check_full`]; otherwise
    /// one i64x2 compare per 2 lanes and one sign-bit gather per 4 lanes into lane bits,
    /// ANDed with the active lanes `bits`.
    fn atom_check_vector(&mut self, a: &AtomInst, bits: Value, ok: Block, other: Block) {
        let len = a.ty.bytes() as i64;
        let shared = a.space == Space::Shared;
        let aligned = |&(lo, m): &(u64, u64)| (lo | m) % len as u64 == 0;
        if let (true, Some((lo, m))) = (shared, a.span.filter(aligned)) {
            self.check_span(lo + m, len, ok, other);
            return;
        }
        let (lo, top, good) = if shared {
            let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
            let zero = lanes::iconst64(&mut self.b, 0);
            let big = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, len);
            // Host address = shared address + base: with the base aligned, a lane's
            // host address is aligned where its shared address is.
            let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
            let bl = self.b.ins().band_imm_u(base, len - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, bl, 0);
            let top = self.b.ins().iadd_imm_s(size, -len);
            (zero, top, self.b.ins().band(big, al))
        } else {
            let (lo, hi) = self.cached_region(a.inst);
            let c1 = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, hi, lo);
            let span = self.b.ins().isub(hi, lo);
            let c2 = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, span, len);
            let top = self.b.ins().iadd_imm_s(hi, -len);
            (lo, top, self.b.ins().band(c1, c2))
        };
        let whole = self.b.create_block();
        let some = self.b.create_block();
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
        self.b.ins().brif(full, whole, &[], some, &[]);
        self.b.switch_to_block(whole);
        self.check_full(!shared, lo, top, len, good, ok, other);
        self.b.switch_to_block(some);
        // In range: (x - lo) <= (top - lo) unsigned, compared signed with the sign bits
        // flipped (one compare per vector); aligned: x & (len - 1) == 0. Each vector is
        // loaded where it is tested (few live vectors, no spills).
        let span = self.b.ins().isub(top, lo);
        let sign = lanes::iconst64(&mut self.b, 1 << 63);
        let lim = self.b.ins().bxor(span, sign);
        let (lov, limv, signv) = (
            self.b.ins().splat(I64X2, lo),
            self.b.ins().splat(I64X2, lim),
            self.b.ins().splat(I64X2, sign),
        );
        let lowmask = lanes::splat64(&mut self.b, len as u64 - 1);
        let zero = lanes::splat64(&mut self.b, 0);
        let at = self.scratch_addr(0);
        let mut okbits: Option<Value> = None;
        for k in 0..N32 {
            let pair: Vec<Value> = (0..2)
                .map(|h| {
                    let off = 32 * k as i32 + 16 * h;
                    let x = self.b.ins().load(I64X2, flags(), at, off);
                    let d = if shared { x } else { self.b.ins().isub(x, lov) };
                    let dx = self.b.ins().bxor(d, signv);
                    let out = self.b.ins().icmp(IntCC::SignedGreaterThan, dx, limv);
                    let low = self.b.ins().band(x, lowmask);
                    let al = self.b.ins().icmp(IntCC::Equal, low, zero);
                    // Aligned and not out: one `andn`.
                    self.b.ins().band_not(al, out)
                })
                .collect();
            let four = lanes::narrow_pair(&mut self.b, pair[0], pair[1]);
            let hb = self.b.ins().vhigh_bits(I32, four);
            let sh = if k == 0 {
                hb
            } else {
                self.b.ins().ishl_imm_u(hb, 4 * k as i64)
            };
            okbits = Some(match okbits {
                None => sh,
                Some(acc) => self.b.ins().bor(acc, sh),
            });
        }
        let okbits = okbits.unwrap_or(bits);
        let bad = self.b.ins().band_not(bits, okbits);
        let vok = self.b.ins().icmp_imm_u(IntCC::Equal, bad, 0);
        let pass = self.b.ins().band(vok, good);
        self.b.ins().brif(pass, ok, &[], other, &[]);
    }

    /// The test of all 32 lanes (every lane active) against `[lo, top]` (`top`: the last
    /// in-range address): with `d = x - lo` per lane, two reductions over the 16 i64x2
    /// vectors, `pmaxud` (each lane's low and high half) and OR: every high half 0 (the
    /// OR's), every low half at most `top - lo` clamped to `u32::MAX` (the maximum's,
    /// whose high halves are then 0 too) and aligned (the OR's low halves; `lo` aligned
    /// too). Conservative where the range spans more than 4 GiB or `lo` is misaligned
    /// (a failing test only sends the instruction to the exact lane-by-lane check).
    /// `sub`: subtract `lo` (`.shared` has `lo` = 0); `good`: the range-wide conditions.
    #[allow(clippy::too_many_arguments)]
    fn check_full(
        &mut self,
        sub: bool,
        lo: Value,
        top: Value,
        len: i64,
        good: Value,
        ok: Block,
        other: Block,
    ) {
        let lov = self.b.ins().splat(I64X2, lo);
        let at = self.scratch_addr(0);
        let mut acc: Option<(Value, Value)> = None;
        for k in 0..N64 {
            let mut x = self.b.ins().load(I64X2, flags(), at, 16 * k as i32);
            if sub {
                x = self.b.ins().isub(x, lov);
            }
            let x32 = lanes::bitcast(&mut self.b, I32X4, x);
            acc = Some(match acc {
                None => (x32, x),
                Some((m, o)) => (self.b.ins().umax(m, x32), self.b.ins().bor(o, x)),
            });
        }
        let zero = lanes::splat32(&mut self.b, 0);
        let (m, o) = acc.unwrap_or((zero, zero));
        let cap = lanes::iconst64(&mut self.b, u32::MAX as u64);
        let span = self.b.ins().isub(top, lo);
        let t = self.b.ins().umin(span, cap);
        let t = self.b.ins().ireduce(I32, t);
        let tv = self.b.ins().splat(I32X4, t);
        let inr = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, m, tv);
        // Low halves: the alignment bits; high halves: every bit.
        let low = len as u32 - 1;
        let sel = lanes::const_i32x4(&mut self.b, [low, u32::MAX, low, u32::MAX]);
        let o32 = lanes::bitcast(&mut self.b, I32X4, o);
        let ol = self.b.ins().band(o32, sel);
        let clear = self.b.ins().icmp(IntCC::Equal, ol, zero);
        let v = self.b.ins().band(clear, inr);
        let all = self.b.ins().vall_true(v);
        let lol = self.b.ins().band_imm_u(lo, len - 1);
        let loal = self.b.ins().icmp_imm_u(IntCC::Equal, lol, 0);
        let all = self.b.ins().band(all, loal);
        let pass = self.b.ins().band(all, good);
        self.b.ins().brif(pass, ok, &[], other, &[]);
    }

    /// The range fact's test (`atomic_range`): every lane's shared address is aligned
    /// and at most `hi`, so in the window where `hi + len <= size` and the window's host
    /// base is aligned. Branches to `ok` or `other` (the exact lane-by-lane test).
    fn check_span(&mut self, hi: u64, len: i64, ok: Block, other: Block) {
        let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        let need = hi as i64 + len;
        let inr = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, need);
        let low = self.b.ins().band_imm_u(base, len - 1);
        let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let pass = self.b.ins().band(inr, al);
        self.b.ins().brif(pass, ok, &[], other, &[]);
    }

    /// Checks the active lanes (`bits`) one by one; returns the block reached when every
    /// one passes (`fail` otherwise).
    fn atom_check_all(
        &mut self,
        a: &AtomInst,
        bits: Value,
        fail: Block,
    ) -> Result<Block, JitError> {
        let go = self.b.create_block();
        self.each_lane(bits, go, |t, lane| {
            let next = t.b.create_block();
            t.b.append_block_param(next, I64);
            t.atom_check_lane(a, lane, next, fail)?;
            t.b.switch_to_block(next);
            Ok(())
        })?;
        Ok(go)
    }

    /// Checks lane `lane`'s address (aligned, inside the shared window or the cached
    /// region, asking `ptxjit_region` once on a miss); jumps to `ok` with the lane's host
    /// address, or to `fail`.
    fn atom_check_lane(
        &mut self,
        a: &AtomInst,
        lane: Value,
        ok: Block,
        fail: Block,
    ) -> Result<(), JitError> {
        let len = a.ty.bytes() as i64;
        let addr = self.spilled_addr(lane);
        if a.space == Space::Shared {
            let (loc, h) = self.in_shared_window(addr, len);
            let low = self.b.ins().band_imm_u(h, len - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            let good = self.b.ins().band(loc, al);
            self.b.ins().brif(good, ok, &[h.into()], fail, &[]);
            return Ok(());
        }
        let low = self.b.ins().band_imm_u(addr, len - 1);
        let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let al = if a.op == AtomOp::Add && a.ty == Type::F32 {
            let ns = self.not_shared_host(addr, len);
            self.b.ins().band(al, ns)
        } else {
            al
        };
        let aligned = self.b.create_block();
        let lookup = self.b.create_block();
        self.b.ins().brif(al, aligned, &[], fail, &[]);
        self.b.switch_to_block(aligned);
        let loc = self.in_cached_region(a.inst, addr, len);
        self.b.ins().brif(loc, ok, &[addr.into()], lookup, &[]);
        self.b.switch_to_block(lookup);
        let lenv = lanes::iconst64(&mut self.b, len as u64);
        let found = self.region_lookup(a.inst, addr, lenv, true)?;
        self.b.ins().brif(found, ok, &[addr.into()], fail, &[]);
        Ok(())
    }

    /// Whether global address `addr` lies outside every shared window the helper would
    /// see (i8): the launch has no cluster windows and `addr..addr+len` misses the warp's
    /// own window.
    fn not_shared_host(&mut self, addr: Value, len: i64) -> Value {
        let cl = self.load_ctx(I64, offset_of!(WarpCtx, cluster_shared), true);
        let nocl = self.b.ins().icmp_imm_u(IntCC::Equal, cl, 0);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
        // Outside [base - len + 1, base + size): (addr + len - 1 - base) >= size + len - 1.
        let x = self.b.ins().iadd_imm_s(addr, len - 1);
        let x = self.b.ins().isub(x, base);
        let lim = self.b.ins().iadd_imm_s(size, len - 1);
        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, lim);
        self.b.ins().band(nocl, out)
    }

    /// The access loop; old values to [`SLOT_OUT`]; ends with a jump to `cont`. Shared
    /// memory: the active lanes in ascending order, plain read-modify-writes. Global
    /// memory: the lanes grouped by 64-byte line (see the module documentation).
    fn atom_each(
        &mut self,
        a: &AtomInst,
        form: Form,
        bits: Value,
        cont: Block,
    ) -> Result<(), JitError> {
        if a.space == Space::Shared {
            // Every lane active (the common case): lanes 0 to 31 in straight-line code,
            // no lane loop (not in the quick tier: 32 copies of the lane's code);
            // otherwise the loop over the active lanes.
            let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
            if self.quick {
                return self.atom_lanes(a, form, bits, Some(base), cont);
            }
            let all = self.b.create_block();
            let some = self.b.create_block();
            let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
            self.b.ins().brif(full, all, &[], some, &[]);
            self.b.switch_to_block(all);
            for k in 0..32 {
                let lane = lanes::iconst32(&mut self.b, k);
                self.atom_lane(a, form, lane, Some(base));
            }
            self.b.ins().jump(cont, &[]);
            self.b.switch_to_block(some);
            return self.atom_lanes(a, form, bits, Some(base), cont);
        }
        let keys = self.line_keys();
        let outer = self.b.create_block();
        self.b.append_block_param(outer, I32);
        let next = self.b.create_block();
        self.b.ins().jump(outer, &[bits.into()]);
        self.b.switch_to_block(outer);
        let rem = self.b.block_params(outer)[0];
        let lead = self.b.ins().ctz(rem);
        let addr = self.spilled_addr(lead);
        let line = self.b.ins().ushr_imm_u(addr, LINE_SHIFT);
        let key = self.b.ins().ireduce(I32, line);
        let ks = self.b.ins().splat(I32X4, key);
        let eq: Vec<Value> = keys
            .iter()
            .map(|&k| self.b.ins().icmp(IntCC::Equal, k, ks))
            .collect();
        let same = lanes::bits_from_mask(&mut self.b, &eq);
        let group = self.b.ins().band(same, rem);
        let left = self.b.ins().band_not(rem, group);
        match form {
            Form::Rmw(rop) if combinable(a.op, a.ty) => {
                // Combine where the group has more lanes than the line has words by a
                // margin (so at least that many fewer atomics): cheaper than the lanes
                // one by one only there (see the module documentation).
                let words = (1i64 << LINE_SHIFT) / a.ty.bytes() as i64;
                let n = self.b.ins().popcnt(group);
                let dense =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThan, n, words + words / 4);
                let comb = self.b.create_block();
                let each = self.b.create_block();
                self.b.ins().brif(dense, comb, &[], each, &[]);
                self.b.switch_to_block(comb);
                self.atom_line_combined(a, rop, group, addr, next)?;
                self.b.switch_to_block(each);
                self.atom_lanes(a, form, group, None, next)?;
            }
            _ => self.atom_lanes(a, form, group, None, next)?,
        }
        self.b.switch_to_block(next);
        self.b.ins().brif(left, outer, &[left.into()], cont, &[]);
        Ok(())
    }

    /// The low 32 bits of each lane's line number (address >> [`LINE_SHIFT`]), from the
    /// scratch address area: 8 × i32x4.
    fn line_keys(&mut self) -> Vec<Value> {
        let addrs = self.unspill(true, 0);
        (0..N32)
            .map(|k| {
                let lo = self.b.ins().ushr_imm_u(addrs.v[2 * k], LINE_SHIFT);
                let hi = self.b.ins().ushr_imm_u(addrs.v[2 * k + 1], LINE_SHIFT);
                lanes::narrow_pair(&mut self.b, lo, hi)
            })
            .collect()
    }

    /// One read-modify-write per lane of `bits` (non-zero), ascending; old values to
    /// [`SLOT_OUT`]; ends with a jump to `cont`. `base`: the shared window's host
    /// address (`.shared`; `None` for `.global`).
    fn atom_lanes(
        &mut self,
        a: &AtomInst,
        form: Form,
        bits: Value,
        base: Option<Value>,
        cont: Block,
    ) -> Result<(), JitError> {
        self.each_lane(bits, cont, |t, lane| {
            t.atom_lane(a, form, lane, base);
            Ok(())
        })
    }

    /// Lane `lane`'s read-modify-write (see [`Self::atom_lanes`]); `base`: the shared
    /// window's host address, where the access is a plain one to shared memory.
    fn atom_lane(&mut self, a: &AtomInst, form: Form, lane: Value, base: Option<Value>) {
        let wide = a.ty.bits() > 32;
        let ity = if wide { I64 } else { I32 };
        let addr = self.spilled_addr(lane);
        let shared = base.is_some();
        let h = match base {
            Some(base) => self.b.ins().iadd(base, addr),
            None => addr,
        };
        let bv = self.lane_operand(a, lane, wide);
        let cv = if form == Form::Cas {
            let pc = self.slot_entry(slot(1), lane, wide);
            Some(self.b.ins().load(ity, flags(), pc, 0))
        } else {
            None
        };
        let old = match (form, cv) {
            _ if shared => self.atom_plain(a, form, h, bv, cv),
            (Form::Rmw(op), _) => self.b.ins().atomic_rmw(ity, flags(), op, h, bv),
            (Form::Cas, Some(cv)) => self.b.ins().atomic_cas(flags(), h, bv, cv),
            _ => self.atom_cas_loop(a, h, bv),
        };
        if a.dst.is_some() {
            let po = self.slot_entry(SLOT_OUT, lane, wide);
            self.b.ins().store(flags(), old, po, 0);
        }
    }

    /// A loop over the lanes of `bits` (non-zero), ascending: `body` emits one lane's
    /// code (it may end in another block than it starts in); then the loop goes on with
    /// the next lane or jumps to `exit`.
    pub(super) fn each_lane(
        &mut self,
        bits: Value,
        exit: Block,
        body: impl FnOnce(&mut Self, Value) -> Result<(), JitError>,
    ) -> Result<(), JitError> {
        let head = self.b.create_block();
        self.b.append_block_param(head, I32);
        self.b.ins().jump(head, &[bits.into()]);
        self.b.switch_to_block(head);
        let rem = self.b.block_params(head)[0];
        let lane = self.b.ins().ctz(rem);
        body(self, lane)?;
        let rest = self.b.ins().iadd_imm_s(rem, -1);
        let rest = self.b.ins().band(rem, rest);
        self.b.ins().brif(rest, head, &[rest.into()], exit, &[]);
        Ok(())
    }

    /// A plain load, the new value and a store at host address `h` of the executing
    /// CTA's (or cluster's) shared memory, which only this OS thread accesses while the
    /// instruction runs; returns the old value. `cv`: the `cas` swap operand.
    fn atom_plain(
        &mut self,
        a: &AtomInst,
        form: Form,
        h: Value,
        bv: Value,
        cv: Option<Value>,
    ) -> Value {
        let ity = if a.ty.bits() > 32 { I64 } else { I32 };
        let cur = self.b.ins().load(ity, flags(), h, 0);
        let new = match (form, cv) {
            (Form::Rmw(AtomicRmwOp::Xchg), _) => bv,
            (Form::Rmw(op), _) => combine(&mut self.b, op, cur, bv),
            (Form::Cas, Some(cv)) => {
                let eq = self.b.ins().icmp(IntCC::Equal, cur, bv);
                self.b.ins().select(eq, cv, cur)
            }
            _ => self.loop_new(a, cur, bv),
        };
        self.b.ins().store(flags(), new, h, 0);
        cur
    }

    /// A compare-exchange loop at host address `h` applying inc, dec or `.f32` add with
    /// operand `b` (i32); returns the old value and continues in a new current block.
    fn atom_cas_loop(&mut self, a: &AtomInst, h: Value, b: Value) -> Value {
        let first = self.b.ins().atomic_load(I32, flags(), h);
        let lp = self.b.create_block();
        self.b.append_block_param(lp, I32);
        let done = self.b.create_block();
        self.b.append_block_param(done, I32);
        self.b.ins().jump(lp, &[first.into()]);
        self.b.switch_to_block(lp);
        let cur = self.b.block_params(lp)[0];
        let new = self.loop_new(a, cur, b);
        let got = self.b.ins().atomic_cas(flags(), h, cur, new);
        let same = self.b.ins().icmp(IntCC::Equal, got, cur);
        self.b
            .ins()
            .brif(same, done, &[cur.into()], lp, &[got.into()]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// The new value inc, dec or `.f32` add (flushing on global memory) makes of `cur`
    /// with operand `b` (i32).
    fn loop_new(&mut self, a: &AtomInst, cur: Value, b: Value) -> Value {
        match a.op {
            AtomOp::Inc => {
                // inc(r, s) = r >= s ? 0 : r + 1
                let ge = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, cur, b);
                let zero = self.b.ins().iconst(I32, 0);
                let inc = self.b.ins().iadd_imm_s(cur, 1);
                self.b.ins().select(ge, zero, inc)
            }
            AtomOp::Dec => {
                // dec(r, s) = r == 0 || r > s ? s : r - 1
                let z = self.b.ins().icmp_imm_u(IntCC::Equal, cur, 0);
                let gt = self.b.ins().icmp(IntCC::UnsignedGreaterThan, cur, b);
                let reset = self.b.ins().bor(z, gt);
                let dec = self.b.ins().iadd_imm_s(cur, -1);
                self.b.ins().select(reset, b, dec)
            }
            _ => self.f32_atom_add(cur, b, a.space == Space::Global),
        }
    }

    /// `ops::atomic::apply` for `.f32` add on i32 bits: inputs and result flushed with
    /// `ftz`, a NaN result is the canonical NaN.
    fn f32_atom_add(&mut self, x: Value, y: Value, ftz: bool) -> Value {
        let (x, y) = if ftz {
            (self.flush32(x), self.flush32(y))
        } else {
            (x, y)
        };
        let fl = MemFlagsData::new();
        let fx = self.b.ins().bitcast(F32, fl, x);
        let fy = self.b.ins().bitcast(F32, fl, y);
        let s = self.b.ins().fadd(fx, fy);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, s, s);
        let r = self.b.ins().bitcast(I32, fl, s);
        let canon = self.b.ins().iconst(I32, 0x7fff_ffff);
        let r = self.b.ins().select(nan, canon, r);
        if ftz {
            self.flush32(r)
        } else {
            r
        }
    }

    /// f32 bits with a subnormal flushed to the zero of its sign.
    fn flush32(&mut self, x: Value) -> Value {
        let e = self.b.ins().band_imm_u(x, 0x7f80_0000);
        let sub = self.b.ins().icmp_imm_u(IntCC::Equal, e, 0);
        let sign = self.b.ins().band_imm_u(x, 0x8000_0000);
        self.b.ins().select(sub, sign, x)
    }

    /// The combined form at host address `h`: the operands of the active lanes combined
    /// in ascending order (each lane's exclusive prefix to [`SLOT_OUT`]), one atomic,
    /// then each lane's old value = the location's old value combined with its prefix.
    fn atom_combined(&mut self, a: &AtomInst, form: Form, bits: Value, h: Value) {
        let Form::Rmw(rop) = form else {
            return;
        };
        let wide = a.ty.bits() > 32;
        let ity = if wide { I64 } else { I32 };
        let want = a.dst.is_some();
        let head = self.b.create_block();
        self.b.append_block_param(head, I32);
        self.b.append_block_param(head, ity);
        let done = self.b.create_block();
        self.b.append_block_param(done, ity);
        let id = if wide {
            lanes::iconst64(&mut self.b, identity(rop, true))
        } else {
            lanes::iconst32(&mut self.b, identity(rop, false) as u32)
        };
        self.b.ins().jump(head, &[bits.into(), id.into()]);
        self.b.switch_to_block(head);
        let rem = self.b.block_params(head)[0];
        let acc = self.b.block_params(head)[1];
        let lane = self.b.ins().ctz(rem);
        if want {
            let po = self.slot_entry(SLOT_OUT, lane, wide);
            self.b.ins().store(flags(), acc, po, 0);
        }
        let bv = self.lane_operand(a, lane, wide);
        let acc2 = combine(&mut self.b, rop, acc, bv);
        let rest = self.b.ins().iadd_imm_s(rem, -1);
        let rest = self.b.ins().band(rem, rest);
        self.b.ins().brif(
            rest,
            head,
            &[rest.into(), acc2.into()],
            done,
            &[acc2.into()],
        );
        self.b.switch_to_block(done);
        let total = self.b.block_params(done)[0];
        let old = if a.space == Space::Shared {
            self.atom_plain(a, form, h, total, None)
        } else {
            self.b.ins().atomic_rmw(ity, flags(), rop, h, total)
        };
        if !want {
            return;
        }
        // Each lane's old value: old ∘ prefix (inactive lanes get garbage, unused).
        let s = self.b.ins().splat(if wide { I64X2 } else { I32X4 }, old);
        let n = if wide { N64 } else { N32 };
        let out = self.scratch_addr(SLOT_OUT);
        let vty = if wide { I64X2 } else { I32X4 };
        for k in 0..n {
            let p = self.b.ins().load(vty, flags(), out, 16 * k as i32);
            let v = combine(&mut self.b, rop, s, p);
            self.b.ins().store(flags(), v, out, 16 * k as i32);
        }
    }
}

/// The identity of a combinable operation in `wide` (64) or 32 bits.
pub(super) fn identity(op: AtomicRmwOp, wide: bool) -> u64 {
    let ones = if wide { u64::MAX } else { u32::MAX as u64 };
    let smax = ones >> 1;
    match op {
        AtomicRmwOp::And | AtomicRmwOp::Umin => ones,
        AtomicRmwOp::Smin => smax,
        AtomicRmwOp::Smax => smax + 1,
        _ => 0,
    }
}

/// `op` on two values (scalars or vectors) as the atomic applies it.
pub(super) fn combine(
    b: &mut cranelift_frontend::FunctionBuilder,
    op: AtomicRmwOp,
    x: Value,
    y: Value,
) -> Value {
    match op {
        AtomicRmwOp::And => b.ins().band(x, y),
        AtomicRmwOp::Or => b.ins().bor(x, y),
        AtomicRmwOp::Xor => b.ins().bxor(x, y),
        AtomicRmwOp::Umin => b.ins().umin(x, y),
        AtomicRmwOp::Umax => b.ins().umax(x, y),
        AtomicRmwOp::Smin => b.ins().smin(x, y),
        AtomicRmwOp::Smax => b.ins().smax(x, y),
        _ => b.ins().iadd(x, y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_leave_every_value_unchanged() {
        // x op identity == x, for the extremes of each width.
        for wide in [false, true] {
            let (ones, bits) = if wide {
                (u64::MAX, 64)
            } else {
                (u32::MAX as u64, 32)
            };
            let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
            for x in [0, 1, ones >> 1, (ones >> 1) + 1, ones] {
                let id = identity(AtomicRmwOp::And, wide);
                assert_eq!(x & id, x);
                for op in [AtomicRmwOp::Or, AtomicRmwOp::Xor, AtomicRmwOp::Add] {
                    assert_eq!(identity(op, wide), 0, "{op:?}");
                }
                assert_eq!(x.min(identity(AtomicRmwOp::Umin, wide)), x);
                assert_eq!(x.max(identity(AtomicRmwOp::Umax, wide)), x);
                let sx = signed(x);
                assert_eq!(sx.min(signed(identity(AtomicRmwOp::Smin, wide))), sx);
                assert_eq!(sx.max(signed(identity(AtomicRmwOp::Smax, wide))), sx);
            }
        }
    }

    #[test]
    fn inline_forms_cover_the_common_ops_only() {
        use AtomOp::*;
        assert_eq!(
            form(Min, Type::S32, Space::Global),
            Some(Form::Rmw(AtomicRmwOp::Smin))
        );
        assert_eq!(
            form(Max, Type::U64, Space::Shared),
            Some(Form::Rmw(AtomicRmwOp::Umax))
        );
        assert_eq!(form(Cas, Type::B64, Space::Global), Some(Form::Cas));
        assert_eq!(form(Inc, Type::U32, Space::Shared), Some(Form::Loop));
        assert_eq!(form(Add, Type::F32, Space::Global), Some(Form::Loop));
        // Helper: f64/half adds, b16 cas, generic and cluster addresses.
        assert_eq!(form(Add, Type::F64, Space::Global), None);
        assert_eq!(form(Cas, Type::B16, Space::Global), None);
        assert_eq!(form(Add, Type::U32, Space::Generic), None);
        assert_eq!(form(Add, Type::U32, Space::SharedCluster), None);
        // Combining: integer add/and/or/xor/min/max only.
        assert!(combinable(Add, Type::U64) && combinable(Max, Type::S32));
        assert!(!combinable(Inc, Type::U32) && !combinable(Exch, Type::B32));
        assert!(!combinable(Cas, Type::B32) && !combinable(Add, Type::F32));
        assert!(!combinable(Add, Type::F64) && !combinable(Min, Type::F16x2));
    }
}
