//! ptxjit: run NVIDIA PTX kernels on an x86-64 CPU.
pub mod check;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod ops;
pub mod parse;
pub mod runtime;
