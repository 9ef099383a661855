//! Shared by the conversion tests (`tests/cvt.rs`, `tests/cvt_narrow.rs`): running the
//! generated kernels of `tests/ptx/cvt_*.ptx` (see `cvt_gen.py`) and reference
//! conversions written here, independent of `ptxjit::ops`.
//!
//! The references: the `half` crate's `f16::from_f32`/`bf16::from_f32` (round to nearest
//! even) and `to_f64` (exact); everything else by searching the neighbouring
//! representable values of the exact input (every f16, bf16, f32, tf32 and fp8/fp6/fp4
//! value and every midpoint between two of them is exact in f64) and choosing between
//! them by the rounding rule, or by exact integer arithmetic for integer inputs.
#![allow(dead_code)]

use ptxjit::{Backend, Buffer, Device, KernelArg, LaunchConfig};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// The results of one kernel launch: `out32`/`out64` slots per thread, found by the
/// instruction text of the `// outBB[k] = TEXT` comments.
pub struct Out {
    r32: Vec<u32>,
    r64: Vec<u64>,
    k32: usize,
    k64: usize,
    slots: HashMap<String, (bool, usize)>,
    seen: RefCell<HashSet<String>>,
}

impl Drop for Out {
    /// Every instruction of the kernel must have been checked.
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let seen = self.seen.borrow();
        let missed: Vec<&String> = self.slots.keys().filter(|k| !seen.contains(*k)).collect();
        assert!(missed.is_empty(), "instructions never checked: {missed:?}");
    }
}

impl Out {
    /// Result of instruction `text` for thread `i`.
    pub fn get(&self, text: &str, i: usize) -> u64 {
        if i == 0 {
            self.seen.borrow_mut().insert(text.to_string());
        }
        match self.slots.get(text) {
            Some(&(false, k)) => self.r32[i * self.k32 + k] as u64,
            Some(&(true, k)) => self.r64[i * self.k64 + k],
            None => panic!("no slot for '{text}'"),
        }
    }
    /// For tests that check a few instructions only: no coverage check at the end.
    pub fn partial(self) -> Self {
        self.seen.borrow_mut().extend(self.slots.keys().cloned());
        self
    }
    /// Every instruction text of the kernel.
    pub fn texts(&self) -> Vec<String> {
        let mut v: Vec<String> = self.slots.keys().cloned().collect();
        v.sort();
        v
    }
}

fn slots(ptx: &str, kernel: &str) -> HashMap<String, (bool, usize)> {
    let start = ptx
        .find(&format!(".entry {kernel}("))
        .unwrap_or_else(|| panic!("no kernel {kernel}"));
    let body = &ptx[start..];
    let end = body[1..].find(".entry").map_or(body.len(), |e| e + 1);
    let mut m = HashMap::new();
    for line in body[..end].lines() {
        let Some(rest) = line.trim().strip_prefix("// out") else {
            continue;
        };
        let wide = rest.starts_with("64");
        let k: usize = rest[3..rest.find(']').unwrap()].parse().unwrap();
        let text = rest[rest.find("= ").unwrap() + 2..].to_string();
        m.insert(text, (wide, k));
    }
    m
}

