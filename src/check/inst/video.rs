//! Lowering of the video instructions to [`InstKind::Video`]: the scalar
//! `vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` (`vadd vsub
//! vabsdiff vmin vmax`; `vshl/vshr` with `.clamp`/`.wrap`; `vset.atype.btype.cmp`),
//! `vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c`,
//! and the SIMD `vop2/vop4.dtype.atype.btype{.sat|.add} d{.mask}, a{.asel}, b{.bsel}, c`
//! (`vadd vsub vavrg vabsdiff vmin vmax`, `vset2/4.atype.btype.cmp{.add}`).

use super::Mods;
use crate::check::func::Fx;
use crate::ir::Fit;
use crate::ir::{InstKind, Loc, Type, VideoCmp, VideoKind, VideoOp, VideoOp2, VideoSel};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

/// The opcodes of the video family.
pub(super) const VIDEO_OPCODES: &[&str] = &[
    "vadd",
    "vsub",
    "vabsdiff",
    "vmin",
    "vmax",
    "vshl",
    "vshr",
    "vmad",
    "vset",
    "vadd2",
    "vsub2",
    "vavrg2",
    "vabsdiff2",
    "vmin2",
    "vmax2",
    "vset2",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vabsdiff4",
    "vmin4",
    "vmax4",
    "vset4",
];

/// One operand with its video decorations removed: negation and the selector name.
struct Decorated {
    operand: ast::Operand,
    neg: bool,
    sel: Option<(String, Loc)>,
}

fn decorate(o: &ast::Operand, vmad: bool) -> Decorated {
    let mut d = Decorated {
        operand: o.clone(),
        neg: false,
        sel: None,
    };
    let ast::Operand::Value(mut e) = o.clone() else {
        return d;
    };
    // `-` before a name negates the operand (vmad only); before a number it is the
    // number's sign (ptxas accepts `vset.u32.u32.ne d, a, -1`).
    if let ast::ExprKind::Unary(ast::UnOp::Neg, inner) = &e.kind {
        if !matches!(inner.kind, ast::ExprKind::Num(_)) || vmad {
            d.neg = true;
            e = (**inner).clone();
        }
    }
    if let ast::ExprKind::Sym {
        name,
        comp: Some(c),
    } = &e.kind
    {
        if c.starts_with('b') || c.starts_with('h') {
            d.sel = Some((c.clone(), e.loc));
            e.kind = ast::ExprKind::Sym {
                name: name.clone(),
                comp: None,
            };
        }
    }
    d.operand = ast::Operand::Value(e);
    d
}

impl Fx<'_, '_> {
    /// A scalar selector (`b0`..`b3`, `h0`, `h1`).
    fn scalar_sel(&self, sel: &Option<(String, Loc)>) -> Result<Option<VideoSel>, PtxError> {
        let Some((s, loc)) = sel else { return Ok(None) };
        let k = s[1..].parse::<u8>().ok();
        match (s.as_bytes()[0], k) {
            (b'b', Some(k @ 0..=3)) if s.len() == 2 => Ok(Some(VideoSel::Byte(k))),
            (b'h', Some(k @ 0..=1)) if s.len() == 2 => Ok(Some(VideoSel::Half(k))),
            _ => Err(self.err(*loc, format!("'.{s}' is not a scalar video selector"))),
        }
    }

    /// A SIMD selector of `lanes` elements (`.hxy` / `.bxyzw`), lane 0 in the low nibble;
    /// `default` when absent.
    fn simd_sel(
        &self,
        sel: &Option<(String, Loc)>,
        lanes: u8,
        default: u16,
    ) -> Result<u16, PtxError> {
        let Some((s, loc)) = sel else {
            return Ok(default);
        };
        let (kind, max) = if lanes == 2 { (b'h', 3) } else { (b'b', 7) };
        let digits = &s.as_bytes()[1..];
        if s.as_bytes()[0] != kind || digits.len() != lanes as usize {
            return Err(self.err(*loc, format!("'.{s}' is not a {lanes}-element selector")));
        }
        let mut v = 0u16;
        for (i, &c) in digits.iter().rev().enumerate() {
            let k = c.wrapping_sub(b'0');
            if k > max {
                return Err(self.err(*loc, format!("'.{s}' is not a {lanes}-element selector")));
            }
            v |= (k as u16) << (4 * i);
        }
        Ok(v)
    }

