//! The lane-by-lane form's global loads at `b + s × x` (`mul.wide.u32 t, x, s;
//! add.s64 a, b, t; ld.global [a+o]`, an interpreter's code array indexed by its
//! program counter): one compare of the index `x` against a limit set when a lane
//! starts, instead of the address check of [`FuncTranslator::serial_global`].
//!
//! Profile (the `bytecode` benchmark): each step's load of the next instruction paid
//! `lea; mov; sub; rorx; cmp; jae` and kept the cached region's two values in
//! registers; with `b` the same for the whole loop, the address is in the region exactly
//! when `x < lim`, `lim` computed from `b` and the region once (`cmp; jae`, one value).
//!
//! A load qualifies when, in its block, the last definition of its address register
//! `a` before it is an unguarded 64-bit integer `add a, b, t` (either order) with `b`
//! a 64-bit register the loop never writes (read at the lane's start), the last
//! definition of `t` before that is an unguarded `mul.wide.u32 t, x, s` with `s` a
//! power of two at least the access size, and nothing between that `mul.wide` and the
//! load writes `x`. Then the address is `c + s·x` with `c = b + o` (as 64-bit sums,
//! `s·x < 2^63`), and it is aligned and inside the cached `[lo, hi)` exactly when `c`
//! is a multiple of the access size `eb`, `c >= lo`, `hi >= c + eb` and
//! `x <= (hi − eb − c) / s`, so `lim = ((hi − eb − c) >> log2 s) + 1` where the first
//! three hold and 0 otherwise (no `x` passes: the address check's miss path runs, the
//! region lookup, as for any other load).

use super::Lanes;
use crate::ir::{AddrBase, ArithOp, Block, InstId, InstKind, MulMode, Operand, RegClass, RegId};
use crate::ir::{Space, Type};
use crate::jit::translate::serial_region::Region;
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;
use std::collections::HashSet;

/// A global load whose address is `b + s·x + off` (see the module doc).
#[derive(Clone, Copy, Debug)]
pub(super) struct Indexed {
    pub x: RegId,
    pub b: RegId,
    pub off: i64,
    /// `log2 s`.
    pub ks: u32,
    /// The access size (bytes).
    pub eb: i64,
    /// `lim` (an i64), set at each lane's start and after each region lookup.
    pub lim: Variable,
}

/// The shape of an indexed load found in a block, before its variable exists.
type Shape = (RegId, RegId, i64, u32);

impl FuncTranslator<'_> {
    /// The `(x, b, off, log2 s)` of the global load at index `k` of `blk`, if its
    /// address has the module doc's form (`written`: the registers the loop writes).
    pub(super) fn indexed_shape(
        &self,
        region: &Region,
        blk: &Block,
        k: usize,
        written: &HashSet<RegId>,
    ) -> Option<Shape> {
        let InstKind::Ld {
            space: Space::Global,
            ty,
            addr,
            dsts,
        } = &blk.insts.get(k)?.kind
        else {
            return None;
        };
        let eb = u64::from(ty.bits() / 8);
        let AddrBase::Reg(a) = addr.base else {
            return None;
        };
        if dsts.len() != 1 || !matches!(eb, 1 | 2 | 4 | 8) {
            return None;
        }
        let last_def = |r: RegId, before: usize| {
            (0..before)
                .rev()
                .find(|&j| blk.insts[j].kind.defs().contains(&r))
        };
        let wide = |r: RegId| {
            self.f
                .regs
                .get(r)
                .is_some_and(|i| i.ty.class() == RegClass::R64)
        };
        let k2 = last_def(a, k)?;
        let add = &blk.insts[k2];
        let InstKind::Arith {
            op: ArithOp::Add,
            ty,
            srcs,
            ..
        } = &add.kind
        else {
            return None;
        };
        if add.guard.is_some() || ty.bits() != 64 || !ty.is_int() || srcs.len() != 2 {
            return None;
        }
        let readable = |r: RegId| {
            wide(r)
                && !written.contains(&r)
                && region.regs.contains(&r)
                && (self.svar(r).is_some() || region.loads.contains(&r))
        };
        [(0, 1), (1, 0)].into_iter().find_map(|(p, q)| {
            let (Operand::Reg(b), Operand::Reg(t)) = (srcs[p], srcs[q]) else {
                return None;
            };
            if !readable(b) || b == t {
                return None;
            }
            let k1 = last_def(t, k2)?;
            let mul = &blk.insts[k1];
            let InstKind::Arith {
                op: ArithOp::Mul(MulMode::Wide),
                ty: Type::U32,
                srcs: ms,
                ..
            } = &mul.kind
            else {
                return None;
            };
            let (Some(Operand::Reg(x)), Some(Operand::Imm(s))) = (ms.first(), ms.get(1)) else {
                return None;
            };
            if mul.guard.is_some() || ms.len() != 2 || !s.is_power_of_two() || *s < eb {
                return None;
            }
            if s.trailing_zeros() > 31 {
                return None;
            }
            if (k1 + 1..k).any(|j| blk.insts[j].kind.defs().contains(x)) {
                return None;
            }
            Some((*x, b, addr.offset, s.trailing_zeros()))
        })
    }

    /// Sets the limit of each indexed load of the loop from its cached region and its
    /// `b` (at a lane's start).
    pub(super) fn lane_index_lims(&mut self, st: &Lanes) -> Result<(), JitError> {
        let mut all: Vec<_> = st.indexed.iter().map(|(&i, &x)| (i, x)).collect();
        all.sort_by_key(|e| e.0 .0);
        for (inst, ix) in all {
            self.load_index_lim(inst, ix)?;
        }
        Ok(())
    }

    /// `ix.lim` from instruction `inst`'s region-cache entry (see the module doc).
    pub(super) fn load_index_lim(&mut self, inst: InstId, ix: Indexed) -> Result<(), JitError> {
        let (l, h) = self.cached_region(inst);
        let Some(b) = self.sread(&Operand::Reg(ix.b), Type::U64, false)? else {
            return Err(JitError::Codegen(
                "indexed load's base has no scalar".into(),
            ));
        };
        let c = self.b.ins().iadd_imm_s(b, ix.off);
        let low = self.b.ins().band_imm_u(c, ix.eb - 1);
        let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let above = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, c, l);
        let ordered = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, h, c);
        let span = self.b.ins().isub(h, c);
        let fits = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, span, ix.eb);
        let ok = self.b.ins().band(aligned, above);
        let ok = self.b.ins().band(ok, ordered);
        let ok = self.b.ins().band(ok, fits);
        let m = self.b.ins().iadd_imm_s(span, -ix.eb);
        let m = self.b.ins().ushr_imm_u(m, i64::from(ix.ks));
        let m = self.b.ins().iadd_imm_s(m, 1);
        let zero = self.b.ins().iconst(I64, 0);
        let lim = self.b.ins().select(ok, m, zero);
        self.b.def_var(ix.lim, lim);
        Ok(())
    }

    /// Whether the indexed load's address `x` passes (an i8), `x` read now.
    pub(super) fn index_hit(&mut self, ix: Indexed) -> Result<Option<Value>, JitError> {
        let Some(x) = self.sread(&Operand::Reg(ix.x), Type::U32, false)? else {
            return Ok(None);
        };
        let x = self.b.ins().uextend(I64, x);
        let lim = self.b.use_var(ix.lim);
        Ok(Some(self.b.ins().icmp(IntCC::UnsignedLessThan, x, lim)))
    }
}
