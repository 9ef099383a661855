//! Lowering of the bit-manipulation and packed-integer instructions (`popc clz brev
//! bfind bfe bfi prmt lop3 shf cnot mul24 mad24 sad dp4a dp2a fns bmsk szext`), integer
//! `rem`, and `add/sub.sat.s32` into [`InstKind::Bits`] / [`InstKind::Arith`].

use super::{Mods, Rule};
use crate::check::func::Fx;
use crate::ir::{ArithOp, BitOp, FloatMode, InstKind, Operand, PrmtMode, Type};
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `rem.type d, a, b` (integers; truncating, x % 0 = all ones as on a GPU).
    pub(super) fn rem(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, ArithOp::Rem, ty, ty, FloatMode::default())
    }

    /// `add.sat.s32` / `sub.sat.s32`.
    pub(super) fn add_sub_sat(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        ty: Type,
        add: bool,
    ) -> Result<InstKind, PtxError> {
        m.has("sat");
        if ty != Type::S32 {
            return Err(self.bad_type(m, ty));
        }
        let op = if add { BitOp::AddSat } else { BitOp::SubSat };
        self.bits_with(i, m, op, ty)
    }

    /// One of the bit-manipulation instructions.
    pub(super) fn bits_op(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let name = i.opcode.name.as_str();
        let clamp_wrap = |s: &mut Self, m: &mut Mods| -> Result<bool, PtxError> {
            match m.one_of(&["clamp", "wrap"]) {
                Some(c) => Ok(c == "clamp"),
                None => Err(s.err(m.loc, format!("'{}' needs '.clamp' or '.wrap'", m.text))),
            }
        };
        let lo_hi = |s: &mut Self, m: &mut Mods| -> Result<bool, PtxError> {
            match m.one_of(&["lo", "hi"]) {
                Some(c) => Ok(c == "hi"),
                None => Err(s.err(m.loc, format!("'{}' needs '.lo' or '.hi'", m.text))),
            }
        };
        // dp4a/dp2a name two types (.atype.btype); the others one.
        if name == "dp4a" || name == "dp2a" {
            let hi = if name == "dp2a" {
                Some(lo_hi(self, m)?)
            } else {
                None
            };
            let ts = m.types();
            let [(a, _), (b, _)] = ts.as_slice() else {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs two types (.atype.btype)", m.text),
                ));
            };
            let (a, b) = (*a, *b);
            for t in [a, b] {
                if !matches!(t, Type::U32 | Type::S32) {
                    return Err(self.bad_type(m, t));
                }
            }
            let (a_signed, b_signed) = (a == Type::S32, b == Type::S32);
            let ty = if a_signed || b_signed {
                Type::S32
            } else {
                Type::U32
            };
            let op = match hi {
                None => BitOp::Dp4a { a_signed, b_signed },
                Some(hi) => BitOp::Dp2a {
                    hi,
                    a_signed,
                    b_signed,
                },
            };
            return self.bits_with(i, m, op, ty);
        }
        let op = match name {
            "popc" => BitOp::Popc,
            "clz" => BitOp::Clz,
            "brev" => BitOp::Brev,
            "bfind" => BitOp::Bfind {
                shiftamt: m.has("shiftamt"),
            },
            "bfe" => BitOp::Bfe,
            "bfi" => BitOp::Bfi,
            "prmt" => BitOp::Prmt(m.one_of(&["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]).map(
                |x| match x {
                    "f4e" => PrmtMode::F4e,
                    "b4e" => PrmtMode::B4e,
                    "rc8" => PrmtMode::Rc8,
                    "ecl" => PrmtMode::Ecl,
                    "ecr" => PrmtMode::Ecr,
                    _ => PrmtMode::Rc16,
                },
            )),
            "lop3" => {
                if m.any(|x| x == "and" || x == "or") {
                    return Err(self.unsupported(m));
                }
                BitOp::Lop3 { lut: 0 }
            }
            "shf" => {
                let left = match m.one_of(&["l", "r"]) {
                    Some(d) => d == "l",
                    None => return Err(self.err(m.loc, format!("'{}' needs '.l' or '.r'", m.text))),
                };
                BitOp::Shf {
                    left,
                    clamp: clamp_wrap(self, m)?,
                }
            }
            "cnot" => BitOp::Cnot,
            "mul24" => BitOp::Mul24 {
                hi: lo_hi(self, m)?,
            },
            "mad24" => {
                let hi = lo_hi(self, m)?;
                BitOp::Mad24 {
                    hi,
                    sat: m.has("sat"),
                }
            }
            "sad" => BitOp::Sad,
            "fns" => BitOp::Fns,
            "bmsk" => BitOp::Bmsk {
                clamp: clamp_wrap(self, m)?,
            },
            "szext" => BitOp::Szext {
                clamp: clamp_wrap(self, m)?,
            },
            _ => return Err(self.unsupported(m)),
        };
        let ty = self.one_type(m)?;
        use Type::*;
        let ok = match op {
            BitOp::Popc | BitOp::Clz | BitOp::Brev | BitOp::Bfi => matches!(ty, B32 | B64),
            BitOp::Bfind { .. } | BitOp::Bfe => matches!(ty, U32 | U64 | S32 | S64),
            BitOp::Prmt(_)
            | BitOp::Lop3 { .. }
            | BitOp::Shf { .. }
            | BitOp::Fns
            | BitOp::Bmsk { .. } => ty == B32,
            BitOp::Cnot => matches!(ty, B16 | B32 | B64),
            BitOp::Mul24 { .. } | BitOp::Szext { .. } => matches!(ty, U32 | S32),
            BitOp::Mad24 { sat, .. } => matches!(ty, U32 | S32) && (!sat || ty == S32),
            BitOp::Sad => matches!(ty, U16 | U32 | U64 | S16 | S32 | S64),
            _ => false,
        };
        if !ok {
            return Err(self.bad_type(m, ty));
        }
        // `fns` takes base as .b32/.u32/.s32: accept any 32-bit register.
        self.bits_with(i, m, op, ty)
    }

    fn bits_with(
        &mut self,
        i: &Instruction,
        m: &Mods,
        op: BitOp,
        ty: Type,
    ) -> Result<InstKind, PtxError> {
        let (stys, dty) = crate::ops::bits::signature(op, ty);
        let lop3 = matches!(op, BitOp::Lop3 { .. });
        let n = stys.len() + lop3 as usize;
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], dty, Rule::Strict)?;
        let mut srcs = Vec::with_capacity(stys.len());
        for (o, t) in i.operands[1..].iter().zip(&stys) {
            srcs.push(self.src(o, *t, Rule::Strict)?);
        }
        let op = if lop3 {
            // The look-up table is an immediate 0..255.
            let lut_op = &i.operands[n];
            match self.src(lut_op, Type::B32, Rule::Strict)? {
                Operand::Imm(v) if v <= 0xff => BitOp::Lop3 { lut: v as u8 },
                _ => {
                    return Err(self.err(
                        lut_op.loc(),
                        "the lop3 look-up table must be an immediate 0..255",
                    ))
                }
            }
        } else {
            op
        };
        Ok(InstKind::Bits { op, ty, dst, srcs })
    }
}
