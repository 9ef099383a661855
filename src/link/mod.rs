//! The PTX linker: several PTX modules become one checked module, the way the driver's
//! JIT linker (`cuLinkCreate` … `cuLinkComplete`) and `nvlink` combine relocatable PTX.
//!
//! Each source is parsed on its own, then the ASTs are merged before [`crate::check`]:
//!
//! - Module-scope names with a linkage directive are one symbol across modules. A
//!   `.visible` definition may appear once; `.weak` definitions are used only when no
//!   `.visible` one exists (the first weak one wins); `.common` `.global` variables
//!   resolve to the largest one, which alone may have an initializer; `.extern`
//!   declarations resolve against the definition. Two `.visible` definitions, a name
//!   that is a function in one module and a variable in another, differing function
//!   signatures, and an `.extern` (or body-less) declaration that no module defines are
//!   link errors; for a function, only if a kernel reaches it: functions no kernel
//!   reaches are dropped first, as NVIDIA's linker does ([`reach`]). A declaration
//!   with more return values than its definition is the one signature mismatch
//!   accepted: calls through it read zero in the extra ones ([`adapt`]).
//! - Names without linkage (internal) belong to their module: where another module
//!   uses the same name, the internal one is renamed (`name$ptxjit.N`, a name no PTX
//!   source can spell since `.` may not appear in identifiers) in every reference.
//! - `.extern .shared` arrays are the dynamic shared window and are merged by name.
//! - The merged module's `.version` is the highest of the sources' and its `.target`
//!   the union of theirs; every source must have the same `.address_size`.
//!
//! Lines of the merged module count through the sources in order, as if they were
//! concatenated (each source is parsed with the lines of those before it as blank
//! lines, so no two sources share a location): every error this module returns is
//! mapped back to its own source's `file:line:col`.

use crate::check;
use crate::ir::{self, Linkage, Loc};
use crate::parse::{self, ast, PtxError};
use std::collections::{HashMap, HashSet};

mod adapt;
mod reach;
mod rename;

/// What a module-scope name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SymKind {
    Func,
    Var,
}

/// One declaration or definition of a linked (non-internal) name.
#[derive(Clone, Debug)]
struct Decl {
    module: usize,
    kind: SymKind,
    linkage: Linkage,
    defined: bool,
    /// Size in bytes (variables; for `.common` resolution).
    size: u64,
    initialized: bool,
    loc: Loc,
}

/// A source's place in the merged line numbering.
struct Span {
    file: String,
    base: u32,
    lines: u32,
}

/// Links PTX sources, `(text, file name)` pairs, into one checked module named
/// `file` (a single source is checked as it is).
pub fn link(srcs: &[(&str, &str)], file: &str) -> Result<ir::Module, PtxError> {
    let mut spans = Vec::new();
    let mut asts = Vec::new();
    let mut base = 0u32;
    for (text, name) in srcs {
        let lines = u32::try_from(text.bytes().filter(|&b| b == b'\n').count() + 1)
            .map_err(|_| whole(name, "source too large to link"))?;
        let padded = format!("{}{}", "\n".repeat(base as usize), text);
        let span = Span {
            file: name.to_string(),
            base,
            lines,
        };
        let ast = parse::parse(&padded, name).map_err(|e| unmap(&span, e))?;
        spans.push(span);
        asts.push(ast);
        base = base
            .checked_add(lines)
            .ok_or_else(|| whole(name, "sources too large to link"))?;
    }
    if asts.is_empty() {
        return Err(whole(file, "nothing to link: no PTX sources"));
    }
    let merged = merge(asts, &spans)?;
    check::check(&merged, file).map_err(|e| remap(&spans, e))
}

fn whole(file: &str, msg: &str) -> PtxError {
    PtxError {
        file: file.to_string(),
        line: 1,
        col: 1,
        msg: msg.to_string(),
    }
}

/// Maps an error located in `span`'s padded text back to the source's own lines.
fn unmap(span: &Span, mut e: PtxError) -> PtxError {
    e.file = span.file.clone();
    e.line = e.line.saturating_sub(span.base).max(1);
    e
}

/// Maps an error of the merged module to the source its line falls in.
fn remap(spans: &[Span], e: PtxError) -> PtxError {
    let i = spans
        .iter()
        .position(|s| e.line > s.base && e.line <= s.base + s.lines)
        .unwrap_or(0);
    unmap(&spans[i], e)
}

fn err_at(spans: &[Span], loc: Loc, msg: String) -> PtxError {
    remap(
        spans,
        PtxError {
            file: String::new(),
            line: loc.line,
            col: loc.col,
            msg,
        },
    )
}

