//! Lowering of the bulk and cluster-remote asynchronous operations to
//! [`InstKind::Async`] (semantics in `crate::exec::bulk`): the state spaces of
//! `cp.async.bulk` (`.shared::cluster` destinations are [`Space::SharedCluster`]
//! addresses, possibly of another CTA of the cluster, with the mbarrier in the
//! destination's CTA), `cp.reduce.async.bulk` with the ISA's table of operations and
//! element types, `st.async` and `red.async`; and `multimem.ld_reduce`/`st`/`red`.
//!
//! **multimem.** A multimem address names one location in each device of a multicast
//! object. ptxjit runs one device, and the driver API it implements creates no multicast
//! objects, so a multimem address has exactly one member: `ld_reduce` is a load (the
//! reduction of one value is that value, also with `.acc::f32`, as every `.f16`/`.bf16`
//! value is exact in `.f32`), `st` a store and `red` a reduction of that one copy. The
//! forms and the operation/type table are checked as ptxas checks them.

use super::Mods;
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::{AsyncOp, AtomOp, Fit, InstKind, Operand, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

pub(super) const ATOM_OPS: &[&str] = &["add", "min", "max", "inc", "dec", "and", "or", "xor"];

pub(super) fn atom_op(s: &str) -> AtomOp {
    match s {
        "add" => AtomOp::Add,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        _ => AtomOp::Xor,
    }
}

/// The element types `cp.reduce.async.bulk` allows for `op` (`global`: into `.global`,
/// else into `.shared::cluster`), from the ISA's table.
fn reduce_types(op: AtomOp, global: bool) -> &'static [Type] {
    use Type::*;
    match (op, global) {
        (AtomOp::Add, false) => &[U32, S32, U64],
        (AtomOp::Add, true) => &[U32, S32, U64, F32, F64, F16, BF16],
        (AtomOp::Min | AtomOp::Max, false) => &[U32, S32],
        (AtomOp::Min | AtomOp::Max, true) => &[U32, S32, U64, S64, F16, BF16],
        (AtomOp::Inc | AtomOp::Dec, _) => &[U32],
        (_, false) => &[B32],
        (_, true) => &[B32, B64],
    }
}

/// The element types `red.async` allows for `op`.
fn red_async_types(op: AtomOp) -> &'static [Type] {
    use Type::*;
    match op {
        AtomOp::Add => &[U32, S32, U64],
        AtomOp::Min | AtomOp::Max => &[U32, S32],
        AtomOp::Inc | AtomOp::Dec => &[U32],
        _ => &[B32],
    }
}

/// Whether a bitwise operation's type `t` is an integer type of the width of one the
/// table lists (ptxas accepts `.xor.s32` where the table says `.b32`).
fn type_ok(allowed: &[Type], op: AtomOp, t: Type) -> bool {
    allowed.contains(&t)
        || matches!(op, AtomOp::And | AtomOp::Or | AtomOp::Xor)
            && t.is_int()
            && allowed.iter().any(|a| a.bits() == t.bits())
}

impl Fx<'_, '_> {
    /// Exactly one type modifier (the half types included: these operations move or
    /// reduce their bits).
    fn bulk_type(&self, m: &mut Mods) -> Result<Type, PtxError> {
        match m.types().as_slice() {
            [(t, _)] if *t != Type::B128 => Ok(*t),
            [(_, _)] => Err(self.unsupported(m)),
            [] => Err(self.err(m.loc, format!("instruction '{}' needs a type", m.text))),
            [_, (_, l), ..] => {
                Err(self.err(*l, format!("instruction '{}' has too many types", m.text)))
            }
        }
    }

