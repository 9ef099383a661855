//! `extern "C"` host helpers called by generated code, and the encodings of their
//! arguments.
//!
//! Memory and barriers go through `exec::ctx::access` / `exec::barrier` so both backends
//! behave identically. Operations Cranelift cannot do exactly in vectors are applied lane
//! by lane with the same scalar semantics the interpreter uses (`crate::ops`), one call
//! per warp-wide instruction: operands are passed in stack slots of 32 lanes (4 bytes per
//! lane for 32-bit containers, 8 bytes for 64-bit ones).
//!
//! Helpers never unwind: they return a status (nonzero = stop the warp) where something
//! can fail, and decode errors of their descriptors (which the JIT builds) do nothing.

use crate::exec::barrier;
use crate::exec::ctx::{self, AccessReq, WarpCtx, STATUS_FAULT, STATUS_OK, WARP_SIZE};
use crate::ir::{ArithOp, CmpOp, DivMode, FloatMode, InstId, MulMode, Rnd, Type};
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{AbiParam, Type as CType};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

use super::JitError;

/// The helpers generated code can call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Helper {
    Access,
    Region,
    BarArrive,
    BarWait,
    Arith,
    Cvt,
    Setp,
    Bits,
    Sfu,
    BadBranch,
    CallPush,
    CallPop,
    CallCopy,
    Nanosleep,
    NotUniform,
    CallPick,
    Warp,
    Atom,
    BarArriveNoWait,
    BarRedPending,
    BarRedResult,
    TimedOut,
    Half,
    Clock,
    Isspacep,
    CvtX,
    Matrix,
    Builtin,
    CallSplit,
    CallResume,
    Internal,
}

pub(crate) struct HelperDef {
    pub h: Helper,
    pub name: &'static str,
    pub params: &'static [CType],
    pub ret: Option<CType>,
}

