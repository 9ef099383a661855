//! The interpreter's memory family ([`Family::Mem`]): `ld`, `st`, `cvta` and
//! `isspacep`; every access goes through `crate::exec::ctx::access`, as the JIT's slow
//! path does.
//!
//! [`Family::Mem`]: crate::ir::Family::Mem

use super::{lanes, Warp};
use crate::exec::ctx::{self, AccessReq, WarpCtx, WARP_SIZE};
use crate::ir::{AddrBase, Address, Inst, InstKind, Space, Type, VarRef};
use crate::ops;

impl Warp<'_> {
    pub(super) fn exec_mem(
        &mut self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        mask: u32,
    ) -> Result<(), ctx::Stopped> {
        match &inst.kind {
            InstKind::Ld {
                space,
                ty,
                dsts,
                addr,
            } => {
                let mut data = vec![0u64; dsts.len() * WARP_SIZE];
                self.memory(
                    ctx,
                    inst,
                    *space,
                    *ty,
                    dsts.len(),
                    addr,
                    mask,
                    false,
                    &mut data,
                )?;
                for lane in lanes(mask) {
                    for (e, d) in dsts.iter().enumerate() {
                        if let Some(d) = d {
                            self.write(*d, *ty, data[e * WARP_SIZE + lane], lane);
                        }
                    }
                }
            }
            InstKind::St {
                space,
                ty,
                srcs,
                addr,
            } => {
                let mut data = vec![0u64; srcs.len() * WARP_SIZE];
                for lane in lanes(mask) {
                    for (e, s) in srcs.iter().enumerate() {
                        data[e * WARP_SIZE + lane] = self.read(ctx, *s, *ty, lane);
                    }
                }
                self.memory(
                    ctx,
                    inst,
                    *space,
                    *ty,
                    srcs.len(),
                    addr,
                    mask,
                    true,
                    &mut data,
                )?;
            }
            InstKind::Cvta {
                to_generic,
                space,
                ty,
                dst,
                src,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, *ty, lane);
                    let base = match space {
                        Space::Shared => ctx.shared_base,
                        Space::Local => ctx.local_base[lane],
                        _ => 0,
                    };
                    let v = if *to_generic {
                        a.wrapping_add(base)
                    } else {
                        a.wrapping_sub(base)
                    };
                    self.write(*dst, *ty, v & ops::mask(ty.bits()), lane);
                }
            }
            InstKind::Isspacep {
                space,
                dst,
                src,
                offset,
            } => {
                for lane in lanes(mask) {
                    let a = self.read(ctx, *src, Type::U64, lane);
                    let a = a.wrapping_add(*offset as u64);
                    // SAFETY: the runtime runs warps with their env set.
                    let v = unsafe { crate::exec::sreg::in_window(ctx, *space, lane, a) };
                    self.write(*dst, Type::Pred, v as u64, lane);
                }
            }
            _ => {}
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn memory(
        &self,
        ctx: &mut WarpCtx,
        inst: &Inst,
        space: Space,
        ty: Type,
        nvec: usize,
        addr: &Address,
        mask: u32,
        write: bool,
        data: &mut [u64],
    ) -> Result<(), ctx::Stopped> {
        let addrs = self.lane_addrs(ctx, space, addr, mask);
        let req = AccessReq {
            space,
            elem_bytes: ty.bytes(),
            nvec: nvec as u32,
            slot_bytes: 8,
            write,
            mask,
            inst: inst.id,
        };
        // SAFETY: `data` holds nvec * 32 u64 slots; ctx.env is set by the runtime.
        unsafe { ctx::access(ctx, &req, &addrs, data.as_mut_ptr() as *mut u8) }
    }

    /// The state-space address of `[addr]` for every lane in `mask`.
    pub(super) fn lane_addrs(
        &self,
        ctx: &WarpCtx,
        space: Space,
        addr: &Address,
        mask: u32,
    ) -> [u64; WARP_SIZE] {
        let mut addrs = [0u64; WARP_SIZE];
        for lane in lanes(mask) {
            let base = match addr.base {
                AddrBase::Reg(r) => self.regs[r][lane],
                // A generic access through a shared/local variable uses its generic
                // address (window base + offset), as `cvta` would give.
                AddrBase::Var(v @ VarRef::Shared(_)) if space == Space::Generic => {
                    ctx.shared_base.wrapping_add(self.var_addr(ctx, v))
                }
                AddrBase::Var(v @ VarRef::Local(_)) if space == Space::Generic => {
                    ctx.local_base[lane].wrapping_add(self.var_addr(ctx, v))
                }
                AddrBase::Var(v) => self.var_addr(ctx, v),
                AddrBase::Abs => 0,
            };
            let a = base.wrapping_add(addr.offset as u64);
            // A 32-bit address register: the address wraps in 32 bits.
            addrs[lane] = match addr.base {
                AddrBase::Reg(r) if self.reg_bits(r) <= 32 => a & 0xffff_ffff,
                _ => a,
            };
        }
        addrs
    }
}