    /// The `.dst.src` state spaces of a bulk copy or reduction (the first named is the
    /// destination) and whether it completes on an mbarrier (else `.bulk_group`).
    pub(super) fn bulk_spaces(
        &self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<(Space, Space, bool), PtxError> {
        let named: Vec<&str> = i
            .mods
            .iter()
            .map(|x| x.name.as_str())
            .filter(|x| matches!(*x, "shared::cluster" | "shared::cta" | "global"))
            .collect();
        let space = |s: &str| match s {
            "shared::cluster" => Space::SharedCluster,
            "shared::cta" => Space::Shared,
            _ => Space::Global,
        };
        let (ds, ss) = match named.as_slice() {
            [d, s] if d != s => (space(d), space(s)),
            _ => return Err(self.unsupported(m)),
        };
        let complete_tx = m.has("mbarrier::complete_tx::bytes");
        let group = m.has("bulk_group");
        let ok = match (ds, ss) {
            (Space::SharedCluster | Space::Shared, Space::Global) => complete_tx,
            (Space::SharedCluster, Space::Shared) => complete_tx,
            (Space::Global, Space::Shared) => group,
            _ => false,
        };
        if !ok || complete_tx == group {
            return Err(self.err(
                m.loc,
                format!("'{}' is not a valid form of the bulk copy", m.text),
            ));
        }
        while m
            .one_of(&["shared::cluster", "shared::cta", "global"])
            .is_some()
        {}
        Ok((ds, ss, complete_tx))
    }

    /// The mbarrier operand of a bulk copy or reduction: `[addr]`, or a bare 64-bit
    /// register, which ptxas assembles to the cubin of `[reg]`, byte for byte (ptxas
    /// 12.9, sm_90).
    pub(super) fn bulk_mbar(
        &self,
        op: &ast::Operand,
        space: Space,
    ) -> Result<crate::ir::Address, PtxError> {
        if let ast::Operand::Value(e) = op {
            if let Ok(Val::Reg(r, 0)) = self.value(e) {
                let t = self.reg_ty(r);
                if t.bits() == 64 && !t.is_float() {
                    let wrapped = ast::Operand::Bracket(vec![op.clone()], e.loc);
                    return self.address(&wrapped, space);
                }
            }
            // Likewise an integer constant is the mbarrier's address value: ptxas 12.9
            // accepts `cp.reduce.async.bulk…complete_tx::bytes.min.s32 [d], [s], 128, 8`
            // and `cp.async.bulk… [d], [s], 128, 8` (while `[8]` is "Immediate addresses
            // allowed only for .local state space").
            if let Ok(Val::Const(c)) = self.value(e) {
                if let Some(offset) = c.as_i64() {
                    return Ok(crate::ir::Address {
                        base: crate::ir::AddrBase::Abs,
                        offset,
                    });
                }
            }
        }
        self.address(op, space)
    }

    /// `cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.op{.noftz}.type [dst],
    /// [src], size{, [mbar]}{, policy}` (the `.tensor` forms: `crate::check::inst::tensor`).
    pub(super) fn cp_reduce_bulk(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        if m.any(|x| x == "tensor") {
            return self.cp_tensor(i, m, true);
        }
        if !m.has("async") || !m.has("bulk") {
            return Err(self.unsupported(m));
        }
        let (ds, ss, complete_tx) = self.bulk_spaces(i, m)?;
        let Some(op) = m.one_of(ATOM_OPS).map(atom_op) else {
            return Err(self.err(m.loc, format!("'{}' needs an operation", m.text)));
        };
        let noftz = m.has("noftz");
        let hint = m.has("L2::cache_hint");
        let ty = self.bulk_type(m)?;
        let half = matches!(ty, Type::F16 | Type::BF16);
        let valid = type_ok(reduce_types(op, ds == Space::Global), op, ty)
            && noftz == (half && op == AtomOp::Add);
        if !valid {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        let n = 3 + complete_tx as usize + hint as usize;
        self.nops_range(i, m, n)?;
        let mut addrs = vec![
            (ds, self.address(&i.operands[0], ds)?),
            (ss, self.address(&i.operands[1], ss)?),
        ];
        let size = self.bulk_size(&i.operands[2], m)?;
        if complete_tx {
            addrs.push((ds, self.bulk_mbar(&i.operands[3], ds)?));
        }
        if hint {
            self.src(&i.operands[n - 1], Type::B64, Fit::Strict)?;
        }
        Ok(vec![InstKind::Async {
            op: AsyncOp::CpReduceBulk {
                op,
                ty,
                complete_tx,
            },
            dsts: vec![],
            addrs,
            srcs: vec![size],
        }])
    }

    /// `st.async{.weak}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.vec}.type [a],
    /// b, [mbar]` and `red.async.relaxed.cluster{.shared::cluster}
    /// .mbarrier::complete_tx::bytes.op.type [a], b, [mbar]`.
    pub(super) fn st_red_async(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        m.has("async");
        let red = i.opcode.name == "red";
        if red {
            // PTX ISA, red.async: `red.async.relaxed.cluster{.ss}...`, both mandatory
            // (ptxas 12.9: "order modifier required for instruction 'red.async'",
            // "Modifier '.relaxed' requires scope with 'red.async' instruction").
            if !m.has("relaxed") {
                return Err(self.err(m.loc, format!("'{}' needs the order '.relaxed'", m.text)));
            }
            if !m.has("cluster") {
                return Err(self.err(
                    m.loc,
                    format!("'{}': '.relaxed' needs the scope '.cluster'", m.text),
                ));
            }
        } else {
            m.has("weak");
        }
        let space = match m.has("shared::cluster") {
            true => Space::SharedCluster,
            false => Space::Generic,
        };
        m.has("mbarrier::complete_tx::bytes");
        let op = if red {
            match m.one_of(ATOM_OPS) {
                Some(o) => Some(atom_op(o)),
                None => return Err(self.err(m.loc, format!("'{}' needs an operation", m.text))),
            }
        } else {
            None
        };
        let nvec = match m.one_of(&["v2", "v4"]) {
            Some("v2") => 2,
            Some(_) => 4,
            None => 1,
        };
        let ty = self.bulk_type(m)?;
        let valid = match op {
            Some(o) => nvec == 1 && type_ok(red_async_types(o), o, ty),
            None => ty.bits() >= 32 && !matches!(ty, Type::F16x2 | Type::BF16x2 | Type::B128),
        };
        if !valid {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        // Without the mbarrier operand ptxas (12.9; sm_90 and sm_100) accepts the
        // instruction and assembles nothing for it: the cubin has no store, no reduction.
        let nops = if i.operands.len() == 2 { 2 } else { 3 };
        self.nops_range(i, m, nops)?;
        let a = self.address(&i.operands[0], space)?;
        // The data operands have the instruction type's size (unlike `st`'s relaxed
        // rule): ptxas 12.9 gives "Arguments mismatch for instruction 'st.async'" for a
        // `.b64` register (or a `.b16` one) in `st.async.….u32` and for `{%rd, %rd}` in
        // `.v2.u32`, likewise for `red.async`.
        let srcs = if nvec == 1 {
            vec![self.src(&i.operands[1], ty, Fit::Strict)?]
        } else {
            self.vector_srcs(&i.operands[1], &vec![ty; nvec], Fit::Strict, |_| {
                format!("expected a vector of {nvec} elements")
            })?
        };
        if nops == 2 {
            return Ok(vec![]);
        }
        let mbar = self.address(&i.operands[2], space)?;
        let op = match op {
            Some(op) => AsyncOp::RedAsync { op, ty },
            None => AsyncOp::StAsync {
                ty,
                nvec: nvec as u8,
            },
        };
        // The operation carries the data as bits (`.u32`/`.b64` sources): a float
        // register (`st.async.f32 … %f`, `st.async.b32 … %f`, which ptxas accepts) is
        // copied to a bit register first.
        let mut out = Vec::new();
        let mut bits = Vec::with_capacity(srcs.len());
        for s in srcs {
            match s {
                Operand::Reg(r) if self.reg_ty(r).is_float() => {
                    let tb = if ty.bits() == 64 {
                        Type::B64
                    } else {
                        Type::B32
                    };
                    let t = self.new_reg("%__st_async".into(), tb, m.loc)?;
                    out.push(InstKind::Mov {
                        ty: tb,
                        dst: t,
                        src: Operand::Reg(r),
                    });
                    bits.push(Operand::Reg(t));
                }
                s => bits.push(s),
            }
        }
        out.push(InstKind::Async {
            op,
            dsts: vec![],
            addrs: vec![(space, a), (space, mbar)],
            srcs: bits,
        });
        Ok(out)
    }

    /// `multimem.ld_reduce`, `multimem.st`, `multimem.red` on a one-member multicast
    /// object (module documentation).
    pub(super) fn multimem(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let kind = match m.one_of(&["ld_reduce", "st", "red"]) {
            Some(k) => k,
            None => return Err(self.unsupported(m)),
        };
        let sem = m.one_of(&["weak", "relaxed", "acquire", "release"]);
        let sem_ok = match (kind, sem) {
            (_, None) => true,
            ("ld_reduce", Some(s)) => s != "release",
            ("st", Some(s)) => s != "acquire",
            (_, Some(s)) => matches!(s, "relaxed" | "release"),
        };
        // ptxas: a strong semantics needs a scope, a scope needs one ("requires scope",
        // "requires order", "'.weak' cannot be combined with" a scope).
        let scope = m.one_of(&["cta", "cluster", "gpu", "sys"]);
        let strong_sem = matches!(sem, Some("relaxed" | "acquire" | "release"));
        match (strong_sem, scope) {
            (true, None) => {
                return Err(self.err(
                    m.loc,
                    format!("'{}' needs a scope (.cta, .cluster, .gpu, .sys)", m.text),
                ))
            }
            (false, Some(sc)) => {
                return Err(self.err(
                    m.loc,
                    format!(
                        "scope '.{sc}' in '{}' needs .relaxed, .acquire or .release",
                        m.text
                    ),
                ))
            }
            _ => {}
        }
        let space = match m.has("global") {
            true => Space::Global,
            false => Space::Generic,
        };
        let op = match kind {
            "st" => None,
            _ => m
                .one_of(&["min", "max", "add", "and", "or", "xor"])
                .map(atom_op),
        };
        let acc = kind == "ld_reduce" && m.has("acc::f32");
        let vec = self.vec_mod(m);
        let ty = self.bulk_type(m)?;
        let float = ty.is_float() || matches!(ty, Type::F16x2 | Type::BF16x2);
        let half = matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2);
        let n = vec.unwrap_or(1);
        let bits = n as u32 * ty.bits();
        let shape_ok = if float {
            matches!(bits, 32 | 64 | 128) && !(ty == Type::F64 && vec.is_some())
        } else {
            vec.is_none() && matches!(ty.bits(), 32 | 64) && (ty.is_int() || ty.is_bits())
        };
        use Type::*;
        let op_ok = match op {
            None => kind == "st",
            Some(AtomOp::Add) => matches!(ty, U32 | U64 | S32 | F32 | F64) || half,
            Some(AtomOp::Min | AtomOp::Max) => {
                kind == "ld_reduce" && half || matches!(ty, U32 | S32 | U64 | S64)
            }
            Some(_) => matches!(ty, B32 | B64),
        };
        // `multimem.red` on floating-point types only adds.
        let red_ok = !(kind == "red" && float && op != Some(AtomOp::Add));
        if !sem_ok || !shape_ok || !op_ok || !red_ok || acc && !half {
            return Err(self.err(m.loc, format!("'{}' is not a valid form", m.text)));
        }
        self.nops_range(i, m, 2)?;
        let strong = matches!(sem, Some("relaxed" | "acquire" | "release"));
        // The bits moved per element: half types as their bit-size containers.
        let mty = match ty.bits() {
            16 => B16,
            32 if half => B32,
            _ => ty,
        };
        // A scalar data operand has the type's size exactly (ptxas 12.9: "Arguments
        // mismatch for instruction 'multimem.ld_reduce'" for a `.b64` register in
        // `.and.b32`, likewise `multimem.st`/`multimem.red`; `.b32` takes an `.f32` one).
        let mut out = Vec::new();
        match kind {
            "ld_reduce" => {
                let addr = self.address(&i.operands[1], space)?;
                let dsts = match vec {
                    None => vec![Some(self.dst(&i.operands[0], mty, Fit::Strict)?)],
                    Some(n) => self.atom_vec_dsts(&i.operands[0], mty, n)?,
                };
                out.push(InstKind::Ld {
                    space,
                    ty: mty,
                    dsts,
                    addr,
                });
                if strong {
                    out.push(InstKind::OrderPoint);
                }
            }
            "st" => {
                let addr = self.address(&i.operands[0], space)?;
                let srcs = match vec {
                    None => vec![self.src(&i.operands[1], mty, Fit::Strict)?],
                    Some(n) => self.atom_vec_srcs(&i.operands[1], mty, n)?,
                };
                if sem == Some("release") {
                    out.push(InstKind::OrderPoint);
                }
                out.push(InstKind::St {
                    space,
                    ty: mty,
                    srcs,
                    addr,
                });
                if strong {
                    out.push(InstKind::OrderPoint);
                }
            }
            _ => {
                let addr = self.address(&i.operands[0], space)?;
                let srcs: Vec<Operand> = match vec {
                    None => vec![self.src(&i.operands[1], ty, Fit::Strict)?],
                    Some(n) => self.atom_vec_srcs(&i.operands[1], ty, n)?,
                };
                if sem == Some("release") {
                    out.push(InstKind::OrderPoint);
                }
                for (k, src) in srcs.into_iter().enumerate() {
                    let mut a = addr;
                    a.offset = a.offset.wrapping_add((k as u32 * ty.bytes()) as i64);
                    out.push(InstKind::Atom {
                        op: op.unwrap_or(AtomOp::Add),
                        ty,
                        space,
                        dst: None,
                        addr: a,
                        srcs: vec![src],
                    });
                }
            }
        }
        Ok(out)
    }
}
