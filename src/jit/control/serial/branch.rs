//! Conditional branches on an `and.pred`/`or.pred` in the lane-by-lane form (see the
//! parent module): a block that ends in `and.pred p, a, b; @p bra` (a loop's latch:
//! `pc < len && steps < max`) branches on `a`, then on `b`, instead of on `p`.
//!
//! Two compares combined and tested cost `cmp; setb; cmp; setb; test; jnz` on x86-64;
//! a branch on each compare is `cmp; jcc` twice (the compare and the jump fuse). The
//! predicates are pure, so the order of the tests does not change the result; `p` is
//! still written (the `and.pred` is translated as before) for any later reader.
//!
//! Only in a loop with threaded dispatch (`thread`: one indirect jump per target).
//! Where all steps share one indirect jump, the processor predicts it from the recent
//! branch history, and one more conditional branch per step measured slower: the
//! `bytecode` benchmark's compare-tree form (one jump table, no copies) went from 2.5
//! to 3.3 ns per step, while its `brx.idx` form (copies) went from 2.47 to 2.35.

use super::Lanes;
use crate::ir::{ArithOp, Guard, InstKind, Operand, RegId, Type};
use crate::jit::translate::FuncTranslator;
use cranelift_codegen::ir::{Block, InstBuilder};

impl FuncTranslator<'_> {
    /// When the current IR block's last instruction is an unguarded `and.pred` or
    /// `or.pred` of two predicate registers writing `guard`'s predicate (neither source
    /// is it) and the loop has threaded dispatch, ends the current Cranelift block with
    /// one branch per source, to `tb` where `guard` holds and `nb` where not; else
    /// returns `false` (nothing emitted).
    pub(super) fn serial_split_branch(
        &mut self,
        guard: &Guard,
        tb: Block,
        nb: Block,
        st: &Lanes,
    ) -> bool {
        if st.threads.dup.is_empty() {
            return false;
        }
        let Some((and, a, b)) = self.pred_pair(guard.pred, st) else {
            return false;
        };
        let (Some(va), Some(vb)) = (self.svar(a), self.svar(b)) else {
            return false;
        };
        let (x, y) = if guard.negate { (nb, tb) } else { (tb, nb) };
        let pa = self.b.use_var(va);
        let pa = self.pred_cond(pa);
        let pb = self.b.use_var(vb);
        let pb = self.pred_cond(pb);
        let mid = self.b.create_block();
        // p = a & b: !a -> y; p = a | b: a -> x. Else p = b.
        if and {
            self.b.ins().brif(pa, mid, &[], y, &[]);
        } else {
            self.b.ins().brif(pa, x, &[], mid, &[]);
        }
        self.b.switch_to_block(mid);
        self.b.ins().brif(pb, x, &[], y, &[]);
        true
    }

    /// `(is_and, a, b)` when the last instruction of the block at `st.at` is an
    /// unguarded `and.pred p, a, b` or `or.pred p, a, b` with registers `a`, `b` other
    /// than `p`.
    fn pred_pair(&self, p: RegId, st: &Lanes) -> Option<(bool, RegId, RegId)> {
        let inst = self.f.blocks.get(st.at.0)?.insts.last()?;
        let InstKind::Arith {
            op, ty, dst, srcs, ..
        } = &inst.kind
        else {
            return None;
        };
        let and = match op {
            ArithOp::And => true,
            ArithOp::Or => false,
            _ => return None,
        };
        let ok = inst.guard.is_none() && *ty == Type::Pred && *dst == p;
        match srcs.as_slice() {
            [Operand::Reg(a), Operand::Reg(b)] if ok && *a != p && *b != p => Some((and, *a, *b)),
            _ => None,
        }
    }
}
