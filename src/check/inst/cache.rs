//! The cache-control and dependent-launch instructions, which change no value a kernel
//! can observe on a CPU: `createpolicy` (an opaque 64-bit cache policy, here 0),
//! `applypriority.global.L2::evict_normal [a], size`, `discard.global.L2 [a], 128`
//! (the line's contents become indeterminate; keeping them is one of the allowed
//! outcomes) and `griddepcontrol.{launch_dependents,wait}` (programmatic dependent
//! launch: launches here run one after the other, so the prerequisite grid has always
//! completed). Operands are checked like any others, then dropped.

use super::{Lowered, Mods};
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{InstKind, Operand, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// The opcodes of this file.
pub(super) const CACHE_OPCODES: &[&str] =
    &["createpolicy", "applypriority", "discard", "griddepcontrol"];

impl Fx<'_, '_> {
    pub(super) fn cache_inst(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Lowered, PtxError> {
        let (text, loc) = (m.text.clone(), m.loc);
        let bad = |fx: &Self, what: &str| Err(fx.err(loc, format!("'{text}': {what}")));
        match i.opcode.name.as_str() {
            "griddepcontrol" => {
                if m.one_of(&["launch_dependents", "wait"]).is_none() {
                    return bad(self, "needs '.launch_dependents' or '.wait'");
                }
                self.nops(i, m, 0)?;
                Ok(Lowered::Insts(vec![]))
            }
            "discard" | "applypriority" => {
                let space = if m.has("global") {
                    Space::Global
                } else {
                    Space::Generic
                };
                let level = if i.opcode.name == "discard" {
                    "L2"
                } else {
                    "L2::evict_normal"
                };
                if !m.has(level) {
                    return bad(self, &format!("needs '.{level}'"));
                }
                self.nops(i, m, 2)?;
                self.address(&i.operands[0], space)?;
                match self.src(&i.operands[1], Type::U64, Fit::Relaxed)? {
                    Operand::Imm(128) => Ok(Lowered::Insts(vec![])),
                    _ => bad(self, "the size must be the immediate 128"),
                }
            }
            _ => {
                // createpolicy.fractional.L2::p{.L2::s}.b64 d{, fraction}
                // createpolicy.range{.global}.L2::p{.L2::s}.b64 d, [a], primary, total
                // createpolicy.cvt.L2.b64 d, access-property
                let form = m.one_of(&["fractional", "range", "cvt"]);
                // Only `.range` takes the state space (ptxas 12.9: "No state space
                // qualifier expected for instruction 'createpolicy.fractional'").
                if m.has("global") && form != Some("range") {
                    return bad(self, "takes no state space; only '.range' allows '.global'");
                }
                // PTX ISA, createpolicy: `.range` and `.fractional` need a
                // `.level::primary_priority` (ptxas 12.9: "cache eviction priority
                // modifier required for instruction 'createpolicy.fractional'"), `.cvt`
                // the level `.L2`; a second priority is `.L2::evict_first` or
                // `.L2::evict_unchanged`.
                if form == Some("cvt") {
                    if !m.has("L2") {
                        return bad(self, "needs '.L2'");
                    }
                } else {
                    let primary = m.one_of(&[
                        "L2::evict_last",
                        "L2::evict_normal",
                        "L2::evict_first",
                        "L2::evict_unchanged",
                    ]);
                    if form.is_some() && primary.is_none() {
                        return bad(self, "needs an eviction priority '.L2::evict_*'");
                    }
                    m.one_of(&["L2::evict_first", "L2::evict_unchanged"]);
                }
                if !m.has("b64") {
                    return bad(self, "needs the type .b64");
                }
                let want: &[usize] = match form {
                    Some("fractional") => &[1, 2],
                    Some("range") => &[4],
                    Some(_) => &[2],
                    None => return bad(self, "needs '.fractional', '.range' or '.cvt'"),
                };
                if !want.contains(&i.operands.len()) {
                    return bad(self, "wrong number of operands");
                }
                let dst = self.dst(&i.operands[0], Type::B64, Fit::Strict)?;
                // ptxas: the fraction is an `.f32` register or a float in (0, 1], the
                // range sizes `.u32` registers or constants, primary <= total when both
                // are constants ("Arguments mismatch", "out of range", "must be less than
                // or equal to").
                let mut sizes = Vec::new();
                for (k, o) in i.operands.iter().enumerate().skip(1) {
                    match (form, k, o) {
                        (Some("range"), 1, _) => {
                            self.address(o, Space::Global)?;
                        }
                        (Some("fractional"), _, _) => {
                            if let Operand::Imm(b) = self.src(o, Type::F32, Fit::Strict)? {
                                let f = f32::from_bits(b as u32);
                                if !(f > 0.0 && f <= 1.0) {
                                    return Err(self.err(
                                        o.loc(),
                                        format!("the fraction of '{}' must be in (0, 1]", m.text),
                                    ));
                                }
                            }
                        }
                        (_, _, ast::Operand::Value(_)) => {
                            let ty = if form == Some("range") {
                                Type::U32
                            } else {
                                Type::U64
                            };
                            sizes.push(self.src(o, ty, Fit::Strict)?);
                        }
                        _ => return bad(self, "unexpected operand"),
                    }
                }
                if let (Some("range"), [Operand::Imm(p), Operand::Imm(t)]) =
                    (form, sizes.as_slice())
                {
                    if p > t {
                        return Err(self.err(
                            i.operands[2].loc(),
                            format!("the primary size of '{}' exceeds the total size", m.text),
                        ));
                    }
                }
                Ok(Lowered::Insts(vec![InstKind::Mov {
                    ty: Type::B64,
                    dst,
                    src: Operand::Imm(0),
                }]))
            }
        }
    }
}
