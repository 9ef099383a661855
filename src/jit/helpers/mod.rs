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

pub(crate) mod asyncop;
pub(crate) mod builtin;
pub(crate) mod control;
pub(crate) mod lanewise;
pub(crate) mod matrix;
pub(crate) mod memory;
pub(crate) mod sanitize;
pub(crate) mod texture;
pub(crate) mod warp;

use crate::exec::ctx::WARP_SIZE;
use crate::ir::{Rnd, Type};

// ---------------------------------------------------------------------------------------
// Descriptor encodings.

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

/// Bytes per lane in a helper operand slot for a value of type `t`.
pub(crate) fn slot_bytes(t: Type) -> usize {
    if t.bits() > 32 {
        8
    } else {
        4
    }
}

// ---------------------------------------------------------------------------------------
// Scalar semantics: the interpreter's, from `crate::ops`.

#[inline]
fn mask_bits(bits: u32) -> u64 {
    crate::ops::mask(bits.clamp(1, 64))
}

/// The canonical NaN a GPU float operation returns (f32 or f64 bits).
pub(crate) fn canonical_nan(bits: u32) -> u64 {
    crate::ops::canonical_nan(bits)
}

// ---------------------------------------------------------------------------------------
// Per-thread counts of helper calls (tests and profiling use them to see which path ran),
// kept only with the `helper-counters` feature (the tests turn it on).

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

#[cfg(feature = "helper-counters")]
thread_local! {
    static CALLS: std::cell::Cell<HelperCalls> = const {
        std::cell::Cell::new(HelperCalls { access: 0, region: 0, arith: 0, cvt: 0, setp: 0 })
    };
}

#[cfg(feature = "helper-counters")]
#[inline]
fn count(f: impl FnOnce(&mut HelperCalls)) {
    CALLS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

#[cfg(not(feature = "helper-counters"))]
#[inline(always)]
fn count(_: impl FnOnce(&mut HelperCalls)) {}

/// The helper-call counts of the current thread since it started (all zero unless the
/// crate is built with the `helper-counters` feature).
pub fn helper_calls() -> HelperCalls {
    #[cfg(feature = "helper-counters")]
    return CALLS.with(|c| c.get());
    #[cfg(not(feature = "helper-counters"))]
    HelperCalls::default()
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
