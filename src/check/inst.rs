//! Instruction lowering: AST instruction -> [`InstKind`] or block terminator.
//!
//! Executed instructions are lowered completely; every other instruction (and every
//! unimplemented variant of a known one) is a located "not supported yet" error.

mod barrier;
mod bits;
mod carry;
mod cvt;
mod datamove;
mod half;
mod matrix;
mod minmax;
mod sfu;
mod warp;

use super::func::{Fx, TTerm, Tgt};
use super::operand::{Rule, Val};
use crate::ir::{
    ArithOp, BoolOp, CmpOp, DivMode, FloatMode, Guard, InstKind, Loc, MulMode, Operand, Rnd, Type,
};
use crate::parse::ast::{self, Ident, Instruction};
use crate::parse::PtxError;

/// The modifiers of one instruction, consumed as they are recognised.
pub struct Mods<'i> {
    list: Vec<(&'i Ident, bool)>,
    pub text: String,
    pub loc: Loc,
}

impl<'i> Mods<'i> {
    pub fn new(i: &'i Instruction) -> Self {
        Mods {
            list: i.mods.iter().map(|m| (m, false)).collect(),
            text: i.text(),
            loc: i.opcode.loc,
        }
    }

    /// Takes the first unused modifier satisfying `f`.
    pub fn take_if(&mut self, f: impl Fn(&str) -> bool) -> Option<(&'i str, Loc)> {
        for (m, used) in self.list.iter_mut() {
            if !*used && f(&m.name) {
                *used = true;
                return Some((m.name.as_str(), m.loc));
            }
        }
        None
    }

    pub fn has(&mut self, name: &str) -> bool {
        self.take_if(|m| m == name).is_some()
    }

    pub fn one_of(&mut self, names: &[&str]) -> Option<&'i str> {
        self.take_if(|m| names.contains(&m)).map(|(m, _)| m)
    }

    /// All type modifiers, in order.
    pub fn types(&mut self) -> Vec<(Type, Loc)> {
        let mut v = Vec::new();
        while let Some((m, l)) = self.take_if(|m| Type::from_name(m).is_some()) {
            if let Some(t) = Type::from_name(m) {
                v.push((t, l));
            }
        }
        v
    }

    /// Whether an unused modifier satisfies `f` (without taking it).
    pub fn any(&self, f: impl Fn(&str) -> bool) -> bool {
        self.list.iter().any(|(m, used)| !*used && f(&m.name))
    }
}

fn rnd_of(s: &str) -> Option<Rnd> {
    Some(match s {
        "rn" => Rnd::Rn,
        "rz" => Rnd::Rz,
        "rm" => Rnd::Rm,
        "rp" => Rnd::Rp,
        "rni" => Rnd::Rni,
        "rzi" => Rnd::Rzi,
        "rmi" => Rnd::Rmi,
        "rpi" => Rnd::Rpi,
        _ => return None,
    })
}

const FRND: &[&str] = &["rn", "rz", "rm", "rp"];

/// Types that PTX has but the backends do not execute yet.
fn unsupported_type(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 | Type::B128
    )
}

/// What an instruction lowers to.
pub(super) enum Lowered {
    Insts(Vec<InstKind>),
    Bra {
        target: u32,
        uni: bool,
    },
    Ret,
    Exit,
    /// `bar.sync`: ends the block ([`crate::ir::Terminator::Barrier`]).
    Barrier {
        barrier: Operand,
        count: Option<Operand>,
        /// `bar.red`: the operation, the predicate `c` and the destination.
        red: Option<(crate::ir::BarRedOp, crate::ir::PredSrc, crate::ir::RegId)>,
    },
    /// `brx.idx`: ends the block ([`crate::ir::Terminator::BrxIdx`]).
    Brx {
        index: Operand,
        targets: Vec<u32>,
        uni: bool,
    },
    /// `call` through a register ([`crate::ir::Terminator::CallIndirect`]).
    CallIndirect {
        addr: crate::ir::RegId,
        targets: Vec<crate::ir::FuncId>,
        ops: super::call::CallOperands,
    },
    /// `call`: ends the block ([`crate::ir::Terminator::Call`]).
    Call {
        func: crate::ir::FuncId,
        ops: super::call::CallOperands,
        uni: bool,
    },
}

