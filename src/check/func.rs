//! Checking one function: parameters, scopes and declarations, instructions, and the
//! control-flow graph (blocks split at labels and terminators, numbered in reverse
//! post-order, unreachable blocks dropped).

use std::collections::HashMap;

use super::{Cx, ModSym, VarSym, MAX_LOCAL_FRAME};
use crate::ir::{
    self, Block, FuncId, FuncKind, Guard, Inst, InstId, InstKind, Loc, RegId, RegInfo, Space,
    Terminator, Type, VarRef,
};
use crate::parse::ast::{self, DeclSpace, Stmt};
use crate::parse::{PtxError, MAX_DEPTH};

/// Largest number of registers in one module (all functions together).
pub const MAX_REGS: usize = 1 << 20;

/// A function-scope name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sym {
    Reg(RegId),
    VecReg(Vec<RegId>),
    Var(VarSym),
    Func(FuncId),
    Label(u32),
    /// A `.branchtargets`/`.calltargets`/`.callprototype` label.
    Directive,
    /// A `.branchtargets` label once its directive has been checked: index into
    /// [`Fx::btlists`] (before that, the label is a [`Sym::Directive`]).
    BranchTargets(u32),
}

/// A `.calltargets` list (`Ok`) or a `.callprototype`'s parameters and return values.
pub type CallDir = Result<Vec<FuncId>, (Vec<ir::Param>, Vec<ir::Param>)>;

/// A branch target while the CFG is being built.
#[derive(Clone, Copy, Debug)]
pub enum Tgt {
    Label(u32),
    Block(usize),
}

#[derive(Clone, Debug)]
pub enum TTerm {
    Jump {
        target: Tgt,
        inst: Option<InstId>,
    },
    Branch {
        guard: Guard,
        taken: Tgt,
        not_taken: usize,
        uni: bool,
        inst: InstId,
    },
    Ret {
        guard: Option<Guard>,
        next: Option<usize>,
        inst: InstId,
    },
    Exit {
        guard: Option<Guard>,
        next: Option<usize>,
        inst: InstId,
    },
    /// `{@p} bar.sync a{, b}`: ends its block; all lanes continue at `next`.
    Barrier {
        guard: Option<Guard>,
        barrier: ir::Operand,
        count: Option<ir::Operand>,
        red: Option<ir::PredSrc>,
        next: usize,
        inst: InstId,
    },
    /// Falling off the end of the body: an implicit `ret`.
    FallOff,
    /// `{@p} brx.idx{.uni} index, tlist`: targets are label ids.
    BrxIdx {
        guard: Option<Guard>,
        index: ir::Operand,
        targets: Vec<u32>,
        uni: bool,
        next: usize,
        inst: InstId,
    },
    /// `{@p} call` through a register: see [`Terminator::CallIndirect`].
    CallIndirect {
        guard: Option<Guard>,
        addr: RegId,
        targets: Vec<FuncId>,
        args: Vec<ir::CallArg>,
        rets: Vec<ir::CallRet>,
        next: usize,
        inst: InstId,
    },
    /// `{@p} call`: see [`Terminator::Call`].
    Call {
        guard: Option<Guard>,
        func: FuncId,
        args: Vec<ir::CallArg>,
        rets: Vec<ir::CallRet>,
        next: usize,
        uni: bool,
        inst: InstId,
    },
}

#[derive(Clone, Debug, Default)]
pub struct TBlock {
    pub label: Option<String>,
    pub insts: Vec<Inst>,
    pub term: Option<TTerm>,
}

