//! The memory family: `ld`, `ldu`, `st` (their qualifiers: `check/memqual.rs`), `cvta`,
//! `isspacep`, and `prefetch`/`prefetchu` (cache hints: they lower to nothing, so they
//! never fault, whatever the address).

use super::Mods;
use crate::check::func::Fx;
use crate::check::memqual::{MemOp, MemQuals, Sem};
use crate::check::operand::{Val, VecElem};
use crate::ir::Fit;
use crate::ir::{AddrBase, Address, AsyncOp, InstKind, Operand, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// The state-space modifiers of memory instructions (absent: generic addressing).
pub(super) const STATE_SPACES: &[&str] = &[
    "global",
    "shared",
    "shared::cta",
    "shared::cluster",
    "local",
    "const",
    "param",
    "param::entry",
    "param::func",
];

impl Fx<'_, '_> {
    /// The state-space modifier (`Generic` when absent).
    pub(super) fn space_mod(&self, m: &mut Mods, required: bool) -> Result<Space, PtxError> {
        let s = m.one_of(STATE_SPACES);
        Ok(match s {
            None if required => {
                return Err(self.err(m.loc, format!("'{}' needs a state space", m.text)))
            }
            None => Space::Generic,
            Some("global") => Space::Global,
            Some("shared") | Some("shared::cta") => Space::Shared,
            Some("local") => Space::Local,
            Some("const") => Space::Const,
            Some("shared::cluster") => Space::SharedCluster,
            Some(_) => Space::Param,
        })
    }

    pub(super) fn vec_mod(&self, m: &mut Mods) -> Option<usize> {
        m.one_of(&["v2", "v4", "v8"]).map(|v| match v {
            "v2" => 2,
            "v4" => 4,
            _ => 8,
        })
    }

    /// `[reg+off]`, `[var+off]` or `[imm]` in state space `space`.
    pub(super) fn address(&self, op: &ast::Operand, space: Space) -> Result<Address, PtxError> {
        let ast::Operand::Bracket(items, loc) = op else {
            return Err(self.err(op.loc(), "expected an address '[...]'"));
        };
        let [ast::Operand::Value(e)] = items.as_slice() else {
            return Err(self.err(*loc, "expected a single address expression in '[...]'"));
        };
        match self.value(e)? {
            Val::Reg(r, offset) => {
                let t = self.reg_ty(r);
                if t == Type::Pred || t.is_float() || !(t.bits() == 32 || t.bits() == 64) {
                    return Err(self.err(e.loc, format!("address register '{}' has type {t}; it must be a 32- or 64-bit integer", self.reg_name(r))));
                }
                // ptxas: "32-Bit compilation is no longer supported" for a 32-bit
                // generic or global address in a 64-bit module (`.shared`, `.local`,
                // `.const` and `.param` addresses may be 32-bit).
                let wide = matches!(space, Space::Generic | Space::Global);
                if t.bits() == 32 && wide && self.cx.m.address_size == 64 {
                    return Err(self.err(e.loc, format!("address register '{}' is 32-bit: a generic or .global address needs a 64-bit register under .address_size 64", self.reg_name(r))));
                }
                Ok(Address {
                    base: AddrBase::Reg(r),
                    offset,
                })
            }
            Val::Var(v, offset, name) => {
                // A `.shared` variable's address is a `.shared::cluster` address too.
                let cluster = space == Space::SharedCluster && v.space == Space::Shared;
                // A generic access may name only a variable of the `.global`, `.shared`
                // or `.local` window: ptxas 12.9 rejects `ld.u32 %r, [kernel_param]` and
                // `ld`/`st`/`atom`/`prefetch` naming a `.const` variable ("State space
                // mismatch between instruction and address"); `cvta.const` gives a
                // `.const` variable's generic address.
                if space == Space::Generic && matches!(v.space, Space::Param | Space::Const) {
                    let s = v.space.name();
                    return Err(self.err(
                        e.loc,
                        format!("state space mismatch: '{name}' is a .{s} variable, which only '.{s}' accesses can name"),
                    ));
                }
                if space != Space::Generic && v.space != space && !cluster {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "variable '{name}' is in the .{} state space, not .{}",
                            v.space.name(),
                            space.name()
                        ),
                    ));
                }
                Ok(Address {
                    base: AddrBase::Var(v.vref),
                    offset,
                })
            }
            // ptxas: "Immediate addresses allowed only for .local state space".
            Val::Const(_) if space != Space::Local => Err(self.err(
                e.loc,
                format!(
                    "an immediate address is allowed only in the .local state space, not .{}",
                    space.name()
                ),
            )),
            Val::Const(c) => match c.as_i64() {
                Some(offset) => Ok(Address {
                    base: AddrBase::Abs,
                    offset,
                }),
                None => Err(self.err(e.loc, "an absolute address must be an integer")),
            },
            _ => Err(self.err(e.loc, "expected a register, variable or integer address")),
        }
    }

    /// The optional `.L2::cache_hint` policy operand (a 64-bit register), ignored.
    pub(super) fn cache_hint(
        &self,
        i: &Instruction,
        m: &Mods,
        hint: bool,
        base: usize,
    ) -> Result<(), PtxError> {
        self.nops_range(i, m, base + hint as usize)?;
        if hint {
            if let Some(op) = i.operands.get(base) {
                self.src(op, Type::B64, Fit::Strict)?;
            }
        }
        Ok(())
    }

    pub(super) fn nops_range(&self, i: &Instruction, m: &Mods, n: usize) -> Result<(), PtxError> {
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

    fn mem_type(&self, m: &mut Mods) -> Result<Type, PtxError> {
        let ts = m.types();
        match ts.as_slice() {
            [(Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 | Type::B128, _)] => {
                Err(self.unsupported(m))
            }
            [(Type::Pred, _)] => {
                Err(self.err(m.loc, format!("type .pred is not valid for '{}'", m.text)))
            }
            [(t, _)] => Ok(*t),
            [] => Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            [_, (_, l), ..] => {
                Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
        }
    }

    /// Checks the size of a `.vN` access: up to 128 bits anywhere; 256 bits (`.v8` of
    /// 32-bit or `.v4` of 64-bit elements, sm_100) only in global memory, not `ldu`;
    /// `.L2::evict_*` only with 256 bits.
    fn vec_size(
        &self,
        m: &Mods,
        q: MemQuals,
        n: usize,
        ty: Type,
        space: Space,
        ldu: bool,
    ) -> Result<(), PtxError> {
        let bits = n as u32 * ty.bits();
        if let Some(e) = q.l2_evict {
            if bits != 256 {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'.{e}' needs a 256-bit access (.v8.b32 or .v4.b64) in '{}'",
                        m.text
                    ),
                ));
            }
        }
        if n == 1 || bits <= 128 && !(ldu && n == 8) {
            return Ok(());
        }
        if bits == 256 && !ldu && matches!(space, Space::Global | Space::Generic) {
            return Ok(());
        }
        Err(self.err(
            m.loc,
            if bits == 256 && !ldu {
                format!(
                    "a 256-bit vector access needs the .global state space or generic addressing ('{}')",
                    m.text
                )
            } else {
                format!("vector of {n} x {} bits is too large for '{}'", ty.bits(), m.text)
            },
        ))
    }

    /// The order points around a strong access (see `memqual.rs`): `(before, after)`.
    fn order_points(sem: Sem, space: Space) -> (bool, bool) {
        if !sem.strong() || !matches!(space, Space::Global | Space::Generic) {
            return (false, false);
        }
        (sem == Sem::Release, true)
    }

    pub(super) fn ld(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        if m.any(|x| x == "async" || x == "unified" || x == "bulk") {
            return Err(self.unsupported(m));
        }
        let hint = m.has("L2::cache_hint");
        let space = self.space_mod(m, false)?;
        let ldu = i.opcode.name == "ldu";
        if ldu && !matches!(space, Space::Global | Space::Generic) {
            return Err(self.err(
                m.loc,
                format!("'{}' is only valid for global memory", m.text),
            ));
        }
        if ldu && hint {
            return Err(self.err(
                m.loc,
                format!(
                    "'.L2::cache_hint' is not a qualifier of 'ldu' in '{}'",
                    m.text
                ),
            ));
        }
        let q = self.mem_quals(m, if ldu { MemOp::Ldu } else { MemOp::Ld }, space)?;
        let sem = q.sem;
        let vec = self.vec_mod(m);
        let ty = self.mem_type(m)?;
        self.vec_size(m, q, vec.unwrap_or(1), ty, space, ldu)?;
        self.cache_hint(i, m, hint, 2)?;
        let d = &i.operands[0];
        let ty = match vec {
            Some(_) => self.vec_reg_ty(d, ty),
            None => ty,
        };
        let dsts = match vec {
            Some(n) => self.vector_dsts(d, &vec![ty; n], Fit::Relaxed, |found| {
                format!("'{}' needs a vector of {n} registers, not {found}", m.text)
            })?,
            None => vec![Some(self.dst(d, ty, Fit::Relaxed)?)],
        };
        let addr = self.address(&i.operands[1], space)?;
        let (_, after) = Self::order_points(sem, space);
        let space = param_space(space, &addr);
        let mut out = vec![InstKind::Ld {
            space,
            ty,
            dsts,
            addr,
        }];
        if after {
            out.push(InstKind::OrderPoint);
        }
        Ok(out)
    }

    /// The type a vector `ld`/`st` operand's registers are checked against. ptxas 12.9
    /// lets a `.f32`/`.f64` vector consist of integer registers of exactly that size, all
    /// of one type (`st.global.v4.f32 [a], {%r0, %r1, %r2, %r3}` with `.s32` registers);
    /// it rejects the scalar form, wider or narrower registers ("Arguments mismatch for
    /// instruction 'st'") and mixed ones ("Vector with elements of different types are
    /// not allowed"). The bits move unchanged, so such an access is checked and run as
    /// `.bN`.
    fn vec_reg_ty(&self, op: &ast::Operand, ty: Type) -> Type {
        let bit_ty = match ty {
            Type::F32 => Type::B32,
            Type::F64 => Type::B64,
            _ => return ty,
        };
        let Ok(elems) = self.vector_elems(op) else {
            return ty;
        };
        let reg_ty = |el: &VecElem| match el {
            VecElem::Reg(r) => Some(self.reg_ty(*r)),
            VecElem::Op(ast::Operand::Value(e)) => match self.value(e) {
                Ok(Val::Reg(r, 0)) => Some(self.reg_ty(r)),
                _ => None,
            },
            VecElem::Op(_) => None,
        };
        let tys: Vec<_> = elems.iter().map(reg_ty).collect();
        match tys.first() {
            Some(Some(t))
                if t.is_int() && t.bits() == ty.bits() && tys.iter().all(|x| *x == Some(*t)) =>
            {
                bit_ty
            }
            _ => ty,
        }
    }

    pub(super) fn st(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        if m.any(|x| x == "async" || x == "bulk") {
            return Err(self.unsupported(m));
        }
        let hint = m.has("L2::cache_hint");
        let space = self.space_mod(m, false)?;
        if space == Space::Const {
            // The constant bank is read-only to kernels (ptxas 12.9: "State space incorrect
            // for instruction 'st'").
            return Err(self.err(
                m.loc,
                format!("'{}' cannot write the .const state space", m.text),
            ));
        }
        let q = self.mem_quals(m, MemOp::St, space)?;
        let sem = q.sem;
        let vec = self.vec_mod(m);
        let ty = self.mem_type(m)?;
        self.vec_size(m, q, vec.unwrap_or(1), ty, space, false)?;
        let (before, after) = Self::order_points(sem, space);
        self.cache_hint(i, m, hint, 2)?;
        let addr = self.address(&i.operands[0], space)?;
        let space = param_space(space, &addr);
        let s = &i.operands[1];
        let ty = match vec {
            Some(_) => self.vec_reg_ty(s, ty),
            None => ty,
        };
        let srcs = match vec {
            Some(n) => self.vector_srcs(s, &vec![ty; n], Fit::Relaxed, |found| {
                format!("'{}' needs a vector of {n} values, not {found}", m.text)
            })?,
            None => vec![self.src(s, ty, Fit::Relaxed)?],
        };
        let mut out = Vec::with_capacity(3);
        if before {
            out.push(InstKind::OrderPoint);
        }
        out.push(InstKind::St {
            space,
            ty,
            srcs,
            addr,
        });
        if after {
            out.push(InstKind::OrderPoint);
        }
        Ok(out)
    }

    pub(super) fn cvta(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        // `cvta.to.space`: ptxas rejects `.to` after the state space ("Unknown modifier").
        let pos = |n: &str| i.mods.iter().position(|x| x.name == n);
        if let (Some(t), Some(sp)) = (
            pos("to"),
            i.mods.iter().position(|x| {
                matches!(
                    x.name.as_str(),
                    "global"
                        | "shared"
                        | "shared::cta"
                        | "shared::cluster"
                        | "local"
                        | "const"
                        | "param"
                )
            }),
        ) {
            if t > sp {
                return Err(self.err(
                    i.mods[t].loc,
                    format!("'.to' must come before the state space in '{}'", m.text),
                ));
            }
        }
        let to = m.has("to");
        let space = self.space_mod(m, true)?;
        if space == Space::SharedCluster {
            return self.cvta_cluster(i, m, to);
        }
        let ty = self.mem_type(m)?;
        if !matches!(ty, Type::U32 | Type::U64) {
            return Err(self.err(
                m.loc,
                format!("type {ty} is not valid for '{}' (use .u32 or .u64)", m.text),
            ));
        }
        let reg_src = matches!(i.operands.get(1), Some(ast::Operand::Value(e))
            if matches!(self.value(e), Ok(Val::Reg(..))));
        if to && space == Space::Shared && ty == Type::U64 && self.cx.remote_shared && reg_src {
            // A generic address of another CTA's window (from `mapa`) converts to that
            // window's `.shared::cluster` address, as on a GPU (`Cx::remote_shared`).
            self.nops(i, m, 2)?;
            let a = self.cluster_addr(&i.operands[1], Space::Generic, m)?;
            let d = self.dst(&i.operands[0], ty, Fit::Strict)?;
            return Ok(InstKind::Async {
                op: AsyncOp::ClusterCvta {
                    to_generic: false,
                    wide: true,
                },
                dsts: vec![Some(d)],
                addrs: vec![(Space::Generic, a)],
                srcs: vec![],
            });
        }
        self.nops_range(i, m, 2)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        let a = &i.operands[1];
        let src = match a {
            ast::Operand::Value(e) => match self.value(e)? {
                Val::Var(v, off, name) => {
                    if to || v.space != space || v.call_param {
                        return Err(self.err(
                            e.loc,
                            format!("'{}' cannot take the address of variable '{name}'", m.text),
                        ));
                    }
                    Operand::VarAddr(v.vref, off)
                }
                _ => self.src(a, ty, Fit::Strict)?,
            },
            _ => self.src(a, ty, Fit::Strict)?,
        };
        Ok(InstKind::Cvta {
            to_generic: !to,
            space,
            ty,
            dst,
            src,
        })
    }
}

