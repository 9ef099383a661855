//! The helper ABI: every host function generated code calls, declared once.
//!
//! [`foreach_helper!`] lists each helper as `Variant = module::symbol(params) -> ret`
//! with its Cranelift parameter and return types; the one list generates the
//! [`Helper`] enum, the signatures the JIT declares ([`HELPERS`], [`declare`]) and the
//! function pointers registered with the JIT module ([`HelperDef::ptr`]), so the three
//! cannot disagree. The helpers themselves are in [`crate::jit::helpers`]; lowering
//! code calls them through [`crate::jit::translate::FuncTranslator::helper`].
//!
//! Helpers marked `cold` in the list (the slow paths of memory accesses) are called
//! through a trampoline with Cranelift's `preserve_all` convention, compiled into the
//! module on first use ([`HelperIds::get`]): a SystemV call clobbers every xmm register,
//! so the register allocator would spill every vector live across the call, and as it
//! splits live ranges per value, not per path, the spills and reloads land on the fast
//! path too. The trampoline saves what the helper may clobber only when it runs. A
//! `preserve_all` function returns nothing, so the trampoline takes one more parameter,
//! a pointer where it stores the helper's result ([`cold_signature`]).

use crate::jit::helpers::{
    asyncop, builtin, control, lanewise, matrix, memory, sanitize, texture, warp,
};
use crate::jit::JitError;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, Type as CType};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncOrDataId, Linkage, Module as _};
use std::collections::HashMap;

/// Calls `$mac!` with the list of every helper: `Variant = module::function(params)
/// -> ret;` (Cranelift types; no `-> ret` for helpers that return nothing; `, cold`
/// after it for a helper called through a `preserve_all` trampoline). The symbol name
/// is the function's name.
macro_rules! foreach_helper {
    ($mac:ident) => {
        $mac! {
            /// `ld`/`st` slow path: checked access for the active lanes.
            Access = memory::ptxjit_access(I64, I64, I32, I32, I64, I64) -> I32, cold;
            /// The instrumented variant's contiguous access: lane 0's address only.
            AccessRun = memory::ptxjit_access_run(I64, I64, I32, I32, I64, I64) -> I32;
            /// Region lookup of a coalesced access that missed its cached region.
            Region = memory::ptxjit_region(I64, I64, I64, I32, I32) -> I32, cold;
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
        $variant:ident = $module:ident :: $func:ident ($($param:ident),*) $(-> $ret:ident)?
            $(, $cold:ident)?;
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
                cold: define_helpers!(@cold $($cold)?),
                ptr: || $module::$func as *const u8,
            },)*
        ];
    };
    (@ret) => { None };
    (@ret $ret:ident) => { Some($ret) };
    (@cold) => { false };
    (@cold cold) => { true };
}

foreach_helper!(define_helpers);

/// One helper's symbol, Cranelift signature and host function.
pub(crate) struct HelperDef {
    pub h: Helper,
    pub name: &'static str,
    pub params: &'static [CType],
    pub ret: Option<CType>,
    /// Called through a `preserve_all` trampoline (see the module doc).
    pub cold: bool,
    ptr: fn() -> *const u8,
}

impl HelperDef {
    /// The host function's address.
    pub fn ptr(&self) -> *const u8 {
        (self.ptr)()
    }

    /// The host function's signature (the module's default convention, SystemV).
    fn signature(&self, cm: &JITModule) -> Signature {
        let mut sig = cm.make_signature();
        sig.params
            .extend(self.params.iter().map(|&t| AbiParam::new(t)));
        if let Some(r) = self.ret {
            sig.returns.push(AbiParam::new(r));
        }
        sig
    }

    /// The symbol of the `preserve_all` trampoline of a `cold` helper.
    fn cold_name(&self) -> String {
        format!("{}_cold", self.name)
    }
}

