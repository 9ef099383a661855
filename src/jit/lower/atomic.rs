//! `atom` / `red` ([`InstKind::Atom`]): the lane addresses and operands go to stack
//! slots; the common forms on `.global` and `.shared` are host atomics in the generated
//! code (`atomic_inline`), the others (and every form in the sanitizer variant) one
//! `ptxjit_atom` helper call that runs `crate::exec::atomic` (the function the
//! interpreter uses) for the active lanes. The old values come back in a slot; where
//! the destination is dead after the instruction (no thread reads it before writing it
//! again: `ir::analysis::liveness`), the inline forms skip them, as for `red`.
//!
//! [`InstKind::Atom`]: crate::ir::InstKind::Atom

use crate::ir::analysis::liveness::Liveness;
use crate::ir::{Address, AtomOp, BlockId, InstId, Operand, RegId, Space, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::memory::encode;
use crate::jit::lower::atomic_inline::AtomInst;
use crate::jit::lower::mem::LaneAddr;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::scratch::slot;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn atom(
        &mut self,
        op: AtomOp,
        ty: Type,
        space: Space,
        dst: Option<RegId>,
        addr: &Address,
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        // An old value no thread reads is neither gathered nor written (`red` semantics).
        let dst = dst.filter(|&d| self.live_after(d, inst));
        let la = self.lane_addrs(space, addr)?;
        let uniform = self.atom_uniform(op, ty, space, addr, &la);
        match la {
            LaneAddr::Uniform(a) => {
                let s = self.b.ins().splat(I64X2, a);
                self.spill(&WarpValue::wide(vec![s; 16]), 0);
            }
            LaneAddr::PerLane(w) => self.spill(&w, 0),
        }
        let mut vals = Vec::with_capacity(2);
        for s in srcs.iter().take(2) {
            vals.push(self.read(s, ty, false)?);
        }
        if self.atom_inlinable(op, ty, space) {
            // An immediate first operand stays a constant in the access loop; its slot is
            // filled only on the helper path.
            let imm = match srcs.first() {
                Some(&Operand::Imm(x)) => Some(x),
                _ => None,
            };
            for (k, w) in vals.iter().enumerate() {
                if k > 0 || imm.is_none() {
                    self.spill(w, slot(k));
                }
            }
            let a = AtomInst {
                op,
                ty,
                space,
                dst,
                inst,
                imm: imm.zip(vals.first().cloned()),
                span: match space {
                    Space::Shared => self.atom_span(addr, inst),
                    _ => None,
                },
            };
            self.atom_inline(&a, mask, uniform)?;
        } else {
            let desc = lanes::iconst64(&mut self.b, encode(op, ty, space));
            let bits = self.mbits(mask);
            let instv = lanes::iconst32(&mut self.b, inst.0);
            let pa = self.scratch_addr(0);
            let lead = [self.ctx, desc, bits, instv, pa];
            let call = self.call_lanewise(Helper::Atom, &lead, &vals, 2)?;
            let res = self.b.inst_results(call)[0];
            let cont = self.b.create_block();
            self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
            self.b.switch_to_block(cont);
        }
        if let Some(d) = dst {
            let r = self.lanewise_result(ty.bits() > 32);
            self.write(d, ty, r, mask)?;
        }
        Ok(())
    }

    /// Whether register `r` may be read after instruction `inst` of the IR block being
    /// translated (`ir::analysis::liveness`, per thread; true where `inst` is not found
    /// there).
    fn live_after(&mut self, r: RegId, inst: InstId) -> bool {
        let f = self.f;
        let b = BlockId(self.cur_block as u32);
        let Some(k) = f
            .blocks
            .get(b)
            .and_then(|blk| blk.insts.iter().position(|i| i.id == inst))
        else {
            return true;
        };
        let live = self.liveness.get_or_insert_with(|| Liveness::of(f));
        live.before(f, b, k + 1).contains(r)
    }
}
