//! Warp-level matrix instructions ([`InstKind::Matrix`]: `ldmatrix`, `mma.sync`,
//! `movmatrix`): `ldmatrix`'s lane addresses go to the scratch slot's address area, the
//! source registers of all 32 lanes to its data area (4 bytes per lane), and one
//! `ptxjit_matrix` helper call runs `crate::exec::matrix::exec` (the function the
//! interpreter uses); the result registers come back in the data area, over the sources.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use crate::exec::ctx::WARP_SIZE;
use crate::ir::{Address, InstId, MatrixOp, Operand, RegId, Space};
use crate::jit::abi::Helper;
use crate::jit::lower::mem::LaneAddr;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

/// Bytes of one 32-bit register of 32 lanes in the data area.
const REG_BYTES: i32 = 4 * WARP_SIZE as i32;
/// The most source or result registers the data area holds (2 KiB / 128 B).
const MAX_REGS: usize = 16;

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
            .filter(|s| s.srcs.len() <= MAX_REGS && s.dsts <= MAX_REGS)
            .ok_or_else(|| self.unsupported(self.cur_text()))?;
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
        for (k, (s, t)) in srcs.iter().zip(&sig.srcs).enumerate() {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SCRATCH_DATA + REG_BYTES * k as i32);
        }
        let desc = lanes::iconst64(&mut self.b, crate::ops::matrix::encode(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let spacev = lanes::iconst32(&mut self.b, (space == Space::Generic) as u32);
        let pa = self.scratch_addr(0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Matrix)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, bits, instv, spacev, pa, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        for (k, d) in dsts.iter().enumerate() {
            if let Some(d) = d {
                let r = self.unspill(false, SCRATCH_DATA + REG_BYTES * k as i32);
                self.write(*d, sig.dtype, r, mask)?;
            }
        }
        Ok(())
    }
}
