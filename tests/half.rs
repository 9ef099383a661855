//! Half-precision arithmetic and comparisons (`.f16 .f16x2 .bf16 .bf16x2`) on both
//! backends (`tests/ptx/half.ptx`, ptxas-validated for sm_90) and `ptxjit::ops::half`
//! directly, against an oracle written here and independent of `ptxjit::ops`:
//!
//! - operands are decoded to f64 by the `half` crate (exact);
//! - `add`/`sub`/`fma` are done in f64 with their exact rounding error (TwoSum; a product
//!   of two halves has at most 22 significant bits, so `x * y` is exact in f64);
//! - the exact value `s + tail` is rounded once, to nearest even, onto the f16/bf16 grid
//!   by `round` below. (`half::f16::from_f64` cannot be the oracle: on x86 with F16C it
//!   converts through f32, two roundings, and its portable path ignores the low 32 bits of
//!   the f64 mantissa. `round` is itself checked against `half`'s f32 -> f16/bf16
//!   conversions, which round once.)
//! - `.ftz`, `.sat`, `.relu`, `.NaN`, `.xorsign.abs` and the NaN rules are applied as the
//!   PTX ISA states them (canonical NaN 0x7fff; `.sat`: NaN and -0 -> +0; `.relu`: -0 ->
//!   +0, NaN -> 0x7fff; min/max: -0 < +0).
//!
//! `ex2.approx`/`tanh.approx` are checked against the manual's error bounds and
//! special-case tables, and on the kernel for equality between the backends and ops.

use half::{bf16, f16};
use ptxjit::ir::{HalfMode, HalfOp};
use ptxjit::ops::half as hops;
use ptxjit::{Backend, Device, LaunchConfig};

const QNAN: u16 = 0x7fff;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fmt {
    F16,
    Bf16,
}

impl Fmt {
    fn dec(self, x: u16) -> f64 {
        match self {
            Fmt::F16 => f16::from_bits(x).to_f64(),
            Fmt::Bf16 => bf16::from_bits(x).to_f64(),
        }
    }
    /// Fraction bits, smallest normal exponent, infinity, 1.0.
    fn man(self) -> i32 {
        match self {
            Fmt::F16 => 10,
            Fmt::Bf16 => 7,
        }
    }
    fn emin(self) -> i32 {
        match self {
            Fmt::F16 => -14,
            Fmt::Bf16 => -126,
        }
    }
    fn inf(self) -> u16 {
        match self {
            Fmt::F16 => 0x7c00,
            Fmt::Bf16 => 0x7f80,
        }
    }
    fn one(self) -> u16 {
        match self {
            Fmt::F16 => 0x3c00,
            Fmt::Bf16 => 0x3f80,
        }
    }
    fn is_nan(self, x: u16) -> bool {
        self.dec(x).is_nan()
    }
    fn flush(self, x: u16) -> u16 {
        let v = self.dec(x);
        if v != 0.0 && v.abs() < 2f64.powi(self.emin()) {
            x & 0x8000
        } else {
            x
        }
    }
    fn kind(self) -> hops::HalfKind {
        match self {
            Fmt::F16 => hops::HalfKind::F16,
            Fmt::Bf16 => hops::HalfKind::BF16,
        }
    }
}

/// Rounds the exact value `s + tail` (|tail| at most half an f64 ulp of `s`) to nearest
/// even in format `f`.
fn round(f: Fmt, s: f64, tail: f64) -> u16 {
    let sign: u16 = if s.is_sign_negative() { 0x8000 } else { 0 };
    let a = s.abs();
    if a.is_infinite() {
        return sign | f.inf();
    }
    if a == 0.0 {
        return sign;
    }
    let bits = a.to_bits();
    let be = (bits >> 52) as i32; // every value here is a normal f64
    let m = bits & ((1u64 << 52) - 1) | 1u64 << 52; // a = m * 2^(be - 1075)
    let e = (be - 1023).max(f.emin()); // binade of the result (subnormals: emin)
    let q = e - f.man(); // the target grid spacing is 2^q
    let sh = q - (be - 1075); // a / 2^q = m / 2^sh; sh >= 42
    let up_tail = if sign != 0 { -tail } else { tail }; // tail towards larger magnitude
    let n = if sh > 63 {
        0 // a < 2^(q-10): rounds to zero
    } else {
        let n = m >> sh;
        let r = m & ((1u64 << sh) - 1);
        let h = 1u64 << (sh - 1);
        let up = r > h || (r == h && (up_tail > 0.0 || (up_tail == 0.0 && n & 1 == 1)));
        n + up as u64
    };
    // n counts grid steps including the implicit bit; a carry into the next binade (or
    // from subnormal to normal) lands on the right encoding by itself.
    let enc = (((e - f.emin()) as u64) << f.man()) + n;
    if enc >= f.inf() as u64 {
        sign | f.inf()
    } else {
        sign | enc as u16
    }
}