/// Function-level checking context.
pub struct Fx<'c, 'a> {
    pub cx: &'c mut Cx<'a>,
    pub id: FuncId,
    pub kind: FuncKind,
    pub regs: crate::ir::IdxVec<RegId, RegInfo>,
    pub scopes: Vec<HashMap<String, Sym>>,
    /// Block each label starts (set when the label is reached).
    pub labels: Vec<Option<usize>>,
    pub blocks: Vec<TBlock>,
    pub cur: usize,
    pub local_size: u32,
    pub local_align: u32,
    /// An error reported only if checking the function finds no other (uses of call
    /// parameters, which come with a `call` that is rejected on its own).
    pub deferred: std::cell::RefCell<Option<PtxError>>,
    /// Checked `.branchtargets` lists (label ids), see [`Sym::BranchTargets`].
    pub btlists: Vec<Vec<u32>>,
    /// Call-site `.param` variables: local-frame offset -> size in bytes.
    pub call_params: HashMap<u32, u32>,
    /// The alignment of each one-dimensional call-site `.param` array (by offset): the
    /// arguments an unsized array parameter takes.
    pub call_param_arrays: HashMap<u32, u32>,
    /// `.reg` return values of this `.func`: stored to their frame slots at every `ret`.
    pub reg_rets: Vec<(RegId, Type, u32)>,
    /// A `.u16` scratch register for moving `.reg .pred` parameters and return values of
    /// this `.func` through their one-byte frame slots (0 or 1).
    pub pred_slot_tmp: Option<RegId>,
    /// `.calltargets` (`Ok`) and `.callprototype` (`Err`: parameters and return values)
    /// labels of this function.
    pub call_dirs: HashMap<String, CallDir>,
    /// The hidden predicate register holding the carry flag `CC.CF` of the carry chain
    /// (`add.cc` ...), created on first use (see [`crate::ir::InstKind::Carry`]).
    pub cc: Option<RegId>,
    /// A hidden predicate register set to true before each instruction that has a
    /// constant predicate source (`selp.u32 d, a, b, 1;`, `vote.all.pred p, 0, m;`: ptxas
    /// accepts integer constants there, nonzero is true); the constant is this register,
    /// negated for 0. Created on first use.
    pub pred_true: Option<RegId>,
    /// Instructions [`Fx::pred_src`] needs before the instruction being checked (the
    /// dispatcher emits them first, under the same guard).
    pub pre: Vec<InstKind>,
    /// Hidden registers holding a `reg + constant` source operand (`inst/reg_plus.rs`):
    /// never destinations nor floating-point operands.
    pub plus_regs: std::collections::HashSet<RegId>,
    /// A narrow load into a `.b128` register: its (low, high) halves and whether the
    /// type is signed; the high half is filled after the load (`inst/b128.rs`).
    pub b128_fill: Option<(RegId, RegId, bool)>,
    /// A `.func` that uses `alloca`: the hidden register its entry's `stacksave` writes
    /// and every `ret` restores (`crate::exec::stack`).
    pub stack_saved: Option<RegId>,
    /// Kernel parameters of type `.texref`/`.samplerref`/`.surfref` (8-byte handles) by
    /// parameter offset.
    pub tex_params: HashMap<u32, ir::TexRefKind>,
}

/// Whether a function body contains an `alloca` (its `.func` then saves the stack
/// pointer at entry and restores it at `ret`: `Fx::stack_entry`).
fn uses_alloca(b: &ast::Block) -> bool {
    b.stmts.iter().any(|s| match s {
        ast::Stmt::Inst(i) => i.opcode.name == "alloca",
        ast::Stmt::Block(b) => uses_alloca(b),
        _ => false,
    })
}

/// Checks one function (definition or declaration) into an [`ir::Function`].
pub fn check_function(
    cx: &mut Cx,
    f: &ast::FuncDecl,
    id: FuncId,
) -> Result<ir::Function, PtxError> {
    let mut fx = Fx::new(cx, f.kind, id);
    if f.kind == FuncKind::Entry && !f.rets.is_empty() {
        return Err(fx.cx.err(f.name.loc, "a kernel cannot have return values"));
    }
    let mut offset = 0u32;
    let params = fx.params(&f.params, &mut offset, Some(fx.cx.unsized_args.of(id)))?;
    let rets = fx.params(&f.rets, &mut offset, None)?;
    if f.kind == FuncKind::Func {
        fx.func_frame(&params, &rets, offset, f.name.loc)?;
        if f.body.as_ref().is_some_and(uses_alloca) {
            fx.stack_entry(f.name.loc)?;
        }
    }
    let perf = fx.perf(&f.directives)?;
    let blocks = match &f.body {
        Some(body) => {
            for v in fx.cx.module_regs.clone() {
                fx.var(&v)?;
            }
            fx.block(body, 0)?;
            if let Some(e) = fx.deferred.borrow_mut().take() {
                return Err(e);
            }
            fx.finish(body.close)?
        }
        None => Vec::new(),
    };
    Ok(ir::Function {
        name: f.name.name.clone(),
        kind: f.kind,
        linkage: f.linkage,
        params,
        rets,
        param_size: offset,
        regs: fx.regs,
        blocks: blocks.into(),
        local_size: fx.local_size,
        local_align: fx.local_align,
        perf,
        loc: f.name.loc,
    })
}

