//! The memory family's coalesced fast path (see `mem`): the run-time test that an
//! access covers 32 consecutive aligned lanes inside the shared window or the
//! instruction's cached region, the branch to it, and the whole-vector loads and stores
//! it performs.

use super::mem::{heap_flags, Proof};
use crate::exec::ctx::WarpCtx;
use crate::ir::{InstId, Space};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue, N32, N64};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16X8, I32X4, I64, I64X2, I8, I8X16};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

/// The region-cache entry a coalesced access tests: instruction `inst`'s, filled by
/// lookups that ask for a writable region when `write`.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub inst: InstId,
    pub write: bool,
}

/// Where a store's region lookup goes (see [`FuncTranslator::branch_fast`]): the data
/// `data` is spilled to the scratch data slot before the call (so that no data vector
/// lives across it), then a found range goes to `found` (parameter: lane 0's host
/// address), a missing one to `missing`; both read the data from the slot.
pub(super) struct StoreMiss {
    pub data: WarpValue,
    pub at: i32,
    pub found: Block,
    pub missing: Block,
}

impl FuncTranslator<'_> {
    /// The coalesced-access test: returns (shape ok: i8, location ok: i8, host address of
    /// lane 0). The shape covers consecutive lanes, alignment and (stores) a full warp;
    /// the location is the shared window or the instruction's cached region. With
    /// `proven` (the shape analysis proved the active lanes consecutive), the lanes are
    /// not compared: all 32 lanes must be active instead, so that lane 0's address is
    /// an active lane's. `entry`: the region-cache entry tested.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fast_check(
        &mut self,
        space: Space,
        eb: u32,
        a: &WarpValue,
        write: bool,
        entry: Entry,
        mask: &mut Mask,
        proven: bool,
    ) -> (Value, Value, Value) {
        let a0 = match self.affine_lane0(a) {
            Some(x) => x,
            None => self.b.ins().extractlane(a.v[0], 0),
        };
        let mut ok = if proven {
            let bits = self.mbits(mask);
            Some(self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64))
        } else if self.affine_contiguous(a, eb) {
            // An affine register's lane addresses: consecutive in every lane.
            None
        } else {
            // Parts 0 and 1 against lane 0's address plus their lane offsets, each later
            // part against the part two before it plus 4 elements: the same 32
            // equalities (all hold exactly when every part holds against lane 0's), with
            // 3 constants instead of 16.
            let s = self.b.ins().splat(I64X2, a0);
            let e = eb as u64;
            let first = [
                lanes::const_i64x2(&mut self.b, [0, e]),
                lanes::const_i64x2(&mut self.b, [2 * e, 3 * e]),
            ];
            let step = lanes::const_i64x2(&mut self.b, [4 * e, 4 * e]);
            let mut all: Option<Value> = None;
            for k in 0..N64 {
                let exp = match k {
                    0 | 1 => self.b.ins().iadd(s, first[k]),
                    _ => self.b.ins().iadd(a.v[k - 2], step),
                };
                let eq = self.b.ins().icmp(IntCC::Equal, a.v[k], exp);
                all = Some(match all {
                    None => eq,
                    Some(x) => self.b.ins().band(x, eq),
                });
            }
            let all = all.unwrap_or(s);
            Some(self.b.ins().vall_true(all))
        };
        let len = 32 * eb as i64;
        let loc;
        let h = if space == Space::Shared {
            let (l, h) = self.in_shared_window(a0, len);
            loc = l;
            h
        } else {
            loc = self.in_cached_region(entry.inst, a0, len);
            a0
        };
        let and = |b: &mut cranelift_frontend::FunctionBuilder, ok: Option<Value>, x| {
            Some(match ok {
                None => x,
                Some(o) => b.ins().band(o, x),
            })
        };
        if eb > 1 {
            let low = self.b.ins().band_imm_u(h, eb as i64 - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            ok = and(&mut self.b, ok, al);
        }
        if write && !proven {
            let bits = self.mbits(mask);
            let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
            ok = and(&mut self.b, ok, full);
        }
        let ok = match ok {
            Some(x) => x,
            None => self.b.ins().iconst(I8, 1),
        };
        (ok, loc, h)
    }

    /// Branches to `fast` (with the host address of lane 0 as its parameter, appended
    /// here) when the coalesced test passes. A region-cache miss of a well-shaped access
    /// asks the runtime's region table (`ptxjit_region`) and refills the instruction's
    /// cache; anything else goes to `slow`. `proof`: when the shape analysis proved the
    /// lanes consecutive (see [`Self::fast_check`]); for [`Proof::RowsLaunch`] the
    /// launch is tested first, and other launches take the compared path. `entry`: the
    /// region-cache entry tested and filled (the instruction's own, or for a load that
    /// a store of the same range follows, the store's: `mem::store_memo`). `miss`: a
    /// store's own targets after the lookup ([`StoreMiss`]; `None`: `fast` and `slow`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn branch_fast(
        &mut self,
        space: Space,
        eb: u32,
        a: &WarpValue,
        write: bool,
        entry: Entry,
        mask: &mut Mask,
        fast: Block,
        slow: Block,
        proof: Option<Proof>,
        miss: Option<&StoreMiss>,
    ) -> Result<(), JitError> {
        self.b.append_block_param(fast, I64);
        // Computed here so that it dominates both paths below.
        self.mbits(mask);
        // One test where no proof is left (an affine register's addresses need none;
        // other lanes are compared) or a store is proven in every launch (all lanes
        // active instead). The compared test below is for launches the proof does not
        // cover, and for loads whose mask is partial (their inactive lanes may still
        // hold consecutive addresses).
        let proof = match proof.filter(|_| !self.affine_contiguous(a, eb)) {
            Some(p) if !(write && p == Proof::Always) => p,
            one => {
                return self.branch_fast_one(
                    space,
                    eb,
                    a,
                    write,
                    entry,
                    mask,
                    [fast, slow, slow],
                    one.is_some(),
                    miss,
                )
            }
        };
        let compared = self.b.create_block();
        if proof == Proof::RowsLaunch {
            let rows = self.rows_launch();
            let yes = self.b.create_block();
            self.b.ins().brif(rows, yes, &[], compared, &[]);
            self.b.switch_to_block(yes);
        }
        let fail = if write { slow } else { compared };
        let ends = [fast, slow, fail];
        self.branch_fast_one(space, eb, a, write, entry, mask, ends, true, miss)?;
        self.b.switch_to_block(compared);
        let ends = [fast, slow, slow];
        self.branch_fast_one(space, eb, a, write, entry, mask, ends, false, miss)
    }

    /// One test of [`Self::branch_fast`]: a well-shaped access in place goes to `fast`,
    /// one out of place to `slow`, a badly shaped one to `fail`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn branch_fast_one(
        &mut self,
        space: Space,
        eb: u32,
        a: &WarpValue,
        write: bool,
        entry: Entry,
        mask: &mut Mask,
        [fast, slow, fail]: [Block; 3],
        proven: bool,
        miss: Option<&StoreMiss>,
    ) -> Result<(), JitError> {
        let (shape, loc, h) = self.fast_check(space, eb, a, write, entry, mask, proven);
        let hv = [BlockArg::Value(h)];
        if space == Space::Shared {
            if fail == slow {
                let ok = self.b.ins().band(shape, loc);
                self.b.ins().brif(ok, fast, &hv, slow, &[]);
            } else {
                let shaped = self.b.create_block();
                self.b.ins().brif(shape, shaped, &[], fail, &[]);
                self.b.switch_to_block(shaped);
                self.b.ins().brif(loc, fast, &hv, slow, &[]);
            }
            return Ok(());
        }
        let cached = self.b.create_block();
        let lookup = self.b.create_block();
        self.b.ins().brif(shape, cached, &[], fail, &[]);
        self.b.switch_to_block(cached);
        self.b.ins().brif(loc, fast, &hv, lookup, &[]);
        self.b.switch_to_block(lookup);
        let (to_found, to_missing) = match miss {
            Some(m) => {
                self.spill(&m.data, m.at);
                (m.found, m.missing)
            }
            None => (fast, slow),
        };
        let len = lanes::iconst64(&mut self.b, 32 * eb as u64);
        let found = self.region_lookup(entry.inst, h, len, entry.write)?;
        self.b.ins().brif(found, to_found, &hv, to_missing, &[]);
        Ok(())
    }

    /// Whether `[a, a + len)` lies in the shared window (i8), and the host address of `a`.
    pub(super) fn in_shared_window(&mut self, a: Value, len: i64) -> (Value, Value) {
        let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, len);
        let room = self.b.ins().iadd_imm_s(size, -len);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a, room);
        let loc = self.b.ins().band(big, fits);
        (loc, self.b.ins().iadd(base, a))
    }

    /// Whether host range `[a, a + len)` lies in instruction `inst`'s entry of the
    /// per-instruction region cache (or the context's empty `no_cache` range when the
    /// cache has no entry for it): an i8.
    pub(crate) fn in_cached_region(&mut self, inst: InstId, a: Value, len: i64) -> Value {
        let range = self.cached_region(inst);
        let len = self.b.ins().iconst(I64, len);
        self.in_range_dyn(range, a, len)
    }

    /// Whether host range `[a, a + len)` (`len`: an i64 value) lies in the region-cache
    /// range `[lo, hi)` of [`Self::cached_region`]: an i8.
    pub(super) fn in_range_dyn(&mut self, (lo, hi): (Value, Value), a: Value, len: Value) -> Value {
        let c1 = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, lo);
        let c2 = self.b.ins().icmp(IntCC::UnsignedLessThan, a, hi);
        let rem = self.b.ins().isub(hi, a);
        let c3 = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, rem, len);
        let c = self.b.ins().band(c1, c2);
        self.b.ins().band(c, c3)
    }

    /// The shared window (size, host base) as [`Self::in_shared_window_dyn`] takes it.
    pub(super) fn shared_window(&mut self) -> (Value, Value) {
        let size = self.load_ctx(I64, offset_of!(WarpCtx, shared_size), true);
        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
        (size, base)
    }

    /// [`Self::in_shared_window`] for a length `len` (an i64 value) and the window
    /// `(size, base)` of [`Self::shared_window`].
    pub(super) fn in_shared_window_dyn(
        &mut self,
        (size, base): (Value, Value),
        a: Value,
        len: Value,
    ) -> (Value, Value) {
        let big = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, size, len);
        let room = self.b.ins().isub(size, len);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a, room);
        let loc = self.b.ins().band(big, fits);
        (loc, self.b.ins().iadd(base, a))
    }

    /// Calls the region lookup (`Helper::Region`) for host range `[a, a + len)` of
    /// instruction `inst` (`write`: a store), which fills the instruction's region-cache
    /// entry: the result is non-zero when one region holds the range.
    pub(crate) fn region_lookup(
        &mut self,
        inst: InstId,
        a: Value,
        len: Value,
        write: bool,
    ) -> Result<Value, JitError> {
        let wr = lanes::iconst32(&mut self.b, write as u32);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let hf = self.helper(Helper::Region)?;
        let call = self.b.ins().call(hf, &[self.ctx, a, len, wr, instv]);
        Ok(self.b.inst_results(call)[0])
    }

    /// The `[lo, hi)` range of instruction `inst`'s entry in the warp context's
    /// per-instruction region cache (`ctx.no_cache`, an empty range, without one).
    pub(crate) fn cached_region(&mut self, inst: InstId) -> (Value, Value) {
        let cache = self.load_ctx(I64, offset_of!(WarpCtx, inst_cache), true);
        let n = self.load_ctx(I64, offset_of!(WarpCtx, inst_cache_len), true);
        let has = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, n, inst.0 as i64);
        let entry = self.b.ins().iadd_imm_s(cache, inst.0 as i64 * 16);
        let none = self
            .b
            .ins()
            .iadd_imm_s(self.ctx, offset_of!(WarpCtx, no_cache) as i64);
        let e = self.b.ins().select(has, entry, none);
        let fl = MemFlagsData::new().with_notrap();
        let lo = self.b.ins().load(I64, fl, e, 0);
        let hi = self.b.ins().load(I64, fl, e, 8);
        (lo, hi)
    }

    /// Loads 32 consecutive elements of `eb` bytes at host address `h` into containers
    /// (zero-extended).
    pub(super) fn vector_load(&mut self, h: Value, eb: u32) -> Vec<Value> {
        let fl = heap_flags();
        match eb {
            8 => (0..N64)
                .map(|k| self.b.ins().load(I64X2, fl, h, 16 * k as i32))
                .collect(),
            4 => (0..N32)
                .map(|k| self.b.ins().load(I32X4, fl, h, 16 * k as i32))
                .collect(),
            2 => {
                let mut out = Vec::with_capacity(N32);
                for k in 0..4 {
                    let x = self.b.ins().load(I16X8, fl, h, 16 * k);
                    out.push(self.b.ins().uwiden_low(x));
                    out.push(self.b.ins().uwiden_high(x));
                }
                out
            }
            _ => {
                let mut out = Vec::with_capacity(N32);
                for k in 0..2 {
                    let x = self.b.ins().load(I8X16, fl, h, 16 * k);
                    for half in [false, true] {
                        let y = if half {
                            self.b.ins().uwiden_high(x)
                        } else {
                            self.b.ins().uwiden_low(x)
                        };
                        out.push(self.b.ins().uwiden_low(y));
                        out.push(self.b.ins().uwiden_high(y));
                    }
                }
                out
            }
        }
    }

    /// Stores 32 consecutive elements of `eb` bytes (low bits of each container).
    pub(super) fn vector_store(&mut self, h: Value, eb: u32, d: &WarpValue) {
        let fl = heap_flags();
        match eb {
            8 | 4 => {
                for (k, &v) in d.v.iter().enumerate() {
                    self.b.ins().store(fl, v, h, 16 * k as i32);
                }
            }
            2 => {
                let m = lanes::splat32(&mut self.b, 0xffff);
                for k in 0..4 {
                    let x = self.b.ins().band(d.v[2 * k], m);
                    let y = self.b.ins().band(d.v[2 * k + 1], m);
                    let p = self.b.ins().unarrow(x, y);
                    self.b.ins().store(fl, p, h, 16 * k as i32);
                }
            }
            _ => {
                let m = lanes::splat32(&mut self.b, 0xff);
                let mut halves = Vec::with_capacity(4);
                for k in 0..4 {
                    let x = self.b.ins().band(d.v[2 * k], m);
                    let y = self.b.ins().band(d.v[2 * k + 1], m);
                    halves.push(self.b.ins().unarrow(x, y));
                }
                for k in 0..2 {
                    let p = self.b.ins().unarrow(halves[2 * k], halves[2 * k + 1]);
                    self.b.ins().store(fl, p, h, 16 * k as i32);
                }
            }
        }
    }
}
