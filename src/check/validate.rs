//! An independent checker of the IR invariants that `check` promises (see `crate::ir`).
//! [`super::parse_and_check`] runs it on every module it returns, so a module that
//! passes `check` is one the backends can run; tests, fuzzing and backends that build
//! IR by hand call it too.
//!
//! Operand types come from the IR's own signatures ([`InstKind::operands`]); what is
//! checked here besides is what a signature cannot say: ranges of ids and offsets, the
//! type suffixes each family accepts, addresses, terminators and the block order.

use crate::ir::*;

/// Checks the structural invariants of a module; the error names the first violation.
pub fn validate(m: &Module) -> Result<(), String> {
    validate_globals(m)?;
    validate_shared(m)?;
    for (fi, f) in m.functions.iter_enumerated() {
        validate_function(m, fi, f).map_err(|e| format!("function {}: {e}", f.name))?;
    }
    Ok(())
}

/// Initializers, alignments and relocations of `.global`/`.const` variables.
fn validate_globals(m: &Module) -> Result<(), String> {
    for (gi, g) in m.globals.iter().enumerate() {
        if g.init.len() as u64 != g.size {
            return Err(format!(
                "global {}: init has {} bytes, size {}",
                g.name,
                g.init.len(),
                g.size
            ));
        }
        if !g.align.is_power_of_two() {
            return Err(format!("global {}: alignment {}", g.name, g.align));
        }
        for r in &g.relocs {
            if !(r.size == 4 || r.size == 8) || r.offset + r.size as u64 > g.size {
                return Err(format!("global {}: relocation out of range", g.name));
            }
            match r.target {
                RelocTarget::Global(t) if m.globals.get(t).is_none() => {
                    return Err(format!("global {gi}: relocation to missing global"))
                }
                RelocTarget::Func(f) if m.functions.get(f).is_none() => {
                    return Err(format!("global {gi}: relocation to missing function"))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The layout of the shared window: static variables aligned and below
/// `shared_static_size` and their kernels' sizes, overlapping only when no kernel
/// reaches both; dynamic ones at `dyn_shared_offset`.
fn validate_shared(m: &Module) -> Result<(), String> {
    // Sweep in offset order, comparing each variable with those still open.
    let mut statics: Vec<_> = (m.shared_vars.iter().filter(|s| !s.dynamic))
        .map(|s| {
            let mut ks = s.kernels.clone();
            ks.sort_unstable();
            (s, ks)
        })
        .collect();
    statics.sort_by_key(|(s, _)| s.offset);
    let mut open: Vec<usize> = Vec::new();
    for (i, (a, ka)) in statics.iter().enumerate() {
        open.retain(|&j| statics[j].0.offset + statics[j].0.size > a.offset);
        for &j in &open {
            let (b, kb) = &statics[j];
            if ka.iter().any(|k| kb.binary_search(k).is_ok()) {
                return Err(format!(
                    "shared {} and {} overlap in a kernel that reaches both",
                    a.name, b.name
                ));
            }
        }
        open.push(i);
        for k in &a.kernels {
            let name = m.functions.get(*k).map_or("", |f| f.name.as_str());
            if m.kernel_shared_size(name) < a.offset + a.size {
                return Err(format!("shared {}: beyond kernel {name}'s window", a.name));
            }
        }
    }
    if m.kernel_shared.values().any(|&s| s > m.shared_static_size) {
        return Err("a kernel's shared size exceeds the module's".into());
    }
    let mut static_end = 0u32;
    for s in &m.shared_vars {
        if s.dynamic {
            if s.offset != m.dyn_shared_offset || s.size != 0 {
                return Err(format!(
                    "shared {}: dynamic array not at the dynamic offset",
                    s.name
                ));
            }
            if !m.dyn_shared_offset.is_multiple_of(s.align.max(1)) {
                return Err(format!("shared {}: misaligned dynamic offset", s.name));
            }
        } else {
            if !s.offset.is_multiple_of(s.align.max(1)) {
                return Err(format!("shared {}: misaligned", s.name));
            }
            static_end = static_end.max(s.offset + s.size);
        }
    }
    if static_end > m.shared_static_size
        || m.dyn_shared_offset < m.shared_static_size
        || !m.dyn_shared_offset.is_multiple_of(16)
    {
        return Err("shared window sizes are inconsistent".into());
    }
    Ok(())
}

/// One function: parameter registers, every instruction, every terminator, then the
/// block order.
fn validate_function(m: &Module, fid: FuncId, f: &Function) -> Result<(), String> {
    let v = FnCheck { m, fid, f };
    for p in f.params.iter().chain(&f.rets) {
        for &r in &p.regs {
            v.reg_ty(r)?;
        }
    }
    for (bi, b) in f.blocks.iter_enumerated() {
        for i in &b.insts {
            v.inst(i)?;
        }
        v.terminator(bi, b)?;
    }
    v.block_order()
}

/// The function being checked, with the range checks every step uses.
struct FnCheck<'a> {
    m: &'a Module,
    fid: FuncId,
    f: &'a Function,
}

impl FnCheck<'_> {
    fn reg_ty(&self, r: RegId) -> Result<Type, String> {
        self.f
            .regs
            .get(r)
            .map(|ri| ri.ty)
            .ok_or_else(|| format!("register {} out of range ({})", r.0, self.f.regs.len()))
    }

    fn block(&self, b: BlockId) -> Result<&Block, String> {
        self.f
            .blocks
            .get(b)
            .ok_or_else(|| format!("block {} out of range", b.0))
    }

    fn inst_id(&self, i: InstId) -> Result<(), String> {
        match self.m.inst_info.get(i) {
            Some(info) if info.func == self.fid => Ok(()),
            Some(_) => Err(format!("instruction {} belongs to another function", i.0)),
            None => Err(format!("instruction {} out of range", i.0)),
        }
    }

    /// A register of type `ty` under `fit` (a predicate for `Type::Pred`).
    fn fits(&self, r: RegId, ty: Type, fit: Fit) -> Result<(), String> {
        let rt = self.reg_ty(r)?;
        if fit.fits(rt, ty) {
            Ok(())
        } else if ty == Type::Pred {
            Err(format!(
                "register {} is not a predicate",
                self.f.reg(r).name
            ))
        } else {
            Err(format!(
                "register {} ({rt}) does not fit {ty}",
                self.f.reg(r).name
            ))
        }
    }

    fn pred(&self, r: RegId) -> Result<(), String> {
        self.fits(r, Type::Pred, Fit::Strict)
    }

    fn guard(&self, g: Option<Guard>) -> Result<(), String> {
        g.map_or(Ok(()), |g| self.pred(g.pred))
    }

    fn var(&self, v: VarRef) -> Result<(), String> {
        match v {
            VarRef::Global(g) if self.m.globals.get(g).is_none() => {
                Err("global out of range".into())
            }
            VarRef::Local(o) if o >= self.f.local_size.max(1) => {
                Err("local offset out of range".into())
            }
            VarRef::KernelParam(o) if o >= self.f.param_size.max(1) => {
                Err("param offset out of range".into())
            }
            _ => Ok(()),
        }
    }

    /// A source operand read as `ty`.
    fn src(&self, o: &Operand, ty: Type, fit: Fit) -> Result<(), String> {
        if ty.bits() > 64 {
            return Err(format!(
                "a {ty} operand (128-bit values are not executable)"
            ));
        }
        match o {
            Operand::Reg(r) => self.fits(*r, ty, fit),
            Operand::Imm(v) => {
                if ty.bits() < 64 && *v >> ty.bits() != 0 {
                    Err(format!("immediate {v:#x} wider than {ty}"))
                } else {
                    Ok(())
                }
            }
            Operand::Special(s) => {
                if s.bits() == 1 && ty != Type::Pred || s.bits() > 1 && ty.bits() > s.bits() {
                    Err(format!("special register {s:?} read as {ty}"))
                } else {
                    Ok(())
                }
            }
            Operand::VarAddr(..) | Operand::FuncAddr(_) if !matches!(ty.bits(), 32 | 64) => {
                Err(format!("an address read as {ty}"))
            }
            Operand::VarAddr(v, _) => self.var(*v),
            Operand::FuncAddr(g) if self.m.functions.get(*g).is_none() => {
                Err("function out of range".into())
            }
            Operand::FuncAddr(_) => Ok(()),
        }
    }

    fn addr(&self, a: &Address) -> Result<(), String> {
        match a.base {
            AddrBase::Reg(r) => {
                let t = self.reg_ty(r)?;
                if t.bits() == 32 || t.bits() == 64 {
                    Ok(())
                } else {
                    Err("address register is not 32 or 64 bits".into())
                }
            }
            AddrBase::Var(v) => self.var(v),
            AddrBase::Abs => Ok(()),
        }
    }

    /// One instruction: its id and guard, every operand against the IR's signature,
    /// then what the signature does not say ([`FnCheck::suffixes`]).
    fn inst(&self, i: &Inst) -> Result<(), String> {
        self.inst_id(i.id)?;
        self.guard(i.guard)?;
        let ops = i.kind.operands()?;
        for (d, ty, fit) in &ops.dsts {
            if let Some(d) = d {
                self.fits(*d, *ty, *fit)?;
            }
        }
        for (s, ty, fit) in &ops.srcs {
            self.src(s, *ty, *fit)?;
        }
        self.suffixes(&i.kind)
    }

    /// The type suffixes and state spaces each family accepts, vector lengths and
    /// addresses: everything both backends implement, so that a checked module never
    /// meets an "unsupported" in them.
    fn suffixes(&self, k: &InstKind) -> Result<(), String> {
        // Types with a scalar semantics in `crate::ops` (integers, bits up to 64, the
        // unpacked floats) and predicates.
        let scalar = |t: Type| {
            t == Type::Pred
                || t.is_int()
                || t.is_bits() && t.bits() <= 64
                || matches!(t, Type::F16 | Type::BF16 | Type::F32 | Type::F64)
        };
        let memory_type = |t: Type| {
            if matches!(t.bits(), 8 | 16 | 32 | 64) {
                Ok(())
            } else {
                Err(format!("memory access of type {t}"))
            }
        };
        let float = |ty: &Type, what: &str| {
            if matches!(ty, Type::F32 | Type::F64) {
                Ok(())
            } else {
                Err(format!("{what} on {ty}"))
            }
        };
        let vector = |n: usize, what: &str| {
            if [1, 2, 4, 8].contains(&n) {
                Ok(())
            } else {
                Err(format!("{what} with a bad vector length"))
            }
        };
        match k {
            InstKind::Arith { op, ty, .. } => match op {
                ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide)
                    if ty.widened().is_none() =>
                {
                    Err("bad wide type".into())
                }
                ArithOp::And | ArithOp::Or | ArithOp::Xor | ArithOp::Not if *ty == Type::Pred => {
                    Ok(())
                }
                // Half-precision arithmetic is `InstKind::Half` (the JIT's `arith` has no
                // f16/bf16 lowering).
                _ if !scalar(*ty) || matches!(ty, Type::Pred | Type::F16 | Type::BF16) => {
                    Err(format!("{op:?} on {ty}"))
                }
                _ => Ok(()),
            },
            InstKind::Setp { ty, .. } | InstKind::Set { ty, .. }
                if !scalar(*ty) || *ty == Type::Pred =>
            {
                Err(format!("comparison on {ty}"))
            }
            InstKind::Cvt { dst_ty, src_ty, .. }
                if !scalar(*dst_ty)
                    || !scalar(*src_ty)
                    || *dst_ty == Type::Pred
                    || *src_ty == Type::Pred =>
            {
                Err(format!("cvt from {src_ty} to {dst_ty}"))
            }
            InstKind::Isspacep { space, .. } if *space == Space::Generic => {
                Err("isspacep without a state space".into())
            }
            InstKind::Sfu { ty, .. } => float(ty, "sfu"),
            InstKind::Copysign { ty, .. } => float(ty, "copysign"),
            InstKind::Testp { ty, .. } => float(ty, "testp"),
            InstKind::Atom {
                op,
                ty,
                space,
                addr,
                ..
            } => {
                if !(crate::ops::atomic::valid(*op, *ty)
                    || crate::ops::atomic::valid_vector_elem(*op, *ty))
                    || !matches!(
                        space,
                        Space::Global | Space::Shared | Space::SharedCluster | Space::Generic
                    )
                {
                    return Err(format!("atom {op:?} on {ty} in {space:?}"));
                }
                self.addr(addr)
            }
            InstKind::Ld { ty, dsts, addr, .. } => {
                vector(dsts.len(), "ld")?;
                memory_type(*ty)?;
                self.addr(addr)
            }
            InstKind::St { ty, srcs, addr, .. } => {
                vector(srcs.len(), "st")?;
                memory_type(*ty)?;
                self.addr(addr)
            }
            InstKind::SetpPacked { ty, .. } if !matches!(ty, Type::F16x2 | Type::BF16x2) => {
                Err("packed setp on a type other than .f16x2/.bf16x2".into())
            }
            InstKind::Half { op, ty, .. } if crate::ops::half::HalfKind::of(*ty).is_none() => {
                Err(format!("half {op:?} on {ty}"))
            }
            InstKind::Carry { op, ty, .. } if !matches!(ty.bits(), 32 | 64) || !ty.is_int() => {
                Err(format!("{op:?}.{ty}"))
            }
            InstKind::Async { op, addrs, .. } => {
                for (space, a) in addrs {
                    let cluster = op.cluster_space_ok() && *space == Space::SharedCluster;
                    if !matches!(space, Space::Global | Space::Shared | Space::Generic) && !cluster
                    {
                        return Err(format!("{op:?} in .{}", space.name()));
                    }
                    self.addr(a)?;
                }
                Ok(())
            }
            InstKind::Matrix { op, addr, .. } => match (op, addr) {
                (
                    MatrixOp::Ldmatrix { .. } | MatrixOp::Stmatrix { .. },
                    Some((Space::Shared | Space::Generic, a)),
                )
                | (
                    MatrixOp::WmmaLoad(_) | MatrixOp::WmmaStore(_),
                    Some((Space::Global | Space::Shared | Space::Generic, a)),
                ) => self.addr(a),
                (
                    MatrixOp::Ldmatrix { .. }
                    | MatrixOp::Stmatrix { .. }
                    | MatrixOp::WmmaLoad(_)
                    | MatrixOp::WmmaStore(_),
                    _,
                )
                | (_, Some(_)) => Err(format!("{op:?} with a bad address")),
                (_, None) => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// A block's terminator: its instruction, guard, operands and targets; a call and
    /// its resume block name each other.
    fn terminator(&self, bi: BlockId, b: &Block) -> Result<(), String> {
        if let Some(i) = b.term.inst() {
            self.inst_id(i)?;
        }
        match &b.term {
            Terminator::Jump { .. } => {}
            Terminator::Barrier {
                guard,
                barrier,
                count,
                red,
                ..
            } => {
                self.guard(*guard)?;
                if let Some(c) = red {
                    self.pred(c.reg)?;
                }
                self.src(barrier, Type::U32, Fit::Strict)?;
                if let Some(c) = count {
                    self.src(c, Type::U32, Fit::Strict)?;
                }
            }
            Terminator::Branch { guard, .. } => self.pred(guard.pred)?,
            Terminator::Ret { guard, next, .. } | Terminator::Exit { guard, next, .. } => {
                if guard.is_some() != next.is_some() {
                    return Err("a guarded ret/exit needs a next block (and only then)".into());
                }
                self.guard(*guard)?;
            }
            Terminator::BrxIdx {
                guard,
                index,
                targets,
                ..
            } => {
                self.guard(*guard)?;
                self.src(index, Type::U32, Fit::Strict)?;
                if targets.is_empty() {
                    return Err("brx.idx with an empty target list".into());
                }
            }
            Terminator::Call { guard, resume, .. }
            | Terminator::CallIndirect { guard, resume, .. } => {
                self.guard(*guard)?;
                super::call::validate_call(self.m, self.f, &b.term)?;
                if let Some(r) = resume {
                    if !matches!(self.block(*r)?.term,
                        Terminator::Resume { call, .. } if call == bi)
                    {
                        return Err("a call's resume block must name the call".into());
                    }
                }
            }
            Terminator::Resume { call, next, .. } => {
                let ok = matches!(
                    self.block(*call)?.term,
                    Terminator::Call { resume: Some(r), next: n, .. }
                    | Terminator::CallIndirect { resume: Some(r), next: n, .. }
                        if r == bi && n == *next
                );
                if !ok || !b.insts.is_empty() {
                    return Err("a resume block must be empty and follow its call".into());
                }
            }
        }
        for s in b.term.successors() {
            self.block(s)?;
        }
        Ok(())
    }

    /// Blocks in reverse post-order: the entry has no predecessor, every other block
    /// has one numbered lower (so none is unreachable).
    fn block_order(&self) -> Result<(), String> {
        let nblocks = self.f.blocks.len();
        let mut has_lower_pred: IdxVec<BlockId, bool> = IdxVec::from_elem(false, nblocks);
        let mut entry_preds = 0;
        for (bi, b) in self.f.blocks.iter_enumerated() {
            for s in b.term.successors() {
                entry_preds += (s == BlockId(0)) as u32;
                if s > bi {
                    if let Some(h) = has_lower_pred.get_mut(s) {
                        *h = true;
                    }
                }
            }
        }
        if entry_preds != 0 {
            return Err("the entry block has predecessors".into());
        }
        if let Some(b) = (has_lower_pred.ids().skip(1)).find(|&b| !has_lower_pred[b]) {
            return Err(format!(
                "block {} has no predecessor numbered lower (not reverse post-order or unreachable)",
                b.0
            ));
        }
        Ok(())
    }
}
