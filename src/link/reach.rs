//! Dead-function elimination of a linked module, as NVIDIA's linker does it: a function
//! is kept when a kernel (`.entry`) can reach it through calls and function addresses,
//! or when a module-scope variable's initializer names it (a call table, even one no
//! code reads). Other functions are dropped before the module is checked, so a call to
//! an undefined function inside one of them is no link error.
//!
//! This is what nvJitLink 12.9 does with relocatable PTX (checked with
//! `nvJitLinkAddData(NVJITLINK_INPUT_PTX)` on `-arch=sm_80`): a `.func` no kernel calls
//! may call an `.extern .func` that no input defines and the link succeeds; the same
//! call reached from a kernel, or from a function a `.global` initializer names (even an
//! unreferenced, internal one), or whose address a kernel takes with `mov`, is
//! "Undefined reference". It is what lets a program link `libcudadevrt.a`, whose PTX
//! calls the driver's device-runtime system calls in functions most programs never
//! reach. (Whole-program `ptxas`, i.e. `cuModuleLoadData` of one PTX file, reports
//! every unresolved extern function; that path does not link.)
//!
//! Names are collected without regard to shadowing: a register named like a function
//! keeps that function, which only ever keeps more than needed.

use crate::ir::FuncKind;
use crate::parse::ast;
use std::collections::{HashMap, HashSet};

/// The names of the functions of `items` (a merged module: one definition per linked
/// name, internal names already unique) that are kept: reachable from an entry or a
/// variable initializer.
pub(super) fn reachable(items: &[ast::Item]) -> HashSet<String> {
    let mut edges: HashMap<&str, Vec<String>> = HashMap::new();
    let mut work: Vec<String> = Vec::new();
    for item in items {
        match item {
            ast::Item::Func(f) => {
                if f.kind == FuncKind::Entry {
                    work.push(f.name.name.clone());
                }
                if let Some(body) = &f.body {
                    let mut names = Vec::new();
                    block_names(body, &mut names);
                    edges.entry(f.name.name.as_str()).or_default().extend(names);
                }
            }
            ast::Item::Var(v) => {
                for n in &v.names {
                    if let Some(init) = &n.init {
                        init_names(init, &mut work);
                    }
                }
            }
            ast::Item::Alias { alias, target, .. } => {
                edges
                    .entry(alias.name.as_str())
                    .or_default()
                    .push(target.name.clone());
            }
        }
    }
    let mut seen = HashSet::new();
    while let Some(n) = work.pop() {
        if let Some(next) = edges.get(n.as_str()) {
            work.extend(next.iter().filter(|m| !seen.contains(*m)).cloned());
        }
        seen.insert(n);
    }
    seen
}

/// Drops the functions (definitions and declarations) of `items` not in `keep`; entries
/// are always kept.
pub(super) fn prune(items: &mut Vec<ast::Item>, keep: &HashSet<String>) {
    items.retain(|item| match item {
        ast::Item::Func(f) => f.kind == FuncKind::Entry || keep.contains(&f.name.name),
        _ => true,
    });
}

fn block_names(b: &ast::Block, out: &mut Vec<String>) {
    for s in &b.stmts {
        match s {
            ast::Stmt::Inst(i) => i.operands.iter().for_each(|o| operand_names(o, out)),
            ast::Stmt::Var(v) => v
                .names
                .iter()
                .filter_map(|n| n.init.as_ref())
                .for_each(|i| init_names(i, out)),
            ast::Stmt::Block(inner) => block_names(inner, out),
            ast::Stmt::CallTargets { targets, .. } => {
                out.extend(targets.iter().map(|t| t.name.clone()))
            }
            _ => {}
        }
    }
}

fn init_names(i: &ast::Init, out: &mut Vec<String>) {
    match i {
        ast::Init::Expr(e) => expr_names(e, out),
        ast::Init::List(items, _) => items.iter().for_each(|i| init_names(i, out)),
        ast::Init::Field(..) => {}
    }
}

fn operand_names(o: &ast::Operand, out: &mut Vec<String>) {
    match o {
        ast::Operand::Value(e) => expr_names(e, out),
        ast::Operand::Sink(_) | ast::Operand::Not(_) => {}
        ast::Operand::Pair(a, b) => {
            operand_names(a, out);
            operand_names(b, out);
        }
        ast::Operand::Vector(v, _) | ast::Operand::Bracket(v, _) | ast::Operand::List(v, _) => {
            v.iter().for_each(|o| operand_names(o, out))
        }
    }
}

fn expr_names(e: &ast::Expr, out: &mut Vec<String>) {
    match &e.kind {
        ast::ExprKind::Num(_) => {}
        ast::ExprKind::Sym { name, .. } => out.push(name.clone()),
        ast::ExprKind::Generic(id) => out.push(id.name.clone()),
        ast::ExprKind::Mask(_, inner) | ast::ExprKind::Unary(_, inner) => expr_names(inner, out),
        ast::ExprKind::Binary(_, a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
    }
}