/// Runs `kernel` of `file` on `n` threads with the given input buffers.
pub fn run(
    dev: &Device,
    file: &str,
    kernel: &str,
    inputs: &[&Buffer],
    n: usize,
    backend: Backend,
) -> Out {
    let path = format!("{}/tests/ptx/{file}", env!("CARGO_MANIFEST_DIR"));
    let ptx = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let m = match backend {
        Backend::Jit => dev.load_ptx(&ptx, file),
        Backend::Interp => dev.load_ptx_with(&ptx, file, false),
    }
    .unwrap_or_else(|e| panic!("load {file}: {e}"));
    let slots = slots(&ptx, kernel);
    let k32 = slots.values().filter(|s| !s.0).count().max(1);
    let k64 = slots.values().filter(|s| s.0).count().max(1);
    let o32 = dev.alloc_zeroed(n * k32 * 4).unwrap();
    let o64 = dev.alloc_zeroed(n * k64 * 8).unwrap();
    let mut args: Vec<KernelArg> = inputs.iter().map(|b| KernelArg::from(*b)).collect();
    args.push((&o32).into());
    args.push((&o64).into());
    args.push((n as u32).into());
    let cfg = LaunchConfig::new(n.div_ceil(128) as u32, 128).backend(backend);
    dev.launch(&m, kernel, &cfg, &args)
        .unwrap_or_else(|e| panic!("{kernel} on {backend:?}: {e}"));
    Out {
        r32: dev.read(&o32).unwrap(),
        r64: dev.read(&o64).unwrap(),
        k32,
        k64,
        slots,
        seen: RefCell::new(HashSet::new()),
    }
}

/// Collects mismatches and fails with the first few of them.
#[derive(Default)]
pub struct Check {
    bad: Vec<String>,
    count: usize,
}

