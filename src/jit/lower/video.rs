//! The video family: one `ptxjit_video` lane-wise helper call per instruction, which
//! runs `crate::ops::video::eval` (the function the interpreter uses) for each active
//! lane. The video instructions are legacy (emulated in integer code on every GPU since
//! Maxwell), so no inline lowering.

use crate::ir::{Operand, RegId, Type, VideoOp};
use crate::jit::abi::Helper;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;

impl FuncTranslator<'_> {
    pub(crate) fn video(
        &mut self,
        op: &VideoOp,
        dst: RegId,
        srcs: &[Operand],
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let mut vals = Vec::with_capacity(3);
        for s in srcs.iter().take(3) {
            vals.push(self.read(s, Type::U32, false)?);
        }
        let desc = crate::ops::video::encode(op);
        self.call_lanewise_desc(Helper::Video, desc, mask, &vals, 3)?;
        let r = self.lanewise_result(false);
        self.write(dst, Type::U32, r, mask)
    }
}
