//! The interpreter's register-move family ([`Family::Data`]): `mov` (registers,
//! immediates, special registers, variable and function addresses) and `prmt`.
//!
//! [`Family::Data`]: crate::ir::Family::Data

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind};

impl Warp<'_> {
    pub(super) fn exec_data(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Mov { ty, dst, src } => {
                for lane in lanes(mask) {
                    let v = self.read(ctx, *src, *ty, lane);
                    self.write(*dst, *ty, v, lane);
                }
            }
            InstKind::Bits { .. } => self.bits(ctx, &inst.kind, mask),
            _ => {}
        }
        Ok(())
    }
}
