//! The interpreter's warp-level matrix instructions ([`InstKind::Matrix`]: `ldmatrix`,
//! `stmatrix`, `movmatrix`, `mma.sync`, `wmma`): all 32 lanes' operands go to
//! `crate::exec::matrix::exec` (the function the JIT's helper calls), which does the
//! memory accesses and applies `crate::ops::matrix`.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind, Space};

impl Warp<'_> {
    pub(super) fn exec_matrix(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Matrix {
            op,
            dsts,
            srcs,
            addr,
        } = &inst.kind
        else {
            return Ok(());
        };
        let Some(sig) = op.signature() else {
            // SAFETY: the runtime runs warps with their env set.
            unsafe { ctx::stop_with_error(ctx, format!("unsupported matrix operation {op:?}")) };
            return Err(ctx::Stopped);
        };
        let mut vals = vec![[0u64; WARP_SIZE]; srcs.len()];
        for (k, (s, t)) in srcs.iter().zip(&sig.srcs).enumerate() {
            for (lane, v) in vals[k].iter_mut().enumerate() {
                *v = self.read(ctx, *s, *t, lane);
            }
        }
        let (space, addrs) = match addr {
            Some((space, a)) => (*space, self.lane_addrs(ctx, *space, a, u32::MAX)),
            None => (Space::Shared, [0u64; WARP_SIZE]),
        };
        // SAFETY: the runtime runs warps with their env set.
        let out =
            unsafe { crate::exec::matrix::exec(ctx, *op, mask, inst.id, space, &addrs, &vals)? };
        for (d, vals) in dsts.iter().zip(&out) {
            if let Some(d) = d {
                for lane in lanes(mask) {
                    self.write(*d, sig.dtype, vals[lane], lane);
                }
            }
        }
        Ok(())
    }
}
