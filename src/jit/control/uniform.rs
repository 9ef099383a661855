//! `--check-uniform`: with `ctx.check_uniform` set, a `bra.uni`, `brx.idx.uni` or
//! `call.uni` whose active lanes disagree (guard predicate or index) stops the warp with
//! a located error instead of running as a divergent instruction.

use crate::exec::ctx::WarpCtx;
use crate::ir::{Operand, Terminator, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I32;
use cranelift_codegen::ir::{InstBuilder, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// Emits the `.uni` check for `t` (nothing for terminators without `.uni`).
    pub(crate) fn check_uni(&mut self, t: &Terminator) -> Result<(), JitError> {
        let Some((guard, index, inst)) = t.uni_operands() else {
            return Ok(());
        };
        let flag = self.load_ctx(I32, offset_of!(WarpCtx, check_uniform), true);
        let check = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(flag, check, &[], cont, &[]);
        self.b.switch_to_block(check);
        let act = self.active_vals();
        let bits = self.b.use_var(self.active_bits);
        let mut bad: Option<Vec<Value>> = None;
        let mut differ = |tx: &mut Self, w: WarpValue| {
            let first = tx.first_lane(&w, bits);
            let s = tx.b.ins().splat(cranelift_codegen::ir::types::I32X4, first);
            let d: Vec<Value> =
                w.v.iter()
                    .zip(&act)
                    .map(|(&x, &a)| {
                        let eq = tx.b.ins().icmp(IntCC::Equal, x, s);
                        tx.b.ins().band_not(a, eq)
                    })
                    .collect();
            bad = Some(match bad.take() {
                None => d,
                Some(b) => b
                    .iter()
                    .zip(&d)
                    .map(|(&x, &y)| tx.b.ins().bor(x, y))
                    .collect(),
            });
        };
        if let Some(g) = guard {
            let p = self.read_pred(&Operand::Reg(g.pred), g.negate)?;
            differ(self, WarpValue::narrow(p));
        }
        if let Some(ix) = index {
            let w = self.read(&ix, Type::U32, false)?;
            let w = lanes::narrow_w(&mut self.b, &w);
            differ(self, w);
        }
        let Some(bad) = bad else {
            self.b.ins().jump(cont, &[]);
            self.b.switch_to_block(cont);
            return Ok(());
        };
        let bad_bits = lanes::bits_from_mask(&mut self.b, &bad);
        let fail = self.b.create_block();
        self.b.ins().brif(bad_bits, fail, &[], cont, &[]);
        self.b.switch_to_block(fail);
        let h = self.helper(Helper::NotUniform)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        self.b.ins().call(h, &[self.ctx, instv, bad_bits]);
        self.b.ins().jump(self.ret_status, &[]);
        self.b.switch_to_block(cont);
        Ok(())
    }
}
