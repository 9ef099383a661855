//! The grid group of a cooperative launch, warp side: the driver's system calls that
//! `libcudadevrt`'s PTX makes for `cudaCGGetIntrinsicHandle` and `cudaCGSynchronize`
//! (numba-cuda's `cuda.cg.this_grid()` and `grid.sync()` call those two), as both
//! backends run them ([`crate::ir::CdpFn::CgsGetIntrinsicHandle`],
//! [`crate::ir::CdpFn::CgsSync`]).
//!
//! - `__cuda_syscall_CGS_get_intrinsic_handle(scope)`: for the grid (scope 1) of a
//!   cooperative launch ([`crate::LaunchConfig::cooperative`]) a nonzero handle,
//!   [`GRID_HANDLE`]; 0 otherwise (a launch that is not cooperative, and the
//!   multi-device grid, scope 2, which needs `cuLaunchCooperativeKernelMultiDevice`):
//!   `cudaCGSynchronize` then returns `cudaErrorUnknown` (999) without waiting, as
//!   `libcudadevrt` does with a null handle.
//! - `__cuda_syscall_CGS_sync(handle, 0)`: a barrier over every thread of the grid. The
//!   calling lanes arrive and the warp waits until every non-exited thread of every CTA
//!   has arrived (the runtime runs all CTAs of a cooperative grid together, see
//!   `runtime::launch`, and counts with the cluster barrier's machinery,
//!   [`GRID_BARRIER`]); what the threads wrote before it is visible after it. Returns
//!   0. A handle that is not [`GRID_HANDLE`] returns 1 (`cudaCGSynchronize` maps any
//!   nonzero result to 999). Flag bit 0 (`cudaCGSynchronizeGrid`'s "one thread per CTA
//!   arrives", which no toolkit header or numba-cuda calls) stops the kernel with an
//!   error naming it.

use crate::exec::barrier::{bar_wait, Arrival};
use crate::exec::ctx::{self, Stopped, WarpCtx, WARP_SIZE};
use crate::ir::{CdpFn, InstId};

/// The barrier id of the grid barrier in a warp's arrivals (the CTA barriers are 0-15,
/// the cluster barrier 16).
pub const GRID_BARRIER: u32 = 17;
/// The handle of the grid of a cooperative launch.
pub const GRID_HANDLE: u64 = 0x4752_4944;
/// `cudaCGScopeGrid`.
const SCOPE_GRID: u64 = 1;

/// Runs `f` (a grid-group system call) for the lanes in `mask`.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`, and the warp must run in its
/// scheduler's coroutine (the runtime makes it so for every kernel that can reach
/// `CGS_sync`).
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    f: CdpFn,
    mask: u32,
    inst: InstId,
    args: &[[u64; WARP_SIZE]],
) -> Result<[u64; WARP_SIZE], Stopped> {
    let mut out = [0u64; WARP_SIZE];
    let lanes = || (0..WARP_SIZE).filter(move |l| mask >> l & 1 != 0);
    let arg = |k: usize, lane: usize| args.get(k).map_or(0, |a| a[lane]);
    // SAFETY: the caller's contract.
    let cooperative = unsafe { (*ctx.env).cooperative };
    if f == CdpFn::CgsGetIntrinsicHandle {
        for l in lanes() {
            out[l] = match cooperative && arg(0, l) as u32 as u64 == SCOPE_GRID {
                true => GRID_HANDLE,
                false => 0,
            };
        }
        return Ok(out);
    }
    if let Some(l) = lanes().find(|&l| arg(1, l) & 1 != 0) {
        let msg = "__cuda_syscall_CGS_sync with flag bit 0 (cudaCGSynchronizeGrid: one \
                   thread per CTA arrives at the grid barrier) is not supported; \
                   cudaCGSynchronize (every thread arrives) is"
            .to_string();
        // SAFETY: the caller's contract.
        unsafe { ctx::stop_with_error_at(ctx, msg, inst, l as u32) };
        return Err(Stopped);
    }
    let mut arrive = 0u32;
    for l in lanes() {
        if cooperative && arg(0, l) == GRID_HANDLE {
            arrive |= 1 << l;
        } else {
            out[l] = 1;
        }
    }
    if arrive == 0 {
        return Ok(out);
    }
    // SAFETY: the caller's contract.
    let env = unsafe { &mut *ctx.env };
    for wait in [false, true] {
        env.arrivals.push(Arrival {
            id: GRID_BARRIER,
            count: None,
            mask: arrive,
            inst,
            wait,
            red: None,
        });
    }
    // SAFETY: the caller's contract.
    unsafe { bar_wait(ctx)? };
    Ok(out)
}
