//! `call` in the interpreter: the called lanes run the callee in a fresh register file
//! (recursively), in a new `.local` frame (see `ir::Terminator::Call`).

use super::{lanes, run_func, Warp};
use crate::ir::{CallDst, CallSrc, Terminator};
use crate::runtime::call::{call_copy, call_pop, call_push};
use crate::runtime::ctx::{self, WarpCtx, STATUS_OK};

impl Warp<'_> {
    /// Runs a `Terminator::Call` for the `active` lanes; returns the lanes that continue
    /// at its `next` block (those whose guard was false and those that returned).
    pub(super) fn call(
        &mut self,
        ctx: &mut WarpCtx,
        t: &Terminator,
        active: u32,
    ) -> Result<u32, ctx::Stopped> {
        let Terminator::Call {
            guard,
            func,
            args,
            rets,
            ..
        } = t
        else {
            return Ok(active);
        };
        let called = self.guard_mask(*guard, active);
        let rest = active & !called;
        if called == 0 {
            return Ok(rest);
        }
        let Some(callee) = self.m.functions.get(func.0 as usize) else {
            return Ok(rest);
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
                &callee.name,
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
        let returned = run_func(self.m, self.layout, *func, ctx, called);
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
        Ok(rest | returned)
    }
}
