//! IR -> Cranelift -> native code. A warp's 32 lanes live in SIMD vectors
//! (8 x i32x4 for 32-bit registers, 16 x i64x2 for 64-bit ones, 8 x i32x4 lane masks for
//! predicates); divergence is handled with per-lane next-block numbers (DESIGN.md).
//!
//! Placeholder interface until the JIT branch lands.

use crate::ir::{FuncId, Module};
use crate::runtime::ctx::WarpCtx;
use crate::runtime::ModuleLayout;

pub type KernelFn = unsafe extern "C" fn(ctx: *mut WarpCtx) -> u32;

pub struct JitModule;

#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("{0}")]
    Codegen(String),
}

impl JitModule {
    pub fn compile(_m: &Module, _layout: &ModuleLayout) -> Result<JitModule, JitError> {
        Err(JitError::Codegen(
            "the JIT backend is not available in this build".into(),
        ))
    }
    pub fn kernel(&self, _f: FuncId) -> Option<KernelFn> {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpKind {
    Clif,
    Asm,
}

pub fn dump(
    _m: &Module,
    _layout: &ModuleLayout,
    _kernel: Option<&str>,
    _kind: DumpKind,
) -> Result<String, JitError> {
    Err(JitError::Codegen(
        "the JIT backend is not available in this build".into(),
    ))
}
