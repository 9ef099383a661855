//! The helper ABI: every host function generated code calls, declared once.
//!
//! [`foreach_helper!`] lists each helper as `Variant = module::symbol(params) -> ret`
//! with its Cranelift parameter and return types; the one list generates the
//! [`Helper`] enum, the signatures the JIT declares ([`HELPERS`], [`declare`]) and the
//! function pointers registered with the JIT module ([`HelperDef::ptr`]), so the three
//! cannot disagree. The helpers themselves are in [`crate::jit::helpers`]; lowering
//! code calls them through [`crate::jit::translate::FuncTranslator::helper`].

use crate::jit::helpers::{
    asyncop, builtin, control, lanewise, matrix, memory, sanitize, texture, warp,
};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, Type as CType};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

/// Calls `$mac!` with the list of every helper: `Variant = module::function(params)
/// -> ret;` (Cranelift types; no `-> ret` for helpers that return nothing). The symbol
/// name is the function's name.
macro_rules! foreach_helper {
    ($mac:ident) => {
        $mac! {
            /// `ld`/`st` slow path: checked access for the active lanes.
            Access = memory::ptxjit_access(I64, I64, I32, I32, I64, I64) -> I32;
            /// `ld`/`st` slow path through an affine address: lane 0's address, stride.
            AccessAffine = memory::ptxjit_access_affine(I64, I64, I32, I32, I64, I64, I32, I64) -> I32;
            /// The instrumented variant's contiguous access: lane 0's address only.
            AccessRun = memory::ptxjit_access_run(I64, I64, I32, I32, I64, I64) -> I32;
            /// Region lookup of a coalesced access that missed its cached region.
            Region = memory::ptxjit_region(I64, I64, I64, I32, I32) -> I32;
            /// Lanes arrive at a barrier (non-blocking).
            BarArrive = control::ptxjit_bar_arrive(I64, I32, I64, I32, I32) -> I32;
            /// Suspends the warp until its barriers complete.
            BarWait = control::ptxjit_bar_wait(I64) -> I32;
            /// Lane-by-lane arithmetic through `ops::arith`.
            Arith = lanewise::ptxjit_arith(I64, I32, I64, I64, I64, I64);
            /// Lane-by-lane `cvt` through `ops::cvt`.
            Cvt = lanewise::ptxjit_cvt(I64, I32, I64, I64);
            /// Lane-by-lane special functions through `ops::float`.
            Sfu = lanewise::ptxjit_sfu(I64, I32, I64, I64);
            /// Lane-by-lane bit operations through `ops::int`.
            Bits = lanewise::ptxjit_bits(I64, I32, I64, I64, I64, I64, I64);
            /// Lane-by-lane video instructions through `ops::video`.
            Video = lanewise::ptxjit_video(I64, I32, I64, I64, I64, I64);
            /// Lane-by-lane comparisons through `ops::setp`.
            Setp = lanewise::ptxjit_setp(I64, I32, I64, I64, I64);
            /// A `brx.idx` index past its target list: stops the warp.
            BadBranch = control::ptxjit_bad_branch(I64, I32, I32, I32, I32) -> I32;
            /// Enters a callee: pushes its `.local` frame.
            CallPush = control::ptxjit_call_push(I64, I32, I32, I32, I32, I64, I64, I32) -> I32;
            /// Leaves a callee: pops its frame.
            CallPop = control::ptxjit_call_pop(I64, I32);
            /// Copies call-site `.param` bytes between frames.
            CallCopy = control::ptxjit_call_copy(I64, I32, I32, I32, I32, I32, I32);
            /// `--check-uniform` failed: stops the warp.
            NotUniform = control::ptxjit_not_uniform(I64, I32, I32);
            /// `nanosleep` of the active lanes.
            Nanosleep = control::ptxjit_nanosleep(I32, I64);
            /// Indirect call: the lanes of the lowest pending target.
            CallPick = control::ptxjit_call_pick(I64, I64, I32, I64) -> I64;
            /// Warp-wide instructions through `ops::warp`.
            Warp = warp::ptxjit_warp(I64, I32, I32, I64, I64, I64, I64, I64) -> I32;
            /// Atomics through `exec::atomic`.
            Atom = memory::ptxjit_atom(I64, I64, I32, I32, I64, I64, I64, I64) -> I32;
            /// Half-precision arithmetic through `ops::half`.
            Half = lanewise::ptxjit_half(I64, I32, I64, I64, I64, I64);
            /// `bar.arrive`: arrives without waiting.
            BarArriveNoWait = control::ptxjit_bar_arrive_nowait(I64, I32, I32, I32, I32) -> I32;
            /// `bar.red`: the warp's predicate bits for the next arrival.
            BarRedPending = control::ptxjit_bar_red_pending(I64, I32);
            /// `bar.red`: the result of the last completed barrier.
            BarRedResult = control::ptxjit_bar_red_result(I64, I32, I32) -> I32;
            /// `%clock`, `%clock64`, `%globaltimer`.
            Clock = control::ptxjit_clock(I64, I32) -> I64;
            /// `isspacep` for one lane.
            Isspacep = control::ptxjit_isspacep(I64, I32, I32, I64) -> I32;
            /// The watchdog fired: stops the warp.
            TimedOut = control::ptxjit_timed_out(I64, I32);
            /// Narrow-format `cvt` and `cvt.pack` through `ops::convert`.
            CvtX = lanewise::ptxjit_cvtx(I64, I32, I64, I64, I64, I64);
            /// `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync`, `wmma` through `exec::matrix`.
            Matrix = matrix::ptxjit_matrix(I64, I64, I32, I32, I32, I64, I64) -> I32;
            /// `cp.async`, `cp.async.bulk`, `mbarrier.*` through `exec::asyncop`.
            Async = asyncop::ptxjit_async(I64, I64, I32, I32, I32, I64) -> I32;
            /// `vprintf`, `__assertfail` through `exec::printf`.
            Builtin = builtin::ptxjit_builtin(I64, I64, I32, I32, I64) -> I32;
            /// `tex`, `tld4`, `suld`, `sust` through `exec::texture`.
            Texture = texture::ptxjit_texture(I64, I64, I32, I32, I64) -> I32;
            /// Starts a split call on a host stack of its own.
            CallSplit = control::ptxjit_call_split(I64, I64, I32) -> I64;
            /// Resumes the split calls of lanes parked at a resume block.
            CallResume = control::ptxjit_call_resume(I64, I32, I32) -> I64;
            /// A JIT invariant failed at run time: stops the warp.
            Internal = control::ptxjit_internal_error(I64, I32);
            /// Sanitizer variant: a warp-synchronous instruction's membermasks.
            SanWarp = sanitize::ptxjit_san_warp(I64, I32, I32, I32, I64) -> I32;
        }
    };
}