impl Fx<'_, '_> {
    pub fn unsupported(&self, m: &Mods) -> PtxError {
        self.err(
            m.loc,
            format!("instruction '{}' is not supported yet", m.text),
        )
    }

    /// Errors on the first modifier nobody consumed.
    fn finish_mods(&self, m: &Mods) -> Result<(), PtxError> {
        if let Some((id, _)) = m.list.iter().find(|(_, used)| !*used) {
            return Err(self.err(
                id.loc,
                format!(
                    "instruction '{}' is not supported yet (modifier '.{}')",
                    m.text, id.name
                ),
            ));
        }
        Ok(())
    }

    /// Exactly one type modifier.
    fn one_type(&self, m: &mut Mods) -> Result<Type, PtxError> {
        let ts = m.types();
        match ts.as_slice() {
            [(t, _)] => {
                if unsupported_type(*t) {
                    return Err(self.unsupported(m));
                }
                Ok(*t)
            }
            [] => Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            [_, (_, l), ..] => {
                Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
        }
    }

    fn bad_type(&self, m: &Mods, t: Type) -> PtxError {
        self.err(m.loc, format!("type {t} is not valid for '{}'", m.text))
    }

    fn nops(&self, i: &Instruction, m: &Mods, n: usize) -> Result<(), PtxError> {
        if i.operands.len() != n {
            let loc = i.operands.get(n).map(|o| o.loc()).unwrap_or(m.loc);
            return Err(self.err(
                loc,
                format!(
                    "instruction '{}' takes {n} operands, not {}",
                    m.text,
                    i.operands.len()
                ),
            ));
        }
        Ok(())
    }

    /// Lowers one instruction into the current block.
    pub fn inst(&mut self, i: &Instruction) -> Result<(), PtxError> {
        // `(expr)` parses as a one-element call-style list; outside calls it is just a
        // parenthesized constant expression.
        let paren = |o: &ast::Operand| matches!(o, ast::Operand::List(v, _) if matches!(v.as_slice(), [ast::Operand::Value(_)]));
        let unparened;
        let i = if i.opcode.name != "call" && i.operands.iter().any(paren) {
            let mut c = i.clone();
            for o in c.operands.iter_mut() {
                if let ast::Operand::List(v, _) = o {
                    if let [ast::Operand::Value(e)] = v.as_mut_slice() {
                        let e = std::mem::replace(
                            e,
                            ast::Expr {
                                kind: ast::ExprKind::Num(ast::NumLit::Float(0.0)),
                                loc: e.loc,
                            },
                        );
                        *o = ast::Operand::Value(e);
                    }
                }
            }
            unparened = c;
            &unparened
        } else {
            i
        };
        let guard = match &i.guard {
            Some(g) => match self.sym_value(&g.pred.name, None, g.pred.loc)? {
                Val::Reg(r, 0) if self.reg_ty(r) == Type::Pred => Some(Guard {
                    pred: r,
                    negate: g.negate,
                }),
                _ => {
                    return Err(self.err(
                        g.pred.loc,
                        format!("'{}' is not a predicate register", g.pred.name),
                    ))
                }
            },
            None => None,
        };
        let mut m = Mods::new(i);
        let lowered = self.lower(i, &mut m)?;
        self.finish_mods(&m)?;
        let id = self.cx.inst_info(i.opcode.loc, m.text.clone(), self.id);
        match lowered {
            Lowered::Insts(ks) => {
                for k in ks {
                    self.push(guard, k, id);
                }
            }
            Lowered::Bra { target, uni } => match guard {
                Some(g) => self.terminate(|next| TTerm::Branch {
                    guard: g,
                    taken: Tgt::Label(target),
                    not_taken: next,
                    uni,
                    inst: id,
                }),
                None => self.terminate(|_| TTerm::Jump {
                    target: Tgt::Label(target),
                    inst: Some(id),
                }),
            },
            Lowered::Ret => self.terminate(|next| TTerm::Ret {
                guard,
                next: guard.map(|_| next),
                inst: id,
            }),
            Lowered::Exit => self.terminate(|next| TTerm::Exit {
                guard,
                next: guard.map(|_| next),
                inst: id,
            }),
            Lowered::CallIndirect { addr, targets, ops } => {
                for k in ops.pre {
                    self.push(guard, k, id);
                }
                self.terminate(|next| TTerm::CallIndirect {
                    guard,
                    addr,
                    targets,
                    args: ops.args,
                    rets: ops.rets,
                    next,
                    inst: id,
                });
                for k in ops.post {
                    self.push(guard, k, id);
                }
            }
            Lowered::Call { func, ops, uni } => {
                for k in ops.pre {
                    self.push(guard, k, id);
                }
                self.terminate(|next| TTerm::Call {
                    guard,
                    func,
                    args: ops.args,
                    rets: ops.rets,
                    next,
                    uni,
                    inst: id,
                });
                for k in ops.post {
                    self.push(guard, k, id);
                }
            }
            Lowered::Barrier {
                barrier,
                count,
                red,
            } => {
                self.terminate(|next| TTerm::Barrier {
                    guard,
                    barrier,
                    count,
                    red: red.map(|r| r.1),
                    next,
                    inst: id,
                });
                if let Some((op, _, dst)) = red {
                    let k = InstKind::BarRedResult { op, barrier, dst };
                    self.push(guard, k, id);
                }
            }
            Lowered::Brx {
                index,
                targets,
                uni,
            } => self.terminate(|next| TTerm::BrxIdx {
                guard,
                index,
                targets,
                uni,
                next,
                inst: id,
            }),
        }
        Ok(())
    }

    fn lower(&mut self, i: &Instruction, m: &mut Mods) -> Result<Lowered, PtxError> {
        let one = |k: InstKind| Ok(Lowered::Insts(vec![k]));
        if half::is_half_form(i) {
            return one(self.half_op(i, m)?);
        }
        match i.opcode.name.as_str() {
            "mov" => self.mov(i, m).map(Lowered::Insts),
            "add" | "sub" | "mad" if m.any(|x| x == "cc") => one(self.carry(i, m)?),
            "addc" | "subc" | "madc" => one(self.carry(i, m)?),
            "min" | "max" if m.any(minmax::is_ext_minmax_mod) => one(self.min_max_ext(i, m)?),
            "lop3" if m.any(|x| matches!(x, "and" | "or" | "xor")) => {
                self.lop3_pred(i, m).map(Lowered::Insts)
            }
            "copysign" => one(self.copysign(i, m)?),
            "testp" => one(self.testp(i, m)?),
            "add" | "sub" => one(self.add_sub(i, m)?),
            "mul" => one(self.mul_mad(i, m, false)?),
            "mad" => one(self.mul_mad(i, m, true)?),
            "fma" => one(self.fma(i, m)?),
            "div" => one(self.div(i, m)?),
            "rem" => one(self.rem(i, m)?),
            "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => {
                one(self.sfu_op(i, m)?)
            }
            "popc" | "clz" | "brev" | "bfind" | "bfe" | "bfi" | "prmt" | "lop3" | "shf"
            | "cnot" | "mul24" | "mad24" | "sad" | "dp4a" | "dp2a" | "fns" | "bmsk" | "szext" => {
                one(self.bits_op(i, m)?)
            }
            "neg" | "abs" => one(self.neg_abs(i, m)?),
            "min" | "max" => one(self.min_max(i, m)?),
            "and" | "or" | "xor" | "not" => one(self.logic(i, m)?),
            "shl" | "shr" => one(self.shift(i, m)?),
            "setp" => self.setp(i, m, false).map(Lowered::Insts),
            "set" => self.setp(i, m, true).map(Lowered::Insts),
            "selp" => one(self.selp(i, m)?),
            "ld" | "ldu" => self.ld(i, m).map(Lowered::Insts),
            "atom" | "red" => self.atom(i, m).map(Lowered::Insts),
            "st" => self.st(i, m).map(Lowered::Insts),
            "prefetch" | "prefetchu" => self.prefetch(i, m).map(Lowered::Insts),
            "isspacep" => one(self.isspacep(i, m)?),
            "cvta" => one(self.cvta(i, m)?),
            "cvt" => one(self.cvt(i, m)?),
            "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" => {
                one(self.warp_op(i, m)?)
            }
            "ldmatrix" | "movmatrix" | "mma" => one(self.matrix_op(i, m)?),
            "bar" if m.has("warp") => one(self.bar_warp_sync(i, m)?),
            "bar" | "barrier" => self.barrier_inst(i, m),
            "membar" | "fence" => self.fence_inst(i, m),
            "bra" => {
                let uni = m.has("uni");
                self.nops(i, m, 1)?;
                let target = match i.operands.first() {
                    Some(ast::Operand::Value(e)) => match &e.kind {
                        ast::ExprKind::Sym { name, comp: None } => match self.lookup(name) {
                            Some(super::func::Sym::Label(l)) => l,
                            Some(super::func::Sym::Reg(_)) => {
                                return Err(self.err(
                                    e.loc,
                                    "indirect bra through a register is not supported; use brx.idx",
                                ))
                            }
                            Some(_) => {
                                return Err(self.err(e.loc, format!("'{name}' is not a label")))
                            }
                            None => return Err(self.err(e.loc, format!("unknown label '{name}'"))),
                        },
                        _ => return Err(self.err(e.loc, "expected a label")),
                    },
                    Some(op) => return Err(self.err(op.loc(), "expected a label")),
                    None => return Err(self.err(m.loc, "expected a label")),
                };
                Ok(Lowered::Bra { target, uni })
            }
            "nanosleep" => one(self.nanosleep(i, m)?),
            "brx" => {
                let (index, targets, uni) = self.brx_idx(i, m)?;
                Ok(Lowered::Brx {
                    index,
                    targets,
                    uni,
                })
            }
            "ret" => {
                m.has("uni");
                self.nops(i, m, 0)?;
                Ok(Lowered::Ret)
            }
            "exit" => {
                self.nops(i, m, 0)?;
                Ok(Lowered::Exit)
            }
            "call" => self.call(i, m),
            _ => Err(self.unsupported(m)),
        }
    }

