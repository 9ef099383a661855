//! ptxjit: run NVIDIA PTX kernels on an x86-64 CPU.
pub mod check;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod ops;
pub mod parse;
pub mod runtime;

pub use parse::PtxError;
pub use runtime::ctx::FaultKind;
pub use runtime::device::{
    Backend, Buffer, Device, DeviceCopy, DeviceOptions, Dim3, KernelArg, LaunchConfig, Module,
};
pub use runtime::error::{Error, Fault, Result};
