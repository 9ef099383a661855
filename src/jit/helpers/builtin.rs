//! The built-in helper (`ptxjit_builtin`: `vprintf`, `__assertfail`, `trap`, `brkpt`,
//! `malloc`, `free`) over `crate::exec::printf::exec`.

use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{Builtin, CdpFn, InstId};

/// Declares the built-ins' codes (the helper's `desc` argument) once: each row gives a
/// [`Builtin`] variant its tag (the code's low byte) and places each of its fields at a
/// bit offset of the code. [`code`] and [`from_code`] are generated from it.
macro_rules! builtin_codes {
    ($($tag:literal => $v:ident $(($inner:ident @ $ishift:literal))? $({ $($field:ident @ $shift:literal),* })?;)*) => {
        /// The code of built-in `op` for the helper call.
        pub(crate) fn code(op: Builtin) -> u64 {
            match op {
                $(Builtin::$v $(($inner))? $({ $($field),* })? => {
                    $tag $(| CodeField::put($inner) << $ishift)? $($(| CodeField::put($field) << $shift)*)?
                })*
            }
        }

        /// The built-in with code `c`; `None` for anything [`code`] does not make.
        fn from_code(c: u64) -> Option<Builtin> {
            let op = match c & 0xff {
                $($tag => Builtin::$v $((CodeField::take(c >> $ishift)?))? $({ $($field: CodeField::take(c >> $shift)?),* })?,)*
                _ => return None,
            };
            (code(op) == c).then_some(op)
        }
    };
}

builtin_codes! {
    0 => Vprintf;
    1 => AssertFail;
    2 => Trap;
    3 => Brkpt;
    4 => Malloc;
    5 => Free;
    6 => Alloca { wide @ 16, align @ 32 };
    7 => StackSave { wide @ 16 };
    8 => StackRestore { wide @ 16 };
    9 => Cdp(f @ 8);
}

/// A field of a built-in that its code carries: its bits, and back (from the bits at
/// the field's offset; higher bits are ignored).
trait CodeField: Sized {
    fn put(self) -> u64;
    fn take(bits: u64) -> Option<Self>;
}

impl CodeField for bool {
    fn put(self) -> u64 {
        self as u64
    }
    fn take(bits: u64) -> Option<bool> {
        Some(bits & 1 == 1)
    }
}

impl CodeField for u32 {
    fn put(self) -> u64 {
        self as u64
    }
    fn take(bits: u64) -> Option<u32> {
        Some(bits as u32)
    }
}

impl CodeField for CdpFn {
    fn put(self) -> u64 {
        self.code() as u64
    }
    fn take(bits: u64) -> Option<CdpFn> {
        CdpFn::from_code(bits as u8 as u32)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in's code decodes to it, and distinct built-ins get distinct codes.
    #[test]
    fn codes_round_trip() {
        let mut ops = vec![
            Builtin::Vprintf,
            Builtin::AssertFail,
            Builtin::Trap,
            Builtin::Brkpt,
            Builtin::Malloc,
            Builtin::Free,
        ];
        for wide in [false, true] {
            ops.push(Builtin::StackSave { wide });
            ops.push(Builtin::StackRestore { wide });
            for align in [8, 16, 1 << 20, u32::MAX] {
                ops.push(Builtin::Alloca { wide, align });
            }
        }
        ops.extend((0..).map_while(CdpFn::from_code).map(Builtin::Cdp));
        let mut codes = std::collections::HashSet::new();
        for op in ops {
            assert_eq!(from_code(code(op)), Some(op), "{op:?}");
            assert!(codes.insert(code(op)), "{op:?}");
        }
        assert_eq!(from_code(0xff), None);
        assert_eq!(from_code(1 << 16), None, "a field Vprintf does not have");
        assert_eq!(
            from_code(9 | 0xff << 8),
            None,
            "no such device-runtime function"
        );
    }
}
