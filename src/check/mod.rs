//! PTX front end, part 2: AST -> checked IR (name resolution, types, layout, CFG).
//!
//! [`parse_and_check`] is the whole front end. Checking happens in source order and
//! stops at the first error, which is a located [`PtxError`]. [`validate`] re-checks the
//! IR invariants independently (tests, fuzzing).
//!
//! Module-level work lives here (symbols, `.global`/`.const`/`.shared` layout,
//! initializers, `init.rs`); `func.rs` checks one function (scopes, registers,
//! parameters, the CFG), `inst.rs` and `mem.rs` lower instructions (`memqual.rs`: the
//! ordering and cache qualifiers of `ld`/`st`), `operand.rs` resolves operands and
//! applies the operand type rules (`sreg.rs`: special registers), `consts.rs` evaluates
//! constants.
//!
//! # What the IR looks like (for the backends)
//!
//! - **Immediates** are bit patterns of the instruction's operand type, truncated to its
//!   width: `-1` in a `.u32` instruction is `0xFFFF_FFFF`; integer literals in float
//!   instructions are converted to that float (`setp.eq.f32 p, x, 0` compares with
//!   `+0.0`); `0f` literals in f64 instructions are widened exactly and `0d`/decimal
//!   literals in f32 instructions rounded to nearest (NaN payloads kept); bit types take
//!   `0f` (32-bit) or `0d` (64-bit) raw bits. Shift amounts are always `.u32`; the addend
//!   of `mad.wide` has the wide type. `WARP_SZ` is `Imm(32)`; `%tid.w` etc. are `Imm(0)`.
//! - **Operand sizes** follow ptxas: `ld`, `st` and `cvt` take integer/bit registers at
//!   least as wide as the type (read: low bits; written: extended per the type's
//!   signedness, zero for bit types; float registers with bit types likewise); all other
//!   instructions need registers of exactly the type's size. Float types need a register
//!   of the same float type or a bit register of the same size (clang's `.b32` floats).
//!   So a register's class can be wider than the instruction type only in `Ld`/`St`/`Cvt`
//!   (and the `.f16` result of `cvt...f16.f32`, which may go to a wider bit register;
//!   other `.f16` operands of `cvt` likewise, `.bf16` ones never, as in ptxas).
//! - **Parameters**: kernel `.param`s are laid out in order, each aligned to its `.align`
//!   or natural alignment. In a `.func`, the parameters and then the return values
//!   (`.reg` ones included) are laid out the same way at the start of the function's
//!   `.local` frame (`param_size` covers both) and are addressed with
//!   `VarRef::Local(offset)`; `ld.param`/`st.param` through them become `.local`
//!   accesses. `.reg` parameters have `reg: Some`: `check` loads them from their slots
//!   at the entry and stores `.reg` return values to theirs before every `ret`.
//! - **Calls** (`call.rs`): call-site `.param` variables are slots of the caller's
//!   `.local` frame; `call` ends its block ([`ir::Terminator::Call`] /
//!   [`ir::Terminator::CallIndirect`]) with the argument and return-value copies between
//!   those slots (or registers) and the callee's parameter slots. Every function's
//!   parameters are laid out before any body is checked, so a call may precede its
//!   callee's body; calling a function without a body is an error. At the end
//!   (`resume.rs`), each call whose callee can reach a barrier gets an empty
//!   [`ir::Terminator::Resume`] block right after its block, where lanes suspended at a
//!   barrier inside the call continue it (split calls, `exec::split`).
//! - **CFG**: `blocks[0]` is the entry and never has predecessors (a label on the first
//!   instruction starts block 1). Blocks end at labels, branches, `ret`, `exit`, `call`
//!   and `bar.sync`/`barrier.sync` ([`ir::Terminator::Barrier`], never an
//!   instruction). Falling off the end of the body is a `Ret` whose `InstInfo` is the
//!   closing brace with text `ret`. Numbering is the reverse post-order; unreachable
//!   blocks are dropped after being checked.
//! - **`mov` packing** (`mov.b64 d, {a, b}`, `mov.b64 {a, b}, s`, 16-bit halves of
//!   `.b32` and `.b64`, bytes of `.b32` and `.b16`; `_` sinks) is lowered to `Cvt`/`Shl`/`Shr`/`Or`/`Mov` through temporary registers named
//!   `%__pack`/`%__unpack`; every lowered instruction shares the `InstId` of its source.
//! - **Shared window** (per kernel, `shreach.rs`): each static `.shared` variable (module
//!   or function scope) gets, in source order, the lowest aligned offset free in every
//!   kernel that can reach it, so variables of kernels that share nothing overlap.
//!   A kernel's static footprint (`Module::kernel_shared`) is the end of the last
//!   variable it reaches; `shared_static_size` is the largest over the module. The
//!   `.extern .shared` arrays are at `dyn_shared_offset` (after the *largest* kernel's
//!   footprint, as a function called by several kernels needs one offset), so a
//!   kernel's window with dynamic shared memory is `dyn_shared_offset + bytes`.

