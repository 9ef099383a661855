//! Affine registers (issue 14, item 2): a 32- or 64-bit register whose value in lane `l`
//! is always `base + l × stride` (wrapping in the register's width, `stride` a constant
//! of the shape analysis) lives in a Cranelift variable holding `base` (lane 0's value)
//! instead of 8 × i32x4 / 16 × i64x2 vectors in the register file. Stride 0 is a
//! uniform register the scalar set (`scalar.rs`, which needs uniform sources) leaves
//! out, such as the warp number `%tid.x >> 5` of an affine `%tid.x`.
//!
//! Which registers (see [`affine_set`]): those, not scalar (`scalar.rs`), such that
//! - every definition is unguarded or guarded by a scalar predicate, by a lane-wise
//!   pure instruction (`mov`, integer arithmetic, `cvt`, `cvta` of a shared window,
//!   `selp`), and the shape analysis (`ir::analysis::shape`: facts for every launch, or
//!   for launches whose `%ntid.x` is a multiple of 32 in the code for those) says the
//!   written value is affine with one stride `s` at every definition;
//! - every definition is in a block that never runs while lanes wait elsewhere
//!   (`cfg::divergent_blocks`: every live lane writes it), or every read follows a
//!   definition earlier in the same block (the lanes that read it wrote it: a
//!   temporary such as an address computed in divergent code);
//! - at every instruction or terminator that reads it, the analysis says it is affine
//!   with the same stride `s` there (so no read sees the registers' initial zeroes,
//!   which are uniform, not affine, unless `s` is 0: the base variable starts at 0
//!   too, [`FuncTranslator::affine_init`]).
//!
//! By induction every lane `l` that reads it holds `base + l × s` at the read. Definitions
//! are computed on the base where `lower::affine` knows how (add, sub, mul and mad by a
//! uniform value, shl by a constant, neg, not, `mul.wide`/`mad.wide`, integer `cvt`,
//! `mov`); any other definition computes the vector form as before and keeps
//! `value(l) − l × s` of one active lane `l`. A reader that needs the vector form gets it
//! materialised (`splat(base) + [0, s, 2s, ...]`, once per Cranelift block and base);
//! a memory access whose address register is affine knows lane 0's address as a scalar
//! (`mem.rs` takes it from [`FuncTranslator::affine_lane0`]).

