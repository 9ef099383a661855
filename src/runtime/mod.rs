//! The host side, above both backends: devices and their memory, modules (check, layout,
//! JIT compilation), launches, the CTA/warp scheduler and its worker pool, the watchdog,
//! and the errors users see. What a running warp calls is [`crate::exec`].

pub(crate) mod cdp;
pub(crate) mod cluster;
pub mod device;
pub mod error;
pub mod launch;
pub mod memory;
pub mod mipmap;
pub(crate) mod pool;
pub mod sanitize;
pub(crate) mod schedule;
pub mod tensormap;
pub mod texture;
pub(crate) mod watchdog;
