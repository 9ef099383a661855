//! Instruction lowering: AST instruction -> [`InstKind`] or block terminator.
//!
//! Executed instructions are lowered completely; every other instruction (and every
//! unimplemented variant of a known one) is a located "not supported yet" error.

mod asyncop;
mod atomic;
mod b128;
mod bulk;
mod cache;
mod carry;
mod cluster;
mod compare;
mod control;
mod convert;
mod data;
mod feature_req;
mod fence_proxy;
mod float;
mod half;
mod int;
mod logic;
mod matrix;
mod matrix_wgmma;
mod matrix_wmma;
mod mem;
mod minmax3;
mod reg_plus;
mod stack;
mod sync;
mod tensor;
mod texquery;
mod texture;
mod video;
mod warp;

use super::func::{Fx, TTerm, Tgt};
use super::operand::Val;
use crate::ir::Fit;
use crate::ir::{ArithOp, FloatMode, Guard, InstId, InstKind, Loc, Operand, Rnd, Type};
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

    /// Takes modifier `name`. ptxas 12.9 accepts a repeat of the flag modifiers `.sync`,
    /// `.sat`, `.approx`, `.cc`, `.uni` and `.shiftamt` (`shfl.sync.bfly.b32.sync`,
    /// `mad.lo.cc.cc.u32`, `bra.uni.uni`), which mean what one does, so those take every
    /// occurrence; other repeated modifiers stay and are rejected as unused, as ptxas
    /// rejects them ("Duplicate .ftz modifier", "Duplicate .volatile modifier", "Multiple
    /// rounding modifiers specified", "Multiple .noComplete modifiers specified").
    pub fn has(&mut self, name: &str) -> bool {
        let found = self.take_if(|m| m == name).is_some();
        if found && matches!(name, "sync" | "sat" | "approx" | "cc" | "uni" | "shiftamt") {
            while self.take_if(|m| m == name).is_some() {}
        }
        found
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

    /// `.bf16`/`.bf16x2` instruction types need `.target sm_80` or higher (ptxas 12.9:
    /// "Feature '.bf16x2' requires .target sm_80 or higher"; some instructions need more).
    fn bf16_target(&self, i: &Instruction) -> Result<(), PtxError> {
        let sm = self.cx.m.target.iter().find_map(|t| {
            let d = t.strip_prefix("sm_")?;
            let n = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
            d[..n].parse::<u32>().ok()
        });
        let Some(sm) = sm.filter(|&sm| sm < 80) else {
            return Ok(());
        };
        match i
            .mods
            .iter()
            .find(|m| matches!(m.name.as_str(), "bf16" | "bf16x2"))
        {
            Some(m) => Err(self.err(
                m.loc,
                format!(
                    ".{} requires .target sm_80 or higher (this module targets sm_{sm})",
                    m.name
                ),
            )),
            None => Ok(()),
        }
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
        let plus;
        let i = match self.rewrite_reg_plus(i)? {
            Some(p) => {
                plus = p;
                &plus
            }
            None => i,
        };
        let wide;
        let text = i.text();
        let i = match self.rewrite_b128(i)? {
            Some(w) => {
                wide = w;
                &wide
            }
            None => i,
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
        m.text = text;
        self.bf16_target(i)?;
        self.feature_reqs(i)?;
        let lowered = self.lower(i, &mut m)?;
        self.finish_mods(&m)?;
        let id = self.cx.inst_info(i.opcode.loc, m.text.clone(), self.id);
        for k in std::mem::take(&mut self.pre) {
            self.push(guard, k, id);
        }
        self.emit_lowered(lowered, guard, id);
        Ok(())
    }

    /// Appends what [`Self::lower`] made of an instruction to the current block:
    /// instructions (each under the instruction's guard) or a terminator that ends it.
    fn emit_lowered(&mut self, lowered: Lowered, guard: Option<Guard>, id: InstId) {
        match lowered {
            Lowered::Insts(ks) => {
                for k in ks {
                    self.push(guard, k, id);
                }
                if let Some(k) = self.b128_fill() {
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
    }

    fn lower(&mut self, i: &Instruction, m: &mut Mods) -> Result<Lowered, PtxError> {
        let one = |k: InstKind| Ok(Lowered::Insts(vec![k]));
        if half::is_half_form(i) {
            return one(self.half_op(i, m)?);
        }
        match i.opcode.name.as_str() {
            "mov" if m.any(|x| x == "b128") => self.mov_b128(i, m).map(Lowered::Insts),
            "atom" | "red" if m.any(|x| x == "b128") => self.atom_b128(i, m).map(Lowered::Insts),
            "st" | "red" if m.any(|x| x == "async") => self.st_red_async(i, m).map(Lowered::Insts),
            "multimem" => self.multimem(i, m).map(Lowered::Insts),
            "mov" => self.mov(i, m).map(Lowered::Insts),
            "add" | "sub" | "mad" if m.any(|x| x == "cc") => one(self.carry(i, m)?),
            "addc" | "subc" | "madc" => one(self.carry(i, m)?),
            "min" | "max" if i.operands.len() == 4 => self.min_max3(i, m).map(Lowered::Insts),
            "min" | "max" if m.any(float::is_ext_minmax_mod) => one(self.min_max_ext(i, m)?),
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
            name if int::BIT_OPCODES.contains(&name) => one(self.bits_op(i, m)?),
            "neg" | "abs" => one(self.neg_abs(i, m)?),
            "min" | "max" => one(self.min_max(i, m)?),
            "and" | "or" | "xor" | "not" => one(self.logic(i, m)?),
            "shl" | "shr" => one(self.shift(i, m)?),
            "setp" => self.setp(i, m, false).map(Lowered::Insts),
            "set" => self.setp(i, m, true).map(Lowered::Insts),
            "selp" => one(self.selp(i, m)?),
            "slct" => self.slct(i, m).map(Lowered::Insts),
            op if cache::CACHE_OPCODES.contains(&op) => self.cache_inst(i, m),
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
            "ldmatrix" | "stmatrix" | "movmatrix" | "mma" | "wmma" => one(self.matrix_op(i, m)?),
            "wgmma" => self.wgmma(i, m).map(Lowered::Insts),
            "bar" if m.has("warp") => one(self.bar_warp_sync(i, m)?),
            "barrier" if m.any(|x| x == "cluster") => self.barrier_cluster(i, m),
            "mapa" | "getctarank" => one(self.mapa_getctarank(i, m)?),
            "bar" | "barrier" => self.barrier_inst(i, m),
            "membar" | "fence" => self.fence_inst(i, m),
            "cp" => self.cp_async(i, m).map(Lowered::Insts),
            "mbarrier" => self.mbarrier(i, m).map(Lowered::Insts),
            "tensormap" => self.tensormap_replace(i, m).map(Lowered::Insts),
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
            "tex" | "tld4" | "suld" | "sust" | "sured" => one(self.texture_op(i, m)?),
            "txq" | "suq" => one(self.tex_query(i, m)?),
            op if video::VIDEO_OPCODES.contains(&op) => one(self.video(i, m)?),
            "alloca" | "stacksave" | "stackrestore" => one(self.stack_op(i, m)?),
            "trap" | "brkpt" => {
                self.nops(i, m, 0)?;
                let op = if i.opcode.name == "trap" {
                    crate::ir::Builtin::Trap
                } else {
                    crate::ir::Builtin::Brkpt
                };
                one(InstKind::Builtin {
                    op,
                    args: vec![],
                    dst: None,
                })
            }
            "pmevent" => {
                // Performance-monitor events: nothing to count on a CPU, a no-op (as the
                // GPU's result is unaffected). The operand is an event number (0-15) or,
                // with `.mask`, a 16-bit event mask; both are immediates.
                let mask = m.has("mask");
                self.nops(i, m, 1)?;
                let limit = if mask { 0xffff } else { 15 };
                match self.src(&i.operands[0], Type::U32, Fit::Relaxed)? {
                    Operand::Imm(v) if v <= limit => Ok(Lowered::Insts(vec![])),
                    _ => Err(self.err(
                        m.loc,
                        format!("'{}' takes an immediate event number up to {limit}", m.text),
                    )),
                }
            }
            _ => Err(self.unsupported(m)),
        }
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
        fmode: FloatMode,
    ) -> Result<InstKind, PtxError> {
        let n = op.arity();
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], op.dst_type(ty), Fit::Strict)?;
        let mut srcs = Vec::with_capacity(n);
        for (k, o) in i.operands[1..].iter().enumerate() {
            srcs.push(self.src(o, op.src_type(ty, k), Fit::Strict)?);
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
}
