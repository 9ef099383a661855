//! The interpreter's f32/f64 family ([`Family::Float`]): arithmetic, the special
//! functions (`sqrt rcp rsqrt sin cos lg2 ex2 tanh`), `min`/`max` with modifiers,
//! `copysign` and `testp`; lane by lane through `crate::ops`.
//!
//! [`Family::Float`]: crate::ir::Family::Float

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind, Type};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_float(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Arith { .. } => self.arith(ctx, &inst.kind, mask),
            InstKind::MinMax { .. } => self.minmax(ctx, &inst.kind, mask),
            InstKind::Sfu {
                op,
                ty,
                approx,
                rnd,
                ftz,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *ty, lane);
                    let r = ops::float::sfu(*op, *ty, *approx, *rnd, *ftz, a);
                    self.write(*dst, *ty, r, lane);
                }
            }
            InstKind::Copysign { ty, dst, a, b } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    self.write(*dst, *ty, ops::float::copysign(*ty, x, y), lane);
                }
            }
            InstKind::Testp { op, ty, dst, src } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *src, *ty, lane);
                    let t = ops::float::testp(*op, *ty, x);
                    self.write(*dst, Type::Pred, t as u64, lane);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
