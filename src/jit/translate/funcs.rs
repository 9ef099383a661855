//! The functions of a module as declared in one Cranelift module: every `.func` with a
//! body is a Cranelift function `(ctx: *mut WarpCtx, mask: u32) -> u32` (see
//! `control::call` for the calling convention), and the data the code of calls points to.

use crate::ir;
use crate::ir::FuncId;
use crate::jit::helpers::control::IndirectSite;
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, Signature};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

/// The callable functions of a module as declared in one Cranelift module, and the data
/// the code of calls points to (it must live as long as the code).
pub(crate) struct CallEnv {
    pub funcs: HashMap<FuncId, cranelift_module::FuncId>,
    /// The indirect call sites of the code (the code points to them: boxed so that
    /// their addresses stay put).
    #[allow(clippy::vec_box)]
    pub sites: std::sync::Mutex<Vec<Box<IndirectSite>>>,
    /// Callee and call-site texts of the calls (for `ptxjit_call_push` errors).
    pub texts: std::sync::Mutex<Vec<Box<str>>>,
}

pub(crate) fn func_signature(cm: &JITModule) -> Signature {
    let mut sig = cm.make_signature();
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I32));
    sig.returns.push(AbiParam::new(I32));
    sig
}

/// Declares every `.func` with a body of `m` in `cm`.
pub(crate) fn declare_funcs(cm: &mut JITModule, m: &ir::Module) -> Result<CallEnv, JitError> {
    let mut funcs = HashMap::new();
    let sig = func_signature(cm);
    for (i, f) in m.functions.iter().enumerate() {
        if f.kind == ir::FuncKind::Func && f.has_body() {
            let id = cm
                .declare_function(&format!("ptxjit_func_{i}_{}", f.name), Linkage::Local, &sig)
                .map_err(|e| JitError::Codegen(format!("declare function: {e}")))?;
            funcs.insert(FuncId(i as u32), id);
        }
    }
    Ok(CallEnv {
        funcs,
        sites: std::sync::Mutex::new(Vec::new()),
        texts: std::sync::Mutex::new(Vec::new()),
    })
}
