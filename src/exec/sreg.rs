//! The values of special registers on a CPU and the state-space windows of generic
//! addresses (`isspacep`), for both backends.
//!
//! [`SregCtx`] is the launch- and CTA-dependent part, embedded in
//! [`WarpCtx`] (`#[repr(C)]`: the JIT loads its fields at
//! [`uniform_field`] offsets). The interpreter reads every register through [`read`];
//! the JIT inlines the uniform fields and the lane masks and calls [`clock`] for the
//! timers. README.md ("Special registers on a CPU") documents the values.

use crate::exec::ctx::{WarpCtx, WARP_SIZE};
use crate::exec::region::RegionKind;
use crate::ir::{Dim, LaneMask, Space, SpecialReg};
use std::mem::offset_of;

/// Shared memory is reported in units of this many bytes (`%total_smem_size`), as on
/// sm_8x/sm_9x.
pub const SMEM_ALLOC_UNIT: u32 = 128;

/// Launch- and CTA-dependent special-register values of a warp.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SregCtx {
    /// `%clusterid` (first, with `smid`: it is set per CTA, in the first cache line of
    /// [`WarpCtx`] with the other per-CTA fields).
    pub clusterid: [u32; 3],
    /// `%smid`: index of the worker OS thread that runs the CTA.
    pub smid: u32,
    /// Host `CLOCK_MONOTONIC` nanoseconds when the launch started (`%clock64` counts
    /// from here).
    pub clock_origin_ns: u64,
    /// `%gridid`: the device's launch counter (1 for its first launch).
    pub gridid: u64,
    /// Bytes of the launch's kernel-parameter buffer (the `.param` window).
    pub param_size: u64,
    /// `%nsmid`: the device's number of worker threads.
    pub nsmid: u32,
    pub dynamic_smem_size: u32,
    pub total_smem_size: u32,
    pub aggr_smem_size: u32,
    pub nclusterid: [u32; 3],
    pub cluster_ctaid: [u32; 3],
    pub cluster_nctaid: [u32; 3],
    pub cluster_ctarank: u32,
    pub cluster_nctarank: u32,
    /// 1 when the kernel declares `.reqnctapercluster` or `.explicitcluster`.
    pub is_explicit_cluster: u32,
}

impl SregCtx {
    /// Sets the cluster registers of the CTA `ctaid` of a grid of `nctaid` CTAs in
    /// clusters of `cdim` CTAs (`[1, 1, 1]`: every CTA is its own cluster, as on a GPU
    /// for a launch without clusters). `nctaid` must be a multiple of `cdim`.
    pub fn set_cluster(&mut self, ctaid: [u32; 3], nctaid: [u32; 3], cdim: [u32; 3]) {
        if cdim.iter().all(|&c| c <= 1) {
            // Clusters of one CTA (the common case, set per warp of every CTA): the
            // same values as below without the divisions.
            self.cluster_nctaid = [1; 3];
            self.cluster_ctaid = [0; 3];
            self.clusterid = ctaid;
            self.nclusterid = nctaid;
            self.cluster_ctarank = 0;
            self.cluster_nctarank = 1;
            return;
        }
        for d in 0..3 {
            let c = cdim[d].max(1);
            self.cluster_nctaid[d] = c;
            self.cluster_ctaid[d] = ctaid[d] % c;
            self.clusterid[d] = ctaid[d] / c;
            self.nclusterid[d] = nctaid[d] / c;
        }
        let [x, y, z] = self.cluster_ctaid;
        let [cx, cy, cz] = self.cluster_nctaid;
        self.cluster_ctarank = x + cx * (y + cy * z);
        self.cluster_nctarank = cx * cy * cz;
    }
}

/// Host `CLOCK_MONOTONIC` in nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Which clock [`clock`] reads.
pub const CLOCK_LAUNCH: u32 = 0;
/// See [`CLOCK_LAUNCH`].
pub const CLOCK_GLOBAL: u32 = 1;

/// `%clock64` ([`CLOCK_LAUNCH`]: nanoseconds since the launch started) or
/// `%globaltimer` ([`CLOCK_GLOBAL`]: host `CLOCK_MONOTONIC` nanoseconds). Both are read
/// anew at every use and never decrease.
pub fn clock(ctx: &WarpCtx, which: u32) -> u64 {
    let now = now_ns();
    if which == CLOCK_GLOBAL {
        now
    } else {
        now.saturating_sub(ctx.sreg.clock_origin_ns)
    }
}

