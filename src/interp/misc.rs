//! The interpreter's miscellaneous family ([`Family::Misc`]): the built-in calls
//! `vprintf` and `__assertfail` (`crate::exec::printf`).
//!
//! [`Family::Misc`]: crate::ir::Family::Misc

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind};

impl Warp<'_> {
    pub(super) fn exec_misc(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        if let InstKind::Texture { .. } = &inst.kind {
            return self.exec_texture(ctx, inst, mask);
        }
        let InstKind::Builtin { op, args, dst } = &inst.kind else {
            return Ok(());
        };
        let mut vals = vec![[0u64; WARP_SIZE]; args.len()];
        for (v, (a, t)) in vals.iter_mut().zip(args.iter().zip(op.params())) {
            for lane in lanes(mask) {
                v[lane] = self.read(ctx, *a, *t, lane);
            }
        }
        // SAFETY: the runtime runs warps with their env set.
        let out = unsafe { crate::exec::printf::exec(ctx, *op, mask, inst.id, &vals)? };
        if let (Some(d), Some(t)) = (dst, op.result()) {
            for lane in lanes(mask) {
                self.write(*d, t, out[lane], lane);
            }
        }
        Ok(())
    }
}
