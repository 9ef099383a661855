//! Reference interpreter: runs one warp of a kernel lane by lane, obviously correct and
//! slow. Every scalar result comes from [`crate::ops`]; every memory access goes through
//! [`crate::exec::ctx::access`], exactly as the JIT's slow path does.
//!
//! Control flow follows DESIGN.md literally: each lane that is not running records the
//! block it waits at; after every block the warp runs the lowest-numbered block anyone
//! waits at (blocks are numbered in reverse post-order), with the mask of the lanes
//! waiting there. The JIT's uniform-branch fast path gives the same schedule.
//!
//! A call (`call.rs`) runs the callee recursively with the called lanes, in a fresh
//! register file and a new `.local` frame, until each of them has returned or exited.

use crate::ir::{
    AddrBase, Address, ArithOp, BlockId, FuncId, Function, Guard, Inst, InstKind, MulMode, Operand,
    PredSrc, RegClass, RegId, Space, SpecialReg, Terminator, Type, VarRef,
};
mod call;
mod intfp;
mod matrix;

use crate::exec::barrier::{self, BAR_WAIT};
use crate::exec::call::FUNC_ADDR_BASE;
use crate::exec::ctx::{self, AccessReq, WarpCtx, STATUS_OK, WARP_SIZE};
use crate::exec::ModuleLayout;
use crate::ops;

/// Not waiting at any block.
const NONE: u32 = u32::MAX;
struct Warp<'a> {
    m: &'a crate::ir::Module,
    layout: &'a ModuleLayout,
    f: &'a Function,
    /// `regs[r][lane]`: each register's container, zero-extended beyond its width.
    regs: Vec<[u64; WARP_SIZE]>,
}

/// Runs warp `ctx` of kernel `func` from its entry until every lane has exited or the
/// warp stops on a fault. Returns `ctx.status`.
pub fn run_warp(
    m: &crate::ir::Module,
    layout: &ModuleLayout,
    func: FuncId,
    ctx: &mut WarpCtx,
) -> u32 {
    let live = ctx.live;
    run_func(m, layout, func, ctx, live);
    ctx.status
}