/// `%lanemask_*` of lane `lane`.
pub fn lanemask(k: LaneMask, lane: u32) -> u32 {
    let eq = 1u32 << (lane % WARP_SIZE as u32);
    let lt = eq - 1;
    match k {
        LaneMask::Eq => eq,
        LaneMask::Lt => lt,
        LaneMask::Le => lt | eq,
        LaneMask::Ge => !lt,
        LaneMask::Gt => !(lt | eq),
    }
}

/// Where the JIT finds a register that is the same for every lane of a warp: its byte
/// offset in [`WarpCtx`] and whether it is 64 bits wide (else 32). `None` for per-lane
/// registers, timers and constants.
pub fn uniform_field(s: SpecialReg) -> Option<(usize, bool)> {
    let base = offset_of!(WarpCtx, sreg);
    let f = |off: usize| Some((base + off, false));
    let dim = |off: usize, d: Dim| Some((base + off + 4 * d as usize, false));
    match s {
        SpecialReg::Ntid(d) => Some((offset_of!(WarpCtx, ntid) + 4 * d as usize, false)),
        SpecialReg::Ctaid(d) => Some((offset_of!(WarpCtx, ctaid) + 4 * d as usize, false)),
        SpecialReg::Nctaid(d) => Some((offset_of!(WarpCtx, nctaid) + 4 * d as usize, false)),
        SpecialReg::WarpId => Some((offset_of!(WarpCtx, warpid), false)),
        SpecialReg::NWarpId => Some((offset_of!(WarpCtx, nwarpid), false)),
        SpecialReg::GridId => Some((base + offset_of!(SregCtx, gridid), true)),
        SpecialReg::SmId => f(offset_of!(SregCtx, smid)),
        SpecialReg::NSmId => f(offset_of!(SregCtx, nsmid)),
        SpecialReg::DynamicSmemSize => f(offset_of!(SregCtx, dynamic_smem_size)),
        SpecialReg::TotalSmemSize => f(offset_of!(SregCtx, total_smem_size)),
        SpecialReg::AggrSmemSize => f(offset_of!(SregCtx, aggr_smem_size)),
        SpecialReg::ClusterId(d) => dim(offset_of!(SregCtx, clusterid), d),
        SpecialReg::NClusterId(d) => dim(offset_of!(SregCtx, nclusterid), d),
        SpecialReg::ClusterCtaId(d) => dim(offset_of!(SregCtx, cluster_ctaid), d),
        SpecialReg::ClusterNCtaId(d) => dim(offset_of!(SregCtx, cluster_nctaid), d),
        SpecialReg::ClusterCtaRank => f(offset_of!(SregCtx, cluster_ctarank)),
        SpecialReg::ClusterNCtaRank => f(offset_of!(SregCtx, cluster_nctarank)),
        SpecialReg::IsExplicitCluster => f(offset_of!(SregCtx, is_explicit_cluster)),
        _ => None,
    }
}

/// The value of special register `s` for `lane` (zero-extended; `%is_explicit_cluster`
/// is 0 or 1). Timers are read now.
pub fn read(ctx: &WarpCtx, s: SpecialReg, lane: usize) -> u64 {
    let r = &ctx.sreg;
    let d = |a: &[u32; 3], d: Dim| a[d as usize] as u64;
    if let Some(c) = s.constant() {
        return c;
    }
    match s {
        SpecialReg::Tid(x) => ctx.tid[x as usize][lane % WARP_SIZE] as u64,
        SpecialReg::Ntid(x) => d(&ctx.ntid, x),
        SpecialReg::Ctaid(x) => d(&ctx.ctaid, x),
        SpecialReg::Nctaid(x) => d(&ctx.nctaid, x),
        SpecialReg::LaneId => lane as u64,
        SpecialReg::WarpId => ctx.warpid as u64,
        SpecialReg::NWarpId => ctx.nwarpid as u64,
        SpecialReg::Clock64 => clock(ctx, CLOCK_LAUNCH),
        SpecialReg::Clock => clock(ctx, CLOCK_LAUNCH) & 0xffff_ffff,
        SpecialReg::ClockHi => clock(ctx, CLOCK_LAUNCH) >> 32,
        SpecialReg::GlobalTimer => clock(ctx, CLOCK_GLOBAL),
        SpecialReg::GlobalTimerLo => clock(ctx, CLOCK_GLOBAL) & 0xffff_ffff,
        SpecialReg::GlobalTimerHi => clock(ctx, CLOCK_GLOBAL) >> 32,
        SpecialReg::SmId => r.smid as u64,
        SpecialReg::NSmId => r.nsmid as u64,
        SpecialReg::GridId => r.gridid,
        SpecialReg::LaneMask(k) => lanemask(k, lane as u32) as u64,
        SpecialReg::DynamicSmemSize => r.dynamic_smem_size as u64,
        SpecialReg::TotalSmemSize => r.total_smem_size as u64,
        SpecialReg::AggrSmemSize => r.aggr_smem_size as u64,
        SpecialReg::ClusterId(x) => d(&r.clusterid, x),
        SpecialReg::NClusterId(x) => d(&r.nclusterid, x),
        SpecialReg::ClusterCtaId(x) => d(&r.cluster_ctaid, x),
        SpecialReg::ClusterNCtaId(x) => d(&r.cluster_nctaid, x),
        SpecialReg::ClusterCtaRank => r.cluster_ctarank as u64,
        SpecialReg::ClusterNCtaRank => r.cluster_nctarank as u64,
        SpecialReg::IsExplicitCluster => (r.is_explicit_cluster != 0) as u64,
        SpecialReg::CurrentGraphExec
        | SpecialReg::EnvReg(_)
        | SpecialReg::Pm { .. }
        | SpecialReg::ReservedSmem(_) => 0,
    }
}

