//! The launch runtime: device memory, modules, kernels, launches and the CTA/warp
//! scheduler.

pub mod atomic;
pub mod call;
pub mod ctx;
pub mod device;
pub mod error;
pub mod launch;
pub mod matrix;
pub mod memory;
pub(crate) mod pool;
pub mod printf;
pub mod split;
pub mod sreg;
pub(crate) mod watchdog;

/// Addresses the runtime assigned to a module's variables, needed by both backends.
#[derive(Clone, Debug, Default)]
pub struct ModuleLayout {
    /// Host address of each `.global`/`.const` variable, indexed by `GlobalId`.
    pub global_addrs: Vec<u64>,
}
