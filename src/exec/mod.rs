//! The warp ABI both backends run against, below them in the pipeline: the warp context
//! ([`ctx::WarpCtx`], status codes, checked memory access and faults), the region table
//! accesses are checked against, barriers (warp side), special registers, atomics, the
//! `printf`/`assert`/`malloc` built-ins, matrix operations, call frames and split calls.
//!
//! The interpreter and the JIT's helpers call the same functions here, so both report
//! the same faults and produce the same results. Nothing here knows which backend runs a
//! warp; the host side (devices, modules, launches, the CTA scheduler) is
//! [`crate::runtime`], which sits above the backends.

pub mod atomic;
pub mod barrier;
pub mod call;
pub mod ctx;
pub mod heap;
pub mod matrix;
pub mod printf;
pub mod region;
pub mod split;
pub mod sreg;
pub mod surface;
pub mod texture;

/// Addresses the runtime assigned to a module's variables, needed by both backends.
#[derive(Clone, Debug, Default)]
pub struct ModuleLayout {
    /// Host address of each `.global`/`.const` variable, indexed by `GlobalId`.
    pub global_addrs: Vec<u64>,
}
