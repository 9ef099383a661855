//! `atom` / `red` ([`InstKind::Atom`]): the lane addresses and operands go to stack
//! slots and one `ptxjit_atom` helper call runs `crate::exec::atomic` (the function
//! the interpreter uses) for the active lanes; the old values come back in a slot.
//!
//! [`InstKind::Atom`]: crate::ir::InstKind::Atom

use crate::ir::{Address, AtomOp, InstId, Operand, RegId, Space, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::memory::encode;
use crate::jit::lower::mem::LaneAddr;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

const SLOT_B: i32 = SCRATCH_DATA;
const SLOT_C: i32 = SCRATCH_DATA + 256;
const SLOT_OUT: i32 = SCRATCH_DATA + 512;

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn atom(
        &mut self,
        op: AtomOp,
        ty: Type,
        space: Space,
        dst: Option<RegId>,
        addr: &Address,
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        match self.lane_addrs(space, addr)? {
            LaneAddr::Uniform(a) => {
                let s = self.b.ins().splat(I64X2, a);
                self.spill(&WarpValue::wide(vec![s; 16]), 0);
            }
            LaneAddr::PerLane(w) => self.spill(&w, 0),
        }
        for (s, slot) in srcs.iter().zip([SLOT_B, SLOT_C]) {
            let w = self.read(s, ty, false)?;
            self.spill(&w, slot);
        }
        let desc = lanes::iconst64(&mut self.b, encode(op, ty, space));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pa = self.scratch_addr(0);
        let pb = self.scratch_addr(SLOT_B);
        let pc = self.scratch_addr(SLOT_C);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Atom)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, bits, instv, pa, pb, pc, po]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        if let Some(d) = dst {
            let r = self.unspill(ty.bits() > 32, SLOT_OUT);
            self.write(d, ty, r, mask)?;
        }
        Ok(())
    }
}
