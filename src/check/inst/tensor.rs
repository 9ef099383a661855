//! Lowering of the tensor copies to [`InstKind::Async`] (semantics in `crate::exec::tma`):
//! `cp.async.bulk.tensor.{1d..5d}` loads (`.shared::cluster`/`.shared::cta` ←
//! `.global`, `.mbarrier::complete_tx::bytes`) and stores (`.global` ← `.shared::cta`,
//! `.bulk_group`), `cp.reduce.async.bulk.tensor` with the ISA's operations, in `.tile`
//! mode (the default), with the optional `.L2::cache_hint` policy operand; and
//! `cp.async.bulk.prefetch.tensor` (a hint: its operands are checked, nothing runs). The
//! tensor map operand `[tmap, {c0, ...}]` is the generic address of the map (a 64-bit
//! register, or a `.global`/`.const` variable) and `.s32` coordinates, one per
//! dimension. `.im2col`, `.im2col_no_offs` and `.multicast::cluster` copies stay
//! load-time errors naming the form. `tensormap.replace.tile.field{.ss}.b1024.type
//! [addr], {ord,} new_val` modifies a map in global or shared memory.
//!
//! [`InstKind::Async`]: crate::ir::InstKind::Async

use super::bulk::{atom_op, ATOM_OPS};
use super::Mods;
use crate::check::func::Fx;
use crate::ir::{Address, AsyncOp, Fit, InstKind, Operand, Space, Type, TENSORMAP_FIELDS};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `cp.async.bulk.tensor...`, `cp.reduce.async.bulk.tensor...` (`reduce`) and
    /// `cp.async.bulk.prefetch.tensor...`.
    pub(super) fn cp_tensor(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        reduce: bool,
    ) -> Result<Vec<InstKind>, PtxError> {
        m.has("async");
        m.has("bulk");
        m.has("tensor");
        let Some(dim) = m.one_of(&["1d", "2d", "3d", "4d", "5d"]) else {
            return Err(self.err(
                m.loc,
                format!("'{}' needs a dimension (.1d to .5d)", m.text),
            ));
        };
        let dim = dim.as_bytes()[0] - b'0';
        if !reduce && m.has("prefetch") {
            return self.tensor_prefetch(i, m, dim);
        }
        if let Some(mode) = m.one_of(&["im2col", "im2col_no_offs"]) {
            return Err(self.err(
                m.loc,
                format!("'{}': the .{mode} mode is not supported yet", m.text),
            ));
        }
        m.has("tile");
        if m.any(|x| x == "multicast::cluster") {
            return Err(self.err(
                m.loc,
                format!(
                    "'{}': .multicast::cluster tensor copies are not supported yet",
                    m.text
                ),
            ));
        }
        let (ds, ss, complete_tx) = self.bulk_spaces(i, m)?;
        let red = if reduce {
            match m.one_of(ATOM_OPS) {
                Some(o) => Some(atom_op(o)),
                None => return Err(self.err(m.loc, format!("'{}' needs an operation", m.text))),
            }
        } else {
            None
        };
        let load = ss == Space::Global;
        let valid = match load {
            true => complete_tx && !reduce,
            false => ds == Space::Global && ss == Space::Shared,
        };
        if !valid {
            return Err(self.err(
                m.loc,
                format!("'{}' is not a valid form of the tensor copy", m.text),
            ));
        }
        let hint = m.has("L2::cache_hint");
        let n = 2 + load as usize + hint as usize;
        self.nops_range(i, m, n)?;
        if hint {
            self.src(&i.operands[n - 1], Type::B64, Fit::Strict)?;
        }
        if load {
            let dst = self.address(&i.operands[0], ds)?;
            let (tmap, coords) = self.tensor_operand(&i.operands[1], dim)?;
            let mbar = self.bulk_mbar(&i.operands[2], ds)?;
            return Ok(vec![InstKind::Async {
                op: AsyncOp::CpTensorLoad { dim },
                dsts: vec![],
                addrs: vec![(ds, dst), (Space::Generic, tmap), (ds, mbar)],
                srcs: coords,
            }]);
        }
        let (tmap, coords) = self.tensor_operand(&i.operands[0], dim)?;
        let src = self.address(&i.operands[1], ss)?;
        Ok(vec![InstKind::Async {
            op: AsyncOp::CpTensorStore { dim, red },
            dsts: vec![],
            addrs: vec![(Space::Generic, tmap), (ss, src)],
            srcs: coords,
        }])
    }

    /// `cp.async.bulk.prefetch.tensor.dim.L2.global{.tile,.im2col}{.L2::cache_hint}
    /// [tmap, {coords}]{, im2colOffsets}{, policy}`: a hint, checked and dropped.
    fn tensor_prefetch(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        dim: u8,
    ) -> Result<Vec<InstKind>, PtxError> {
        m.has("L2");
        m.has("global");
        let im2col = match m.one_of(&["tile", "im2col"]) {
            Some("im2col") => {
                if dim < 3 {
                    return Err(self.err(
                        m.loc,
                        format!("'{}': .im2col needs 3 or more dimensions", m.text),
                    ));
                }
                true
            }
            _ => false,
        };
        let hint = m.has("L2::cache_hint");
        let n = 1 + im2col as usize + hint as usize;
        self.nops_range(i, m, n)?;
        self.tensor_operand(&i.operands[0], dim)?;
        if im2col {
            let tys = vec![Type::U16; dim as usize - 2];
            self.vector_srcs(&i.operands[1], &tys, Fit::Relaxed, |k| {
                format!("'{}' takes {} im2col offsets, not {k}", m.text, dim - 2)
            })?;
        }
        if hint {
            self.src(&i.operands[n - 1], Type::B64, Fit::Strict)?;
        }
        Ok(vec![])
    }

    /// The `[tmap, {c0, ...}]` operand: the map's generic address and `dim` `.s32`
    /// coordinates.
    fn tensor_operand(
        &self,
        op: &ast::Operand,
        dim: u8,
    ) -> Result<(Address, Vec<Operand>), PtxError> {
        let ast::Operand::Bracket(items, loc) = op else {
            return Err(self.err(
                op.loc(),
                "expected a tensor operand '[tensorMap, {coords}]'",
            ));
        };
        let [map, coords] = items.as_slice() else {
            return Err(self.err(*loc, "expected a tensor operand '[tensorMap, {coords}]'"));
        };
        let map = ast::Operand::Bracket(vec![map.clone()], map.loc());
        let addr = self.address(&map, Space::Generic)?;
        let tys = vec![Type::S32; dim as usize];
        let coords = self.vector_srcs(coords, &tys, Fit::Relaxed, |k| {
            format!("a .{dim}d tensor copy takes {dim} coordinates, not {k}")
        })?;
        Ok((addr, coords))
    }

    /// `tensormap.replace.tile.field{.global,.shared::cta}.b1024.{b32,b64} [addr], {ord,}
    /// new_val`: `.b64` for `.global_address` and `.global_stride`, `.b32` otherwise;
    /// `ord` (the dimension) an integer constant for `.box_dim`, `.global_dim`,
    /// `.global_stride` and `.element_stride`; `new_val` an integer constant in the ISA's
    /// table for `.elemtype` (0..=12), `.interleave_layout` (0..=2), `.swizzle_mode`
    /// (0..=3) and `.fill_mode` (0..=1).
    pub(super) fn tensormap_replace(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        if !m.has("replace") || !m.has("tile") || !m.has("b1024") {
            return Err(self.unsupported(m));
        }
        let Some(name) = m.one_of(&TENSORMAP_FIELDS) else {
            return Err(self.err(m.loc, format!("'{}' needs a field", m.text)));
        };
        let field = TENSORMAP_FIELDS
            .iter()
            .position(|f| *f == name)
            .unwrap_or(0) as u8;
        let space = match m.one_of(&["global", "shared::cta"]) {
            Some("global") => Space::Global,
            Some(_) => Space::Shared,
            None => Space::Generic,
        };
        let wide = matches!(name, "global_address" | "global_stride");
        let ty = if wide { Type::B64 } else { Type::B32 };
        if !m.has(if wide { "b64" } else { "b32" }) {
            return Err(self.err(m.loc, format!("'{}' needs the type .{}", m.text, ty.name())));
        }
        let has_ord = (2..=5).contains(&field);
        self.nops_range(i, m, 2 + has_ord as usize)?;
        let addr = self.address(&i.operands[0], space)?;
        let ord = match has_ord {
            false => 0,
            true => match self.const_u32(&i.operands[1]) {
                Some(o) if o < 5 => o as u8,
                _ => {
                    let loc = i.operands[1].loc();
                    return Err(self.err(loc, "the ordinal must be an integer constant in 0..=4"));
                }
            },
        };
        let val = &i.operands[1 + has_ord as usize];
        let max = match field {
            6 => Some(12),
            7 => Some(2),
            8 => Some(3),
            9 => Some(1),
            _ => None,
        };
        if let Some(max) = max {
            if !matches!(self.const_u32(val), Some(v) if v <= max) {
                let msg = format!(".{name} takes an integer constant in 0..={max}");
                return Err(self.err(val.loc(), msg));
            }
        }
        let v = self.src(val, ty, Fit::Strict)?;
        Ok(vec![InstKind::Async {
            op: AsyncOp::TensormapReplace { field, ord },
            dsts: vec![],
            addrs: vec![(space, addr)],
            srcs: vec![v],
        }])
    }
}
