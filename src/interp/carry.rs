//! The interpreter's extended-precision family ([`Family::Carry`]): the carry chain
//! `add.cc addc sub.cc subc mad.cc madc` through `crate::ops::carry`.
//!
//! [`Family::Carry`]: crate::ir::Family::Carry

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::{Inst, InstKind, Type};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_carry(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        let InstKind::Carry {
            op,
            ty,
            dst,
            srcs,
            cc_in,
            cc_out,
        } = &inst.kind
        else {
            return Ok(());
        };
        for lane in lanes(mask) {
            let mut v = [0u64; 3];
            for (k, s) in srcs.iter().enumerate().take(3) {
                v[k] = self.read(ctx, *s, *ty, lane);
            }
            let c = cc_in.map(|r| self.regs[r][lane] & 1 != 0);
            let (d, out) = ops::carry::carry(*op, *ty, v[0], v[1], v[2], c);
            self.write(*dst, *ty, d, lane);
            if let Some(r) = cc_out {
                self.write(*r, Type::Pred, out as u64, lane);
            }
        }
        Ok(())
    }
}