/// s + e == a + b exactly (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

fn min_max_ref(f: Fmt, is_max: bool, m: HalfMode, a: u16, b: u16) -> u16 {
    // The ISA's pseudo-code for min/max.
    let xorsign = (a ^ b) & 0x8000;
    let (a, b) = if m.xorsign_abs {
        (a & 0x7fff, b & 0x7fff)
    } else {
        (a, b)
    };
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    let d = if (na && nb) || (m.nan && (na || nb)) {
        QNAN
    } else if na {
        b
    } else if nb {
        a
    } else {
        let (x, y) = (f.dec(a), f.dec(b));
        let (sa, sb) = (a & 0x8000 != 0, b & 0x8000 != 0);
        let a_gt = x > y || (x == y && !sa && sb); // +0.0 > -0.0
        let a_lt = x < y || (x == y && sa && !sb);
        match (is_max, a_gt, a_lt) {
            (true, true, _) | (false, _, true) => a,
            _ => b,
        }
    };
    if m.xorsign_abs && !f.is_nan(d) {
        (d & 0x7fff) | xorsign
    } else {
        d
    }
}

/// The expected result of `op` (not ex2/tanh) on one half.
fn expect(f: Fmt, op: HalfOp, m: HalfMode, a: u16, b: u16, c: u16) -> u16 {
    let (a, b, c) = if m.ftz {
        (f.flush(a), f.flush(b), f.flush(c))
    } else {
        (a, b, c)
    };
    let r = match op {
        // A NaN gives the canonical NaN, as an H100 does (tests/golden).
        HalfOp::Neg | HalfOp::Abs if f.is_nan(a) => return 0x7fff,
        HalfOp::Neg => return a ^ 0x8000,
        HalfOp::Abs => return a & 0x7fff,
        HalfOp::Min => return min_max_ref(f, false, m, a, b),
        HalfOp::Max => return min_max_ref(f, true, m, a, b),
        HalfOp::Add | HalfOp::Sub | HalfOp::Mul | HalfOp::Fma => {
            let (x, y, z) = (f.dec(a), f.dec(b), f.dec(c));
            let (s, t) = match op {
                HalfOp::Add => two_sum(x, y),
                HalfOp::Sub => two_sum(x, -y),
                HalfOp::Mul => (x * y, 0.0),
                _ => two_sum(x * y, z),
            };
            if s.is_nan() {
                QNAN
            } else {
                round(f, s, t)
            }
        }
        HalfOp::Ex2 | HalfOp::Tanh => panic!("approx ops have no exact oracle"),
    };
    if f.is_nan(r) {
        return if m.sat { 0 } else { QNAN };
    }
    let mut r = r;
    if m.sat {
        if f.dec(r) <= 0.0 {
            r = 0;
        } else if f.dec(r) >= 1.0 {
            r = f.one();
        }
    }
    if m.relu && f.dec(r) <= 0.0 {
        r = 0;
    }
    if m.ftz {
        f.flush(r)
    } else {
        r
    }
}

