//! The register-move family: `mov` (registers, immediates, special registers, variable
//! and function addresses, vector pack/unpack, element-wise `.v2`/`.v4` moves, a scalar
//! cut into a vector's elements; special registers: `check/sreg.rs`).
//! (`prmt` is an [`InstKind::Bits`] operation, built in `int.rs`.)

use super::Mods;
use crate::check::func::Fx;
use crate::check::operand::{Val, VecElem};
use crate::ir::Fit;
use crate::ir::{ArithOp, FloatMode, InstKind, Operand, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    pub(super) fn mov(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        if m.any(|x| x == "v2" || x == "v4") {
            // A vector source (`{a, b}` or a vector register) moves element-wise; anything
            // else is the special-register form (`mov.v4.u32 {a, b, c, d}, %tid`).
            let elementwise = i.operands.len() == 2
                && match &i.operands[1] {
                    ast::Operand::Vector(..) => true,
                    ast::Operand::Value(e) => matches!(self.value(e), Ok(Val::VecReg(_))),
                    _ => false,
                };
            let sreg = i.operands.len() == 2
                && matches!(&i.operands[1], ast::Operand::Value(e)
                    if matches!(&e.kind, ast::ExprKind::Sym { name, .. }
                        if crate::check::sreg::lookup(name).is_some()));
            return match (elementwise, sreg) {
                (true, _) => self.mov_elements(i, m),
                (false, true) => self.mov_sreg_vector(i, m),
                (false, false) => self.mov_split_scalar(i, m),
            };
        }
        let ty = self.one_type(m)?;
        self.nops(i, m, 2)?;
        let (d, a) = (&i.operands[0], &i.operands[1]);
        // A `{a, b}` list or a whole vector register (`.reg .v2 .u32 v;` as `v`) on one
        // side packs or unpacks (ptxas: `mov.b64 d, v`, `mov.b32 v, s`; both sides
        // vectors: "Illegal vector-vector operands").
        let (dv, av) = (self.is_vector_operand(d), self.is_vector_operand(a));
        if dv && av {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}' with a scalar type moves between a vector and a scalar, not two vectors (use '.v2'/'.v4')",
                    m.text
                ),
            ));
        }
        if dv || av {
            return self.mov_vector(i, m, ty);
        }
        let dst = self.dst(d, ty, Fit::Strict)?;
        let ast::Operand::Value(e) = a else {
            return Err(self.err(a.loc(), "expected a source operand"));
        };
        let src = match self.value(e)? {
            Val::Special(s) => self.sreg_operand(s, ty, false, e.loc)?,
            Val::Zero => Operand::Imm(0),
            Val::Var(v, off, name) => {
                if ty.is_float() || ty == Type::Pred || ty.bits() < 32 {
                    return Err(self.err(
                        e.loc,
                        format!("the address of '{name}' needs a 32- or 64-bit type, not {ty}"),
                    ));
                }
                Operand::VarAddr(v.vref, off)
            }
            Val::Func(f) => {
                if ty.is_float() || ty == Type::Pred || ty.bits() < 32 {
                    return Err(self.err(
                        e.loc,
                        format!("a function address needs a 32- or 64-bit type, not {ty}"),
                    ));
                }
                Operand::FuncAddr(f)
            }
            // `mov.u32 d, r + 20`: `inst/reg_plus.rs` (the dispatcher rewrites it).
            _ => self.src(a, ty, Fit::Strict)?,
        };
        Ok(vec![InstKind::Mov { ty, dst, src }])
    }

    /// `mov.vN.type d, s` with a scalar `s` (a register of `.type` or an immediate):
    /// `s`'s bits are cut into `N` pieces of `bits(type) / N`, each zero-extended into one
    /// element, the first the lowest. Oracle: ptxas 12.9 (sm_90) cubins: `mov.v2.b32 {a,
    /// b}, 0x11223344` gives a = 0x3344, b = 0x1122; `mov.v4.b32` with a register gives its
    /// four bytes, `mov.v2.b64` its two words, `mov.v2.b16 {a, b}, 0x1234` a = 0x34, b =
    /// 0x12. `.v4` of a 16-bit type (pieces of 4 bits by that rule) follows ptxas's own
    /// rule instead: [`Fx::mov_split_v4_16`].
    fn mov_split_scalar(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let n: u32 = match m.one_of(&["v2", "v4"]) {
            Some("v2") => 2,
            _ => 4,
        };
        let ty = self.one_type(m)?;
        self.nops(i, m, 2)?;
        let total = ty.bits();
        let w = total / n;
        let (d, a) = (&i.operands[0], &i.operands[1]);
        if ty != Type::Pred && total == 16 && n == 4 {
            return self.mov_split_v4_16(m, ty, d, a);
        }
        if ty == Type::Pred || total > 64 || w < 8 {
            return Err(self.unsupported(m));
        }
        let src = self.src(a, ty, Fit::Strict)?;
        let elems = self.vector_elems(d)?;
        if elems.len() != n as usize {
            return Err(self.err(m.loc, format!("'{}' moves vectors of {n} elements", m.text)));
        }
        let (tu, tb) = match total {
            64 => (Type::U64, Type::B64),
            32 => (Type::U32, Type::B32),
            _ => (Type::U16, Type::B16),
        };
        let whole = self.new_reg("%__split".into(), tb, m.loc)?;
        let part = self.new_reg("%__split".into(), tb, m.loc)?;
        let mut out = vec![InstKind::Mov {
            ty: tb,
            dst: whole,
            src,
        }];
        for (k, el) in elems.into_iter().enumerate() {
            let dst = match el {
                VecElem::Op(ast::Operand::Sink(_)) => continue,
                VecElem::Op(op) => self.dst(op, ty, Fit::Strict)?,
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, d.loc())?;
                    r
                }
            };
            let arith = |op, srcs| InstKind::Arith {
                op,
                ty: tb,
                fmode: FloatMode::default(),
                dst: part,
                srcs,
            };
            out.push(InstKind::Arith {
                op: ArithOp::Shr,
                ty: tu,
                fmode: FloatMode::default(),
                dst: part,
                srcs: vec![Operand::Reg(whole), Operand::Imm((w * k as u32) as u64)],
            });
            out.push(arith(
                ArithOp::And,
                vec![Operand::Reg(part), Operand::Imm((1u64 << w) - 1)],
            ));
            out.push(InstKind::Mov {
                ty,
                dst,
                src: Operand::Reg(part),
            });
        }
        Ok(out)
    }

    /// `mov.v4.{b16,u16,s16} d, s` with a scalar `s`: element `k` receives bits `32k ..
    /// 32k+15` of `s` taken as a 64-bit value (a constant as written, sign-extended when
    /// negative; a register zero-extended), so elements 2 and 3 are always 0. Oracle:
    /// ptxas 12.9 (sm_90) cubins read with nvdisasm: at -O0 the constant is built in two
    /// 32-bit registers (`MOV R2, 0x76543210; MOV R4, 0xfedcba98; MOV R5, RZ; MOV R6,
    /// RZ`) and element k is stored from the k-th (`STG.E.U16 [p+2k], R2/R4/R5/R6`);
    /// -O3 folds the same values: `0x8877665544332211` gives {0x2211, 0x6655, 0, 0}, `-1`
    /// {0xffff, 0xffff, 0, 0}, `0x12345678` {0x5678, 0, 0, 0}, a `.u16` register `h` {h,
    /// 0, 0, 0} (tests/corpus/MUTATION_FINDINGS.md has the excerpts).
    fn mov_split_v4_16(
        &mut self,
        m: &Mods,
        ty: Type,
        d: &ast::Operand,
        a: &ast::Operand,
    ) -> Result<Vec<InstKind>, PtxError> {
        let src = self.src(a, ty, Fit::Strict)?;
        let words = match (&src, a) {
            (Operand::Imm(_), ast::Operand::Value(e)) => {
                let Val::Const(c) = self.value(e)? else {
                    return Err(self.err(e.loc, "expected a constant"));
                };
                let v = self.cx.const_bits(c, Type::B64, e.loc)?;
                [v & 0xffff, (v >> 32) & 0xffff, 0, 0].map(Operand::Imm)
            }
            _ => [src, Operand::Imm(0), Operand::Imm(0), Operand::Imm(0)],
        };
        let elems = self.vector_elems(d)?;
        if elems.len() != 4 {
            return Err(self.err(m.loc, format!("'{}' moves vectors of 4 elements", m.text)));
        }
        let mut out = Vec::new();
        for (el, src) in elems.into_iter().zip(words) {
            let dst = match el {
                VecElem::Op(ast::Operand::Sink(_)) => continue,
                VecElem::Op(op) => self.dst(op, ty, Fit::Strict)?,
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, d.loc())?;
                    r
                }
            };
            out.push(InstKind::Mov { ty, dst, src });
        }
        Ok(out)
    }

    /// `mov.v2.type d, a` / `mov.v4.type d, a`: element-wise, each side a vector register
    /// or a `{a, b, ...}` list (`_` as a destination skips the element).
    fn mov_elements(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        let n = match m.one_of(&["v2", "v4"]) {
            Some("v2") => 2,
            _ => 4,
        };
        let ty = self.one_type(m)?;
        let (d, a) = (&i.operands[0], &i.operands[1]);
        let (dsts, srcs) = (self.vector_elems(d)?, self.vector_elems(a)?);
        if dsts.len() != n || srcs.len() != n {
            return Err(self.err(m.loc, format!("'{}' moves vectors of {n} elements", m.text)));
        }
        let mut out = Vec::new();
        for (de, se) in dsts.into_iter().zip(srcs) {
            let dst = match de {
                VecElem::Op(ast::Operand::Sink(_)) => continue,
                VecElem::Op(op) => self.dst(op, ty, Fit::Strict)?,
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, d.loc())?;
                    r
                }
            };
            let src = match se {
                VecElem::Op(op) => self.src(op, ty, Fit::Strict)?,
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, a.loc())?;
                    Operand::Reg(r)
                }
            };
            out.push(InstKind::Mov { ty, dst, src });
        }
        Ok(out)
    }

    /// Whether `op` is a `{...}` list or a whole vector register.
    fn is_vector_operand(&self, op: &ast::Operand) -> bool {
        match op {
            ast::Operand::Vector(..) => true,
            ast::Operand::Value(e) => matches!(self.value(e), Ok(Val::VecReg(_))),
            _ => false,
        }
    }

    /// `mov.bN d, {a, b}` / `mov.bN d, v` (pack) and `mov.bN {a, b}, s` / `mov.bN v, s`
    /// (unpack), `v` a `.v2`/`.v4` register whose elements fill `N` bits exactly,
    /// lowered to shifts, conversions and ors through temporary registers.
    pub(super) fn mov_vector(
        &mut self,
        i: &Instruction,
        m: &Mods,
        ty: Type,
    ) -> Result<Vec<InstKind>, PtxError> {
        let (d, a) = (&i.operands[0], &i.operands[1]);
        let packing = self.is_vector_operand(a);
        let elems = self.vector_elems(if packing { a } else { d })?;
        let n = elems.len() as u32;
        let total = ty.bits();
        if !ty.is_bits()
            || !(n == 2 || n == 4)
            || total > 64
            || !total.is_multiple_of(n)
            || total / n < 8
        {
            return Err(self.err(m.loc, format!("invalid vector operand for '{}'", m.text)));
        }
        let w = total / n;
        let (tu, wu, tb, wb) = match (total, w) {
            (64, 32) => (Type::U64, Type::U32, Type::B64, Type::B32),
            (64, 16) => (Type::U64, Type::U16, Type::B64, Type::B16),
            (32, 16) => (Type::U32, Type::U16, Type::B32, Type::B16),
            (32, 8) => (Type::U32, Type::U8, Type::B32, Type::B8),
            (16, 8) => (Type::U16, Type::U8, Type::B16, Type::B8),
            _ => return Err(self.unsupported(m)),
        };
        let mut out = Vec::new();
        if packing {
            let dst = self.dst(d, ty, Fit::Strict)?;
            let acc = self.new_reg("%__pack".into(), tb, m.loc)?;
            let part = self.new_reg("%__pack".into(), tb, m.loc)?;
            for (k, el) in elems.iter().enumerate() {
                let src = match el {
                    crate::check::operand::VecElem::Op(op) => self.src(op, wb, Fit::Strict)?,
                    crate::check::operand::VecElem::Reg(r) => {
                        self.check_fit(*r, wb, Fit::Strict, d.loc())?;
                        Operand::Reg(*r)
                    }
                };
                let target = if k == 0 { acc } else { part };
                // A bit-type source (zero-extended like `wu`) also fits `.f16` registers.
                out.push(InstKind::Cvt {
                    dst_ty: tu,
                    src_ty: wb,
                    rnd: None,
                    ftz: false,
                    sat: false,
                    dst: target,
                    src,
                });
                if k > 0 {
                    let sh = Operand::Imm((w * k as u32) as u64);
                    out.push(InstKind::Arith {
                        op: ArithOp::Shl,
                        ty: tb,
                        fmode: FloatMode::default(),
                        dst: part,
                        srcs: vec![Operand::Reg(part), sh],
                    });
                    out.push(InstKind::Arith {
                        op: ArithOp::Or,
                        ty: tb,
                        fmode: FloatMode::default(),
                        dst: acc,
                        srcs: vec![Operand::Reg(acc), Operand::Reg(part)],
                    });
                }
            }
            out.push(InstKind::Mov {
                ty,
                dst,
                src: Operand::Reg(acc),
            });
        } else {
            let src = self.src(a, ty, Fit::Strict)?;
            let whole = self.new_reg("%__unpack".into(), tb, m.loc)?;
            let part = self.new_reg("%__unpack".into(), tb, m.loc)?;
            let narrow = self.new_reg("%__unpack".into(), wb, m.loc)?;
            out.push(InstKind::Mov {
                ty: tb,
                dst: whole,
                src,
            });
            for (k, el) in elems.iter().enumerate() {
                let dst = match el {
                    crate::check::operand::VecElem::Op(ast::Operand::Sink(_)) => continue,
                    crate::check::operand::VecElem::Op(op) => self.dst(op, wb, Fit::Strict)?,
                    crate::check::operand::VecElem::Reg(r) => {
                        self.check_fit(*r, wb, Fit::Strict, d.loc())?;
                        *r
                    }
                };
                let sh = Operand::Imm((w * k as u32) as u64);
                out.push(InstKind::Arith {
                    op: ArithOp::Shr,
                    ty: tu,
                    fmode: FloatMode::default(),
                    dst: part,
                    srcs: vec![Operand::Reg(whole), sh],
                });
                out.push(InstKind::Cvt {
                    dst_ty: wu,
                    src_ty: tu,
                    rnd: None,
                    ftz: false,
                    sat: false,
                    dst: narrow,
                    src: Operand::Reg(part),
                });
                out.push(InstKind::Mov {
                    ty: wb,
                    dst,
                    src: Operand::Reg(narrow),
                });
            }
        }
        Ok(out)
    }
}
