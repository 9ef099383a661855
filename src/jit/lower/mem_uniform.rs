//! `st` of one element to an address that the shape analysis proved the same for every
//! active lane (see `mem.rs`'s shape dispatch): one scalar store of the
//! highest-numbered active lane's value, which is what the per-lane order of the
//! interpreter and of the `ptxjit_access` helper leaves in memory. An unaligned address,
//! or one outside the shared window or the instruction's cached region (after one
//! region-table lookup), takes the helper's per-lane path.

use super::mem::LaneAddr;
use crate::ir::{InstId, Space};
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{BlockArg, InstBuilder, MemFlagsData};

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
}
