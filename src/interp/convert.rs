//! The interpreter's conversion family ([`Family::Convert`]): `cvt` through
//! `crate::ops::cvt`, the narrow-format and `cvt.pack` forms through `crate::ops::convert`.
//!
//! [`Family::Convert`]: crate::ir::Family::Convert

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_convert(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Cvt {
                dst_ty,
                src_ty,
                rnd,
                ftz,
                sat,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *src_ty, lane);
                    let v = ops::cvt(*dst_ty, *src_ty, *rnd, *ftz, *sat, a);
                    self.write(*dst, *dst_ty, v, lane);
                }
            }
            InstKind::CvtX { op, dst, srcs } => {
                let (stys, dty) = op.signature();
                for lane in lanes(mask) {
                    let mut v = [0u64; 3];
                    for (k, (s, t)) in srcs.iter().zip(stys).enumerate().take(3) {
                        v[k] = self.read(ctx, *s, *t, lane);
                    }
                    let r = ops::convert::eval(*op, &v);
                    self.write(*dst, dty, r, lane);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
