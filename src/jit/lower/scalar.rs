//! Scalar lowerings of instructions whose destinations are scalar registers
//! (`translate::scalar`): `mov`, integer and predicate arithmetic (add, sub, mul,
//! mad, min, max, neg, abs, and, or, xor, not, shl, shr), integer `setp`, `selp`,
//! integer `cvt`, and `cvta` of `.global`/`.shared`. Each computes the same bits as the
//! vector lowering of its family does in one lane, on `i32`/`i64` scalars in the
//! same container conventions (registers of 8 to 32 bits in a zero-extended `i32`,
//! predicates as 0 / −1). Other instructions (floats, helpers) take the vector path,
//! whose result `translate::scalar` reduces to one lane.

use crate::exec::ctx::WarpCtx;
use crate::ir::{
    ArithOp, BoolOp, CmpOp, Inst, InstKind, MulMode, Operand, PredSrc, RegClass, RegId, Space, Type,
};
use crate::jit::translate::lanes;
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{DataFlowGraph, InstBuilder, InstructionData, Opcode, Value, ValueDef};
use std::mem::offset_of;

/// Integer or bit type of at most 64 bits.
fn int_like(t: Type) -> bool {
    (t.is_int() || t.is_bits()) && t.bits() <= 64
}

/// Whether scalar `x` is known to be below `w` (unsigned): a constant, or an `and` with
/// a constant below `w` (`and.b32 %r, %r, 31` before a shift; `band_imm` is `band` with
/// an `iconst`).
fn below(dfg: &DataFlowGraph, x: Value, w: u64) -> bool {
    let imm_below = |v: Value| match dfg.value_def(v) {
        ValueDef::Result(inst, 0) => match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => (imm.bits() as u64) < w,
            _ => false,
        },
        _ => false,
    };
    if imm_below(x) {
        return true;
    }
    let ValueDef::Result(inst, 0) = dfg.value_def(x) else {
        return false;
    };
    match dfg.insts[inst] {
        InstructionData::Binary {
            opcode: Opcode::Band,
            args,
        } => imm_below(args[0]) || imm_below(args[1]),
        _ => false,
    }
}

