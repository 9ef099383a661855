//! Renaming of a module's internal names in its AST (declarations and every reference),
//! respecting names that function parameters and block-scope declarations shadow.

use crate::parse::ast;
use std::collections::{HashMap, HashSet};

/// Renames the module-scope names in `map` (old → new) throughout `m`.
pub(super) fn rename_module(m: &mut ast::Module, map: &HashMap<String, String>) {
    if map.is_empty() {
        return;
    }
    let mut r = Renamer {
        map,
        shadow: Vec::new(),
    };
    for item in &mut m.items {
        match item {
            ast::Item::Func(f) => r.func(f),
            ast::Item::Var(v) => r.var(v, true),
            ast::Item::Alias { alias, target, .. } => {
                r.ident(alias);
                r.ident(target);
            }
        }
    }
}

struct Renamer<'a> {
    map: &'a HashMap<String, String>,
    /// Names declared by the enclosing scopes (innermost last).
    shadow: Vec<HashSet<String>>,
}

impl Renamer<'_> {
    fn renamed(&self, name: &str) -> Option<&String> {
        if self.shadow.iter().any(|s| s.contains(name)) {
            return None;
        }
        self.map.get(name)
    }

    fn ident(&self, id: &mut ast::Ident) {
        if let Some(n) = self.renamed(&id.name) {
            id.name = n.clone();
        }
    }

    fn func(&mut self, f: &mut ast::FuncDecl) {
        self.ident(&mut f.name);
        let Some(body) = &mut f.body else {
            return;
        };
        let params = f
            .params
            .iter()
            .chain(&f.rets)
            .map(|p| p.name.name.clone())
            .collect();
        self.shadow.push(params);
        self.block(body);
        self.shadow.pop();
    }

    /// A variable declaration: its names (at module scope) and initializers.
    fn var(&mut self, v: &mut ast::VarDecl, module_scope: bool) {
        for n in &mut v.names {
            if module_scope {
                self.ident(&mut n.name);
            }
            if let Some(init) = &mut n.init {
                self.init(init);
            }
        }
    }

    fn init(&self, i: &mut ast::Init) {
        match i {
            ast::Init::Expr(e) => self.expr(e),
            ast::Init::List(items, _) => items.iter_mut().for_each(|i| self.init(i)),
            // The value is an enumerator of the field, not a symbol.
            ast::Init::Field(..) => {}
        }
    }

    fn block(&mut self, b: &mut ast::Block) {
        let mut declared = HashSet::new();
        for s in &b.stmts {
            match s {
                ast::Stmt::Var(v) => declared.extend(v.names.iter().map(|n| n.name.name.clone())),
                ast::Stmt::Label(l)
                | ast::Stmt::BranchTargets { label: l, .. }
                | ast::Stmt::CallTargets { label: l, .. }
                | ast::Stmt::CallPrototype { label: l, .. } => {
                    declared.insert(l.name.clone());
                }
                _ => {}
            }
        }
        self.shadow.push(declared);
        for s in &mut b.stmts {
            match s {
                ast::Stmt::Inst(i) => i.operands.iter_mut().for_each(|o| self.operand(o)),
                ast::Stmt::Var(v) => self.var(v, false),
                ast::Stmt::Block(inner) => self.block(inner),
                ast::Stmt::CallTargets { targets, .. } => {
                    targets.iter_mut().for_each(|t| self.ident(t))
                }
                _ => {}
            }
        }
        self.shadow.pop();
    }

    fn operand(&self, o: &mut ast::Operand) {
        match o {
            ast::Operand::Value(e) => self.expr(e),
            ast::Operand::Sink(_) | ast::Operand::Not(_) => {}
            ast::Operand::Pair(a, b) => {
                self.operand(a);
                self.operand(b);
            }
            ast::Operand::Vector(v, _) | ast::Operand::Bracket(v, _) | ast::Operand::List(v, _) => {
                v.iter_mut().for_each(|o| self.operand(o))
            }
        }
    }

    fn expr(&self, e: &mut ast::Expr) {
        match &mut e.kind {
            ast::ExprKind::Num(_) => {}
            ast::ExprKind::Sym { name, .. } => {
                if let Some(n) = self.renamed(name) {
                    *name = n.clone();
                }
            }
            ast::ExprKind::Generic(id) => self.ident(id),
            ast::ExprKind::Mask(_, inner) | ast::ExprKind::Unary(_, inner) => self.expr(inner),
            ast::ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
        }
    }
}