mod builtin;
mod call;
mod consts;
mod func;
mod init;
mod inst;
mod memqual;
mod open_array;
mod operand;
mod resume;
mod sampler;
mod shreach;
mod sreg;
mod validate;

use std::collections::HashMap;

use crate::ir::{self, FuncId, GlobalId, Loc, Space, Type, VarRef};
use crate::parse::ast::{self, DeclSpace, ElemType, Item};
use crate::parse::{self, PtxError};

pub use consts::{f32_bits_to_f64_bits, f64_bits_to_f32_bits};
pub use validate::validate;

/// Largest `.global`/`.const` variable accepted (its initial image is allocated).
pub const MAX_GLOBAL_SIZE: u64 = 1 << 30;
/// Largest static shared footprint of one kernel (the `.shared` variables it can reach).
pub const MAX_SHARED_STATIC: u32 = 1 << 20;
/// Largest `.local` frame of one function.
pub const MAX_LOCAL_FRAME: u32 = 1 << 20;

/// Parses and checks PTX source text into a checked IR module.
pub fn parse_and_check(src: &str, file: &str) -> Result<ir::Module, PtxError> {
    let ast = parse::parse(src, file)?;
    check(&ast, file)
}

/// Checks a parsed module.
pub fn check(ast: &ast::Module, file: &str) -> Result<ir::Module, PtxError> {
    let mut cx = Cx {
        file,
        m: ir::Module {
            file: file.to_string(),
            ..Default::default()
        },
        syms: HashMap::new(),
        ..Default::default()
    };
    cx.header(ast)?;
    cx.declare(ast)?;
    cx.initializers(ast)?;
    cx.unsized_args = open_array::scan(&cx, ast);
    for (i, item) in ast.items.iter().enumerate() {
        if let Item::Func(f) = item {
            let Some(ModSym::Func(id)) = cx.syms.get(&f.name.name).cloned() else {
                continue;
            };
            if cx.func_item.get(id) == Some(&i) {
                call::signature(&mut cx, f, id)?;
            }
        }
    }
    for (i, item) in ast.items.iter().enumerate() {
        if let Item::Alias { loc, .. } = item {
            return Err(cx.err(*loc, "directive '.alias' is not supported yet"));
        }
        if let Item::Func(f) = item {
            let Some(ModSym::Func(id)) = cx.syms.get(&f.name.name).cloned() else {
                continue;
            };
            if cx.func_item.get(id) == Some(&i) {
                let func = func::check_function(&mut cx, f, id)?;
                if let Some(slot) = cx.m.functions.get_mut(id) {
                    *slot = func;
                }
            }
        }
    }
    call::check_calls(&cx)?;
    resume::add_resume_blocks(&mut cx.m);
    // The contract with the backends: what `check` returns passes the independent
    // checker (its cost is small next to parsing and checking).
    validate::validate(&cx.m).map_err(|e| {
        cx.err(
            Loc { line: 1, col: 1 },
            format!("internal error: the checked module breaks an IR invariant ({e})"),
        )
    })?;
    Ok(cx.m)
}

/// A variable as instructions see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarSym {
    /// Global, Const, Shared, Local or Param.
    pub space: Space,
    pub vref: VarRef,
    /// `.param` declared inside a body (call arguments): not usable yet.
    pub call_param: bool,
}

