//! The dispatch of IR instructions to their lowerings: one match over the instruction
//! families (wasmtime's translator style), after the scalar (uniform) and affine
//! lowerings have had their try; `alu_inst` holds the value-computing half.

use super::{opcode_cost, FuncTranslator, Mask};
use crate::ir::{Inst, InstKind, Operand, RegId, Type};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

impl FuncTranslator<'_> {
    pub(super) fn inst(&mut self, i: &Inst) -> Result<(), JitError> {
        let mark = self.inst_start();
        let counted = opcode_cost::collecting().then(|| self.b.func.dfg.num_insts());
        if !self.pred_bits.is_empty() {
            for d in i.kind.defs() {
                self.pred_bits.remove(&d);
            }
        }
        if !self.store_memo.is_empty() {
            // (A load translated again leaves only what this translation finds.)
            self.store_memo.retain(|_, (load, _)| *load != i.id);
        }
        let r = self.inst_kind(i);
        if !self.halves_memo.is_empty() {
            self.halves_forget(&i.kind.defs());
        }
        self.inst_done(mark);
        if let (Some(n0), Some(info)) = (counted, self.m.inst_info.get(i.id)) {
            opcode_cost::record(&info.text, self.b.func.dfg.num_insts() - n0);
        }
        r
    }

    fn inst_kind(&mut self, i: &Inst) -> Result<(), JitError> {
        self.cur = Some(i.id);
        self.set_guard(i.guard, &i.kind);
        if self.try_scalar(i)? || self.try_affine(i)? {
            return Ok(());
        }
        let mut mask = self.exec_mask(i.guard);
        match &i.kind {
            InstKind::Ld {
                space,
                ty,
                dsts,
                addr,
            } => self.ld(*space, *ty, dsts, addr, &mut mask, i.id),
            InstKind::St {
                space,
                ty,
                srcs,
                addr,
            } => self.st(*space, *ty, srcs, addr, &mut mask, i.id),
            InstKind::Cvta {
                to_generic,
                space,
                ty,
                dst,
                src,
            } => self.cvta(*to_generic, *space, *ty, *dst, src, &mut mask),
            InstKind::Nanosleep { t } => self.nanosleep(t, &mut mask),
            InstKind::BarArrive { barrier, count } => {
                self.bar_arrive_inst(barrier, count, &mut mask, i.id)
            }
            InstKind::BarRedResult { op, barrier, dst } => {
                self.bar_red_result(*op, barrier, *dst, &mut mask)
            }
            InstKind::Atom {
                op,
                ty,
                space,
                dst,
                addr,
                srcs,
            } => self.atom(*op, *ty, *space, *dst, addr, srcs, &mut mask, i.id),
            InstKind::Warp {
                op,
                ty,
                dst,
                pred,
                srcs,
                vote_src,
            } => self.warp_op(*op, *ty, *dst, *pred, srcs, *vote_src, &mut mask),
            InstKind::Isspacep {
                space,
                dst,
                src,
                offset,
            } => self.isspacep(*space, *dst, src, *offset, &mut mask),
            InstKind::Fence => {
                self.b.ins().fence();
                Ok(())
            }
            InstKind::OrderPoint => {
                self.order_point();
                Ok(())
            }
            InstKind::Matrix {
                op,
                dsts,
                srcs,
                addr,
            } => self.matrix(*op, dsts, srcs, addr.as_ref(), &mut mask, i.id),
            InstKind::Builtin { op, args, dst } => self.builtin(*op, args, *dst, &mut mask, i.id),
            InstKind::Async {
                op,
                dsts,
                addrs,
                srcs,
            } => self.async_op(*op, dsts, addrs, srcs, &mut mask, i.id),
            InstKind::Texture { op, dsts, srcs } => self.texture(*op, dsts, srcs, &mut mask, i.id),
            _ => self.alu_inst(i, &mut mask),
        }
    }

    /// The value-computing families (integer, float, half, comparison, logic, conversion,
    /// video): the other half of [`Self::inst_kind`]'s match.
    fn alu_inst(&mut self, i: &Inst, mask: &mut Mask) -> Result<(), JitError> {
        match &i.kind {
            InstKind::Mov { ty, dst, src } => self.mov(*ty, *dst, src, mask),
            InstKind::Arith {
                op,
                ty,
                fmode,
                dst,
                srcs,
            } => self.arith(*op, *ty, *fmode, *dst, srcs, mask),
            InstKind::Setp {
                cmp,
                ty,
                ftz,
                dst,
                dst_neg,
                a,
                b,
                combine,
            } => self.setp(*cmp, *ty, *ftz, *dst, *dst_neg, a, b, *combine, mask),
            InstKind::Selp {
                ty,
                dst,
                a,
                b,
                cond,
            } => self.selp(*ty, *dst, a, b, *cond, mask),
            InstKind::Cvt {
                dst_ty,
                src_ty,
                rnd,
                ftz,
                sat,
                dst,
                src,
            } => self.cvt(*dst_ty, *src_ty, *rnd, *ftz, *sat, *dst, src, mask),
            InstKind::Set {
                cmp,
                dty,
                ty,
                ftz,
                dst,
                a,
                b,
                combine,
            } => self.set(*cmp, *dty, *ty, *ftz, *dst, a, b, *combine, mask),
            InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo,
                dst_hi,
                a,
                b,
                combine,
            } => self.setp_packed(*cmp, *ty, *ftz, *dst_lo, *dst_hi, a, b, *combine, mask),
            InstKind::Bits { op, ty, dst, srcs } => self.bits(*op, *ty, *dst, srcs, mask),
            InstKind::CvtX { op, dst, srcs } => self.cvtx(*op, *dst, srcs, mask),
            InstKind::Sfu {
                op,
                ty,
                approx,
                rnd,
                ftz,
                dst,
                src,
            } => self.sfu(*op, *ty, *approx, *rnd, *ftz, *dst, src, mask),
            InstKind::Half {
                op,
                ty,
                mode,
                dst,
                srcs,
            } => self.half(*op, *ty, *mode, *dst, srcs, mask),
            InstKind::Carry {
                op,
                ty,
                dst,
                srcs,
                cc_in,
                cc_out,
            } => self.carry(*op, *ty, *dst, srcs, *cc_in, *cc_out, mask),
            InstKind::MinMax { op, ty, dst, a, b } => self.minmax_ext(*op, *ty, *dst, a, b, mask),
            InstKind::Copysign { ty, dst, a, b } => self.copysign(*ty, *dst, a, b, mask),
            InstKind::Testp { op, ty, dst, src } => self.testp(*op, *ty, *dst, src, mask),
            InstKind::Video { op, dst, srcs } => self.video(op, *dst, srcs, mask),
            _ => Err(JitError::Codegen(format!(
                "instruction {:?} reached the value families' lowering",
                i.id
            ))),
        }
    }

    pub(super) fn mov(
        &mut self,
        ty: Type,
        dst: RegId,
        src: &Operand,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if ty == Type::Pred {
            let v = self.read_pred(src, false)?;
            return self.write_pred(dst, &v, mask);
        }
        let v = self.read(src, ty, false)?;
        self.write(dst, ty, v, mask)
    }
}
