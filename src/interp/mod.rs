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
    BlockId, Family, FuncId, Function, Guard, IdxVec, Inst, Operand, PredSrc, RegClass, RegId,
    SpecialReg, Terminator, Type, VarRef,
};
mod asyncop;
mod atomic;
mod call;
mod carry;
mod compare;
mod convert;
mod data;
mod float;
mod half;
mod int;
mod logic;
mod matrix;
mod mem;
mod misc;
mod shapes;
mod sync;
mod texture;
mod video;
mod warp;

use crate::exec::barrier::{self, BAR_WAIT};
use crate::exec::call::FUNC_ADDR_BASE;
use crate::exec::ctx::{self, WarpCtx, STATUS_OK, WARP_SIZE};
use crate::exec::ModuleLayout;
use crate::ops;

/// Not waiting at any block.
const NONE: u32 = u32::MAX;
struct Warp<'a> {
    m: &'a crate::ir::Module,
    layout: &'a ModuleLayout,
    f: &'a Function,
    /// `regs[r][lane]`: each register's container, zero-extended beyond its width.
    regs: IdxVec<RegId, [u64; WARP_SIZE]>,
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
    let Some(f) = m.functions.get(func) else {
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
        regs: IdxVec::from_elem([0u64; WARP_SIZE], f.regs.len()),
    };
    let mut next = [NONE; WARP_SIZE];
    let mut active = mask;
    let mut block = BlockId(0);
    let mut checker = shapes::Checker::new(ctx, f);
    loop {
        let b = &f.blocks[block];
        if ctx::stop_requested(ctx) {
            let at = b.insts.first().map(|i| i.id).or_else(|| b.term.inst());
            // SAFETY: the runtime runs warps with their env set.
            unsafe { ctx::timed_out(ctx, at.unwrap_or(crate::ir::InstId(u32::MAX))) };
            return returned;
        }
        if let Some(c) = &layout.coverage {
            c.hit(func, block, active != ctx.live);
        }
        if let Some(chk) = checker.as_mut() {
            if w.shapes_enter(ctx, chk, block, active).is_err() {
                return returned;
            }
        }
        for (i, inst) in b.insts.iter().enumerate() {
            if w.exec(ctx, inst, active).is_err() || ctx.status != STATUS_OK {
                return returned;
            }
            if let Some(chk) = checker.as_mut() {
                if w.shapes_step(ctx, chk, block, i, active).is_err() {
                    return returned;
                }
            }
        }
        let step = Step {
            block,
            active,
            is_kernel,
        };
        if w.terminate(ctx, &b.term, step, &mut next, &mut returned)
            .is_err()
        {
            return returned;
        }
        let Some((min, lanes)) = dispatch(ctx, &mut next) else {
            return returned;
        };
        active = lanes;
        block = BlockId(min);
    }
}

/// Where the warp is when a block's terminator runs.
#[derive(Clone, Copy)]
struct Step {
    block: BlockId,
    active: u32,
    is_kernel: bool,
}

/// Records `target` as the next block of the lanes in `mask`.
fn send(next: &mut [u32; WARP_SIZE], mask: u32, target: BlockId) {
    for (lane, n) in next.iter_mut().enumerate() {
        if mask & (1 << lane) != 0 {
            *n = target.0;
        }
    }
}

/// The lowest-numbered block some lane waits at and the lanes waiting there (taken out of
/// `next`), or `None` when every lane has left. Lanes waiting at a barrier sort after every
/// runnable lane; when only they remain, the warp waits for its barriers and then runs
/// them.
fn dispatch(ctx: &mut WarpCtx, next: &mut [u32; WARP_SIZE]) -> Option<(u32, u32)> {
    let min = loop {
        let min = next.iter().copied().min().unwrap_or(NONE);
        if min == NONE {
            return None;
        }
        if min & BAR_WAIT == 0 {
            break min;
        }
        // SAFETY: the runtime runs warps with their env set.
        if unsafe { barrier::bar_wait(ctx) }.is_err() {
            return None;
        }
        for n in next.iter_mut().filter(|n| **n != NONE) {
            *n &= !BAR_WAIT;
        }
    };
    let mut active = 0;
    for (lane, n) in next.iter_mut().enumerate() {
        if *n == min {
            active |= 1 << lane;
            *n = NONE;
        }
    }
    Some((min, active))
}

