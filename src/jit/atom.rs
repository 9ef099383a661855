//! `atom` / `red` ([`InstKind::Atom`]): the lane addresses and operands go to stack
//! slots and one `ptxjit_atom` helper call runs `crate::exec::atomic` (the function
//! the interpreter uses) for the active lanes; the old values come back in a slot.
//!
//! [`InstKind::Atom`]: crate::ir::InstKind::Atom

use super::helpers::{rd, slot_bytes, wr, Helper};
use super::lanes::{self, W};
use super::mem::LaneAddr;
use super::translate::{FnTx, Mask, SCRATCH_DATA};
use super::JitError;
use crate::exec::atomic::{atomic, AtomReq};
use crate::exec::ctx::{WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{Address, AtomOp, InstId, Operand, RegId, Space, Type};
use cranelift_codegen::ir::types::I64X2;
use cranelift_codegen::ir::InstBuilder;

const SLOT_B: i32 = SCRATCH_DATA;
const SLOT_C: i32 = SCRATCH_DATA + 256;
const SLOT_OUT: i32 = SCRATCH_DATA + 512;

impl FnTx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn atom(
        &mut self,
        op: AtomOp,
        ty: Type,
        space: Space,
        dst: Option<RegId>,
        addr: &Address,
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        match self.lane_addrs(space, addr)? {
            LaneAddr::Uniform(a) => {
                let s = self.b.ins().splat(I64X2, a);
                self.spill(&W::wide(vec![s; 16]), 0);
            }
            LaneAddr::PerLane(w) => self.spill(&w, 0),
        }
        for (s, slot) in srcs.iter().zip([SLOT_B, SLOT_C]) {
            let w = self.read(s, ty, false)?;
            self.spill(&w, slot);
        }
        let desc = lanes::iconst64(&mut self.b, encode(op, ty, space));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pa = self.scratch_addr(0);
        let pb = self.scratch_addr(SLOT_B);
        let pc = self.scratch_addr(SLOT_C);
        let po = self.scratch_addr(SLOT_OUT);
        let h = self.helper(Helper::Atom)?;
        let call = self
            .b
            .ins()
            .call(h, &[self.ctx, desc, bits, instv, pa, pb, pc, po]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        if let Some(d) = dst {
            let r = self.unspill(ty.bits() > 32, SLOT_OUT);
            self.write(d, ty, r, mask)?;
        }
        Ok(())
    }
}

const OPS: [AtomOp; 10] = [
    AtomOp::Add,
    AtomOp::Min,
    AtomOp::Max,
    AtomOp::Inc,
    AtomOp::Dec,
    AtomOp::And,
    AtomOp::Or,
    AtomOp::Xor,
    AtomOp::Exch,
    AtomOp::Cas,
];
const TYPES: [Type; 13] = [
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U32,
    Type::S32,
    Type::U64,
    Type::S64,
    Type::F32,
    Type::F64,
    Type::F16,
    Type::F16x2,
    Type::BF16,
    Type::BF16x2,
];
const SPACES: [Space; 3] = [Space::Global, Space::Shared, Space::Generic];

fn encode(op: AtomOp, ty: Type, space: Space) -> u64 {
    let pos = |i: Option<usize>| i.unwrap_or(0xff) as u64;
    pos(OPS.iter().position(|&o| o == op))
        | pos(TYPES.iter().position(|&t| t == ty)) << 8
        | pos(SPACES.iter().position(|&s| s == space)) << 16
}

fn decode(d: u64) -> Option<(AtomOp, Type, Space)> {
    Some((
        *OPS.get((d & 0xff) as usize)?,
        *TYPES.get((d >> 8 & 0xff) as usize)?,
        *SPACES.get((d >> 16 & 0xff) as usize)?,
    ))
}

/// Runs an `atom`/`red` for the lanes in `mask`; returns 0, or the warp's nonzero status
/// after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context; `addrs` 32 u64 lane addresses; `b`, `c`,
/// `out` slots of 32 lanes of the operation type's container width.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptxjit_atom(
    ctx: *mut WarpCtx,
    desc: u64,
    mask: u32,
    inst: u32,
    addrs: *const u64,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) -> u32 {
    // SAFETY: the caller's contract.
    let ctx = unsafe { &mut *ctx };
    let Some((op, ty, space)) = decode(desc) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let sb = slot_bytes(ty);
    let slots = |p: *const u8| {
        let mut v = [0u64; WARP_SIZE];
        for (l, x) in v.iter_mut().enumerate() {
            // SAFETY: slots of 32 lanes (caller's contract).
            *x = unsafe { rd(p, l, sb, 64) };
        }
        v
    };
    let (bv, cv) = (slots(b), slots(c));
    // SAFETY: 32 lane addresses (caller's contract).
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    let req = AtomReq {
        op,
        ty,
        space,
        mask,
        inst: InstId(inst),
    };
    let mut old = [0u64; WARP_SIZE];
    // SAFETY: ctx is the running warp's context.
    if unsafe { atomic(ctx, &req, addrs, &bv, &cv, &mut old) }.is_err() {
        return ctx.status.max(STATUS_FAULT);
    }
    for l in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        // SAFETY: the result slot holds 32 lanes.
        unsafe { wr(out, l, sb, old[l]) };
    }
    STATUS_OK
}

#[cfg(test)]
mod tests {
    #[test]
    fn encode_round_trips() {
        for op in super::OPS {
            for ty in super::TYPES {
                for sp in super::SPACES {
                    assert_eq!(super::decode(super::encode(op, ty, sp)), Some((op, ty, sp)));
                }
            }
        }
    }
}
