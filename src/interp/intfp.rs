//! The interpreter's carry chain ([`InstKind::Carry`]), extended `min`/`max`
//! ([`InstKind::MinMax`]), `copysign` and `testp`: lane by lane through `crate::ops`.

use super::{lanes, Warp};
use crate::exec::ctx::WarpCtx;
use crate::ir::{InstKind, Type};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_intfp(&mut self, ctx: &WarpCtx, kind: &InstKind, mask: u32) {
        match kind {
            InstKind::Carry {
                op,
                ty,
                dst,
                srcs,
                cc_in,
                cc_out,
            } => {
                for lane in lanes(mask) {
                    let mut v = [0u64; 3];
                    for (k, s) in srcs.iter().enumerate().take(3) {
                        v[k] = self.read(ctx, *s, *ty, lane);
                    }
                    let c = cc_in.map(|r| self.regs[r.0 as usize][lane] & 1 != 0);
                    let (d, out) = ops::carry::carry(*op, *ty, v[0], v[1], v[2], c);
                    self.write(*dst, *ty, d, lane);
                    if let Some(r) = cc_out {
                        self.write(*r, Type::Pred, out as u64, lane);
                    }
                }
            }
            InstKind::MinMax { op, ty, dst, a, b } => {
                let oty = if op.packed { Type::B32 } else { *ty };
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, oty, lane);
                    let y = self.read(ctx, *b, oty, lane);
                    self.write(*dst, oty, ops::minmax::minmax(*op, *ty, x, y), lane);
                }
            }
            InstKind::Copysign { ty, dst, a, b } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    self.write(*dst, *ty, ops::minmax::copysign(*ty, x, y), lane);
                }
            }
            InstKind::Testp { op, ty, dst, src } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *src, *ty, lane);
                    let t = ops::minmax::testp(*op, *ty, x);
                    self.write(*dst, Type::Pred, t as u64, lane);
                }
            }
            _ => {}
        }
    }
}
