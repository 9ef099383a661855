//! The host side of dynamic parallelism (see `crate::exec::cdp` for the device runtime's
//! entry points and the schedule): the device-wide parameter-buffer pool and
//! pending-launch limit (`CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT`), the per-grid
//! state a launch of a module that calls the device runtime gets, and the running of
//! each grid's children after it, depth first, so that a launch returns when the whole
//! tree of grids has completed. A child's failure fails the host's launch (as a GPU
//! reports a child's fault on the parent's stream); the error names the child kernel.

use crate::exec::cdp::{
    CdpDevice, CdpGrid, KernelSig, KernelSigs, DEFAULT_PENDING_LAUNCHES, PARAM_SLOT_BYTES,
};
use crate::exec::region::RegionKind;
use crate::ir::{self, FuncId, FuncKind};
use crate::runtime::device::{Device, LaunchConfig, Module};
use crate::runtime::error::{Error, Result};
use std::sync::Arc;

/// The device's pending-launch limit and, once a launch used the device runtime, its
/// state.
pub(crate) struct CdpSlot {
    limit: u64,
    dev: Option<Arc<CdpDevice>>,
}

impl Default for CdpSlot {
    fn default() -> CdpSlot {
        CdpSlot {
            limit: DEFAULT_PENDING_LAUNCHES,
            dev: None,
        }
    }
}

/// The parameter-buffer shape of each kernel of `ir`, by `FuncId` (`None` for
/// functions), when some function calls the device runtime; `None` otherwise.
pub(crate) fn kernel_sigs(ir: &ir::Module) -> Option<Arc<KernelSigs>> {
    let uses = ir.functions.iter().any(|f| {
        f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
            matches!(
                i.kind,
                ir::InstKind::Builtin {
                    op: ir::Builtin::Cdp(_),
                    ..
                }
            )
        })
    });
    uses.then(|| {
        Arc::new(
            ir.functions
                .iter()
                .map(|f| {
                    (f.kind == FuncKind::Entry && f.has_body()).then(|| KernelSig {
                        param_size: f.param_size,
                        param_align: f.params.iter().map(|p| p.align).max().unwrap_or(1),
                    })
                })
                .collect(),
        )
    })
}

impl Device {
    /// `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT`: how many device-side launches may be
    /// pending (launched and not completed) at once; 2048 unless set.
    pub fn pending_launch_limit(&self) -> u64 {
        self.cdp_slot().limit
    }

    /// Sets the pending-launch limit. As on a GPU, only before the first launch of a
    /// kernel that uses the device runtime; afterwards it is an error (0 is an error too).
    pub fn set_pending_launch_limit(&self, n: u64) -> Result<()> {
        let mut slot = self.cdp_slot();
        if slot.dev.is_some() || n == 0 {
            return Err(Error::Host(
                "the pending launch count limit must be nonzero and cannot change after a kernel has used the device runtime".into(),
            ));
        }
        slot.limit = n;
        Ok(())
    }

    fn cdp_slot(&self) -> std::sync::MutexGuard<'_, CdpSlot> {
        self.inner.cdp.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device-runtime state, made (one device allocation for the parameter-buffer
    /// pool) on first use.
    fn cdp_device(&self) -> Result<Arc<CdpDevice>> {
        let mut slot = self.cdp_slot();
        if let Some(d) = &slot.dev {
            return Ok(d.clone());
        }
        let size = slot.limit.saturating_mul(PARAM_SLOT_BYTES).min(1 << 30);
        let base = self.inner.mem.alloc(size, 256, RegionKind::Global)?;
        let d = Arc::new(CdpDevice::new(base, size, slot.limit));
        slot.dev = Some(d.clone());
        Ok(d)
    }

    /// Launches kernel `func_id` at nesting depth `depth` with the parameter bytes
    /// `params`, then the children it launched (and theirs), depth first.
    pub(crate) fn launch_tree(
        &self,
        module: &Module,
        func_id: FuncId,
        cfg: &LaunchConfig,
        params: &[u8],
        depth: u32,
    ) -> Result<()> {
        let grid = match &module.inner.cdp_kernels {
            Some(k) => {
                let mut g = CdpGrid::new(
                    self.cdp_device()?,
                    depth,
                    k.clone(),
                    self.malloc_heap_size(),
                );
                g.conditions = cfg.conditions.as_ref().map(|c| c.0.clone());
                Some(Arc::new(g))
            }
            None => None,
        };
        self.launch_grid(module, func_id, cfg, params, grid.clone())?;
        let Some(grid) = grid else {
            return Ok(());
        };
        for child in grid.take_children() {
            let ccfg = LaunchConfig {
                grid: child.grid,
                block: child.block,
                shared_bytes: child.shared_bytes,
                cooperative: false,
                ..cfg.clone()
            };
            self.launch_tree(module, child.func, &ccfg, &child.params, depth + 1)?;
        }
        Ok(())
    }
}
