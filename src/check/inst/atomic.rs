//! Lowering of `atom` and `red` into [`InstKind::Atom`]: `.sem` (`.relaxed .acquire
//! .release .acq_rel`) and `.scope` (`.cta .cluster .gpu .sys`) are accepted (host atomics
//! are sequentially consistent), `.space` is `.global`, `.shared{::cta}` or generic,
//! `.L2::cache_hint` takes its policy operand, and `.noftz` is required on the half
//! types as in the ISA. The vector forms (`.v2 .v4` of `.f32` add, `.v2 .v4 .v8` of
//! `.f16`/`.bf16` and `.v2 .v4` of `.f16x2`/`.bf16x2` add/min/max, global memory) lower to
//! one scalar atomic per element at consecutive addresses: the ISA guarantees atomicity
//! per element only. `.b128` forms are load-time errors.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{AtomOp, InstKind, Operand, RegId, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `atom{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}.type d, [a], b{, c}{, policy}`
    /// and `red...type [a], b{, policy}`.
    pub(in crate::check) fn atom(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let red = i.opcode.name == "red";
        // PTX ISA: `atom`'s `.sem` is `.relaxed .acquire .release .acq_rel`, `red`'s only
        // `.relaxed .release` (a reduction returns nothing to acquire); ptxas 12.9:
        // "Illegal modifier '.acquire' for instruction 'red'".
        if let Some(sem) = m.one_of(&["relaxed", "acquire", "release", "acq_rel"]) {
            if red && matches!(sem, "acquire" | "acq_rel") {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'.{sem}' is not valid for '{}': red's .sem is .relaxed or .release",
                        m.text
                    ),
                ));
            }
        }
        m.one_of(&["cta", "cluster", "gpu", "sys"]);
        let vec = self.vec_mod(m);
        let hint = m.has("L2::cache_hint");
        let space = self.space_mod(m, false)?;
        if !matches!(
            space,
            Space::Global | Space::Shared | Space::SharedCluster | Space::Generic
        ) {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}' must address .global, .shared or generic memory",
                    m.text
                ),
            ));
        }
        let op = match m.one_of(&[
            "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas",
        ]) {
            Some("add") => AtomOp::Add,
            Some("min") => AtomOp::Min,
            Some("max") => AtomOp::Max,
            Some("inc") => AtomOp::Inc,
            Some("dec") => AtomOp::Dec,
            Some("and") => AtomOp::And,
            Some("or") => AtomOp::Or,
            Some("xor") => AtomOp::Xor,
            Some("exch") => AtomOp::Exch,
            Some(_) => AtomOp::Cas,
            None => return Err(self.err(m.loc, format!("'{}' needs an operation", m.text))),
        };
        let noftz = m.has("noftz");
        let ts = m.types();
        let ty = match ts.as_slice() {
            [(t, _)] => *t,
            [] => return Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            [_, (_, l), ..] => {
                return Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
        };
        if ty == Type::B128 {
            return Err(self.unsupported(m));
        }
        let half = matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2);
        if half && op == AtomOp::Add && !noftz {
            return Err(self.err(m.loc, format!("'{}' needs '.noftz'", m.text)));
        }
        let valid = match vec {
            None => crate::ops::atomic::valid(op, ty) && noftz == half,
            Some(n) => {
                let ops_ok = match ty {
                    Type::F32 => op == AtomOp::Add && !noftz && n <= 4,
                    Type::F16 | Type::BF16 => {
                        matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max) && noftz
                    }
                    Type::F16x2 | Type::BF16x2 => {
                        matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max) && noftz && n <= 4
                    }
                    _ => false,
                };
                ops_ok && matches!(space, Space::Global | Space::Generic)
            }
        };
        if !valid || (red && matches!(op, AtomOp::Cas | AtomOp::Exch)) {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        let nsrc = if op == AtomOp::Cas { 2 } else { 1 };
        let first = if red { 0 } else { 1 };
        self.cache_hint(i, m, hint, first + 1 + nsrc)?;
        let addr = self.address(&i.operands[first], space)?;
        let Some(n) = vec else {
            let dst = if red {
                None
            } else {
                // Unlike `ld`/`st`, `atom`/`red` operands have exactly the instruction
                // type's size (ptxas rejects `atom.global.add.u32 %rd, [a], 1`).
                Some(self.dst(&i.operands[0], ty, Fit::Strict)?)
            };
            let mut srcs = Vec::with_capacity(nsrc);
            for op in &i.operands[first + 1..first + 1 + nsrc] {
                srcs.push(self.src(op, ty, Fit::Strict)?);
            }
            return Ok(vec![InstKind::Atom {
                op,
                ty,
                space,
                dst,
                addr,
                srcs,
            }]);
        };
        let dsts: Vec<Option<RegId>> = if red {
            vec![None; n]
        } else {
            self.atom_vec_dsts(&i.operands[0], ty, n)?
        };
        let srcs = self.atom_vec_srcs(&i.operands[first + 1], ty, n)?;
        let mut out = Vec::with_capacity(n);
        for (k, (dst, src)) in dsts.into_iter().zip(srcs).enumerate() {
            let mut a = addr;
            a.offset = a.offset.wrapping_add((k as u32 * ty.bytes()) as i64);
            out.push(InstKind::Atom {
                op,
                ty,
                space,
                dst,
                addr: a,
                srcs: vec![src],
            });
        }
        Ok(out)
    }

    pub(super) fn atom_vec_dsts(
        &self,
        d: &ast::Operand,
        ty: Type,
        n: usize,
    ) -> Result<Vec<Option<RegId>>, PtxError> {
        self.vector_dsts(d, &vec![ty; n], Fit::Relaxed, |_| {
            format!("expected a vector of {n} elements")
        })
    }

    pub(super) fn atom_vec_srcs(
        &self,
        s: &ast::Operand,
        ty: Type,
        n: usize,
    ) -> Result<Vec<Operand>, PtxError> {
        self.vector_srcs(s, &vec![ty; n], Fit::Relaxed, |_| {
            format!("expected a vector of {n} elements")
        })
    }
}