/// Every helper with its symbol name and signature.
pub(crate) const HELPERS: &[HelperDef] = &[
    HelperDef {
        h: Helper::Access,
        name: "ptxjit_access",
        params: &[I64, I64, I32, I32, I64, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Region,
        name: "ptxjit_region",
        params: &[I64, I64, I64, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::BarArrive,
        name: "ptxjit_bar_arrive",
        params: &[I64, I32, I64, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::BarWait,
        name: "ptxjit_bar_wait",
        params: &[I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Arith,
        name: "ptxjit_arith",
        params: &[I64, I32, I64, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Cvt,
        name: "ptxjit_cvt",
        params: &[I64, I32, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Sfu,
        name: "ptxjit_sfu",
        params: &[I64, I32, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Bits,
        name: "ptxjit_bits",
        params: &[I64, I32, I64, I64, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Setp,
        name: "ptxjit_setp",
        params: &[I64, I32, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::BadBranch,
        name: "ptxjit_bad_branch",
        params: &[I64, I32, I32, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::CallPush,
        name: "ptxjit_call_push",
        params: &[I64, I32, I32, I32, I32, I64, I64, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::CallPop,
        name: "ptxjit_call_pop",
        params: &[I64, I32],
        ret: None,
    },
    HelperDef {
        h: Helper::CallCopy,
        name: "ptxjit_call_copy",
        params: &[I64, I32, I32, I32, I32, I32, I32],
        ret: None,
    },
    HelperDef {
        h: Helper::NotUniform,
        name: "ptxjit_not_uniform",
        params: &[I64, I32, I32],
        ret: None,
    },
    HelperDef {
        h: Helper::Nanosleep,
        name: "ptxjit_nanosleep",
        params: &[I32, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::CallPick,
        name: "ptxjit_call_pick",
        params: &[I64, I64, I32, I64],
        ret: Some(I64),
    },
    HelperDef {
        h: Helper::Warp,
        name: "ptxjit_warp",
        params: &[I64, I32, I32, I64, I64, I64, I64, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Atom,
        name: "ptxjit_atom",
        params: &[I64, I64, I32, I32, I64, I64, I64, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Half,
        name: "ptxjit_half",
        params: &[I64, I32, I64, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::BarArriveNoWait,
        name: "ptxjit_bar_arrive_nowait",
        params: &[I64, I32, I32, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::BarRedPending,
        name: "ptxjit_bar_red_pending",
        params: &[I64, I32],
        ret: None,
    },
    HelperDef {
        h: Helper::BarRedResult,
        name: "ptxjit_bar_red_result",
        params: &[I64, I32, I32],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Clock,
        name: "ptxjit_clock",
        params: &[I64, I32],
        ret: Some(I64),
    },
    HelperDef {
        h: Helper::Isspacep,
        name: "ptxjit_isspacep",
        params: &[I64, I32, I32, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::TimedOut,
        name: "ptxjit_timed_out",
        params: &[I64, I32],
        ret: None,
    },
    HelperDef {
        h: Helper::CvtX,
        name: "ptxjit_cvtx",
        params: &[I64, I32, I64, I64, I64, I64],
        ret: None,
    },
    HelperDef {
        h: Helper::Matrix,
        name: "ptxjit_matrix",
        params: &[I64, I64, I32, I32, I32, I64, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::Builtin,
        name: "ptxjit_builtin",
        params: &[I64, I64, I32, I32, I64],
        ret: Some(I32),
    },
    HelperDef {
        h: Helper::CallSplit,
        name: "ptxjit_call_split",
        params: &[I64, I64, I32],
        ret: Some(I64),
    },
    HelperDef {
        h: Helper::CallResume,
        name: "ptxjit_call_resume",
        params: &[I64, I32, I32],
        ret: Some(I64),
    },
    HelperDef {
        h: Helper::Internal,
        name: "ptxjit_internal_error",
        params: &[I64, I32],
        ret: None,
    },
];

impl HelperDef {
    pub fn ptr(&self) -> *const u8 {
        match self.h {
            Helper::Access => ptxjit_access as *const u8,
            Helper::Region => ptxjit_region as *const u8,
            Helper::BarArrive => ptxjit_bar_arrive as *const u8,
            Helper::BarWait => ptxjit_bar_wait as *const u8,
            Helper::Arith => ptxjit_arith as *const u8,
            Helper::Cvt => ptxjit_cvt as *const u8,
            Helper::Setp => ptxjit_setp as *const u8,
            Helper::Bits => ptxjit_bits as *const u8,
            Helper::Sfu => ptxjit_sfu as *const u8,
            Helper::BadBranch => super::cflow::ptxjit_bad_branch as *const u8,
            Helper::CallPush => super::call::ptxjit_call_push as *const u8,
            Helper::CallPop => super::call::ptxjit_call_pop as *const u8,
            Helper::CallCopy => super::call::ptxjit_call_copy as *const u8,
            Helper::Nanosleep => super::cflow::ptxjit_nanosleep as *const u8,
            Helper::NotUniform => ptxjit_not_uniform as *const u8,
            Helper::CallPick => super::call::ptxjit_call_pick as *const u8,
            Helper::Warp => super::warp::ptxjit_warp as *const u8,
            Helper::Atom => super::atom::ptxjit_atom as *const u8,
            Helper::BarArriveNoWait => super::barrier::ptxjit_bar_arrive_nowait as *const u8,
            Helper::BarRedPending => super::barrier::ptxjit_bar_red_pending as *const u8,
            Helper::BarRedResult => super::barrier::ptxjit_bar_red_result as *const u8,
            Helper::TimedOut => super::watchdog::ptxjit_timed_out as *const u8,
            Helper::Half => super::half::ptxjit_half as *const u8,
            Helper::Clock => super::sreg::ptxjit_clock as *const u8,
            Helper::Isspacep => super::sreg::ptxjit_isspacep as *const u8,
            Helper::CvtX => super::cvtx::ptxjit_cvtx as *const u8,
            Helper::Matrix => super::matrix::ptxjit_matrix as *const u8,
            Helper::Builtin => super::builtin::ptxjit_builtin as *const u8,
            Helper::CallSplit => super::split::ptxjit_call_split as *const u8,
            Helper::CallResume => super::split::ptxjit_call_resume as *const u8,
            Helper::Internal => super::divmode::ptxjit_internal_error as *const u8,
        }
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

// ---------------------------------------------------------------------------------------
// Descriptor encodings.

const TYPES: [Type; 20] = [
    Type::Pred,
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F16,
    Type::F16x2,
    Type::BF16,
    Type::BF16x2,
    Type::F32,
    Type::F64,
];

pub(crate) fn type_code(t: Type) -> u64 {
    TYPES.iter().position(|&x| x == t).unwrap_or(0) as u64
}

fn type_from(c: u64) -> Option<Type> {
    TYPES.get(c as usize).copied()
}

const RNDS: [Rnd; 8] = [
    Rnd::Rn,
    Rnd::Rz,
    Rnd::Rm,
    Rnd::Rp,
    Rnd::Rni,
    Rnd::Rzi,
    Rnd::Rmi,
    Rnd::Rpi,
];

fn rnd_code(r: Option<Rnd>) -> u64 {
    match r {
        None => 0,
        Some(r) => RNDS
            .iter()
            .position(|&x| x == r)
            .map_or(0, |i| i as u64 + 1),
    }
}

fn rnd_from(c: u64) -> Option<Rnd> {
    if c == 0 {
        None
    } else {
        RNDS.get(c as usize - 1).copied()
    }
}

fn arith_code(op: ArithOp) -> u64 {
    use ArithOp::*;
    let mm = |m: MulMode| match m {
        MulMode::Lo => 0,
        MulMode::Hi => 1,
        MulMode::Wide => 2,
    };
    match op {
        Add => 0,
        Sub => 1,
        Mul(m) => 2 + mm(m),
        Mad(m) => 5 + mm(m),
        Fma => 8,
        Div(DivMode::Ieee) => 9,
        Div(DivMode::Full) => 10,
        Div(DivMode::Approx) => 11,
        Rem => 12,
        Min => 13,
        Max => 14,
        Neg => 15,
        Abs => 16,
        And => 17,
        Or => 18,
        Xor => 19,
        Not => 20,
        Shl => 21,
        Shr => 22,
    }
}

fn arith_from(c: u64) -> Option<ArithOp> {
    use ArithOp::*;
    const MM: [MulMode; 3] = [MulMode::Lo, MulMode::Hi, MulMode::Wide];
    Some(match c {
        0 => Add,
        1 => Sub,
        2..=4 => Mul(MM[c as usize - 2]),
        5..=7 => Mad(MM[c as usize - 5]),
        8 => Fma,
        9 => Div(DivMode::Ieee),
        10 => Div(DivMode::Full),
        11 => Div(DivMode::Approx),
        12 => Rem,
        13 => Min,
        14 => Max,
        15 => Neg,
        16 => Abs,
        17 => And,
        18 => Or,
        19 => Xor,
        20 => Not,
        21 => Shl,
        22 => Shr,
        _ => return None,
    })
}

const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

/// Descriptor of an `arith` helper call.
pub(crate) fn arith_desc(op: ArithOp, ty: Type, fm: FloatMode) -> u64 {
    arith_code(op)
        | type_code(ty) << 8
        | rnd_code(fm.rnd) << 16
        | (fm.ftz as u64) << 20
        | (fm.sat as u64) << 21
}

/// Descriptor of a `cvt` helper call.
pub(crate) fn cvt_desc(dst: Type, src: Type, rnd: Option<Rnd>, ftz: bool, sat: bool) -> u64 {
    type_code(dst)
        | type_code(src) << 8
        | rnd_code(rnd) << 16
        | (ftz as u64) << 20
        | (sat as u64) << 21
}

/// Descriptor of a `setp` helper call.
pub(crate) fn setp_desc(cmp: CmpOp, ty: Type, ftz: bool) -> u64 {
    CMPS.iter().position(|&c| c == cmp).unwrap_or(0) as u64
        | type_code(ty) << 8
        | (ftz as u64) << 20
}

/// Bytes per lane in a helper operand slot for a value of type `t`.
pub(crate) fn slot_bytes(t: Type) -> usize {
    if t.bits() > 32 {
        8
    } else {
        4
    }
}

/// The operand and result types of an arithmetic helper call: (a, b, c, out).
pub(crate) fn arith_types(op: ArithOp, ty: Type) -> (Type, Type, Type, Type) {
    let wide = ty.widened().unwrap_or(ty);
    match op {
        ArithOp::Shl | ArithOp::Shr => (ty, Type::U32, ty, ty),
        ArithOp::Mul(MulMode::Wide) => (ty, ty, ty, wide),
        ArithOp::Mad(MulMode::Wide) => (ty, ty, wide, wide),
        _ => (ty, ty, ty, ty),
    }
}

// ---------------------------------------------------------------------------------------
// Scalar semantics: the interpreter's, from `crate::ops`.

use crate::ops::{arith as scalar_arith, cvt as scalar_cvt, setp as scalar_setp};

#[inline]
fn mask_bits(bits: u32) -> u64 {
    crate::ops::mask(bits.clamp(1, 64))
}

/// The canonical NaN a GPU float operation returns (f32 or f64 bits).
pub(crate) fn canonical_nan(bits: u32) -> u64 {
    crate::ops::canonical_nan(bits)
}

/// Whether `crate::ops` implements `op` on `ty` (half-precision arithmetic is not).
pub(crate) fn scalar_arith_supported(_op: ArithOp, ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F64) || ty.is_int() || ty.is_bits() && ty.bits() <= 64
}

/// Whether `crate::ops` implements this `cvt` (no packed `x2` types).
pub(crate) fn scalar_cvt_supported(dst: Type, src: Type) -> bool {
    let ok = |t: Type| {
        t.is_int()
            || t.is_bits() && t.bits() <= 64
            || matches!(t, Type::F16 | Type::BF16 | Type::F32 | Type::F64)
    };
    ok(dst) && ok(src)
}

// ---------------------------------------------------------------------------------------
// Per-thread counts of helper calls (tests and profiling use them to see which path ran).

/// How many times JIT code on the current thread called each slow-path helper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HelperCalls {
    /// `ld`/`st` slow paths (`ptxjit_access`).
    pub access: u64,
    /// Region lookups of coalesced accesses that missed their cached region
    /// (`ptxjit_region`).
    pub region: u64,
    /// Lane-by-lane arithmetic (`ptxjit_arith`).
    pub arith: u64,
    /// Lane-by-lane conversions (`ptxjit_cvt`).
    pub cvt: u64,
    /// Lane-by-lane comparisons (`ptxjit_setp`).
    pub setp: u64,
}

thread_local! {
    static CALLS: std::cell::Cell<HelperCalls> = const { std::cell::Cell::new(HelperCalls { access: 0, region: 0, arith: 0, cvt: 0, setp: 0 }) };
}

fn count(f: impl FnOnce(&mut HelperCalls)) {
    CALLS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

/// The helper-call counts of the current thread since it started.
pub fn helper_calls() -> HelperCalls {
    CALLS.with(|c| c.get())
}

// ---------------------------------------------------------------------------------------
// The helpers.

/// Reads lane `lane` of a slot array of `sb`-byte slots, masked to `bits`.
///
/// # Safety
/// `p` must be valid for `32 * sb` bytes.
#[inline]
pub(crate) unsafe fn rd(p: *const u8, lane: usize, sb: usize, bits: u32) -> u64 {
    let v = unsafe {
        if sb == 8 {
            (p as *const u64).add(lane).read_unaligned()
        } else {
            (p as *const u32).add(lane).read_unaligned() as u64
        }
    };
    v & mask_bits(bits)
}

/// # Safety
/// `p` must be valid for `32 * sb` bytes.
#[inline]
pub(crate) unsafe fn wr(p: *mut u8, lane: usize, sb: usize, v: u64) {
    unsafe {
        if sb == 8 {
            (p as *mut u64).add(lane).write_unaligned(v)
        } else {
            (p as *mut u32).add(lane).write_unaligned(v as u32)
        }
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask >> l & 1 != 0)
}

/// `ld`/`st` slow path: `exec::ctx::access` for the lanes in `mask`. Returns 0, or the
/// warp's (nonzero) status after a fault.
///
/// # Safety
/// `ctx` must be the running warp's context (with a valid `env`), `addrs` 32 u64 lane
/// addresses, `data` the slots described by `shape`.
pub unsafe extern "C" fn ptxjit_access(
    ctx: *mut WarpCtx,
    shape: u64,
    mask: u32,
    inst: u32,
    addrs: *const u64,
    data: *mut u8,
) -> u32 {
    count(|c| c.access += 1);
    let ctx = unsafe { &mut *ctx };
    let Some(req) = AccessReq::unpack_shape(shape, mask, InstId(inst)) else {
        ctx.status = STATUS_FAULT;
        return ctx.status;
    };
    let addrs = unsafe { &*(addrs as *const [u64; WARP_SIZE]) };
    match unsafe { ctx::access(ctx, &req, addrs, data) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Whether `[addr, addr+len)` lies inside one region (a writable one if `write != 0`);
/// if so, stores the region in instruction `inst`'s entry of the per-instruction region
/// cache (as `access` does) and returns 1, otherwise 0.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env` (and an `inst_cache` of
/// `inst_cache_len` entries).
pub unsafe extern "C" fn ptxjit_region(
    ctx: *mut WarpCtx,
    addr: u64,
    len: u64,
    write: u32,
    inst: u32,
) -> u32 {
    count(|c| c.region += 1);
    let ctx = unsafe { &mut *ctx };
    if ctx.env.is_null() {
        return 0;
    }
    let env = unsafe { &*ctx.env };
    match env.regions.find(addr, len) {
        Some(r) if write == 0 || r.writable => {
            if (inst as u64) < ctx.inst_cache_len && !ctx.inst_cache.is_null() {
                // SAFETY: inst_cache holds inst_cache_len entries (runtime contract).
                unsafe { *ctx.inst_cache.add(inst as usize) = [r.lo, r.hi] };
            }
            1
        }
        _ => 0,
    }
}

/// Lanes `mask` arrive at barrier `id` (`count == u64::MAX`: no count); non-blocking.
/// Returns 0, or the warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_arrive`.
pub unsafe extern "C" fn ptxjit_bar_arrive(
    ctx: *mut WarpCtx,
    id: u32,
    count: u64,
    mask: u32,
    inst: u32,
) -> u32 {
    let ctx = unsafe { &mut *ctx };
    let count = if count == u64::MAX {
        None
    } else {
        Some(count as u32)
    };
    match unsafe { barrier::bar_arrive(ctx, id, count, mask, InstId(inst)) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// Suspends the warp until the barriers its lanes arrived at complete. Returns 0, or the
/// warp's nonzero status.
///
/// # Safety
/// As `exec::ctx::bar_wait`.
pub unsafe extern "C" fn ptxjit_bar_wait(ctx: *mut WarpCtx) -> u32 {
    let ctx = unsafe { &mut *ctx };
    match unsafe { barrier::bar_wait(ctx) } {
        Ok(()) => STATUS_OK,
        Err(_) => ctx.status.max(STATUS_FAULT),
    }
}

/// `out[l] = arith(op, ty, fm, a[l], b[l], c[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the types `arith_types` gives.
pub unsafe extern "C" fn ptxjit_arith(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    out: *mut u8,
) {
    count(|c| c.arith += 1);
    let (Some(op), Some(ty)) = (arith_from(desc & 0xff), type_from(desc >> 8 & 0xff)) else {
        return;
    };
    let fm = FloatMode {
        rnd: rnd_from(desc >> 16 & 0xf),
        ftz: desc >> 20 & 1 != 0,
        sat: desc >> 21 & 1 != 0,
    };
    let (ta, tb, tc, to) = arith_types(op, ty);
    let arity = op.arity();
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(ta), ta.bits());
            let y = if arity >= 2 {
                rd(b, l, slot_bytes(tb), tb.bits())
            } else {
                0
            };
            let z = if arity >= 3 {
                rd(c, l, slot_bytes(tc), tc.bits())
            } else {
                0
            };
            wr(out, l, slot_bytes(to), scalar_arith(op, ty, fm, x, y, z));
        }
    }
}

/// `--check-uniform` failed for instruction `inst`: `lanes` disagree with the first
/// active lane. Stops the warp (see `exec::ctx::not_uniform`).
///
/// # Safety
/// `ctx` must be the running warp's context.
pub unsafe extern "C" fn ptxjit_not_uniform(ctx: *mut WarpCtx, inst: u32, lanes: u32) {
    let ctx = unsafe { &mut *ctx };
    unsafe { ctx::not_uniform(ctx, InstId(inst), lanes) };
}

/// `out[l] = ops::special::sfu(..., a[l])` for the lanes in `mask` (`desc` from
/// `ops::special::sfu_encode`).
///
/// # Safety
/// The pointers must be valid slot arrays for the instruction's type.
pub unsafe extern "C" fn ptxjit_sfu(desc: u64, mask: u32, a: *const u8, out: *mut u8) {
    let (op, ty, approx, rnd, ftz) = crate::ops::special::sfu_decode(desc);
    for l in lanes(mask) {
        let x = unsafe { rd(a, l, slot_bytes(ty), ty.bits()) };
        let r = crate::ops::special::sfu(op, ty, approx, rnd, ftz, x);
        unsafe { wr(out, l, slot_bytes(ty), r) };
    }
}

/// `out[l] = ops::bits::eval(op, ty, [a[l], b[l], c[l], d[l]])` for the lanes in `mask`
/// (`desc` from `ops::bits::encode`).
///
/// # Safety
/// The pointers must be valid slot arrays for the operand and result types.
pub unsafe extern "C" fn ptxjit_bits(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    d: *const u8,
    out: *mut u8,
) {
    let Some((op, ty)) = crate::ops::bits::decode(desc) else {
        return;
    };
    let (stys, dty) = crate::ops::bits::signature(op, ty);
    let ptrs = [a, b, c, d];
    for l in lanes(mask) {
        let mut v = [0u64; 4];
        for (k, t) in stys.iter().enumerate().take(4) {
            v[k] = unsafe { rd(ptrs[k], l, slot_bytes(*t), t.bits()) };
        }
        unsafe { wr(out, l, slot_bytes(dty), crate::ops::bits::eval(op, ty, &v)) };
    }
}

/// `out[l] = cvt(dst, src, rnd, ftz, sat, a[l])` for the lanes in `mask`.
///
/// # Safety
/// The pointers must be valid slot arrays for the source and destination types.
pub unsafe extern "C" fn ptxjit_cvt(desc: u64, mask: u32, a: *const u8, out: *mut u8) {
    count(|c| c.cvt += 1);
    let (Some(dst), Some(src)) = (type_from(desc & 0xff), type_from(desc >> 8 & 0xff)) else {
        return;
    };
    let rnd = rnd_from(desc >> 16 & 0xf);
    let (ftz, sat) = (desc >> 20 & 1 != 0, desc >> 21 & 1 != 0);
    for l in lanes(mask) {
        unsafe {
            let x = rd(a, l, slot_bytes(src), src.bits());
            wr(
                out,
                l,
                slot_bytes(dst),
                scalar_cvt(dst, src, rnd, ftz, sat, x),
            );
        }
    }
}

/// `out[l] = setp(cmp, ty, ftz, a[l], b[l]) ? -1 : 0` (i32 lane masks) for every lane
/// (lanes outside `mask` get 0).
///
/// # Safety
/// `a`, `b` must be valid slot arrays for `ty`; `out` 32 × i32.
pub unsafe extern "C" fn ptxjit_setp(
    desc: u64,
    mask: u32,
    a: *const u8,
    b: *const u8,
    out: *mut u8,
) {
    count(|c| c.setp += 1);
    let (Some(&cmp), Some(ty)) = (
        CMPS.get((desc & 0xff) as usize),
        type_from(desc >> 8 & 0xff),
    ) else {
        return;
    };
    let ftz = desc >> 20 & 1 != 0;
    let sb = slot_bytes(ty);
    for l in 0..WARP_SIZE {
        unsafe {
            let r = if mask >> l & 1 != 0 {
                scalar_setp(
                    cmp,
                    ty,
                    ftz,
                    rd(a, l, sb, ty.bits()),
                    rd(b, l, sb, ty.bits()),
                )
            } else {
                false
            };
            wr(out, l, 4, if r { u32::MAX as u64 } else { 0 });
        }
    }
}
