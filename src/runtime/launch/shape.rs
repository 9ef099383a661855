//! A launch's shape: the grid, block and cluster dimensions and the shared memory
//! size, checked against the device's limits and the kernel's performance directives.

use super::{MAX_SHARED_PER_BLOCK, MAX_THREADS_PER_BLOCK};
use crate::ir::Function;
use crate::runtime::device::LaunchConfig;

/// The checked shape of a launch.
pub(super) struct Shape {
    /// Threads per block.
    pub(super) nthreads: u64,
    /// Blocks in the grid.
    pub(super) ncta: u64,
    /// Cluster shape (`[1, 1, 1]` without clusters).
    pub(super) cluster: [u32; 3],
    /// Bytes of shared memory per block.
    pub(super) shared_size: u64,
    /// [`LaunchConfig::cooperative`].
    pub(super) cooperative: bool,
}

impl Shape {
    /// CTAs per cluster.
    pub(super) fn cluster_ctas(&self) -> u64 {
        self.cluster.iter().map(|&c| c as u64).product()
    }

    /// CTAs per scheduling unit: the whole grid of a cooperative launch (so that its
    /// grid barrier can complete), else a cluster.
    pub(super) fn unit_ctas(&self) -> u64 {
        match self.cooperative {
            true => self.ncta,
            false => self.cluster_ctas(),
        }
    }
}

/// Checks grid and block dimensions against the limits and the kernel's performance
/// directives, and sizes its shared memory. Errors are the launch error's message.
pub(super) fn check_shape(
    ir: &crate::ir::Module,
    func: &Function,
    cfg: &LaunchConfig,
) -> Result<Shape, String> {
    let [bx, by, bz] = cfg.block;
    let [gx, gy, gz] = cfg.grid;
    if bx == 0 || by == 0 || bz == 0 || gx == 0 || gy == 0 || gz == 0 {
        return Err(format!(
            "grid {:?} and block {:?} must not have a zero dimension",
            cfg.grid, cfg.block
        ));
    }
    // Saturating: [2^31, 2^31, 4] must not wrap to 0 threads and pass the limit.
    let nthreads = (bx as u64)
        .saturating_mul(by as u64)
        .saturating_mul(bz as u64);
    if nthreads > MAX_THREADS_PER_BLOCK as u64 || bz > 64 {
        return Err(format!(
            "block {:?} has {nthreads} threads; at most {MAX_THREADS_PER_BLOCK} (and z <= 64)",
            cfg.block
        ));
    }
    if gy > 65535 || gz > 65535 || gx > i32::MAX as u32 {
        return Err(format!(
            "grid {:?} exceeds (2^31-1, 65535, 65535)",
            cfg.grid
        ));
    }
    if let Some(r) = func.perf.reqntid {
        let r = [r[0], r[1].max(1), r[2].max(1)];
        if r != cfg.block {
            return Err(format!(
                "block {:?} differs from .reqntid {:?}",
                cfg.block, r
            ));
        }
    }
    if let Some(m) = func.perf.maxntid {
        let max = m[0].max(1) as u64 * m[1].max(1) as u64 * m[2].max(1) as u64;
        if nthreads > max {
            return Err(format!(
                "block of {nthreads} threads exceeds .maxntid {:?}",
                m
            ));
        }
    }
    let cluster = crate::runtime::cluster::shape(func, cfg)?;
    if cfg.cooperative && cluster != [1, 1, 1] {
        return Err(format!(
            "a cooperative launch with clusters of {cluster:?} CTAs (ptxjit runs cooperative grids of one-CTA clusters)"
        ));
    }
    // The window covers every offset the kernel can touch: its own static variables,
    // or the dynamic array at the module-wide `dyn_shared_offset`. The limit counts
    // what a GPU counts: the kernel's static bytes plus the dynamic bytes.
    let own_static = ir.kernel_shared_size(&func.name) as u64;
    let (shared_size, counted) = if cfg.shared_bytes > 0 {
        let dynamic = cfg.shared_bytes as u64;
        (ir.dyn_shared_offset as u64 + dynamic, own_static + dynamic)
    } else {
        (own_static, own_static)
    };
    if counted > MAX_SHARED_PER_BLOCK as u64 {
        return Err(format!(
            "{counted} bytes of shared memory per block exceed the limit of {MAX_SHARED_PER_BLOCK}"
        ));
    }
    Ok(Shape {
        nthreads,
        ncta: gx as u64 * gy as u64 * gz as u64,
        cluster,
        shared_size,
        cooperative: cfg.cooperative,
    })
}
