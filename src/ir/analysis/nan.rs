//! Registers whose NaN bits no instruction observes: every read of them is an operand of
//! an operation whose result depends only on whether the operand is a NaN, never on
//! which NaN it is. The JIT writes a float result to such a register without replacing
//! the host's NaN by the GPU's canonical NaN (`crate::ops::float::canonical_nan`): the
//! readers give the same bits either way (issue 14, item 8: the canonical-NaN select
//! was a sixth of the CLIF of float code).
//!
//! NaN-blind reads (as `crate::ops::float` computes them, and the JIT with it):
//! - the sources of f32/f64 `add sub mul mad fma div min max` in every rounding mode
//!   (a NaN result is the canonical NaN; `min`/`max` return the other operand or the
//!   canonical NaN), and of f32 `neg abs` (a NaN gives the canonical NaN; the f64 forms
//!   pass the NaN's payload through, so they observe it);
//! - the float operands of `setp` and `set` (comparisons), and of `testp` (a class);
//! - the source of `sqrt`/`rcp`/`rsqrt`/`sin`/`cos`/`lg2`/`ex2`/`tanh` on f32 and the
//!   non-`.approx` f64 forms (a NaN gives the canonical NaN; the f64 `.approx` forms
//!   read only the upper word).
//!
//! Every other read (moves, stores, conversions, bit operations, call arguments,
//! terminators, guards, addresses) observes the bits. The set is per function: a
//! register is blind only if all its reads anywhere are blind.

use crate::ir::analysis::liveness::{inst_effect, term_effect, RegSet};
use crate::ir::{ArithOp, Function, Inst, InstKind, Operand, Type};

/// The registers of `f` whose reads never observe which NaN they hold.
pub fn nan_blind(f: &Function) -> RegSet {
    let n = f.regs.len();
    let mut observed = RegSet::new(n);
    for b in &f.blocks {
        for i in &b.insts {
            let blind = blind_srcs(i);
            for r in inst_effect(f, i).uses {
                if !blind.contains(&Operand::Reg(r)) {
                    observed.insert(r);
                }
            }
        }
        for r in term_effect(f, &b.term).uses {
            observed.insert(r);
        }
    }
    let mut blind = RegSet::new(n);
    for r in f.regs.ids() {
        if !observed.contains(r) {
            blind.insert(r);
        }
    }
    blind
}

/// The operands of `i` that it reads NaN-blind (a register also read otherwise by the
/// same instruction, e.g. as its guard, is observed through that read).
fn blind_srcs(i: &Inst) -> Vec<Operand> {
    let float = |t: Type| matches!(t, Type::F32 | Type::F64);
    let mut out = Vec::new();
    match &i.kind {
        InstKind::Arith { op, ty, srcs, .. } if float(*ty) => {
            let ok = match op {
                ArithOp::Add
                | ArithOp::Sub
                | ArithOp::Mul(_)
                | ArithOp::Mad(_)
                | ArithOp::Fma
                | ArithOp::Div(_)
                | ArithOp::Min
                | ArithOp::Max => true,
                ArithOp::Neg | ArithOp::Abs => *ty == Type::F32,
                _ => false,
            };
            if ok {
                out.extend(srcs.iter().copied());
            }
        }
        InstKind::Setp { ty, a, b, .. } | InstKind::Set { ty, a, b, .. } if float(*ty) => {
            out.extend([*a, *b]);
        }
        InstKind::Testp { ty, src, .. } if float(*ty) => out.push(*src),
        InstKind::Sfu {
            ty, approx, src, ..
        } if *ty == Type::F32 || (*ty == Type::F64 && !*approx) => out.push(*src),
        _ => {}
    }
    out
}
