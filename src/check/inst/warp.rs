//! Lowering of the warp-wide instructions (`shfl{.sync}`, `vote{.sync}`, `match.sync`,
//! `redux.sync`, `activemask`, `elect.sync`, `bar.warp.sync`) into [`InstKind::Warp`].
//! The legacy forms without `.sync` (`shfl.mode.b32`, `vote.mode.pred`) take the whole
//! warp as their `membermask`.

use super::Mods;
use crate::check::consts::Const;
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::Fit;
use crate::ir::{InstKind, Operand, ReduxOp, RegId, ShflMode, Type, VoteMode, WarpOp};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// One of the warp-wide instructions (by opcode name).
    pub(super) fn warp_op(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        match i.opcode.name.as_str() {
            "shfl" => self.shfl(i, m),
            "vote" => self.vote(i, m),
            "match" => self.match_sync(i, m),
            "redux" => self.redux(i, m),
            "activemask" => {
                let ty = self.one_type(m)?;
                if ty != Type::B32 {
                    return Err(self.bad_type(m, ty));
                }
                self.nops(i, m, 1)?;
                let dst = self.dst(&i.operands[0], Type::B32, Fit::Strict)?;
                Ok(warp(WarpOp::Activemask, ty, Some(dst), None, vec![]))
            }
            "elect" => {
                self.need_sync(m)?;
                self.nops(i, m, 2)?;
                let ast::Operand::Pair(d, p) = &i.operands[0] else {
                    return Err(self.err(i.operands[0].loc(), "'elect.sync' needs 'd|p'"));
                };
                let dst = self.value_dst(d, Type::U32)?;
                let pred = self.pred_dst(p)?;
                let member = self.src(&i.operands[1], Type::B32, Fit::Strict)?;
                Ok(warp(WarpOp::Elect, Type::B32, dst, pred, vec![member]))
            }
            _ => Err(self.unsupported(m)),
        }
    }

    /// `bar.warp.sync membermask`.
    pub(super) fn bar_warp_sync(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        self.need_sync(m)?;
        self.nops(i, m, 1)?;
        let member = self.src(&i.operands[0], Type::U32, Fit::Strict)?;
        Ok(warp(WarpOp::WarpSync, Type::B32, None, None, vec![member]))
    }

    fn need_sync(&self, m: &mut Mods) -> Result<(), PtxError> {
        if m.has("sync") {
            Ok(())
        } else {
            Err(self.err(m.loc, format!("'{}' needs '.sync'", m.text)))
        }
    }

    /// A value destination or `_`.
    fn value_dst(&self, op: &ast::Operand, ty: Type) -> Result<Option<RegId>, PtxError> {
        match op {
            ast::Operand::Sink(_) => Ok(None),
            _ => Ok(Some(self.dst(op, ty, Fit::Strict)?)),
        }
    }

    /// `d` or `d|p`: the value destination and the optional predicate destination.
    fn dst_pair(
        &self,
        op: &ast::Operand,
        ty: Type,
        pred_ok: bool,
    ) -> Result<(Option<RegId>, Option<RegId>), PtxError> {
        match op {
            ast::Operand::Pair(d, p) if pred_ok => Ok((self.value_dst(d, ty)?, self.pred_dst(p)?)),
            ast::Operand::Pair(..) => Err(self.err(op.loc(), "this instruction has no 'p' result")),
            _ => Ok((Some(self.dst(op, ty, Fit::Strict)?), None)),
        }
    }

    /// The `membermask` operand at `k`, or the whole warp when a legacy form omits it.
    fn member(&self, i: &Instruction, k: usize, sync: bool) -> Result<Operand, PtxError> {
        match (i.operands.get(k), sync) {
            // An integer register or constant: ptxas rejects a `.f32` register or a
            // float constant ("Arguments mismatch").
            (Some(op), _) => self.src(op, Type::U32, Fit::Strict),
            (None, false) => Ok(Operand::Imm(0xffff_ffff)),
            (None, true) => Err(self.err(i.opcode.loc, "missing 'membermask' operand")),
        }
    }

    /// `shfl.sync.mode.b32 d{|p}, a, b, c, membermask` and the legacy
    /// `shfl.mode.b32 d{|p}, a, b, c`.
    fn shfl(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let sync = m.has("sync");
        let mode = match m.one_of(&["up", "down", "bfly", "idx"]) {
            Some("up") => ShflMode::Up,
            Some("down") => ShflMode::Down,
            Some("bfly") => ShflMode::Bfly,
            Some(_) => ShflMode::Idx,
            None => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs '.up', '.down', '.bfly' or '.idx'", m.text),
                ))
            }
        };
        let ty = self.one_type(m)?;
        if ty != Type::B32 {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, if sync { 5 } else { 4 })?;
        let (dst, pred) = self.dst_pair(&i.operands[0], Type::B32, true)?;
        // `b` (lane or offset) and `c` (clamp and segment mask) are `.b32` operands, as in
        // ptxas 12.9: it accepts an `.f32` register or a `0f…` constant there (their bits),
        // not a `.b16` register or a decimal float.
        let mut srcs = Vec::with_capacity(4);
        for op in &i.operands[1..4] {
            srcs.push(self.src(op, Type::B32, Fit::Strict)?);
        }
        srcs.push(self.member(i, 4, sync)?);
        Ok(warp(WarpOp::Shfl(mode), ty, dst, pred, srcs))
    }

    /// `vote{.sync}.{all,any,uni}.pred d, {!}a{, membermask}` and
    /// `vote{.sync}.ballot.b32 d, {!}a{, membermask}`.
    fn vote(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let sync = m.has("sync");
        let mode = m.one_of(&["all", "any", "uni", "ballot"]);
        let ty = self.one_type(m)?;
        let op = match mode {
            Some("all") => WarpOp::Vote(VoteMode::All),
            Some("any") => WarpOp::Vote(VoteMode::Any),
            Some("uni") => WarpOp::Vote(VoteMode::Uni),
            Some(_) => WarpOp::Ballot,
            // ptxas 12.9 assembles `vote.sync.pred` without a mode to the same cubin
            // as `vote.sync.any.pred`.
            None if ty == Type::Pred => WarpOp::Vote(VoteMode::Any),
            None => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs '.all', '.any', '.uni' or '.ballot'", m.text),
                ))
            }
        };
        let want = if op == WarpOp::Ballot {
            Type::B32
        } else {
            Type::Pred
        };
        if ty != want {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, if sync { 3 } else { 2 })?;
        let d = self.dst(&i.operands[0], want, Fit::Strict)?;
        let a = self.pred_src(&i.operands[1])?;
        let member = self.member(i, 2, sync)?;
        let (dst, pred) = if op == WarpOp::Ballot {
            (Some(d), None)
        } else {
            (None, Some(d))
        };
        let mut k = warp(op, Type::B32, dst, pred, vec![member]);
        if let InstKind::Warp { vote_src, .. } = &mut k {
            *vote_src = Some(a);
        }
        Ok(k)
    }

    /// `match.any.sync.type d, a, membermask` / `match.all.sync.type d{|p}, a, membermask`.
    fn match_sync(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let all = match m.one_of(&["any", "all"]) {
            Some(x) => x == "all",
            None => return Err(self.err(m.loc, format!("'{}' needs '.any' or '.all'", m.text))),
        };
        self.need_sync(m)?;
        let ty = self.one_type(m)?;
        if !matches!(ty, Type::B32 | Type::B64) {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 3)?;
        let (dst, pred) = self.dst_pair(&i.operands[0], Type::B32, all)?;
        let a = self.src(&i.operands[1], ty, Fit::Strict)?;
        let member = self.src(&i.operands[2], Type::U32, Fit::Strict)?;
        Ok(warp(WarpOp::Match { all }, ty, dst, pred, vec![a, member]))
    }

    /// `redux.sync.{add,min,max}.{u32,s32}` and `redux.sync.{and,or,xor}.b32`.
    fn redux(&mut self, i: &Instruction, m: &mut Mods) -> Result<InstKind, PtxError> {
        let op = match m.one_of(&["add", "min", "max", "and", "or", "xor"]) {
            Some("add") => ReduxOp::Add,
            Some("min") => ReduxOp::Min,
            Some("max") => ReduxOp::Max,
            Some("and") => ReduxOp::And,
            Some("or") => ReduxOp::Or,
            Some(_) => ReduxOp::Xor,
            None => return Err(self.err(m.loc, format!("'{}' needs an operation", m.text))),
        };
        self.need_sync(m)?;
        let ty = self.one_type(m)?;
        let ok = match op {
            ReduxOp::Add | ReduxOp::Min | ReduxOp::Max => matches!(ty, Type::U32 | Type::S32),
            _ => ty == Type::B32,
        };
        if !ok {
            return Err(self.bad_type(m, ty));
        }
        self.nops(i, m, 3)?;
        let dst = self.dst(&i.operands[0], ty, Fit::Strict)?;
        // `.b32` sources are integers too: ptxas rejects `.f32` registers and float
        // constants ("Arguments mismatch"); `match` takes them.
        if let ast::Operand::Value(e) = &i.operands[1] {
            if matches!(self.value(e), Ok(Val::Const(c)) if !matches!(c, Const::Int { .. })) {
                return Err(self.err(
                    e.loc,
                    format!("a float constant cannot be a source of '{}'", m.text),
                ));
            }
        }
        let a = self.src(
            &i.operands[1],
            if ty == Type::B32 { Type::U32 } else { ty },
            Fit::Strict,
        )?;
        let member = self.src(&i.operands[2], Type::U32, Fit::Strict)?;
        Ok(warp(
            WarpOp::Redux(op),
            ty,
            Some(dst),
            None,
            vec![a, member],
        ))
    }
}

fn warp(
    op: WarpOp,
    ty: Type,
    dst: Option<RegId>,
    pred: Option<RegId>,
    srcs: Vec<Operand>,
) -> InstKind {
    InstKind::Warp {
        op,
        ty,
        dst,
        pred,
        srcs,
        vote_src: None,
    }
}
