//! Lowerings on the base of affine registers (`translate::affine`): where the
//! destination of `mov`, integer `add sub neg not mul.lo mad.lo shl shr and or xor
//! mul.wide mad.wide` or an integer `cvt` is an affine register, lane 0's result is computed from lane 0's
//! sources (scalars, affine bases, `%laneid`'s 0, lane 0's `%tid.x` in code for
//! launches whose `%ntid.x` is a multiple of 32) with scalar instructions. The shape
//! analysis proved the result affine with the register's stride, and every lane's
//! result is then `base + l × stride`: the operations are ring homomorphisms modulo
//! 2^w (`shl` by a constant, a multiplication by a uniform value) and the widenings are
//! exact where the analysis says so (no lane wraps where lane 0 does not); `shr`, `and`,
//! `or` and `xor` are exact where the analysis says so (the lanes' offsets and the
//! other operand touch different bits), and lane 0's result is the base whatever the
//! operation. Any other
//! definition (or sources without a scalar base) takes the vector lowering, whose
//! result `translate::affine` reduces to the base.

use crate::exec::ctx::WarpCtx;
use crate::ir::{
    ArithOp, CmpOp, Dim, Inst, InstKind, MulMode, Operand, RegClass, SpecialReg, Type,
};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
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
    pub(crate) fn abase(&mut self, op: &Operand, ty: Type) -> Result<Option<Value>, JitError> {
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
                    if matches!(op, ArithOp::Shl | ArithOp::Shr) && k == 1 {
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
                    // Lane 0's result: the analysis proved the result uniform or affine
                    // (`shr` of lanes that share their bits from the count up).
                    ArithOp::Shr => {
                        let Operand::Imm(n) = srcs[1] else {
                            return Ok(false);
                        };
                        if signed {
                            self.b.ins().sshr_imm_u(v[0], n as i64)
                        } else {
                            self.b.ins().ushr_imm_u(v[0], n as i64)
                        }
                    }
                    ArithOp::And => self.b.ins().band(v[0], v[1]),
                    ArithOp::Or => self.b.ins().bor(v[0], v[1]),
                    ArithOp::Xor => self.b.ins().bxor(v[0], v[1]),
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

/// The compare of `setp` with the affine operand first: `a cmp u` for `u cmp a`.
fn swap_cmp(cmp: CmpOp) -> Option<CmpOp> {
    Some(match cmp {
        CmpOp::Eq => CmpOp::Eq,
        CmpOp::Ne => CmpOp::Ne,
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        _ => return None,
    })
}

impl FuncTranslator<'_> {
    /// Lane 0's value of `op` read as `ty` when `op` is affine with stride 1 in `ty`'s
    /// width and its base is a multiple of 32 (so no lane wraps past the end of the
    /// signed or unsigned range: the 32 lanes' values are `base..=base + 31`).
    fn run_of_32(&mut self, op: &Operand, ty: Type) -> Result<Option<Value>, JitError> {
        let bits = ty.bits();
        let (stride, tz) = match *op {
            Operand::Reg(r) => {
                let Some((_, stride)) = self.avar(r) else {
                    return Ok(None);
                };
                let st = if self.affine.rows {
                    &self.shape_now.1
                } else {
                    &self.shape_now.0
                };
                let fact = st[r];
                if fact.shape.stride() != Some(stride) {
                    return Ok(None);
                }
                (stride, u32::from(fact.tz))
            }
            Operand::Special(SpecialReg::LaneId) => (1, 64),
            // Every warp of such a launch is a whole row: lane 0's `%tid.x` is a
            // multiple of 32.
            Operand::Special(SpecialReg::Tid(Dim::X)) if self.affine.rows => (1, 5),
            _ => return Ok(None),
        };
        if stride & crate::ops::mask(bits) != 1 || tz < 5 {
            return Ok(None);
        }
        self.abase(op, ty)
    }

    /// The lane bits (bit `l` = lane `l`) of integer `setp` `a cmp b` where one
    /// operand is a run of 32 consecutive values (`run_of_32`) and the other uniform,
    /// computed from the scalars: with `d = u - base` (exact when `u >= base` in the
    /// compare's signedness), lane `l` is below `u` iff `l < d`, so `lt` holds in the
    /// lowest `min(d, 32)` lanes (none when `u < base`), `le` in the lowest
    /// `min(d, 31) + 1`, `eq` in the lanes of `le` not in `lt`; `gt ge ne` are the
    /// complements. Bits of lanes the analysis says nothing of (inactive lanes) are
    /// meaningless. `None`: no such form (the vector compare applies).
    pub(crate) fn affine_cmp_bits(
        &mut self,
        cmp: CmpOp,
        ty: Type,
        a: &Operand,
        b: &Operand,
    ) -> Result<Option<Value>, JitError> {
        if !int32_64(ty) {
            return Ok(None);
        }
        let (base, u, cmp) = match self.run_of_32(a, ty)? {
            Some(x) => match self.sread(b, ty, true)? {
                Some(u) => (x, u, cmp),
                None => return Ok(None),
            },
            None => {
                let Some(c) = swap_cmp(cmp) else {
                    return Ok(None);
                };
                let Some(x) = self.run_of_32(b, ty)? else {
                    return Ok(None);
                };
                let Some(u) = self.sread(a, ty, true)? else {
                    return Ok(None);
                };
                (x, u, c)
            }
        };
        if !matches!(
            cmp,
            CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
        ) {
            return Ok(None);
        }
        let cc = match ty.is_signed() {
            true => IntCC::SignedGreaterThanOrEqual,
            false => IntCC::UnsignedGreaterThanOrEqual,
        };
        let wty = self.b.func.dfg.value_type(base);
        if self.b.func.dfg.value_type(u) != wty {
            return Ok(None);
        }
        let above = self.b.ins().icmp(cc, u, base);
        let d = self.b.ins().isub(u, base);
        let d = self.to64(d, false);
        let zero = self.b.ins().iconst(I64, 0);
        // The number of lanes below `u` (`lt`) and at most `u` (`le`).
        let c32 = self.b.ins().iconst(I64, 32);
        let c31 = self.b.ins().iconst(I64, 31);
        let lt_n = self.b.ins().umin(d, c32);
        let le_n = self.b.ins().umin(d, c31);
        let le_n = self.b.ins().iadd_imm_s(le_n, 1);
        let lt_n = self.b.ins().select(above, lt_n, zero);
        let le_n = self.b.ins().select(above, le_n, zero);
        let low = |t: &mut Self, n: Value| {
            let one = t.b.ins().iconst(I64, 1);
            let p = t.b.ins().ishl(one, n);
            let m = t.b.ins().iadd_imm_s(p, -1);
            t.b.ins().ireduce(I32, m)
        };
        let (n, negate) = match cmp {
            CmpOp::Lt => (lt_n, false),
            CmpOp::Ge => (lt_n, true),
            CmpOp::Le => (le_n, false),
            CmpOp::Gt => (le_n, true),
            _ => {
                let lt = low(self, lt_n);
                let le = low(self, le_n);
                let eq = self.b.ins().band_not(le, lt);
                return Ok(Some(match cmp {
                    CmpOp::Eq => eq,
                    _ => self.b.ins().bnot(eq),
                }));
            }
        };
        let m = low(self, n);
        Ok(Some(if negate { self.b.ins().bnot(m) } else { m }))
    }
}
