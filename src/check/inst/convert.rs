//! Lowering of `cvt` and `cvt.pack`: conversions between the integer and float types
//! ([`InstKind::Cvt`], f16 and bf16 included) and the forms with narrow formats or two
//! sources ([`InstKind::CvtX`]: `.relu`/`.satfinite` to f16/bf16, `.f16x2`/`.bf16x2` of
//! two f32, `.tf32`, fp8/fp6/fp4/ue8m0 pairs, `cvt.pack.sat`). The modifier rules are
//! ptxas's (12.9); `.rs` (stochastic rounding) is a located "not supported" error.

use super::{Mods, Val};
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{CvtXOp, CvtXRnd, InstKind, Loc, MiniFmt, Operand, RegId, Rnd, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// The narrow-format type names, which are not register types.
const MINI: &[&str] = &[
    "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2",
];

/// The modifiers of a `cvt` to or from a narrow or paired format that its checks need.
#[derive(Clone, Copy)]
struct XMods {
    relu: bool,
    satfinite: bool,
    /// Whether any rounding modifier was given.
    any_rnd: bool,
}

fn mini_of(s: &str) -> MiniFmt {
    match s {
        "tf32" => MiniFmt::Tf32,
        "e4m3x2" => MiniFmt::E4m3,
        "e5m2x2" => MiniFmt::E5m2,
        "e2m3x2" => MiniFmt::E2m3,
        "e3m2x2" => MiniFmt::E3m2,
        "e2m1x2" => MiniFmt::E2m1,
        _ => MiniFmt::Ue8m0,
    }
}

impl Fx<'_, '_> {
    pub(super) fn cvt(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        if m.has("pack") {
            return self.cvt_pack(i, m);
        }
        if m.any(|x| x == "rs") {
            return Err(self.unsupported(m));
        }
        let mini = m.take_if(|x| MINI.contains(&x));
        let relu = m.has("relu");
        let satfinite = m.has("satfinite");
        let rna = m.has("rna");
        let rnd_name = m.one_of(&["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"]);
        let ftz = m.has("ftz");
        let sat = m.has("sat");
        let ts = m.types();
        let xrnd = match (rna, rnd_name) {
            (true, None) => Some(CvtXRnd::Rna),
            (false, Some("rn")) => Some(CvtXRnd::Rn),
            (false, Some("rz")) => Some(CvtXRnd::Rz),
            (false, Some("rp")) => Some(CvtXRnd::Rp),
            _ => None,
        };
        let x = XMods {
            relu,
            satfinite,
            any_rnd: rna || rnd_name.is_some(),
        };
        let bad_rnd = |fx: &Self| fx.cvt_bad_rnd(m, x);
        let bad_types = |fx: &Self| fx.cvt_bad_types(m);
        let bad_mod = |fx: &Self, what: &str| fx.cvt_bad_mod(m, what);
        if ftz && (mini.is_some() || relu || satfinite) {
            return Err(bad_mod(self, "ftz"));
        }
        if sat && (mini.is_some() || relu || satfinite) {
            return Err(bad_mod(self, "sat"));
        }
        // --- the CvtX forms --------------------------------------------------------
        let op = if let Some((name, mloc)) = mini {
            let fmt = mini_of(name);
            let [(t, tloc)] = ts.as_slice() else {
                return Err(bad_types(self));
            };
            let before = (mloc.line, mloc.col) < (tloc.line, tloc.col);
            let Some(rnd) = xrnd else {
                return Err(bad_rnd(self));
            };
            if before {
                self.cvtx_narrow_dst(m, fmt, *t, rnd, x)?
            } else {
                self.cvtx_narrow_src(m, fmt, *t, rnd, x)?
            }
        } else {
            let (dty, sty) = match ts.as_slice() {
                [(d, _), (s, _)] => (*d, *s),
                _ => {
                    return Err(self.err(
                        m.loc,
                        format!("'{}' needs a destination and a source type", m.text),
                    ))
                }
            };
            let pair = matches!(dty, Type::F16x2 | Type::BF16x2);
            let half = matches!(dty, Type::F16 | Type::BF16);
            if pair || half && sty == Type::F32 && (relu || satfinite) {
                if sty != Type::F32 {
                    return Err(bad_types(self));
                }
                if ftz || sat {
                    return Err(bad_mod(self, if ftz { "ftz" } else { "sat" }));
                }
                if !matches!(xrnd, Some(CvtXRnd::Rn | CvtXRnd::Rz)) {
                    return Err(bad_rnd(self));
                }
                let fmt = if matches!(dty, Type::F16 | Type::F16x2) {
                    MiniFmt::F16
                } else {
                    MiniFmt::BF16
                };
                CvtXOp::FromF32 {
                    fmt,
                    pair,
                    rnd: xrnd.unwrap_or(CvtXRnd::Rn),
                    relu,
                    satfinite,
                }
            } else {
                if relu || satfinite || rna {
                    let what = if relu {
                        "relu"
                    } else if satfinite {
                        "satfinite"
                    } else {
                        "rna"
                    };
                    return Err(bad_mod(self, what));
                }
                return self.cvt_plain(i, m, dty, sty, rnd_name, ftz, sat);
            }
        };
        let (stys, dty) = op.signature();
        self.nops(i, m, stys.len() + 1)?;
        // A single `.f16` result may go to a wider bit register (as for plain `cvt`).
        let single_f16 = matches!(
            op,
            CvtXOp::FromF32 {
                fmt: MiniFmt::F16,
                pair: false,
                ..
            }
        );
        let rule = if single_f16 { Fit::Cvt } else { Fit::Strict };
        let dst = self.dst(&i.operands[0], dty, rule)?;
        self.cvtx_reg(m, op, dst, true, i.operands[0].loc())?;
        let mut srcs = Vec::with_capacity(stys.len());
        for (o, t) in i.operands[1..].iter().zip(stys) {
            let s = self.src(o, *t, Fit::Strict)?;
            if let (Operand::Reg(r), false) = (s, *t == Type::F32) {
                self.cvtx_reg(m, op, r, false, o.loc())?;
            }
            // ptxas: packed sources (`.f16x2`, `.bf16x2`, fp8/fp6/fp4 pairs) are
            // registers ("Arguments mismatch" for `cvt.rn.f16x2.e4m3x2 d, 5`).
            if matches!(s, Operand::Imm(_)) && *t != Type::F32 {
                return Err(self.err(
                    o.loc(),
                    format!("a {t} source of '{}' must be a register", m.text),
                ));
            }
            srcs.push(s);
        }
        Ok(InstKind::CvtX { op, dst, srcs })
    }

    /// ptxas 12.9's register rule for a packed or narrow operand of a `cvt` (otherwise
    /// "Arguments mismatch for instruction 'cvt'"): a bit register of exactly the packed
    /// size (`.b32` for `.f16x2`/`.bf16x2`/`.tf32`, `.b16` for fp8/fp6 pairs, `.b8` for fp4
    /// pairs), or an `.f16x2` register where the packed format is `.f16x2`; never an
    /// integer or other float register. Two exceptions, as ptxas: a single `.f16` result
    /// (`cvt.rn.relu.f16.f32`) may go to an `.f16` or any wider bit register, and the
    /// `.bf16x2` side of a `.ue8m0x2` conversion takes any 32-bit register (checked by
    /// the caller's size rule).
    fn cvtx_reg(
        &self,
        m: &Mods,
        op: CvtXOp,
        r: RegId,
        is_dst: bool,
        loc: Loc,
    ) -> Result<(), PtxError> {
        let reg = self.reg_ty(r);
        let (srcs, dty) = op.signature();
        let bits = if is_dst {
            dty.bits()
        } else {
            srcs.first().map_or(0, |t| t.bits())
        };
        let f16x2 = match op {
            CvtXOp::FromF32 {
                fmt: MiniFmt::F16,
                pair: false,
                ..
            } => {
                if reg == Type::F16 || reg.is_bits() && reg.bits() >= 16 {
                    return Ok(());
                }
                let want = "an .f16 register or a bit register of at least 16 bits";
                return Err(self.cvtx_reg_error(m, r, want, loc));
            }
            CvtXOp::FromX2 {
                fmt: MiniFmt::Ue8m0,
                ..
            } if !is_dst => return Ok(()),
            CvtXOp::ToX2 {
                fmt: MiniFmt::Ue8m0,
                ..
            } if is_dst => return Ok(()),
            CvtXOp::FromF32 {
                fmt: MiniFmt::F16, ..
            }
            | CvtXOp::ToX2 { .. } => is_dst,
            CvtXOp::FromX2 { .. } => !is_dst,
            _ => false,
        };
        if reg.is_bits() && reg.bits() == bits || f16x2 && reg == Type::F16x2 {
            return Ok(());
        }
        let want = if f16x2 {
            format!("a .b{bits} or .f16x2 register")
        } else {
            format!("a .b{bits} register")
        };
        Err(self.cvtx_reg_error(m, r, &want, loc))
    }

    fn cvtx_reg_error(&self, m: &Mods, r: RegId, want: &str, loc: Loc) -> PtxError {
        self.err(
            loc,
            format!(
                "register '{}' has type {}; this operand of '{}' needs {want}",
                self.reg_name(r),
                self.reg_ty(r),
                m.text
            ),
        )
    }

    /// A `cvt` to a narrow format (`.tf32`, fp8/fp6/fp4 pairs, `.ue8m0x2`) from `t`.
    fn cvtx_narrow_dst(
        &self,
        m: &Mods,
        fmt: MiniFmt,
        t: Type,
        rnd: CvtXRnd,
        x: XMods,
    ) -> Result<CvtXOp, PtxError> {
        match (fmt, t) {
            (MiniFmt::Tf32, Type::F32) => {
                let ok = match rnd {
                    CvtXRnd::Rna => !x.relu,
                    CvtXRnd::Rn | CvtXRnd::Rz => true,
                    CvtXRnd::Rp => false,
                };
                if !ok {
                    return Err(if x.relu && rnd == CvtXRnd::Rna {
                        self.cvt_bad_mod(m, "relu")
                    } else {
                        self.cvt_bad_rnd(m, x)
                    });
                }
            }
            (MiniFmt::Ue8m0, Type::F32 | Type::BF16x2) => {
                if !matches!(rnd, CvtXRnd::Rz | CvtXRnd::Rp) {
                    return Err(self.cvt_bad_rnd(m, x));
                }
                if x.relu {
                    return Err(self.cvt_bad_mod(m, "relu"));
                }
            }
            (MiniFmt::E4m3 | MiniFmt::E5m2, Type::F32 | Type::F16x2)
            | (MiniFmt::E2m3 | MiniFmt::E3m2 | MiniFmt::E2m1, Type::F32) => {
                if rnd != CvtXRnd::Rn {
                    return Err(self.cvt_bad_rnd(m, x));
                }
                if !x.satfinite {
                    return Err(
                        self.err(m.loc, format!("'.satfinite' is required for '{}'", m.text))
                    );
                }
            }
            _ => return Err(self.cvt_bad_types(m)),
        }
        Ok(if t == Type::F32 {
            CvtXOp::FromF32 {
                fmt,
                pair: fmt != MiniFmt::Tf32,
                rnd,
                relu: x.relu,
                satfinite: x.satfinite,
            }
        } else {
            CvtXOp::FromX2 {
                fmt,
                rnd,
                relu: x.relu,
                satfinite: x.satfinite,
            }
        })
    }

    /// A `cvt` from a narrow format: `.f16x2` from fp8/fp6/fp4, `.bf16x2` from
    /// `.ue8m0x2`.
    fn cvtx_narrow_src(
        &self,
        m: &Mods,
        fmt: MiniFmt,
        t: Type,
        rnd: CvtXRnd,
        x: XMods,
    ) -> Result<CvtXOp, PtxError> {
        let small = !matches!(fmt, MiniFmt::Tf32 | MiniFmt::Ue8m0);
        let ok_ty = if fmt == MiniFmt::Ue8m0 {
            Type::BF16x2
        } else {
            Type::F16x2
        };
        if !(small || fmt == MiniFmt::Ue8m0) || t != ok_ty {
            return Err(self.cvt_bad_types(m));
        }
        if rnd != CvtXRnd::Rn {
            return Err(self.cvt_bad_rnd(m, x));
        }
        if x.satfinite {
            return Err(self.cvt_bad_mod(m, "satfinite"));
        }
        if x.relu && fmt == MiniFmt::Ue8m0 {
            return Err(self.cvt_bad_mod(m, "relu"));
        }
        Ok(CvtXOp::ToX2 { fmt, relu: x.relu })
    }

    fn cvt_bad_rnd(&self, m: &Mods, x: XMods) -> PtxError {
        let msg = if x.any_rnd {
            "illegal rounding modifier for"
        } else {
            "rounding modifier required for"
        };
        self.err(m.loc, format!("{msg} '{}'", m.text))
    }

    fn cvt_bad_types(&self, m: &Mods) -> PtxError {
        self.err(
            m.loc,
            format!("unexpected instruction types for '{}'", m.text),
        )
    }

    fn cvt_bad_mod(&self, m: &Mods, what: &str) -> PtxError {
        self.err(
            m.loc,
            format!("modifier '.{what}' is not valid for '{}'", m.text),
        )
    }

    /// `cvt{.rnd}{.ftz}{.sat}.dty.sty d, a` between the integer and float types.
    #[allow(clippy::too_many_arguments)]
    fn cvt_plain(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        dty: Type,
        sty: Type,
        rnd_name: Option<&str>,
        ftz: bool,
        sat: bool,
    ) -> Result<InstKind, PtxError> {
        for t in [dty, sty] {
            if t == Type::Pred || t.is_bits() || matches!(t, Type::F16x2 | Type::BF16x2) {
                return Err(self.err(m.loc, format!("type {t} is not valid for '{}'", m.text)));
            }
        }
        let rnd = rnd_name.and_then(|r| match r {
            "rn" => Some(Rnd::Rn),
            "rz" => Some(Rnd::Rz),
            "rm" => Some(Rnd::Rm),
            "rp" => Some(Rnd::Rp),
            "rni" => Some(Rnd::Rni),
            "rzi" => Some(Rnd::Rzi),
            "rmi" => Some(Rnd::Rmi),
            "rpi" => Some(Rnd::Rpi),
            _ => None,
        });
        let is_irnd = matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi));
        let is_frnd = matches!(rnd, Some(Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp));
        let (df, sf) = (dty.is_float(), sty.is_float());
        // PTX's rules: which rounding modifier is required, allowed or illegal.
        let ok = match (sf, df) {
            (false, false) => rnd.is_none(),
            (true, false) => is_irnd,
            (false, true) => is_frnd,
            (true, true) if dty.bits() < sty.bits() => is_frnd,
            (true, true) if dty == sty => rnd.is_none() || is_irnd,
            // f16 <-> bf16: each loses range or precision; ptxas accepts no modifier
            // (round to nearest even) too.
            (true, true) if dty.bits() == sty.bits() => rnd.is_none() || is_frnd,
            // bf16 -> f32/f64 is exact; ptxas accepts a float rounding modifier there
            // (not for f16 or f32 sources), which changes nothing.
            (true, true) if sty == Type::BF16 => rnd.is_none() || is_frnd,
            (true, true) => rnd.is_none(),
        };
        if !ok {
            let msg = if rnd.is_none() {
                "rounding modifier required for"
            } else {
                "illegal rounding modifier for"
            };
            return Err(self.err(m.loc, format!("{msg} '{}'", m.text)));
        }
        if ftz && dty != Type::F32 && sty != Type::F32 {
            return Err(self.err(
                m.loc,
                format!("'.ftz' needs an .f32 source or destination in '{}'", m.text),
            ));
        }
        if sat && dty == Type::BF16 {
            return Err(self.err(
                m.loc,
                format!("modifier '.sat' is not valid for '{}'", m.text),
            ));
        }
        // ptxas: "Illegal modifier '.sat'" on an integer conversion that cannot
        // overflow (`cvt.sat.s64.s32`, `cvt.sat.s32.u16`; `cvt.sat.u64.s32` can).
        if sat && dty.is_int() && sty.is_int() {
            let fits = match (dty.is_signed(), sty.is_signed()) {
                (false, true) => false,
                (true, false) => dty.bits() > sty.bits(),
                _ => dty.bits() >= sty.bits(),
            };
            if fits {
                return Err(self.err(
                    m.loc,
                    format!(
                        "'.sat' is not valid for '{}': the conversion cannot overflow",
                        m.text
                    ),
                ));
            }
        }
        self.nops(i, m, 2)?;
        // A `cvt` with a `.bf16` side takes registers of exactly each type's size on both
        // sides: ptxas 12.9 gives "Arguments mismatch for instruction 'cvt'" for
        // `cvt.rn.bf16.f32 %rs, %rd`, `cvt.f16.bf16 %r, %rs`, `cvt.rn.bf16.u32 %rs, %rd`
        // and `cvt.f32.bf16 %f, %r`, while it takes wider registers for `cvt.rn.f16.f32
        // %rs, %rd` and `cvt.f16.f32`'s `.b64` destination (the relaxed `Fit::Cvt`).
        let fit = match dty == Type::BF16 || sty == Type::BF16 {
            true => Fit::Strict,
            false => Fit::Cvt,
        };
        let dst = self.dst(&i.operands[0], dty, fit)?;
        let a = &i.operands[1];
        let src =
            match a {
                ast::Operand::Value(e) => match self.value(e)? {
                    // ptxas takes a special register only in integer-to-integer `cvt`
                    // (`cvt.u32.u16 %r, %tid.x`; `cvt.rn.f32.u16 %f, %tid.x` is "Special
                    // register argument not allowed").
                    Val::Special(s) if dty.is_int() && sty.is_int() => {
                        self.sreg_operand(s, sty, true, e.loc)?
                    }
                    Val::Special(_) => return Err(self.err(
                        e.loc,
                        "a special register can only be the source of an integer-to-integer 'cvt'",
                    )),
                    Val::Zero if sty.is_int() => Operand::Imm(0),
                    _ => self.src(a, sty, fit)?,
                },
                _ => self.src(a, sty, fit)?,
            };
        Ok(InstKind::Cvt {
            dst_ty: dty,
            src_ty: sty,
            rnd,
            ftz,
            sat,
            dst,
            src,
        })
    }

    /// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and
    /// `cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c`.
    fn cvt_pack(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        if !m.has("sat") {
            return Err(self.err(m.loc, format!("'.sat' is required for '{}'", m.text)));
        }
        let sub = m.one_of(&["u4", "s4", "u2", "s2"]);
        let ts = m.types();
        let tys: Vec<Type> = ts.iter().map(|(t, _)| *t).collect();
        let (bits, signed, with_c) = match (sub, tys.as_slice()) {
            (None, [t @ (Type::U16 | Type::S16), Type::S32]) => (16, t.is_signed(), false),
            (None, [t @ (Type::U8 | Type::S8), Type::S32, Type::B32]) => (8, t.is_signed(), true),
            (Some(s), [Type::S32, Type::B32]) => (
                if s.ends_with('4') { 4 } else { 2 },
                s.starts_with('s'),
                true,
            ),
            _ => {
                return Err(self.err(
                    m.loc,
                    format!("unexpected instruction types for '{}'", m.text),
                ))
            }
        };
        let op = CvtXOp::Pack {
            bits,
            signed,
            with_c,
        };
        let (stys, dty) = op.signature();
        self.nops(i, m, stys.len() + 1)?;
        let dst = self.dst(&i.operands[0], dty, Fit::Relaxed)?;
        let mut srcs = Vec::with_capacity(stys.len());
        for (op, t) in i.operands[1..].iter().zip(stys) {
            srcs.push(self.src(op, *t, Fit::Strict)?);
        }
        Ok(InstKind::CvtX { op, dst, srcs })
    }
}