/// A module-scope name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModSym {
    Func(FuncId),
    Var(VarSym),
}

/// Module-level checking context.
#[derive(Default)]
pub struct Cx<'a> {
    pub file: &'a str,
    pub m: ir::Module,
    pub syms: HashMap<String, ModSym>,
    /// Shared-window offset of every `.shared` declaration, keyed by its name's location.
    pub shared_at: HashMap<(u32, u32), u32>,
    /// The module variable of every `.global`/`.const` declaration inside a function
    /// (function scope, module lifetime), keyed by its name's location.
    pub global_at: HashMap<(u32, u32), (Space, GlobalId)>,
    /// Location of each function's first declaration.
    pub func_loc: ir::IdxVec<FuncId, Loc>,
    /// Index (in `ast.items`) of the item that defines each function (its definition if
    /// it has one, else its first declaration).
    pub func_item: ir::IdxVec<FuncId, usize>,
    /// Whether a definition (with body) of each function has been seen.
    func_defined: ir::IdxVec<FuncId, bool>,
    /// Global id of each module `.global`/`.const` declaration, by item index.
    global_of_item: HashMap<(usize, usize), GlobalId>,
    /// Dynamic shared declarations (their offset is only known at the end).
    dyn_shared: Vec<(u32, u32)>,
    dyn_align: u32,
    /// Kernel sets of the `.shared` declarations (computed before the layout).
    reach: shreach::SharedReach,
    /// Static shared variables placed so far: offset, end, kernel set.
    placed: Vec<(u32, u32, shreach::KernelSet)>,
    /// Kernel set of each entry of `m.shared_vars`.
    var_kernels: Vec<shreach::KernelSet>,
    /// Registers declared so far in the module (bounded by `func::MAX_REGS`).
    pub total_regs: usize,
    /// The module can make generic addresses of other CTAs' shared windows
    /// ([`shreach::makes_remote_generic`]): `cvta.to.shared.u64` is then checked as
    /// `cvta.to.shared::cluster.u64`, which gives the same offset for the executing CTA's
    /// window and the `.shared::cluster` address for another CTA's, as a GPU does.
    pub remote_shared: bool,
    /// The `.texref`/`.samplerref`/`.surfref` module variables.
    pub tex_refs: HashMap<GlobalId, ir::TexRefKind>,
    /// Module-scope `.reg` declarations (PTX ISA < 3.0), declared again in every
    /// function body ([`Cx::module_reg`]).
    pub module_regs: Vec<ast::VarDecl>,
    /// Slot sizes of unsized `.param` array parameters ([`open_array::scan`]).
    pub unsized_args: open_array::UnsizedArgs,
}

/// Layout of a declared variable: element type, element count and alignment.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub elem: Type,
    /// Elements including vector lanes; `None` for an unsized `[]` (dynamic/external).
    pub count: Option<u64>,
    pub align: u32,
}

impl Layout {
    pub fn size(&self) -> u64 {
        self.count
            .unwrap_or(0)
            .saturating_mul(self.elem.bytes() as u64)
    }
}

impl<'a> Cx<'a> {
    fn header(&mut self, ast: &ast::Module) -> Result<(), PtxError> {
        if let Some((v, _)) = ast.version {
            self.m.version = v;
        }
        self.m.target = ast.target.iter().map(|t| t.name.clone()).collect();
        self.m.address_size = 64;
        if let Some((a, loc)) = ast.address_size {
            if a != 32 && a != 64 {
                return Err(self.err(loc, format!("address size must be 32 or 64, not {a}")));
            }
            self.m.address_size = a;
        }
        Ok(())
    }

    /// The element type of a declaration, rejecting opaque types.
    pub fn elem_type(&self, dt: &ast::DeclType) -> Result<Type, PtxError> {
        match &dt.ty {
            ElemType::Scalar(t) => Ok(*t),
            ElemType::Opaque(n) => {
                Err(self.err(dt.ty_loc, format!("type '.{n}' is not supported yet")))
            }
        }
    }

