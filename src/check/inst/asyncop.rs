//! Lowering of the asynchronous copies and mbarriers to [`InstKind::Async`]:
//! `cp.async.{ca,cg}.shared{::cta}.global` (cache and prefetch hints accepted, `src-size`
//! and `ignore-src` forms, the optional cache-policy operand), `cp.async.commit_group`,
//! `cp.async.wait_group`, `cp.async.wait_all`, `cp.async.mbarrier.arrive{.noinc}`,
//! `cp.async.bulk` between global and shared memory (`.shared::cluster` is the CTA's own
//! shared memory: a single-CTA cluster), its `commit_group`/`wait_group{.read}`, and
//! `mbarrier.{init,inval,arrive,arrive_drop,expect_tx,complete_tx,test_wait,try_wait,
//! pending_count}` with their `.sem`/`.scope` qualifiers. Copies complete at issue
//! (`crate::exec::asyncop`), so the group operations lower to ordering points. A wait's
//! predicate is a `setp.ne` on a hidden `.u32` result; `ignore-src` is moved to a hidden
//! `.u32` by a `selp`. The `.tensor` forms are `crate::check::inst::tensor`'s.

use super::Mods;
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::{AsyncOp, CmpOp, Fit, InstKind, Operand, RegId, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

const SEMS: &[&str] = &["release", "acquire", "relaxed"];
const SCOPES: &[&str] = &["cta", "cluster"];

impl Fx<'_, '_> {
    /// A hidden register for an intermediate value (its name is no PTX identifier).
    fn async_tmp(&mut self, ty: Type, loc: crate::ir::Loc) -> Result<RegId, PtxError> {
        let name = format!("%async.tmp{}", self.regs.len());
        self.new_reg(name, ty, loc)
    }

    /// `.shared`, `.shared::cta`, `.shared::cluster` (any CTA of the cluster), or generic.
    fn mbar_space(&self, m: &mut Mods) -> Space {
        match m.one_of(&["shared", "shared::cta", "shared::cluster"]) {
            Some("shared::cluster") => Space::SharedCluster,
            Some(_) => Space::Shared,
            None => Space::Generic,
        }
    }

    /// `cp.async...` (every form).
    pub(super) fn cp_async(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        if m.has("reduce") {
            return self.cp_reduce_bulk(i, m);
        }
        if m.any(|x| x == "tensor") {
            return self.cp_tensor(i, m, false);
        }
        if !m.has("async") {
            return Err(self.unsupported(m));
        }
        if m.has("commit_group") || m.has("wait_all") || m.has("wait_group") {
            return self.cp_async_wait(i, m);
        }
        if m.has("mbarrier") {
            return self.cp_async_arrive(i, m);
        }
        if m.has("bulk") {
            return self.cp_async_bulk(i, m);
        }
        let cg = match m.one_of(&["ca", "cg"]) {
            Some(c) => c == "cg",
            None => return Err(self.err(m.loc, format!("'{}' needs '.ca' or '.cg'", m.text))),
        };
        if m.one_of(&["shared", "shared::cta"]).is_none() || !m.has("global") {
            return Err(self.unsupported(m));
        }
        // PTX ISA, cp.async: the only cache qualifiers are `.level::cache_hint` and
        // `.level::prefetch_size`, no eviction priority (ptxas 12.9: "Illegal modifier
        // '.level::eviction_priority' for instruction 'cp.async'").
        if let Some((p, loc)) = m.take_if(|x| x.contains("::evict_")) {
            return Err(self.err(
                loc,
                format!(
                    "'.{p}' is not valid for '{}': cp.async takes no eviction priority",
                    m.text
                ),
            ));
        }
        m.one_of(&["L2::64B", "L2::128B", "L2::256B"]);
        let hint = m.has("L2::cache_hint");
        let n = i.operands.len();
        if !(3..=5).contains(&n) {
            return Err(self.err(m.loc, format!("'{}' takes 3 to 5 operands", m.text)));
        }
        let dst = self.address(&i.operands[0], Space::Shared)?;
        let src = self.address(&i.operands[1], Space::Global)?;
        let size = match self.const_u32(&i.operands[2]) {
            Some(s @ (4 | 8 | 16)) if !cg || s == 16 => s as u8,
            _ => {
                return Err(self.err(
                    i.operands[2].loc(),
                    format!("'{}' copies 4, 8 or 16 bytes (.cg: 16)", m.text),
                ))
            }
        };
        let extra = n - 3 - hint as usize;
        if extra > 1 {
            return Err(self.err(m.loc, format!("'{}' has too many operands", m.text)));
        }
        if hint {
            self.src(&i.operands[n - 1], Type::B64, Fit::Strict)?;
        }
        let mut out = Vec::new();
        let mut srcs = Vec::new();
        let (mut src_size, mut ignore_src) = (false, false);
        if extra == 1 {
            let op = &i.operands[3];
            if self.is_pred_operand(op) {
                let p = self.pred_src(op)?;
                let t = self.async_tmp(Type::U32, m.loc)?;
                out.push(InstKind::Selp {
                    ty: Type::U32,
                    dst: t,
                    a: Operand::Imm(1),
                    b: Operand::Imm(0),
                    cond: p,
                });
                srcs.push(Operand::Reg(t));
                ignore_src = true;
            } else {
                // ptxas 12.9: a constant src-size is in [0, cp-size] ("Argument 3 of
                // instruction 'cp.async': value '7' out of range, expected to be in range
                // [0..4]").
                if let Some(v) = self.const_i64(op) {
                    if !(0..=size as i64).contains(&v) {
                        return Err(self.err(
                            op.loc(),
                            format!(
                                "the src-size {v} of '{}' is out of range [0, {size}]",
                                m.text
                            ),
                        ));
                    }
                }
                srcs.push(self.src(op, Type::U32, Fit::Strict)?);
                src_size = true;
            }
        }
        out.push(InstKind::Async {
            op: AsyncOp::CpAsync {
                size,
                src_size,
                ignore_src,
            },
            dsts: vec![],
            addrs: vec![(Space::Shared, dst), (Space::Global, src)],
            srcs,
        });
        Ok(out)
    }

    /// `cp.async{.bulk}.commit_group`, `.wait_group N`, `.wait_all` (`.read` for bulk
    /// copies only): an order point, the copies completing when issued.
    fn cp_async_wait(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        // `.read` only waits for the reads of bulk copies: ptxas 12.9 rejects
        // `cp.async.wait_group.read` and `cp.async.wait_all.read` ("Illegal modifier
        // '.read'").
        let bulk = m.has("bulk");
        if let Some((_, loc)) = m.take_if(|x| x == "read") {
            if !bulk {
                return Err(self.err(
                    loc,
                    format!(
                        "'.read' is only valid on 'cp.async.bulk.wait_group', not in '{}'",
                        m.text
                    ),
                ));
            }
        }
        // ptxas: `wait_group` takes exactly one integer constant, `commit_group` and
        // `wait_all` none ("Arguments mismatch" otherwise).
        let wait_group = m.text.contains(".wait_group");
        self.nops_range(i, m, wait_group as usize)?;
        // ptxas 12.9 takes any 64-bit integer constant and keeps its low 32 bits
        // (the cubins for `wait_group.read 4294967296` and `0` are identical, as are
        // those for 2^32+1 and 1). The copies complete when issued, so every count
        // has the same effect here.
        if let Some(op) = i.operands.first() {
            if self.const_low_u32(op).is_none() {
                return Err(self.err(op.loc(), format!("'{}' takes an integer constant", m.text)));
            }
        }
        // The copies completed when they were issued.
        Ok(vec![InstKind::OrderPoint])
    }

    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
    fn cp_async_arrive(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        if !m.has("arrive") {
            return Err(self.unsupported(m));
        }
        let noinc = m.has("noinc");
        let space = self.mbar_space(m);
        // The type is part of the syntax (PTX ISA, cp.async.mbarrier.arrive:
        // `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`); ptxas 12.9
        // without it: "Unexpected instruction types specified for
        // 'cp.async.mbarrier.arrive'".
        if !m.has("b64") {
            return Err(self.err(m.loc, format!("'{}' needs the type .b64", m.text)));
        }
        self.nops_range(i, m, 1)?;
        let a = self.address(&i.operands[0], space)?;
        Ok(vec![InstKind::Async {
            op: AsyncOp::CpAsyncArrive { noinc },
            dsts: vec![],
            addrs: vec![(space, a)],
            srcs: vec![],
        }])
    }

    /// `cp.async.bulk.dst.src.completion [dst], [src], size{, [mbar]}{, policy}`.
    fn cp_async_bulk(&mut self, i: &Instruction, m: &mut Mods) -> Result<Vec<InstKind>, PtxError> {
        if m.has("prefetch") {
            // `cp.async.bulk.prefetch.L2.global [src], size{, policy}`: a hint. The level
            // and the space are mandatory (PTX ISA syntax `.L2.src`, `.src = { .global
            // }`; ptxas 12.9: ".level modifier required", "State space modifier required
            // for instruction 'cp.async.bulk.prefetch'").
            if !m.has("L2") || !m.has("global") {
                return Err(self.err(m.loc, format!("'{}' needs '.L2.global'", m.text)));
            }
            let hint = m.has("L2::cache_hint");
            self.nops_range(i, m, 2 + hint as usize)?;
            self.address(&i.operands[0], Space::Global)?;
            self.bulk_size(&i.operands[1], m)?;
            if hint {
                self.src(&i.operands[2], Type::B64, Fit::Strict)?;
            }
            return Ok(vec![]);
        }
        let (ds, ss, complete_tx) = self.bulk_spaces(i, m)?;
        let multicast = m.has("multicast::cluster");
        if multicast && ss != Space::Global {
            return Err(self.err(
                m.loc,
                format!("'{}': .multicast::cluster copies from .global", m.text),
            ));
        }
        let hint = m.has("L2::cache_hint");
        let n = 3 + complete_tx as usize + multicast as usize + hint as usize;
        self.nops_range(i, m, n)?;
        let mut addrs = vec![
            (ds, self.address(&i.operands[0], ds)?),
            (ss, self.address(&i.operands[1], ss)?),
        ];
        let mut srcs = vec![self.bulk_size(&i.operands[2], m)?];
        if complete_tx {
            // The mbarrier is in the destination's CTA.
            addrs.push((ds, self.bulk_mbar(&i.operands[3], ds)?));
        }
        if multicast {
            srcs.push(self.src(&i.operands[4], Type::U16, Fit::Relaxed)?);
        }
        if hint {
            self.src(&i.operands[n - 1], Type::B64, Fit::Strict)?;
        }
        let op = match multicast {
            true => AsyncOp::CpBulkMulticast,
            false => AsyncOp::CpBulk { complete_tx },
        };
        Ok(vec![InstKind::Async {
            op,
            dsts: vec![],
            addrs,
            srcs,
        }])
    }

    /// The operation and memory-order qualifiers of `mbarrier.op{.sem}{.scope}...`, as
    /// ptxas 12.9 checks them: the operation comes first ("Unknown modifier" after
    /// `mbarrier.cta`); a scope needs a semantics and a semantics a scope ("requires
    /// order/scope"); `.release` only on arrivals, `.acquire` only on waits, `.relaxed`
    /// on both and on `expect_tx`/`complete_tx`, none on `init`, `inval`,
    /// `pending_count` ("Illegal modifier").
    fn mbar_quals(&self, i: &Instruction, m: &mut Mods) -> Result<(), PtxError> {
        const OPS: &[&str] = &[
            "init",
            "inval",
            "arrive",
            "arrive_drop",
            "expect_tx",
            "complete_tx",
            "test_wait",
            "try_wait",
            "pending_count",
        ];
        let Some(op) = i.mods.first().filter(|x| OPS.contains(&x.name.as_str())) else {
            let loc = i.mods.first().map(|x| x.loc).unwrap_or(m.loc);
            return Err(self.err(loc, format!("'{}' must name its operation first", m.text)));
        };
        let sem = m.take_if(|x| SEMS.contains(&x));
        let scope = m.take_if(|x| SCOPES.contains(&x));
        let allowed: &[&str] = match op.name.as_str() {
            "arrive" | "arrive_drop" => &["release", "relaxed"],
            "test_wait" | "try_wait" => &["acquire", "relaxed"],
            "expect_tx" | "complete_tx" => &["relaxed"],
            _ => &[],
        };
        match (sem, scope) {
            (None, Some((s, loc))) if allowed.is_empty() => Err(self.err(
                loc,
                format!("modifier '.{s}' is not allowed in '{}'", m.text),
            )),
            (Some((s, loc)), _) if !allowed.contains(&s) => Err(self.err(
                loc,
                format!("modifier '.{s}' is not allowed in '{}'", m.text),
            )),
            (Some(_), None) => Err(self.err(
                m.loc,
                format!("'{}' needs a scope (.cta, .cluster)", m.text),
            )),
            (None, Some((s, loc))) => Err(self.err(
                loc,
                format!("scope '.{s}' needs a semantics in '{}'", m.text),
            )),
            _ => Ok(()),
        }
    }

    /// `mbarrier.*`.
    pub(super) fn mbarrier(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        self.mbar_quals(i, m)?;
        if m.has("pending_count") {
            if !m.has("b64") {
                return Err(self.err(m.loc, format!("'{}' needs '.b64'", m.text)));
            }
            self.nops_range(i, m, 2)?;
            let d = self.dst(&i.operands[0], Type::U32, Fit::Strict)?;
            let s = self.src(&i.operands[1], Type::B64, Fit::Strict)?;
            return Ok(vec![InstKind::Async {
                op: AsyncOp::PendingCount,
                dsts: vec![Some(d)],
                addrs: vec![],
                srcs: vec![s],
            }]);
        }
        let kind = m.one_of(&[
            "init",
            "inval",
            "arrive",
            "arrive_drop",
            "expect_tx",
            "complete_tx",
            "test_wait",
            "try_wait",
        ]);
        let Some(kind) = kind else {
            return Err(self.unsupported(m));
        };
        let space = self.mbar_space(m);
        if !m.has("b64") {
            return Err(self.err(m.loc, format!("'{}' needs '.b64'", m.text)));
        }
        let ops = &i.operands;
        let one = |op: AsyncOp, dst: Option<RegId>, addr, srcs| {
            Ok(vec![InstKind::Async {
                op,
                dsts: if op.dst_types().is_empty() {
                    vec![]
                } else {
                    vec![dst]
                },
                addrs: vec![(space, addr)],
                srcs,
            }])
        };
        match kind {
            "init" | "expect_tx" | "complete_tx" => {
                self.nops_range(i, m, 2)?;
                let a = self.address(&ops[0], space)?;
                let c = self.src(&ops[1], Type::U32, Fit::Strict)?;
                let op = match kind {
                    "init" => AsyncOp::Init,
                    "expect_tx" => AsyncOp::ExpectTx,
                    _ => AsyncOp::CompleteTx,
                };
                one(op, None, a, vec![c])
            }
            "inval" => {
                self.nops_range(i, m, 1)?;
                let a = self.address(&ops[0], space)?;
                one(AsyncOp::Inval, None, a, vec![])
            }
            "arrive" | "arrive_drop" => {
                let expect_tx = m.has("expect_tx");
                let no_complete = m.has("noComplete");
                if !matches!(ops.len(), 2 | 3) || expect_tx && ops.len() != 3 {
                    return Err(self.err(m.loc, format!("'{}' takes 2 or 3 operands", m.text)));
                }
                // ptxas 12.9: "Illegal modifier '.noComplete' for instruction
                // 'mbarrier.arrive without count argument'" (arrive_drop likewise).
                if no_complete && ops.len() == 2 {
                    return Err(self.err(
                        m.loc,
                        format!("'{}': .noComplete needs a count operand", m.text),
                    ));
                }
                let dst = match &ops[0] {
                    ast::Operand::Sink(_) => None,
                    d => Some(self.dst(d, Type::B64, Fit::Strict)?),
                };
                let a = self.address(&ops[1], space)?;
                let c = match ops.get(2) {
                    Some(o) => self.src(o, Type::U32, Fit::Strict)?,
                    None => Operand::Imm(1),
                };
                let op = AsyncOp::Arrive {
                    drop: kind == "arrive_drop",
                    expect_tx,
                };
                one(op, dst, a, vec![c])
            }
            _ => {
                let parity = m.has("parity");
                if !matches!(ops.len(), 3 | 4) {
                    return Err(self.err(m.loc, format!("'{}' takes 3 or 4 operands", m.text)));
                }
                let try_wait = kind == "try_wait";
                if ops.len() == 4 {
                    if !try_wait {
                        return Err(self.err(m.loc, format!("'{}' takes 3 operands", m.text)));
                    }
                    // suspendTimeHint: any wait is within the hint's freedom.
                    self.src(&ops[3], Type::U32, Fit::Strict)?;
                }
                let p = self.dst(&ops[0], Type::Pred, Fit::Strict)?;
                let a = self.address(&ops[1], space)?;
                let st = if parity { Type::U32 } else { Type::B64 };
                let s = self.src(&ops[2], st, Fit::Strict)?;
                let t = self.async_tmp(Type::U32, m.loc)?;
                let mut out = one(AsyncOp::Wait { parity, try_wait }, Some(t), a, vec![s])?;
                out.push(InstKind::Setp {
                    cmp: CmpOp::Ne,
                    ty: Type::U32,
                    ftz: false,
                    dst: Some(p),
                    dst_neg: None,
                    a: Operand::Reg(t),
                    b: Operand::Imm(0),
                    combine: None,
                });
                Ok(out)
            }
        }
    }

    /// Whether `op` is a predicate register or its negation.
    pub(super) fn is_pred_operand(&self, op: &ast::Operand) -> bool {
        match op {
            ast::Operand::Not(_) => true,
            ast::Operand::Value(e) => {
                matches!(self.value(e), Ok(Val::Reg(r, 0)) if self.reg_ty(r) == Type::Pred)
            }
            _ => false,
        }
    }

    /// The byte count of a bulk copy, reduction or prefetch: a `.u32` register or a
    /// constant, which ptxas requires to be a multiple of 16 in [0, 1048560] ("expected to
    /// be multiple of 16", "out of range"). ptxas 12.9 checks a constant's low 32 bits, read
    /// as signed: 4294967296 is 0 and 4294967312 is 16 (both load), 4294967297 is 1 and
    /// -16 is below 0 (both rejected); so the operand is those low bits.
    pub(super) fn bulk_size(&self, op: &ast::Operand, m: &Mods) -> Result<Operand, PtxError> {
        if let ast::Operand::Value(e) = op {
            if let Ok(Val::Const(c)) = self.value(e) {
                match c.as_i64().map(|v| v as u32 as i32) {
                    Some(v) if (0..=1_048_560).contains(&v) && v % 16 == 0 => {
                        return Ok(Operand::Imm(v as u64));
                    }
                    _ => {
                        return Err(self.err(
                            e.loc,
                            format!(
                                "the size of '{}' must be a multiple of 16 in [0, 1048560]",
                                m.text
                            ),
                        ))
                    }
                }
            }
        }
        self.src(op, Type::U32, Fit::Strict)
    }

    /// An integer constant operand of any size, truncated to its low 32 bits.
    pub(super) fn const_low_u32(&self, op: &ast::Operand) -> Option<u32> {
        let ast::Operand::Value(e) = op else {
            return None;
        };
        match self.value(e).ok()? {
            Val::Const(c) => c.as_i64().map(|v| v as u32),
            _ => None,
        }
    }

    pub(super) fn const_u32(&self, op: &ast::Operand) -> Option<u32> {
        self.const_i64(op).and_then(|v| u32::try_from(v).ok())
    }

    /// An integer constant operand.
    pub(super) fn const_i64(&self, op: &ast::Operand) -> Option<i64> {
        let ast::Operand::Value(e) = op else {
            return None;
        };
        match self.value(e).ok()? {
            Val::Const(c) => c.as_i64(),
            _ => None,
        }
    }
}