/// Checks an `ex2.approx` / `tanh.approx` result against the manual's table and bound.
fn check_approx(f: Fmt, op: HalfOp, x: u16, got: u16) {
    let ctx = format!("{op:?} {f:?} x={x:#06x} got={got:#06x}");
    // ex2.approx.ftz.bf16 flushes its input; the other forms keep subnormals.
    let xin = if op == HalfOp::Ex2 && f == Fmt::Bf16 {
        f.flush(x)
    } else {
        x
    };
    let v = f.dec(xin);
    let g = f.dec(got);
    if v.is_nan() {
        assert_eq!(got, QNAN, "{ctx}");
        return;
    }
    let min_normal = 2f64.powi(f.emin());
    if op == HalfOp::Ex2 {
        let want = v.exp2();
        if v == f64::NEG_INFINITY {
            assert_eq!(got, 0, "{ctx}");
        } else if v == 0.0 {
            assert_eq!(got, f.one(), "{ctx}");
        } else if g.is_infinite() {
            assert!(got == f.inf() && want >= f.dec(f.inf() - 1), "{ctx}");
        } else if want >= min_normal {
            let bound = if f == Fmt::F16 {
                2f64.powf(-9.9)
            } else {
                2f64.powi(-7)
            };
            assert!((g - want).abs() <= bound * want, "{ctx}");
        } else if f == Fmt::Bf16 {
            // .ftz: a subnormal result flushes to +0 (or rounds up to the smallest normal).
            assert!(got == 0 || got == 0x0080, "{ctx}");
        } else {
            // Subnormal f16 result: within half a subnormal step (2^-25).
            assert!((g - want).abs() <= 2f64.powi(-25), "{ctx}");
        }
    } else {
        let want = v.tanh();
        if v.is_infinite() {
            assert_eq!(got, f.one() | (x & 0x8000), "{ctx}");
        } else if v == 0.0 {
            assert_eq!(got, x, "{ctx}: tanh(±0) = ±0");
        } else {
            let bound = if f == Fmt::F16 {
                2f64.powf(-10.987)
            } else {
                2f64.powi(-8)
            };
            assert!((g - want).abs() <= bound, "{ctx}");
            assert_eq!(got & 0x8000, x & 0x8000, "{ctx}: sign");
        }
    }
}

fn mode(ftz: bool, sat: bool, relu: bool, nan: bool, xorsign_abs: bool) -> HalfMode {
    HalfMode {
        ftz,
        sat,
        relu,
        nan,
        xorsign_abs,
        oob: false,
    }
}

fn xorshift(s: &mut u32) -> u32 {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    *s
}

/// `n` structured values of format `f`: every special (±0, ±inf, NaNs with several
/// payloads and signs, the subnormal and normal extremes, neighbours of 1.0), values
/// whose sums and products tie, subnormals, and random bit patterns (half of them with
/// exponents near 1.0 so that results cancel and round).
fn value_set(f: Fmt, n: usize, seed: u32) -> Vec<u16> {
    let inf = f.inf();
    let one = f.one();
    let step = 1u16 << f.man(); // one binade
    let fmax = (1u16 << f.man()) - 1; // largest fraction
    let mut v: Vec<u16> = vec![
        0,
        0x8000,
        inf,
        inf | 0x8000,
        QNAN,
        0xffff,
        inf | 1,                       // signalling NaN
        inf | (1u16 << (f.man() - 1)), // quiet NaN
        0x8000 | inf | 0x3,            // negative NaN with a payload
        1,                             // smallest subnormal
        0x8001,
        fmax, // largest subnormal
        0x8000 | fmax,
        step, // smallest normal
        0x8000 | step,
        step + 1,
        inf - 1, // largest finite
        0x8000 | (inf - 1),
        inf - 2,
        one,
        one | 0x8000,
        one + 1,
        one - 1,
        0x8000 | (one - 1),
        one + step,                           // 2.0
        one - step,                           // 0.5
        one + step + (1u16 << (f.man() - 1)), // 3.0
        0x8000 | (one + step),
        one + 2 * step, // 4.0
    ];
    // Integers around 2^(man+1), where the grid spacing becomes 2 (ties of x + 1).
    let big = one + (f.man() as u16 + 1) * step; // 2^(man+1)
    v.extend([big, big + 1, big - 1, big + 3, 0x8000 | big]);
    let mut s = seed;
    while v.len() < n {
        let r = xorshift(&mut s) as u16;
        let x = if v.len().is_multiple_of(2) {
            r
        } else {
            // Exponent within ±4 binades of 1.0, random fraction and sign.
            let de = (r >> 12 & 7) as i32 - 4;
            let e = (one as i32 + de * step as i32) as u16 & !fmax;
            e | (r & fmax) | (r << 4 & 0x8000)
        };
        v.push(x);
    }
    v.truncate(n);
    v
}