impl FuncTranslator<'_> {
    /// Lowers `i` as scalar code when all its destinations are scalar registers and the
    /// family has a scalar lowering; `false`: use the vector lowering.
    pub(crate) fn try_scalar(&mut self, i: &Inst) -> Result<bool, JitError> {
        let defs = i.kind.defs();
        if defs.is_empty() || defs.iter().any(|d| self.svar(*d).is_none()) {
            return Ok(false);
        }
        match &i.kind {
            InstKind::Mov { ty, dst, src } => {
                if *ty == Type::Pred {
                    let Some(p) = self.spred(src, false) else {
                        return Ok(false);
                    };
                    self.scalar_set_reg(*dst, p)?;
                } else {
                    let Some(x) = self.sread(src, *ty, false)? else {
                        return Ok(false);
                    };
                    self.scalar_write(*dst, *ty, x)?;
                }
                Ok(true)
            }
            InstKind::Arith {
                op, ty, dst, srcs, ..
            } => self.scalar_arith(*op, *ty, *dst, srcs),
            InstKind::Setp {
                cmp,
                ty,
                dst,
                dst_neg,
                a,
                b,
                combine,
                ..
            } => self.scalar_setp(*cmp, *ty, (*dst, *dst_neg), a, b, *combine),
            InstKind::Selp {
                ty,
                dst,
                a,
                b,
                cond,
            } => {
                let c = self.spred(&Operand::Reg(cond.reg), cond.negate);
                let x = self.sread(a, *ty, false)?;
                let y = self.sread(b, *ty, false)?;
                let (Some(c), Some(x), Some(y)) = (c, x, y) else {
                    return Ok(false);
                };
                let c = self.pred_cond(c);
                let r = self.b.ins().select(c, x, y);
                self.scalar_write(*dst, *ty, r)?;
                Ok(true)
            }
            InstKind::Cvt {
                dst_ty,
                src_ty,
                rnd,
                sat,
                dst,
                src,
                ..
            } => {
                if !int_like(*dst_ty)
                    || !int_like(*src_ty)
                    || rnd.is_some()
                    || (*sat && dst_ty != src_ty)
                {
                    return Ok(false);
                }
                let Some(a) = self.sread(src, *src_ty, true)? else {
                    return Ok(false);
                };
                let a = self.resize(a, dst_ty.bits() > 32, src_ty.is_signed());
                self.scalar_write(*dst, *dst_ty, a)?;
                Ok(true)
            }
            InstKind::Cvta {
                to_generic,
                space,
                ty,
                dst,
                src,
            } => {
                let Some(v) = self.sread(src, *ty, false)? else {
                    return Ok(false);
                };
                let r = match space {
                    Space::Shared => {
                        let base = self.load_ctx(I64, offset_of!(WarpCtx, shared_base), true);
                        let base = if self.b.func.dfg.value_type(v) == I64 {
                            base
                        } else {
                            self.b.ins().ireduce(I32, base)
                        };
                        if *to_generic {
                            self.b.ins().iadd(v, base)
                        } else {
                            self.b.ins().isub(v, base)
                        }
                    }
                    Space::Local => return Ok(false),
                    _ => v,
                };
                self.scalar_write(*dst, *ty, r)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// [`Self::sread`] of a compare's operand, or lane 0's value of an affine one
    /// (`%tid.x`, `%laneid`, an affine register): a scalar predicate whose sources are
    /// not all uniform is one the shape analysis proved uniform (`scalar_set`), so lane
    /// 0's compare is every lane's.
    fn sread_or_base(&mut self, op: &Operand, ty: Type) -> Result<Option<Value>, JitError> {
        match self.sread(op, ty, true)? {
            Some(x) => Ok(Some(x)),
            None => self.abase(op, ty),
        }
    }

    /// A source operand as a scalar of type `ty`'s container (`i32`/`i64`), as
    /// [`FuncTranslator::read`] reads it in every lane; `None` when it is not uniform.
    pub(crate) fn sread(
        &mut self,
        op: &Operand,
        ty: Type,
        canon: bool,
    ) -> Result<Option<Value>, JitError> {
        let wide = match ty.class() {
            RegClass::R32 => false,
            RegClass::R64 => true,
            _ => return Ok(None),
        };
        let tw = ty.bits();
        let cw = if wide { 64 } else { 32 };
        let signed = ty.is_signed();
        let v = match *op {
            Operand::Reg(r) => {
                let Some(var) = self.svar(r) else {
                    return Ok(None);
                };
                let rty = self.reg_info(r)?.ty;
                let x = self.b.use_var(var);
                match rty.class() {
                    RegClass::R32 => {
                        if wide {
                            self.b.ins().uextend(I64, x)
                        } else if canon && tw < cw && (signed || rty.bits() > tw) {
                            return Ok(Some(self.sext(x, tw, signed)));
                        } else {
                            x
                        }
                    }
                    RegClass::R64 => {
                        if wide {
                            x
                        } else {
                            let n = self.b.ins().ireduce(I32, x);
                            if canon && tw < 32 {
                                return Ok(Some(self.sext(n, tw, signed)));
                            }
                            n
                        }
                    }
                    _ => return Ok(None),
                }
            }
            Operand::Imm(x) => {
                let v = if canon && signed && tw < 64 {
                    (x << (64 - tw)) as i64 >> (64 - tw)
                } else {
                    x as i64
                };
                if wide {
                    self.b.ins().iconst(I64, v)
                } else {
                    lanes::iconst32(&mut self.b, v as u32)
                }
            }
            Operand::Special(s) => {
                let x = if let Some(c) = s.constant() {
                    if s.bits() == 64 {
                        lanes::iconst64(&mut self.b, c)
                    } else {
                        lanes::iconst32(&mut self.b, c as u32)
                    }
                } else if let Some((off, w)) = crate::exec::sreg::uniform_field(s) {
                    self.load_ctx(if w { I64 } else { I32 }, off, true)
                } else {
                    return Ok(None);
                };
                let x = self.resize(x, wide, false);
                if canon && tw < cw {
                    self.sext(x, tw, signed)
                } else {
                    x
                }
            }
            Operand::VarAddr(v, off) => {
                let a = self.var_addr(v, off)?;
                if wide {
                    a
                } else {
                    self.b.ins().ireduce(I32, a)
                }
            }
            Operand::FuncAddr(f) => {
                let a = crate::exec::call::FUNC_ADDR_BASE + f.0 as u64;
                if wide {
                    lanes::iconst64(&mut self.b, a)
                } else {
                    lanes::iconst32(&mut self.b, a as u32)
                }
            }
        };
        Ok(Some(v))
    }

    /// A predicate operand as a scalar 0 / −1 (`i32`), negated if asked.
    fn spred(&mut self, op: &Operand, negate: bool) -> Option<Value> {
        let x = match *op {
            Operand::Reg(r) if self.reg_info(r).ok()?.ty.class() == RegClass::Pred => {
                let v = self.svar(r)?;
                self.b.use_var(v)
            }
            Operand::Imm(x) => lanes::iconst32(&mut self.b, if x & 1 != 0 { u32::MAX } else { 0 }),
            _ => return None,
        };
        Some(if negate { self.spred_not(x) } else { x })
    }

    /// Sign- or zero-extends the low `bits` bits of scalar `x` to its width.
    fn sext(&mut self, x: Value, bits: u32, signed: bool) -> Value {
        let cw = self.b.func.dfg.value_type(x).bits();
        if bits >= cw {
            return x;
        }
        if signed {
            let t = self.b.ins().ishl_imm_u(x, (cw - bits) as i64);
            self.b.ins().sshr_imm_u(t, (cw - bits) as i64)
        } else {
            self.b.ins().band_imm_u(x, ((1u64 << bits) - 1) as i64)
        }
    }

    /// `x` as an `i64` (`wide`, extending by `signed`) or `i32` (truncating).
    fn resize(&mut self, x: Value, wide: bool, signed: bool) -> Value {
        let is_wide = self.b.func.dfg.value_type(x) == I64;
        match (is_wide, wide) {
            (false, true) if signed => self.b.ins().sextend(I64, x),
            (false, true) => self.b.ins().uextend(I64, x),
            (true, false) => self.b.ins().ireduce(I32, x),
            _ => x,
        }
    }

    /// [`FuncTranslator::write`] of a scalar `x` (type `ty` in `ty`'s container, bits
    /// above `ty`'s width unspecified) to scalar register `dst`.
    pub(crate) fn scalar_write(&mut self, dst: RegId, ty: Type, x: Value) -> Result<(), JitError> {
        let rty = self.reg_info(dst)?.ty;
        let rwide = match rty.class() {
            RegClass::R32 => false,
            RegClass::R64 => true,
            _ => {
                return Err(JitError::Codegen(format!(
                    "scalar write of type {ty} to register {}",
                    dst.0
                )))
            }
        };
        let rw = rty.bits();
        let tw = ty.bits().min(64);
        let signed = ty.is_signed();
        let mut v = x;
        if tw < rw {
            v = self.sext(v, tw, signed);
            v = self.resize(v, rwide, signed);
            if signed && rw < if rwide { 64 } else { 32 } {
                v = self.sext(v, rw, false);
            }
        } else {
            v = self.resize(v, rwide, signed);
            if rw < 32 {
                v = self.sext(v, rw, false);
            }
        }
        self.scalar_set_reg(dst, v)
    }

    fn scalar_arith(
        &mut self,
        op: ArithOp,
        ty: Type,
        dst: RegId,
        srcs: &[Operand],
    ) -> Result<bool, JitError> {
        if srcs.len() != op.arity() {
            return Ok(false);
        }
        if ty == Type::Pred {
            let a = self.spred(&srcs[0], false);
            let c = match srcs.get(1) {
                Some(s) => self.spred(s, false),
                None => a,
            };
            let (Some(a), Some(c)) = (a, c) else {
                return Ok(false);
            };
            let r = match op {
                ArithOp::And => self.spred_logic(Opcode::Band, a, c),
                ArithOp::Or => self.spred_logic(Opcode::Bor, a, c),
                ArithOp::Xor => self.spred_logic(Opcode::Bxor, a, c),
                ArithOp::Not => self.spred_not(a),
                _ => return Ok(false),
            };
            self.scalar_set_reg(dst, r)?;
            return Ok(true);
        }
        if !int_like(ty) {
            return Ok(false);
        }
        let w = ty.bits();
        let signed = ty.is_signed();
        // (canonical read of the sources, result type)
        let (canon, rty) = match op {
            ArithOp::Min | ArithOp::Max | ArithOp::Abs => (true, ty),
            ArithOp::Mul(MulMode::Hi | MulMode::Wide)
            | ArithOp::Mad(MulMode::Hi | MulMode::Wide) => {
                if w > 32 && !matches!(op, ArithOp::Mul(MulMode::Hi)) {
                    return Ok(false);
                }
                (true, op.dst_type(ty))
            }
            ArithOp::Shr => (true, ty),
            ArithOp::Add
            | ArithOp::Sub
            | ArithOp::And
            | ArithOp::Or
            | ArithOp::Xor
            | ArithOp::Not
            | ArithOp::Neg
            | ArithOp::Mul(MulMode::Lo)
            | ArithOp::Mad(MulMode::Lo)
            | ArithOp::Shl => (false, ty),
            _ => return Ok(false),
        };
        let mut v = Vec::with_capacity(3);
        for (k, s) in srcs.iter().enumerate() {
            let t = op.src_type(ty, k);
            // The shift amount and the addend are read as they are.
            let c = canon && k < 2 && !matches!(op, ArithOp::Shl | ArithOp::Shr if k == 1);
            let Some(x) = self.sread(s, t, c)? else {
                return Ok(false);
            };
            v.push(x);
        }
        let b = &mut self.b;
        let r = match op {
            ArithOp::Add => b.ins().iadd(v[0], v[1]),
            ArithOp::Sub => b.ins().isub(v[0], v[1]),
            ArithOp::And => b.ins().band(v[0], v[1]),
            ArithOp::Or => b.ins().bor(v[0], v[1]),
            ArithOp::Xor => b.ins().bxor(v[0], v[1]),
            ArithOp::Not => b.ins().bnot(v[0]),
            ArithOp::Neg => b.ins().ineg(v[0]),
            ArithOp::Abs if signed => b.ins().iabs(v[0]),
            ArithOp::Abs => v[0],
            ArithOp::Min if signed => b.ins().smin(v[0], v[1]),
            ArithOp::Min => b.ins().umin(v[0], v[1]),
            ArithOp::Max if signed => b.ins().smax(v[0], v[1]),
            ArithOp::Max => b.ins().umax(v[0], v[1]),
            ArithOp::Mul(MulMode::Lo) => b.ins().imul(v[0], v[1]),
            ArithOp::Mad(MulMode::Lo) => {
                let p = b.ins().imul(v[0], v[1]);
                b.ins().iadd(p, v[2])
            }
            ArithOp::Mul(MulMode::Hi) if w == 64 => {
                if signed {
                    b.ins().smulhi(v[0], v[1])
                } else {
                    b.ins().umulhi(v[0], v[1])
                }
            }
            ArithOp::Mul(mode) | ArithOp::Mad(mode) => {
                // w <= 32: the full product in 64 bits (sources already extended).
                let (x, y) = if signed {
                    (b.ins().sextend(I64, v[0]), b.ins().sextend(I64, v[1]))
                } else {
                    (b.ins().uextend(I64, v[0]), b.ins().uextend(I64, v[1]))
                };
                let p = b.ins().imul(x, y);
                let p = if mode == MulMode::Hi {
                    let h = b.ins().ushr_imm_u(p, w as i64);
                    b.ins().ireduce(I32, h)
                } else if rty.bits() > 32 {
                    p
                } else {
                    b.ins().ireduce(I32, p)
                };
                match v.get(2) {
                    Some(&c) if matches!(op, ArithOp::Mad(_)) => b.ins().iadd(p, c),
                    _ => p,
                }
            }
            ArithOp::Shl | ArithOp::Shr => {
                let x = v[0];
                let cw = b.func.dfg.value_type(x).bits();
                let sgn = signed && op == ArithOp::Shr;
                let s = v[1];
                // An amount known to be below the width needs neither the clamp nor
                // the zero select (the ISA's rule for amounts >= width).
                let small = below(&b.func.dfg, s, w as u64);
                let amt = if small {
                    s
                } else {
                    let cm1 = b.ins().iconst(I32, (cw - 1) as i64);
                    b.ins().umin(s, cm1)
                };
                let amt = if cw == 64 {
                    b.ins().uextend(I64, amt)
                } else {
                    amt
                };
                let r = match (op, sgn) {
                    (ArithOp::Shl, _) => b.ins().ishl(x, amt),
                    (_, true) => b.ins().sshr(x, amt),
                    _ => b.ins().ushr(x, amt),
                };
                if sgn || small {
                    r
                } else {
                    let big = b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, s, w as i64);
                    let xty = b.func.dfg.value_type(x);
                    let z = b.ins().iconst(xty, 0);
                    b.ins().select(big, z, r)
                }
            }
            _ => return Ok(false),
        };
        self.scalar_write(dst, rty, r)?;
        Ok(true)
    }

    fn scalar_setp(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        (dst, dst_neg): (Option<RegId>, Option<RegId>),
        a: &Operand,
        b: &Operand,
        combine: Option<(BoolOp, PredSrc)>,
    ) -> Result<bool, JitError> {
        if !int_like(ty) {
            return Ok(false);
        }
        let signed = ty.is_signed();
        let r = match cmp {
            CmpOp::Num => lanes::iconst32(&mut self.b, u32::MAX),
            CmpOp::Nan => lanes::iconst32(&mut self.b, 0),
            _ => {
                let cc = match (cmp, signed) {
                    (CmpOp::Eq | CmpOp::Equ, _) => IntCC::Equal,
                    (CmpOp::Ne | CmpOp::Neu, _) => IntCC::NotEqual,
                    (CmpOp::Lt | CmpOp::Ltu, true) => IntCC::SignedLessThan,
                    (CmpOp::Lt | CmpOp::Ltu, false) => IntCC::UnsignedLessThan,
                    (CmpOp::Le | CmpOp::Leu, true) => IntCC::SignedLessThanOrEqual,
                    (CmpOp::Le | CmpOp::Leu, false) => IntCC::UnsignedLessThanOrEqual,
                    (CmpOp::Gt | CmpOp::Gtu, true) => IntCC::SignedGreaterThan,
                    (CmpOp::Gt | CmpOp::Gtu, false) => IntCC::UnsignedGreaterThan,
                    (CmpOp::Ge | CmpOp::Geu, true) => IntCC::SignedGreaterThanOrEqual,
                    (CmpOp::Ge | CmpOp::Geu, false) => IntCC::UnsignedGreaterThanOrEqual,
                    _ => return Ok(false),
                };
                let x = self.sread_or_base(a, ty)?;
                let y = self.sread_or_base(b, ty)?;
                let (Some(x), Some(y)) = (x, y) else {
                    return Ok(false);
                };
                let c = self.b.ins().icmp(cc, x, y);
                self.b.ins().bmask(I32, c)
            }
        };
        let nr = self.spred_not(r);
        let (p, q) = match combine {
            None => (r, nr),
            Some((bop, src)) => {
                let Some(c) = self.spred(&Operand::Reg(src.reg), src.negate) else {
                    return Ok(false);
                };
                let op = match bop {
                    BoolOp::And => Opcode::Band,
                    BoolOp::Or => Opcode::Bor,
                    BoolOp::Xor => Opcode::Bxor,
                };
                (self.spred_logic(op, r, c), self.spred_logic(op, nr, c))
            }
        };
        if let Some(d) = dst {
            self.scalar_set_reg(d, p)?;
        }
        if let Some(d) = dst_neg {
            self.scalar_set_reg(d, q)?;
        }
        Ok(true)
    }
}
