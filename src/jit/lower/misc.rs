//! The miscellaneous family: the runtime built-ins ([`InstKind::Builtin`]: `vprintf`, `__assertfail`): each operand of
//! all 32 lanes goes to the scratch slot's data area (256 bytes per operand: 8 bytes per
//! lane for 64-bit operands, 4 for 32-bit ones), and one `ptxjit_builtin` helper call
//! runs `crate::exec::printf::exec` (the function the interpreter uses); the lanes'
//! 32-bit results come back at the start of the data area.
//!
//! [`InstKind::Builtin`]: crate::ir::InstKind::Builtin

use crate::ir::{Builtin, InstId, Operand, RegId};
use crate::jit::abi::Helper;
use crate::jit::helpers::builtin::{code, ARG_BYTES};
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    pub(crate) fn builtin(
        &mut self,
        op: Builtin,
        args: &[Operand],
        dst: Option<RegId>,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        if args.len() != op.params().len() {
            return Err(self.internal(self.cur_text()));
        }
        for (k, (a, t)) in args.iter().zip(op.params()).enumerate() {
            let w = self.read(a, *t, false)?;
            self.spill(&w, SCRATCH_DATA + ARG_BYTES * k as i32);
        }
        let desc = lanes::iconst64(&mut self.b, code(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Builtin)?;
        let call = self.b.ins().call(h, &[self.ctx, desc, bits, instv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        if let (Some(d), Some(t)) = (dst, op.result()) {
            let r = self.unspill(t.bits() == 64, SCRATCH_DATA);
            self.write(d, t, r, mask)?;
        }
        Ok(())
    }
}