    /// Element type, count and alignment of a declaration. `init_len` gives the length
    /// of the initializer's outermost list, for a leading `[]`.
    pub fn layout(
        &self,
        dt: &ast::DeclType,
        dims: &[Option<ast::Expr>],
        init: Option<&ast::Init>,
        loc: Loc,
    ) -> Result<Layout, PtxError> {
        let elem = self.elem_type(dt)?;
        let vec = dt.vec.unwrap_or(1) as u64;
        let natural = elem.bytes().saturating_mul(vec as u32).max(1);
        let align = match dt.align {
            Some((a, _)) => a,
            None => natural,
        };
        let mut count: Option<u64> = Some(vec);
        let mut inner: u64 = vec;
        for d in dims.iter().rev() {
            match d {
                Some(e) => {
                    let n = self.eval_int(e)?;
                    if n <= 0 {
                        return Err(
                            self.err(e.loc, format!("array dimension must be positive, not {n}"))
                        );
                    }
                    inner = inner
                        .checked_mul(n as u64)
                        .ok_or_else(|| self.err(e.loc, "array is too large"))?;
                    count = count.map(|_| inner);
                }
                None => count = None,
            }
        }
        // A leading `[]` with an initializer takes the initializer's length.
        if count.is_none()
            && dims.first().is_some_and(|d| d.is_none())
            && dims.iter().skip(1).all(|d| d.is_some())
        {
            if let Some(init) = init {
                let n = init::outer_len(init, inner);
                count = Some(
                    inner
                        .checked_mul(n)
                        .ok_or_else(|| self.err(loc, "array is too large"))?,
                );
            }
        } else if count.is_none() {
            // `[]` anywhere else is only valid as the first dimension.
            if dims.iter().skip(1).any(|d| d.is_none()) {
                return Err(self.err(loc, "only the first array dimension may be unspecified"));
            }
        }
        Ok(Layout { elem, count, align })
    }

    fn dup(&self, name: &ast::Ident) -> Result<(), PtxError> {
        if self.syms.contains_key(&name.name) {
            return Err(self.err(name.loc, format!("'{}' is already declared", name.name)));
        }
        Ok(())
    }

    /// First pass: functions, module variables and the shared-window layout, in order.
    fn declare(&mut self, ast: &ast::Module) -> Result<(), PtxError> {
        self.reach = shreach::shared_reach(ast);
        self.remote_shared = shreach::makes_remote_generic(ast);
        for (i, item) in ast.items.iter().enumerate() {
            match item {
                Item::Func(f) => {
                    self.declare_func(f, i)?;
                    if let Some(b) = &f.body {
                        self.shared_in_block(b, 0, &f.name.name)?;
                    }
                }
                Item::Var(v) if matches!(v.space, DeclSpace::Reg | DeclSpace::Local) => {
                    self.module_reg(v, ast)?
                }
                Item::Var(v) => self.declare_module_var(v, i)?,
                Item::Alias { .. } => {}
            }
        }
        // Dynamic shared memory starts after the static part, aligned.
        let align = self.dyn_align.max(16);
        let off = self
            .m
            .shared_static_size
            .checked_next_multiple_of(align)
            .ok_or_else(|| self.err(Loc { line: 1, col: 1 }, "shared memory too large"))?;
        self.m.dyn_shared_offset = off;
        for var in self.m.shared_vars.iter_mut().filter(|v| v.dynamic) {
            var.offset = off;
        }
        self.kernel_shared_sizes();
        let dyn_keys = std::mem::take(&mut self.dyn_shared);
        for k in dyn_keys {
            self.shared_at.insert(k, off);
        }
        for sym in self.syms.values_mut() {
            if let ModSym::Var(VarSym {
                space: Space::Shared,
                vref: VarRef::Shared(o),
                ..
            }) = sym
            {
                if *o == u32::MAX {
                    *o = off;
                }
            }
        }
        Ok(())
    }