/// Size in bytes of a variable declaration as far as literal dimensions say.
fn var_size(d: &ast::VarDecl, n: &ast::DeclName) -> u64 {
    let elem = match &d.dtype.ty {
        ast::ElemType::Scalar(t) => t.bytes() as u64,
        ast::ElemType::Opaque(_) => 8,
    };
    let mut size = elem * d.dtype.vec.unwrap_or(1) as u64;
    for (k, dim) in n.dims.iter().enumerate() {
        let count = match dim {
            Some(ast::Expr {
                kind: ast::ExprKind::Num(ast::NumLit::Int { bits, .. }),
                ..
            }) => *bits,
            None if k == 0 => match &n.init {
                Some(ast::Init::List(items, _)) => items.len() as u64,
                _ => 0,
            },
            _ => 0,
        };
        size = size.saturating_mul(count);
    }
    size
}

/// Whether a declaration names a dynamic shared array (not a link symbol).
fn dynamic_shared(v: &ast::VarDecl) -> bool {
    v.space == ast::DeclSpace::Shared && v.linkage == Linkage::Extern
}

/// Every linked name's declarations, in module order, the linked names in order of
/// first appearance (so errors are deterministic), and each module's internal names.
type SymbolTable = (
    HashMap<String, Vec<Decl>>,
    Vec<String>,
    Vec<HashSet<String>>,
);

fn symbols(asts: &[ast::Module]) -> SymbolTable {
    let mut linked: HashMap<String, Vec<Decl>> = HashMap::new();
    let mut order = Vec::new();
    let mut internal = vec![HashSet::new(); asts.len()];
    for (m, a) in asts.iter().enumerate() {
        for item in &a.items {
            let mut add = |name: &ast::Ident, d: Decl| {
                if d.linkage == Linkage::Internal {
                    internal[m].insert(name.name.clone());
                } else {
                    let e = linked.entry(name.name.clone()).or_default();
                    if e.is_empty() {
                        order.push(name.name.clone());
                    }
                    e.push(d);
                }
            };
            match item {
                ast::Item::Func(f) => add(
                    &f.name,
                    Decl {
                        module: m,
                        kind: SymKind::Func,
                        linkage: f.linkage,
                        defined: f.body.is_some(),
                        size: 0,
                        initialized: false,
                        loc: f.name.loc,
                    },
                ),
                ast::Item::Var(v) if !dynamic_shared(v) => {
                    for n in &v.names {
                        add(
                            &n.name,
                            Decl {
                                module: m,
                                kind: SymKind::Var,
                                linkage: v.linkage,
                                defined: v.linkage != Linkage::Extern,
                                size: var_size(v, n),
                                initialized: n.init.is_some(),
                                loc: n.name.loc,
                            },
                        )
                    }
                }
                ast::Item::Var(_) => {}
                ast::Item::Alias { alias, .. } => {
                    internal[m].insert(alias.name.clone());
                }
            }
        }
    }
    (linked, order, internal)
}

/// Functions the runtime provides (declared, never defined, in CUDA's PTX; the device
/// heap's `malloc`/`free` too, as numba-cuda's NRT declares them), besides the device
/// runtime's ([`ir::CdpFn`]).
const RUNTIME_FUNCS: [&str; 4] = ["vprintf", "__assertfail", "malloc", "free"];

/// Chooses the definition of a linked name: `(module, location)` of the one kept;
/// `None` for a runtime function no module defines.
fn resolve(name: &str, decls: &[Decl], spans: &[Span]) -> Result<Option<(usize, Loc)>, PtxError> {
    let first = &decls[0];
    if let Some(d) = decls.iter().find(|d| d.kind != first.kind) {
        return Err(err_at(
            spans,
            d.loc,
            format!("link error: '{name}' is a function in one module and a variable in another"),
        ));
    }
    let defs: Vec<&Decl> = decls.iter().filter(|d| d.defined).collect();
    let visible: Vec<&&Decl> = defs
        .iter()
        .filter(|d| d.linkage == Linkage::Visible)
        .collect();
    let common: Vec<&&Decl> = defs
        .iter()
        .filter(|d| d.linkage == Linkage::Common)
        .collect();
    if let Some(d) = visible.get(1) {
        return Err(err_at(
            spans,
            d.loc,
            format!(
                "link error: duplicate definition of symbol '{name}' (also defined .visible in {})",
                spans[visible[0].module].file
            ),
        ));
    }
    if !common.is_empty() {
        if let Some(d) = defs.iter().find(|d| d.linkage != Linkage::Common) {
            return Err(err_at(
                spans,
                d.loc,
                format!("link error: '{name}' is defined both .common and not .common"),
            ));
        }
        let max = common.iter().map(|d| d.size).max().unwrap_or(0);
        let inits: Vec<&&&Decl> = common.iter().filter(|d| d.initialized).collect();
        if let Some(d) = inits.get(1) {
            return Err(err_at(
                spans,
                d.loc,
                format!(
                    "link error: .common symbol '{name}' is initialized in more than one module"
                ),
            ));
        }
        if let Some(d) = inits.first().filter(|d| d.size < max) {
            return Err(err_at(
                spans,
                d.loc,
                format!("link error: the initialized definition of .common symbol '{name}' is not the largest"),
            ));
        }
        let chosen = inits
            .first()
            .map(|d| ***d)
            .or_else(|| common.iter().find(|d| d.size == max).map(|d| **d))
            .unwrap_or(first);
        return Ok(Some((chosen.module, chosen.loc)));
    }
    let chosen = visible
        .first()
        .map(|d| **d)
        .or_else(|| defs.iter().find(|d| d.linkage == Linkage::Weak).copied())
        .or_else(|| defs.first().copied());
    match chosen {
        Some(d) => Ok(Some((d.module, d.loc))),
        // A name no module defines: the caller reports it (a function only if a kernel
        // reaches it, `reach`; the runtime's functions are built-ins).
        None => Ok(None),
    }
}

