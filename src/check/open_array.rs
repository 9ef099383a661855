//! Unsized `.param` array parameters (`.func f(.param .u32 n, .param .b8 args[])`, PTX
//! ISA 6.0): the size of their frame slot.
//!
//! The ISA: "The last parameter in the parameter list may be a `.param` array ... with no
//! size specified. It is used to pass an arbitrary number of parameters to the function
//! packed into a single array object." A `.func`'s parameters live at fixed offsets of its
//! `.local` frame ([`super::call`]), so the slot of an unsized array gets the size of the
//! largest array any call in the module passes for it: a direct call's argument counts
//! for its callee, an indirect call's last argument for every function with an unsized
//! parameter (and for `.callprototype`s with one). Calls pass smaller arrays, or none
//! (the argument may be omitted), and the bytes past them read as undefined, as the ISA
//! says. The module is complete (no linking), so every call is seen before any
//! signature is laid out.

use super::func::Fx;
use super::{Cx, ModSym};
use crate::ir::{FuncId, FuncKind, Type};
use crate::parse::ast::{self, DeclSpace, ExprKind, Item, Operand, Stmt};
use crate::parse::PtxError;
use std::collections::HashMap;

/// The slot sizes found by [`scan`].
#[derive(Debug, Default)]
pub struct UnsizedArgs {
    /// The largest array a direct call passes to each function's unsized parameter.
    pub direct: HashMap<FuncId, u32>,
    /// The largest call-site `.param` array passed last to an indirect call.
    pub indirect: u32,
}

impl UnsizedArgs {
    /// The slot size of `f`'s unsized parameter.
    pub fn of(&self, f: FuncId) -> u32 {
        self.direct.get(&f).copied().unwrap_or(0).max(self.indirect)
    }
}

/// Whether `p` is an unsized array (`name[]`).
pub fn is_unsized(p: &ast::ParamDecl) -> bool {
    p.dims.first().is_some_and(|d| d.is_none())
}

/// Finds, for every function with an unsized last parameter, the largest array passed for
/// it (see the module documentation).
pub fn scan(cx: &Cx, m: &ast::Module) -> UnsizedArgs {
    let decls: HashMap<&str, &ast::FuncDecl> = m
        .items
        .iter()
        .filter_map(|it| match it {
            Item::Func(f) => Some((f.name.name.as_str(), &**f)),
            _ => None,
        })
        .filter(|(_, f)| f.params.last().is_some_and(is_unsized))
        .collect();
    let mut out = UnsizedArgs::default();
    if decls.is_empty() {
        return out;
    }
    for it in &m.items {
        let Item::Func(f) = it else { continue };
        let Some(body) = &f.body else { continue };
        let mut sizes = HashMap::new();
        param_sizes(cx, body, &mut sizes);
        calls(cx, body, &decls, &sizes, &mut out);
    }
    out
}

/// The size of every call-site `.param` array declared in `b` (the largest one of a name
/// declared in several blocks).
fn param_sizes<'a>(cx: &Cx, b: &'a ast::Block, out: &mut HashMap<&'a str, u32>) {
    for s in &b.stmts {
        match s {
            Stmt::Var(v) if v.space == DeclSpace::Param => {
                for n in v.names.iter().filter(|n| !n.dims.is_empty()) {
                    let Ok(lay) = cx.layout(&v.dtype, &n.dims, None, n.name.loc) else {
                        continue;
                    };
                    let size = u32::try_from(lay.size()).unwrap_or(u32::MAX);
                    let e = out.entry(n.name.name.as_str()).or_insert(0);
                    *e = (*e).max(size);
                }
            }
            Stmt::Block(inner) => param_sizes(cx, inner, out),
            _ => {}
        }
    }
}

/// Records the arrays passed by the calls in `b`.
fn calls(
    cx: &Cx,
    b: &ast::Block,
    decls: &HashMap<&str, &ast::FuncDecl>,
    sizes: &HashMap<&str, u32>,
    out: &mut UnsizedArgs,
) {
    let name_of = |op: &Operand| match op {
        Operand::Value(ast::Expr {
            kind: ExprKind::Sym { name, comp: None },
            ..
        }) => Some(name.clone()),
        _ => None,
    };
    for s in &b.stmts {
        let i = match s {
            Stmt::Inst(i) if i.opcode.name == "call" => i,
            Stmt::Block(inner) => {
                calls(cx, inner, decls, sizes, out);
                continue;
            }
            _ => continue,
        };
        let ops = &i.operands;
        let k = usize::from(matches!(ops.first(), Some(Operand::List(..))));
        let Some(target) = ops.get(k).and_then(name_of) else {
            continue;
        };
        let Some(Operand::List(args, _)) = ops.get(k + 1) else {
            continue;
        };
        let Some(size) = args
            .last()
            .and_then(name_of)
            .and_then(|n| sizes.get(n.as_str()))
        else {
            continue;
        };
        match (cx.syms.get(&target), decls.get(target.as_str())) {
            (Some(ModSym::Func(id)), Some(d)) if args.len() == d.params.len() => {
                let e = out.direct.entry(*id).or_insert(0);
                *e = (*e).max(*size);
            }
            (Some(ModSym::Func(_)), _) => {}
            // A register (or an unknown name, an error later): an indirect call.
            _ => out.indirect = out.indirect.max(*size),
        }
    }
}

impl Fx<'_, '_> {
    /// The element count of unsized parameter `p` (element type `ty`), `bytes` long;
    /// `last`: it is the last input parameter. ptxas 12.9's rules: only the last input
    /// parameter of a `.func` ("Only the last input parameter can be an incomplete
    /// array"; "Output parameter cannot be ..."; "Parameter to entry function cannot be
    /// ..."), in `.param` space, one dimension, PTX ISA 6.0 and sm_30.
    pub(super) fn unsized_param(
        &self,
        p: &ast::ParamDecl,
        ty: Type,
        last: bool,
        bytes: u32,
    ) -> Result<u32, PtxError> {
        let loc = p.name.loc;
        if self.kind == FuncKind::Entry {
            return Err(self.err(loc, "a kernel parameter cannot be an unsized array"));
        }
        if p.space != DeclSpace::Param {
            return Err(self.err(
                loc,
                "an unsized array parameter must be in the '.param' space",
            ));
        }
        if !last {
            return Err(self.err(
                loc,
                "only the last input parameter can be an unsized array (not a return value)",
            ));
        }
        if p.dims.len() > 1 {
            return Err(self.err(loc, "an unsized array parameter has one dimension"));
        }
        let have = self.cx.m.version;
        if have != (0, 0) && have < (6, 0) {
            return Err(self.err(
                loc,
                format!(
                    "unsized array parameters require PTX ISA .version 6.0 or later (this module is {}.{})",
                    have.0, have.1
                ),
            ));
        }
        if let Some(sm) = self.target_sm().filter(|&s| s < 30) {
            return Err(self.err(
                loc,
                format!("unsized array parameters require .target sm_30 or higher (this module targets sm_{sm})"),
            ));
        }
        let elem = ty.bytes().max(1) * p.dtype.vec.unwrap_or(1);
        Ok(bytes.div_ceil(elem) * p.dtype.vec.unwrap_or(1))
    }
}
