//! The interpreter's video family ([`Family::Video`]): `crate::ops::video::eval` per lane.
//!
//! [`Family::Video`]: crate::ir::Family::Video

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind, Type};

impl Warp<'_> {
    pub(super) fn exec_video(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Video { op, dst, srcs } = &inst.kind else {
            return Ok(());
        };
        for lane in lanes(mask) {
            let v = |k: usize| {
                srcs.get(k)
                    .map_or(0, |s| self.read(ctx, *s, Type::U32, lane) as u32)
            };
            let d = crate::ops::video::eval(op, v(0), v(1), v(2));
            self.write(*dst, Type::U32, d as u64, lane);
        }
        Ok(())
    }
}