fn undefined(spans: &[Span], name: &str, loc: Loc) -> PtxError {
    err_at(
        spans,
        loc,
        format!("link error: undefined symbol '{name}' (declared but defined in no module)"),
    )
}

/// Whether `name` is a function the runtime provides (no module needs to define it).
fn runtime_func(name: &str) -> bool {
    RUNTIME_FUNCS.contains(&name) || ir::CdpFn::from_name(name).is_some()
}

/// Compares two parameter lists by space, type, vector width, alignment and dimensions.
fn same_params(a: &[ast::ParamDecl], b: &[ast::ParamDecl]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.space == y.space
                && x.dtype.ty == y.dtype.ty
                && x.dtype.vec == y.dtype.vec
                && x.dims.len() == y.dims.len()
        })
}

fn merge(mut asts: Vec<ast::Module>, spans: &[Span]) -> Result<ast::Module, PtxError> {
    let (linked, order, internal) = symbols(&asts);
    let mut chosen: HashMap<String, (usize, Loc)> = HashMap::new();
    // Undefined names in order: (name, first declaration, is a function).
    let mut missing: Vec<(&str, Loc, bool)> = Vec::new();
    for name in &order {
        let first = &linked[name][0];
        let func = first.kind == SymKind::Func;
        match resolve(name, &linked[name], spans)? {
            Some(c) => {
                chosen.insert(name.clone(), c);
            }
            None if !(func && runtime_func(name)) => missing.push((name.as_str(), first.loc, func)),
            None => {}
        }
    }
    // Function signatures must agree with the definition.
    let mut sigs: HashMap<&str, &ast::FuncDecl> = HashMap::new();
    for a in &asts {
        for item in &a.items {
            if let ast::Item::Func(f) = item {
                if f.linkage != Linkage::Internal && f.body.is_some() {
                    sigs.entry(&f.name.name).or_insert(f);
                }
            }
        }
    }
    // (module, name, return values kept, extra ones) of the declarations `adapt` fixes.
    let mut adapts: Vec<(usize, String, usize, Vec<ir::Type>)> = Vec::new();
    for (m, a) in asts.iter().enumerate() {
        for item in &a.items {
            if let ast::Item::Func(f) = item {
                let Some(def) = sigs.get(f.name.name.as_str()) else {
                    continue;
                };
                if f.linkage == Linkage::Internal {
                    continue;
                }
                if def.kind != f.kind
                    || !same_params(&def.params, &f.params)
                    || !same_params(&def.rets, &f.rets)
                {
                    let extra = adapt::extra_rets(def, f, same_params);
                    if let (Some(extra), None) = (extra, &f.body) {
                        adapts.push((m, f.name.name.clone(), def.rets.len(), extra));
                        continue;
                    }
                    return Err(err_at(
                        spans,
                        f.name.loc,
                        format!(
                            "link error: declaration of '{}' does not match its definition",
                            f.name.name
                        ),
                    ));
                }
            }
        }
    }
    for (m, name, kept, extra) in &adapts {
        adapt::adapt_calls(&mut asts[*m], name, *kept, extra);
    }
    // Internal names another module also uses get a module-specific name.
    let mut all: HashMap<&str, usize> = HashMap::new();
    for set in &internal {
        for n in set {
            *all.entry(n.as_str()).or_default() += 1;
        }
    }
    let renames: Vec<HashMap<String, String>> = internal
        .iter()
        .enumerate()
        .map(|(m, set)| {
            set.iter()
                .filter(|n| all[n.as_str()] > 1 || linked.contains_key(*n))
                .map(|n| (n.clone(), format!("{n}$ptxjit.{m}")))
                .collect()
        })
        .collect();
    let mut out = ast::Module {
        version: None,
        target: Vec::new(),
        address_size: None,
        items: Vec::new(),
    };
    let mut shared_seen: HashSet<String> = HashSet::new();
    for (m, mut a) in asts.into_iter().enumerate() {
        if let Some((v, loc)) = a.version {
            if out.version.is_none_or(|(o, _)| v > o) {
                out.version = Some((v, loc));
            }
        }
        for t in a.target.drain(..) {
            if !out.target.iter().any(|o| o.name == t.name) {
                out.target.push(t);
            }
        }
        match (out.address_size, a.address_size) {
            (Some((x, _)), Some((y, loc))) if x != y => {
                return Err(err_at(
                    spans,
                    loc,
                    format!("link error: .address_size {y} differs from {x} of the modules before"),
                ))
            }
            (None, Some(s)) => out.address_size = Some(s),
            _ => {}
        }
        rename::rename_module(&mut a, &renames[m]);
        for item in a.items {
            keep_item(item, m, &chosen, &mut shared_seen, &mut out.items);
        }
    }
    let keep = reach::reachable(&out.items);
    if let Some((name, loc, _)) = missing
        .iter()
        .find(|(n, _, func)| !func || keep.contains(*n))
    {
        return Err(undefined(spans, name, *loc));
    }
    reach::prune(&mut out.items, &keep);
    Ok(out)
}