impl<'c, 'a> Fx<'c, 'a> {
    pub fn new(cx: &'c mut Cx<'a>, kind: FuncKind, id: FuncId) -> Self {
        Fx {
            cx,
            id,
            kind,
            regs: crate::ir::IdxVec::new(),
            scopes: vec![HashMap::new()],
            labels: Vec::new(),
            blocks: vec![TBlock::default()],
            cur: 0,
            local_size: 0,
            local_align: 1,
            deferred: std::cell::RefCell::new(None),
            call_params: HashMap::new(),
            call_param_arrays: HashMap::new(),
            reg_rets: Vec::new(),
            pred_slot_tmp: None,
            btlists: Vec::new(),
            call_dirs: HashMap::new(),
            cc: None,
            pred_true: None,
            pre: Vec::new(),
            plus_regs: std::collections::HashSet::new(),
            b128_fill: None,
            stack_saved: None,
            tex_params: HashMap::new(),
        }
    }
}

impl Fx<'_, '_> {
    pub fn err(&self, loc: Loc, msg: impl Into<String>) -> PtxError {
        self.cx.err(loc, msg)
    }

    /// Binds a name in the innermost scope.
    pub fn bind(&mut self, name: &ast::Ident, sym: Sym) -> Result<(), PtxError> {
        let scope = self.scopes.last_mut();
        match scope {
            Some(s) => {
                if s.contains_key(&name.name) {
                    return Err(self.cx.err(
                        name.loc,
                        format!("'{}' is already declared in this scope", name.name),
                    ));
                }
                s.insert(name.name.clone(), sym);
                Ok(())
            }
            None => Err(self.cx.err(name.loc, "internal error: no scope")),
        }
    }

    pub fn new_reg(&mut self, name: String, ty: Type, loc: Loc) -> Result<RegId, PtxError> {
        if self.cx.total_regs >= MAX_REGS {
            return Err(self.cx.err(
                loc,
                format!("too many registers in one module (at most {MAX_REGS})"),
            ));
        }
        self.cx.total_regs += 1;
        Ok(self.regs.push_id(RegInfo { name, ty }))
    }

