//! Inline `ld.local` / `st.local` through per-lane addresses: a lane-by-lane loop in the
//! generated code instead of the `ptxjit_access` helper call.
//!
//! Local memory is one writable region per launch (`runtime::launch`): lane `l`'s
//! window is `[ctx.local_base[l], ctx.local_base[l] + ctx.local_size)`. The loop checks
//! every active lane as `exec::ctx::access` does (the whole access inside the window,
//! the host address aligned to the access size); a load copies each lane's elements
//! into the scratch data slots as it goes (zero-extended into their containers, as the
//! helper does), a store first checks every lane and then copies the low bytes of each
//! lane's slots. If any active lane fails a check, nothing has been written and the
//! helper performs the whole access, so faults (and the sanitizers' memcheck findings)
//! read exactly as before. The lane addresses are in the scratch address slots and,
//! for a store, the data in the scratch data slots: the same layout as the helper's.
//!
//! Profile (the `bytecode` benchmark, a stack machine whose stack is local memory):
//! the helper and its lane-by-lane resolution were a third of the run's samples, more
//! than the generated code.

use crate::exec::ctx::WarpCtx;
use crate::ir::{InstId, Space};
use crate::jit::lower::mem::{heap_flags, LaneAddr};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// A `.local` access of `n` elements of `eb` bytes (containers of `sb` bytes) by
    /// the lanes of `mask` at lane addresses `la`: inline when every active lane's
    /// access is valid, else the helper (see the module doc). Leaves a load's data in
    /// the scratch data slots, as [`Self::slow_access`] does.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn local_access(
        &mut self,
        eb: u32,
        sb: u32,
        n: usize,
        write: bool,
        la: &LaneAddr,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let LaneAddr::PerLane(w) = la else {
            return self.slow_access(Space::Local, eb, sb, n, write, la, mask, inst);
        };
        let len = (eb as usize * n) as i64;
        self.spill(w, 0);
        // Defined here, so that both paths below may use them.
        let bits = self.mbits(mask);
        let size = self.load_ctx(I64, offset_of!(WarpCtx, local_size), false);
        let lim = self.b.ins().iadd_imm_s(size, -len);
        let pa = self.scratch_addr(0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let slow = self.b.create_block();
        let done = self.b.create_block();
        let check = self.b.create_block();
        self.b.append_block_param(check, I32);
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, size, len);
        self.b
            .ins()
            .brif(big, check, &[BlockArg::Value(bits)], slow, &[]);
        // Loads copy as they check; stores check every lane first.
        let after = if write { self.b.create_block() } else { done };
        self.b.switch_to_block(check);
        let m = self.b.block_params(check)[0];
        let body = self.b.create_block();
        self.b.ins().brif(m, body, &[], after, &[]);
        self.b.switch_to_block(body);
        let (lane8, a, h) = self.local_lane(m, pa);
        self.local_check(a, h, lim, len, slow);
        if !write {
            self.local_copy(eb, sb, n, h, pd, lane8, false);
        }
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let rest = self.b.ins().band(m, m1);
        self.b.ins().jump(check, &[BlockArg::Value(rest)]);
        if write {
            self.b.switch_to_block(after);
            let copy = self.b.create_block();
            self.b.append_block_param(copy, I32);
            self.b.ins().jump(copy, &[BlockArg::Value(bits)]);
            self.b.switch_to_block(copy);
            let m = self.b.block_params(copy)[0];
            let body = self.b.create_block();
            self.b.ins().brif(m, body, &[], done, &[]);
            self.b.switch_to_block(body);
            // Every lane passed its checks.
            let (lane8, _, h) = self.local_lane(m, pa);
            self.local_copy(eb, sb, n, h, pd, lane8, true);
            let m1 = self.b.ins().iadd_imm_s(m, -1);
            let rest = self.b.ins().band(m, m1);
            self.b.ins().jump(copy, &[BlockArg::Value(rest)]);
        }
        self.b.switch_to_block(slow);
        // (The lane addresses were spilled above.)
        self.slow_access_spilled(Space::Local, eb, sb, n, write, mask, inst)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// The lowest lane of `m` (nonzero): its byte offset in the address slots (`lane ×
    /// 8`, i64), its state-space address and its host address.
    fn local_lane(&mut self, m: Value, pa: Value) -> (Value, Value, Value) {
        let fl = MemFlagsData::new().with_notrap();
        let lane = self.b.ins().ctz(m);
        let lane = self.b.ins().uextend(I64, lane);
        let lane8 = self.b.ins().ishl_imm_u(lane, 3);
        let sa = self.b.ins().iadd(pa, lane8);
        let a = self.b.ins().load(I64, fl, sa, 0);
        let cb = self.b.ins().iadd(self.ctx, lane8);
        let off = offset_of!(WarpCtx, local_base) as i32;
        let base = self.b.ins().load(I64, fl, cb, off);
        let h = self.b.ins().iadd(base, a);
        (lane8, a, h)
    }

    /// Continues at `bad` when an access of `len` bytes at state-space address `a`
    /// (host address `h`) is outside the lane's window (`a > lim`, `lim` = window size
    /// − `len`) or `h` is not aligned to `len` (the checks of `exec::ctx::access`).
    fn local_check(&mut self, a: Value, h: Value, lim: Value, len: i64, bad: Block) {
        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThan, a, lim);
        let mis = self.b.ins().band_imm_u(h, len - 1);
        let mis = self.b.ins().icmp_imm_u(IntCC::NotEqual, mis, 0);
        let bad_lane = self.b.ins().bor(out, mis);
        let ok = self.b.create_block();
        self.b.ins().brif(bad_lane, bad, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Copies one lane's `n` elements between host address `h` and its scratch data
    /// slots (`pd`: the data area, `lane8`: lane × 8): a load zero-extends each element
    /// into its `sb`-byte container, a store (`write`) writes each container's low `eb`
    /// bytes.
    #[allow(clippy::too_many_arguments)]
    fn local_copy(
        &mut self,
        eb: u32,
        sb: u32,
        n: usize,
        h: Value,
        pd: Value,
        lane8: Value,
        write: bool,
    ) {
        let fl = MemFlagsData::new().with_notrap();
        let hf = heap_flags();
        // Slot of element `e`: (e × 32 + lane) × sb bytes into the data area.
        let lsb = if sb == 8 {
            lane8
        } else {
            self.b.ins().ushr_imm_u(lane8, 1)
        };
        let slot = self.b.ins().iadd(pd, lsb);
        let cty = if sb == 8 { I64 } else { I32 };
        for e in 0..n as i32 {
            let so = e * 32 * sb as i32;
            let ho = e * eb as i32;
            if write {
                let v = self.b.ins().load(cty, fl, slot, so);
                match eb {
                    1 => self.b.ins().istore8(hf, v, h, ho),
                    2 => self.b.ins().istore16(hf, v, h, ho),
                    _ => self.b.ins().store(hf, v, h, ho),
                };
            } else {
                let v = match eb {
                    1 => self.b.ins().uload8(cty, hf, h, ho),
                    2 => self.b.ins().uload16(cty, hf, h, ho),
                    _ => self.b.ins().load(cty, hf, h, ho),
                };
                self.b.ins().store(fl, v, slot, so);
            }
        }
    }
}