#[test]
fn round_oracle_matches_half_crate_single_roundings() {
    // half's f32 -> f16 / bf16 conversions round once (all f32 fraction bits count), so
    // they check `round` on every value an f32 can hold: every 97th f32 bit pattern.
    let mut n = 0;
    for i in (0..=u32::MAX).step_by(97) {
        let x = f32::from_bits(i);
        if x.is_nan() {
            continue;
        }
        let d = x as f64;
        assert_eq!(
            round(Fmt::F16, d, 0.0),
            f16::from_f32(x).to_bits(),
            "{i:#x}"
        );
        assert_eq!(
            round(Fmt::Bf16, d, 0.0),
            bf16::from_f32(x).to_bits(),
            "{i:#x}"
        );
        n += 1;
    }
    assert!(n > 40_000_000);
    // Ties broken by the tail: 1 + 2^-11 is halfway between f16 1.0 and 1 + 2^-10.
    let mid = 1.0 + 2f64.powi(-11);
    assert_eq!(round(Fmt::F16, mid, 0.0), 0x3c00, "tie -> even");
    assert_eq!(round(Fmt::F16, mid, 1e-30), 0x3c01, "just above");
    assert_eq!(
        round(Fmt::F16, -mid, -1e-30),
        0xbc01,
        "just below, negative"
    );
    assert_eq!(round(Fmt::F16, mid, -1e-30), 0x3c00);
    // 65520 is halfway between 65504 (odd) and 2^16: overflows to +inf.
    assert_eq!(round(Fmt::F16, 65520.0, 0.0), 0x7c00);
    assert_eq!(round(Fmt::F16, 65520.0, -1e-12), 0x7bff);
    // 2^-25 is halfway between +0 and the smallest subnormal 2^-24: ties to +0.
    assert_eq!(round(Fmt::F16, 2f64.powi(-25), 0.0), 0);
    assert_eq!(round(Fmt::F16, 2f64.powi(-25), 1e-40), 1);
}

#[test]
fn unary_ops_every_bit_pattern() {
    let none = HalfMode::default();
    let ftz = mode(true, false, false, false, false);
    for f in [Fmt::F16, Fmt::Bf16] {
        let k = f.kind();
        for x in 0..=u16::MAX {
            for op in [HalfOp::Neg, HalfOp::Abs] {
                let modes: &[HalfMode] = if f == Fmt::F16 { &[none, ftz] } else { &[none] };
                for &m in modes {
                    assert_eq!(
                        hops::half(k, op, m, x, 0, 0),
                        expect(f, op, m, x, 0, 0),
                        "{op:?} {f:?} {m:?} {x:#06x}"
                    );
                }
            }
            // ex2.approx: .f16 without .ftz, .bf16 only with it.
            let em = if f == Fmt::F16 { none } else { ftz };
            check_approx(f, HalfOp::Ex2, x, hops::half(k, HalfOp::Ex2, em, x, 0, 0));
            check_approx(
                f,
                HalfOp::Tanh,
                x,
                hops::half(k, HalfOp::Tanh, none, x, 0, 0),
            );
        }
    }
    // The manual's tables, spelled out: ex2(-inf) = +0, ex2(±0) = 1, ex2(+inf) = +inf;
    // tanh(±inf) = ±1.
    let k = hops::HalfKind::F16;
    assert_eq!(hops::half(k, HalfOp::Ex2, none, 0xfc00, 0, 0), 0);
    assert_eq!(hops::half(k, HalfOp::Ex2, none, 0x8000, 0, 0), 0x3c00);
    assert_eq!(hops::half(k, HalfOp::Ex2, none, 0x7c00, 0, 0), 0x7c00);
    assert_eq!(hops::half(k, HalfOp::Tanh, none, 0xfc00, 0, 0), 0xbc00);
    // ex2.approx.ftz.bf16 of a negative subnormal: flushed to -0, 2^-0 = 1.0.
    let b = hops::HalfKind::BF16;
    assert_eq!(hops::half(b, HalfOp::Ex2, ftz, 0x8001, 0, 0), 0x3f80);
}

/// The modifier combinations the ISA allows for each format.
fn binary_modes(f: Fmt, op: HalfOp) -> Vec<HalfMode> {
    let mut v = Vec::new();
    let ftzs: &[bool] = if f == Fmt::F16 {
        &[false, true]
    } else {
        &[false]
    };
    for &ftz in ftzs {
        match op {
            HalfOp::Min | HalfOp::Max => {
                for nan in [false, true] {
                    for xs in [false, true] {
                        v.push(mode(ftz, false, false, nan, xs));
                    }
                }
            }
            HalfOp::Fma => {
                v.push(mode(ftz, false, false, false, false));
                v.push(mode(ftz, false, true, false, false));
                if f == Fmt::F16 {
                    v.push(mode(ftz, true, false, false, false));
                }
            }
            _ => {
                v.push(mode(ftz, false, false, false, false));
                if f == Fmt::F16 {
                    v.push(mode(ftz, true, false, false, false));
                }
            }
        }
    }
    v
}