/// `.param` variables of a `.func` and call-site `.param` variables live in the `.local`
/// frame (see `ir::Terminator::Call`): an `ld.param`/`st.param` through one is a local
/// access.
fn param_space(space: Space, addr: &Address) -> Space {
    match (space, addr.base) {
        (Space::Param, AddrBase::Var(crate::ir::VarRef::Local(_))) => Space::Local,
        _ => space,
    }
}

impl Fx<'_, '_> {
    /// `prefetch{.global,.local}.{L1,L2} [a]`, `prefetch{.global}.L2::evict_{last,normal}
    /// [a]`, `prefetch{.const,.param}.tensormap [a]`, `prefetchu.L1 [a]`.
    pub(super) fn prefetch(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let bad = |m: &Mods, what: &str| Err(self.err(m.loc, format!("{what} in '{}'", m.text)));
        let space = if i.opcode.name == "prefetchu" {
            if !m.has("L1") {
                return bad(m, "'prefetchu' needs '.L1' and no state space");
            }
            Space::Generic
        } else {
            let space = match m.one_of(&["global", "local", "const", "param", "param::entry"]) {
                None => Space::Generic,
                Some("global") => Space::Global,
                Some("local") => Space::Local,
                Some("const") => Space::Const,
                Some(_) => Space::Param,
            };
            let tensormap = m.has("tensormap");
            let level = m.one_of(&["L1", "L2", "L2::evict_last", "L2::evict_normal"]);
            match (tensormap, level) {
                (true, None) => {
                    if matches!(space, Space::Global | Space::Local) {
                        return bad(m, "'.tensormap' needs .const, .param or generic addressing");
                    }
                }
                (false, Some("L1" | "L2")) => {
                    if matches!(space, Space::Const | Space::Param) {
                        return bad(m, "'prefetch' needs .global, .local or generic addressing");
                    }
                }
                (false, Some(_)) => {
                    if !matches!(space, Space::Global | Space::Generic) {
                        return bad(
                            m,
                            "an eviction priority needs .global or generic addressing",
                        );
                    }
                }
                (true, Some(_)) => return bad(m, "'.tensormap' takes no cache level"),
                (false, None) => return bad(m, "'prefetch' needs a cache level (.L1 or .L2)"),
            }
            space
        };
        self.nops(i, m, 1)?;
        // Checked like any address, then dropped: a prefetch has no effect on a CPU.
        self.address(&i.operands[0], space)?;
        Ok(Vec::new())
    }

