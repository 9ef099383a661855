//! Lowerings on the base of affine registers (`translate::affine`): where the
//! destination of `mov`, integer `add sub neg not mul.lo mad.lo shl mul.wide mad.wide`
//! or an integer `cvt` is an affine register, lane 0's result is computed from lane 0's
//! sources (scalars, affine bases, `%laneid`'s 0, lane 0's `%tid.x` in code for
//! launches whose `%ntid.x` is a multiple of 32) with scalar instructions. The shape
//! analysis proved the result affine with the register's stride, and every lane's
//! result is then `base + l × stride`: the operations are ring homomorphisms modulo
//! 2^w (`shl` by a constant, a multiplication by a uniform value) and the widenings are
//! exact where the analysis says so (no lane wraps where lane 0 does not). Any other
//! definition (or sources without a scalar base) takes the vector lowering, whose
//! result `translate::affine` reduces to the base.

use crate::exec::ctx::WarpCtx;
use crate::ir::{ArithOp, Dim, Inst, InstKind, MulMode, Operand, RegClass, SpecialReg, Type};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, Value};
use std::mem::offset_of;

/// Integer or bit type of 32 or 64 bits.
fn int32_64(t: Type) -> bool {
    (t.is_int() || t.is_bits()) && matches!(t.bits(), 32 | 64)
}

