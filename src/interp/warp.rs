//! The interpreter's warp-level family ([`Family::Warp`]): `shfl vote match redux
//! activemask elect bar.warp.sync` over the whole warp's operands
//! (`crate::ops::warp::eval`).
//!
//! [`Family::Warp`]: crate::ir::Family::Warp

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind, Type};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_warp(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Warp {
            op,
            ty,
            dst,
            pred,
            srcs,
            vote_src,
        } = &inst.kind
        else {
            return Ok(());
        };
        let (stys, dty) = op.signature(*ty);
        let mut vals = vec![[0u64; WARP_SIZE]; srcs.len()];
        for (k, (s, t)) in srcs.iter().zip(&stys).enumerate() {
            for (lane, v) in vals[k].iter_mut().enumerate() {
                *v = self.read(ctx, *s, *t, lane);
            }
        }
        let pbits = vote_src.map_or(0, |p| {
            (0..WARP_SIZE)
                .filter(|&l| self.pred(p, l))
                .fold(0u32, |m, l| m | 1 << l)
        });
        // SAFETY: the runtime runs warps with their env set.
        if unsafe { (*ctx.env).san.is_some() } {
            if let Some(k) = ops::warp::member_index(*op) {
                let members = std::array::from_fn(|l| vals[k][l] as u32);
                let sync = matches!(op, crate::ir::WarpOp::WarpSync);
                // SAFETY: as above.
                unsafe { ctx::sanitize_warp_sync(ctx, inst.id, mask, &members, sync)? };
            }
        }
        let input = ops::warp::WarpIn {
            mask,
            srcs: &vals,
            pred: pbits,
        };
        let out = ops::warp::eval(*op, *ty, &input);
        for lane in lanes(mask) {
            if let (Some(d), Some(t)) = (dst, dty) {
                self.write(*d, t, out.vals[lane], lane);
            }
            if let Some(p) = pred {
                self.write(*p, Type::Pred, (out.preds >> lane & 1) as u64, lane);
            }
        }
        Ok(())
    }
}