    // ----- mov ----------------------------------------------------------------------

    fn mov(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        if m.any(|x| x == "v4") {
            return self.mov_sreg_vector(i, m);
        }
        let ty = self.one_type(m)?;
        self.nops(i, m, 2)?;
        let (d, a) = (&i.operands[0], &i.operands[1]);
        if matches!(d, ast::Operand::Vector(..)) || matches!(a, ast::Operand::Vector(..)) {
            return self.mov_vector(i, m, ty);
        }
        let dst = self.dst(d, ty, Rule::Strict)?;
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
            _ => self.src(a, ty, Rule::Strict)?,
        };
        Ok(vec![InstKind::Mov { ty, dst, src }])
    }

    /// `mov.b64 d, {a, b}` (pack) and `mov.b64 {a, b}, s` (unpack), lowered to shifts,
    /// conversions and ors through temporary registers.
    fn mov_vector(
        &mut self,
        i: &Instruction,
        m: &Mods,
        ty: Type,
    ) -> Result<Vec<InstKind>, PtxError> {
        let (d, a) = (&i.operands[0], &i.operands[1]);
        let packing = matches!(a, ast::Operand::Vector(..));
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
            let dst = self.dst(d, ty, Rule::Strict)?;
            let acc = self.new_reg("%__pack".into(), tb, m.loc)?;
            let part = self.new_reg("%__pack".into(), tb, m.loc)?;
            for (k, el) in elems.iter().enumerate() {
                let src = match el {
                    super::operand::VecElem::Op(op) => self.src(op, wb, Rule::Strict)?,
                    super::operand::VecElem::Reg(r) => {
                        self.check_fit(*r, wb, Rule::Strict, d.loc())?;
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
            let src = self.src(a, ty, Rule::Strict)?;
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
                    super::operand::VecElem::Op(ast::Operand::Sink(_)) => continue,
                    super::operand::VecElem::Op(op) => self.dst(op, wb, Rule::Strict)?,
                    super::operand::VecElem::Reg(r) => {
                        self.check_fit(*r, wb, Rule::Strict, d.loc())?;
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

    // ----- arithmetic ---------------------------------------------------------------

    /// Float modifiers: rounding (from `allowed`), `.ftz` and `.sat` (f32 only).
    fn fmode(
        &self,
        m: &mut Mods,
        ty: Type,
        allowed: &[&str],
        sat_ok: bool,
    ) -> Result<FloatMode, PtxError> {
        let rnd = m.one_of(allowed).and_then(rnd_of);
        let ftz = m.has("ftz");
        let sat = sat_ok && m.has("sat");
        if ty == Type::F64 && (ftz || sat) {
            return Err(self.err(
                m.loc,
                format!("'.ftz' and '.sat' are only valid for .f32 in '{}'", m.text),
            ));
        }
        Ok(FloatMode { rnd, ftz, sat })
    }

    fn arith(
        &self,
        i: &Instruction,
        m: &Mods,
        op: ArithOp,
        ty: Type,
        dty: Type,
        fmode: FloatMode,
    ) -> Result<InstKind, PtxError> {
        let n = op.arity();
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], dty, Rule::Strict)?;
        let mut srcs = Vec::with_capacity(n);
        for (k, o) in i.operands[1..].iter().enumerate() {
            let t = if matches!(op, ArithOp::Shl | ArithOp::Shr) && k == 1 {
                Type::U32
            } else {
                ty
            };
            srcs.push(self.src(o, t, Rule::Strict)?);
        }
        Ok(InstKind::Arith {
            op,
            ty,
            fmode,
            dst,
            srcs,
        })
    }

    fn reject_mods(&self, m: &mut Mods, names: &[&str]) -> Result<(), PtxError> {
        if m.any(|x| names.contains(&x)) {
            return Err(self.unsupported(m));
        }
        Ok(())
    }

    fn add_sub(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["cc", "relu"])?;
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "add" {
            ArithOp::Add
        } else {
            ArithOp::Sub
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, FRND, true)?;
            return self.arith(i, m, op, ty, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if m.any(|x| x == "sat") {
            return self.add_sub_sat(i, m, ty, op == ArithOp::Add);
        }
        self.arith(i, m, op, ty, ty, FloatMode::default())
    }

    fn mul_mad(&mut self, i: &Instruction, m: &mut Mods, mad: bool) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["cc", "relu"])?;
        let ty = self.one_type(m)?;
        let mode = m.one_of(&["lo", "hi", "wide"]);
        if ty.is_float() {
            if mode.is_some() {
                return Err(self.err(
                    m.loc,
                    format!("'.lo/.hi/.wide' are not valid for floats in '{}'", m.text),
                ));
            }
            let fm = self.fmode(m, ty, FRND, true)?;
            if mad && fm.rnd.is_none() {
                return Err(self.err(
                    m.loc,
                    format!("rounding modifier required for '{}'", m.text),
                ));
            }
            let op = if mad {
                ArithOp::Mad(MulMode::Lo)
            } else {
                ArithOp::Mul(MulMode::Lo)
            };
            return self.arith(i, m, op, ty, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if m.any(|x| x == "sat") {
            return Err(self.unsupported(m));
        }
        let mode = match mode {
            Some("lo") => MulMode::Lo,
            Some("hi") => MulMode::Hi,
            Some(_) => MulMode::Wide,
            None => {
                return Err(self.err(m.loc, format!("'{}' needs '.lo', '.hi' or '.wide'", m.text)))
            }
        };
        let dty = if mode == MulMode::Wide {
            match ty.widened() {
                Some(w) if ty.bits() <= 32 => w,
                _ => return Err(self.bad_type(m, ty)),
            }
        } else {
            ty
        };
        let op = if mad {
            ArithOp::Mad(mode)
        } else {
            ArithOp::Mul(mode)
        };
        // mad.wide: the addend has the wide type.
        if mad && mode == MulMode::Wide {
            self.nops(i, m, 4)?;
            let dst = self.dst(&i.operands[0], dty, Rule::Strict)?;
            let a = self.src(&i.operands[1], ty, Rule::Strict)?;
            let b = self.src(&i.operands[2], ty, Rule::Strict)?;
            let c = self.src(&i.operands[3], dty, Rule::Strict)?;
            return Ok(InstKind::Arith {
                op,
                ty,
                fmode: FloatMode::default(),
                dst,
                srcs: vec![a, b, c],
            });
        }
        self.arith(i, m, op, ty, dty, FloatMode::default())
    }

    fn fma(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["relu", "oob"])?;
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let fm = self.fmode(m, ty, FRND, true)?;
        if fm.rnd.is_none() {
            return Err(self.err(
                m.loc,
                format!("rounding modifier required for '{}'", m.text),
            ));
        }
        self.arith(i, m, ArithOp::Fma, ty, ty, fm)
    }

    fn div(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty.is_int() {
            // Integer division truncates toward zero; division by zero (unspecified by
            // PTX) gives all ones (see `ops`).
            if ty.bits() < 16 {
                return Err(self.bad_type(m, ty));
            }
            return self.arith(
                i,
                m,
                ArithOp::Div(DivMode::Ieee),
                ty,
                ty,
                FloatMode::default(),
            );
        }
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let flavour = m.one_of(&["approx", "full"]);
        let fm = self.fmode(m, ty, FRND, false)?;
        let mode = match (flavour, fm.rnd) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'{}' has both a rounding and an approximation modifier",
                        m.text
                    ),
                ))
            }
            (Some(_), None) if ty == Type::F64 => return Err(self.bad_type(m, ty)),
            (Some("approx"), None) => DivMode::Approx,
            (Some(_), None) => DivMode::Full,
            (None, Some(_)) => DivMode::Ieee,
            (None, None) => {
                return Err(self.err(
                    m.loc,
                    format!("rounding modifier required for '{}'", m.text),
                ));
            }
        };
        self.arith(i, m, ArithOp::Div(mode), ty, ty, fm)
    }

    fn neg_abs(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["relu"])?;
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "neg" {
            ArithOp::Neg
        } else {
            ArithOp::Abs
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, &[], false)?;
            return self.arith(i, m, op, ty, ty, fm);
        }
        if !ty.is_signed() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, op, ty, ty, FloatMode::default())
    }

    fn min_max(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["NaN", "xorsign", "abs", "relu"])?;
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "min" {
            ArithOp::Min
        } else {
            ArithOp::Max
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, &[], false)?;
            return self.arith(i, m, op, ty, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, op, ty, ty, FloatMode::default())
    }

    fn logic(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty.is_float() || (ty != Type::Pred && ty.bits() < 16) {
            return Err(self.bad_type(m, ty));
        }
        let op = match i.opcode.name.as_str() {
            "and" => ArithOp::And,
            "or" => ArithOp::Or,
            "xor" => ArithOp::Xor,
            _ => ArithOp::Not,
        };
        self.arith(i, m, op, ty, ty, FloatMode::default())
    }

    fn shift(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty.is_float() || ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        let op = if i.opcode.name == "shl" {
            ArithOp::Shl
        } else {
            ArithOp::Shr
        };
        self.arith(i, m, op, ty, ty, FloatMode::default())
    }

    // ----- comparison and selection ---------------------------------------------------

    /// `setp`, or `set` (`set == true`: a destination type before the source type).
    fn setp(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        set: bool,
    ) -> Result<Vec<InstKind>, PtxError> {
        const CMPS: &[&str] = &[
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
            "gtu", "geu", "num", "nan",
        ];
        let Some(cmp_name) = m.one_of(CMPS) else {
            return Err(self.err(m.loc, format!("'{}' needs a comparison operator", m.text)));
        };
        let bool_op = m.one_of(&["and", "or", "xor"]).map(|b| match b {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            _ => BoolOp::Xor,
        });
        let ftz = m.has("ftz");
        let (dty, mut ty) = self.compare_types(m, set)?;
        if ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if ftz && (!matches!(ty, Type::F32 | Type::F16 | Type::F16x2) || dty == Some(Type::BF16)) {
            return Err(self.err(
                m.loc,
                format!(
                    "'.ftz' is only valid for .f32, .f16 and .f16x2 sources and non-bf16 destinations in '{}'",
                    m.text
                ),
            ));
        }
        let cmp = match cmp_name {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" | "lo" => CmpOp::Lt,
            "le" | "ls" => CmpOp::Le,
            "gt" | "hi" => CmpOp::Gt,
            "ge" | "hs" => CmpOp::Ge,
            "equ" => CmpOp::Equ,
            "neu" => CmpOp::Neu,
            "ltu" => CmpOp::Ltu,
            "leu" => CmpOp::Leu,
            "gtu" => CmpOp::Gtu,
            "geu" => CmpOp::Geu,
            "num" => CmpOp::Num,
            _ => CmpOp::Nan,
        };
        let invalid = || {
            self.err(
                m.loc,
                format!(
                    "comparison '.{cmp_name}' is not valid for type {ty} in '{}'",
                    m.text
                ),
            )
        };
        if ty.is_bits() {
            if !matches!(cmp, CmpOp::Eq | CmpOp::Ne) {
                return Err(invalid());
            }
        } else if ty.is_int() {
            let unsigned_only = matches!(cmp_name, "lo" | "ls" | "hi" | "hs");
            if (unsigned_only && !ty.is_unsigned())
                || !matches!(
                    cmp,
                    CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
                )
            {
                return Err(invalid());
            }
        } else if matches!(cmp_name, "lo" | "ls" | "hi" | "hs") {
            return Err(invalid());
        }
        let want = if bool_op.is_some() { 4 } else { 3 };
        self.nops(i, m, want)?;
        let (dst, dst_neg) = match (&i.operands[0], dty) {
            (op, Some(_)) => (None, self.compare_dst(op, dty)?),
            (ast::Operand::Pair(p, q), None) => (self.pred_dst(p)?, self.pred_dst(q)?),
            (op, None) => (self.pred_dst(op)?, None),
        };
        let a = self.src(&i.operands[1], ty, Rule::Strict)?;
        let b = self.src(&i.operands[2], ty, Rule::Strict)?;
        let combine = match bool_op {
            Some(bo) => Some((bo, self.pred_src(&i.operands[3])?)),
            None => None,
        };
        if ty.is_bits() {
            // Bit-size equality is the unsigned comparison of the same width.
            ty = ty.to_unsigned();
        }
        if matches!(ty, Type::F16x2 | Type::BF16x2) {
            if let (Some(dty), Some(dst)) = (dty, dst_neg) {
                return self.set_packed(cmp, dty, ty, ftz, dst, a, b, combine, m.loc);
            }
            return Ok(vec![InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo: dst,
                dst_hi: dst_neg,
                a,
                b,
                combine,
            }]);
        }
        if let (Some(dty), Some(dst)) = (dty, dst_neg) {
            return Ok(vec![InstKind::Set {
                cmp,
                dty,
                ty,
                ftz,
                dst,
                a,
                b,
                combine,
            }]);
        }
        Ok(vec![InstKind::Setp {
            cmp,
            ty,
            ftz,
            dst,
            dst_neg,
            a,
            b,
            combine,
        }])
    }

    fn selp(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty == Type::Pred || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 4)?;
        let dst = self.dst(&i.operands[0], ty, Rule::Strict)?;
        let a = self.src(&i.operands[1], ty, Rule::Strict)?;
        let b = self.src(&i.operands[2], ty, Rule::Strict)?;
        let cond = self.pred_src(&i.operands[3])?;
        Ok(InstKind::Selp {
            ty,
            dst,
            a,
            b,
            cond,
        })
    }

    // ----- barriers -----------------------------------------------------------------
}