/// Adds `item` of module `m` to the merged items: chosen definitions stay, other
/// definitions of a linked function become declarations, other declarations of a
/// linked variable go away.
fn keep_item(
    item: ast::Item,
    m: usize,
    chosen: &HashMap<String, (usize, Loc)>,
    shared_seen: &mut HashSet<String>,
    out: &mut Vec<ast::Item>,
) {
    match item {
        ast::Item::Func(mut f) => {
            if f.linkage != Linkage::Internal {
                let keep = chosen.get(&f.name.name) == Some(&(m, f.name.loc));
                if !keep && f.body.is_some() {
                    f.body = None;
                }
            }
            out.push(ast::Item::Func(f));
        }
        ast::Item::Var(mut v) if dynamic_shared(&v) => {
            v.names.retain(|n| shared_seen.insert(n.name.name.clone()));
            if !v.names.is_empty() {
                out.push(ast::Item::Var(v));
            }
        }
        ast::Item::Var(mut v) => {
            if v.linkage != Linkage::Internal {
                v.names
                    .retain(|n| chosen.get(&n.name.name) == Some(&(m, n.name.loc)));
            }
            if !v.names.is_empty() {
                out.push(ast::Item::Var(v));
            }
        }
        alias @ ast::Item::Alias { .. } => out.push(alias),
    }
}

/// Which library members a link needs, as a linker takes members out of an archive:
/// a member is taken when it defines a symbol the objects (or members taken before)
/// declare and nobody defined yet, until no member adds one. Returns the indices of
/// the members taken, in order. `objects` and `members` are `(text, file name)` pairs.
pub fn needed_members(
    objects: &[(&str, &str)],
    members: &[(&str, &str)],
) -> Result<Vec<usize>, PtxError> {
    // (defined, declared) linked names of one source.
    let names = |text: &str, file: &str| -> Result<(HashSet<String>, HashSet<String>), PtxError> {
        let ast = parse::parse(text, file)?;
        let (linked, _, _) = symbols(std::slice::from_ref(&ast));
        let mut defined = HashSet::new();
        let mut declared = HashSet::new();
        for (name, decls) in linked {
            if decls.iter().any(|d| d.defined) {
                defined.insert(name);
            } else {
                declared.insert(name);
            }
        }
        Ok((defined, declared))
    };
    let mut defined = HashSet::new();
    let mut wanted = HashSet::new();
    for (text, file) in objects {
        let (d, w) = names(text, file)?;
        defined.extend(d);
        wanted.extend(w);
    }
    let members: Vec<(HashSet<String>, HashSet<String>)> = members
        .iter()
        .map(|(text, file)| names(text, file))
        .collect::<Result<_, _>>()?;
    let mut taken = Vec::new();
    loop {
        wanted.retain(|n| !defined.contains(n));
        let next = (0..members.len())
            .find(|i| !taken.contains(i) && members[*i].0.iter().any(|n| wanted.contains(n)));
        let Some(i) = next else {
            return Ok(taken);
        };
        taken.push(i);
        defined.extend(members[i].0.iter().cloned());
        wanted.extend(members[i].1.iter().cloned());
    }
}
