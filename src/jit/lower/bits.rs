//! Bit-manipulation and packed-integer instructions ([`InstKind::Bits`]) and the special
//! functions ([`InstKind::Sfu`]): the operands
//! go to stack slots and one `ptxjit_bits` helper call applies `crate::ops::int::bits` to the
//! active lanes (the same function the interpreter uses); `sqrt`/`rcp` rounded to
//! nearest are vector code.
//!
//! [`InstKind::Bits`]: crate::ir::InstKind::Bits
//! [`InstKind::Sfu`]: crate::ir::InstKind::Sfu

use crate::ir::{BitOp, Operand, RegId, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

/// Operand slots (the arithmetic helpers use the first three and `SLOT_OUT`).
const SLOTS: [i32; 4] = [
    SCRATCH_DATA,
    SCRATCH_DATA + 256,
    SCRATCH_DATA + 512,
    SCRATCH_DATA + 1024,
];
const SLOT_OUT: i32 = SCRATCH_DATA + 768;

impl FuncTranslator<'_> {
    pub(crate) fn bits(
        &mut self,
        op: BitOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let (stys, dty) = op.signature(ty);
        for (k, (s, t)) in srcs.iter().zip(&stys).enumerate().take(SLOTS.len()) {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SLOTS[k]);
        }
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, crate::ops::int::bits::encode(op, ty));
        let p: Vec<_> = SLOTS.iter().map(|&o| self.scratch_addr(o)).collect();
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Bits)?;
        self.b
            .ins()
            .call(h, &[desc, bits, p[0], p[1], p[2], p[3], po]);
        let r = self.unspill(dty.bits() > 32, SLOT_OUT);
        self.write(dst, dty, r, mask)
    }
}
