//! Which kernels can reach each `.shared` variable (for the per-kernel shared layout).
//!
//! Computed from the AST before any offset is assigned, by over-approximation (which
//! only costs compactness, never correctness):
//! - a function *uses* a module-scope `.shared` variable when its body names it
//!   anywhere (shadowing is ignored); a function-scope `.shared` variable belongs to
//!   its function;
//! - a function *calls* every function named as the direct target of a `call`;
//! - a function named anywhere else (a value operand, `.calltargets`, the initializer
//!   of a module variable) has its address taken and is reachable from every kernel.
//!
//! A kernel reaches the transitive closure of the call graph from itself and from
//! every address-taken function. Kernels are numbered in order of first appearance.

use std::collections::HashMap;

use crate::parse::ast::{self, DeclSpace, ExprKind, FuncKind, Item, Operand, Stmt};

/// A set of kernels, as a bit set over their numbers.
pub type KernelSet = Vec<u64>;

/// The result: kernel names (by number) and the kernel set of every `.shared`
/// declaration, keyed by its name's location.
#[derive(Default)]
pub struct SharedReach {
    pub kernels: Vec<String>,
    pub of_decl: HashMap<(u32, u32), KernelSet>,
}

/// Whether two kernel sets intersect.
pub fn intersects(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

/// Kernel numbers in a set.
pub fn members(s: &[u64]) -> impl Iterator<Item = usize> + '_ {
    s.iter().enumerate().flat_map(|(w, &bits)| {
        (0..64)
            .filter(move |b| bits & (1u64 << b) != 0)
            .map(move |b| w * 64 + b)
    })
}

/// What one function body mentions.
#[derive(Default)]
struct Body {
    /// Names used outside a `call`'s target position.
    names: Vec<String>,
    /// Direct call targets.
    calls: Vec<String>,
    /// Function-scope `.shared` declarations.
    local_shared: Vec<(u32, u32)>,
}

fn expr_names(e: &ast::Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Sym { name, .. } => out.push(name.clone()),
        ExprKind::Generic(i) => out.push(i.name.clone()),
        ExprKind::Mask(_, e) | ExprKind::Unary(_, e) => expr_names(e, out),
        ExprKind::Binary(_, a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        ExprKind::Num(_) => {}
    }
}

fn operand_names(o: &Operand, out: &mut Vec<String>) {
    match o {
        Operand::Value(e) => expr_names(e, out),
        Operand::Not(i) => out.push(i.name.clone()),
        Operand::Pair(a, b) => {
            operand_names(a, out);
            operand_names(b, out);
        }
        Operand::Vector(v, _) | Operand::Bracket(v, _) | Operand::List(v, _) => {
            v.iter().for_each(|o| operand_names(o, out))
        }
        Operand::Sink(_) => {}
    }
}

fn init_names(i: &ast::Init, out: &mut Vec<String>) {
    match i {
        ast::Init::Expr(e) => expr_names(e, out),
        ast::Init::List(v, _) => v.iter().for_each(|i| init_names(i, out)),
        ast::Init::Field(..) => {}
    }
}

fn scan_block(b: &ast::Block, depth: u32, body: &mut Body) {
    if depth > crate::parse::MAX_DEPTH {
        return; // `declare` reports the error.
    }
    for s in &b.stmts {
        match s {
            Stmt::Inst(i) => {
                let mut ops = i.operands.iter();
                if i.opcode.name == "call" {
                    // `call (rets), target, (args), ...`: the target is a direct call.
                    let mut first = ops.next();
                    if let Some(o @ Operand::List(..)) = first {
                        operand_names(o, &mut body.names);
                        first = ops.next();
                    }
                    match first {
                        Some(Operand::Value(ast::Expr {
                            kind: ExprKind::Sym { name, comp: None },
                            ..
                        })) => body.calls.push(name.clone()),
                        Some(o) => operand_names(o, &mut body.names),
                        None => {}
                    }
                }
                ops.for_each(|o| operand_names(o, &mut body.names));
            }
            Stmt::Var(v) => {
                for n in &v.names {
                    if v.space == DeclSpace::Shared {
                        body.local_shared.push((n.name.loc.line, n.name.loc.col));
                    }
                    for d in n.dims.iter().flatten() {
                        expr_names(d, &mut body.names);
                    }
                    if let Some(i) = &n.init {
                        init_names(i, &mut body.names);
                    }
                }
            }
            Stmt::Block(inner) => scan_block(inner, depth + 1, body),
            Stmt::CallTargets { targets, .. } => {
                body.names.extend(targets.iter().map(|t| t.name.clone()))
            }
            Stmt::Label(_)
            | Stmt::BranchTargets { .. }
            | Stmt::CallPrototype { .. }
            | Stmt::Directive(_) => {}
        }
    }
}

