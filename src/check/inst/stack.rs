//! The stack-manipulation family (`alloca`, `stacksave`, `stackrestore`, PTX 7.3) into
//! [`InstKind::Builtin`] ([`Builtin::Alloca`], [`Builtin::StackSave`],
//! [`Builtin::StackRestore`]; semantics in `crate::exec::stack`), and the `stacksave` /
//! `stackrestore` pair a `.func` that allocates gets around its body.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::{Builtin, Fit, InstKind, Loc, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `alloca.type ptr, size{, immAlign}`, `stacksave.type d`, `stackrestore.type a`
    /// (`.type` is `.u32` or `.u64`).
    pub(super) fn stack_op(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        let wide = match ty {
            Type::U32 => false,
            Type::U64 => true,
            _ => return Err(self.bad_type(m, ty)),
        };
        match i.opcode.name.as_str() {
            "alloca" => {
                if i.operands.len() != 2 && i.operands.len() != 3 {
                    return Err(self.err(m.loc, format!("'{}' takes 2 or 3 operands", m.text)));
                }
                let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
                let size = self.src(&i.operands[1], ty, Fit::Strict)?;
                let align = match i.operands.get(2) {
                    None => 8,
                    Some(op) => match self.src(op, Type::U32, Fit::Strict)? {
                        crate::ir::Operand::Imm(a) if a.is_power_of_two() && a <= 1 << 23 => {
                            a as u32
                        }
                        _ => return Err(self.err(
                            op.loc(),
                            "the alignment of 'alloca' must be a constant power of 2 up to 2^23",
                        )),
                    },
                };
                Ok(InstKind::Builtin {
                    op: Builtin::Alloca { wide, align },
                    args: vec![size],
                    dst: Some(dst),
                })
            }
            "stacksave" => {
                self.nops(i, m, 1)?;
                let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
                Ok(InstKind::Builtin {
                    op: Builtin::StackSave { wide },
                    args: vec![],
                    dst: Some(dst),
                })
            }
            _ => {
                self.nops(i, m, 1)?;
                let a = self.src(&i.operands[0], ty, Fit::Strict)?;
                // ptxas: "Result register required for instruction 'stackrestore'".
                if !matches!(a, crate::ir::Operand::Reg(_)) {
                    return Err(self.err(
                        i.operands[0].loc(),
                        "'stackrestore' takes a register (a value 'stacksave' wrote)",
                    ));
                }
                Ok(InstKind::Builtin {
                    op: Builtin::StackRestore { wide },
                    args: vec![a],
                    dst: None,
                })
            }
        }
    }

    /// The entry of a `.func` that uses `alloca`: saves the caller's stack pointer in a
    /// hidden register, which `ret` restores (`Fx::ret_stores`).
    pub(crate) fn stack_entry(&mut self, loc: Loc) -> Result<(), PtxError> {
        let r = self.new_reg("%stack.saved".into(), Type::U64, loc)?;
        self.stack_saved = Some(r);
        let id = self.cx.inst_info(
            loc,
            "stacksave.u64 (the caller's stack pointer)".into(),
            self.id,
        );
        self.push(
            None,
            InstKind::Builtin {
                op: Builtin::StackSave { wide: true },
                args: vec![],
                dst: Some(r),
            },
            id,
        );
        Ok(())
    }
}
