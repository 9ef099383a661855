//! The warp ABI both backends run against, below them in the pipeline: the warp context
//! ([`ctx::WarpCtx`], status codes, checked memory access and faults), the region table
//! accesses are checked against, barriers (warp side), asynchronous copies and mbarriers,
//! special registers, atomics, the `printf`/`assert`/`malloc` built-ins, matrix operations,
//! call frames and split calls, and the sanitizers' shadow state and checks ([`sanitize`]).
//!
//! The interpreter and the JIT's helpers call the same functions here, so both report
//! the same faults and produce the same results. Nothing here knows which backend runs a
//! warp; the host side (devices, modules, launches, the CTA scheduler) is
//! [`crate::runtime`], which sits above the backends.

pub mod asyncop;
pub mod atomic;
pub mod barrier;
pub mod bulk;
pub mod call;
pub mod cdp;
pub mod cluster;
pub mod coverage;
pub mod ctx;
pub mod freelist;
pub mod graphcond;
pub mod gridsync;
pub mod heap;
pub mod matrix;
pub mod mipmap;
pub mod printf;
pub mod region;
pub mod sampler;
pub mod sanitize;
pub mod split;
pub mod sreg;
pub mod stack;
pub mod surface;
pub mod tensormap;
pub mod texcube;
pub mod texquery;
pub mod texture;
pub mod tma;
pub mod wgmma;

/// Addresses the runtime assigned to a module's variables, needed by both backends.
#[derive(Clone, Debug, Default)]
pub struct ModuleLayout {
    /// Host address of each `.global`/`.const` variable, indexed by `GlobalId`.
    pub global_addrs: crate::ir::IdxVec<crate::ir::GlobalId, u64>,
    /// The kernel coverage counters both backends count (`None`: not counted, and the
    /// JIT compiles no counting; see [`coverage`]).
    pub coverage: Option<std::sync::Arc<coverage::CoverageMap>>,
}
