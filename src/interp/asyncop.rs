//! The interpreter's asynchronous copies and mbarriers ([`InstKind::Async`]: `cp.async`,
//! `cp.async.bulk`, `mbarrier.*`): every lane's addresses and sources go to
//! `crate::exec::asyncop::exec` (the function the JIT's helper calls).
//!
//! [`InstKind::Async`]: crate::ir::InstKind::Async

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind, Space};

impl Warp<'_> {
    pub(super) fn exec_async(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Async {
            op,
            dsts,
            addrs,
            srcs,
        } = &inst.kind
        else {
            return Ok(());
        };
        let spaces: Vec<Space> = addrs.iter().map(|(s, _)| *s).collect();
        let avals: Vec<[u64; WARP_SIZE]> = addrs
            .iter()
            .map(|(s, a)| self.lane_addrs(ctx, *s, a, mask))
            .collect();
        let mut svals = vec![[0u64; WARP_SIZE]; srcs.len()];
        for (v, (s, t)) in svals.iter_mut().zip(srcs.iter().zip(op.src_types())) {
            for lane in lanes(mask) {
                v[lane] = self.read(ctx, *s, *t, lane);
            }
        }
        // SAFETY: the runtime runs warps with their env set.
        let out = unsafe {
            crate::exec::asyncop::exec(ctx, *op, mask, inst.id, &spaces, &avals, &svals)?
        };
        for ((d, t), vals) in dsts.iter().zip(op.dst_types()).zip(out.iter()) {
            if let Some(d) = d {
                for lane in lanes(mask) {
                    self.write(*d, *t, vals[lane], lane);
                }
            }
        }
        Ok(())
    }
}
