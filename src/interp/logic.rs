//! The interpreter's logic and shift family ([`Family::Logic`]): `and or xor not shl shr`
//! (also on predicates) and `cnot lop3 shf`.
//!
//! [`Family::Logic`]: crate::ir::Family::Logic

use super::Warp;
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind};

impl Warp<'_> {
    pub(super) fn exec_logic(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Arith { .. } => self.arith(ctx, &inst.kind, mask),
            InstKind::Bits { .. } => self.bits(ctx, &inst.kind, mask),
            _ => {}
        }
        Ok(())
    }
}