/// Generates [`Helper`] and [`HELPERS`] from the list.
macro_rules! define_helpers {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $module:ident :: $func:ident ($($param:ident),*) $(-> $ret:ident)?;
    )*) => {
        /// The helpers generated code can call.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum Helper {
            $($(#[$doc])* $variant,)*
        }

        /// Every helper with its symbol name, signature and address.
        pub(crate) const HELPERS: &[HelperDef] = &[
            $(HelperDef {
                h: Helper::$variant,
                name: stringify!($func),
                params: &[$($param),*],
                ret: define_helpers!(@ret $($ret)?),
                ptr: || $module::$func as *const u8,
            },)*
        ];
    };
    (@ret) => { None };
    (@ret $ret:ident) => { Some($ret) };
}

foreach_helper!(define_helpers);

/// One helper's symbol, Cranelift signature and host function.
pub(crate) struct HelperDef {
    pub h: Helper,
    pub name: &'static str,
    pub params: &'static [CType],
    pub ret: Option<CType>,
    ptr: fn() -> *const u8,
}

impl HelperDef {
    /// The host function's address.
    pub fn ptr(&self) -> *const u8 {
        (self.ptr)()
    }
}

/// The helpers declared (imported) in a Cranelift module.
pub(crate) struct HelperIds {
    ids: HashMap<Helper, cranelift_module::FuncId>,
}

impl HelperIds {
    pub fn get(&self, h: Helper) -> Option<cranelift_module::FuncId> {
        self.ids.get(&h).copied()
    }
}

/// Declares every helper as an import of `cm`.
pub(crate) fn declare(cm: &mut JITModule) -> Result<HelperIds, JitError> {
    let mut ids = HashMap::new();
    for h in HELPERS {
        let mut sig = cm.make_signature();
        sig.params
            .extend(h.params.iter().map(|&t| AbiParam::new(t)));
        if let Some(r) = h.ret {
            sig.returns.push(AbiParam::new(r));
        }
        let id = cm
            .declare_function(h.name, Linkage::Import, &sig)
            .map_err(|e| JitError::Codegen(format!("declare helper {}: {e}", h.name)))?;
        ids.insert(h.h, id);
    }
    Ok(HelperIds { ids })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_helper_once_with_a_distinct_symbol() {
        let mut names: Vec<_> = HELPERS.iter().map(|h| h.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HELPERS.len());
        let mut ptrs: Vec<_> = HELPERS.iter().map(|h| h.ptr() as usize).collect();
        ptrs.sort_unstable();
        ptrs.dedup();
        assert_eq!(ptrs.len(), HELPERS.len(), "two helpers share a function");
        assert!(HELPERS.iter().all(|h| h.name.starts_with("ptxjit_")));
    }
}
