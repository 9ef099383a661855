//! The interpreter's atomic family ([`Family::Atomic`]): `atom` and `red`, one host
//! atomic per lane in ascending lane order (`crate::exec::atomic`).
//!
//! [`Family::Atomic`]: crate::ir::Family::Atomic

use super::{lanes, Warp};
use crate::exec::atomic::{atomic, AtomReq};
use crate::exec::ctx::{self, WarpCtx, WARP_SIZE};
use crate::ir::{Inst, InstKind};

impl Warp<'_> {
    pub(super) fn exec_atomic(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Atom {
            op,
            ty,
            space,
            dst,
            addr,
            srcs,
        } = &inst.kind
        else {
            return Ok(());
        };
        let addrs = self.lane_addrs(ctx, *space, addr, mask);
        let mut vals = [[0u64; WARP_SIZE]; 2];
        for (k, s) in srcs.iter().enumerate().take(2) {
            for lane in lanes(mask) {
                vals[k][lane] = self.read(ctx, *s, *ty, lane);
            }
        }
        let req = AtomReq {
            op: *op,
            ty: *ty,
            space: *space,
            mask,
            inst: inst.id,
        };
        let mut old = [0u64; WARP_SIZE];
        // SAFETY: ctx.env is set by the runtime.
        unsafe { atomic(ctx, &req, &addrs, &vals[0], &vals[1], &mut old)? };
        if let Some(d) = dst {
            for lane in lanes(mask) {
                self.write(*d, *ty, old[lane], lane);
            }
        }
        Ok(())
    }
}
