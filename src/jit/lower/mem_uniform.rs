//! `st` of one element to an address that the shape analysis proved the same for every
//! active lane (see `mem.rs`'s shape dispatch): one scalar store of the
//! highest-numbered active lane's value, which is what the per-lane order of the
//! interpreter and of the `ptxjit_access` helper leaves in memory. An unaligned address,
//! or one outside the shared window or the instruction's cached region (after one
//! region-table lookup), takes the helper's per-lane path.
//!
//! Loads likewise (`uniform_lane_values`): when every active lane turns out to use one
//! address, one scalar load per element splat to every lane.

use super::mem::{heap_flags, LaneAddr};
use crate::ir::{InstId, Space};
use crate::jit::translate::lanes::{self, WarpValue, N64};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I64X2, I8};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};

impl FuncTranslator<'_> {
    /// See the module doc. `data`: the stored value's containers; `a`: the lane
    /// addresses (`la` as a whole for the helper path).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn st_uniform(
        &mut self,
        space: Space,
        (eb, sb): (u32, u32),
        data: &WarpValue,
        a: &WarpValue,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let bits = self.mbits(mask);
        let cont = self.b.create_block();
        let any = self.b.create_block();
        let fast = self.b.create_block();
        self.b.append_block_param(fast, I64);
        let slow = self.b.create_block();
        self.b.ins().brif(bits, any, &[], cont, &[]);
        self.b.switch_to_block(any);
        let a0 = self.first_lane_u64(a, bits);
        let low = self.b.ins().band_imm_u(a0, eb as i64 - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        if space == Space::Shared {
            let (loc, h) = self.in_shared_window(a0, eb as i64);
            let ok = self.b.ins().band(aligned, loc);
            self.b
                .ins()
                .brif(ok, fast, &[BlockArg::Value(h)], slow, &[]);
        } else {
            let cached = self.b.create_block();
            let lookup = self.b.create_block();
            self.b.ins().brif(aligned, cached, &[], slow, &[]);
            self.b.switch_to_block(cached);
            let loc = self.in_cached_region(inst, a0, eb as i64);
            let hv = [BlockArg::Value(a0)];
            self.b.ins().brif(loc, fast, &hv, lookup, &[]);
            self.b.switch_to_block(lookup);
            let len = lanes::iconst64(&mut self.b, eb as u64);
            let found = self.region_lookup(inst, a0, len, true)?;
            self.b.ins().brif(found, fast, &hv, slow, &[]);
        }
        // Fast path: the highest active lane's container, stored once.
        self.b.switch_to_block(fast);
        let h = self.b.block_params(fast)[0];
        self.spill(data, SCRATCH_DATA);
        let lz = self.b.ins().clz(bits);
        // 31 - clz (bits is nonzero here, so clz <= 31).
        let hi = self.b.ins().bxor_imm_u(lz, 31);
        let hi = self.b.ins().uextend(I64, hi);
        let off = self.b.ins().ishl_imm_u(hi, sb.trailing_zeros() as i64);
        let base = self.scratch_addr(SCRATCH_DATA);
        let p = self.b.ins().iadd(base, off);
        let fl = MemFlagsData::new().with_notrap();
        let x = self.b.ins().load(if sb == 8 { I64 } else { I32 }, fl, p, 0);
        let x = match eb {
            1 => self.b.ins().ireduce(I8, x),
            2 => self.b.ins().ireduce(I16, x),
            _ => x,
        };
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), x, h, 0);
        self.b.ins().jump(cont, &[]);
        // Anything else: the helper, lane by lane.
        self.b.switch_to_block(slow);
        self.spill(data, SCRATCH_DATA);
        self.slow_access(space, eb, sb, 1, true, la, mask, inst)?;
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// A load of `n` elements whose active lanes (`bits`, `m64`) all use one address (a
    /// uniform pointer in a register, like a loop over an array every lane reads): when
    /// that address is aligned to the access and inside the shared window or the
    /// instruction's cached region (looked up on a miss), one scalar load per element,
    /// splat to every lane (the containers, one per element); else continues at `other`
    /// (nothing emitted there). `(proven, spilled)`: the shape analysis proved the
    /// active lanes to agree; `a` is already in the scratch address slot (the highest
    /// active lane's address is then compared first). An empty `m64` is built here
    /// where the lanes are compared.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn uniform_lane_values(
        &mut self,
        space: Space,
        eb: u32,
        n: usize,
        a: &WarpValue,
        bits: Value,
        m64: &[Value],
        inst: InstId,
        other: Block,
        (proven, spilled): (bool, bool),
    ) -> Result<Vec<WarpValue>, JitError> {
        let len = eb as i64 * n as i64;
        let any = self.b.create_block();
        self.b.ins().brif(bits, any, &[], other, &[]);
        self.b.switch_to_block(any);
        let a0w = match spilled {
            true => self.first_lane_spilled(bits),
            false => self.first_lane_u64(a, bits),
        };
        let low = self.b.ins().band_imm_u(a0w, len - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let shape = if proven {
            // The shape analysis proved that the active lanes agree.
            aligned
        } else if self.affine_distinct(a) {
            // Lanes at distinct addresses (an affine register's): they agree when one
            // lane is active.
            let less = self.b.ins().iadd_imm_s(bits, -1);
            let rest = self.b.ins().band(bits, less);
            let one = self.b.ins().icmp_imm_u(IntCC::Equal, rest, 0);
            self.b.ins().band(one, aligned)
        } else {
            if spilled && !self.quick {
                // The highest active lane's address first (scalar): the lanes of a
                // tile row or a strided access differ there, and then the vector test
                // and the 64-bit masks are skipped (not in the quick tier, which
                // compiles less).
                let hi = self.b.ins().clz(bits);
                let hi = self.b.ins().uextend(I64, hi);
                let hi8 = self.b.ins().ishl_imm_u(hi, 3);
                let pa = self.scratch_addr(31 * 8);
                let p = self.b.ins().isub(pa, hi8);
                let fl = MemFlagsData::new().with_notrap();
                let last = self.b.ins().load(I64, fl, p, 0);
                let same = self.b.ins().icmp(IntCC::Equal, last, a0w);
                let all = self.b.create_block();
                self.b.ins().brif(same, all, &[], other, &[]);
                self.b.switch_to_block(all);
            }
            let m64 = match m64.is_empty() {
                true => self.mask64_of_bits(bits),
                false => m64.to_vec(),
            };
            let s = self.b.ins().splat(I64X2, a0w);
            let mut all: Option<Value> = None;
            for k in 0..N64 {
                let eq = self.b.ins().icmp(IntCC::Equal, a.v[k], s);
                // Inactive lanes do not matter.
                let ok = self.b.ins().bor_not(eq, m64[k]);
                all = Some(match all {
                    None => ok,
                    Some(x) => self.b.ins().band(x, ok),
                });
            }
            let all = all.unwrap_or(s);
            let uni = self.b.ins().vall_true(all);
            self.b.ins().band(uni, aligned)
        };
        let fast = self.b.create_block();
        let h = if space == Space::Shared {
            let (loc, h) = self.in_shared_window(a0w, len);
            let ok = self.b.ins().band(shape, loc);
            self.b.ins().brif(ok, fast, &[], other, &[]);
            h
        } else {
            let cached = self.b.create_block();
            let lookup = self.b.create_block();
            self.b.ins().brif(shape, cached, &[], other, &[]);
            self.b.switch_to_block(cached);
            let loc = self.in_cached_region(inst, a0w, len);
            self.b.ins().brif(loc, fast, &[], lookup, &[]);
            self.b.switch_to_block(lookup);
            let lenv = lanes::iconst64(&mut self.b, len as u64);
            let found = self.region_lookup(inst, a0w, lenv, false)?;
            self.b.ins().brif(found, fast, &[], other, &[]);
            a0w
        };
        self.b.switch_to_block(fast);
        let mut out = Vec::with_capacity(n);
        for e in 0..n {
            let x = self.load_container(h, e as u32 * eb, eb, heap_flags());
            out.push(lanes::splat_scalar(&mut self.b, x));
        }
        Ok(out)
    }
}