/// Computes the kernel set of every `.shared` declaration of the module.
pub fn shared_reach(ast: &ast::Module) -> SharedReach {
    // Functions by name (declarations and definition share one number).
    let mut fnum: HashMap<&str, usize> = HashMap::new();
    let mut bodies: Vec<Body> = Vec::new();
    let mut kernel_of: Vec<Option<usize>> = Vec::new();
    let mut out = SharedReach::default();
    let mut shared_names: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    let mut global_names: Vec<String> = Vec::new();
    for item in &ast.items {
        match item {
            Item::Func(f) => {
                let id = *fnum.entry(f.name.name.as_str()).or_insert_with(|| {
                    bodies.push(Body::default());
                    kernel_of.push(None);
                    bodies.len() - 1
                });
                if f.kind == FuncKind::Entry && kernel_of[id].is_none() {
                    kernel_of[id] = Some(out.kernels.len());
                    out.kernels.push(f.name.name.clone());
                }
                if let Some(b) = &f.body {
                    scan_block(b, 0, &mut bodies[id]);
                }
            }
            Item::Var(v) => {
                for n in &v.names {
                    if v.space == DeclSpace::Shared {
                        shared_names
                            .entry(n.name.name.as_str())
                            .or_default()
                            .push((n.name.loc.line, n.name.loc.col));
                    }
                    if let Some(i) = &n.init {
                        init_names(i, &mut global_names);
                    }
                }
            }
            Item::Alias { .. } => {}
        }
    }
    // Address-taken functions are the roots every kernel shares.
    let mut common = vec![false; bodies.len()];
    let mut stack: Vec<usize> = Vec::new();
    let taken = bodies.iter().flat_map(|b| &b.names).chain(&global_names);
    for name in taken {
        if let Some(&f) = fnum.get(name.as_str()) {
            stack.push(f);
        }
    }
    let calls: Vec<Vec<usize>> = bodies
        .iter()
        .map(|b| {
            b.calls
                .iter()
                .filter_map(|c| fnum.get(c.as_str()).copied())
                .collect()
        })
        .collect();
    let close = |seen: &mut Vec<bool>, stack: &mut Vec<usize>| {
        while let Some(f) = stack.pop() {
            if !std::mem::replace(&mut seen[f], true) {
                stack.extend(calls[f].iter().copied().filter(|&g| !seen[g]));
            }
        }
    };
    close(&mut common, &mut stack);
    // Kernel set of every function.
    let words = out.kernels.len().div_ceil(64);
    let mut kset: Vec<KernelSet> = vec![vec![0; words]; bodies.len()];
    let all: KernelSet = (0..words)
        .map(|w| {
            let n = out.kernels.len() - w * 64;
            if n >= 64 {
                u64::MAX
            } else {
                (1u64 << n) - 1
            }
        })
        .collect();
    for (f, k) in kernel_of.iter().enumerate() {
        let Some(k) = *k else { continue };
        let mut seen = common.clone();
        stack.push(f);
        close(&mut seen, &mut stack);
        for (g, s) in seen.iter().enumerate() {
            if *s && !common[g] {
                kset[g][k / 64] |= 1 << (k % 64);
            }
        }
    }
    for (g, c) in common.iter().enumerate() {
        if *c {
            kset[g].clone_from(&all);
        }
    }
    // Kernel set of every `.shared` declaration.
    for (f, body) in bodies.iter().enumerate() {
        for key in &body.local_shared {
            out.of_decl.insert(*key, kset[f].clone());
        }
        for name in &body.names {
            for key in shared_names.get(name.as_str()).into_iter().flatten() {
                let s = out.of_decl.entry(*key).or_insert_with(|| vec![0; words]);
                for (a, b) in s.iter_mut().zip(&kset[f]) {
                    *a |= b;
                }
            }
        }
    }
    out
}

/// Whether the module can make a generic address of another CTA's shared memory: some
/// function uses `mapa` or `cvta.shared::cluster` (the only sources of such addresses;
/// a generic shared address passed between CTAs names the reader's own window, as on a
/// GPU). Then `cvta.to.shared` must map a remote window's generic address to its
/// `.shared::cluster` address (see `Cx::remote_shared`).
pub fn makes_remote_generic(ast: &ast::Module) -> bool {
    fn scan(b: &ast::Block, depth: u32) -> bool {
        depth <= crate::parse::MAX_DEPTH
            && b.stmts.iter().any(|s| match s {
                Stmt::Inst(i) => {
                    i.opcode.name == "mapa"
                        || (i.opcode.name == "cvta"
                            && !i.mods.iter().any(|m| m.name == "to")
                            && i.mods.iter().any(|m| m.name == "shared::cluster"))
                }
                Stmt::Block(inner) => scan(inner, depth + 1),
                _ => false,
            })
    }
    ast.items.iter().any(|item| match item {
        Item::Func(f) => f.body.as_ref().is_some_and(|b| scan(b, 0)),
        _ => false,
    })
}