    fn declare_func(&mut self, f: &ast::FuncDecl, item: usize) -> Result<(), PtxError> {
        if let Some(sym) = self.syms.get(&f.name.name) {
            let ModSym::Func(id) = sym else {
                return Err(self.err(f.name.loc, format!("'{}' is already declared", f.name.name)));
            };
            let id = *id;
            let prev = &self.m.functions[id];
            if prev.kind != f.kind {
                return Err(self.err(
                    f.name.loc,
                    format!(
                        "'{}' was declared as a different kind of function",
                        f.name.name
                    ),
                ));
            }
            if f.body.is_some() {
                if self.func_defined.get(id).copied().unwrap_or(false) {
                    return Err(self.err(
                        f.name.loc,
                        format!("function '{}' is defined twice", f.name.name),
                    ));
                }
                if let Some(slot) = self.func_item.get_mut(id) {
                    *slot = item;
                }
                if let Some(slot) = self.func_defined.get_mut(id) {
                    *slot = true;
                }
            }
            return Ok(());
        }
        let id = FuncId(self.m.functions.len() as u32);
        self.m.functions.push(ir::Function {
            name: f.name.name.clone(),
            kind: f.kind,
            linkage: f.linkage,
            params: Vec::new(),
            rets: Vec::new(),
            param_size: 0,
            regs: ir::IdxVec::new(),
            blocks: ir::IdxVec::new(),
            local_size: 0,
            local_align: 1,
            perf: ir::PerfDirectives::default(),
            loc: f.name.loc,
        });
        self.func_loc.push(f.name.loc);
        self.func_item.push(item);
        self.func_defined.push(f.body.is_some());
        self.syms.insert(f.name.name.clone(), ModSym::Func(id));
        Ok(())
    }

    /// Lays out one `.shared` declaration; returns its offset (`u32::MAX` for dynamic
    /// arrays, patched at the end of [`Self::declare`]).
    fn alloc_shared(&mut self, v: &ast::VarDecl, n: &ast::DeclName) -> Result<u32, PtxError> {
        if let Some(init) = &n.init {
            return Err(self.err(init.loc(), ".shared variables cannot have initializers"));
        }
        let lay = self.layout(&v.dtype, &n.dims, None, n.name.loc)?;
        let key = (n.name.loc.line, n.name.loc.col);
        let kernels = self.reach.of_decl.get(&key).cloned().unwrap_or_default();
        self.var_kernels.push(kernels.clone());
        if v.linkage == ir::Linkage::Extern || lay.count.is_none() {
            self.dyn_align = self.dyn_align.max(lay.align);
            self.dyn_shared.push(key);
            self.m.shared_vars.push(ir::SharedVar {
                name: n.name.name.clone(),
                offset: u32::MAX,
                size: 0,
                align: lay.align,
                dynamic: true,
                kernels: Vec::new(),
            });
            return Ok(u32::MAX);
        }
        let too_large = || {
            self.err(
                n.name.loc,
                format!("shared variable is too large (at most {MAX_SHARED_STATIC} bytes of static shared memory)"),
            )
        };
        let size = u32::try_from(lay.size()).map_err(|_| too_large())?;
        let off = self
            .lowest_free(&kernels, size, lay.align)
            .ok_or_else(too_large)?;
        let end = off
            .checked_add(size)
            .filter(|&e| e <= MAX_SHARED_STATIC)
            .ok_or_else(too_large)?;
        self.m.shared_static_size = self.m.shared_static_size.max(end);
        self.placed.push((off, end, kernels));
        self.m.shared_vars.push(ir::SharedVar {
            name: n.name.name.clone(),
            offset: off,
            size,
            align: lay.align,
            dynamic: false,
            kernels: Vec::new(),
        });
        self.shared_at.insert(key, off);
        Ok(off)
    }

    /// The lowest offset aligned to `align` where `size` bytes overlap no placed
    /// variable that one of `kernels` can reach (variables of disjoint kernel sets may
    /// share offsets).
    fn lowest_free(&self, kernels: &[u64], size: u32, align: u32) -> Option<u32> {
        let mut busy: Vec<(u32, u32)> = self
            .placed
            .iter()
            .filter(|(_, _, k)| shreach::intersects(k, kernels))
            .map(|&(o, e, _)| (o, e))
            .collect();
        busy.sort_unstable();
        let mut off = 0u32;
        for (o, e) in busy {
            if off.checked_add(size)? <= o {
                break;
            }
            if e > off {
                off = e.checked_next_multiple_of(align.max(1))?;
            }
        }
        Some(off)
    }

