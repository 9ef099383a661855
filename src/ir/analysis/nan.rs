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
use crate::ir::{AddrBase, ArithOp, Function, Inst, InstKind, Operand, RegId, Space, Type};

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

/// The `.f32`/`.f64` registers whose NaN is always the canonical NaN on a GPU and whose
/// bits only stores and moves observe. Every definition is an f32/f64 `add sub mul mad
/// fma div` of the register's type without `.sat` (a NaN result is the canonical NaN),
/// a `mov` of a non-NaN immediate, or a `mov` from such a register (the largest such
/// set); every read is NaN-blind (see [`nan_blind`]), the data of an `st` outside
/// `.local`, or the source of a `mov` of the register's type. The JIT writes such a
/// register without the canonical-NaN select and replaces a NaN by the canonical NaN
/// where an instruction reads it as an operand, which gives stores and moves the GPU's
/// bits (e.g. an accumulator `acc = fma(x, y, acc)` in a loop, stored after it: one
/// select per store instead of one per iteration).
pub fn nan_lazy(f: &Function) -> RegSet {
    let n = f.regs.len();
    let rty = |r: RegId| f.regs.get(r).map(|x| x.ty);
    let mut bad = RegSet::new(n);
    for (r, info) in f.regs.iter_enumerated() {
        if !matches!(info.ty, Type::F32 | Type::F64) {
            bad.insert(r);
        }
    }
    for b in &f.blocks {
        for i in &b.insts {
            let eff = inst_effect(f, i);
            let blind = blind_srcs(i);
            let ok_read = |r: RegId| {
                let op = Operand::Reg(r);
                match &i.kind {
                    InstKind::St {
                        space, srcs, addr, ..
                    } => {
                        *space != Space::Local
                            && srcs.contains(&op)
                            && addr.base != AddrBase::Reg(r)
                    }
                    InstKind::Mov { ty, src, .. } => *src == op && rty(r) == Some(*ty),
                    _ => blind.contains(&op),
                }
            };
            for r in eff.uses {
                if !ok_read(r) {
                    bad.insert(r);
                }
            }
            let canonical_def = match &i.kind {
                InstKind::Arith { op, ty, fmode, .. } => {
                    !fmode.sat
                        && matches!(
                            op,
                            ArithOp::Add
                                | ArithOp::Sub
                                | ArithOp::Mul(_)
                                | ArithOp::Mad(_)
                                | ArithOp::Fma
                                | ArithOp::Div(_)
                        )
                        && matches!(ty, Type::F32 | Type::F64)
                }
                InstKind::Mov {
                    ty,
                    src: Operand::Imm(v),
                    ..
                } => match ty {
                    Type::F32 => !f32::from_bits(*v as u32).is_nan(),
                    Type::F64 => !f64::from_bits(*v).is_nan(),
                    _ => false,
                },
                // A copy: checked below, with the source's set.
                InstKind::Mov {
                    src: Operand::Reg(_),
                    ..
                } => true,
                _ => false,
            };
            for d in eff.defs {
                let same = match &i.kind {
                    InstKind::Arith { ty, .. } | InstKind::Mov { ty, .. } => rty(d) == Some(*ty),
                    _ => false,
                };
                if !(canonical_def && same) {
                    bad.insert(d);
                }
            }
        }
        let eff = term_effect(f, &b.term);
        for r in eff.uses.into_iter().chain(eff.defs) {
            bad.insert(r);
        }
    }
    // A copy of a register outside the set leaves its destination out too.
    loop {
        let mut changed = false;
        for b in &f.blocks {
            for i in &b.insts {
                if let InstKind::Mov {
                    dst,
                    src: Operand::Reg(s),
                    ..
                } = &i.kind
                {
                    if bad.contains(*s) && !bad.contains(*dst) {
                        bad.insert(*dst);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut lazy = RegSet::new(n);
    for r in f.regs.ids() {
        if !bad.contains(r) {
            lazy.insert(r);
        }
    }
    lazy
}