    /// Lays out parameters (`open: Some(n)`: the inputs, whose last one may be an
    /// unsized `.param` array of `n` bytes, [`super::unsized`]) or return values (`None`).
    pub(super) fn params(
        &mut self,
        ps: &[ast::ParamDecl],
        offset: &mut u32,
        open: Option<u32>,
    ) -> Result<Vec<ir::Param>, PtxError> {
        let mut out = Vec::new();
        for (k, p) in ps.iter().enumerate() {
            let tex = self.tex_param_kind(p);
            let ty = match tex {
                Some(_) => Type::U64,
                None => self.cx.elem_type(&p.dtype)?,
            };
            let vec = p.dtype.vec.unwrap_or(1);
            let mut count = vec;
            if super::open_array::is_unsized(p) {
                let last = open.is_some() && k + 1 == ps.len();
                count = self.unsized_param(p, ty, last, open.unwrap_or(0))?;
            }
            for d in p
                .dims
                .iter()
                .skip(usize::from(super::open_array::is_unsized(p)))
            {
                let Some(e) = d else {
                    return Err(self.err(p.name.loc, "a parameter array needs a size"));
                };
                let n = self.cx.eval_int(e)?;
                if n <= 0 || n > u32::MAX as i64 {
                    return Err(self.err(e.loc, format!("invalid array size {n}")));
                }
                count = count
                    .checked_mul(n as u32)
                    .ok_or_else(|| self.err(e.loc, "parameter is too large"))?;
            }
            let natural = ty.bytes().saturating_mul(vec);
            let align = p.dtype.align.map(|(a, _)| a).unwrap_or(natural).max(1);
            let size = ty
                .bytes()
                .checked_mul(count)
                .ok_or_else(|| self.err(p.name.loc, "parameter is too large"))?;
            let ptr_space =
                p.ptr
                    .as_ref()
                    .map(|pa| match pa.space.as_ref().map(|s| s.name.as_str()) {
                        Some("global") => Space::Global,
                        Some("shared") => Space::Shared,
                        Some("local") => Space::Local,
                        Some("const") => Space::Const,
                        _ => Space::Generic,
                    });
            let mut param = ir::Param {
                name: p.name.name.clone(),
                ty,
                count,
                align,
                size,
                offset: 0,
                regs: Vec::new(),
                ptr_space,
                unsized_array: super::open_array::is_unsized(p),
            };
            match p.space {
                DeclSpace::Reg => {
                    if self.kind == FuncKind::Entry {
                        return Err(
                            self.err(p.loc, "kernel parameters must be in the '.param' space")
                        );
                    }
                    if count != vec {
                        return Err(self.err(p.loc, "a '.reg' parameter cannot be an array"));
                    }
                    if ty.bits() > 64 {
                        return Err(self.err(
                            p.loc,
                            format!("a '.reg' parameter of type {ty} is not supported"),
                        ));
                    }
                    let mut regs = Vec::new();
                    for k in 0..vec {
                        let name = match vec {
                            1 => p.name.name.clone(),
                            _ => {
                                format!("{}.{}", p.name.name, ["x", "y", "z", "w"][k as usize % 4])
                            }
                        };
                        regs.push(self.new_reg(name, ty, p.name.loc)?);
                    }
                    param.offset = self.param_slot(offset, align, size, p.loc)?;
                    if p.name.name != "_" {
                        let sym = match regs.as_slice() {
                            [r] => Sym::Reg(*r),
                            _ => Sym::VecReg(regs.clone()),
                        };
                        self.bind(&p.name, sym)?;
                    }
                    param.regs = regs;
                }
                _ => {
                    let off = self.param_slot(offset, align, size, p.loc)?;
                    param.offset = off;
                    if let Some(k) = tex {
                        self.tex_params.insert(off, k);
                    }
                    if p.name.name != "_" {
                        let vref = match self.kind {
                            FuncKind::Entry => VarRef::KernelParam(off),
                            FuncKind::Func => VarRef::Local(off),
                        };
                        let sym = VarSym {
                            space: Space::Param,
                            vref,
                            call_param: false,
                        };
                        self.bind(&p.name, Sym::Var(sym))?;
                    }
                }
            }
            out.push(param);
        }
        Ok(out)
    }

    fn perf(&self, ds: &[ast::FuncDirective]) -> Result<ir::PerfDirectives, PtxError> {
        let mut perf = ir::PerfDirectives::default();
        for d in ds {
            let nums = |lo: usize, hi: usize| -> Result<Vec<u32>, PtxError> {
                if d.args.len() < lo || d.args.len() > hi {
                    return Err(self.err(
                        d.name.loc,
                        format!("'.{}' takes {lo} to {hi} values", d.name.name),
                    ));
                }
                d.args
                    .iter()
                    .map(|&(v, l)| match u32::try_from(v) {
                        Ok(v) if v > 0 => Ok(v),
                        _ => Err(self.err(l, format!("invalid value {v} for '.{}'", d.name.name))),
                    })
                    .collect()
            };
            let dim3 = |v: Vec<u32>| {
                [
                    v.first().copied().unwrap_or(1),
                    v.get(1).copied().unwrap_or(1),
                    v.get(2).copied().unwrap_or(1),
                ]
            };
            match d.name.name.as_str() {
                "maxntid" => perf.maxntid = Some(dim3(nums(1, 3)?)),
                "reqntid" => perf.reqntid = Some(dim3(nums(1, 3)?)),
                "minnctapersm" => perf.minnctapersm = nums(1, 1)?.first().copied(),
                "maxnreg" => perf.maxnreg = nums(1, 1)?.first().copied(),
                "maxnctapersm" => {
                    nums(1, 1)?;
                }
                "reqnctapercluster" => perf.reqnctapercluster = Some(dim3(nums(1, 3)?)),
                "explicitcluster" => perf.explicitcluster = true,
                "maxclusterrank" => perf.maxclusterrank = nums(1, 1)?.first().copied(),
                _ => {}
            }
        }
        Ok(perf)
    }