impl Check {
    pub fn eq(&mut self, got: u64, want: u64, what: impl FnOnce() -> String) {
        if got != want {
            self.count += 1;
            if self.bad.len() < 12 {
                self.bad
                    .push(format!("{}: got {got:#x}, want {want:#x}", what()));
            }
        }
    }
    pub fn finish(self, what: &str) {
        if self.count > 0 {
            panic!(
                "{what}: {} mismatches, first:\n{}",
                self.count,
                self.bad.join("\n")
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Inputs.

/// A structured sample of f32 bit patterns: every exponent with mantissas that put a
/// tie, just below and just above a tie at every bit position (the rounding bit of
/// every narrower format, normal and subnormal), both signs, plus pseudo-random ones.
pub fn f32_sample() -> Vec<u32> {
    let mut mants = vec![0u32, 1, 0x7f_ffff, 0x40_0000, 0x3f_ffff, 0x40_0001];
    for k in 0..23 {
        let b = 1u32 << k;
        mants.extend([b, b | (b << 1) & 0x7f_ffff, b - 1, b + 1, 0x7f_ffff ^ b]);
    }
    mants.sort();
    mants.dedup();
    let mut v = Vec::new();
    for e in 0..=255u32 {
        for &m in &mants {
            for s in [0, 0x8000_0000u32] {
                v.push(s | e << 23 | m);
            }
        }
    }
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(x as u32);
    }
    v
}

/// Integers around every power of two and the f16/bf16/f32 rounding boundaries.
pub fn int_sample() -> Vec<i64> {
    let mut v = vec![0i64, 1, -1, 2, 3, i64::MIN, i64::MAX, -2];
    for k in 1..63 {
        let p = 1i64 << k;
        for d in [-3i64, -1, 0, 1, 3] {
            v.push(p + d);
            v.push(-(p + d));
        }
        // Ties and near-ties of 8-, 11- and 24-bit significands above 2^k.
        for prec in [8u32, 11, 24] {
            if k > prec {
                let half = 1i64 << (k - prec - 1);
                for m in [1i64, 3, 5] {
                    for d in [-1i64, 0, 1] {
                        v.push(p + m * half + d);
                        v.push(-(p + m * half + d));
                    }
                }
            }
        }
    }
    v.extend([
        65504, 65505, 65519, 65520, 65521, 65535, 65536, -65520, -65519, 2049, 2051, 4097,
    ]);
    v.extend([
        u64::MAX as i64,
        (u64::MAX - 1) as i64,
        0xffff_ffff,
        0x8000_0000,
    ]);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..1024 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push((x >> (x % 60)) as i64);
        v.push(x as i64);
    }
    v
}

// ---------------------------------------------------------------------------------------
// Reference rounding.

/// A rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// To nearest, ties to even.
    Rn,
    /// To nearest, ties away from zero.
    Rna,
    Rz,
    Rm,
    Rp,
}

/// A float format, seen through the magnitudes of its codes (sign bit clear): codes
/// are ordered like their values.
pub struct Fmt {
    /// The magnitude of a code (`f64::INFINITY` for the infinity code).
    pub value: fn(u64) -> f64,
    /// The largest magnitude code (infinity if the format has one).
    pub top: u64,
    /// Whether `top` is an infinity.
    pub has_inf: bool,
    /// A code within one step of the rounded magnitude (`None`: search every code).
    pub guess: Option<fn(f64) -> u64>,
    /// The sign bit.
    pub sign: u64,
}

pub const F16: Fmt = Fmt {
    value: |c| half::f16::from_bits(c as u16).to_f64(),
    top: 0x7c00,
    has_inf: true,
    guess: Some(|m| half::f16::from_f32(m as f32).to_bits() as u64 & 0x7fff),
    sign: 0x8000,
};
pub const BF16: Fmt = Fmt {
    value: |c| half::bf16::from_bits(c as u16).to_f64(),
    top: 0x7f80,
    has_inf: true,
    guess: Some(|m| half::bf16::from_f32(m as f32).to_bits() as u64 & 0x7fff),
    sign: 0x8000,
};
pub const F32: Fmt = Fmt {
    value: |c| f32::from_bits(c as u32) as f64,
    top: 0x7f80_0000,
    has_inf: true,
    guess: Some(|m| (m as f32).to_bits() as u64 & 0x7fff_ffff),
    sign: 0x8000_0000,
};
/// tf32 codes are f32 bit patterns shifted right by 13.
pub const TF32: Fmt = Fmt {
    value: |c| f32::from_bits((c as u32) << 13) as f64,
    top: 0x7f80_0000 >> 13,
    has_inf: true,
    guess: Some(|m| ((m as f32).to_bits() as u64 & 0x7fff_ffff) >> 13),
    sign: 0x8000_0000 >> 13,
};

/// The magnitude of `x` rounded to a code of `fmt` in the direction `mode` (`neg`: the
/// sign of the value, for the directed modes). `x` is finite and non-negative.
fn round_mag(x: f64, neg: bool, fmt: &Fmt, mode: Mode) -> u64 {
    let (lo_c, hi_c) = match fmt.guess {
        Some(g) => {
            let c = g(x).min(fmt.top);
            (c.saturating_sub(2), (c + 2).min(fmt.top))
        }
        None => (0, fmt.top),
    };
    let mut lo = None;
    let mut hi = None;
    for c in lo_c..=hi_c {
        let v = (fmt.value)(c);
        if v <= x {
            lo = Some(c);
        }
        if v >= x && hi.is_none() {
            hi = Some(c);
        }
    }
    let lo = lo.expect("a code below");
    if (fmt.value)(lo) == x {
        return lo;
    }
    let Some(hi) = hi else {
        return lo; // beyond the largest finite value of a format without infinity
    };
    let up = match (mode, neg) {
        (Mode::Rz, _) | (Mode::Rm, false) | (Mode::Rp, true) => false,
        (Mode::Rm, true) | (Mode::Rp, false) => true,
        (Mode::Rn | Mode::Rna, _) => {
            let vl = (fmt.value)(lo);
            // Past the largest finite value, infinity counts as one more step (IEEE).
            let vh = if fmt.has_inf && hi == fmt.top {
                vl + (vl - (fmt.value)(lo - 1))
            } else {
                (fmt.value)(hi)
            };
            let mid = (vl + vh) / 2.0;
            if x != mid {
                x > mid
            } else {
                mode == Mode::Rna || lo & 1 == 1
            }
        }
    };
    if up {
        hi
    } else {
        lo
    }
}

/// `x` (exact, not NaN) rounded into `fmt` in direction `mode`, with the sign of `x`.
pub fn round(x: f64, fmt: &Fmt, mode: Mode) -> u64 {
    let neg = x.is_sign_negative();
    let m = x.abs();
    let c = if m.is_infinite() {
        fmt.top
    } else {
        round_mag(m, neg, fmt, mode)
    };
    if neg {
        c | fmt.sign
    } else {
        c
    }
}

/// An integer rounded to f16/bf16/f32 (`fmt`), in direction `mode`: exact integer
/// arithmetic down to 53 significant bits, keeping a sticky bit (round to odd), so the
/// final rounding to at most 24 bits is single.
pub fn int_round(v: i128, fmt: &Fmt, mode: Mode) -> u64 {
    let neg = v < 0;
    let u = v.unsigned_abs();
    let bitlen = 128 - u.leading_zeros();
    let x = if bitlen <= 53 {
        u as f64
    } else {
        let s = bitlen - 53;
        let mut q = u >> s;
        if u & ((1u128 << s) - 1) != 0 {
            q |= 1;
        }
        q as f64 * 2f64.powi(s as i32)
    };
    let c = round_mag(x, neg, fmt, mode);
    if neg {
        c | fmt.sign
    } else {
        c
    }
}

/// An integer rounded to f64 in direction `mode` (exact comparisons in u128).
pub fn int_to_f64(v: i128, mode: Mode) -> u64 {
    let neg = v < 0;
    let u = v.unsigned_abs();
    let c = (u as f64).to_bits(); // round to nearest: within one step
    if u < 1 << 53 {
        // Exact.
        return c | if neg { 1 << 63 } else { 0 };
    }
    let val = |b: u64| f64::from_bits(b) as u128;
    let mut lo = c.saturating_sub(1);
    while val(lo + 1) <= u {
        lo += 1;
    }
    while val(lo) > u {
        lo -= 1;
    }
    let r = if val(lo) == u {
        lo
    } else {
        let hi = lo + 1;
        let up = match (mode, neg) {
            (Mode::Rz, _) | (Mode::Rm, false) | (Mode::Rp, true) => false,
            (Mode::Rm, true) | (Mode::Rp, false) => true,
            _ => {
                let twice = val(lo) + val(hi);
                if 2 * u != twice {
                    2 * u > twice
                } else {
                    mode == Mode::Rna || lo & 1 == 1
                }
            }
        };
        if up {
            hi
        } else {
            lo
        }
    };
    if neg {
        r | 1 << 63
    } else {
        r
    }
}

/// Whether f16 bits are a NaN.
pub fn f16_nan(h: u64) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}
/// Whether bf16 bits are a NaN.
pub fn bf16_nan(h: u64) -> bool {
    h & 0x7f80 == 0x7f80 && h & 0x7f != 0
}