/// Runs function `func` with lanes `mask` from its entry until every lane has returned
/// or exited, or the warp stops (`ctx.status` not OK). Returns the lanes that returned
/// (a kernel's `ret` is an `exit`: none).
fn run_func(
    m: &crate::ir::Module,
    layout: &ModuleLayout,
    func: FuncId,
    ctx: &mut WarpCtx,
    mask: u32,
) -> u32 {
    let Some(f) = m.functions.get(func.0 as usize) else {
        return 0;
    };
    if f.blocks.is_empty() {
        return 0;
    }
    let is_kernel = f.kind == crate::ir::FuncKind::Entry;
    let mut returned = 0u32;
    let mut w = Warp {
        m,
        layout,
        f,
        regs: vec![[0u64; WARP_SIZE]; f.regs.len()],
    };
    let mut next = [NONE; WARP_SIZE];
    let mut active = mask;
    let mut block = 0usize;
    loop {
        let b = &f.blocks[block];
        if ctx::stop_requested(ctx) {
            let at = b.insts.first().map(|i| i.id).or_else(|| b.term.inst());
            // SAFETY: the runtime runs warps with their env set.
            unsafe { ctx::timed_out(ctx, at.unwrap_or(crate::ir::InstId(u32::MAX))) };
            return returned;
        }
        for inst in &b.insts {
            if w.exec(ctx, inst, active).is_err() || ctx.status != STATUS_OK {
                return returned;
            }
        }
        let send = |next: &mut [u32; WARP_SIZE], mask: u32, target: BlockId| {
            for (lane, n) in next.iter_mut().enumerate() {
                if mask & (1 << lane) != 0 {
                    *n = target.0;
                }
            }
        };
        if ctx.check_uniform != 0 {
            if let Some((inst, bad)) = w.non_uniform(ctx, &b.term, active) {
                // SAFETY: the runtime runs warps with their env set.
                unsafe { ctx::not_uniform(ctx, inst, bad) };
                return ctx.status;
            }
        }
        match &b.term {
            Terminator::Jump { target, .. } => send(&mut next, active, *target),
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                ..
            } => {
                let p = w.guard_mask(Some(*guard), active);
                send(&mut next, p, *taken);
                send(&mut next, active & !p, *not_taken);
            }
            Terminator::Ret {
                guard, next: cont, ..
            } if !is_kernel => {
                let leaving = w.guard_mask(*guard, active);
                returned |= leaving;
                if let Some(c) = cont {
                    send(&mut next, active & !leaving, *c);
                }
            }
            Terminator::Ret {
                guard, next: cont, ..
            }
            | Terminator::Exit {
                guard, next: cont, ..
            } => {
                let leaving = w.guard_mask(*guard, active);
                ctx.live &= !leaving;
                if let Some(c) = cont {
                    send(&mut next, active & !leaving, *c);
                }
            }
            Terminator::Call {
                next: cont, resume, ..
            }
            | Terminator::CallIndirect {
                next: cont, resume, ..
            } => match w.call(ctx, &b.term, active) {
                Ok((go, parked)) => {
                    send(&mut next, go, *cont);
                    if let Some(r) = resume {
                        send(&mut next, parked, BlockId(BAR_WAIT | r.0));
                    }
                }
                Err(_) => return returned,
            },
            Terminator::Resume {
                call, next: cont, ..
            } => match w.resume(ctx, *call, active) {
                Ok((go, parked)) => {
                    send(&mut next, go, *cont);
                    send(&mut next, parked, BlockId(BAR_WAIT | block as u32));
                }
                Err(_) => return returned,
            },
            Terminator::Barrier {
                guard,
                barrier,
                count,
                red,
                next: cont,
                inst,
            } => {
                let arriving = w.guard_mask(*guard, active);
                if arriving != 0 {
                    // The operands are uniform by the PTX rules; read them from one lane.
                    let lane = arriving.trailing_zeros() as usize;
                    let id = w.read(ctx, *barrier, Type::U32, lane) as u32;
                    let cnt = count.map(|c| w.read(ctx, c, Type::U32, lane) as u32);
                    if let Some(c) = red {
                        let bits = lanes(arriving)
                            .filter(|&l| w.pred(*c, l))
                            .fold(0u32, |m, l| m | 1 << l);
                        // SAFETY: the runtime runs warps with their env set.
                        unsafe { (*ctx.env).pending_red = Some(bits) };
                    }
                    // SAFETY: the runtime runs warps with their env set.
                    if unsafe { barrier::bar_arrive(ctx, id, cnt, arriving, *inst) }.is_err() {
                        return returned;
                    }
                    for (lane, n) in next.iter_mut().enumerate() {
                        if arriving & (1 << lane) != 0 {
                            *n = BAR_WAIT | cont.0;
                        }
                    }
                }
                send(&mut next, active & !arriving, *cont);
            }
            Terminator::BrxIdx {
                guard,
                index,
                targets,
                next: cont,
                inst,
                ..
            } => {
                let taking = w.guard_mask(*guard, active);
                let mut dest = [0u32; WARP_SIZE];
                for lane in lanes(taking) {
                    let k = w.read(ctx, *index, Type::U32, lane) as u32;
                    match targets.get(k as usize) {
                        Some(t) => dest[lane] = t.0,
                        None => {
                            let len = targets.len() as u32;
                            // SAFETY: the runtime runs warps with their env set.
                            unsafe { ctx::bad_branch_index(ctx, *inst, lane as u32, k, len) };
                            return ctx.status;
                        }
                    }
                }
                for lane in lanes(taking) {
                    next[lane] = dest[lane];
                }
                send(&mut next, active & !taking, *cont);
            }
        }
        // Dispatch: run the lowest-numbered block some lane waits at. Lanes waiting at a
        // barrier sort after every runnable lane; when only they remain, the warp waits
        // for its barriers and then runs them.
        let min = loop {
            let min = next.iter().copied().min().unwrap_or(NONE);
            if min == NONE {
                return returned;
            }
            if min & BAR_WAIT == 0 {
                break min;
            }
            // SAFETY: as above.
            if unsafe { barrier::bar_wait(ctx) }.is_err() {
                return returned;
            }
            for n in next.iter_mut().filter(|n| **n != NONE) {
                *n &= !BAR_WAIT;
            }
        };
        active = 0;
        for (lane, n) in next.iter_mut().enumerate() {
            if *n == min {
                active |= 1 << lane;
                *n = NONE;
            }
        }
        block = min as usize;
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask & (1 << l) != 0)
}

