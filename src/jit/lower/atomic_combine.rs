//! Per-word combining of one 64-byte line's lanes of a global `atom`/`red`
//! (`atomic_inline`'s access loop calls it where a line has more active lanes than
//! words by a quarter): a table of each word's combined operands, one host atomic per
//! word, and for a live destination each lane's old value from the word's old value and
//! the lane's prefix, as the lane-by-lane ascending order gives it.

use crate::jit::lower::atomic_inline::{combine, flags, identity, AtomInst, LINE_SHIFT};
use crate::jit::translate::lanes;
use crate::jit::translate::scratch::{slot, SLOT_OUT};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{AtomicRmwOp, Block, InstBuilder, Value};

impl FuncTranslator<'_> {
    /// An add/and/or/xor/min/max of the lanes `group` (non-zero), whose lead lane's
    /// host address is `lead`: one host atomic per distinct word of the lead's 64-byte
    /// line. A pass over the lanes combines each lane's operand into its word's entry of
    /// a 64-byte table in operand slot 2 (unused by `atom`) filled with the operation's
    /// identity, storing the entry before it as the lane's prefix in [`SLOT_OUT`] where
    /// the destination is live; a lane whose address is not on the lead's line (its line
    /// number differs above the 32 bits the grouping compares) takes its own atomic.
    /// Then one atomic per word: dead, every entry that is not the identity (one equal to
    /// it leaves memory as it is); live, every word a lane hit (bits in slot 3), the
    /// word's old value replacing its entry, and a last pass gives each combined lane
    /// the old value combined with its prefix (what ascending lanes give it).
    pub(super) fn atom_line_combined(
        &mut self,
        a: &AtomInst,
        rop: AtomicRmwOp,
        group: Value,
        lead: Value,
        cont: Block,
    ) -> Result<(), JitError> {
        let wide = a.ty.bits() > 32;
        let want = a.dst.is_some();
        let (ity, vty) = if wide { (I64, I64X2) } else { (I32, I32X4) };
        let shift = if wide { 3 } else { 2 };
        let line = 1i64 << LINE_SHIFT;
        let base = self.b.ins().band_imm_u(lead, !(line - 1));
        let tab = self.scratch_addr(slot(2));
        let hit = self.scratch_addr(slot(3));
        let id = identity(rop, wide);
        let idv = if wide {
            lanes::splat64(&mut self.b, id)
        } else {
            lanes::splat32(&mut self.b, id as u32)
        };
        let nvec = (line / 16) as i32;
        for k in 0..nvec {
            self.b.ins().store(flags(), idv, tab, 16 * k);
        }
        if want {
            let zero = lanes::iconst32(&mut self.b, 0);
            self.b.ins().store(flags(), zero, hit, 0);
        }
        let words = self.b.create_block();
        self.each_lane(group, words, |t, lane| {
            let addr = t.spilled_addr(lane);
            let bv = t.lane_operand(a, lane, wide);
            let d = t.b.ins().isub(addr, base);
            let on = t.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, d, line);
            let acc = t.b.create_block();
            let own = t.b.create_block();
            let join = t.b.create_block();
            t.b.ins().brif(on, acc, &[], own, &[]);
            t.b.switch_to_block(acc);
            let p = t.b.ins().iadd(tab, d);
            let cur = t.b.ins().load(ity, flags(), p, 0);
            let new = combine(&mut t.b, rop, cur, bv);
            t.b.ins().store(flags(), new, p, 0);
            if want {
                let po = t.slot_entry(SLOT_OUT, lane, wide);
                t.b.ins().store(flags(), cur, po, 0);
                let w = t.b.ins().ushr_imm_u(d, shift);
                let w = t.b.ins().ireduce(I32, w);
                let one = lanes::iconst32(&mut t.b, 1);
                let bit = t.b.ins().ishl(one, w);
                let h = t.b.ins().load(I32, flags(), hit, 0);
                let h = t.b.ins().bor(h, bit);
                t.b.ins().store(flags(), h, hit, 0);
            }
            t.b.ins().jump(join, &[]);
            t.b.switch_to_block(own);
            let old = t.b.ins().atomic_rmw(ity, flags(), rop, addr, bv);
            if want {
                let po = t.slot_entry(SLOT_OUT, lane, wide);
                t.b.ins().store(flags(), old, po, 0);
            }
            t.b.ins().jump(join, &[]);
            t.b.switch_to_block(join);
            Ok(())
        })?;
        self.b.switch_to_block(words);
        let todo = if want {
            self.b.ins().load(I32, flags(), hit, 0)
        } else {
            // Entries that are not the identity: bit w for word w.
            let per = if wide { 2 } else { 4 };
            let mut same: Option<Value> = None;
            for k in 0..nvec {
                let v = self.b.ins().load(vty, flags(), tab, 16 * k);
                let eq = self.b.ins().icmp(IntCC::Equal, v, idv);
                let hb = self.b.ins().vhigh_bits(I32, eq);
                let sh = match k {
                    0 => hb,
                    _ => self.b.ins().ishl_imm_u(hb, (per * k) as i64),
                };
                same = Some(match same {
                    None => sh,
                    Some(s) => self.b.ins().bor(s, sh),
                });
            }
            let all = (1i64 << (per * nvec)) - 1;
            let same = same.unwrap_or_else(|| lanes::iconst32(&mut self.b, 0));
            let todo = self.b.ins().bnot(same);
            self.b.ins().band_imm_u(todo, all)
        };
        let fix = self.b.create_block();
        let after = if want { fix } else { cont };
        let each = self.b.create_block();
        self.b.append_block_param(each, I32);
        self.b.ins().brif(todo, each, &[todo.into()], after, &[]);
        self.b.switch_to_block(each);
        let rem = self.b.block_params(each)[0];
        let w = self.b.ins().ctz(rem);
        let w = self.b.ins().uextend(I64, w);
        let off = self.b.ins().ishl_imm_u(w, shift);
        let p = self.b.ins().iadd(tab, off);
        let v = self.b.ins().load(ity, flags(), p, 0);
        let h = self.b.ins().iadd(base, off);
        let old = self.b.ins().atomic_rmw(ity, flags(), rop, h, v);
        if want {
            self.b.ins().store(flags(), old, p, 0);
        }
        let rest = self.b.ins().iadd_imm_s(rem, -1);
        let rest = self.b.ins().band(rem, rest);
        self.b.ins().brif(rest, each, &[rest.into()], after, &[]);
        self.b.switch_to_block(fix);
        if want {
            self.each_lane(group, cont, |t, lane| {
                let addr = t.spilled_addr(lane);
                let d = t.b.ins().isub(addr, base);
                let on = t.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, d, line);
                let acc = t.b.create_block();
                let join = t.b.create_block();
                t.b.ins().brif(on, acc, &[], join, &[]);
                t.b.switch_to_block(acc);
                let p = t.b.ins().iadd(tab, d);
                let o = t.b.ins().load(ity, flags(), p, 0);
                let po = t.slot_entry(SLOT_OUT, lane, wide);
                let pre = t.b.ins().load(ity, flags(), po, 0);
                let v = combine(&mut t.b, rop, o, pre);
                t.b.ins().store(flags(), v, po, 0);
                t.b.ins().jump(join, &[]);
                t.b.switch_to_block(join);
                Ok(())
            })?;
        } else {
            self.b.ins().jump(cont, &[]);
        }
        Ok(())
    }
}
