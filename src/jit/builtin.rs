//! Runtime built-ins ([`InstKind::Builtin`]: `vprintf`, `__assertfail`): each operand of
//! all 32 lanes goes to the scratch slot's data area (256 bytes per operand: 8 bytes per
//! lane for 64-bit operands, 4 for 32-bit ones), and one `ptxjit_builtin` helper call
//! runs `crate::exec::printf::exec` (the function the interpreter uses); the lanes'
//! 32-bit results come back at the start of the data area.
//!
//! [`InstKind::Builtin`]: crate::ir::InstKind::Builtin

use super::helpers::Helper;
use super::lanes;
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{Builtin, InstId, Operand, RegId, Type};
use cranelift_codegen::ir::InstBuilder;

/// Bytes of one operand of 32 lanes in the data area.
const ARG_BYTES: i32 = 8 * WARP_SIZE as i32;

fn code(op: Builtin) -> u64 {
    match op {
        Builtin::Vprintf => 0,
        Builtin::AssertFail => 1,
    }
}

fn from_code(c: u64) -> Option<Builtin> {
    match c {
        0 => Some(Builtin::Vprintf),
        1 => Some(Builtin::AssertFail),
        _ => None,
    }
}

impl FnTx<'_> {
    pub(crate) fn builtin(
        &mut self,
        op: Builtin,
        args: &[Operand],
        dst: Option<RegId>,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        if args.len() != op.params().len() {
            return Err(self.unsupported(self.cur_text()));
        }
        for (k, (a, t)) in args.iter().zip(op.params()).enumerate() {
            let w = self.read(a, *t, false)?;
            self.spill(&w, SCRATCH_DATA + ARG_BYTES * k as i32);
        }
        let desc = lanes::iconst64(&mut self.b, code(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Builtin)?;
        let call = self.b.ins().call(h, &[self.ctx, desc, bits, instv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        if let Some(d) = dst {
            let r = self.unspill(false, SCRATCH_DATA);
            self.write(d, Type::U32, r, mask)?;
        }
        Ok(())
    }
}

/// Runs built-in `desc` for the lanes in `mask` (see `crate::exec::printf::exec`):
/// `data` holds the operands (256 bytes each, 8 or 4 bytes per lane by the operand's
/// type); the 32 u32 results are written at its start. Returns 0, or the warp's nonzero
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
    for (l, v) in out.iter().enumerate() {
        // SAFETY: room for 32 results (caller's contract).
        unsafe { (data.add(4 * l) as *mut u32).write_unaligned(*v) };
    }
    STATUS_OK
}