impl Warp<'_> {
    fn reg_bits(&self, r: RegId) -> u32 {
        self.f.reg(r).ty.bits().min(64)
    }

    /// `--check-uniform`: for a `.uni` terminator, the active lanes whose guard value or
    /// `brx.idx` index differs from the lowest active lane's.
    fn non_uniform(
        &self,
        ctx: &WarpCtx,
        t: &Terminator,
        active: u32,
    ) -> Option<(crate::ir::InstId, u32)> {
        let (guard, index, inst) = match t {
            Terminator::Branch {
                guard,
                uni: true,
                inst,
                ..
            } => (Some(*guard), None, *inst),
            Terminator::BrxIdx {
                guard,
                index,
                uni: true,
                inst,
                ..
            } => (*guard, Some(*index), *inst),
            Terminator::Call {
                guard,
                uni: true,
                inst,
                ..
            } => (*guard, None, *inst),
            _ => return None,
        };
        if active == 0 {
            return None;
        }
        let first = active.trailing_zeros() as usize;
        let taking = self.guard_mask(guard, active);
        let value = |lane: usize| {
            let g = taking >> lane & 1;
            let ix = index.map_or(0, |ix| self.read(ctx, ix, Type::U32, lane));
            (g, ix)
        };
        let want = value(first);
        let bad = lanes(active)
            .filter(|&l| value(l) != want)
            .fold(0u32, |m, l| m | 1 << l);
        (bad != 0).then_some((inst, bad))
    }

    fn guard_mask(&self, g: Option<Guard>, active: u32) -> u32 {
        let Some(g) = g else { return active };
        let vals = &self.regs[g.pred.0 as usize];
        let mut m = 0;
        for lane in lanes(active) {
            if (vals[lane] & 1 != 0) != g.negate {
                m |= 1 << lane;
            }
        }
        m
    }

    fn pred(&self, p: PredSrc, lane: usize) -> bool {
        (self.regs[p.reg.0 as usize][lane] & 1 != 0) != p.negate
    }

    /// The value of a variable's state-space address for `lane` (before `+ offset`).
    fn var_addr(&self, ctx: &WarpCtx, v: VarRef) -> u64 {
        match v {
            VarRef::Global(g) => self
                .layout
                .global_addrs
                .get(g.0 as usize)
                .copied()
                .unwrap_or(0),
            VarRef::Shared(o) | VarRef::Local(o) => o as u64,
            VarRef::KernelParam(o) => ctx.param_base + o as u64,
        }
    }

    /// Reads an operand as a value of type `ty` (raw bits, zero-extended from `ty`'s
    /// width; wider registers are truncated).
    fn read(&self, ctx: &WarpCtx, op: Operand, ty: Type, lane: usize) -> u64 {
        let v = match op {
            Operand::Reg(r) => self.regs[r.0 as usize][lane],
            Operand::Imm(v) => v,
            Operand::Special(s) => special(ctx, s, lane),
            Operand::VarAddr(v, off) => self.var_addr(ctx, v).wrapping_add(off as u64),
            Operand::FuncAddr(f) => FUNC_ADDR_BASE + f.0 as u64,
        };
        if ty == Type::Pred {
            v & 1
        } else {
            v & ops::mask(ty.bits().min(64))
        }
    }

    /// Writes `v` (a value of type `ty`) to register `dst` for `lane`: extended per `ty`'s
    /// signedness to the register's width.
    fn write(&mut self, dst: RegId, ty: Type, v: u64, lane: usize) {
        let rb = self.reg_bits(dst);
        let v = if self.f.reg(dst).ty.class() == RegClass::Pred {
            v & 1
        } else {
            ops::extend(v, ty) & ops::mask(rb)
        };
        self.regs[dst.0 as usize][lane] = v;
    }

    fn exec(&mut self, ctx: &mut WarpCtx, inst: &Inst, active: u32) -> Result<(), ctx::Stopped> {
        let mask = self.guard_mask(inst.guard, active);
        if mask == 0 {
            return Ok(());
        }
        match &inst.kind {
            InstKind::Mov { ty, dst, src } => {
                for lane in lanes(mask) {
                    let v = self.read(ctx, *src, *ty, lane);
                    self.write(*dst, *ty, v, lane);
                }
            }
            InstKind::Arith {
                op,
                ty,
                fmode,
                dst,
                srcs,
            } => {
                let wide = ty.widened().unwrap_or(*ty);
                let rty = if matches!(
                    op,
                    ArithOp::Mul(MulMode::Wide) | ArithOp::Mad(MulMode::Wide)
                ) {
                    wide
                } else {
                    *ty
                };
                for lane in lanes(mask) {
                    let mut v = [0u64; 3];
                    for (i, s) in srcs.iter().enumerate().take(3) {
                        let sty = match (op, i) {
                            (ArithOp::Shl | ArithOp::Shr, 1) => Type::U32,
                            (ArithOp::Mad(MulMode::Wide), 2) => wide,
                            _ => *ty,
                        };
                        v[i] = self.read(ctx, *s, sty, lane);
                    }
                    let r = ops::arith(*op, *ty, *fmode, v[0], v[1], v[2]);
                    self.write(*dst, rty, r, lane);
                }
            }
            InstKind::Sfu {
                op,
                ty,
                approx,
                rnd,
                ftz,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *ty, lane);
                    let r = ops::special::sfu(*op, *ty, *approx, *rnd, *ftz, a);
                    self.write(*dst, *ty, r, lane);
                }
            }
            InstKind::BarArrive { barrier, count } => {
                let lane = mask.trailing_zeros() as usize;
                let id = self.read(ctx, *barrier, Type::U32, lane) as u32;
                let cnt = self.read(ctx, *count, Type::U32, lane) as u32;
                // SAFETY: the runtime runs warps with their env set.
                unsafe { barrier::bar_arrive_nowait(ctx, id, cnt, mask, inst.id)? };
            }
            InstKind::BarRedResult { op, barrier, dst } => {
                let lane = mask.trailing_zeros() as usize;
                let id = self.read(ctx, *barrier, Type::U32, lane) as u32;
                // SAFETY: the runtime runs warps with their env set.
                let v = unsafe { barrier::bar_red_result(ctx, id, *op) };
                let ty = if *op == crate::ir::BarRedOp::Popc {
                    Type::U32
                } else {
                    Type::Pred
                };
                for lane in lanes(mask) {
                    self.write(*dst, ty, v as u64, lane);
                }
            }
            InstKind::Atom {
                op,
                ty,
                space,
                dst,
                addr,
                srcs,
            } => {
                let addrs = self.lane_addrs(ctx, *space, addr, mask);
                let mut ops = [[0u64; WARP_SIZE]; 2];
                for (k, s) in srcs.iter().enumerate().take(2) {
                    for lane in lanes(mask) {
                        ops[k][lane] = self.read(ctx, *s, *ty, lane);
                    }
                }
                let req = crate::exec::atomic::AtomReq {
                    op: *op,
                    ty: *ty,
                    space: *space,
                    mask,
                    inst: inst.id,
                };
                let mut old = [0u64; WARP_SIZE];
                // SAFETY: ctx.env is set by the runtime.
                unsafe {
                    crate::exec::atomic::atomic(ctx, &req, &addrs, &ops[0], &ops[1], &mut old)?
                };
                if let Some(d) = dst {
                    for lane in lanes(mask) {
                        self.write(*d, *ty, old[lane], lane);
                    }
                }
            }
            InstKind::Warp {
                op,
                ty,
                dst,
                pred,
                srcs,
                vote_src,
            } => {
                let (stys, dty) = ops::warp::signature(*op, *ty);
                let mut vals = vec![[0u64; WARP_SIZE]; srcs.len()];
                for (k, (s, t)) in srcs.iter().zip(&stys).enumerate() {
                    for (lane, v) in vals[k].iter_mut().enumerate() {
                        *v = self.read(ctx, *s, *t, lane);
                    }
                }
                let pbits = vote_src.map_or(0, |p| {
                    (0..WARP_SIZE)
                        .filter(|&l| self.pred(p, l))
                        .fold(0u32, |m, l| m | 1 << l)
                });
                let input = ops::warp::WarpIn {
                    mask,
                    srcs: &vals,
                    pred: pbits,
                };
                let out = ops::warp::eval(*op, *ty, &input);
                for lane in lanes(mask) {
                    if let (Some(d), Some(t)) = (dst, dty) {
                        self.write(*d, t, out.vals[lane], lane);
                    }
                    if let Some(p) = pred {
                        self.write(*p, Type::Pred, (out.preds >> lane & 1) as u64, lane);
                    }
                }
            }
            InstKind::Half {
                op,
                ty,
                mode,
                dst,
                srcs,
            } => {
                for lane in lanes(mask) {
                    let mut v = [0u64; 3];
                    for (k, s) in srcs.iter().enumerate().take(3) {
                        v[k] = self.read(ctx, *s, *ty, lane);
                    }
                    let r = ops::f16::eval(*op, *ty, *mode, v[0], v[1], v[2]);
                    self.write(*dst, *ty, r, lane);
                }
            }
            InstKind::CvtX { op, dst, srcs } => {
                let (stys, dty) = ops::cvtx::signature(*op);
                for lane in lanes(mask) {
                    let mut v = [0u64; 3];
                    for (k, (s, t)) in srcs.iter().zip(stys).enumerate().take(3) {
                        v[k] = self.read(ctx, *s, *t, lane);
                    }
                    let r = ops::cvtx::eval(*op, &v);
                    self.write(*dst, dty, r, lane);
                }
            }
            InstKind::Bits { op, ty, dst, srcs } => {
                let (stys, dty) = ops::bits::signature(*op, *ty);
                for lane in lanes(mask) {
                    let mut v = [0u64; 4];
                    for (k, (s, t)) in srcs.iter().zip(&stys).enumerate().take(4) {
                        v[k] = self.read(ctx, *s, *t, lane);
                    }
                    let r = ops::bits::eval(*op, *ty, &v);
                    self.write(*dst, dty, r, lane);
                }
            }
            InstKind::Setp {
                cmp,
                ty,
                ftz,
                dst,
                dst_neg,
                a,
                b,
                combine,
            } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    let r = ops::setp(*cmp, *ty, *ftz, x, y);
                    let (p, q) = match combine {
                        None => (r, !r),
                        Some((op, c)) => {
                            let c = self.pred(*c, lane);
                            let f = |t: bool| match op {
                                crate::ir::BoolOp::And => t && c,
                                crate::ir::BoolOp::Or => t || c,
                                crate::ir::BoolOp::Xor => t != c,
                            };
                            (f(r), f(!r))
                        }
                    };
                    if let Some(d) = dst {
                        self.write(*d, Type::Pred, p as u64, lane);
                    }
                    if let Some(d) = dst_neg {
                        self.write(*d, Type::Pred, q as u64, lane);
                    }
                }
            }
            InstKind::Set {
                cmp,
                dty,
                ty,
                ftz,
                dst,
                a,
                b,
                combine,
            } => {
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, *ty, lane);
                    let y = self.read(ctx, *b, *ty, lane);
                    let r = ops::setp(*cmp, *ty, *ftz, x, y);
                    let t = match combine {
                        None => r,
                        Some((crate::ir::BoolOp::And, c)) => r && self.pred(*c, lane),
                        Some((crate::ir::BoolOp::Or, c)) => r || self.pred(*c, lane),
                        Some((crate::ir::BoolOp::Xor, c)) => r != self.pred(*c, lane),
                    };
                    self.write(*dst, *dty, ops::set_value(*dty, t), lane);
                }
            }
            InstKind::SetpPacked {
                cmp,
                ty,
                ftz,
                dst_lo,
                dst_hi,
                a,
                b,
                combine,
            } => {
                let ety = if *ty == Type::BF16x2 {
                    Type::BF16
                } else {
                    Type::F16
                };
                for lane in lanes(mask) {
                    let x = self.read(ctx, *a, Type::B32, lane);
                    let y = self.read(ctx, *b, Type::B32, lane);
                    let comb = |t: bool| match combine {
                        None => t,
                        Some((crate::ir::BoolOp::And, c)) => t && self.pred(*c, lane),
                        Some((crate::ir::BoolOp::Or, c)) => t || self.pred(*c, lane),
                        Some((crate::ir::BoolOp::Xor, c)) => t != self.pred(*c, lane),
                    };
                    let lo = comb(ops::setp(*cmp, ety, *ftz, x & 0xffff, y & 0xffff));
                    let hi = comb(ops::setp(*cmp, ety, *ftz, x >> 16, y >> 16));
                    if let Some(d) = dst_lo {
                        self.write(*d, Type::Pred, lo as u64, lane);
                    }
                    if let Some(d) = dst_hi {
                        self.write(*d, Type::Pred, hi as u64, lane);
                    }
                }
            }
            InstKind::Nanosleep { t } => {
                ctx::nanosleep(lanes(mask).map(|l| self.read(ctx, *t, Type::U32, l) as u32));
            }
            InstKind::Isspacep {
                space,
                dst,
                src,
                offset,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, Type::U64, lane);
                    let a = a.wrapping_add(*offset as u64);
                    // SAFETY: the runtime runs warps with their env set.
                    let v = unsafe { crate::exec::sreg::in_window(ctx, *space, lane, a) };
                    self.write(*dst, Type::Pred, v as u64, lane);
                }
            }
            InstKind::Fence => std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst),
            InstKind::OrderPoint => {
                std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
            }
            InstKind::Selp {
                ty,
                dst,
                a,
                b,
                cond,
            } => {
                for lane in lanes(mask) {
                    let v = if self.pred(*cond, lane) {
                        self.read(ctx, *a, *ty, lane)
                    } else {
                        self.read(ctx, *b, *ty, lane)
                    };
                    self.write(*dst, *ty, v, lane);
                }
            }
            InstKind::Ld {
                space,
                ty,
                dsts,
                addr,
            } => {
                let mut data = vec![0u64; dsts.len() * WARP_SIZE];
                self.memory(
                    ctx,
                    inst,
                    *space,
                    *ty,
                    dsts.len(),
                    addr,
                    mask,
                    false,
                    &mut data,
                )?;
                for lane in lanes(mask) {
                    for (e, d) in dsts.iter().enumerate() {
                        if let Some(d) = d {
                            self.write(*d, *ty, data[e * WARP_SIZE + lane], lane);
                        }
                    }
                }
            }
            InstKind::St {
                space,
                ty,
                srcs,
                addr,
            } => {
                let mut data = vec![0u64; srcs.len() * WARP_SIZE];
                for lane in lanes(mask) {
                    for (e, s) in srcs.iter().enumerate() {
                        data[e * WARP_SIZE + lane] = self.read(ctx, *s, *ty, lane);
                    }
                }
                self.memory(
                    ctx,
                    inst,
                    *space,
                    *ty,
                    srcs.len(),
                    addr,
                    mask,
                    true,
                    &mut data,
                )?;
            }
            InstKind::Cvta {
                to_generic,
                space,
                ty,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *ty, lane);
                    let base = match space {
                        Space::Shared => ctx.shared_base,
                        Space::Local => ctx.local_base[lane],
                        _ => 0,
                    };
                    let v = if *to_generic {
                        a.wrapping_add(base)
                    } else {
                        a.wrapping_sub(base)
                    };
                    self.write(*dst, *ty, v & ops::mask(ty.bits()), lane);
                }
            }
            InstKind::Cvt {
                dst_ty,
                src_ty,
                rnd,
                ftz,
                sat,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *src_ty, lane);
                    let v = ops::cvt(*dst_ty, *src_ty, *rnd, *ftz, *sat, a);
                    self.write(*dst, *dst_ty, v, lane);
                }
            }
            InstKind::Carry { .. }
            | InstKind::MinMax { .. }
            | InstKind::Copysign { .. }
            | InstKind::Testp { .. } => self.exec_intfp(ctx, &inst.kind, mask),
            InstKind::Matrix { .. } => self.exec_matrix(ctx, inst, mask)?,
            InstKind::Builtin { op, args, dst } => {
                let mut vals = vec![[0u64; WARP_SIZE]; args.len()];
                for (v, (a, t)) in vals.iter_mut().zip(args.iter().zip(op.params())) {
                    for lane in lanes(mask) {
                        v[lane] = self.read(ctx, *a, *t, lane);
                    }
                }
                // SAFETY: the runtime runs warps with their env set.
                let out = unsafe { crate::exec::printf::exec(ctx, *op, mask, inst.id, &vals)? };
                if let Some(d) = dst {
                    for lane in lanes(mask) {
                        self.write(*d, Type::U32, out[lane] as u64, lane);
                    }
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn memory(
        &self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        space: Space,
        ty: Type,
        nvec: usize,
        addr: &Address,
        mask: u32,
        write: bool,
        data: &mut [u64],
    ) -> Result<(), ctx::Stopped> {
        let addrs = self.lane_addrs(ctx, space, addr, mask);
        let req = AccessReq {
            space,
            elem_bytes: ty.bytes(),
            nvec: nvec as u32,
            slot_bytes: 8,
            write,
            mask,
            inst: inst.id,
        };
        // SAFETY: `data` holds nvec * 32 u64 slots; ctx.env is set by the runtime.
        unsafe { ctx::access(ctx, &req, &addrs, data.as_mut_ptr() as *mut u8) }
    }

    /// The state-space address of `[addr]` for every lane in `mask`.
    fn lane_addrs(
        &self,
        ctx: &WarpCtx,
        space: Space,
        addr: &Address,
        mask: u32,
    ) -> [u64; WARP_SIZE] {
        let mut addrs = [0u64; WARP_SIZE];
        for lane in lanes(mask) {
            let base = match addr.base {
                AddrBase::Reg(r) => self.regs[r.0 as usize][lane],
                // A generic access through a shared/local variable uses its generic
                // address (window base + offset), as `cvta` would give.
                AddrBase::Var(v @ VarRef::Shared(_)) if space == Space::Generic => {
                    ctx.shared_base.wrapping_add(self.var_addr(ctx, v))
                }
                AddrBase::Var(v @ VarRef::Local(_)) if space == Space::Generic => {
                    ctx.local_base[lane].wrapping_add(self.var_addr(ctx, v))
                }
                AddrBase::Var(v) => self.var_addr(ctx, v),
                AddrBase::Abs => 0,
            };
            let a = base.wrapping_add(addr.offset as u64);
            // A 32-bit address register: the address wraps in 32 bits.
            addrs[lane] = match addr.base {
                AddrBase::Reg(r) if self.reg_bits(r) <= 32 => a & 0xffff_ffff,
                _ => a,
            };
        }
        addrs
    }
}

fn special(ctx: &WarpCtx, s: SpecialReg, lane: usize) -> u64 {
    crate::exec::sreg::read(ctx, s, lane)
}
