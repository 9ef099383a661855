//! `call` in the interpreter: the called lanes run the callee in a fresh register file
//! (recursively), in a new `.local` frame (see `ir::Terminator::Call`).

use super::{lanes, run_func, Warp};
use crate::ir::{CallArg, CallDst, CallRet, CallSrc, FuncId, InstId, Terminator};
use crate::runtime::call::{call_copy, call_pop, call_push, callee_at, decode_target};
use crate::runtime::ctx::{self, WarpCtx, STATUS_OK};

impl Warp<'_> {
    /// Runs a `Terminator::Call` or `CallIndirect` for the `active` lanes (an indirect
    /// call: one call per group of lanes with the same address, lowest lane first);
    /// returns the lanes that continue at its `next` block (those whose guard was false
    /// and those that returned).
    pub(super) fn call(
        &mut self,
        ctx: &mut WarpCtx,
        t: &Terminator,
        active: u32,
    ) -> Result<u32, ctx::Stopped> {
        match t {
            Terminator::Call {
                guard,
                func,
                args,
                rets,
                inst,
                ..
            } => {
                let called = self.guard_mask(*guard, active);
                let rest = active & !called;
                if called == 0 {
                    return Ok(rest);
                }
                Ok(rest | self.call_one(ctx, *func, args, rets, called, *inst)?)
            }
            Terminator::CallIndirect {
                guard,
                addr,
                targets,
                args,
                rets,
                inst,
                ..
            } => {
                let called = self.guard_mask(*guard, active);
                let mut returned = 0;
                let mut left = called;
                let tids: Vec<u32> = targets.iter().map(|f| f.0).collect();
                while left != 0 {
                    let lane = left.trailing_zeros() as usize;
                    let a = self.regs[addr.0 as usize][lane];
                    let group = lanes(left)
                        .filter(|&l| self.regs[addr.0 as usize][l] == a)
                        .fold(0u32, |g, l| g | 1 << l);
                    let i = match decode_target(self.m.functions.len(), &tids, a) {
                        Ok(i) => i,
                        Err(msg) => {
                            // SAFETY: the runtime runs warps with their env set.
                            unsafe { ctx::stop_with_error_at(ctx, msg, *inst, lane as u32) };
                            return Err(ctx::Stopped);
                        }
                    };
                    returned |= self.call_one(ctx, targets[i], args, rets, group, *inst)?;
                    left &= !group;
                }
                Ok(active & !called | returned)
            }
            _ => Ok(active),
        }
    }

    /// Calls `func` with lanes `called`; returns the lanes that returned.
    fn call_one(
        &mut self,
        ctx: &mut WarpCtx,
        func: FuncId,
        args: &[CallArg],
        rets: &[CallRet],
        called: u32,
        inst: InstId,
    ) -> Result<u32, ctx::Stopped> {
        let Some(callee) = self.m.functions.get(func.0 as usize) else {
            return Ok(0);
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
        let returned = run_func(self.m, self.layout, func, ctx, called);
        if ctx.status != STATUS_OK {
            return Err(ctx::Stopped);
        }
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
        call_pop(ctx, frame);
        Ok(returned)
    }
}
