//! An independent checker of the IR invariants that `check` promises (see `crate::ir`):
//! for tests, fuzzing and backends that build IR by hand.

use super::operand::{reg_fits, Rule};
use crate::ir::*;

/// Checks the structural invariants of a module; the error names the first violation.
pub fn validate(m: &Module) -> Result<(), String> {
    for (gi, g) in m.globals.iter().enumerate() {
        if g.init.len() as u64 != g.size {
            return Err(format!(
                "global {}: init has {} bytes, size {}",
                g.name,
                g.init.len(),
                g.size
            ));
        }
        if !g.align.is_power_of_two() {
            return Err(format!("global {}: alignment {}", g.name, g.align));
        }
        for r in &g.relocs {
            if !(r.size == 4 || r.size == 8) || r.offset + r.size as u64 > g.size {
                return Err(format!("global {}: relocation out of range", g.name));
            }
            match r.target {
                RelocTarget::Global(t) if t.0 as usize >= m.globals.len() => {
                    return Err(format!("global {gi}: relocation to missing global"))
                }
                RelocTarget::Func(f) if f.0 as usize >= m.functions.len() => {
                    return Err(format!("global {gi}: relocation to missing function"))
                }
                _ => {}
            }
        }
    }
    let mut static_end = 0u32;
    for s in &m.shared_vars {
        if s.dynamic {
            if s.offset != m.dyn_shared_offset || s.size != 0 {
                return Err(format!(
                    "shared {}: dynamic array not at the dynamic offset",
                    s.name
                ));
            }
            if !m.dyn_shared_offset.is_multiple_of(s.align.max(1)) {
                return Err(format!("shared {}: misaligned dynamic offset", s.name));
            }
        } else {
            if !s.offset.is_multiple_of(s.align.max(1)) {
                return Err(format!("shared {}: misaligned", s.name));
            }
            static_end = static_end.max(s.offset + s.size);
        }
    }
    if static_end > m.shared_static_size
        || m.dyn_shared_offset < m.shared_static_size
        || !m.dyn_shared_offset.is_multiple_of(16)
    {
        return Err("shared window sizes are inconsistent".into());
    }
    for (fi, f) in m.functions.iter().enumerate() {
        validate_function(m, FuncId(fi as u32), f)
            .map_err(|e| format!("function {}: {e}", f.name))?;
    }
    Ok(())
}