    /// Per kernel: the end of the last static variable it can reach, and each shared
    /// variable's kernels (by id).
    fn kernel_shared_sizes(&mut self) {
        let ids: Vec<Option<FuncId>> = (self.reach.kernels.iter())
            .map(|n| match self.syms.get(n) {
                Some(ModSym::Func(id)) => Some(*id),
                _ => None,
            })
            .collect();
        for (name, id) in self.reach.kernels.iter().zip(&ids) {
            if id.is_some() {
                self.m.kernel_shared.insert(name.clone(), 0);
            }
        }
        for (var, ks) in self.m.shared_vars.iter_mut().zip(&self.var_kernels) {
            for k in shreach::members(ks) {
                let Some(Some(id)) = ids.get(k) else { continue };
                var.kernels.push(*id);
                if var.dynamic {
                    continue;
                }
                if let Some(sz) = self.m.kernel_shared.get_mut(&self.reach.kernels[k]) {
                    *sz = (*sz).max(var.offset + var.size);
                }
            }
        }
    }

    /// Lays out the `.shared` declarations of a function body (all scopes), in order.
    /// Also makes module variables of the `.global`/`.const` declarations of the body
    /// (named `function::name`, which no PTX identifier can clash with).
    fn shared_in_block(&mut self, b: &ast::Block, depth: u32, func: &str) -> Result<(), PtxError> {
        if depth > parse::MAX_DEPTH {
            return Err(self.err(b.open, "blocks nested too deeply"));
        }
        for s in &b.stmts {
            match s {
                ast::Stmt::Var(v) if v.space == DeclSpace::Shared => {
                    for n in &v.names {
                        self.alloc_shared(v, n)?;
                    }
                }
                ast::Stmt::Var(v) if matches!(v.space, DeclSpace::Global | DeclSpace::Const) => {
                    for n in &v.names {
                        self.declare_fn_var(v, n, func)?;
                    }
                }
                ast::Stmt::Block(inner) => self.shared_in_block(inner, depth + 1, func)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// A `.global`/`.const` variable declared inside function `func` (see
    /// [`Cx::global_at`]); its initializer may name module symbols declared before it.
    fn declare_fn_var(
        &mut self,
        v: &ast::VarDecl,
        n: &ast::DeclName,
        func: &str,
    ) -> Result<(), PtxError> {
        if n.range.is_some() {
            return Err(self.err(n.name.loc, "a '<N>' range is only allowed for registers"));
        }
        let lay = self.layout(&v.dtype, &n.dims, n.init.as_ref(), n.name.loc)?;
        let size = lay.size();
        if size > MAX_GLOBAL_SIZE {
            return Err(self.err(
                n.name.loc,
                format!("variable '{}' is too large ({size} bytes)", n.name.name),
            ));
        }
        let (init, relocs) = match &n.init {
            Some(init) => self.encode_init(init, &lay, &n.dims, v.dtype.vec.unwrap_or(1))?,
            None => (vec![0; size as usize], Vec::new()),
        };
        let space = if v.space == DeclSpace::Global {
            Space::Global
        } else {
            Space::Const
        };
        let id = GlobalId(self.m.globals.len() as u32);
        self.m.globals.push(ir::GlobalVar {
            name: format!("{func}::{}", n.name.name),
            space,
            size,
            align: lay.align,
            init,
            relocs,
            external: false,
            loc: n.name.loc,
        });
        self.global_at
            .insert((n.name.loc.line, n.name.loc.col), (space, id));
        Ok(())
    }

    /// A module-scope `.reg` declaration: nvopencc's PTX ISA 1.x/2.x output declares its
    /// argument registers there (`.reg .u32 %ra<17>;`). ptxas 12.9 accepts it before PTX
    /// ISA 3.0 ("Use of module scoped .local or .reg variable ... found, disabling ABI")
    /// and rejects it from 3.0 ("Module-scoped variables in .reg state space are not
    /// allowed with ABI"). The registers are per thread; each function gets its own copy,
    /// which is exact while no function calls another (then the copies could pass values),
    /// so a module with calls is a located unsupported-feature error. A module-scope
    /// `.local` follows the same rule in ptxas 12.9 (accepted before 3.0 with the same
    /// warning, "Module-scoped variables in .local state space are not allowed with ABI"
    /// from 3.0): per-thread local memory, each function its own copy.
    fn module_reg(&mut self, v: &ast::VarDecl, ast: &ast::Module) -> Result<(), PtxError> {
        let ver = self.m.version;
        if ver == (0, 0) || ver >= (3, 0) {
            return Err(self.err(
                v.loc,
                format!(
                    "module-scope '.{}' variables are not allowed with the ABI (PTX ISA 3.0 and later)",
                    v.space.name()
                ),
            ));
        }
        fn calls(b: &ast::Block) -> bool {
            b.stmts.iter().any(|s| match s {
                ast::Stmt::Inst(i) => i.opcode.name == "call",
                ast::Stmt::Block(b) => calls(b),
                _ => false,
            })
        }
        let any_call = ast.items.iter().any(|it| match it {
            Item::Func(f) => f.body.as_ref().is_some_and(calls),
            _ => false,
        });
        if any_call {
            return Err(self.err(
                v.loc,
                format!(
                    "module-scope '.{}' variables in a module with calls are not supported yet",
                    v.space.name()
                ),
            ));
        }
        self.module_regs.push(v.clone());
        Ok(())
    }

    fn declare_module_var(&mut self, v: &ast::VarDecl, item: usize) -> Result<(), PtxError> {
        for (k, n) in v.names.iter().enumerate() {
            self.dup(&n.name)?;
            if n.range.is_some() {
                return Err(self.err(n.name.loc, "a '<N>' range is only allowed for registers"));
            }
            let sym = match v.space {
                DeclSpace::Global if matches!(v.dtype.ty, ElemType::Opaque(_)) => {
                    self.declare_tex_ref(v, n)?
                }
                DeclSpace::Global | DeclSpace::Const => {
                    let lay = self.layout(&v.dtype, &n.dims, n.init.as_ref(), n.name.loc)?;
                    let space = if v.space == DeclSpace::Global {
                        Space::Global
                    } else {
                        Space::Const
                    };
                    let size = lay.size();
                    if size > MAX_GLOBAL_SIZE {
                        return Err(self.err(
                            n.name.loc,
                            format!("variable '{}' is too large ({size} bytes)", n.name.name),
                        ));
                    }
                    let id = GlobalId(self.m.globals.len() as u32);
                    self.m.globals.push(ir::GlobalVar {
                        name: n.name.name.clone(),
                        space,
                        size,
                        align: lay.align,
                        init: vec![0; size as usize],
                        relocs: Vec::new(),
                        external: v.linkage == ir::Linkage::Extern,
                        loc: n.name.loc,
                    });
                    self.global_of_item.insert((item, k), id);
                    VarSym {
                        space,
                        vref: VarRef::Global(id),
                        call_param: false,
                    }
                }
                DeclSpace::Shared => {
                    let off = self.alloc_shared(v, n)?;
                    VarSym {
                        space: Space::Shared,
                        vref: VarRef::Shared(off),
                        call_param: false,
                    }
                }
                DeclSpace::Tex => self.declare_tex_var(v, n)?,
                DeclSpace::Reg | DeclSpace::Local | DeclSpace::Param => {
                    return Err(self.err(
                        v.loc,
                        format!(
                            "'.{}' variables cannot be declared at module scope",
                            v.space.name()
                        ),
                    ));
                }
            };
            self.syms.insert(n.name.name.clone(), ModSym::Var(sym));
        }
        Ok(())
    }

    /// A module-scope `.tex .u32 name;` / `.tex .u64 name;` (PTX ISA 1.x, deprecated): the
    /// ISA's texture state space says it is equivalent to `.global .texref name;`, so it
    /// becomes that texture reference. As ptxas: the type must be `.u32` or `.u64`, and
    /// `.tex` is an error from PTX ISA 1.5 ("not supported as of PTX version 1.5").
    fn declare_tex_var(&mut self, v: &ast::VarDecl, n: &ast::DeclName) -> Result<VarSym, PtxError> {
        if self.m.version >= (1, 5) {
            return Err(self.err(
                v.loc,
                "'.tex' variables are not supported as of PTX ISA 1.5 (use '.global .texref')",
            ));
        }
        if !matches!(v.dtype.ty, ElemType::Scalar(Type::U32 | Type::U64)) {
            return Err(self.err(
                v.dtype.ty_loc,
                "a '.tex' variable must be type '.u32' or '.u64'",
            ));
        }
        let mut g = v.clone();
        g.space = DeclSpace::Global;
        g.dtype.ty = ElemType::Opaque("texref".to_string());
        self.declare_tex_ref(&g, n)
    }

    /// A module-scope `.global .texref/.samplerref/.surfref name;`: an 8-byte global
    /// variable (its address is the handle the runtime binds; see [`ir::TexRefKind`]).
    fn declare_tex_ref(&mut self, v: &ast::VarDecl, n: &ast::DeclName) -> Result<VarSym, PtxError> {
        let (kind, tn) = match &v.dtype.ty {
            ElemType::Opaque(tn) => (ir::TexRefKind::from_name(tn), tn.as_str()),
            ElemType::Scalar(_) => (None, ""),
        };
        let kind = match kind {
            Some(ir::TexRefKind::Sampler)
                if !self.m.target.iter().any(|t| t == "texmode_independent") =>
            {
                // As ptxas: module `.samplerref`s need `.target texmode_independent`.
                return Err(self.err(
                    v.dtype.ty_loc,
                    "'.samplerref' variables need '.target texmode_independent'",
                ));
            }
            Some(k) => k,
            None => {
                return Err(self.err(v.dtype.ty_loc, format!("type '.{tn}' is not supported yet")))
            }
        };
        if !n.dims.is_empty() || v.dtype.vec.is_some() {
            return Err(self.err(
                n.name.loc,
                format!("arrays of '.{tn}' are not supported yet"),
            ));
        }
        let init = match (&n.init, kind) {
            (None, _) => vec![0; 8],
            (Some(i), ir::TexRefKind::Sampler) => self.sampler_init(i)?.to_vec(),
            (Some(_), _) => {
                return Err(self.err(
                    n.name.loc,
                    format!("'.{tn}' initializers are not supported yet"),
                ))
            }
        };
        let id = GlobalId(self.m.globals.len() as u32);
        self.m.globals.push(ir::GlobalVar {
            name: n.name.name.clone(),
            space: Space::Global,
            size: 8,
            align: 8,
            init,
            relocs: Vec::new(),
            external: v.linkage == ir::Linkage::Extern,
            loc: n.name.loc,
        });
        self.tex_refs.insert(id, kind);
        self.m.tex_refs.insert(n.name.name.clone(), kind);
        Ok(VarSym {
            space: Space::Global,
            vref: VarRef::Global(id),
            call_param: false,
        })
    }

    /// Third pass: initial bytes and relocations of `.global`/`.const` variables.
    fn initializers(&mut self, ast: &ast::Module) -> Result<(), PtxError> {
        for (i, item) in ast.items.iter().enumerate() {
            let Item::Var(v) = item else { continue };
            for (k, n) in v.names.iter().enumerate() {
                let (Some(init), Some(&id)) = (&n.init, self.global_of_item.get(&(i, k))) else {
                    continue;
                };
                let lay = self.layout(&v.dtype, &n.dims, Some(init), n.name.loc)?;
                let (bytes, relocs) =
                    self.encode_init(init, &lay, &n.dims, v.dtype.vec.unwrap_or(1))?;
                if let Some(g) = self.m.globals.get_mut(id) {
                    g.init = bytes;
                    g.relocs = relocs;
                }
            }
        }
        Ok(())
    }

    /// Allocates an [`ir::InstInfo`] and returns its id.
    pub fn inst_info(&mut self, loc: Loc, text: String, func: FuncId) -> ir::InstId {
        let id = ir::InstId(self.m.inst_info.len() as u32);
        self.m.inst_info.push(ir::InstInfo { loc, text, func });
        id
    }
}