#[test]
fn binary_ops_all_pairs_of_512_values() {
    for f in [Fmt::F16, Fmt::Bf16] {
        let k = f.kind();
        let vals = value_set(f, 512, 0x2545_f491);
        for op in [
            HalfOp::Add,
            HalfOp::Sub,
            HalfOp::Mul,
            HalfOp::Min,
            HalfOp::Max,
        ] {
            for m in binary_modes(f, op) {
                for &a in &vals {
                    for &b in &vals {
                        let got = hops::half(k, op, m, a, b, 0);
                        let want = expect(f, op, m, a, b, 0);
                        assert_eq!(got, want, "{op:?} {f:?} {m:?} a={a:#06x} b={b:#06x}");
                    }
                }
            }
        }
    }
}

#[test]
fn fma_all_triples_of_64_values_and_rounding_traps() {
    for f in [Fmt::F16, Fmt::Bf16] {
        let k = f.kind();
        let vals = value_set(f, 64, 0x1357_9bdf);
        for m in binary_modes(f, HalfOp::Fma) {
            for &a in &vals {
                for &b in &vals {
                    for &c in &vals {
                        let got = hops::half(k, HalfOp::Fma, m, a, b, c);
                        let want = expect(f, HalfOp::Fma, m, a, b, c);
                        assert_eq!(got, want, "fma {f:?} {m:?} {a:#06x} {b:#06x} {c:#06x}");
                    }
                }
            }
        }
    }
    // A product that is exactly halfway between two halves plus a tiny addend: only a
    // single rounding of the exact sum gets these right.
    let rn = HalfMode::default();
    let enc16 = |x: f64| f16::from_f64(x).to_bits(); // exact values only
                                                     // f16: 3 * (683/2048) = 2049/2048 = 1 + 2^-11 (halfway between 1 and 1 + 2^-10);
                                                     // + 2^-24 (smallest subnormal) -> rounds up to 1 + 2^-10 = 0x3c01.
    let (a, b) = (enc16(3.0), enc16(683.0 / 2048.0));
    assert_eq!(f16::from_bits(b).to_f64(), 683.0 / 2048.0);
    assert_eq!(
        hops::half(hops::HalfKind::F16, HalfOp::Fma, rn, a, b, 1),
        0x3c01
    );
    assert_eq!(
        hops::half(hops::HalfKind::F16, HalfOp::Fma, rn, a, b, 0x8001),
        0x3c00
    );
    assert_eq!(expect(Fmt::F16, HalfOp::Fma, rn, a, b, 1), 0x3c01);
    // bf16: 9 * 29 = 261, halfway between 260 and 262 (bf16 spacing 2 at 2^8);
    // + 2^-100 -> 262 (0x4383), - 2^-100 -> 260 (0x4382), + 0 -> 260 (even).
    let enc = |x: f32| bf16::from_f32(x).to_bits();
    let (a, b) = (enc(9.0), enc(29.0));
    let tiny = enc(2f32.powi(-100));
    let bk = hops::HalfKind::BF16;
    assert_eq!(hops::half(bk, HalfOp::Fma, rn, a, b, tiny), 0x4383);
    assert_eq!(hops::half(bk, HalfOp::Fma, rn, a, b, tiny | 0x8000), 0x4382);
    assert_eq!(hops::half(bk, HalfOp::Fma, rn, a, b, 0), 0x4382);
    assert_eq!(expect(Fmt::Bf16, HalfOp::Fma, rn, a, b, tiny), 0x4383);
}

// ---------------------------------------------------------------------------------------
// The kernel.