impl Warp<'_> {
    /// Runs terminator `term` of the block in `step`: sends each active lane to its next
    /// block in `next`, adds the lanes a `ret` leaves by to `returned`, and does the
    /// terminator's work (calls, barriers, exits). `Err` when the warp stopped.
    fn terminate(
        &mut self,
        ctx: &mut WarpCtx,
        term: &Terminator,
        step: Step,
        next: &mut [u32; WARP_SIZE],
        returned: &mut u32,
    ) -> Result<(), ctx::Stopped> {
        if ctx.check_uniform != 0 {
            if let Some((inst, bad)) = self.non_uniform(ctx, term, step.active) {
                // SAFETY: the runtime runs warps with their env set.
                unsafe { ctx::not_uniform(ctx, inst, bad) };
                return Err(ctx::Stopped);
            }
        }
        match term {
            Terminator::Jump { target, .. } => send(next, step.active, *target),
            Terminator::Branch {
                guard,
                taken,
                not_taken,
                ..
            } => {
                let p = self.guard_mask(Some(*guard), step.active);
                send(next, p, *taken);
                send(next, step.active & !p, *not_taken);
            }
            Terminator::Ret {
                guard, next: cont, ..
            } if !step.is_kernel => {
                let leaving = self.guard_mask(*guard, step.active);
                *returned |= leaving;
                if let Some(c) = cont {
                    send(next, step.active & !leaving, *c);
                }
            }
            Terminator::Ret {
                guard, next: cont, ..
            }
            | Terminator::Exit {
                guard, next: cont, ..
            } => {
                let leaving = self.guard_mask(*guard, step.active);
                ctx.live &= !leaving;
                if let Some(c) = cont {
                    send(next, step.active & !leaving, *c);
                }
            }
            Terminator::Call {
                next: cont, resume, ..
            }
            | Terminator::CallIndirect {
                next: cont, resume, ..
            } => match self.call(ctx, term, step.active) {
                Ok((go, parked)) => {
                    send(next, go, *cont);
                    if let Some(r) = resume {
                        send(next, parked, BlockId(BAR_WAIT | r.0));
                    }
                }
                Err(e) => return Err(e),
            },
            Terminator::Resume {
                call, next: cont, ..
            } => match self.resume(ctx, *call, step.active) {
                Ok((go, parked)) => {
                    send(next, go, *cont);
                    send(next, parked, BlockId(BAR_WAIT | step.block.0));
                }
                Err(e) => return Err(e),
            },
            Terminator::Barrier {
                guard,
                barrier,
                count,
                red,
                next: cont,
                inst,
            } => {
                let arriving = self.guard_mask(*guard, step.active);
                if arriving != 0 {
                    // The operands are uniform by the PTX rules; read them from one lane.
                    let lane = arriving.trailing_zeros() as usize;
                    let id = self.read(ctx, *barrier, Type::U32, lane) as u32;
                    let cnt = count.map(|c| self.read(ctx, c, Type::U32, lane) as u32);
                    if let Some(c) = red {
                        let bits = lanes(arriving)
                            .filter(|&l| self.pred(*c, l))
                            .fold(0u32, |m, l| m | 1 << l);
                        // SAFETY: the runtime runs warps with their env set.
                        unsafe { (*ctx.env).pending_red = Some(bits) };
                    }
                    // SAFETY: the runtime runs warps with their env set.
                    if unsafe { barrier::bar_arrive(ctx, id, cnt, arriving, *inst) }.is_err() {
                        return Err(ctx::Stopped);
                    }
                    for (lane, n) in next.iter_mut().enumerate() {
                        if arriving & (1 << lane) != 0 {
                            *n = BAR_WAIT | cont.0;
                        }
                    }
                }
                send(next, step.active & !arriving, *cont);
            }
            Terminator::BrxIdx {
                guard,
                index,
                targets,
                next: cont,
                inst,
                ..
            } => {
                let taking = self.guard_mask(*guard, step.active);
                let mut dest = [0u32; WARP_SIZE];
                for lane in lanes(taking) {
                    let k = self.read(ctx, *index, Type::U32, lane) as u32;
                    match targets.get(k as usize) {
                        Some(t) => dest[lane] = t.0,
                        None => {
                            let len = targets.len() as u32;
                            // SAFETY: the runtime runs warps with their env set.
                            unsafe { ctx::bad_branch_index(ctx, *inst, lane as u32, k, len) };
                            return Err(ctx::Stopped);
                        }
                    }
                }
                for lane in lanes(taking) {
                    next[lane] = dest[lane];
                }
                send(next, step.active & !taking, *cont);
            }
        }
        Ok(())
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
        let (guard, index, inst) = t.uni_operands()?;
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
        let vals = &self.regs[g.pred];
        let mut m = 0;
        for lane in lanes(active) {
            if (vals[lane] & 1 != 0) != g.negate {
                m |= 1 << lane;
            }
        }
        m
    }

    fn pred(&self, p: PredSrc, lane: usize) -> bool {
        (self.regs[p.reg][lane] & 1 != 0) != p.negate
    }

    /// The value of a variable's state-space address for `lane` (before `+ offset`).
    fn var_addr(&self, ctx: &WarpCtx, v: VarRef) -> u64 {
        match v {
            VarRef::Global(g) => self.layout.global_addrs.get(g).copied().unwrap_or(0),
            VarRef::Shared(o) | VarRef::Local(o) => o as u64,
            VarRef::KernelParam(o) => ctx.param_base + o as u64,
        }
    }

    /// Reads an operand as a value of type `ty` (raw bits, zero-extended from `ty`'s
    /// width; wider registers are truncated).
    fn read(&self, ctx: &WarpCtx, op: Operand, ty: Type, lane: usize) -> u64 {
        let v = match op {
            Operand::Reg(r) => self.regs[r][lane],
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
        self.regs[dst][lane] = v;
    }

    /// Runs one instruction for the active lanes whose guard holds, in the file of its
    /// family ([`InstKind::family`]).
    fn exec(&mut self, ctx: &mut WarpCtx, inst: &Inst, active: u32) -> Result<(), ctx::Stopped> {
        let mask = self.guard_mask(inst.guard, active);
        if mask == 0 {
            return Ok(());
        }
        match inst.kind.family() {
            Family::Int => self.exec_int(ctx, inst, mask),
            Family::Carry => self.exec_carry(ctx, inst, mask),
            Family::Float => self.exec_float(ctx, inst, mask),
            Family::Half => self.exec_half(ctx, inst, mask),
            Family::Compare => self.exec_compare(ctx, inst, mask),
            Family::Logic => self.exec_logic(ctx, inst, mask),
            Family::Data => self.exec_data(ctx, inst, mask),
            Family::Mem => self.exec_mem(ctx, inst, mask),
            Family::Convert => self.exec_convert(ctx, inst, mask),
            Family::Sync => self.exec_sync(ctx, inst, mask),
            Family::Atomic => self.exec_atomic(ctx, inst, mask),
            Family::Warp => self.exec_warp(ctx, inst, mask),
            Family::Matrix => self.exec_matrix(ctx, inst, mask),
            Family::Misc => self.exec_misc(ctx, inst, mask),
            Family::Video => self.exec_video(ctx, inst, mask),
        }
    }
}

fn special(ctx: &WarpCtx, s: SpecialReg, lane: usize) -> u64 {
    crate::exec::sreg::read(ctx, s, lane)
}