    /// A SIMD destination mask (`.h0 .h1 .h10`, `.b0` ... `.b3210`).
    fn simd_mask(&self, sel: &Option<(String, Loc)>, lanes: u8) -> Result<u8, PtxError> {
        let Some((s, loc)) = sel else {
            return Ok((1u8 << lanes) - 1);
        };
        let kind = if lanes == 2 { b'h' } else { b'b' };
        let mut m = 0u8;
        for &c in &s.as_bytes()[1..] {
            let k = c.wrapping_sub(b'0');
            if k >= lanes || m >> k & 1 != 0 {
                return Err(self.err(*loc, format!("'.{s}' is not a {lanes}-element mask")));
            }
            m |= 1 << k;
        }
        if s.as_bytes()[0] != kind {
            return Err(self.err(*loc, format!("'.{s}' is not a {lanes}-element mask")));
        }
        Ok(m)
    }

    /// Any video instruction (see the module doc).
    pub(super) fn video(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let name = i.opcode.name.as_str();
        let lanes: u8 = match name.as_bytes().last() {
            Some(b'2') => 2,
            Some(b'4') => 4,
            _ => 1,
        };
        let base = name.trim_end_matches(['2', '4']);
        let (loc, text) = (m.loc, m.text.clone());
        let bad = |fx: &Self, what: &str| fx.err(loc, format!("'{text}': {what}"));
        let (kind, cmp) = self.video_kind(base, m)?;
        let types: Vec<Type> = m.types().into_iter().map(|(t, _)| t).collect();
        let signed = |t: &Type| match t {
            Type::S32 => Some(true),
            Type::U32 => Some(false),
            _ => None,
        };
        let tys: Option<Vec<bool>> = types.iter().map(signed).collect();
        let want = if cmp.is_some() { 2 } else { 3 };
        let tys = match tys {
            Some(t) if t.len() == want => t,
            _ => return Err(bad(self, &format!("needs {want} types, each .u32 or .s32"))),
        };
        let (dsigned, asigned, bsigned) = if want == 2 {
            // vset: the result is unsigned; the secondary operation follows atype.
            (tys[0], tys[0], tys[1])
        } else {
            (tys[0], tys[1], tys[2])
        };
        let shift = matches!(kind, VideoKind::Shl | VideoKind::Shr);
        if shift && bsigned {
            return Err(bad(self, "the shift amount's type must be .u32"));
        }
        let sat = cmp.is_none() && m.has("sat");
        let op2 = match m.one_of(&["add", "min", "max"]) {
            Some("add") => Some(VideoOp2::Add),
            Some("min") if lanes == 1 => Some(VideoOp2::Min),
            Some("max") if lanes == 1 => Some(VideoOp2::Max),
            Some(o) => return Err(bad(self, &format!("'.{o}' is only for scalar forms"))),
            None => None,
        };
        let clamp = match (shift, m.one_of(&["clamp", "wrap"])) {
            (true, Some(mode)) => mode == "clamp",
            (true, None) => return Err(bad(self, "needs '.clamp' or '.wrap'")),
            (false, Some(mode)) => return Err(bad(self, &format!("'.{mode}' is for shifts"))),
            (false, None) => false,
        };
        let (po, scale) = if kind == VideoKind::Mad {
            let po = m.has("po");
            let scale = match m.one_of(&["shr7", "shr15"]) {
                Some("shr7") => 7,
                Some(_) => 15,
                None => 0,
            };
            (po, scale)
        } else {
            (false, 0)
        };
        if kind == VideoKind::Mad && op2.is_some() {
            return Err(bad(self, "vmad has no secondary operation"));
        }
        if lanes > 1 && sat && op2.is_some() {
            return Err(bad(self, "'.sat' cannot be used with '.add'"));
        }
        let ops: Vec<Decorated> = i
            .operands
            .iter()
            .map(|o| decorate(o, kind == VideoKind::Mad))
            .collect();
        let dsel = ops.first().is_some_and(|d| d.sel.is_some());
        // The scalar data-merge form `vop... d.dsel, a, b, c` (PTX ISA, scalar video
        // instructions) without a selector merges the whole word: `optMerge` leaves
        // `d = tmp` and `c` unused; ptxas 12.9 accepts `vmin.s32.s32.s32.sat d, a, b, c`.
        let merge = lanes == 1 && ops.len() == 4;
        let nops = if lanes > 1 || kind == VideoKind::Mad || op2.is_some() || dsel || merge {
            3
        } else {
            2
        };
        if ops.len() != nops + 1 {
            return Err(bad(
                self,
                &format!("takes {} operands, not {}", nops + 1, ops.len()),
            ));
        }
        for (k, d) in ops.iter().enumerate() {
            let negatable = kind == VideoKind::Mad && k > 0 && !po;
            if d.neg && !negatable {
                return Err(self.err(d.operand.loc(), "this operand cannot be negated"));
            }
            // ptxas: "Incorrect video selector for operand k" for a SIMD immediate.
            let reg = matches!(&d.operand, ast::Operand::Value(e) if matches!(e.kind, ast::ExprKind::Sym { .. }));
            if lanes > 1 && k > 0 && !reg {
                return Err(self.err(
                    d.operand.loc(),
                    format!("a SIMD video operand must be a register ('{}')", m.text),
                ));
            }
            if d.sel.is_some() && (k == 3 || (kind == VideoKind::Mad && k == 0)) {
                return Err(self.err(d.operand.loc(), "this operand takes no selector"));
            }
        }
        let mut op = VideoOp {
            kind,
            lanes,
            dsigned,
            asigned,
            bsigned,
            sat,
            op2,
            dsel: None,
            asel: None,
            bsel: None,
            simd_asel: 0,
            simd_bsel: 0,
            simd_mask: 0,
            clamp,
            scale,
            po,
            neg_prod: ops[1].neg != ops[2].neg,
            neg_c: ops.get(3).is_some_and(|d| d.neg),
        };
        if lanes == 1 {
            op.dsel = self.scalar_sel(&ops[0].sel)?;
            op.asel = self.scalar_sel(&ops[1].sel)?;
            op.bsel = self.scalar_sel(&ops[2].sel)?;
            if op.dsel.is_some() && op.op2.is_some() {
                return Err(bad(
                    self,
                    "a destination selector excludes a secondary operation",
                ));
            }
        } else {
            let (da, db) = if lanes == 2 {
                (0x10, 0x32)
            } else {
                (0x3210, 0x7654)
            };
            op.simd_mask = self.simd_mask(&ops[0].sel, lanes)?;
            op.simd_asel = self.simd_sel(&ops[1].sel, lanes, da)?;
            op.simd_bsel = self.simd_sel(&ops[2].sel, lanes, db)?;
        }
        let dst = self.dst(&ops[0].operand, Type::U32, Fit::Strict)?;
        // The whole-word merge's `c` is checked, then dropped (it does not reach `d`).
        let unused_c = merge && lanes == 1 && op.dsel.is_none() && op2.is_none();
        let unused_c = unused_c && kind != VideoKind::Mad;
        let mut srcs = Vec::with_capacity(3);
        for (k, d) in ops[1..].iter().enumerate() {
            let s = self.src(&d.operand, Type::U32, Fit::Strict)?;
            if k < 2 || !unused_c {
                srcs.push(s);
            }
        }
        Ok(InstKind::Video { op, dst, srcs })
    }

