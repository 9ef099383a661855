//! The thread's dynamic stack (`alloca`, `stacksave`, `stackrestore`, PTX 7.3): each
//! thread's `.local` area ends with [`ALLOCA_BYTES`] bytes that only these instructions
//! use; it grows down from the area's end. Call frames stay below it (the window moves
//! up by a frame per call but its end does not move, so the stack keeps its place;
//! `crate::exec::call::call_push` keeps frames out of it). A `.func` that allocates
//! restores its caller's stack pointer at `ret` (`check` puts a `stacksave` at its
//! entry and a `stackrestore` before each `ret`, as the ISA's "deallocated when the
//! function exits" asks). Stack pointers are `.local` addresses: offsets in the current
//! function's window, like every `.local` address in ptxjit.

use crate::exec::ctx::{stop_with_error_at, Stopped, WarpCtx};
use crate::ir::{Builtin, InstId};

/// Bytes of each thread's `.local` area kept for `alloca` when a kernel's module uses
/// it: the GPU's default stack size (`CU_LIMIT_STACK_SIZE`, 1 KiB per thread).
pub const ALLOCA_BYTES: u64 = 1024;

/// Runs stack built-in `op` for `lane` with operand `a` (`alloca`: the size;
/// `stackrestore`: the stack pointer) and returns the result (`alloca`, `stacksave`: a
/// `.local` address). Running out of stack, or restoring a pointer outside the stack, stops
/// the launch (on a GPU both are undefined behaviour).
///
/// # Safety
/// `ctx.env` must point to this warp's live env.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: Builtin,
    lane: usize,
    a: u64,
    inst: InstId,
) -> Result<u64, Stopped> {
    // SAFETY: the caller guarantees env.
    let env = unsafe { &mut *ctx.env };
    let reserve = env.alloca_bytes;
    // The stack as offsets from the window base: [floor, top), `sp` its lowest used byte.
    let top = ctx.local_size;
    let floor = top.saturating_sub(reserve);
    let sp = top - env.alloca_used[lane].min(reserve);
    let fail = |ctx: &mut WarpCtx, msg: String| {
        // SAFETY: as above.
        unsafe { stop_with_error_at(ctx, msg, inst, lane as u32) };
        Err(Stopped)
    };
    match op {
        Builtin::StackSave { .. } => Ok(sp),
        Builtin::StackRestore { wide } => {
            let a = if wide { a } else { a as u32 as u64 };
            if a < floor || a > top {
                return fail(
                    ctx,
                    format!("stackrestore to {a:#x}, which is not a stack pointer of this thread (stacksave gives one in [{floor:#x}, {top:#x}])"),
                );
            }
            env.alloca_used[lane] = top - a;
            Ok(0)
        }
        Builtin::Alloca { wide, align } => {
            let size = if wide { a } else { a as u32 as u64 };
            let align = (align as u64).max(8);
            // Align the host address (what vector accesses through a generic pointer see).
            let base = ctx.local_base[lane];
            let new = sp
                .checked_sub(size)
                .map(|p| ((base + p) & !(align - 1)).wrapping_sub(base))
                .filter(|&p| p >= floor && p <= sp);
            match new {
                Some(p) => {
                    env.alloca_used[lane] = top - p;
                    Ok(p)
                }
                None => fail(
                    ctx,
                    format!("alloca of {size} bytes (aligned to {align}) overflows the thread's stack ({reserve} bytes, {} in use)", top - sp),
                ),
            }
        }
        _ => Ok(0),
    }
}
