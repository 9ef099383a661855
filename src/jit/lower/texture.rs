//! Texture and surface instructions ([`InstKind::Texture`]): every source operand of all
//! 32 lanes goes to the scratch slot's data area (`helpers::texture::layout`), and one
//! `ptxjit_texture` helper call runs `crate::exec::texture::exec` (the function the
//! interpreter uses); the results come back at the start of the data area.
//!
//! [`InstKind::Texture`]: crate::ir::InstKind::Texture

use crate::ir::{InstId, Operand, RegId, TexOp};
use crate::jit::abi::Helper;
use crate::jit::helpers::texture::{encode, layout};
use crate::jit::translate::lanes;
use crate::jit::translate::scratch::{DATA_SLOTS, SLOT_BYTES};
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

/// Bytes of the scratch data area.
const DATA_BYTES: i32 = DATA_SLOTS * SLOT_BYTES;

impl FuncTranslator<'_> {
    pub(crate) fn texture(
        &mut self,
        op: TexOp,
        dsts: &[Option<RegId>],
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let sig = op.signature();
        let (offs, total) = layout(&sig.srcs);
        if srcs.len() != sig.srcs.len() || dsts.len() != sig.dsts.len() || total > DATA_BYTES {
            return Err(self.internal(self.cur_text()));
        }
        for ((s, t), off) in srcs.iter().zip(&sig.srcs).zip(&offs) {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SCRATCH_DATA + off);
        }
        let desc = lanes::iconst64(&mut self.b, encode(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Texture)?;
        let call = self.b.ins().call(h, &[self.ctx, desc, bits, instv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        let (offs, _) = layout(&sig.dsts);
        for ((d, t), off) in dsts.iter().zip(&sig.dsts).zip(&offs) {
            if let Some(d) = d {
                let r = self.unspill(t.bits() == 64, SCRATCH_DATA + off);
                self.write(*d, *t, r, mask)?;
            }
        }
        Ok(())
    }
}
