//! Lowering of instructions to Cranelift, one file per instruction family (methods of
//! the translator, [`crate::jit::translate::FuncTranslator`], which dispatches to them).
//! Each family is inline vector code where Cranelift computes the exact PTX result, and
//! a call of a host helper ([`crate::jit::abi`]) applying the interpreter's scalar
//! semantics lane by lane otherwise.

pub(crate) mod affine;
pub(crate) mod asyncop;
pub(crate) mod atomic;
pub(crate) mod atomic_combine;
pub(crate) mod atomic_inline;
pub(crate) mod atomic_range;
pub(crate) mod carry;
pub(crate) mod compare;
pub(crate) mod convert;
pub(crate) mod data;
pub(crate) mod float;
pub(crate) mod half;
pub(crate) mod int;
pub(crate) mod logic;
pub(crate) mod matrix;
pub(crate) mod mem;
mod mem_ahead;
mod mem_fast;
mod mem_gather;
mod mem_halves;
mod mem_local;
mod mem_quick;
mod mem_slow;
pub(crate) mod mem_uniform;
pub(crate) mod misc;
mod nan_store;
pub(crate) mod sanitize;
pub(crate) mod scalar;
pub(crate) mod sfu;
pub(crate) mod sync;
pub(crate) mod texture;
pub(crate) mod video;
pub(crate) mod warp;
