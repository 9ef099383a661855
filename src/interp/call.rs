//! `call` in the interpreter: the called lanes run the callee in a fresh register file
//! (recursively), in a new `.local` frame (see `ir::Terminator::Call`); calls with a
//! resume block are split calls (`exec::split`), continued by `Terminator::Resume`.

use super::{lanes, run_func, Warp};
use crate::exec::call::{call_copy, call_pop, call_push, callee_at, decode_target};
use crate::exec::ctx::{self, WarpCtx, STATUS_OK};
use crate::exec::split::{call_resume, call_split, Outcome};
use crate::ir::{BlockId, CallArg, CallDst, CallRet, CallSrc, FuncId, InstId, Terminator};

impl Warp<'_> {
    /// Runs a `Terminator::Call` or `CallIndirect` for the `active` lanes (an indirect
    /// call: one call per group of lanes with the same address, lowest lane first);
    /// returns the lanes that continue at its `next` block (those whose guard was false
    /// and those that returned) and the lanes suspended in a split call (they continue
    /// at its resume block, see `exec::split`).
    pub(super) fn call(
        &mut self,
        ctx: &mut WarpCtx,
        t: &Terminator,
        active: u32,
    ) -> Result<Outcome, ctx::Stopped> {
        match t {
            Terminator::Call {
                guard,
                func,
                args,
                rets,
                inst,
                resume,
                ..
            } => {
                let called = self.guard_mask(*guard, active);
                let rest = active & !called;
                if called == 0 {
                    return Ok((rest, 0));
                }
                let split = resume.is_some();
                let (r, s) = self.call_one(ctx, *func, args, rets, called, *inst, split)?;
                Ok((rest | r, s))
            }
            Terminator::CallIndirect {
                guard,
                addr,
                targets,
                args,
                rets,
                inst,
                resume,
                ..
            } => {
                let called = self.guard_mask(*guard, active);
                let mut returned = 0;
                let mut suspended = 0;
                let mut left = called;
                let tids: Vec<u32> = targets.iter().map(|f| f.0).collect();
                while left != 0 {
                    let lane = left.trailing_zeros() as usize;
                    let a = self.regs[*addr][lane];
                    let group = lanes(left)
                        .filter(|&l| self.regs[*addr][l] == a)
                        .fold(0u32, |g, l| g | 1 << l);
                    let i = match decode_target(self.m.functions.len(), &tids, a) {
                        Ok(i) => i,
                        Err(msg) => {
                            // SAFETY: the runtime runs warps with their env set.
                            unsafe { ctx::stop_with_error_at(ctx, msg, *inst, lane as u32) };
                            return Err(ctx::Stopped);
                        }
                    };
                    let split = resume.is_some();
                    let (r, s) = self.call_one(ctx, targets[i], args, rets, group, *inst, split)?;
                    returned |= r;
                    suspended |= s;
                    left &= !group;
                }
                Ok((active & !called | returned, suspended))
            }
            _ => Ok((active, 0)),
        }
    }

    /// `Terminator::Resume` of the call ending block `call`, for the lanes waiting there
    /// (`active`): continues the suspended callees; returns the lanes that returned
    /// (with their return values loaded) and those suspended again.
    pub(super) fn resume(
        &mut self,
        ctx: &mut WarpCtx,
        call: BlockId,
        active: u32,
    ) -> Result<Outcome, ctx::Stopped> {
        let rets = match self.f.blocks.get(call).map(|b| &b.term) {
            Some(Terminator::Call { rets, .. }) | Some(Terminator::CallIndirect { rets, .. }) => {
                rets
            }
            _ => return Ok((0, 0)),
        };
        let frame = self.f.call_frame();
        // SAFETY: the runtime runs warps with their env set; the resume block belongs to
        // this activation's call.
        let (returned, suspended) = unsafe { call_resume(ctx, frame, active) };
        if ctx.status != STATUS_OK {
            return Err(ctx::Stopped);
        }
        self.load_rets(ctx, rets, returned, frame);
        call_pop(ctx, frame);
        Ok((returned, suspended))
    }

    /// Calls `func` with lanes `called` (a split call if `split`, see `exec::split`);
    /// returns the lanes that returned and the lanes suspended.
    #[allow(clippy::too_many_arguments)]
    fn call_one(
        &mut self,
        ctx: &mut WarpCtx,
        func: FuncId,
        args: &[CallArg],
        rets: &[CallRet],
        called: u32,
        inst: InstId,
        split: bool,
    ) -> Result<Outcome, ctx::Stopped> {
        let Some(callee) = self.m.functions.get(func) else {
            return Ok((0, 0));
        };
        let frame = self.f.call_frame();
        // SAFETY: the runtime runs warps with their env and local windows set.
        unsafe {
            call_push(
                ctx,
                called,
                frame,
                callee.local_size,
                callee.rets_start(),
                &callee_at(self.m, func, inst),
                inst,
            )?
        };
        for a in args {
            match a.src {
                // SAFETY: the frame is pushed; check validated the offsets.
                CallSrc::Local(o) => unsafe {
                    call_copy(ctx, called, frame, o, a.dst, a.size, true)
                },
                CallSrc::Value(op, ty) => {
                    for lane in lanes(called) {
                        let v = self.read(ctx, op, ty, lane).to_le_bytes();
                        let p = (ctx.local_base[lane] + a.dst as u64) as *mut u8;
                        let n = (ty.bytes() as usize).min(8);
                        // SAFETY: the slot lies inside the pushed frame (validated).
                        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, n) };
                    }
                }
            }
        }
        let (returned, suspended) = if split {
            let (m, layout) = (self.m, self.layout);
            // SAFETY: the module and layout outlive the launch (and so the child).
            unsafe {
                call_split(ctx, called, move |c: *mut WarpCtx| {
                    run_func(m, layout, func, &mut *c, called)
                })
            }
        } else {
            (run_func(self.m, self.layout, func, ctx, called), 0)
        };
        if ctx.status != STATUS_OK {
            return Err(ctx::Stopped);
        }
        self.load_rets(ctx, rets, returned, frame);
        call_pop(ctx, frame);
        Ok((returned, suspended))
    }

    /// Loads the return values `rets` of the lanes `returned` from the callee's frame
    /// (pushed with `frame`).
    fn load_rets(&mut self, ctx: &mut WarpCtx, rets: &[CallRet], returned: u32, frame: u32) {
        for r in rets {
            match r.dst {
                // SAFETY: as above.
                CallDst::Local(o) => unsafe {
                    call_copy(ctx, returned, frame, o, r.src, r.size, false)
                },
                CallDst::Reg(d, ty) => {
                    for lane in lanes(returned) {
                        let mut v = [0u8; 8];
                        let p = (ctx.local_base[lane] + r.src as u64) as *const u8;
                        let n = (ty.bytes() as usize).min(8);
                        // SAFETY: as above.
                        unsafe { std::ptr::copy_nonoverlapping(p, v.as_mut_ptr(), n) };
                        self.write(d, ty, u64::from_le_bytes(v), lane);
                    }
                }
            }
        }
    }
}