/// The signature generated code calls a `cold` helper with: its trampoline's, the
/// helper's parameters then (when the helper returns a value) a pointer to 8 bytes
/// where the trampoline stores that value, `preserve_all`, nothing returned.
pub(crate) fn cold_signature(h: Helper) -> Option<Signature> {
    let d = HELPERS.iter().find(|d| d.h == h && d.cold)?;
    let mut sig = Signature::new(CallConv::PreserveAll);
    sig.params
        .extend(d.params.iter().map(|&t| AbiParam::new(t)));
    if d.ret.is_some() {
        sig.params.push(AbiParam::new(I64));
    }
    Some(sig)
}

/// The type of the value a `cold` helper's trampoline stores through its last
/// parameter (`None`: the helper returns nothing, or is not `cold`).
pub(crate) fn cold_result(h: Helper) -> Option<CType> {
    HELPERS.iter().find(|d| d.h == h && d.cold)?.ret
}

/// The helpers declared (imported) in a Cranelift module.
pub(crate) struct HelperIds {
    ids: HashMap<Helper, cranelift_module::FuncId>,
}

impl HelperIds {
    /// The function generated code calls for helper `h`: the helper itself, or for a
    /// `cold` one its trampoline ([`cold_signature`]), compiled into `cm` on first use.
    pub fn get(&self, h: Helper, cm: &mut JITModule) -> Result<cranelift_module::FuncId, JitError> {
        let id = self.ids.get(&h).copied();
        let id = id.ok_or_else(|| JitError::Codegen(format!("helper {h:?} not declared")))?;
        match HELPERS.iter().find(|d| d.h == h) {
            Some(d) if d.cold => cold_trampoline(cm, d, id),
            _ => Ok(id),
        }
    }
}

/// Declares every helper as an import of `cm`.
pub(crate) fn declare(cm: &mut JITModule) -> Result<HelperIds, JitError> {
    let mut ids = HashMap::new();
    for h in HELPERS {
        let sig = h.signature(cm);
        let id = cm
            .declare_function(h.name, Linkage::Import, &sig)
            .map_err(|e| JitError::Codegen(format!("declare helper {}: {e}", h.name)))?;
        ids.insert(h.h, id);
    }
    Ok(HelperIds { ids })
}

/// The `preserve_all` trampoline of cold helper `d` (imported as `host`) in `cm`:
/// declared and defined together the first time, so a declared one is defined. Its
/// body calls the helper with its own parameters and stores the result (a `cold`
/// helper returns at most one value) through its last parameter; its prologue saves
/// every register the SystemV call clobbers.
fn cold_trampoline(
    cm: &mut JITModule,
    d: &HelperDef,
    host: cranelift_module::FuncId,
) -> Result<cranelift_module::FuncId, JitError> {
    let name = d.cold_name();
    if let Some(FuncOrDataId::Func(id)) = cm.get_name(&name) {
        return Ok(id);
    }
    let err = |e: String| JitError::Codegen(format!("trampoline {name}: {e}"));
    let sig = cold_signature(d.h).ok_or_else(|| err("not a cold helper".into()))?;
    let id = cm
        .declare_function(&name, Linkage::Local, &sig)
        .map_err(|e| err(e.to_string()))?;
    let mut cctx = cm.make_context();
    cctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut cctx.func, &mut fctx);
        let host_ref = cm.declare_func_in_func(host, b.func);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let params = b.block_params(entry).to_vec();
        let n = d.params.len();
        let call = b.ins().call(host_ref, &params[..n]);
        if let (Some(&r), Some(&out)) = (b.inst_results(call).first(), params.get(n)) {
            b.ins().store(MemFlagsData::new().with_notrap(), r, out, 0);
        }
        b.ins().return_(&[]);
        b.finalize(cm.target_config());
    }
    // A Cranelift panic is a JIT bug: an error, not a crash (as `compile::guard`).
    let defined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cm.define_function(id, &mut cctx)
    }));
    match defined {
        Ok(Ok(())) => Ok(id),
        Ok(Err(e)) => Err(err(e.to_string())),
        Err(_) => Err(err("define_function panicked".into())),
    }
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