    // ----- statements -----------------------------------------------------------------

    fn block(&mut self, b: &ast::Block, depth: u32) -> Result<(), PtxError> {
        if depth > MAX_DEPTH {
            return Err(self.err(b.open, "blocks nested too deeply"));
        }
        // Labels are visible in their whole block (forward branches).
        let mut scope = HashMap::new();
        for s in &b.stmts {
            let (label, sym) = match s {
                Stmt::Label(l) => {
                    let id = self.labels.len() as u32;
                    self.labels.push(None);
                    (l, Sym::Label(id))
                }
                Stmt::BranchTargets { label, .. }
                | Stmt::CallTargets { label, .. }
                | Stmt::CallPrototype { label, .. } => (label, Sym::Directive),
                _ => continue,
            };
            if scope.insert(label.name.clone(), sym).is_some() {
                return Err(self.err(
                    label.loc,
                    format!("label '{}' is already declared in this scope", label.name),
                ));
            }
        }
        self.scopes.push(scope);
        let mut used_bytes = None;
        for s in &b.stmts {
            let first = self.cx.m.inst_info.len();
            self.stmt(s, depth)?;
            match s {
                Stmt::Directive(d) => {
                    if let Some(n) = d.name.strip_prefix("used_bytes_mask") {
                        used_bytes = parse_mask(n.trim());
                    }
                }
                Stmt::Inst(_) => {
                    // The mask applies to the next instruction (its first InstId).
                    if let Some(m) = used_bytes.take() {
                        if self.cx.m.inst_info.len() > first {
                            self.cx.m.used_bytes.insert(ir::InstId(first as u32), m);
                        }
                    }
                }
                _ => {}
            }
        }
        self.scopes.pop();
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, depth: u32) -> Result<(), PtxError> {
        match s {
            Stmt::Label(l) => {
                if let Some(Sym::Label(id)) =
                    self.scopes.last().and_then(|sc| sc.get(&l.name)).cloned()
                {
                    self.place_label(id, &l.name);
                }
                Ok(())
            }
            Stmt::Inst(i) => self.inst(i),
            Stmt::Var(v) => self.var(v),
            Stmt::Block(b) => self.block(b, depth + 1),
            Stmt::BranchTargets { label, targets } => {
                let mut ids = Vec::new();
                for (t, range) in targets {
                    let names: Box<dyn Iterator<Item = String>> = match range {
                        Some(n) => Box::new((0..*n).map(|i| format!("{}{i}", t.name))),
                        None => Box::new(std::iter::once(t.name.clone())),
                    };
                    for n in names {
                        match self.lookup(&n) {
                            Some(Sym::Label(id)) => ids.push(id),
                            _ => return Err(self.err(t.loc, format!("unknown label '{n}'"))),
                        }
                    }
                }
                self.branch_targets_checked(label, ids);
                Ok(())
            }
            Stmt::CallTargets { label, targets } => {
                for t in targets {
                    match self.cx.syms.get(&t.name) {
                        Some(ModSym::Func(f)) => {
                            let decl = self.cx.func_loc.get(*f).copied().unwrap_or_default();
                            if (decl.line, decl.col) > (label.loc.line, label.loc.col) {
                                return Err(self.err(
                                    t.loc,
                                    format!(
                                        "function '{}' must be declared before '.calltargets'",
                                        t.name
                                    ),
                                ));
                            }
                        }
                        _ => return Err(self.err(t.loc, format!("unknown function '{}'", t.name))),
                    }
                }
                let ids = targets
                    .iter()
                    .filter_map(|t| match self.cx.syms.get(&t.name) {
                        Some(ModSym::Func(f)) => Some(*f),
                        _ => None,
                    })
                    .collect();
                self.call_dirs.insert(label.name.clone(), Ok(ids));
                Ok(())
            }
            Stmt::CallPrototype { label, proto } => {
                for p in proto.params.iter().chain(&proto.rets) {
                    self.cx.elem_type(&p.dtype)?;
                    for e in p.dims.iter().flatten() {
                        self.cx.eval_int(e)?;
                    }
                }
                let layout = self.proto_layout(proto)?;
                self.call_dirs.insert(label.name.clone(), Err(layout));
                Ok(())
            }
            Stmt::Directive(_) => Ok(()),
        }
    }

