//! ptxjit: run NVIDIA PTX kernels on an x86-64 CPU.
pub mod check;
pub mod ir;
pub mod parse;
pub mod runtime;
pub mod interp;
pub mod jit;
pub mod ops;
