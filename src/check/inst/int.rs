//! The integer family: `add sub mul mad div rem abs neg min max` into
//! [`InstKind::Arith`] (these opcodes' float forms are built here too, with the float
//! modifiers of `super::Fx::fmode`), `add/sub.sat.s32` and the bit-manipulation and
//! packed-integer instructions (`popc clz brev bfind bfe bfi mul24 mad24 sad dp4a dp2a
//! fns bmsk szext`, and the logic and data forms of [`InstKind::Bits`], `lop3 shf cnot
//! prmt`, which share its operand shape) into [`InstKind::Bits`].

use super::Mods;
use super::FRND;
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::Fit;
use crate::ir::{ArithOp, BitOp, DivMode, FloatMode, InstKind, MulMode, Operand, PrmtMode, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// The opcodes [`Fx::bits_op`] lowers into [`InstKind::Bits`].
pub(super) const BIT_OPCODES: &[&str] = &[
    "popc", "clz", "brev", "bfind", "bfe", "bfi", "prmt", "lop3", "shf", "cnot", "mul24", "mad24",
    "sad", "dp4a", "dp2a", "fns", "bmsk", "szext",
];

impl Fx<'_, '_> {
    /// `rem.type d, a, b` (integers; truncating, x % 0 = all ones as on a GPU).
    pub(super) fn rem(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, ArithOp::Rem, ty, FloatMode::default())
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
        let (stys, dty) = op.signature(ty);
        let lop3 = matches!(op, BitOp::Lop3 { .. });
        let n = stys.len() + lop3 as usize;
        self.nops(i, m, n + 1)?;
        let dst = self.dst(&i.operands[0], dty, Fit::Strict)?;
        let mut srcs = Vec::with_capacity(stys.len());
        for (o, t) in i.operands[1..].iter().zip(&stys) {
            srcs.push(self.src(o, *t, Fit::Strict)?);
        }
        // The position and length of `bfe` (operands 2, 3) and `bfi` (operands 3, 4), when
        // constants, must lie in [0, 255] (ptxas 12.9: "Argument 3 of instruction 'bfe':
        // value '256' out of range, expected to be in range [0..255]", for every type and
        // for -1 and 2^32 too).
        let first_field = match op {
            BitOp::Bfe => 2,
            BitOp::Bfi => 3,
            _ => usize::MAX,
        };
        for o in i.operands.iter().skip(first_field) {
            if let ast::Operand::Value(e) = o {
                if let Ok(Val::Const(c)) = self.value(e) {
                    if !c.as_i64().is_some_and(|v| (0..=255).contains(&v)) {
                        return Err(self.err(
                            o.loc(),
                            format!("'{}': a bit position or length must be in 0..=255", m.text),
                        ));
                    }
                }
            }
        }
        let op = if lop3 {
            // The look-up table is an integer immediate; as ptxas does (its cubins for
            // -1, 0x1fe and 0x100000000 hold 0xff, 0xfe and 0x0), only its low 8 bits count.
            // A floating-point constant is refused ("Arguments mismatch", ptxas 12.9).
            let lut_op = &i.operands[n];
            match self.src(lut_op, Type::B32, Fit::Strict)? {
                Operand::Imm(v) if self.const_i64(lut_op).is_some() => BitOp::Lop3 { lut: v as u8 },
                _ => {
                    return Err(self.err(
                        lut_op.loc(),
                        "the lop3 look-up table must be an integer immediate",
                    ))
                }
            }
        } else {
            op
        };
        Ok(InstKind::Bits { op, ty, dst, srcs })
    }

    pub(super) fn add_sub(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["cc", "relu"])?;
        if i.opcode.name == "add" {
            if let Some(p) = m.one_of(&["u16x2", "s16x2"]) {
                return self.add_16x2(i, m, p == "s16x2");
            }
        }
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "add" {
            ArithOp::Add
        } else {
            ArithOp::Sub
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, FRND, true)?;
            return self.arith(i, m, op, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if m.any(|x| x == "sat") {
            return self.add_sub_sat(i, m, ty, op == ArithOp::Add);
        }
        self.arith(i, m, op, ty, FloatMode::default())
    }

    /// The sources of a packed `.u16x2`/`.s16x2` instruction are registers: ptxas 12.9
    /// gives "Arguments mismatch" for any constant there (`max.relu.s16x2 d, a, 255U`,
    /// `add.s16x2 d, a, 3`, `min.s16x2 d, 0x10001, b`).
    pub(super) fn packed_16x2_regs(&self, i: &Instruction, m: &Mods) -> Result<(), PtxError> {
        for o in i.operands.iter().skip(1) {
            if let crate::parse::ast::Operand::Value(e) = o {
                if let Ok(crate::check::operand::Val::Const(_)) = self.value(e) {
                    return Err(self.err(
                        o.loc(),
                        format!("'{}' takes registers, not constants", m.text),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `add.u16x2` / `add.s16x2 d, a, b` (PTX 8.0): the two half-words added apart,
    /// wrapping; `.b32` operands. The same operation as the SIMD video `vadd2` with its
    /// default selectors and no `.sat`, so it is lowered to that [`InstKind::Video`].
    fn add_16x2(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        signed: bool,
    ) -> Result<InstKind, PtxError> {
        if let Some((_, l)) = m.types().first() {
            return Err(self.err(*l, format!("'{}' has too many types", m.text)));
        }
        self.nops(i, m, 3)?;
        self.packed_16x2_regs(i, m)?;
        let dst = self.dst(&i.operands[0], Type::B32, Fit::Strict)?;
        let a = self.src(&i.operands[1], Type::B32, Fit::Strict)?;
        let b = self.src(&i.operands[2], Type::B32, Fit::Strict)?;
        let op = crate::ir::VideoOp {
            kind: crate::ir::VideoKind::Add,
            lanes: 2,
            dsigned: signed,
            asigned: signed,
            bsigned: signed,
            sat: false,
            op2: None,
            dsel: None,
            asel: None,
            bsel: None,
            // `{b, a}` half-words: a's are 0 and 1, b's 2 and 3 (`.h10`, `.h32`).
            simd_asel: 0x10,
            simd_bsel: 0x32,
            simd_mask: 0b11,
            clamp: false,
            scale: 0,
            po: false,
            neg_prod: false,
            neg_c: false,
        };
        Ok(InstKind::Video {
            op,
            dst,
            srcs: vec![a, b, Operand::Imm(0)],
        })
    }

    pub(super) fn mul_mad(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        mad: bool,
    ) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["cc", "relu"])?;
        let ty = self.one_type(m)?;
        let mode = m.one_of(&["lo", "hi", "wide"]);
        if ty.is_float() {
            if mode.is_some() {
                return Err(self.err(
                    m.loc,
                    format!("'.lo/.hi/.wide' are not valid for floats in '{}'", m.text),
                ));
            }
            let mut fm = self.fmode(m, ty, FRND, true)?;
            // `mad.f32` without a rounding modifier: PTX ISA <= 3.1 (ptxas 12.9 accepts it
            // there, 3.1 with a warning, and rejects it from 3.2). ptxas compiles it to
            // `FFMA` (`fma.rn.f32`), `FFMA.FTZ` under an sm_1x `.target` (the ISA: "when
            // JIT-compiled for SM 2.0 devices, mad.f32 is implemented as fma.rn.ftz.f32").
            let v = self.cx.m.version;
            if mad && fm.rnd.is_none() && ty == Type::F32 && v != (0, 0) && v <= (3, 1) {
                fm.rnd = Some(crate::ir::Rnd::Rn);
                fm.ftz |= self.target_sm().is_some_and(|s| s < 20);
            }
            // "Legacy mad.f64 instructions having no rounding modifier will map to
            // mad.rn.f64" (the ISA); ptxas 12.9 accepts them before PTX ISA 1.4.
            if mad && fm.rnd.is_none() && ty == Type::F64 && v != (0, 0) && v < (1, 4) {
                fm.rnd = Some(crate::ir::Rnd::Rn);
            }
            if mad && fm.rnd.is_none() {
                return Err(self.err(
                    m.loc,
                    format!("rounding modifier required for '{}'", m.text),
                ));
            }
            let op = if mad {
                ArithOp::Mad(MulMode::Lo)
            } else {
                ArithOp::Mul(MulMode::Lo)
            };
            return self.arith(i, m, op, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        if m.any(|x| x == "sat") {
            return Err(self.unsupported(m));
        }
        let mode = match mode {
            Some("lo") => MulMode::Lo,
            Some("hi") => MulMode::Hi,
            Some(_) => MulMode::Wide,
            None => {
                return Err(self.err(m.loc, format!("'{}' needs '.lo', '.hi' or '.wide'", m.text)))
            }
        };
        if mode == MulMode::Wide && (ty.widened().is_none() || ty.bits() > 32) {
            return Err(self.bad_type(m, ty));
        }
        let op = if mad {
            ArithOp::Mad(mode)
        } else {
            ArithOp::Mul(mode)
        };
        self.arith(i, m, op, ty, FloatMode::default())
    }

    pub(super) fn div(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let ty = self.one_type(m)?;
        if ty.is_int() {
            // Integer division truncates toward zero; division by zero (unspecified by
            // PTX) gives all ones (see `ops`).
            if ty.bits() < 16 {
                return Err(self.bad_type(m, ty));
            }
            return self.arith(i, m, ArithOp::Div(DivMode::Ieee), ty, FloatMode::default());
        }
        if !matches!(ty, Type::F32 | Type::F64) {
            return Err(self.bad_type(m, ty));
        }
        let flavour = m.one_of(&["approx", "full"]);
        let mut fm = self.fmode(m, ty, FRND, false)?;
        // PTX ISA 1.0 ... 1.3: "div.f32 defaults to div.approx.ftz.f32, and div.f64
        // defaults to div.rn.f64" (ptxas 12.9 accepts both before 1.4).
        let v = self.cx.m.version;
        let old_ptx = v != (0, 0) && v < (1, 4);
        let mode = match (flavour, fm.rnd) {
            (None, None) if old_ptx && ty == Type::F32 => {
                fm.ftz = true;
                DivMode::Approx
            }
            (None, None) if old_ptx => {
                fm.rnd = Some(crate::ir::Rnd::Rn);
                DivMode::Ieee
            }
            (Some(_), Some(_)) => {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'{}' has both a rounding and an approximation modifier",
                        m.text
                    ),
                ))
            }
            (Some(_), None) if ty == Type::F64 => return Err(self.bad_type(m, ty)),
            (Some("approx"), None) => DivMode::Approx,
            (Some(_), None) => DivMode::Full,
            (None, Some(_)) => DivMode::Ieee,
            (None, None) => {
                return Err(self.err(
                    m.loc,
                    format!("rounding modifier required for '{}'", m.text),
                ));
            }
        };
        self.arith(i, m, ArithOp::Div(mode), ty, fm)
    }

    pub(super) fn neg_abs(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["relu"])?;
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "neg" {
            ArithOp::Neg
        } else {
            ArithOp::Abs
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, &[], false)?;
            return self.arith(i, m, op, ty, fm);
        }
        if !ty.is_signed() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, op, ty, FloatMode::default())
    }

    pub(super) fn min_max(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        self.reject_mods(m, &["NaN", "xorsign", "abs", "relu"])?;
        let ty = self.one_type(m)?;
        let op = if i.opcode.name == "min" {
            ArithOp::Min
        } else {
            ArithOp::Max
        };
        if ty.is_float() {
            let fm = self.fmode(m, ty, &[], false)?;
            return self.arith(i, m, op, ty, fm);
        }
        if !ty.is_int() || ty.bits() < 16 {
            return Err(self.bad_type(m, ty));
        }
        self.arith(i, m, op, ty, FloatMode::default())
    }
}