/// The arithmetic instructions of `tests/ptx/half.ptx`, in output order. Packed forms
/// work on (a, b, c); scalar forms on the low halves and on the high halves.
const ARITH: &[&str] = &[
    "add.f16x2",
    "add.rn.ftz.sat.f16x2",
    "sub.rn.f16x2",
    "sub.ftz.f16x2",
    "mul.rn.f16x2",
    "mul.ftz.sat.f16x2",
    "fma.rn.f16x2",
    "fma.rn.ftz.sat.f16x2",
    "fma.rn.relu.f16x2",
    "fma.rn.ftz.relu.f16x2",
    "neg.f16x2",
    "neg.ftz.f16x2",
    "abs.f16x2",
    "abs.ftz.f16x2",
    "min.f16x2",
    "min.ftz.NaN.f16x2",
    "max.NaN.xorsign.abs.f16x2",
    "max.ftz.xorsign.abs.f16x2",
    "ex2.approx.f16x2",
    "tanh.approx.f16x2",
    "add.bf16x2",
    "sub.rn.bf16x2",
    "mul.rn.bf16x2",
    "fma.rn.bf16x2",
    "fma.rn.relu.bf16x2",
    "neg.bf16x2",
    "abs.bf16x2",
    "min.NaN.bf16x2",
    "max.xorsign.abs.bf16x2",
    "ex2.approx.ftz.bf16x2",
    "tanh.approx.bf16x2",
    "add.f16",
    "sub.rn.ftz.sat.f16",
    "mul.ftz.f16",
    "fma.rn.sat.f16",
    "fma.rn.ftz.relu.f16",
    "neg.ftz.f16",
    "abs.f16",
    "min.xorsign.abs.f16",
    "max.ftz.NaN.f16",
    "ex2.approx.f16",
    "tanh.approx.f16",
    "add.rn.bf16",
    "sub.bf16",
    "mul.bf16",
    "fma.rn.relu.bf16",
    "neg.bf16",
    "abs.bf16",
    "min.bf16",
    "max.NaN.xorsign.abs.bf16",
    "ex2.approx.ftz.bf16",
    "tanh.approx.bf16",
];
/// Words per thread: the arithmetic results, then 12 comparison results.
const K: usize = 64;

/// (operation, format, modifiers) of a mnemonic such as `fma.rn.ftz.relu.f16x2`.
fn parse(mn: &str) -> (HalfOp, Fmt, HalfMode) {
    let parts: Vec<&str> = mn.split('.').collect();
    let op = match parts[0] {
        "add" => HalfOp::Add,
        "sub" => HalfOp::Sub,
        "mul" => HalfOp::Mul,
        "fma" => HalfOp::Fma,
        "neg" => HalfOp::Neg,
        "abs" => HalfOp::Abs,
        "min" => HalfOp::Min,
        "max" => HalfOp::Max,
        "ex2" => HalfOp::Ex2,
        "tanh" => HalfOp::Tanh,
        o => panic!("{o}"),
    };
    let ty = parts[parts.len() - 1];
    let f = if ty.starts_with("bf16") {
        Fmt::Bf16
    } else {
        Fmt::F16
    };
    let flags = &parts[1..parts.len() - 1];
    let has = |s: &str| flags.contains(&s);
    (
        op,
        f,
        mode(
            has("ftz"),
            has("sat"),
            has("relu"),
            has("NaN"),
            has("xorsign"),
        ),
    )
}

fn cmp_ref(name: &str, x: f64, y: f64) -> bool {
    let u = x.is_nan() || y.is_nan();
    match name {
        "eq" => x == y,
        "ne" => !u && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "equ" => u || x == y,
        "neu" => u || x != y,
        "ltu" => u || x < y,
        "leu" => u || x <= y,
        "gtu" => u || x > y,
        "geu" => u || x >= y,
        "num" => !u,
        "nan" => u,
        _ => panic!("{name}"),
    }
}

