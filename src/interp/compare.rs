//! The interpreter's comparison and selection family ([`Family::Compare`]): `setp`
//! (also the packed half forms), `set` and `selp`; comparisons through
//! `crate::ops::setp`, the `{!}c` combination through `BoolOp::eval`.
//!
//! [`Family::Compare`]: crate::ir::Family::Compare

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{combine, BoolOp, Inst, InstKind, PredSrc, Type};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_compare(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Setp {
                cmp,
                ty,
                ftz,
                dst,
                dst_neg,
                a,
                b,
                combine: c,
            } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    let r = ops::setp(*cmp, *ty, *ftz, x, y);
                    let c = self.combine_pred(*c, lane);
                    if let Some(d) = dst {
                        self.write(*d, Type::Pred, combine(c, r) as u64, lane);
                    }
                    if let Some(d) = dst_neg {
                        self.write(*d, Type::Pred, combine(c, !r) as u64, lane);
                    }
                }
            }
            InstKind::Set {
                cmp,
                dty,
                ty,
                ftz,
                dst,
                a,
                b,
                combine: c,
            } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    let r = ops::setp(*cmp, *ty, *ftz, x, y);
                    let t = combine(self.combine_pred(*c, lane), r);
                    self.write(*dst, *dty, ops::set_value(*dty, t), lane);
                }
            }
            InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo,
                dst_hi,
                a,
                b,
                combine: c,
            } => {
                let ety = if *ty == Type::BF16x2 {
                    Type::BF16
                } else {
                    Type::F16
                };
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, Type::B32, lane);
                    let y = self.read(ctx, *b, Type::B32, lane);
                    let c = self.combine_pred(*c, lane);
                    let lo = combine(c, ops::setp(*cmp, ety, *ftz, x & 0xffff, y & 0xffff));
                    let hi = combine(c, ops::setp(*cmp, ety, *ftz, x >> 16, y >> 16));
                    if let Some(d) = dst_lo {
                        self.write(*d, Type::Pred, lo as u64, lane);
                    }
                    if let Some(d) = dst_hi {
                        self.write(*d, Type::Pred, hi as u64, lane);
                    }
                }
            }
            InstKind::Selp {
                ty,
                dst,
                a,
                b,
                cond,
            } => {
                for lane in lanes(mask) {
                    let v = if self.pred(*cond, lane) {
                        self.read(ctx, *a, *ty, lane)
                    } else {
                        self.read(ctx, *b, *ty, lane)
                    };
                    self.write(*dst, *ty, v, lane);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The operator and the lane's value of `c` in a `{.bool} ..., {!}c` combination.
    fn combine_pred(&self, c: Option<(BoolOp, PredSrc)>, lane: usize) -> Option<(BoolOp, bool)> {
        c.map(|(op, p)| (op, self.pred(p, lane)))
    }
}
