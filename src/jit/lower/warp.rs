//! Warp-wide instructions ([`InstKind::Warp`]: `shfl vote match redux activemask elect
//! bar.warp.sync`): the operands of all 32 lanes go to stack slots and one `ptxjit_warp`
//! helper call applies `crate::ops::warp` (the function the interpreter uses) to the
//! whole warp; the value results come back in a slot, the predicate results as lane bits.
//!
//! [`InstKind::Warp`]: crate::ir::InstKind::Warp

use crate::ir::{Operand, PredSrc, ReduxOp, RegId, Type, VoteMode, WarpOp};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes;
use crate::jit::translate::scratch::OPERAND_SLOTS;
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use crate::ops::warp::WARP;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I8X16};
use cranelift_codegen::ir::InstBuilder;
use cranelift_codegen::ir::{ConstantData, Value};

impl FuncTranslator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn warp_op(
        &mut self,
        op: WarpOp,
        ty: Type,
        dst: Option<RegId>,
        pred: Option<RegId>,
        srcs: &[Operand],
        vote_src: Option<PredSrc>,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        if self.instrument {
            self.san_warp(op, srcs, mask)?;
        }
        if self.warp_fast(op, ty, dst, pred, srcs, vote_src, mask)? {
            return Ok(());
        }
        let (stys, dty) = op.signature(ty);
        let mut vals = Vec::with_capacity(OPERAND_SLOTS);
        for (s, t) in srcs.iter().zip(stys.iter()).take(OPERAND_SLOTS) {
            vals.push(self.read(s, *t, false)?);
        }
        let pbits = match vote_src {
            Some(p) => {
                let m = self.read_pred(&Operand::Reg(p.reg), p.negate)?;
                lanes::bits_from_mask(&mut self.b, &m)
            }
            None => lanes::iconst32(&mut self.b, 0),
        };
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, crate::ops::warp::encode(op, ty));
        let call = self.call_lanewise(Helper::Warp, &[desc, bits, pbits], &vals, OPERAND_SLOTS)?;
        let preds = self.b.inst_results(call)[0];
        if let (Some(d), Some(t)) = (dst, dty) {
            let r = self.lanewise_result(t.bits() > 32);
            self.write(d, t, r, mask)?;
        }
        if let Some(p) = pred {
            let m = lanes::mask_from_bits(&mut self.b, preds);
            self.write_pred(p, &m, mask)?;
        }
        Ok(())
    }
}

