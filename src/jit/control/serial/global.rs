//! The lane-by-lane form's global loads (see the parent module): the one-compare check
//! against the instruction's cached region, the region lookup on a miss (with the
//! loop-carried registers kept across its call), and the values that stay the same
//! while a lane runs ([`Lanes::mem`]).

use super::Lanes;
use crate::ir::analysis::liveness::inst_effect;
use crate::ir::{InstId, InstKind};
use crate::jit::translate::{lanes, FuncTranslator};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::Variable;

impl FuncTranslator<'_> {
    /// The access size (bytes) of global load `inst` of the function (0 if none).
    pub(super) fn global_size(&self, inst: InstId) -> i64 {
        self.f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .find(|i| i.id == inst)
            .map_or(0, |i| match &i.kind {
                InstKind::Ld { ty, .. } => (ty.bits() / 8) as i64,
                _ => 0,
            })
    }

    /// Loads instruction `inst`'s region-cache entry into its `(base, n)` variables
    /// (see [`Lanes::globals`]).
    pub(super) fn load_region_vars(
        &mut self,
        st: &Lanes,
        inst: InstId,
        eb: i64,
        base: Variable,
        n: Variable,
    ) {
        let (l, h) = self.cached_region(inst);
        let k = eb.trailing_zeros() as i64;
        // base = lo rounded up to eb (wrapping past 2^64: no aligned address above it).
        let up = self.b.ins().iadd_imm_s(l, eb - 1);
        let up = self.b.ins().band_imm_u(up, -eb);
        let no_wrap = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, up, l);
        // The entry holds an aligned access when hi >= base + eb.
        let ordered = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, h, up);
        let span = self.b.ins().isub(h, up);
        let fits = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, span, eb);
        let ok = self.b.ins().band(ordered, fits);
        let ok = self.b.ins().band(ok, no_wrap);
        let m = self.b.ins().iadd_imm_s(span, -eb);
        let m = self.b.ins().ushr_imm_u(m, k);
        let m = self.b.ins().iadd_imm_s(m, 1);
        let zero = self.b.ins().iconst(I64, 0);
        let m = self.b.ins().select(ok, m, zero);
        self.lane_set(st, base, up);
        self.lane_set(st, n, m);
    }

    /// The host address of the lane's `eb`-byte global load at `a` (the same as `a`):
    /// aligned and inside the instruction's cached region, or found by the region
    /// lookup (which caches it; the variables are reloaded); else `st.bail`.
    ///
    /// One compare (see [`Lanes::globals`]): with `eb = 2^k`, `rotr(a − base, k) < n`
    /// holds exactly when `a` is aligned and `lo <= a <= hi − eb` (`base` is aligned,
    /// so `a − base` is aligned exactly when `a` is, and an aligned `a >= lo` is
    /// `>= base`; a misaligned difference rotates bits into the top `k` bits, above
    /// any `n`). Where it fails, a misaligned `a` bails out, else the lookup runs.
    pub(super) fn serial_global(
        &mut self,
        a: Value,
        eb: i64,
        inst: InstId,
        st: &Lanes,
    ) -> Result<Value, JitError> {
        let indexed = st.indexed.get(&inst).copied();
        let global = st.globals.get(&inst).copied();
        let hit = match (indexed, global) {
            (Some(ix), _) => self.index_hit(ix)?,
            (None, Some((base, n))) => {
                let k = eb.trailing_zeros() as i64;
                let bv = self.lane_get(st, base);
                let nv = self.lane_get(st, n);
                let d = self.b.ins().isub(a, bv);
                let r = if k == 0 {
                    d
                } else {
                    self.b.ins().rotr_imm_u(d, k)
                };
                Some(self.b.ins().icmp(IntCC::UnsignedLessThan, r, nv))
            }
            (None, None) => None,
        };
        let Some(hit) = hit else {
            let go = self.b.create_block();
            self.b.ins().jump(st.bail, &[]);
            self.b.switch_to_block(go);
            return Ok(a);
        };
        let miss = self.b.create_block();
        let lookup = self.b.create_block();
        let found = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(hit, go, &[], miss, &[]);
        // Out of line: the hit falls through to the load (a jump over this code per
        // step otherwise).
        for c in [miss, lookup, found] {
            self.b.set_cold_block(c);
        }
        self.b.switch_to_block(miss);
        let low = self.b.ins().band_imm_u(a, eb - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        self.b.ins().brif(aligned, lookup, &[], st.bail, &[]);
        self.b.switch_to_block(lookup);
        let kept = self.serial_kept(st);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * kept.len() as u32).max(8),
            3,
        ));
        let mut types = Vec::with_capacity(kept.len());
        for (k, &v) in kept.iter().enumerate() {
            let x = self.b.use_var(v);
            types.push(self.b.func.dfg.value_type(x));
            self.b.ins().stack_store(I64, x, slot, 8 * k as i32);
        }
        let len = lanes::iconst64(&mut self.b, eb as u64);
        let hit = self.region_lookup(inst, a, len, false)?;
        self.b.ins().brif(hit, found, &[], st.bail, &[]);
        self.b.switch_to_block(found);
        for (k, (&v, &ty)) in kept.iter().zip(&types).enumerate() {
            let x = self.b.ins().stack_load(I64, ty, slot, 8 * k as i32);
            self.b.def_var(v, x);
        }
        match (indexed, global) {
            (Some(ix), _) => self.load_index_lim(inst, ix)?,
            (None, Some((base, n))) => self.load_region_vars(st, inst, eb, base, n),
            (None, None) => {}
        }
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
        Ok(a)
    }

    /// The variables of the loop's registers that the loop writes and that are live
    /// after the global load at `st.at`: the region lookup's call stores them to a
    /// stack slot and loads them back after it, so that no loop-carried value lives
    /// across the call (which clobbers the caller-saved registers: with more such
    /// values than callee-saved registers, the allocator kept a loop counter in a stack
    /// slot, stored and reloaded at every step). The values that stay the same (the
    /// registers the loop never writes) live across the call: see [`Lanes::mem`].
    pub(super) fn serial_kept(&self, st: &Lanes) -> Vec<Variable> {
        let (b, k) = st.at;
        let Some(i) = self.f.blocks.get(b).and_then(|blk| blk.insts.get(k)) else {
            return Vec::new();
        };
        let defs = inst_effect(self.f, i).defs;
        st.live
            .before(self.f, b, k + 1)
            .iter()
            .filter(|r| !defs.contains(r) && !self.serial.invariant.contains(r))
            .filter_map(|r| self.svar(r))
            .collect()
    }

    /// The value of the scalar form's variable `v`: a load from [`Lanes::mem`] when it
    /// lives there.
    pub(super) fn lane_get(&mut self, st: &Lanes, v: Variable) -> Value {
        match st.mem_off.iter().find(|x| x.0 == v) {
            Some(&(_, off)) => self.b.ins().stack_load(I64, I64, st.mem, off),
            None => self.b.use_var(v),
        }
    }

    /// Sets the scalar form's variable `v` (an i64) to `x`, in [`Lanes::mem`] when it
    /// lives there.
    pub(super) fn lane_set(&mut self, st: &Lanes, v: Variable, x: Value) {
        match st.mem_off.iter().find(|y| y.0 == v) {
            Some(&(_, off)) => {
                self.b.ins().stack_store(I64, x, st.mem, off);
            }
            None => self.b.def_var(v, x),
        }
    }
}