/// Expected comparison word `k` (0-based among the comparisons) for inputs a, b, c.
fn expect_cmp(k: usize, a: u32, b: u32, c: u32) -> u32 {
    let (al, ah, bl, bh) = (a as u16, (a >> 16) as u16, b as u16, (b >> 16) as u16);
    let pc = c & 1 != 0;
    let h = |f: Fmt, ftz: bool, name: &str, x: u16, y: u16| {
        let (x, y) = if ftz {
            (f.flush(x), f.flush(y))
        } else {
            (x, y)
        };
        cmp_ref(name, f.dec(x), f.dec(y))
    };
    let (fh, bfh) = (Fmt::F16, Fmt::Bf16);
    let pq = |p: bool, q: bool| p as u32 | (q as u32) << 1;
    let pack = |lo: u16, hi: u16| lo as u32 | (hi as u32) << 16;
    let v = |t: bool, one: u16| if t { one } else { 0 };
    match k {
        0 => pq(h(fh, false, "lt", al, bl), h(fh, false, "lt", ah, bh)),
        1 => pq(
            h(bfh, false, "geu", al, bl) && pc,
            h(bfh, false, "geu", ah, bh) && pc,
        ),
        2 => pq(h(fh, true, "ne", al, bl), h(bfh, false, "num", ah, bh)),
        3 => pack(
            v(h(fh, false, "gtu", al, bl), 0x3c00),
            v(h(fh, false, "gtu", ah, bh), 0x3c00),
        ),
        4 => pack(
            v(h(bfh, false, "le", al, bl) || !pc, 0xffff),
            v(h(bfh, false, "le", ah, bh) || !pc, 0xffff),
        ),
        5 => pack(
            v(h(fh, true, "eq", al, bl), 0xffff),
            v(h(fh, true, "eq", ah, bh), 0xffff),
        ),
        6 => pack(
            v(h(bfh, false, "ltu", al, bl), 0x3f80),
            v(h(bfh, false, "ltu", ah, bh), 0x3f80),
        ),
        7 => pack(
            v(h(fh, false, "lt", al, bl), 0x3c00),
            v(h(fh, false, "nan", ah, bh), 0x3c00),
        ),
        8 => pack(
            v(h(bfh, false, "ge", al, bl), 0x3f80),
            v(h(bfh, false, "equ", ah, bh) != pc, 0x3f80),
        ),
        9 => pack(
            v(h(fh, false, "lt", al, bl), 0xffff),
            v(h(bfh, false, "gt", ah, bh), 0xffff),
        ),
        10 => {
            // f32 operands: the words a and b; .ftz flushes f32 subnormals.
            let fl = |x: u32| {
                if x & 0x7f80_0000 == 0 {
                    x & 0x8000_0000
                } else {
                    x
                }
            };
            let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
            let (xf, yf) = (f32::from_bits(fl(a)) as f64, f32::from_bits(fl(b)) as f64);
            pack(
                v(cmp_ref("lt", xf, yf), 0x3c00),
                v(cmp_ref("ge", x, y), 0x3f80),
            )
        }
        11 => {
            if h(bfh, false, "ne", al, bh) {
                u32::MAX
            } else {
                0
            }
        }
        _ => unreachable!(),
    }
}

fn kernel_inputs(n: usize) -> [Vec<u32>; 3] {
    let mut pool = value_set(Fmt::F16, 512, 0x0bad_cafe);
    pool.extend(value_set(Fmt::Bf16, 512, 0x5eed_1234));
    let mut s = 0x6a09_e667u32;
    let mut word = || {
        let lo = pool[xorshift(&mut s) as usize % pool.len()] as u32;
        let hi = pool[xorshift(&mut s) as usize % pool.len()] as u32;
        lo | hi << 16
    };
    let a: Vec<u32> = (0..n).map(|_| word()).collect();
    let b: Vec<u32> = (0..n).map(|_| word()).collect();
    let mut c: Vec<u32> = (0..n).map(|_| word()).collect();
    // Some equal operands, so that eq/ne and ±0 orderings are exercised.
    for t in (0..n).step_by(7) {
        c[t] ^= 1;
    }
    let mut b = b;
    for t in (0..n).step_by(5) {
        b[t] = a[t] ^ (((t as u32 / 5) & 1) * 0x8000_8000);
    }
    [a, b, c]
}

