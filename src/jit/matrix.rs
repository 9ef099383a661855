//! Warp-level matrix instructions ([`InstKind::Matrix`]: `ldmatrix`, `mma.sync`,
//! `movmatrix`): `ldmatrix`'s lane addresses go to the scratch slot's address area, the
//! source registers of all 32 lanes to its data area (4 bytes per lane), and one
//! `ptxjit_matrix` helper call runs `crate::exec::matrix::exec` (the function the
//! interpreter uses); the result registers come back in the data area, over the sources.
//!
//! [`InstKind::Matrix`]: crate::ir::InstKind::Matrix

use super::helpers::Helper;
use super::lanes::{self, W};
use super::mem::LaneAddr;
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{Address, InstId, MatrixOp, Operand, RegId, Space};
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

/// Bytes of one 32-bit register of 32 lanes in the data area.
const REG_BYTES: i32 = 4 * WARP_SIZE as i32;
/// The most source or result registers the data area holds (2 KiB / 128 B).
const MAX_REGS: usize = 16;

impl FnTx<'_> {
    pub(crate) fn matrix(
        &mut self,
        op: MatrixOp,
        dsts: &[Option<RegId>],
        srcs: &[Operand],
        addr: Option<&(Space, Address)>,
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let sig = crate::ops::mma::signature(op)
            .filter(|s| s.srcs.len() <= MAX_REGS && s.dsts <= MAX_REGS)
            .ok_or_else(|| self.unsupported(self.cur_text()))?;
        let space = match addr {
            Some((space, a)) => {
                match self.lane_addrs(*space, a)? {
                    LaneAddr::Uniform(v) => {
                        let s = self.b.ins().splat(I64X2, v);
                        self.spill(&W::wide(vec![s; 16]), 0);
                    }
                    LaneAddr::PerLane(w) => self.spill(&w, 0),
                }
                *space
            }
            None => Space::Shared,
        };
        for (k, (s, t)) in srcs.iter().zip(&sig.srcs).enumerate() {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SCRATCH_DATA + REG_BYTES * k as i32);
        }
        let desc = lanes::iconst64(&mut self.b, crate::ops::mma::encode(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let spacev = lanes::iconst32(&mut self.b, (space == Space::Generic) as u32);
        let pa = self.scratch_addr(0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Matrix)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, bits, instv, spacev, pa, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        for (k, d) in dsts.iter().enumerate() {
            if let Some(d) = d {
                let r = self.unspill(false, SCRATCH_DATA + REG_BYTES * k as i32);
                self.write(*d, sig.dtype, r, mask)?;
            }
        }
        Ok(())
    }
}

/// Runs a matrix instruction for the lanes in `mask` (see
/// `crate::exec::matrix::exec`): `generic` selects the generic state space for
/// `ldmatrix` (else `.shared`), `addrs` holds 32 u64 lane addresses, `data` the source
/// registers (32 u32 lanes each, in order), where the result registers are written.
/// Returns 0, or the warp's nonzero status after an error.
///
/// # Safety
/// `ctx` must be the running warp's context; `addrs` and `data` valid as described, with
/// room for `max(sources, results)` registers in `data`.
pub unsafe extern "C" fn ptxjit_matrix(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    generic: u32,
    addrs: *const u64,
    data: *mut u32,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some((op, sig)) =
        crate::ops::mma::decode_op(desc).and_then(|op| Some((op, crate::ops::mma::signature(op)?)))
    else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let mut srcs = vec![[0u32; WARP_SIZE]; sig.srcs.len()];
    for (k, s) in srcs.iter_mut().enumerate() {
        for (l, v) in s.iter_mut().enumerate() {
            // SAFETY: `data` holds the source registers (caller's contract).
            *v = unsafe { data.add(k * WARP_SIZE + l).read_unaligned() };
        }
    }
    // SAFETY: 32 lane addresses (caller's contract).
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    let space = if generic != 0 {
        Space::Generic
    } else {
        Space::Shared
    };
    // SAFETY: ctx is the running warp's context.
    let out = match unsafe {
        crate::exec::matrix::exec(ctx, op, mask, InstId(inst), space, addrs, &srcs)
    } {
        Ok(out) => out,
        Err(_) => return ctx.status.max(STATUS_FAULT),
    };
    for (k, r) in out.iter().enumerate() {
        for (l, v) in r.iter().enumerate() {
            // SAFETY: room for the result registers (caller's contract).
            unsafe { data.add(k * WARP_SIZE + l).write_unaligned(*v) };
        }
    }
    STATUS_OK
}