use crate::ir::analysis::shape::{strong_load, Shape, Shapes, State};
use crate::ir::{
    self, AddrBase, BlockId, CallSrc, IdxVec, InstKind, Operand, RegClass, RegId, Space,
    Terminator, Type,
};
use crate::jit::translate::lanes::{self, WarpValue, N32, N64};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{Block, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::collections::HashMap;

/// The affine registers of a function and the translator's state for them.
pub(crate) struct AffineRegs {
    /// Per register: its base variable and stride when it is affine.
    pub vars: IdxVec<RegId, Option<(Variable, u64)>>,
    /// Per register: every read follows a definition in the same block (such a
    /// register may be written in divergent code too).
    local: IdxVec<RegId, bool>,
    /// Materialised vector forms in the current Cranelift block: (block, register,
    /// base) → parts.
    cache: Vec<(Block, RegId, Value, Vec<Value>)>,
    /// Lane 0's value of vectors built here (first part → scalar).
    lane0: HashMap<Value, Value>,
    /// Lane addresses built by [`FuncTranslator::affine_lane_addrs`] (first part →
    /// (base, stride)): lane `l` holds `base + l × stride` in the base's width (i64, or
    /// i32 zero-extended to 64 bits), in every lane, active or not.
    addrs: HashMap<Value, (Value, u64)>,
    /// The code is for launches whose `%ntid.x` is a multiple of 32 (`%tid.x` is
    /// affine, lane 0's value its base).
    pub rows: bool,
}

/// Register `r` of `f` can hold an affine value (32 or 64 bits).
fn candidate(f: &ir::Function, r: RegId) -> bool {
    f.regs.get(r).is_some_and(|x| {
        matches!(x.ty.class(), RegClass::R32 | RegClass::R64) && matches!(x.ty.bits(), 32 | 64)
    })
}

/// Instructions whose result, for affine sources, is the same function of each lane's
/// sources in every lane (no memory, no lane-order effects).
fn pure_kind(k: &InstKind) -> bool {
    use InstKind::*;
    match k {
        Mov { .. } | Arith { .. } | Cvt { .. } | Selp { .. } => true,
        Cvta { space, .. } => *space != Space::Local,
        _ => false,
    }
}

/// Registers read by instruction kind `k` (`None`: unknown).
fn inst_reads(k: &InstKind) -> Option<Vec<RegId>> {
    use InstKind::*;
    let ops = k.operands().ok()?;
    let mut v: Vec<RegId> = ops
        .srcs
        .iter()
        .filter_map(|(o, _, _)| match o {
            Operand::Reg(r) => Some(*r),
            _ => None,
        })
        .collect();
    let mut addr = |a: &ir::Address| {
        if let AddrBase::Reg(r) = a.base {
            v.push(r);
        }
    };
    match k {
        Ld { addr: a, .. } | St { addr: a, .. } | Atom { addr: a, .. } => addr(a),
        Matrix {
            addr: Some((_, a)), ..
        } => addr(a),
        Async { addrs, .. } => addrs.iter().for_each(|(_, a)| addr(a)),
        _ => {}
    }
    Some(v)
}

/// Registers read by terminator `t`.
fn term_reads(t: &Terminator) -> Vec<RegId> {
    let mut v = Vec::new();
    let mut op = |o: &Operand| {
        if let Operand::Reg(r) = o {
            v.push(*r);
        }
    };
    let args = |a: &[ir::CallArg], op: &mut dyn FnMut(&Operand)| {
        for x in a {
            if let CallSrc::Value(o, _) = &x.src {
                op(o);
            }
        }
    };
    match t {
        Terminator::Barrier { barrier, count, .. } => {
            op(barrier);
            if let Some(c) = count {
                op(c);
            }
        }
        Terminator::BrxIdx { index, .. } => op(index),
        Terminator::Call { args: a, .. } => args(a, &mut op),
        Terminator::CallIndirect { addr, args: a, .. } => {
            op(&Operand::Reg(*addr));
            args(a, &mut op);
        }
        _ => {}
    }
    v
}

/// Per register of `set` (the affine ones): whether every read of it follows a
/// definition earlier in its block.
fn set_local(f: &ir::Function, set: &IdxVec<RegId, Option<u64>>) -> IdxVec<RegId, bool> {
    let n = set.len();
    let mut local = IdxVec::from_elem(true, n);
    for blk in &f.blocks {
        let mut here: IdxVec<RegId, bool> = IdxVec::from_elem(false, n);
        for inst in &blk.insts {
            for r in inst_reads(&inst.kind).unwrap_or_default() {
                if !here.get(r).copied().unwrap_or(true) {
                    local[r] = false;
                }
            }
            for d in inst.kind.defs() {
                if let Some(h) = here.get_mut(d) {
                    *h = true;
                }
            }
        }
        for r in term_reads(&blk.term) {
            if !here.get(r).copied().unwrap_or(true) {
                local[r] = false;
            }
        }
    }
    local
}

/// Per register: its stride when it is affine (see the module doc). `div[b]`: block `b`
/// can run while lanes wait elsewhere; `scalar[r]`: register `r` is scalar.
pub(crate) fn affine_set(
    f: &ir::Function,
    shapes: &Shapes,
    div: &IdxVec<BlockId, bool>,
    scalar: &IdxVec<RegId, bool>,
) -> IdxVec<RegId, Option<u64>> {
    let n = f.regs.len();
    // Per register: the stride seen so far, or disqualified.
    let mut stride: IdxVec<RegId, Option<u64>> = IdxVec::from_elem(None, n);
    let mut ok: IdxVec<RegId, bool> = (f.regs.ids())
        .map(|r| candidate(f, r) && !scalar.get(r).copied().unwrap_or(false))
        .collect();
    let mut has_def = IdxVec::from_elem(false, n);
    // Defined in a block that can run while lanes wait elsewhere.
    let mut div_def = IdxVec::from_elem(false, n);
    // Every read follows a definition earlier in the same block.
    let mut local = IdxVec::from_elem(true, n);
    let see = |r: RegId,
               s: Shape,
               stride: &mut IdxVec<RegId, Option<u64>>,
               ok: &mut IdxVec<RegId, bool>| {
        if ok.get(r) != Some(&true) {
            return;
        }
        // A uniform value is affine with stride 0.
        match (s.stride(), stride[r]) {
            (Some(x), None) => stride[r] = Some(x),
            (Some(x), Some(y)) if x == y => {}
            _ => ok[r] = false,
        }
    };
    let mut st = State::default();
    for (b, blk) in f.blocks.iter_enumerated() {
        let conv = !div.get(b).copied().unwrap_or(true);
        shapes.enter(b, &mut st);
        if st.len() != n {
            return IdxVec::from_elem(None, n);
        }
        let mut here: IdxVec<RegId, bool> = IdxVec::from_elem(false, n);
        for (k, inst) in blk.insts.iter().enumerate() {
            let Some(reads) = inst_reads(&inst.kind) else {
                return IdxVec::from_elem(None, n);
            };
            for r in reads {
                see(r, st[r].shape, &mut stride, &mut ok);
                if !here.get(r).copied().unwrap_or(true) {
                    local[r] = false;
                }
            }
            shapes.step(f, &mut st, inst, strong_load(blk, k));
            let guard_ok = inst
                .guard
                .is_none_or(|g| scalar.get(g.pred).copied().unwrap_or(false));
            let defs = inst.kind.defs();
            let single = defs.len() == 1;
            for d in defs {
                if ok.get(d).is_none() {
                    continue;
                }
                has_def[d] = true;
                here[d] = true;
                div_def[d] |= !conv;
                if !(guard_ok && single && pure_kind(&inst.kind)) {
                    ok[d] = false;
                }
                see(d, st[d].shape, &mut stride, &mut ok);
            }
        }
        for r in term_reads(&blk.term) {
            if !here.get(r).copied().unwrap_or(true) {
                local[r] = false;
            }
            see(
                r,
                st.get(r).map_or(Shape::Varying, |x| x.shape),
                &mut stride,
                &mut ok,
            );
        }
        if let Terminator::Call { rets, .. } | Terminator::CallIndirect { rets, .. } = &blk.term {
            for r in rets {
                if let ir::CallDst::Reg(d, _) = r.dst {
                    if let Some(x) = ok.get_mut(d) {
                        *x = false;
                    }
                }
            }
        }
    }
    (f.regs.ids())
        .map(|i| {
            let whole = !div_def[i] || local[i];
            if ok[i] && has_def[i] && whole {
                stride[i]
            } else {
                None
            }
        })
        .collect()
}

impl AffineRegs {
    /// Declares a base variable for every affine register of `f`.
    pub(crate) fn new(
        b: &mut FunctionBuilder,
        f: &ir::Function,
        shapes: &Shapes,
        div: &IdxVec<BlockId, bool>,
        scalar: &IdxVec<RegId, Option<Variable>>,
        rows: bool,
    ) -> AffineRegs {
        let sc = scalar.iter().map(|x| x.is_some()).collect();
        let set = if std::env::var_os("PTXJIT_NO_AFFINE").is_some() {
            IdxVec::from_elem(None, f.regs.len())
        } else {
            affine_set(f, shapes, div, &sc)
        };
        let local = set_local(f, &set);
        let vars = f
            .regs
            .iter()
            .zip(&set)
            .map(|(r, s)| {
                s.map(|s| {
                    let ty = if r.ty.class() == RegClass::R64 {
                        I64
                    } else {
                        I32
                    };
                    (b.declare_var(ty), s)
                })
            })
            .collect();
        AffineRegs {
            vars,
            local,
            cache: Vec::new(),
            lane0: HashMap::new(),
            addrs: HashMap::new(),
            rows,
        }
    }
}

/// `[l × stride]` for the lanes of part `k` of a warp value.
fn iota(b: &mut FunctionBuilder, wide: bool, k: usize, stride: u64) -> Value {
    let s = |l: usize| (l as u64).wrapping_mul(stride);
    if wide {
        lanes::const_i64x2(b, [s(2 * k), s(2 * k + 1)])
    } else {
        let t = |l: usize| s(l) as u32;
        lanes::const_i32x4(b, [t(4 * k), t(4 * k + 1), t(4 * k + 2), t(4 * k + 3)])
    }
}

impl FuncTranslator<'_> {
    /// The base variable and stride of register `r` if it is affine.
    pub(crate) fn avar(&self, r: RegId) -> Option<(Variable, u64)> {
        self.affine.vars.get(r).copied().flatten()
    }

    /// Zeroes the base variables (call in the entry block; never read before a
    /// definition, but Cranelift wants every variable defined).
    pub(crate) fn affine_init(&mut self) {
        for k in self.affine.vars.ids() {
            if let Some((v, _)) = self.affine.vars[k] {
                let ty = if self.f.regs[k].ty.class() == RegClass::R64 {
                    I64
                } else {
                    I32
                };
                let z = self.b.ins().iconst(ty, 0);
                self.b.def_var(v, z);
            }
        }
    }

    /// `splat(base) + [0, s, 2s, ...]` (16 × i64x2 for an i64 base, else 8 × i32x4):
    /// parts 0 and 1 add their lane offsets, each later part adds the step of two parts
    /// to the part two before it (wrapping in the lane width, as the per-lane values
    /// do): 4 constants instead of one per part.
    pub(crate) fn affine_vector(&mut self, base: Value, stride: u64) -> WarpValue {
        let wide = self.b.func.dfg.value_type(base) == I64;
        let w = lanes::splat_scalar(&mut self.b, base);
        if stride == 0 {
            if let Some(&p) = w.v.first() {
                self.affine.lane0.insert(p, base);
            }
            return w;
        }
        let n = if wide { N64 } else { N32 };
        let per = if wide { 2u64 } else { 4 };
        let step = (2 * per).wrapping_mul(stride);
        let step = if wide {
            lanes::splat64(&mut self.b, step)
        } else {
            lanes::splat32(&mut self.b, step as u32)
        };
        let mut v: Vec<Value> = Vec::with_capacity(n);
        for k in 0..n {
            let x = if k < 2 {
                let c = iota(&mut self.b, wide, k, stride);
                self.b.ins().iadd(w.v[k], c)
            } else {
                self.b.ins().iadd(v[k - 2], step)
            };
            v.push(x);
        }
        if let Some(&p) = v.first() {
            self.affine.lane0.insert(p, base);
        }
        WarpValue { wide, v }
    }

    /// The containers of affine register `r` as a vector value (materialised once per
    /// Cranelift block and base).
    pub(crate) fn affine_vals(&mut self, r: RegId) -> Option<Vec<Value>> {
        let (var, s) = self.avar(r)?;
        let base = self.b.use_var(var);
        let cur = self.b.current_block()?;
        self.affine.cache.retain(|e| e.0 == cur);
        if let Some(e) = self.affine.cache.iter().find(|e| e.1 == r && e.2 == base) {
            return Some(e.3.clone());
        }
        let v = self.affine_vector(base, s).v;
        self.affine.cache.push((cur, r, base, v.clone()));
        Some(v)
    }

    /// Lane 0's value of a vector value built by [`Self::affine_vector`].
    pub(crate) fn affine_lane0(&self, w: &WarpValue) -> Option<Value> {
        self.affine.lane0.get(w.v.first()?).copied()
    }

    /// The lane addresses (16 × i64x2) of `[r + off]` for affine register `r` (`None`:
    /// `r` is not affine), with lane 0's address known to [`Self::affine_lane0`].
    pub(crate) fn affine_lane_addrs(&mut self, r: RegId, off: i64) -> Option<WarpValue> {
        let (var, s) = self.avar(r)?;
        let base = self.b.use_var(var);
        if self.b.func.dfg.value_type(base) == I64 {
            let a = match off {
                0 => base,
                _ => self.b.ins().iadd_imm_s(base, off),
            };
            let w = self.affine_vector(a, s);
            if let Some(&p) = w.v.first() {
                self.affine.addrs.insert(p, (a, s));
            }
            return Some(w);
        }
        // A 32-bit address wraps in 32 bits: add the offset, then widen each lane.
        let a = match off as i32 {
            0 => base,
            o => self.b.ins().iadd_imm_s(base, o as i64),
        };
        let n = self.affine_vector(a, s);
        let w = lanes::widen_w(&mut self.b, &n, false);
        let a0 = self.b.ins().uextend(I64, a);
        if let Some(&p) = w.v.first() {
            self.affine.lane0.insert(p, a0);
            self.affine.addrs.insert(p, (a, s));
        }
        Some(w)
    }

    /// Whether the lane addresses `a` (see [`Self::affine_lane_addrs`]) are known to be
    /// `a0 + l × eb` in every lane `l` (a 64-bit base with stride `eb`): the coalesced
    /// test's lane comparison always passes.
    pub(crate) fn affine_contiguous(&self, a: &WarpValue, eb: u32) -> bool {
        a.v.first()
            .and_then(|p| self.affine.addrs.get(p))
            .is_some_and(|&(base, s)| self.b.func.dfg.value_type(base) == I64 && s == eb as u64)
    }

    /// Whether the lane addresses `a` (see [`Self::affine_lane_addrs`]) are known to
    /// differ in every two lanes: `l × stride` is nonzero in the base's width for every
    /// lane distance `0 < l < 32` (the stride has fewer trailing zeros than the width
    /// minus 5, as 32 > l has at most 4 factors of 2).
    pub(crate) fn affine_distinct(&self, a: &WarpValue) -> bool {
        a.v.first()
            .and_then(|p| self.affine.addrs.get(p))
            .is_some_and(|&(base, s)| {
                if self.b.func.dfg.value_type(base) == I64 {
                    s.trailing_zeros() < 60
                } else {
                    (s as u32).trailing_zeros() < 28
                }
            })
    }

    /// The 64-bit address of the lowest lane of `bits` in lane addresses `a` built by
    /// [`Self::affine_lane_addrs`] (`base + lane × stride`, no vector spilled); `None`
    /// for other vectors.
    pub(crate) fn affine_first_lane(&mut self, a: &WarpValue, bits: Value) -> Option<Value> {
        let &(base, s) = self.affine.addrs.get(a.v.first()?)?;
        let lane = self.b.ins().ctz(bits);
        if self.b.func.dfg.value_type(base) == I64 {
            let l = self.b.ins().uextend(I64, lane);
            let ls = self.b.ins().imul_imm_u(l, s as i64);
            return Some(self.b.ins().iadd(base, ls));
        }
        let ls = self.b.ins().imul_imm_u(lane, s as u32 as i64);
        let x = self.b.ins().iadd(base, ls);
        Some(self.b.ins().uextend(I64, x))
    }

    /// Sets affine register `dst` to base `x` (its container type) where the
    /// instruction's guard (a scalar predicate) holds.
    pub(crate) fn affine_set_base(&mut self, dst: RegId, x: Value) -> Result<(), JitError> {
        let (v, _) = self
            .avar(dst)
            .ok_or_else(|| JitError::Codegen(format!("register {} is not affine", dst.0)))?;
        let local = self.affine.local.get(dst).copied();
        if self.mode != Mode::Conv && local != Some(true) {
            return Err(JitError::Codegen(format!(
                "affine register {} written in divergent code",
                dst.0
            )));
        }
        self.def_var_guarded(v, x)
    }

    /// [`FuncTranslator::write`] of the containers `w` (already in the register's
    /// width) to affine register `dst`: keeps `w(l) − l × stride` of the lowest active
    /// lane `l`.
    pub(crate) fn affine_write_vec(&mut self, dst: RegId, w: &WarpValue) -> Result<(), JitError> {
        let (_, s) = self
            .avar(dst)
            .ok_or_else(|| JitError::Codegen(format!("register {} is not affine", dst.0)))?;
        if let Some(x) = self.affine_lane0(w) {
            return self.affine_set_base(dst, x);
        }
        let (x, lane) = self.lowest_active_lane(&w.v, w.wide);
        let l = if w.wide {
            lane
        } else {
            self.b.ins().ireduce(I32, lane)
        };
        let ls = self.b.ins().imul_imm_u(l, s as i64);
        let x = self.b.ins().isub(x, ls);
        self.affine_set_base(dst, x)
    }

    /// The type of the container of affine register `r`'s base.
    pub(crate) fn affine_ty(&self, r: RegId) -> Option<Type> {
        self.avar(r)?;
        self.f.regs.get(r).map(|x| x.ty)
    }
}
