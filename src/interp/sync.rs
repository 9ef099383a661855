//! The interpreter's synchronisation family ([`Family::Sync`]): `bar.arrive`, the
//! result of a `bar.red`, `membar`/`fence`, the ordering points `check` inserts, and
//! `nanosleep` (`bar.sync` itself is a block terminator, see `super::run_func`).
//!
//! [`Family::Sync`]: crate::ir::Family::Sync

use super::{lanes, Warp};
use crate::exec::barrier;
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind, Type};
use std::sync::atomic::{fence, Ordering};

impl Warp<'_> {
    pub(super) fn exec_sync(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::BarArrive { barrier, count } => {
                let lane = mask.trailing_zeros() as usize;
                let id = self.read(ctx, *barrier, Type::U32, lane) as u32;
                let cnt = self.read(ctx, *count, Type::U32, lane) as u32;
                // SAFETY: the runtime runs warps with their env set.
                unsafe { barrier::bar_arrive_nowait(ctx, id, cnt, mask, inst.id)? };
            }
            InstKind::BarRedResult { op, barrier, dst } => {
                let lane = mask.trailing_zeros() as usize;
                let id = self.read(ctx, *barrier, Type::U32, lane) as u32;
                // SAFETY: the runtime runs warps with their env set.
                let v = unsafe { barrier::bar_red_result(ctx, id, *op) };
                for lane in lanes(mask) {
                    self.write(*dst, op.result_type(), v as u64, lane);
                }
            }
            InstKind::Nanosleep { t } => {
                ctx::nanosleep(lanes(mask).map(|l| self.read(ctx, *t, Type::U32, l) as u32));
            }
            InstKind::Fence => fence(Ordering::SeqCst),
            InstKind::OrderPoint => fence(Ordering::AcqRel),
            InstKind::Async { .. } => self.exec_async(ctx, inst, mask)?,
            _ => {}
        }
        Ok(())
    }
}
