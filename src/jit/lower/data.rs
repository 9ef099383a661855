//! The register-move family's special registers (`mov` from `%tid`, `%laneid`, ...; the
//! other `mov` forms are register copies in `translate`, `prmt` goes through the
//! `ptxjit_bits` helper, see `int.rs`).
//!
//! Values come from `exec::sreg` (the interpreter's source too): registers that are
//! the same for the whole warp are loaded from the warp context and splatted, `%tid`
//! is a per-lane array of the context, `%laneid` and `%lanemask_*` are constant
//! vectors, constants (`%envreg*`, `%pm*`, ...) immediates, and the timers a call to
//! [`ptxjit_clock`] (one reading per warp instruction).

use crate::exec::ctx::{WarpCtx, WARP_SIZE};
use crate::exec::sreg;
use crate::ir::SpecialReg;
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{WarpValue, N32};
use crate::jit::translate::{lanes, FuncTranslator};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};
use std::mem::offset_of;

impl FuncTranslator<'_> {
    /// A special register's value: 8 × i32x4 (32-bit registers, `%is_explicit_cluster`
    /// as 0/1) or 16 × i64x2 (64-bit ones).
    pub(crate) fn special_reg(&mut self, s: SpecialReg) -> Result<WarpValue, JitError> {
        if let Some(c) = s.constant() {
            return Ok(lanes::splat_w(&mut self.b, s.bits() == 64, c));
        }
        if let Some((off, wide)) = sreg::uniform_field(s) {
            let x = self.load_ctx(if wide { I64 } else { I32 }, off, true);
            return Ok(lanes::splat_scalar(&mut self.b, x));
        }
        let clock = |tx: &mut Self, which: u32| -> Result<Value, JitError> {
            let h = tx.helper(Helper::Clock)?;
            let w = lanes::iconst32(&mut tx.b, which);
            let call = tx.b.ins().call(h, &[tx.ctx, w]);
            Ok(tx.b.inst_results(call)[0])
        };
        let (which, part) = match s {
            SpecialReg::Tid(d) => {
                let ro = MemFlagsData::new().with_notrap().with_readonly();
                let base = offset_of!(WarpCtx, tid) + d as usize * 4 * WARP_SIZE;
                let v = (0..N32)
                    .map(|k| {
                        self.b
                            .ins()
                            .load(I32X4, ro, self.ctx, (base + 16 * k) as i32)
                    })
                    .collect();
                return Ok(WarpValue::narrow(v));
            }
            SpecialReg::LaneId => return Ok(lanes::lane_index(&mut self.b, false, 1)),
            SpecialReg::LaneMask(k) => {
                let m = |l: usize| sreg::lanemask(k, l as u32);
                let v = (0..N32)
                    .map(|q| {
                        lanes::const_i32x4(
                            &mut self.b,
                            [m(4 * q), m(4 * q + 1), m(4 * q + 2), m(4 * q + 3)],
                        )
                    })
                    .collect();
                return Ok(WarpValue::narrow(v));
            }
            SpecialReg::Clock64 => (sreg::CLOCK_LAUNCH, None),
            SpecialReg::Clock => (sreg::CLOCK_LAUNCH, Some(false)),
            SpecialReg::ClockHi => (sreg::CLOCK_LAUNCH, Some(true)),
            SpecialReg::GlobalTimer => (sreg::CLOCK_GLOBAL, None),
            SpecialReg::GlobalTimerLo => (sreg::CLOCK_GLOBAL, Some(false)),
            SpecialReg::GlobalTimerHi => (sreg::CLOCK_GLOBAL, Some(true)),
            _ => {
                return Err(JitError::Codegen(format!(
                    "special register {s:?} has no lowering"
                )))
            }
        };
        let t = clock(self, which)?;
        let t = match part {
            None => t,
            Some(hi) => {
                let t = if hi {
                    self.b.ins().ushr_imm_u(t, 32)
                } else {
                    t
                };
                self.b.ins().ireduce(I32, t)
            }
        };
        Ok(lanes::splat_scalar(&mut self.b, t))
    }

    /// A `.pred` special register (`%is_explicit_cluster`) as lane masks.
    pub(crate) fn special_pred(
        &mut self,
        s: SpecialReg,
        negate: bool,
    ) -> Result<Vec<Value>, JitError> {
        let w = self.special_reg(s)?;
        let w = if w.wide {
            lanes::narrow_w(&mut self.b, &w)
        } else {
            w
        };
        let zero = lanes::splat32(&mut self.b, 0);
        let cc = if negate {
            IntCC::Equal
        } else {
            IntCC::NotEqual
        };
        Ok(w.v
            .iter()
            .map(|&x| self.b.ins().icmp(cc, x, zero))
            .collect())
    }
}
