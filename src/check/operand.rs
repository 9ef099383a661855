//! Operand resolution (registers, special registers, variables, labels, constants) and
//! the PTX operand type rules.

use super::consts::Const;
use super::func::{Fx, Sym};
use super::sreg::SregName;
use super::{ModSym, VarSym};
use crate::ir::{self, Dim, Fit, FuncId, Loc, RegId, SpecialReg, Type};
use crate::parse::ast::{BinOp, Expr, ExprKind, Operand};
use crate::parse::PtxError;

/// What an operand expression denotes.
#[derive(Clone, Debug)]
pub enum Val {
    /// A register plus a byte offset (non-zero only in `[reg+imm]`).
    Reg(RegId, i64),
    /// A whole vector register (`.reg .v4 .f32 v;` used as `v`).
    VecReg(Vec<RegId>),
    Special(SpecialReg),
    /// A special-register component that always reads 0 (`%tid.w`).
    Zero,
    Var(VarSym, i64, String),
    Func(FuncId),
    Label,
    /// `.branchtargets`, `.calltargets` or `.callprototype` label.
    Directive,
    Const(Const),
}

impl Fx<'_, '_> {
    /// Looks a name up in the function's scopes, innermost first, then module scope.
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        for s in self.scopes.iter().rev() {
            if let Some(sym) = s.get(name) {
                return Some(sym.clone());
            }
        }
        match self.cx.syms.get(name) {
            Some(ModSym::Func(f)) => Some(Sym::Func(*f)),
            Some(ModSym::Var(v)) => Some(Sym::Var(*v)),
            None => None,
        }
    }

    pub fn reg_ty(&self, r: RegId) -> Type {
        self.regs.get(r).map(|ri| ri.ty).unwrap_or(Type::B32)
    }

    pub fn reg_name(&self, r: RegId) -> String {
        self.regs
            .get(r)
            .map(|ri| ri.name.clone())
            .unwrap_or_default()
    }

    /// Resolves a name (with an optional `.x` component).
    pub fn sym_value(&self, name: &str, comp: Option<&str>, loc: Loc) -> Result<Val, PtxError> {
        let full = || match comp {
            Some(c) => format!("{name}.{c}"),
            None => name.to_string(),
        };
        if let Some(sym) = self.lookup(name) {
            return match (sym, comp) {
                (Sym::Reg(r), None) => Ok(Val::Reg(r, 0)),
                (Sym::VecReg(rs), None) => Ok(Val::VecReg(rs)),
                (Sym::VecReg(rs), Some(c)) => {
                    let idx = match c {
                        "x" | "r" => 0,
                        "y" | "g" => 1,
                        "z" | "b" => 2,
                        _ => 3,
                    };
                    match rs.get(idx) {
                        Some(r) => Ok(Val::Reg(*r, 0)),
                        None => Err(self.cx.err(
                            loc,
                            format!("vector register '{name}' has no component '.{c}'"),
                        )),
                    }
                }
                (Sym::Var(v), None) => Ok(Val::Var(v, 0, name.to_string())),
                (Sym::Func(f), None) => Ok(Val::Func(f)),
                (Sym::Label(_), None) => Ok(Val::Label),
                (Sym::Directive | Sym::BranchTargets(_), None) => Ok(Val::Directive),
                (_, Some(_)) => Err(self
                    .cx
                    .err(loc, format!("'{name}' has no components ('{}')", full()))),
            };
        }
        if name == "WARP_SZ" && comp.is_none() {
            return Ok(Val::Const(Const::Int {
                bits: 32,
                unsigned: false,
            }));
        }
        let dim = |c: Option<&str>| -> Result<Option<Dim>, PtxError> {
            match c {
                Some("x") => Ok(Some(Dim::X)),
                Some("y") => Ok(Some(Dim::Y)),
                Some("z") => Ok(Some(Dim::Z)),
                Some("w") => Ok(None),
                _ => Err(self.cx.err(
                    loc,
                    format!("special register '{name}' needs a component '.x', '.y' or '.z'"),
                )),
            }
        };
        let special = |f: fn(Dim) -> SpecialReg| -> Result<Val, PtxError> {
            Ok(match dim(comp)? {
                Some(d) => Val::Special(f(d)),
                None => Val::Zero,
            })
        };
        let scalar = |s: SpecialReg| -> Result<Val, PtxError> {
            match comp {
                None => Ok(Val::Special(s)),
                Some(_) => Err(self
                    .cx
                    .err(loc, format!("special register '{name}' has no components"))),
            }
        };
        match super::sreg::lookup(name) {
            Some(SregName::Vector(f)) => special(f),
            Some(SregName::Scalar(s)) => scalar(s),
            None if name.starts_with('%') => {
                Err(self.cx.err(loc, format!("unknown register '{}'", full())))
            }
            None => Err(self.cx.err(loc, format!("unknown symbol '{}'", full()))),
        }
    }

    /// Resolves an operand expression: a name, `name+offset`, or a constant.
    pub fn value(&self, e: &Expr) -> Result<Val, PtxError> {
        match &e.kind {
            ExprKind::Sym { name, comp } => self.sym_value(name, comp.as_deref(), e.loc),
            // `r + 4`, `A - 4`, `r + 1 + 1` (ptxas: `[b + 1 + 1]`).
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) if sym_based(a) => {
                let base = self.value(a)?;
                let off = self.cx.eval_int(b)?;
                let off = if *op == BinOp::Sub {
                    off.wrapping_neg()
                } else {
                    off
                };
                match base {
                    Val::Reg(r, k) => Ok(Val::Reg(r, k.wrapping_add(off))),
                    Val::Var(v, k, n) => Ok(Val::Var(v, k.wrapping_add(off), n)),
                    Val::Const(_) => Ok(Val::Const(self.cx.eval(e)?)),
                    _ => Err(self.cx.err(
                        e.loc,
                        "an offset can only be added to a register or variable",
                    )),
                }
            }
            ExprKind::Generic(id) => Err(self.cx.err(
                e.loc,
                format!("'generic({})' is only allowed in initializers", id.name),
            )),
            _ => Ok(Val::Const(self.cx.eval(e)?)),
        }
    }

    fn fit_error(&self, r: RegId, ty: Type, loc: Loc) -> PtxError {
        self.cx.err(
            loc,
            format!(
                "register '{}' has type {}, which does not fit instruction type {}",
                self.reg_name(r),
                self.reg_ty(r),
                ty
            ),
        )
    }

    /// Checks that register `r` fits type `ty`.
    pub fn check_fit(&self, r: RegId, ty: Type, rule: Fit, loc: Loc) -> Result<(), PtxError> {
        if (ty.is_float() || ty == Type::Pred) && self.plus_regs.contains(&r) {
            return Err(self.cx.err(
                loc,
                format!(
                    "'{}' (a register plus a constant) is an integer operand, not {ty} (ptxas drops such an instruction)",
                    self.reg_name(r)
                ),
            ));
        }
        if rule.fits(self.reg_ty(r), ty) {
            Ok(())
        } else {
            Err(self.fit_error(r, ty, loc))
        }
    }

    /// A register or constant source operand of type `ty`.
    pub fn src(&self, op: &Operand, ty: Type, rule: Fit) -> Result<ir::Operand, PtxError> {
        let Operand::Value(e) = op else {
            return Err(self
                .cx
                .err(op.loc(), "expected a register or constant operand"));
        };
        match self.value(e)? {
            Val::Reg(r, 0) => {
                self.check_fit(r, ty, rule, e.loc)?;
                Ok(ir::Operand::Reg(r))
            }
            Val::Const(c) => Ok(ir::Operand::Imm(self.cx.const_bits(c, ty, e.loc)?)),
            Val::Special(_) | Val::Zero => Err(self.cx.err(
                e.loc,
                "a special register can only be read by 'mov' or 'cvt'",
            )),
            _ => Err(self
                .cx
                .err(e.loc, "expected a register or constant operand")),
        }
    }

    /// A destination register of type `ty`.
    pub fn dst(&self, op: &Operand, ty: Type, rule: Fit) -> Result<RegId, PtxError> {
        let Operand::Value(e) = op else {
            return Err(self.cx.err(op.loc(), "expected a destination register"));
        };
        match self.value(e)? {
            Val::Reg(r, 0) if self.plus_regs.contains(&r) => Err(self
                .cx
                .err(e.loc, "a register plus a constant is not a destination")),
            Val::Reg(r, 0) => {
                self.check_fit(r, ty, rule, e.loc)?;
                Ok(r)
            }
            Val::Special(_) | Val::Zero => {
                Err(self.cx.err(e.loc, "special registers are read-only"))
            }
            _ => Err(self.cx.err(e.loc, "expected a destination register")),
        }
    }

    /// A predicate source, possibly negated (`!p`), or an integer constant (nonzero is
    /// true, as ptxas reads it): then [`Fx::pred_true`], set just before, negated for 0.
    pub fn pred_src(&mut self, op: &Operand) -> Result<ir::PredSrc, PtxError> {
        if let Operand::Value(e) = op {
            if let Val::Const(_) = self.value(e)? {
                let Ok(ir::Operand::Imm(v)) = self.src(op, Type::Pred, Fit::Strict) else {
                    return Err(self.cx.err(
                        op.loc(),
                        "expected a predicate register or an integer constant",
                    ));
                };
                let reg = match self.pred_true {
                    Some(r) => r,
                    None => {
                        let r = self.new_reg("%pred.true".to_string(), Type::Pred, op.loc())?;
                        self.pred_true = Some(r);
                        r
                    }
                };
                self.pre.push(ir::InstKind::Mov {
                    ty: Type::Pred,
                    dst: reg,
                    src: ir::Operand::Imm(1),
                });
                return Ok(ir::PredSrc {
                    reg,
                    negate: v == 0,
                });
            }
        }
        let (name, loc, negate) = match op {
            Operand::Not(id) => (id.name.as_str(), id.loc, true),
            Operand::Value(Expr {
                kind: ExprKind::Sym { name, comp: None },
                loc,
            }) => (name.as_str(), *loc, false),
            _ => return Err(self.cx.err(op.loc(), "expected a predicate register")),
        };
        match self.sym_value(name, None, loc)? {
            Val::Reg(r, 0) if self.reg_ty(r) == Type::Pred => Ok(ir::PredSrc { reg: r, negate }),
            _ => Err(self
                .cx
                .err(loc, format!("'{name}' is not a predicate register"))),
        }
    }

    /// A predicate destination or `_` (`None`).
    pub fn pred_dst(&self, op: &Operand) -> Result<Option<RegId>, PtxError> {
        match op {
            Operand::Sink(_) => Ok(None),
            _ => Ok(Some(self.dst(op, Type::Pred, Fit::Strict)?)),
        }
    }

    /// The elements of vector operand `op` as destinations, element `k` of type `tys[k]`
    /// (`_` is `None`); `count(found)` is the error when it has another number of elements.
    pub fn vector_dsts(
        &self,
        op: &Operand,
        tys: &[Type],
        rule: Fit,
        count: impl FnOnce(usize) -> String,
    ) -> Result<Vec<Option<RegId>>, PtxError> {
        let elems = self.vector_elems(op)?;
        if elems.len() != tys.len() {
            return Err(self.cx.err(op.loc(), count(elems.len())));
        }
        elems
            .into_iter()
            .zip(tys)
            .map(|(el, &ty)| match el {
                VecElem::Op(Operand::Sink(_)) => Ok(None),
                VecElem::Op(o) => self.dst(o, ty, rule).map(Some),
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, rule, op.loc())?;
                    Ok(Some(r))
                }
            })
            .collect()
    }

    /// The elements of vector operand `op` as sources, element `k` of type `tys[k]`;
    /// `count(found)` is the error when it has another number of elements.
    pub fn vector_srcs(
        &self,
        op: &Operand,
        tys: &[Type],
        rule: Fit,
        count: impl FnOnce(usize) -> String,
    ) -> Result<Vec<ir::Operand>, PtxError> {
        let elems = self.vector_elems(op)?;
        if elems.len() != tys.len() {
            return Err(self.cx.err(op.loc(), count(elems.len())));
        }
        elems
            .into_iter()
            .zip(tys)
            .map(|(el, &ty)| match el {
                VecElem::Op(o) => self.src(o, ty, rule),
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, rule, op.loc())?;
                    Ok(ir::Operand::Reg(r))
                }
            })
            .collect()
    }

    /// Elements of a vector operand: `{a, _, c}` or a whole vector register.
    pub fn vector_elems<'o>(&self, op: &'o Operand) -> Result<Vec<VecElem<'o>>, PtxError> {
        match op {
            Operand::Vector(items, _) => Ok(items.iter().map(VecElem::Op).collect()),
            Operand::Value(
                e @ Expr {
                    kind: ExprKind::Sym { .. },
                    ..
                },
            ) => match self.value(e)? {
                Val::VecReg(rs) => Ok(rs.into_iter().map(VecElem::Reg).collect()),
                _ => Err(self.cx.err(op.loc(), "expected a vector operand '{...}'")),
            },
            _ => Err(self.cx.err(op.loc(), "expected a vector operand '{...}'")),
        }
    }
}

/// Whether `e` is a name, or a name plus constants (`r + 1`): the left operand of an
/// address or value offset.
fn sym_based(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Sym { .. } => true,
        ExprKind::Binary(BinOp::Add, a, _) => sym_based(a),
        _ => false,
    }
}

/// One element of a vector operand.
pub enum VecElem<'o> {
    Op(&'o Operand),
    Reg(RegId),
}
