//! The built-in helper (`ptxjit_builtin`: `vprintf`, `__assertfail`, `trap`, `brkpt`,
//! `malloc`, `free`) over `crate::exec::printf::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{Builtin, InstId};

/// Codes of the device-runtime built-ins start here (`CDP_CODE + CdpFn::code`).
const CDP_CODE: u64 = 0x100;

pub(crate) fn code(op: Builtin) -> u64 {
    match op {
        Builtin::Vprintf => 0,
        Builtin::AssertFail => 1,
        Builtin::Trap => 2,
        Builtin::Brkpt => 3,
        Builtin::Malloc => 4,
        Builtin::Free => 5,
        Builtin::Cdp(f) => CDP_CODE + f.code() as u64,
        // The low byte says which; `wide` is bit 16, the alignment bits 32-63 (the
        // device-runtime codes are CDP_CODE..CDP_CODE + 0x100).
        Builtin::Alloca { wide, align } => 6 | (wide as u64) << 16 | (align as u64) << 32,
        Builtin::StackSave { wide } => 7 | (wide as u64) << 16,
        Builtin::StackRestore { wide } => 8 | (wide as u64) << 16,
    }
}

fn from_code(c: u64) -> Option<Builtin> {
    match c {
        0 => Some(Builtin::Vprintf),
        1 => Some(Builtin::AssertFail),
        2 => Some(Builtin::Trap),
        3 => Some(Builtin::Brkpt),
        4 => Some(Builtin::Malloc),
        5 => Some(Builtin::Free),
        c if (CDP_CODE..CDP_CODE + 0x100).contains(&c) => {
            crate::ir::CdpFn::from_code((c - CDP_CODE) as u32).map(Builtin::Cdp)
        }
        c if c & 0xff00 == 0 => {
            let wide = c >> 16 & 1 == 1;
            match c & 0xff {
                6 => Some(Builtin::Alloca {
                    wide,
                    align: (c >> 32) as u32,
                }),
                7 => Some(Builtin::StackSave { wide }),
                8 => Some(Builtin::StackRestore { wide }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Runs built-in `desc` for the lanes in `mask` (see `crate::exec::printf::exec`):
/// `data` holds the operands (256 bytes each, 8 or 4 bytes per lane by the operand's
/// type); the 32 results (u32, or u64 for a 64-bit result type) are written at its start. Returns 0, or the warp's nonzero
/// status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `data` valid as described.
pub unsafe extern "C" fn ptxjit_builtin(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    data: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some(op) = from_code(desc) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let mut args = vec![[0u64; WARP_SIZE]; op.params().len()];
    for (k, (a, t)) in args.iter_mut().zip(op.params()).enumerate() {
        for (l, v) in a.iter_mut().enumerate() {
            let base = k * ARG_BYTES as usize;
            // SAFETY: `data` holds the operands (caller's contract).
            *v = unsafe {
                if t.bits() == 64 {
                    (data.add(base + 8 * l) as *const u64).read_unaligned()
                } else {
                    (data.add(base + 4 * l) as *const u32).read_unaligned() as u64
                }
            };
        }
    }
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe { crate::exec::printf::exec(ctx, op, mask, InstId(inst), &args) } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    let wide = op.result().is_some_and(|t| t.bits() == 64);
    for (l, v) in out.iter().enumerate() {
        // SAFETY: room for 32 results (caller's contract).
        unsafe {
            if wide {
                (data.add(8 * l) as *mut u64).write_unaligned(*v)
            } else {
                (data.add(4 * l) as *mut u32).write_unaligned(*v as u32)
            }
        };
    }
    STATUS_OK
}

/// Bytes of one operand of 32 lanes in the data area.
pub(crate) const ARG_BYTES: i32 = 8 * WARP_SIZE as i32;
