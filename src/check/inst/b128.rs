//! 128-bit data (`.b128`, PTX 8.3): a `.reg .b128` register is held as two hidden
//! `.b64` registers, its low and high halves (created on first use, named
//! `%b128.N.lo`/`.hi`, no PTX identifiers), so no backend needs 128-bit registers.
//! `mov.b128 q, {lo, hi}` / `mov.b128 {lo, hi}, q` / `mov.b128 q, r` are moves of the
//! halves; `ld.b128` / `st.b128` are rewritten to `.v2.b64` accesses of the halves (the
//! same 16 bytes, the same 16-byte alignment); `atom{.space}.{cas,exch}.b128` is one
//! 128-bit host atomic ([`AsyncOp::Atom128`]); a narrower `ld`/`st` of a `.b128` register
//! uses its low half. Other `.b128` uses stay load-time errors.

use super::Mods;
use crate::check::consts::Const;
use crate::check::func::{Fx, Sym};
use crate::check::operand::Val;
use crate::ir::{AsyncOp, Fit, InstKind, Loc, Operand, RegId, Space, Type};
use crate::parse::ast::{self, ExprKind, Ident, Instruction};
use crate::parse::lexer::NumLit;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// The `.b128` register an operand names, if it names one.
    fn b128_reg(&self, op: &ast::Operand) -> Option<RegId> {
        let ast::Operand::Value(e) = op else {
            return None;
        };
        match self.value(e) {
            Ok(Val::Reg(r, 0)) if self.reg_ty(r) == Type::B128 => Some(r),
            _ => None,
        }
    }

    /// The name of the vector symbol of a `.b128` register's halves, creating them.
    fn b128_sym(&mut self, r: RegId, loc: Loc) -> Result<String, PtxError> {
        let name = format!("%b128.{}", r.0);
        if self.lookup(&name).is_none() {
            let lo = self.new_reg(format!("{name}.lo"), Type::B64, loc)?;
            let hi = self.new_reg(format!("{name}.hi"), Type::B64, loc)?;
            match self.scopes.first_mut() {
                Some(s) => s.insert(name.clone(), Sym::VecReg(vec![lo, hi])),
                None => return Err(self.err(loc, "internal error: no scope")),
            };
        }
        Ok(name)
    }

    /// The (low, high) halves of a `.b128` register.
    fn b128_halves(&mut self, r: RegId, loc: Loc) -> Result<(RegId, RegId), PtxError> {
        let name = self.b128_sym(r, loc)?;
        match self.lookup(&name) {
            Some(Sym::VecReg(v)) if v.len() == 2 => Ok((v[0], v[1])),
            _ => Err(self.err(loc, "internal error: .b128 halves")),
        }
    }

    /// The halves of an operand that must be a `.b128` register.
    fn b128_operand(&mut self, op: &ast::Operand, m: &Mods) -> Result<(RegId, RegId), PtxError> {
        match self.b128_reg(op) {
            Some(r) => self.b128_halves(r, op.loc()),
            None => Err(self.err(
                op.loc(),
                format!("'{}' needs a .b128 register here", m.text),
            )),
        }
    }

    /// `ld{...}.b128` / `st{...}.b128` rewritten to `.v2.b64` of the halves (`None` for
    /// every other instruction).
    pub(super) fn rewrite_b128(
        &mut self,
        i: &Instruction,
    ) -> Result<Option<Instruction>, PtxError> {
        let is_mem = matches!(i.opcode.name.as_str(), "ld" | "ldu" | "st");
        if !is_mem {
            return Ok(None);
        }
        if !i.mods.iter().any(|m| m.name == "b128") {
            return self.narrow_b128(i);
        }
        let mut c = i.clone();
        c.mods = Vec::with_capacity(i.mods.len() + 1);
        for m in &i.mods {
            if m.name == "b128" {
                c.mods.push(Ident {
                    name: "v2".into(),
                    loc: m.loc,
                });
                c.mods.push(Ident {
                    name: "b64".into(),
                    loc: m.loc,
                });
            } else {
                c.mods.push(m.clone());
            }
        }
        // `st.b128 [a], imm`: an integer constant is 64 bits, zero-extended. Oracle: ptxas
        // 12.9 (sm_90) accepts it and its cubin stores `{imm, 0}` (`MOV`s of the two
        // 32-bit halves of the constant, `CS2R R6, SRZ` for the high 64 bits, one
        // `STG.E.128`; `-2` gives 0xfffffffe, 0xffffffff, 0, 0). Floats are "Arguments
        // mismatch".
        if i.opcode.name == "st" {
            if let Some(lo @ ast::Operand::Value(e)) = c.operands.get(1) {
                if let Ok(Val::Const(Const::Int { .. })) = self.value(e) {
                    let loc = e.loc;
                    let zero = ast::Expr {
                        kind: ExprKind::Num(NumLit::Int {
                            bits: 0,
                            unsigned: false,
                        }),
                        loc,
                    };
                    let v = vec![lo.clone(), ast::Operand::Value(zero)];
                    c.operands[1] = ast::Operand::Vector(v, loc);
                }
            }
        }
        for op in c.operands.iter_mut() {
            if let Some(r) = self.b128_reg(op) {
                let loc = op.loc();
                let name = self.b128_sym(r, loc)?;
                *op = ast::Operand::Value(ast::Expr {
                    kind: ExprKind::Sym { name, comp: None },
                    loc,
                });
            }
        }
        Ok(Some(c))
    }

    /// `ld`/`ldu`/`st` of a scalar type narrower than a `.b128` register operand (the
    /// ISA's relaxed operand sizes, which ptxas accepts): the access uses the register's
    /// low half, and a load fills the high half with the sign of a signed type, else
    /// zeros ([`Fx::b128_fill`], after the load). Oracle: ptxas 12.9 (sm_90) cubins:
    /// `ld.global.f32 q` / `.u32 q` write zeros above the value, `ldu.global.s64 q` the
    /// sign; `st.global.s32 [a], q` stores the low 32 bits.
    fn narrow_b128(&mut self, i: &Instruction) -> Result<Option<Instruction>, PtxError> {
        if i.mods
            .iter()
            .any(|m| matches!(m.name.as_str(), "v2" | "v4" | "v8"))
        {
            return Ok(None);
        }
        let k = if i.opcode.name == "st" { 1 } else { 0 };
        let Some(r) = i.operands.get(k).and_then(|op| self.b128_reg(op)) else {
            return Ok(None);
        };
        let loc = i.operands[k].loc();
        let (lo, hi) = self.b128_halves(r, loc)?;
        let name = self.b128_sym(r, loc)?;
        let mut c = i.clone();
        c.operands[k] = ast::Operand::Value(ast::Expr {
            kind: ExprKind::Sym {
                name,
                comp: Some("x".into()),
            },
            loc,
        });
        if k == 0 {
            let signed = i
                .mods
                .iter()
                .any(|m| m.name.starts_with('s') && m.name[1..].parse::<u32>().is_ok());
            self.b128_fill = Some((lo, hi, signed));
        }
        Ok(Some(c))
    }

    /// The high-half fill of a narrow load into a `.b128` register ([`Fx::narrow_b128`]).
    pub(super) fn b128_fill(&mut self) -> Option<InstKind> {
        let (lo, hi, signed) = self.b128_fill.take()?;
        Some(match signed {
            true => InstKind::Arith {
                op: crate::ir::ArithOp::Shr,
                ty: Type::S64,
                fmode: crate::ir::FloatMode::default(),
                dst: hi,
                srcs: vec![Operand::Reg(lo), Operand::Imm(63)],
            },
            false => InstKind::Mov {
                ty: Type::B64,
                dst: hi,
                src: Operand::Imm(0),
            },
        })
    }

    /// `mov.b128 q, {lo, hi}`, `mov.b128 {lo, hi}, q`, `mov.b128 q, r`.
    pub(super) fn mov_b128(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        m.has("b128");
        self.nops(i, m, 2)?;
        let (d, a) = (&i.operands[0], &i.operands[1]);
        let mov = |dst, src| InstKind::Mov {
            ty: Type::B64,
            dst,
            src,
        };
        let pair = |fx: &Self, v: &ast::Operand| -> Result<Vec<ast::Operand>, PtxError> {
            match v {
                ast::Operand::Vector(e, _) if e.len() == 2 => Ok(e.clone()),
                _ => Err(fx.err(
                    v.loc(),
                    format!("'{}' needs a vector of two .b64 values", m.text),
                )),
            }
        };
        if self.b128_reg(d).is_some() {
            let (lo, hi) = self.b128_operand(d, m)?;
            if self.b128_reg(a).is_some() {
                let (slo, shi) = self.b128_operand(a, m)?;
                return Ok(vec![mov(lo, Operand::Reg(slo)), mov(hi, Operand::Reg(shi))]);
            }
            let e = pair(self, a)?;
            let x = self.src(&e[0], Type::B64, Fit::Strict)?;
            let y = self.src(&e[1], Type::B64, Fit::Strict)?;
            return Ok(vec![mov(lo, x), mov(hi, y)]);
        }
        let (lo, hi) = self.b128_operand(a, m)?;
        let e = pair(self, d)?;
        let mut out = Vec::new();
        for (el, half) in e.iter().zip([lo, hi]) {
            if !matches!(el, ast::Operand::Sink(_)) {
                out.push(mov(
                    self.dst(el, Type::B64, Fit::Strict)?,
                    Operand::Reg(half),
                ));
            }
        }
        Ok(out)
    }

    /// `atom{.sem}{.scope}{.space}.{cas,exch}.b128 d, [a], b{, c}`.
    pub(super) fn atom_b128(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        m.has("b128");
        m.one_of(&["relaxed", "acquire", "release", "acq_rel"]);
        m.one_of(&["cta", "cluster", "gpu", "sys"]);
        let space = self.space_mod(m, false)?;
        if !matches!(
            space,
            Space::Global | Space::Shared | Space::SharedCluster | Space::Generic
        ) || i.opcode.name != "atom"
        {
            return Err(self.unsupported(m));
        }
        let cas = match m.one_of(&["cas", "exch"]) {
            Some(op) => op == "cas",
            None => return Err(self.unsupported(m)),
        };
        self.nops(i, m, 3 + cas as usize)?;
        let (dlo, dhi) = self.b128_operand(&i.operands[0], m)?;
        let a = self.address(&i.operands[1], space)?;
        let mut srcs = Vec::new();
        for op in &i.operands[2..] {
            let (lo, hi) = self.b128_operand(op, m)?;
            srcs.extend([Operand::Reg(lo), Operand::Reg(hi)]);
        }
        Ok(vec![InstKind::Async {
            op: AsyncOp::Atom128 { cas },
            dsts: vec![Some(dlo), Some(dhi)],
            addrs: vec![(space, a)],
            srcs,
        }])
    }
}