impl FuncTranslator<'_> {
    /// Lane 0's value of source `op` read as type `ty` (32 or 64 bits) in `ty`'s
    /// container (`None`: no scalar form).
    fn abase(&mut self, op: &Operand, ty: Type) -> Result<Option<Value>, JitError> {
        if !int32_64(ty) {
            return Ok(None);
        }
        let wide = ty.bits() == 64;
        match *op {
            Operand::Reg(r) => {
                if let Some((var, _)) = self.avar(r) {
                    let rty = self.reg_info(r)?.ty;
                    let x = self.b.use_var(var);
                    return Ok(match (rty.class(), wide) {
                        (RegClass::R64, true) | (RegClass::R32, false) => Some(x),
                        (RegClass::R64, false) => Some(self.b.ins().ireduce(I32, x)),
                        // Zero-extension of a 32-bit affine value need not be affine.
                        _ => None,
                    });
                }
                // A vector register that holds one value in every lane, as the
                // translator last wrote or read it (e.g. `cvta.to.global` of a parameter
                // in divergent code): that value.
                let rty = self.reg_info(r)?.ty;
                if self.svar(r).is_none() && rty.bits() == ty.bits() {
                    let w = self.read(op, ty, false)?;
                    let want = if wide { I64 } else { I32 };
                    if let Some(x) = self.scalar_of(&w.v) {
                        if self.b.func.dfg.value_type(x) == want {
                            return Ok(Some(x));
                        }
                    }
                    return Ok(None);
                }
            }
            Operand::Special(SpecialReg::LaneId) => {
                let ty = if wide { I64 } else { I32 };
                return Ok(Some(self.b.ins().iconst(ty, 0)));
            }
            // Lane 0's `%tid.x` (every warp of such a launch is full).
            Operand::Special(SpecialReg::Tid(Dim::X)) if self.affine.rows => {
                let x = self.load_ctx(I32, offset_of!(WarpCtx, tid), true);
                return Ok(Some(if wide {
                    self.b.ins().uextend(I64, x)
                } else {
                    x
                }));
            }
            _ => {}
        }
        self.sread(op, ty, false)
    }

    /// `x` extended (`signed`) to i64.
    fn to64(&mut self, x: Value, signed: bool) -> Value {
        if self.b.func.dfg.value_type(x) == I64 {
            x
        } else if signed {
            self.b.ins().sextend(I64, x)
        } else {
            self.b.ins().uextend(I64, x)
        }
    }

    /// Writes base `x` (an i32 or i64 of type `ty`) to affine register `dst`, which is
    /// as wide as `ty` or narrower; `false` if it is wider.
    fn affine_put(&mut self, dst: crate::ir::RegId, x: Value) -> Result<bool, JitError> {
        let Some(rty) = self.affine_ty(dst) else {
            return Ok(false);
        };
        let xw = self.b.func.dfg.value_type(x) == I64;
        let x = match (xw, rty.bits() == 64) {
            (true, false) => self.b.ins().ireduce(I32, x),
            (false, true) => return Ok(false),
            _ => x,
        };
        self.affine_set_base(dst, x)?;
        Ok(true)
    }

    /// Lowers `i` on bases when its destination is an affine register and the family
    /// has such a lowering; `false`: use the vector lowering.
    pub(crate) fn try_affine(&mut self, i: &Inst) -> Result<bool, JitError> {
        let defs = i.kind.defs();
        if defs.len() != 1 || self.avar(defs[0]).is_none() {
            return Ok(false);
        }
        match &i.kind {
            InstKind::Mov { ty, dst, src } => {
                let Some(x) = self.abase(src, *ty)? else {
                    return Ok(false);
                };
                self.affine_put(*dst, x)
            }
            InstKind::Cvt {
                dst_ty,
                src_ty,
                sat: false,
                dst,
                src,
                ..
            } if int32_64(*dst_ty) && int32_64(*src_ty) => {
                let Some(x) = self.abase(src, *src_ty)? else {
                    return Ok(false);
                };
                let x = if dst_ty.bits() == 64 {
                    self.to64(x, src_ty.is_signed())
                } else if src_ty.bits() == 64 {
                    self.b.ins().ireduce(I32, x)
                } else {
                    x
                };
                self.affine_put(*dst, x)
            }
            InstKind::Arith {
                op, ty, dst, srcs, ..
            } if int32_64(*ty) => {
                if srcs.len() != op.arity() {
                    return Ok(false);
                }
                let mut v = Vec::with_capacity(3);
                for (k, s) in srcs.iter().enumerate() {
                    let t = op.src_type(*ty, k);
                    if matches!(op, ArithOp::Shl) && k == 1 {
                        // The analysis keeps shifts by an immediate below the width only.
                        let Operand::Imm(n) = s else {
                            return Ok(false);
                        };
                        if *n >= u64::from(ty.bits()) {
                            return Ok(false);
                        }
                        continue;
                    }
                    let Some(x) = self.abase(s, t)? else {
                        return Ok(false);
                    };
                    v.push(x);
                }
                let signed = ty.is_signed();
                let r = match op {
                    ArithOp::Add => self.b.ins().iadd(v[0], v[1]),
                    ArithOp::Sub => self.b.ins().isub(v[0], v[1]),
                    ArithOp::Neg => self.b.ins().ineg(v[0]),
                    ArithOp::Not => self.b.ins().bnot(v[0]),
                    ArithOp::Mul(MulMode::Lo) => self.b.ins().imul(v[0], v[1]),
                    ArithOp::Mad(MulMode::Lo) => {
                        let p = self.b.ins().imul(v[0], v[1]);
                        self.b.ins().iadd(p, v[2])
                    }
                    ArithOp::Shl => {
                        let Operand::Imm(n) = srcs[1] else {
                            return Ok(false);
                        };
                        self.b.ins().ishl_imm_u(v[0], n as i64)
                    }
                    ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide)
                        if ty.bits() == 32 =>
                    {
                        let a = self.to64(v[0], signed);
                        let c = self.to64(v[1], signed);
                        let p = self.b.ins().imul(a, c);
                        match v.get(2) {
                            Some(&z) if matches!(op, ArithOp::Mad(_)) => self.b.ins().iadd(p, z),
                            _ => p,
                        }
                    }
                    _ => return Ok(false),
                };
                self.affine_put(*dst, r)
            }
            _ => Ok(false),
        }
    }
}
