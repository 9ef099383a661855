//! Warp-level matrix instructions ([`InstKind::Matrix`]: `ldmatrix`, `stmatrix`,
//! `movmatrix`, `mma.sync`, `wmma`): the lane addresses go to the scratch slot's address
//! area, the source registers of all 32 lanes to a stack slot of the instruction's own
//! (laid out by `crate::jit::helpers::matrix::reg_offsets`: 4 bytes per lane, 8 for
//! 64-bit registers), and one `ptxjit_matrix` helper call runs
//! `crate::exec::matrix::exec` (the function the interpreter uses); the result
//! registers come back in that slot, over the sources.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use crate::ir::{Address, InstId, MatrixOp, Operand, RegId, Space};
use crate::jit::abi::Helper;
use crate::jit::helpers::matrix::reg_offsets;
use crate::jit::lower::mem::LaneAddr;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32X4, I64, I64X2};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind};

impl FuncTranslator<'_> {
    pub(crate) fn matrix(
        &mut self,
        op: MatrixOp,
        dsts: &[Option<RegId>],
        srcs: &[Operand],
        addr: Option<&(Space, Address)>,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let sig = op
            .signature()
            .ok_or_else(|| self.internal(self.cur_text()))?;
        let src_offs = reg_offsets(sig.srcs.iter().copied());
        let dst_offs = reg_offsets(std::iter::repeat_n(sig.dtype, sig.dsts));
        let reg_bytes = |t: crate::ir::Type| if t.bits() == 64 { 256 } else { 128 };
        let size = (src_offs.last().zip(sig.srcs.last()))
            .map_or(0, |(o, t)| o + reg_bytes(*t))
            .max(sig.dsts * reg_bytes(sig.dtype))
            .max(16);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size as u32,
            4,
        ));
        let space = match addr {
            Some((space, a)) => {
                match self.lane_addrs(*space, a)? {
                    LaneAddr::Uniform(v) => {
                        let s = self.b.ins().splat(I64X2, v);
                        self.spill(&WarpValue::wide(vec![s; 16]), 0);
                    }
                    LaneAddr::PerLane(w) => self.spill(&w, 0),
                }
                *space
            }
            None => Space::Shared,
        };
        let fl = MemFlagsData::new().with_notrap();
        for ((s, t), off) in srcs.iter().zip(&sig.srcs).zip(&src_offs) {
            let w = self.read(s, *t, false)?;
            let base = self.b.ins().stack_addr(I64, slot, *off as i32);
            for (k, &v) in w.v.iter().enumerate() {
                self.b.ins().store(fl, v, base, 16 * k as i32);
            }
        }
        let desc = lanes::iconst64(&mut self.b, crate::ops::matrix::encode(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let code = match space {
            Space::Generic => 1,
            Space::Global => 2,
            _ => 0,
        };
        let spacev = lanes::iconst32(&mut self.b, code);
        let pa = self.scratch_addr(0);
        let pd = self.b.ins().stack_addr(I64, slot, 0);
        let h = self.helper(Helper::Matrix)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, bits, instv, spacev, pa, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        let wide = sig.dtype.bits() == 64;
        let (n, vty) = if wide { (16, I64X2) } else { (8, I32X4) };
        for (d, off) in dsts.iter().zip(&dst_offs) {
            if let Some(d) = d {
                let base = self.b.ins().stack_addr(I64, slot, *off as i32);
                let v = (0..n)
                    .map(|k| self.b.ins().load(vty, fl, base, 16 * k))
                    .collect();
                let r = WarpValue { wide, v };
                self.write(*d, sig.dtype, r, mask)?;
            }
        }
        Ok(())
    }
}