    /// The operation of video instruction `base` (`vadd` ... `vset`, lane count already
    /// taken off) and, for `vset`, its comparison modifier.
    fn video_kind(
        &self,
        base: &str,
        m: &mut Mods,
    ) -> Result<(VideoKind, Option<VideoCmp>), PtxError> {
        let cmp = if base == "vset" {
            let c = match m.one_of(&["eq", "ne", "lt", "le", "gt", "ge"]) {
                Some("eq") => VideoCmp::Eq,
                Some("ne") => VideoCmp::Ne,
                Some("lt") => VideoCmp::Lt,
                Some("le") => VideoCmp::Le,
                Some("gt") => VideoCmp::Gt,
                Some(_) => VideoCmp::Ge,
                None => return Err(self.err(m.loc, format!("'{}': needs a comparison", m.text))),
            };
            Some(c)
        } else {
            None
        };
        let kind = match base {
            "vadd" => VideoKind::Add,
            "vsub" => VideoKind::Sub,
            "vabsdiff" => VideoKind::Absdiff,
            "vmin" => VideoKind::Min,
            "vmax" => VideoKind::Max,
            "vavrg" => VideoKind::Avrg,
            "vshl" => VideoKind::Shl,
            "vshr" => VideoKind::Shr,
            "vmad" => VideoKind::Mad,
            _ => VideoKind::Set(cmp.unwrap_or(VideoCmp::Eq)),
        };
        Ok((kind, cmp))
    }
}