    /// `isspacep.space p, a`.
    pub(super) fn isspacep(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let space = match m.one_of(&[
            "global",
            "shared",
            "shared::cta",
            "shared::cluster",
            "local",
            "const",
            "param",
            "param::entry",
        ]) {
            None => {
                return Err(self.err(m.loc, format!("'{}' needs a state space", m.text)));
            }
            Some("global") => Space::Global,
            Some("local") => Space::Local,
            Some("const") => Space::Const,
            Some("shared::cluster") => Space::SharedCluster,
            Some(s) if s.starts_with("shared") => Space::Shared,
            Some(_) => Space::Param,
        };
        self.nops(i, m, 2)?;
        let dst = self.dst(&i.operands[0], Type::Pred, Fit::Strict)?;
        let a = &i.operands[1];
        let ast::Operand::Value(e) = a else {
            return Err(self.err(a.loc(), "expected an address register"));
        };
        let (src, offset) = match self.value(e)? {
            Val::Reg(r, off) => {
                let t = self.reg_ty(r);
                if t == Type::Pred || t.is_float() || !(t.bits() == 32 || t.bits() == 64) {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "the address of '{}' must be a .u32 or .u64 register, not {t}",
                            m.text
                        ),
                    ));
                }
                (Operand::Reg(r), off)
            }
            Val::Const(c) => match c.as_i64() {
                Some(v) => (Operand::Imm(v as u64), 0),
                None => return Err(self.err(e.loc, "an address must be an integer")),
            },
            _ => {
                return Err(self.err(
                    e.loc,
                    format!("'{}' takes a register or an integer address", m.text),
                ))
            }
        };
        Ok(InstKind::Isspacep {
            space,
            dst,
            src,
            offset,
        })
    }
}
