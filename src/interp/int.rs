//! The interpreter's integer family ([`Family::Int`]): `add sub mul mad div rem abs neg
//! min max` on integer types (`ArithOp`, also used by the float and logic families),
//! the bit operations of [`InstKind::Bits`] and the integer `min`/`max` forms with
//! modifiers; lane by lane through `crate::ops`.
//!
//! [`Family::Int`]: crate::ir::Family::Int

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_int(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Arith { .. } => self.arith(ctx, &inst.kind, mask),
            InstKind::Bits { .. } => self.bits(ctx, &inst.kind, mask),
            InstKind::MinMax { .. } => self.minmax(ctx, &inst.kind, mask),
            _ => {}
        }
        Ok(())
    }

    /// `InstKind::Arith` (integer, float and logic forms: one `ops::arith`).
    pub(super) fn arith(&mut self, ctx: &WarpCtx, kind: &InstKind, mask: u32) {
        let InstKind::Arith {
            op,
            ty,
            fmode,
            dst,
            srcs,
        } = kind
        else {
            return;
        };
        let rty = op.dst_type(*ty);
        for lane in lanes(mask) {
            let mut v = [0u64; 3];
            for (i, s) in srcs.iter().enumerate().take(3) {
                v[i] = self.read(ctx, *s, op.src_type(*ty, i), lane);
            }
            let r = ops::arith(*op, *ty, *fmode, v[0], v[1], v[2]);
            self.write(*dst, rty, r, lane);
        }
    }

    /// `InstKind::Bits` (integer, logic and `prmt` forms: one `ops::int::eval`).
    pub(super) fn bits(&mut self, ctx: &WarpCtx, kind: &InstKind, mask: u32) {
        let InstKind::Bits { op, ty, dst, srcs } = kind else {
            return;
        };
        let (stys, dty) = op.signature(*ty);
        for lane in lanes(mask) {
            let mut v = [0u64; 4];
            for (k, (s, t)) in srcs.iter().zip(&stys).enumerate().take(4) {
                v[k] = self.read(ctx, *s, *t, lane);
            }
            let r = ops::int::eval(*op, *ty, &v);
            self.write(*dst, dty, r, lane);
        }
    }

    /// `InstKind::MinMax` (integer and float forms: one `ops::float`).
    pub(super) fn minmax(&mut self, ctx: &WarpCtx, kind: &InstKind, mask: u32) {
        let InstKind::MinMax { op, ty, dst, a, b } = kind else {
            return;
        };
        let oty = op.operand_type(*ty);
        for lane in lanes(mask) {
            let x = self.read(ctx, *a, oty, lane);
            let y = self.read(ctx, *b, oty, lane);
            self.write(*dst, oty, ops::float::minmax(*op, *ty, x, y), lane);
        }
    }
}