fn validate_function(m: &Module, fid: FuncId, f: &Function) -> Result<(), String> {
    let nregs = f.regs.len();
    let nblocks = f.blocks.len();
    let reg_ty = |r: RegId| -> Result<Type, String> {
        f.regs
            .get(r.0 as usize)
            .map(|ri| ri.ty)
            .ok_or_else(|| format!("register {} out of range ({nregs})", r.0))
    };
    let block = |b: BlockId| -> Result<(), String> {
        if (b.0 as usize) < nblocks {
            Ok(())
        } else {
            Err(format!("block {} out of range", b.0))
        }
    };
    let inst = |i: InstId| -> Result<(), String> {
        match m.inst_info.get(i.0 as usize) {
            Some(info) if info.func == fid => Ok(()),
            Some(_) => Err(format!("instruction {} belongs to another function", i.0)),
            None => Err(format!("instruction {} out of range", i.0)),
        }
    };
    let pred = |r: RegId| -> Result<(), String> {
        if reg_ty(r)? == Type::Pred {
            Ok(())
        } else {
            Err(format!(
                "register {} is not a predicate",
                f.regs[r.0 as usize].name
            ))
        }
    };
    let fits = |r: RegId, ty: Type, rule: Rule| -> Result<(), String> {
        let rt = reg_ty(r)?;
        if reg_fits(rt, ty, rule) {
            Ok(())
        } else {
            Err(format!(
                "register {} ({rt}) does not fit {ty}",
                f.regs[r.0 as usize].name
            ))
        }
    };
    let var = |v: VarRef| -> Result<(), String> {
        match v {
            VarRef::Global(g) if g.0 as usize >= m.globals.len() => {
                Err("global out of range".into())
            }
            VarRef::Local(o) if o >= f.local_size.max(1) => Err("local offset out of range".into()),
            VarRef::KernelParam(o) if o >= f.param_size.max(1) => {
                Err("param offset out of range".into())
            }
            _ => Ok(()),
        }
    };
    let src = |o: &Operand, ty: Type, rule: Rule| -> Result<(), String> {
        match o {
            Operand::Reg(r) => fits(*r, ty, rule),
            Operand::Imm(v) => {
                if ty.bits() < 64 && *v >> ty.bits() != 0 {
                    Err(format!("immediate {v:#x} wider than {ty}"))
                } else {
                    Ok(())
                }
            }
            Operand::Special(s) => {
                if s.bits() == 1 && ty != Type::Pred || s.bits() > 1 && ty.bits() > s.bits() {
                    Err(format!("special register {s:?} read as {ty}"))
                } else {
                    Ok(())
                }
            }
            Operand::VarAddr(v, _) => var(*v),
            Operand::FuncAddr(g) if g.0 as usize >= m.functions.len() => {
                Err("function out of range".into())
            }
            Operand::FuncAddr(_) => Ok(()),
        }
    };
    let addr = |a: &Address| -> Result<(), String> {
        match a.base {
            AddrBase::Reg(r) => {
                let t = reg_ty(r)?;
                if t.bits() == 32 || t.bits() == 64 {
                    Ok(())
                } else {
                    Err("address register is not 32 or 64 bits".into())
                }
            }
            AddrBase::Var(v) => var(v),
            AddrBase::Abs => Ok(()),
        }
    };
    for p in f.params.iter().chain(&f.rets) {
        if let Some(r) = p.reg {
            reg_ty(r)?;
        }
    }
    let mut has_lower_pred = vec![false; nblocks];
    let mut preds = vec![0u32; nblocks];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            inst(i.id)?;
            if let Some(g) = i.guard {
                pred(g.pred)?;
            }
            match &i.kind {
                InstKind::Mov { ty, dst, src: s } => {
                    fits(*dst, *ty, Rule::Strict)?;
                    src(s, *ty, Rule::Strict)?;
                }
                InstKind::Arith {
                    op, ty, dst, srcs, ..
                } => {
                    if srcs.len() != op.arity() {
                        return Err(format!("{op:?} with {} sources", srcs.len()));
                    }
                    let dty = match op {
                        ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide) => {
                            ty.widened().ok_or("bad wide type")?
                        }
                        _ => *ty,
                    };
                    fits(*dst, dty, Rule::Strict)?;
                    for (k, s) in srcs.iter().enumerate() {
                        let t = match op {
                            ArithOp::Shl | ArithOp::Shr if k == 1 => Type::U32,
                            ArithOp::Mad(MulMode::Wide) if k == 2 => dty,
                            _ => *ty,
                        };
                        src(s, t, Rule::Strict)?;
                    }
                }
                InstKind::Setp {
                    ty,
                    dst,
                    dst_neg,
                    a,
                    b,
                    combine,
                    ..
                } => {
                    for d in dst.iter().chain(dst_neg) {
                        pred(*d)?;
                    }
                    src(a, *ty, Rule::Strict)?;
                    src(b, *ty, Rule::Strict)?;
                    if let Some((_, c)) = combine {
                        pred(c.reg)?;
                    }
                }
                InstKind::Sfu {
                    ty, dst, src: s, ..
                } => {
                    if !matches!(ty, Type::F32 | Type::F64) {
                        return Err(format!("sfu on {ty}"));
                    }
                    fits(*dst, *ty, Rule::Strict)?;
                    src(s, *ty, Rule::Strict)?;
                }
                InstKind::BarArrive { barrier, count } => {
                    src(barrier, Type::U32, Rule::Strict)?;
                    src(count, Type::U32, Rule::Strict)?;
                }
                InstKind::BarRedResult { op, barrier, dst } => {
                    src(barrier, Type::U32, Rule::Strict)?;
                    match op {
                        BarRedOp::Popc => fits(*dst, Type::U32, Rule::Strict)?,
                        _ => pred(*dst)?,
                    }
                }
                InstKind::Atom {
                    op,
                    ty,
                    space,
                    dst,
                    addr: a,
                    srcs,
                } => {
                    if !(crate::ops::atomic::valid(*op, *ty)
                        || crate::ops::atomic::valid_vector_elem(*op, *ty))
                        || !matches!(space, Space::Global | Space::Shared | Space::Generic)
                    {
                        return Err(format!("atom {op:?} on {ty} in {space:?}"));
                    }
                    let n = if *op == crate::ir::AtomOp::Cas { 2 } else { 1 };
                    if srcs.len() != n {
                        return Err(format!("atom {op:?} with {} sources", srcs.len()));
                    }
                    for s in srcs {
                        src(s, *ty, Rule::Relaxed)?;
                    }
                    if let Some(d) = dst {
                        fits(*d, *ty, Rule::Relaxed)?;
                    }
                    addr(a)?;
                }
                InstKind::Warp {
                    op,
                    ty,
                    dst,
                    pred: p,
                    srcs,
                    vote_src,
                } => {
                    let (stys, dty) = crate::ops::warp::signature(*op, *ty);
                    if srcs.len() != stys.len() {
                        return Err(format!("{op:?} with {} sources", srcs.len()));
                    }
                    for (s, t) in srcs.iter().zip(stys) {
                        src(s, t, Rule::Strict)?;
                    }
                    match (dst, dty) {
                        (Some(d), Some(t)) => fits(*d, t, Rule::Strict)?,
                        (None, _) => {}
                        (Some(_), None) => return Err(format!("{op:?} has no value result")),
                    }
                    if let Some(r) = p {
                        pred(*r)?;
                    }
                    let is_vote =
                        matches!(op, crate::ir::WarpOp::Vote(_) | crate::ir::WarpOp::Ballot);
                    match vote_src {
                        Some(v) if is_vote => pred(v.reg)?,
                        None if !is_vote => {}
                        _ => return Err(format!("{op:?} with a bad vote source")),
                    }
                }
                InstKind::CvtX { op, dst, srcs } => {
                    let (stys, dty) = crate::ops::cvtx::signature(*op);
                    if srcs.len() != stys.len() {
                        return Err(format!("{op:?} with {} sources", srcs.len()));
                    }
                    fits(*dst, dty, Rule::Cvt)?;
                    for (s, t) in srcs.iter().zip(stys) {
                        src(s, *t, Rule::Strict)?;
                    }
                }
                InstKind::Bits { op, ty, dst, srcs } => {
                    let (stys, dty) = crate::ops::bits::signature(*op, *ty);
                    if srcs.len() != stys.len() {
                        return Err(format!("{op:?} with {} sources", srcs.len()));
                    }
                    fits(*dst, dty, Rule::Strict)?;
                    for (s, t) in srcs.iter().zip(stys) {
                        src(s, t, Rule::Strict)?;
                    }
                }
                InstKind::Selp {
                    ty,
                    dst,
                    a,
                    b,
                    cond,
                } => {
                    fits(*dst, *ty, Rule::Strict)?;
                    src(a, *ty, Rule::Strict)?;
                    src(b, *ty, Rule::Strict)?;
                    pred(cond.reg)?;
                }
                InstKind::Ld {
                    ty, dsts, addr: a, ..
                } => {
                    if ![1, 2, 4, 8].contains(&dsts.len()) {
                        return Err("ld with a bad vector length".into());
                    }
                    for d in dsts.iter().flatten() {
                        fits(*d, *ty, Rule::Relaxed)?;
                    }
                    addr(a)?;
                }
                InstKind::St {
                    ty, srcs, addr: a, ..
                } => {
                    if ![1, 2, 4, 8].contains(&srcs.len()) {
                        return Err("st with a bad vector length".into());
                    }
                    for s in srcs {
                        src(s, *ty, Rule::Relaxed)?;
                    }
                    addr(a)?;
                }
                InstKind::Cvta {
                    ty, dst, src: s, ..
                } => {
                    fits(*dst, *ty, Rule::Strict)?;
                    src(s, *ty, Rule::Strict)?;
                }
                InstKind::Cvt {
                    dst_ty,
                    src_ty,
                    dst,
                    src: s,
                    ..
                } => {
                    fits(*dst, *dst_ty, Rule::Cvt)?;
                    src(s, *src_ty, Rule::Cvt)?;
                }
                InstKind::Set {
                    dty,
                    ty,
                    dst,
                    a,
                    b,
                    combine,
                    ..
                } => {
                    fits(*dst, *dty, Rule::Strict)?;
                    src(a, *ty, Rule::Strict)?;
                    src(b, *ty, Rule::Strict)?;
                    if let Some((_, c)) = combine {
                        pred(c.reg)?;
                    }
                }
                InstKind::SetpPacked {
                    ty,
                    dst_lo,
                    dst_hi,
                    a,
                    b,
                    combine,
                    ..
                } => {
                    if !matches!(ty, Type::F16x2 | Type::BF16x2) {
                        return Err("packed setp on a type other than .f16x2/.bf16x2".into());
                    }
                    for d in dst_lo.iter().chain(dst_hi) {
                        pred(*d)?;
                    }
                    src(a, *ty, Rule::Strict)?;
                    src(b, *ty, Rule::Strict)?;
                    if let Some((_, c)) = combine {
                        pred(c.reg)?;
                    }
                }
                InstKind::Nanosleep { t } => src(t, Type::U32, Rule::Strict)?,
                InstKind::Half {
                    op, ty, dst, srcs, ..
                } => {
                    if crate::ops::f16::HalfKind::of(*ty).is_none() || srcs.len() != op.arity() {
                        return Err(format!("half {op:?} on {ty} with {} sources", srcs.len()));
                    }
                    fits(*dst, *ty, Rule::Strict)?;
                    for s in srcs {
                        src(s, *ty, Rule::Strict)?;
                    }
                }
                InstKind::Isspacep { dst, src: s, .. } => {
                    pred(*dst)?;
                    if let Operand::Reg(r) = s {
                        let t = reg_ty(*r)?;
                        if !(t.bits() == 32 || t.bits() == 64) || t == Type::Pred || t.is_float() {
                            return Err("isspacep address register is not 32 or 64 bits".into());
                        }
                    } else {
                        src(s, Type::U64, Rule::Strict)?;
                    }
                }
                InstKind::OrderPoint | InstKind::Fence => {}
                InstKind::Carry {
                    op,
                    ty,
                    dst,
                    srcs,
                    cc_in,
                    cc_out,
                } => {
                    let n = if matches!(op, CarryOp::Add | CarryOp::Sub) {
                        2
                    } else {
                        3
                    };
                    if srcs.len() != n || !matches!(ty.bits(), 32 | 64) || !ty.is_int() {
                        return Err(format!("{op:?}.{ty} with {} sources", srcs.len()));
                    }
                    fits(*dst, *ty, Rule::Strict)?;
                    for s in srcs {
                        src(s, *ty, Rule::Strict)?;
                    }
                    for r in cc_in.iter().chain(cc_out) {
                        pred(*r)?;
                    }
                }
                InstKind::MinMax { op, ty, dst, a, b } => {
                    let oty = if op.packed { Type::B32 } else { *ty };
                    fits(*dst, oty, Rule::Strict)?;
                    src(a, oty, Rule::Strict)?;
                    src(b, oty, Rule::Strict)?;
                }
                InstKind::Copysign { ty, dst, a, b } => {
                    if !matches!(ty, Type::F32 | Type::F64) {
                        return Err(format!("copysign on {ty}"));
                    }
                    fits(*dst, *ty, Rule::Strict)?;
                    src(a, *ty, Rule::Strict)?;
                    src(b, *ty, Rule::Strict)?;
                }
                InstKind::Testp {
                    ty, dst, src: s, ..
                } => {
                    if !matches!(ty, Type::F32 | Type::F64) {
                        return Err(format!("testp on {ty}"));
                    }
                    pred(*dst)?;
                    src(s, *ty, Rule::Strict)?;
                }
                InstKind::Matrix {
                    op,
                    dsts,
                    srcs,
                    addr: a,
                } => {
                    let sig = crate::ops::mma::signature(*op)
                        .ok_or_else(|| format!("unsupported {op:?}"))?;
                    if srcs.len() != sig.srcs.len() || dsts.len() != sig.dsts {
                        return Err(format!(
                            "{op:?} with {} sources, {} results",
                            srcs.len(),
                            dsts.len()
                        ));
                    }
                    for (s, t) in srcs.iter().zip(&sig.srcs) {
                        src(s, *t, Rule::Strict)?;
                    }
                    for d in dsts.iter().flatten() {
                        fits(*d, sig.dtype, Rule::Strict)?;
                    }
                    match (op, a) {
                        (MatrixOp::Ldmatrix { .. }, Some((Space::Shared | Space::Generic, a))) => {
                            addr(a)?
                        }
                        (MatrixOp::Ldmatrix { .. }, _) | (_, Some(_)) => {
                            return Err(format!("{op:?} with a bad address"))
                        }
                        (_, None) => {}
                    }
                }
                InstKind::Builtin { op, args, dst } => {
                    if args.len() != op.params().len() {
                        return Err(format!("{op:?} with {} operands", args.len()));
                    }
                    for (s, t) in args.iter().zip(op.params()) {
                        src(s, *t, Rule::Relaxed)?;
                    }
                    if let Some(d) = dst {
                        if *op != crate::ir::Builtin::Vprintf {
                            return Err(format!("{op:?} has no result"));
                        }
                        fits(*d, Type::U32, Rule::Relaxed)?;
                    }
                }
            }
        }
        match &b.term {
            Terminator::Jump { inst: i, .. } => {
                if let Some(i) = i {
                    inst(*i)?;
                }
            }
            Terminator::Barrier {
                guard,
                barrier,
                count,
                red,
                inst: i,
                ..
            } => {
                inst(*i)?;
                if let Some(g) = guard {
                    pred(g.pred)?;
                }
                if let Some(c) = red {
                    pred(c.reg)?;
                }
                src(barrier, Type::U32, Rule::Strict)?;
                if let Some(c) = count {
                    src(c, Type::U32, Rule::Strict)?;
                }
            }
            Terminator::Branch { guard, inst: i, .. } => {
                pred(guard.pred)?;
                inst(*i)?;
            }
            Terminator::Ret {
                guard,
                next,
                inst: i,
            }
            | Terminator::Exit {
                guard,
                next,
                inst: i,
            } => {
                inst(*i)?;
                if guard.is_some() != next.is_some() {
                    return Err("a guarded ret/exit needs a next block (and only then)".into());
                }
                if let Some(g) = guard {
                    pred(g.pred)?;
                }
            }
            Terminator::BrxIdx {
                guard,
                index,
                targets,
                inst: i,
                ..
            } => {
                inst(*i)?;
                if let Some(g) = guard {
                    pred(g.pred)?;
                }
                src(index, Type::U32, Rule::Strict)?;
                if targets.is_empty() {
                    return Err("brx.idx with an empty target list".into());
                }
            }
            Terminator::Call { guard, inst: i, .. }
            | Terminator::CallIndirect { guard, inst: i, .. } => {
                inst(*i)?;
                if let Some(g) = guard {
                    pred(g.pred)?;
                }
                super::call::validate_call(m, f, &b.term)?;
                if let Terminator::Call {
                    resume: Some(r), ..
                }
                | Terminator::CallIndirect {
                    resume: Some(r), ..
                } = &b.term
                {
                    block(*r)?;
                    if !matches!(f.blocks[r.0 as usize].term,
                        Terminator::Resume { call, .. } if call.0 as usize == bi)
                    {
                        return Err("a call's resume block must name the call".into());
                    }
                }
            }
            Terminator::Resume {
                call,
                next,
                inst: i,
            } => {
                inst(*i)?;
                block(*call)?;
                let ok = matches!(
                    f.blocks[call.0 as usize].term,
                    Terminator::Call { resume: Some(r), next: n, .. }
                    | Terminator::CallIndirect { resume: Some(r), next: n, .. }
                        if r.0 as usize == bi && n == *next
                );
                if !ok || !b.insts.is_empty() {
                    return Err("a resume block must be empty and follow its call".into());
                }
            }
        }
        for s in b.term.successors() {
            block(s)?;
            preds[s.0 as usize] += 1;
            if (s.0 as usize) > bi {
                has_lower_pred[s.0 as usize] = true;
            }
        }
    }
    if nblocks > 0 && preds[0] != 0 {
        return Err("the entry block has predecessors".into());
    }
    if let Some(b) = (1..nblocks).find(|&b| !has_lower_pred[b]) {
        return Err(format!(
            "block {b} has no predecessor numbered lower (not reverse post-order or unreachable)"
        ));
    }
    Ok(())
}