#[test]
fn kernel_on_both_backends() {
    let src = include_str!("ptx/half.ptx");
    // The kernel holds the instructions of ARITH in this order.
    let mut pos = 0;
    for mn in ARITH {
        let at = src[pos..]
            .find(&format!("    {mn} "))
            .unwrap_or_else(|| panic!("{mn} not in half.ptx after byte {pos}"));
        pos += at + 1;
    }
    let dev = Device::new().unwrap();
    let m = dev.load_ptx(src, "half.ptx").unwrap();
    let n = 128 * 32;
    let [a, b, c] = kernel_inputs(n);
    let mut outs = Vec::new();
    for be in [Backend::Jit, Backend::Interp] {
        let (ba, bb, bc) = (
            dev.alloc_from(&a).unwrap(),
            dev.alloc_from(&b).unwrap(),
            dev.alloc_from(&c).unwrap(),
        );
        let bo = dev.alloc_zeroed(n * K * 4).unwrap();
        let cfg = LaunchConfig::new((n / 128) as u32, 128).backend(be);
        dev.launch(
            &m,
            "half",
            &cfg,
            &[(&ba).into(), (&bb).into(), (&bc).into(), (&bo).into()],
        )
        .unwrap();
        let r: Vec<u32> = dev.read(&bo).unwrap();
        for t in 0..n {
            let (x, y, z) = (a[t], b[t], c[t]);
            for (k, mn) in ARITH.iter().enumerate() {
                let (op, f, md) = parse(mn);
                let got = r[t * K + k];
                for half in [0, 16] {
                    let (p, q, s) = ((x >> half) as u16, (y >> half) as u16, (z >> half) as u16);
                    let g = (got >> half) as u16;
                    let ctx = format!("{be:?} {mn} t={t} a={p:#06x} b={q:#06x} c={s:#06x}");
                    if matches!(op, HalfOp::Ex2 | HalfOp::Tanh) {
                        check_approx(f, op, p, g);
                        assert_eq!(g, hops::half(f.kind(), op, md, p, 0, 0), "{ctx}");
                    } else {
                        assert_eq!(g, expect(f, op, md, p, q, s), "{ctx}");
                    }
                }
            }
            for j in 0..K - ARITH.len() {
                let got = r[t * K + ARITH.len() + j];
                assert_eq!(
                    got,
                    expect_cmp(j, x, y, z),
                    "{be:?} comparison {j} t={t} a={x:#010x} b={y:#010x} c={z:#010x}"
                );
            }
        }
        outs.push(r);
    }
    assert_eq!(outs[0], outs[1], "JIT and interpreter agree bit for bit");
}

#[test]
fn invalid_forms_are_located_errors() {
    let head = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n";
    let cases = [
        ("\tadd.rz.f16 %h0, %h1, %h2;", "rounds to nearest even only"),
        (
            "\tfma.f16 %h0, %h1, %h2, %h3;",
            "rounding modifier required",
        ),
        (
            "\tmad.rn.f16 %h0, %h1, %h2, %h3;",
            "no half-precision 'mad'",
        ),
        ("\tadd.ftz.bf16 %h0, %h1, %h2;", "'.ftz' is not valid"),
        ("\tmul.sat.bf16x2 %r0, %r1, %r2;", "'.sat' is not valid"),
        (
            "\tfma.rn.sat.relu.f16 %h0, %h1, %h2, %h3;",
            "together with '.sat'",
        ),
        ("\tadd.rn.oob.f16 %h0, %h1, %h2;", "'.oob' is not valid"),
        ("\tadd.relu.f16 %h0, %h1, %h2;", "'.relu' is not valid"),
        ("\tneg.ftz.bf16 %h0, %h1;", "'.ftz' is not valid"),
        ("\tmin.ftz.bf16 %h0, %h1, %h2;", "'.ftz' is not valid"),
        ("\tmax.xorsign.f16 %h0, %h1, %h2;", "go together"),
        ("\tadd.NaN.f16 %h0, %h1, %h2;", "'.NaN' is not valid"),
        ("\tex2.f16 %h0, %h1;", "needs '.approx'"),
        ("\tex2.approx.bf16 %h0, %h1;", "needs '.ftz'"),
        ("\tex2.approx.ftz.f16 %h0, %h1;", "'.ftz' is not valid"),
        ("\ttanh.approx.ftz.bf16 %h0, %h1;", "'.ftz' is not valid"),
        ("\tadd.f16 %h0, %h1, %r2;", "%r2"),
        ("\tadd.f16x2 %r0, %r1, %h2;", "%h2"),
        (
            "\tset.lt.f16.bf16 %h0, %h1, %h2;",
            "not valid with source type",
        ),
        (
            "\tset.lt.u16.f32 %h0, %f1, %f0;",
            "not valid with source type",
        ),
        ("\tset.lt.ftz.bf16.f32 %h0, %f1, %f0;", "'.ftz'"),
        ("\tsetp.lt.ftz.bf16x2 %p0|%p1, %r1, %r2;", "'.ftz'"),
    ];
    for (body, want) in cases {
        let src = format!("{head}\t.reg .pred %p<2>;\n{body}\n\tret;\n}}\n");
        let e = ptxjit::check::parse_and_check(&src, "e.ptx")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("e.ptx:10:") && e.contains(want),
            "{body}: {e}"
        );
    }
}