    /// A declaration inside a body.
    fn var(&mut self, v: &ast::VarDecl) -> Result<(), PtxError> {
        for n in &v.names {
            if let Some(init) = &n.init {
                let loc = init.loc();
                if !matches!(v.space, DeclSpace::Global | DeclSpace::Const) {
                    return Err(self.err(
                        loc,
                        format!("'.{}' variables cannot have initializers", v.space.name()),
                    ));
                }
            }
            if n.range.is_some() && v.space != DeclSpace::Reg {
                return Err(self.err(n.name.loc, "a '<N>' range is only allowed for registers"));
            }
            match v.space {
                DeclSpace::Reg => self.reg_decl(v, n)?,
                DeclSpace::Local => {
                    let lay = self.cx.layout(&v.dtype, &n.dims, None, n.name.loc)?;
                    if lay.count.is_none() {
                        return Err(self.err(n.name.loc, "a '.local' array needs a size"));
                    }
                    let too_large = || {
                        self.err(
                            n.name.loc,
                            format!("local frame too large (at most {MAX_LOCAL_FRAME} bytes)"),
                        )
                    };
                    let size = u32::try_from(lay.size()).map_err(|_| too_large())?;
                    let off = self
                        .local_size
                        .checked_next_multiple_of(lay.align)
                        .ok_or_else(too_large)?;
                    self.local_size = off
                        .checked_add(size)
                        .filter(|&e| e <= MAX_LOCAL_FRAME)
                        .ok_or_else(too_large)?;
                    self.local_align = self.local_align.max(lay.align);
                    let sym = VarSym {
                        space: Space::Local,
                        vref: VarRef::Local(off),
                        call_param: false,
                    };
                    self.bind(&n.name, Sym::Var(sym))?;
                }
                DeclSpace::Shared => {
                    let off = self
                        .cx
                        .shared_at
                        .get(&(n.name.loc.line, n.name.loc.col))
                        .copied()
                        .unwrap_or(0);
                    let sym = VarSym {
                        space: Space::Shared,
                        vref: VarRef::Shared(off),
                        call_param: false,
                    };
                    self.bind(&n.name, Sym::Var(sym))?;
                }
                DeclSpace::Param => {
                    let lay = self.cx.layout(&v.dtype, &n.dims, None, n.name.loc)?;
                    if lay.count.is_none() {
                        return Err(self.err(n.name.loc, "a '.param' array needs a size"));
                    }
                    let off = self.call_param_slot(lay.size(), lay.align, n.name.loc)?;
                    if n.dims.len() == 1 {
                        self.call_param_arrays.insert(off, lay.align);
                    }
                    let sym = VarSym {
                        space: Space::Param,
                        vref: VarRef::Local(off),
                        call_param: true,
                    };
                    self.bind(&n.name, Sym::Var(sym))?;
                }
                DeclSpace::Global | DeclSpace::Const => {
                    let key = (n.name.loc.line, n.name.loc.col);
                    let Some(&(space, id)) = self.cx.global_at.get(&key) else {
                        return Err(self.err(n.name.loc, "internal error: variable not laid out"));
                    };
                    let sym = VarSym {
                        space,
                        vref: VarRef::Global(id),
                        call_param: false,
                    };
                    self.bind(&n.name, Sym::Var(sym))?;
                }
                DeclSpace::Tex => {
                    return Err(self.err(
                        v.loc,
                        format!(
                            "'.{}' variables inside a function are not supported yet",
                            v.space.name()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn reg_decl(&mut self, v: &ast::VarDecl, n: &ast::DeclName) -> Result<(), PtxError> {
        let ty = self.cx.elem_type(&v.dtype)?;
        if !n.dims.is_empty() {
            return Err(self.err(n.name.loc, "register arrays are not supported"));
        }
        let count = n.range.unwrap_or(1);
        if self.cx.total_regs.saturating_add(count as usize) > MAX_REGS {
            return Err(self.err(
                n.name.loc,
                format!("too many registers in one module (at most {MAX_REGS})"),
            ));
        }
        for i in 0..count {
            let name = match n.range {
                Some(_) => format!("{}{i}", n.name.name),
                None => n.name.name.clone(),
            };
            let sym = match v.dtype.vec {
                Some(lanes) => {
                    let comps = ["x", "y", "z", "w", "4", "5", "6", "7"];
                    let mut rs = Vec::new();
                    for c in comps.iter().take(lanes as usize) {
                        rs.push(self.new_reg(format!("{name}.{c}"), ty, n.name.loc)?);
                    }
                    Sym::VecReg(rs)
                }
                None => Sym::Reg(self.new_reg(name.clone(), ty, n.name.loc)?),
            };
            self.bind(
                &ast::Ident {
                    name,
                    loc: n.name.loc,
                },
                sym,
            )?;
        }
        Ok(())
    }

    // ----- blocks -------------------------------------------------------------------

    fn cur_block(&mut self) -> &mut TBlock {
        if self.cur >= self.blocks.len() {
            self.blocks.push(TBlock::default());
            self.cur = self.blocks.len() - 1;
        }
        let i = self.cur;
        &mut self.blocks[i]
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(TBlock::default());
        self.blocks.len() - 1
    }

    /// Appends a straight-line instruction to the current block.
    pub fn push(&mut self, guard: Option<Guard>, kind: InstKind, id: InstId) {
        self.cur_block().insts.push(Inst { guard, kind, id });
    }

    /// Ends the current block; `make` receives the index of the following block.
    pub fn terminate(&mut self, make: impl FnOnce(usize) -> TTerm) {
        let next = self.new_block();
        let term = make(next);
        self.cur_block().term = Some(term);
        self.cur = next;
    }

    fn place_label(&mut self, id: u32, name: &str) {
        let cur = self.cur;
        let empty = self
            .blocks
            .get(cur)
            .is_some_and(|b| b.insts.is_empty() && b.term.is_none());
        if !(empty && cur != 0) {
            let next = self.new_block();
            self.cur_block().term = Some(TTerm::Jump {
                target: Tgt::Block(next),
                inst: None,
            });
            self.cur = next;
        }
        let cur = self.cur;
        if let Some(b) = self.blocks.get_mut(cur) {
            if b.label.is_none() {
                b.label = Some(name.to_string());
            }
        }
        if let Some(slot) = self.labels.get_mut(id as usize) {
            *slot = Some(cur);
        }
    }

    fn resolve(&self, t: Tgt) -> Option<usize> {
        match t {
            Tgt::Block(b) => Some(b),
            Tgt::Label(l) => self.labels.get(l as usize).copied().flatten(),
        }
    }

    fn succs(&self, b: usize) -> Vec<usize> {
        let mut v = match self.blocks.get(b).and_then(|b| b.term.as_ref()) {
            Some(TTerm::Jump { target, .. }) => self.resolve(*target).into_iter().collect(),
            Some(TTerm::Branch {
                taken, not_taken, ..
            }) => self
                .resolve(*taken)
                .into_iter()
                .chain([*not_taken])
                .collect(),
            Some(TTerm::Ret { next, .. }) | Some(TTerm::Exit { next, .. }) => {
                next.iter().copied().collect()
            }
            Some(TTerm::Barrier { next, .. })
            | Some(TTerm::Call { next, .. })
            | Some(TTerm::CallIndirect { next, .. }) => vec![*next],
            Some(TTerm::BrxIdx { targets, next, .. }) => targets
                .iter()
                .filter_map(|&l| self.resolve(Tgt::Label(l)))
                .chain([*next])
                .collect(),
            Some(TTerm::FallOff) | None => Vec::new(),
        };
        // Visit later blocks first so that earlier ones get lower RPO numbers.
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.dedup();
        v
    }

    /// Builds the final blocks: reverse post-order from the entry, unreachable blocks
    /// dropped, implicit `ret` at the end of the body.
    fn finish(&mut self, close: Loc) -> Result<Vec<Block>, PtxError> {
        if self.cur_block().term.is_none() {
            self.cur_block().term = Some(TTerm::FallOff);
        }
        let n = self.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(0, self.succs(0), 0)];
        visited[0] = true;
        while let Some(top) = stack.last_mut() {
            if let Some(&s) = top.1.get(top.2) {
                top.2 += 1;
                if s < n && !visited[s] {
                    visited[s] = true;
                    let ss = self.succs(s);
                    stack.push((s, ss, 0));
                }
            } else {
                post.push(top.0);
                stack.pop();
            }
        }
        post.reverse();
        let mut new_id = vec![u32::MAX; n];
        for (i, &b) in post.iter().enumerate() {
            new_id[b] = i as u32;
        }
        let map = |b: usize| ir::BlockId(new_id.get(b).copied().unwrap_or(0));
        let mut out = Vec::with_capacity(post.len());
        for &b in &post {
            let mut tb = std::mem::take(&mut self.blocks[b]);
            self.ret_stores(&mut tb, close);
            let term = match tb.term {
                Some(TTerm::Jump { target, inst }) => Terminator::Jump {
                    target: map(self.resolve(target).unwrap_or(0)),
                    inst,
                },
                Some(TTerm::Branch {
                    guard,
                    taken,
                    not_taken,
                    uni,
                    inst,
                }) => Terminator::Branch {
                    guard,
                    taken: map(self.resolve(taken).unwrap_or(0)),
                    not_taken: map(not_taken),
                    uni,
                    inst,
                },
                Some(TTerm::Ret { guard, next, inst }) => Terminator::Ret {
                    guard,
                    next: next.map(map),
                    inst,
                },
                Some(TTerm::Exit { guard, next, inst }) => Terminator::Exit {
                    guard,
                    next: next.map(map),
                    inst,
                },
                Some(TTerm::Barrier {
                    guard,
                    barrier,
                    count,
                    red,
                    next,
                    inst,
                }) => Terminator::Barrier {
                    guard,
                    barrier,
                    count,
                    red,
                    next: map(next),
                    inst,
                },
                Some(TTerm::BrxIdx {
                    guard,
                    index,
                    targets,
                    uni,
                    next,
                    inst,
                }) => Terminator::BrxIdx {
                    guard,
                    index,
                    targets: targets
                        .iter()
                        .map(|&l| map(self.resolve(Tgt::Label(l)).unwrap_or(0)))
                        .collect(),
                    uni,
                    next: map(next),
                    inst,
                },
                Some(TTerm::Call {
                    guard,
                    func,
                    args,
                    rets,
                    next,
                    uni,
                    inst,
                }) => Terminator::Call {
                    guard,
                    func,
                    args,
                    rets,
                    next: map(next),
                    uni,
                    inst,
                    resume: None,
                },
                Some(TTerm::CallIndirect {
                    guard,
                    addr,
                    targets,
                    args,
                    rets,
                    next,
                    inst,
                }) => Terminator::CallIndirect {
                    guard,
                    addr,
                    targets,
                    args,
                    rets,
                    next: map(next),
                    inst,
                    resume: None,
                },
                Some(TTerm::FallOff) | None => {
                    let inst = self.cx.inst_info(close, "ret".to_string(), self.id);
                    Terminator::Ret {
                        guard: None,
                        next: None,
                        inst,
                    }
                }
            };
            out.push(Block {
                label: tb.label,
                insts: tb.insts,
                term,
            });
        }
        Ok(out)
    }
}

/// The number of a `used_bytes_mask` pragma (decimal, or `0x` hexadecimal).
fn parse_mask(n: &str) -> Option<u32> {
    match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => n.parse().ok(),
    }
}
