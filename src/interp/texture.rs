//! The interpreter's texture and surface instructions ([`InstKind::Texture`]): all 32
//! lanes' operands go to `crate::exec::texture::exec` (the function the JIT's helper
//! calls).
//!
//! [`InstKind::Texture`]: crate::ir::InstKind::Texture

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind};

impl Warp<'_> {
    pub(super) fn exec_texture(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Texture { op, dsts, srcs } = &inst.kind else {
            return Ok(());
        };
        let sig = op.signature();
        let mut vals = vec![[0u64; WARP_SIZE]; srcs.len()];
        for (v, (s, t)) in vals.iter_mut().zip(srcs.iter().zip(&sig.srcs)) {
            for lane in lanes(mask) {
                v[lane] = self.read(ctx, *s, *t, lane);
            }
        }
        // SAFETY: the runtime runs warps with their env set.
        let out = unsafe { crate::exec::texture::exec(ctx, *op, mask, inst.id, &vals)? };
        for ((d, t), vals) in dsts.iter().zip(&sig.dsts).zip(&out) {
            if let Some(d) = d {
                for lane in lanes(mask) {
                    self.write(*d, *t, vals[lane], lane);
                }
            }
        }
        Ok(())
    }
}
