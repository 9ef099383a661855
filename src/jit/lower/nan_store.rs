//! The canonical NaN of a stored register of `nan_lazy` (`ir::analysis::nan::nan_lazy`:
//! written without the canonical-NaN select, made canonical where it is read): a
//! coalesced store tests the whole warp value for a NaN at once and replaces NaNs in a
//! cold block, instead of one compare, constant and blend per vector on every path.

use crate::ir::{Operand, RegClass, Type};
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::FuncTranslator;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32X4, F64X2};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

impl FuncTranslator<'_> {
    /// Whether the data operand `op` of a store of type `ty` is a `nan_lazy` register
    /// whose read [`Self::read`] would give as its container vectors (the same register
    /// class), made canonical there: then the store reads it raw (`blind_read`) and
    /// applies [`Self::canon_now`] or [`Self::canon_tested`] itself.
    pub(super) fn lazy_store_data(&self, op: &Operand, ty: Type) -> bool {
        let Operand::Reg(r) = *op else {
            return false;
        };
        if self.blind_read || !self.nan_lazy.contains(r) {
            return false;
        }
        let class = ty.class();
        matches!(class, RegClass::R32 | RegClass::R64)
            && self.reg_info(r).is_ok_and(|info| info.ty.class() == class)
    }

    /// The canonical NaN (f32 or f64 by the container width) in every NaN lane of `w`,
    /// vector by vector.
    pub(crate) fn canon_now(&mut self, w: &WarpValue) -> WarpValue {
        let (fty, bits) = if w.wide { (F64X2, 64) } else { (F32X4, 32) };
        let nan = crate::jit::helpers::canonical_nan(bits);
        let nan = lanes::splat_w(&mut self.b, w.wide, nan);
        let v =
            w.v.iter()
                .enumerate()
                .map(|(k, &x)| {
                    let ty = self.b.func.dfg.value_type(x);
                    let fx = lanes::bitcast(&mut self.b, fty, x);
                    let isnan = self.b.ins().fcmp(FloatCC::Unordered, fx, fx);
                    let isnan = lanes::bitcast(&mut self.b, ty, isnan);
                    let c = lanes::bitcast(&mut self.b, ty, nan.v[k]);
                    self.b.ins().bitselect(isnan, c, x)
                })
                .collect();
        WarpValue { wide: w.wide, v }
    }

    /// [`Self::canon_now`] behind one test of the whole warp value (an unordered compare
    /// of each pair of vectors, or-ed): a value without NaN passes through unchanged;
    /// one with a NaN is fixed in a cold block. Continues in the join block.
    pub(super) fn canon_tested(&mut self, w: &WarpValue) -> WarpValue {
        let fty = if w.wide { F64X2 } else { F32X4 };
        let mut any: Option<Value> = None;
        for pair in w.v.chunks(2) {
            let a = lanes::bitcast(&mut self.b, fty, pair[0]);
            let b = lanes::bitcast(&mut self.b, fty, *pair.last().unwrap_or(&pair[0]));
            let u = self.b.ins().fcmp(FloatCC::Unordered, a, b);
            any = Some(match any {
                None => u,
                Some(x) => self.b.ins().bor(x, u),
            });
        }
        let Some(any) = any else {
            return w.clone();
        };
        let any = self.b.ins().vany_true(any);
        let fix = self.b.create_block();
        let join = self.b.create_block();
        for &x in &w.v {
            let ty = self.b.func.dfg.value_type(x);
            self.b.append_block_param(join, ty);
        }
        let raw: Vec<BlockArg> = w.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().brif(any, fix, &[], join, &raw);
        self.b.set_cold_block(fix);
        self.b.switch_to_block(fix);
        let c = self.canon_now(w);
        let args: Vec<BlockArg> = c.v.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        WarpValue {
            wide: w.wide,
            v: self.b.block_params(join).to_vec(),
        }
    }
}
