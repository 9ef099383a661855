//! The interpreter's half-precision family ([`Family::Half`]): `.f16 .bf16 .f16x2
//! .bf16x2` arithmetic through `crate::ops::half`.
//!
//! [`Family::Half`]: crate::ir::Family::Half

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_half(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Half {
            op,
            ty,
            mode,
            dst,
            srcs,
        } = &inst.kind
        else {
            return Ok(());
        };
        for lane in lanes(mask) {
            let mut v = [0u64; 3];
            for (k, s) in srcs.iter().enumerate().take(3) {
                v[k] = self.read(ctx, *s, *ty, lane);
            }
            let r = ops::half::eval(*op, *ty, *mode, v[0], v[1], v[2]);
            self.write(*dst, *ty, r, lane);
        }
        Ok(())
    }
}
