//! Lowering of instructions to Cranelift, one file per instruction family (methods of
//! the translator, [`crate::jit::translate::FuncTranslator`], which dispatches to them).
//! Each family is inline vector code where Cranelift computes the exact PTX result, and
//! a call of a host helper ([`crate::jit::abi`]) applying the interpreter's scalar
//! semantics lane by lane otherwise.

pub(crate) mod arith;
pub(crate) mod atomic;
pub(crate) mod bits;
pub(crate) mod builtin;
pub(crate) mod carry;
pub(crate) mod compare;
pub(crate) mod convert;
pub(crate) mod convert_half;
pub(crate) mod cvtx;
pub(crate) mod float;
pub(crate) mod half;
pub(crate) mod int;
pub(crate) mod matrix;
pub(crate) mod memory;
pub(crate) mod minmax;
pub(crate) mod misc;
pub(crate) mod sfu;
pub(crate) mod warp;
