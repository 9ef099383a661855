//! Declarations that declare more return values than their definition has.
//!
//! NVIDIA's linker resolves functions by name: nvJitLink 12.9 given a module that
//! declares `.extern .func (.param .b64 r) f (.param .b64 p)` and one that defines
//! `.func f (.param .b64 p)` logs "Prototype doesn't match for 'f'" and still links
//! (numba-cuda declares a C-ABI `void` function of `declare_device(..., abi="c")` that
//! way, with a return value NVRTC's definition lacks). On a GPU the caller then reads
//! whatever its return register held. ptxjit accepts this one kind of mismatch and
//! makes it defined: when a declaration's parameters match the definition's and its
//! return values are the definition's followed by more, every call in the declaring
//! module gets **zero** in each extra return value (the call keeps the definition's
//! return values; after it, a `mov` or `st.param` of 0, under the call's guard, sets
//! each extra one). Other mismatches stay link errors.

use crate::ir::Type;
use crate::parse::ast;

/// The extra return values of a declaration, if it is the kind of mismatch this
/// module adapts: same kind and parameters as `def` (compared with `same`), and
/// `def`'s return values followed by scalar ones of 1, 2, 4 or 8 bytes.
pub(super) fn extra_rets(
    def: &ast::FuncDecl,
    decl: &ast::FuncDecl,
    same: impl Fn(&[ast::ParamDecl], &[ast::ParamDecl]) -> bool,
) -> Option<Vec<Type>> {
    let n = def.rets.len();
    if def.kind != decl.kind
        || !same(&def.params, &decl.params)
        || decl.rets.len() <= n
        || !same(&def.rets, &decl.rets[..n])
    {
        return None;
    }
    decl.rets[n..]
        .iter()
        .map(|r| match (&r.dtype.ty, r.dtype.vec, r.dims.is_empty()) {
            (ast::ElemType::Scalar(t), None, true) => bits_type(t.bytes()),
            _ => None,
        })
        .collect()
}

fn bits_type(bytes: u32) -> Option<Type> {
    match bytes {
        1 => Some(Type::B8),
        2 => Some(Type::B16),
        4 => Some(Type::B32),
        8 => Some(Type::B64),
        _ => None,
    }
}

/// Rewrites every call of `name` in `m` that lists `kept + extra.len()` return values:
/// the call keeps the first `kept`, and each extra one is set to zero after it.
pub(super) fn adapt_calls(m: &mut ast::Module, name: &str, kept: usize, extra: &[Type]) {
    for item in &mut m.items {
        if let ast::Item::Func(f) = item {
            if let Some(body) = &mut f.body {
                let mut params = Vec::new();
                block(body, name, kept, extra, &mut params);
            }
        }
    }
}

/// `params`: the call-site `.param` variables of the enclosing blocks.
fn block(b: &mut ast::Block, name: &str, kept: usize, extra: &[Type], params: &mut Vec<String>) {
    let outer = params.len();
    for s in &b.stmts {
        if let ast::Stmt::Var(v) = s {
            if v.space == ast::DeclSpace::Param {
                params.extend(v.names.iter().map(|n| n.name.name.clone()));
            }
        }
    }
    let mut k = 0;
    while k < b.stmts.len() {
        let zeros = match &mut b.stmts[k] {
            ast::Stmt::Block(inner) => {
                block(inner, name, kept, extra, params);
                Vec::new()
            }
            ast::Stmt::Inst(i) => adapt_call(i, name, kept, extra, params),
            _ => Vec::new(),
        };
        let n = zeros.len();
        for (j, z) in zeros.into_iter().enumerate() {
            b.stmts.insert(k + 1 + j, ast::Stmt::Inst(z));
        }
        k += 1 + n;
    }
    params.truncate(outer);
}

/// If `i` is such a call, drops its extra return operands and returns the
/// instructions that zero them.
fn adapt_call(
    i: &mut ast::Instruction,
    name: &str,
    kept: usize,
    extra: &[Type],
    params: &[String],
) -> Vec<ast::Instruction> {
    if i.opcode.name != "call" {
        return Vec::new();
    }
    let calls_it = matches!(
        i.operands.get(1),
        Some(ast::Operand::Value(ast::Expr { kind: ast::ExprKind::Sym { name: n, .. }, .. })) if n == name
    );
    let rets = match i.operands.first() {
        Some(ast::Operand::List(v, _)) if calls_it && v.len() == kept + extra.len() => v.clone(),
        _ => return Vec::new(),
    };
    if kept == 0 {
        i.operands.remove(0);
    } else if let Some(ast::Operand::List(v, _)) = i.operands.first_mut() {
        v.truncate(kept);
    }
    rets[kept..]
        .iter()
        .zip(extra)
        .map(|(op, &ty)| zero(op, ty, i, params))
        .collect()
}

/// `st.param.ty [op], 0` for a call-site `.param` variable, `mov.ty op, 0` otherwise,
/// under the call's guard.
fn zero(
    op: &ast::Operand,
    ty: Type,
    call: &ast::Instruction,
    params: &[String],
) -> ast::Instruction {
    let loc = call.loc;
    let id = |s: &str| ast::Ident {
        name: s.to_string(),
        loc,
    };
    let is_param = matches!(
        op,
        ast::Operand::Value(ast::Expr { kind: ast::ExprKind::Sym { name, comp: None }, .. })
            if params.contains(name)
    );
    let imm = ast::Operand::Value(ast::Expr {
        kind: ast::ExprKind::Num(ast::NumLit::Int {
            bits: 0,
            unsigned: false,
        }),
        loc,
    });
    let (opcode, mods, dst) = match is_param {
        true => (
            "st",
            vec![id("param"), id(ty.name())],
            ast::Operand::Bracket(vec![op.clone()], loc),
        ),
        false => ("mov", vec![id(ty.name())], op.clone()),
    };
    ast::Instruction {
        loc,
        guard: call.guard.clone(),
        opcode: id(opcode),
        mods,
        operands: vec![dst, imm],
    }
}