/// PTX float -> integer from f32/f16/bf16 (see [`f2i_from`]).
pub fn f2i(x: f64, mode: Mode, signed: bool, bits: u32) -> u64 {
    f2i_from(x, mode, signed, bits, false)
}

/// PTX float -> integer: round per `mode` (none = truncate), clamp to the range; the
/// result's bits in a 64-bit container (two's complement). A NaN gives 0 (the ISA's rule)
/// from f32/f16/bf16 to 32 bits or fewer, and the destination's sign bit from an f64
/// source or to 64 bits, as an H100 does (tests/golden).
pub fn f2i_from(x: f64, mode: Mode, signed: bool, bits: u32, f64_src: bool) -> u64 {
    if x.is_nan() {
        return match (f64_src || bits == 64, signed) {
            (false, _) => 0,
            (true, true) => (-1i64 << (bits - 1)) as u64,
            (true, false) => 1 << (bits - 1),
        };
    }
    let r = match mode {
        Mode::Rn => x.round_ties_even(),
        Mode::Rz => x.trunc(),
        Mode::Rm => x.floor(),
        Mode::Rp => x.ceil(),
        Mode::Rna => x.round(),
    };
    let (lo, hi) = if signed {
        (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        )
    } else {
        (0.0, 2f64.powi(bits as i32) - 1.0)
    };
    let c = r.clamp(lo, hi);
    if signed {
        c as i64 as u64
    } else {
        c as u64
    }
}