/// `isspacep.space`: whether generic address `addr` lies in `lane`'s window of `space`:
/// - `.shared`: this CTA's shared block;
/// - `.shared::cluster`: the shared block of any CTA of the cluster;
/// - `.local`: this thread's own local frame;
/// - `.param`: this launch's kernel-parameter buffer;
/// - `.const`: a module `.const` variable;
/// - `.global`: a live allocation, a module `.global` variable or the kernel-parameter
///   buffer (the `.param` window lies inside the `.global` one, as the ISA says).
///
/// Anything else (0, a host address outside device memory, freed memory, the gap after
/// an allocation, another CTA's shared block or another thread's frame) is in no window.
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv` (for `.global` and `.const`).
pub unsafe fn in_window(ctx: &WarpCtx, space: Space, lane: usize, addr: u64) -> bool {
    let within = |base: u64, size: u64| addr >= base && addr - base < size;
    match space {
        Space::Shared => within(ctx.shared_base, ctx.shared_size),
        Space::SharedCluster => crate::exec::cluster::locate(ctx, addr).is_some(),
        Space::Local => within(ctx.local_base[lane % WARP_SIZE], ctx.local_size),
        Space::Param => within(ctx.param_base, ctx.sreg.param_size),
        Space::Global | Space::Const => {
            // SAFETY: the caller guarantees env is valid.
            let env = unsafe { &*ctx.env };
            match env.regions.find(addr, 1).map(|r| r.kind) {
                Some(RegionKind::Const) => space == Space::Const,
                Some(RegionKind::Alloc | RegionKind::Global | RegionKind::Param) => {
                    space == Space::Global
                }
                _ => false,
            }
        }
        Space::Generic => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanemasks_match_their_definitions() {
        for lane in 0..32u32 {
            let bits =
                |f: &dyn Fn(u32) -> bool| (0..32).filter(|&i| f(i)).fold(0u32, |m, i| m | 1 << i);
            assert_eq!(lanemask(LaneMask::Eq, lane), bits(&|i| i == lane));
            assert_eq!(lanemask(LaneMask::Lt, lane), bits(&|i| i < lane));
            assert_eq!(lanemask(LaneMask::Le, lane), bits(&|i| i <= lane));
            assert_eq!(lanemask(LaneMask::Ge, lane), bits(&|i| i >= lane));
            assert_eq!(lanemask(LaneMask::Gt, lane), bits(&|i| i > lane));
        }
    }

    #[test]
    fn cluster_registers() {
        let mut s = SregCtx::default();
        s.set_cluster([5, 3, 1], [8, 4, 2], [2, 2, 1]);
        assert_eq!(s.cluster_ctaid, [1, 1, 0]);
        assert_eq!(s.clusterid, [2, 1, 1]);
        assert_eq!(s.nclusterid, [4, 2, 2]);
        assert_eq!(s.cluster_nctaid, [2, 2, 1]);
        assert_eq!(s.cluster_ctarank, 3);
        assert_eq!(s.cluster_nctarank, 4);
    }
}