impl FuncTranslator<'_> {
    /// An immediate, or a register of
    /// [`entry_constants`](crate::ir::analysis::consts::entry_constants) read after its
    /// definition.
    pub(super) fn const_operand(&self, op: &Operand) -> Option<u64> {
        match op {
            Operand::Imm(v) => Some(*v),
            Operand::Reg(r) => {
                let (v, def, def_block) = *self.consts.get(r)?;
                // InstIds grow in program order within a block.
                let after = self.cur.is_some_and(|cur| cur.0 > def.0);
                let ok = if self.cur_block == def_block {
                    after
                } else {
                    def_block == 0
                };
                ok.then_some(v)
            }
            _ => None,
        }
    }

    /// Vector code for the common forms, `true` if it handled the instruction:
    /// - `shfl` with immediate `b` and `c` (what compilers emit for reductions and scans):
    ///   each lane's source lane and predicate are known at compile time, so every
    ///   result vector is one byte shuffle of at most two source vectors;
    /// - `vote`/`ballot` with an immediate `membermask`: the result is the same for every
    ///   lane, computed from the lane bits and splatted.
    #[allow(clippy::too_many_arguments)]
    fn warp_fast(
        &mut self,
        op: WarpOp,
        ty: Type,
        dst: Option<RegId>,
        pred: Option<RegId>,
        srcs: &[Operand],
        vote_src: Option<PredSrc>,
        mask: &mut Mask,
    ) -> Result<bool, JitError> {
        let konst = |k: usize| srcs.get(k).and_then(|o| self.const_operand(o));
        match (op, srcs) {
            (WarpOp::Shfl(mode), [a, _, _, _]) if konst(1).is_some() && konst(2).is_some() => {
                let (b, c) = (konst(1).unwrap_or(0) as u32, konst(2).unwrap_or(0) as u32);
                let src: Vec<(u32, bool)> = (0..WARP as u32)
                    .map(|l| crate::ops::warp::shfl_source(mode, l, b, c))
                    .collect();
                // Each result vector may draw on at most two source vectors.
                let pairs: Vec<Vec<usize>> = src
                    .chunks(4)
                    .map(|q| {
                        let mut v: Vec<usize> = q.iter().map(|&(j, _)| j as usize / 4).collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    })
                    .collect();
                if pairs.iter().any(|p| p.len() > 2) {
                    return Ok(false);
                }
                let av = self.read(a, Type::B32, false)?;
                let mut out = Vec::with_capacity(av.v.len());
                for (k, q) in src.chunks(4).enumerate() {
                    let (u, v) = (pairs[k][0], *pairs[k].last().unwrap_or(&pairs[k][0]));
                    let sel: Vec<u8> = q
                        .iter()
                        .flat_map(|&(j, _)| {
                            let base = if j as usize / 4 == u { 0u8 } else { 16 };
                            let lane = (j % 4) as u8;
                            (0..4).map(move |byte| base + 4 * lane + byte)
                        })
                        .collect();
                    let x = lanes::bitcast(&mut self.b, I8X16, av.v[u]);
                    let y = lanes::bitcast(&mut self.b, I8X16, av.v[v]);
                    let imm = self.b.func.dfg.immediates.push(ConstantData::from(sel));
                    let r = self.b.ins().shuffle(x, y, imm);
                    out.push(lanes::bitcast(&mut self.b, I32X4, r));
                }
                if let Some(d) = dst {
                    self.write(d, Type::B32, lanes::WarpValue::narrow(out), mask)?;
                }
                if let Some(p) = pred {
                    let pm: Vec<Value> = src
                        .chunks(4)
                        .map(|q| {
                            let l = [0, 1, 2, 3].map(|i| if q[i].1 { u32::MAX } else { 0 });
                            lanes::const_i32x4(&mut self.b, l)
                        })
                        .collect();
                    self.write_pred(p, &pm, mask)?;
                }
                Ok(true)
            }
            (WarpOp::Vote(_) | WarpOp::Ballot, [_]) if konst(0).is_some() => {
                let member = konst(0).unwrap_or(0);
                let Some(c) = vote_src else { return Ok(false) };
                let pv = self.read_pred(&Operand::Reg(c.reg), c.negate)?;
                let pbits = lanes::bits_from_mask(&mut self.b, &pv);
                let bits = self.mbits(mask);
                let part = self.b.ins().band_imm_u(bits, member as u32 as i64);
                let yes = self.b.ins().band(part, pbits);
                let v = match op {
                    WarpOp::Ballot => yes,
                    WarpOp::Vote(VoteMode::All) => self.b.ins().icmp(IntCC::Equal, yes, part),
                    WarpOp::Vote(VoteMode::Any) => self.b.ins().icmp_imm_u(IntCC::NotEqual, yes, 0),
                    WarpOp::Vote(VoteMode::Uni) => {
                        let none = self.b.ins().icmp_imm_u(IntCC::Equal, yes, 0);
                        let all = self.b.ins().icmp(IntCC::Equal, yes, part);
                        self.b.ins().bor(none, all)
                    }
                    _ => return Ok(false),
                };
                if op == WarpOp::Ballot {
                    if let Some(d) = dst {
                        let w = lanes::splat_scalar(&mut self.b, v);
                        self.write(d, Type::B32, w, mask)?;
                    }
                } else if let Some(p) = pred {
                    // 0/1 (i8) -> 0 / all ones (i32), splat.
                    let wide = self.b.ins().uextend(I32, v);
                    let zero = lanes::iconst32(&mut self.b, 0);
                    let m = self.b.ins().isub(zero, wide);
                    let w = lanes::splat_scalar(&mut self.b, m);
                    self.write_pred(p, &w.v, mask)?;
                }
                Ok(true)
            }
            (WarpOp::Redux(r), [a, m]) => {
                let Some(d) = dst else { return Ok(false) };
                // A constant membermask, or a register the warp holds as one scalar.
                let member = match konst(1) {
                    Some(k) => lanes::iconst32(&mut self.b, k as u32),
                    None => {
                        let w = self.read(m, Type::B32, false)?;
                        match self.scalar_of(&w.v) {
                            Some(v) => v,
                            None => return Ok(false),
                        }
                    }
                };
                self.redux_inline(r, ty, d, a, member, mask)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// `redux.sync` with a membermask `member` the same in every lane (a constant or a
    /// scalar register): the participants (active lanes in the membermask, the same set
    /// for every lane, as `ops::warp::eval` takes it) are
    /// reduced in vectors, the other lanes replaced by the operation's identity, then
    /// across the four lanes of the last vector; every active lane gets the result (0
    /// without participants, as `eval`).
    fn redux_inline(
        &mut self,
        r: ReduxOp,
        ty: Type,
        d: RegId,
        a: &Operand,
        member: Value,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let signed = ty == Type::S32;
        let identity = match (r, signed) {
            (ReduxOp::Add | ReduxOp::Or | ReduxOp::Xor, _) | (ReduxOp::Max, false) => 0,
            (ReduxOp::And, _) | (ReduxOp::Min, false) => u32::MAX,
            (ReduxOp::Min, true) => i32::MAX as u32,
            (ReduxOp::Max, true) => i32::MIN as u32,
        };
        let av = self.read(a, Type::B32, false)?;
        let bits = self.mbits(mask);
        let part = self.b.ins().band(bits, member);
        let pm = lanes::mask_from_bits(&mut self.b, part);
        let id = lanes::splat32(&mut self.b, identity);
        let mut xs: Vec<Value> = (av.v.iter().zip(&pm))
            .map(|(&x, &m)| self.b.ins().bitselect(m, x, id))
            .collect();
        while xs.len() > 1 {
            xs = (xs.chunks(2))
                .map(|p| redux_combine(&mut self.b, r, signed, p[0], p[1]))
                .collect();
        }
        let mut v = xs[0];
        // Lanes (2, 3, 0, 1), then (1, 0, 3, 2): every lane holds the total.
        for lanes_of in [[2u8, 3, 0, 1], [1, 0, 3, 2]] {
            let sel: Vec<u8> = lanes_of
                .iter()
                .flat_map(|&l| (0..4).map(move |byte| 4 * l + byte))
                .collect();
            let x = lanes::bitcast(&mut self.b, I8X16, v);
            let imm = self.b.func.dfg.immediates.push(ConstantData::from(sel));
            let s = self.b.ins().shuffle(x, x, imm);
            let s = lanes::bitcast(&mut self.b, I32X4, s);
            v = redux_combine(&mut self.b, r, signed, v, s);
        }
        let total = self.b.ins().extractlane(v, 0);
        let none = self.b.ins().icmp_imm_u(IntCC::Equal, part, 0);
        let zero = lanes::iconst32(&mut self.b, 0);
        let total = self.b.ins().select(none, zero, total);
        let w = lanes::splat_scalar(&mut self.b, total);
        let (_, dty) = WarpOp::Redux(r).signature(ty);
        self.write(d, dty.unwrap_or(ty), w, mask)
    }
}

/// One step of `redux.sync`'s reduction, lane by lane (`signed`: `.s32` min/max).
fn redux_combine(
    b: &mut cranelift_frontend::FunctionBuilder,
    r: ReduxOp,
    signed: bool,
    x: Value,
    y: Value,
) -> Value {
    match (r, signed) {
        (ReduxOp::Add, _) => b.ins().iadd(x, y),
        (ReduxOp::And, _) => b.ins().band(x, y),
        (ReduxOp::Or, _) => b.ins().bor(x, y),
        (ReduxOp::Xor, _) => b.ins().bxor(x, y),
        (ReduxOp::Min, true) => b.ins().smin(x, y),
        (ReduxOp::Min, false) => b.ins().umin(x, y),
        (ReduxOp::Max, true) => b.ins().smax(x, y),
        (ReduxOp::Max, false) => b.ins().umax(x, y),
    }
}
