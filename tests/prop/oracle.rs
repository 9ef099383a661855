//! Independent references for the float families, written without `ptxjit::ops` and
//! without `rustc_apfloat`:
//!
//! - one rounding function, [`round`], that rounds a value `m * 2^e` (plus an
//!   infinitesimal of known sign) into any binary format (f16, bf16, f32, f64) in any
//!   IEEE rounding mode, with subnormals and overflow, by integer arithmetic;
//! - exact arithmetic in f64 to feed it: a product of two f32 (or halves) is exact in f64;
//!   a sum's rounding error comes from Fast2Sum, a quotient's and a square root's from
//!   the exact remainder `fma(-q, b, a)` / `fma(-s, s, a)`; so the f32 result of every
//!   mode is the exact value rounded once. For f64 operands the same error terms give the
//!   directed modes of `add sub mul div sqrt` wherever they are exact (results far from
//!   the subnormal range; elsewhere the reference abstains);
//! - the PTX rules on top, as the ISA states them: `.ftz` flushes subnormal inputs and
//!   results to a zero of the same sign, `.sat` clamps to [0, 1] and NaN to +0, and a NaN
//!   result is ptxjit's canonical NaN (f32 `0x7fffffff`, f64 `0x7fffffffffffffff`,
//!   f16/bf16 `0x7fff`).

/// A binary floating-point format: `p` significand bits (with the hidden bit) and
/// `ebits` exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    pub p: u32,
    pub ebits: u32,
}

pub const F16: Fmt = Fmt { p: 11, ebits: 5 };
pub const BF16: Fmt = Fmt { p: 8, ebits: 8 };
pub const F32: Fmt = Fmt { p: 24, ebits: 8 };
pub const F64: Fmt = Fmt { p: 53, ebits: 11 };

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    /// Exponent of the quantum (last place) of subnormals.
    fn qmin(self) -> i32 {
        1 - self.bias() - (self.p as i32 - 1)
    }
    pub fn width(self) -> u32 {
        self.p + self.ebits
    }
    pub fn sign(self) -> u64 {
        1 << (self.width() - 1)
    }
    pub fn inf(self) -> u64 {
        ((1u64 << self.ebits) - 1) << (self.p - 1)
    }
    pub fn max(self) -> u64 {
        self.inf() - 1
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << (self.p - 1)
    }
    /// ptxjit's canonical NaN of the format.
    pub fn nan(self) -> u64 {
        if self.width() == 16 {
            0x7fff
        } else {
            self.sign() - 1
        }
    }
    pub fn is_nan(self, x: u64) -> bool {
        x & !self.sign() > self.inf()
    }
    pub fn is_inf(self, x: u64) -> bool {
        x & !self.sign() == self.inf()
    }
    pub fn is_zero(self, x: u64) -> bool {
        x & !self.sign() == 0
    }
    pub fn is_subnormal(self, x: u64) -> bool {
        let m = x & !self.sign();
        m != 0 && m < 1 << (self.p - 1)
    }
    /// Flushes a subnormal to a zero of the same sign.
    pub fn flush(self, x: u64) -> u64 {
        if self.is_subnormal(x) {
            x & self.sign()
        } else {
            x
        }
    }
    /// The exact value as an f64 (every f16, bf16, f32 and f64 value is one).
    pub fn to_f64(self, x: u64) -> f64 {
        let neg = x & self.sign() != 0;
        let mag = x & !self.sign();
        let emask = (1u64 << self.ebits) - 1;
        let e = (mag >> (self.p - 1)) & emask;
        let f = mag & ((1 << (self.p - 1)) - 1);
        let v = if e == emask {
            if f == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if e == 0 {
            f as f64 * pow2(self.qmin())
        } else {
            (f | 1 << (self.p - 1)) as f64 * pow2(e as i32 - self.bias() - (self.p as i32 - 1))
        };
        if neg {
            -v
        } else {
            v
        }
    }
}

/// 2^k exactly (k in -1074..=1023).
pub fn pow2(k: i32) -> f64 {
    assert!((-1074..=1023).contains(&k), "2^{k}");
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// IEEE rounding modes (`.rn .rz .rm .rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}

pub const MODES: [(Mode, &str); 4] = [
    (Mode::Rn, "rn"),
    (Mode::Rz, "rz"),
    (Mode::Rm, "rm"),
    (Mode::Rp, "rp"),
];

/// Rounds `(-1)^neg * (m * 2^e + t)` into `f`, where `t` is an infinitesimal whose sign
/// (relative to the magnitude) is `tail` (-1, 0, 1): the exact value lies strictly
/// between `m * 2^e` and its neighbours at any precision of interest. `m > 0`.
pub fn round(neg: bool, m: u128, e: i32, tail: i32, f: Fmt, mode: Mode) -> u64 {
    assert!(m > 0);
    let p = f.p as i32;
    let len = 128 - m.leading_zeros() as i32;
    let l = e + len - 1; // floor(log2(value))
    let mut q = (l - (p - 1)).max(f.qmin());
    // Floor of value / 2^q, and the remainder compared with half a quantum.
    let (mut n, rem_cmp_half, rem_zero) = if e >= q {
        (m << (e - q), std::cmp::Ordering::Less, true)
    } else {
        let s = (q - e) as u32;
        if s >= 128 {
            (0, std::cmp::Ordering::Less, false)
        } else {
            let n = m >> s;
            let r = m & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            (n, r.cmp(&half), r == 0)
        }
    };
    // Direction on the magnitude.
    #[derive(PartialEq)]
    enum Dir {
        Near,
        Down,
        Up,
    }
    let dir = match (mode, neg) {
        (Mode::Rn, _) => Dir::Near,
        (Mode::Rz, _) | (Mode::Rm, false) | (Mode::Rp, true) => Dir::Down,
        _ => Dir::Up,
    };
    if rem_zero {
        match tail.signum() {
            0 => {}
            1 => {
                if dir == Dir::Up {
                    n += 1;
                }
            }
            _ => {
                if dir == Dir::Down {
                    // Just below n * 2^q: the next value down, with a finer quantum below
                    // a power of two.
                    if n == 1u128 << (p - 1) && q > f.qmin() {
                        n <<= 1;
                        q -= 1;
                    }
                    n -= 1;
                }
            }
        }
    } else {
        let up = match dir {
            Dir::Down => false,
            Dir::Up => true,
            Dir::Near => match rem_cmp_half {
                std::cmp::Ordering::Less => false,
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Equal => match tail.signum() {
                    1 => true,
                    -1 => false,
                    _ => n & 1 == 1,
                },
            },
        };
        if up {
            n += 1;
        }
    }
    let sign = if neg { f.sign() } else { 0 };
    if n == 0 {
        return sign;
    }
    if n >= 1u128 << p {
        n >>= 1;
        q += 1;
    }
    let overflow = |sign: u64| {
        if dir == Dir::Down {
            sign | f.max()
        } else {
            sign | f.inf()
        }
    };
    if n >= 1u128 << (p - 1) {
        let eb = q + (p - 1) + f.bias();
        if eb >= (1 << f.ebits) - 1 {
            return overflow(sign);
        }
        sign | (eb as u64) << (p - 1) | (n as u64 - (1u64 << (p - 1)))
    } else {
        sign | n as u64
    }
}

/// Rounds the f64 `x` (plus an infinitesimal of sign `tail`, relative to the signed
/// value) into `f`. `x` must be finite; a zero `x` needs `tail == 0`.
pub fn round_f64(x: f64, tail: i32, f: Fmt, mode: Mode) -> u64 {
    if x == 0.0 {
        assert_eq!(tail, 0, "zero with a tail");
        return if x.is_sign_negative() { f.sign() } else { 0 };
    }
    let b = x.to_bits();
    let ex = ((b >> 52) & 0x7ff) as i32;
    let frac = b & ((1 << 52) - 1);
    let (m, e) = if ex == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, ex - 1075)
    };
    let neg = x < 0.0;
    let tail_mag = if neg { -tail } else { tail };
    round(neg, m as u128, e, tail_mag, f, mode)
}

/// Fast2Sum with ordering: `s + err == a + b` exactly (finite, no overflow).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let (x, y) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let s = x + y;
    let err = y - (s - x);
    (s, err)
}

fn sgn(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Float arithmetic operations of the references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
}

/// The sign of an exact zero sum `x + y` (IEEE 754 6.3): the common sign of two zeros of
/// the same sign, else -0 in round-down and +0 otherwise.
fn zero_sum_sign(x: f64, y: f64, mode: Mode) -> bool {
    if x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative() {
        x.is_sign_negative()
    } else {
        mode == Mode::Rm
    }
}

/// `op` on operands that are values of a format of at most 24 significant bits (f32,
/// f16, bf16, widened exactly to f64), rounded into `f`: exact sums, products and
/// quotients in f64 plus their error terms, rounded once. NaN results are `f.nan()`.
pub fn narrow_op(op: FOp, mode: Mode, f: Fmt, a: f64, b: f64, c: f64) -> u64 {
    let nan = f.nan();
    if a.is_nan()
        || (b.is_nan() && op != FOp::Sqrt && op != FOp::Rcp)
        || (op == FOp::Fma && c.is_nan())
    {
        return nan;
    }
    let zero = |neg: bool| if neg { f.sign() } else { 0 };
    let (x, tail): (f64, i32) = match op {
        FOp::Add | FOp::Sub => {
            let b = if op == FOp::Sub { -b } else { b };
            let s = a + b;
            if s.is_nan() {
                return nan;
            }
            if s.is_infinite() {
                return round_inf(s, f);
            }
            let (s, err) = two_sum(a, b);
            if s == 0.0 && err == 0.0 {
                return zero(zero_sum_sign(a, b, mode));
            }
            (s, sgn(err))
        }
        FOp::Mul => {
            let p = a * b; // exact: at most 48 significant bits
            if p.is_nan() {
                return nan;
            }
            if p.is_infinite() {
                return round_inf(p, f);
            }
            if p == 0.0 {
                return zero(a.is_sign_negative() ^ b.is_sign_negative());
            }
            (p, 0)
        }
        FOp::Fma => {
            let p = a * b;
            let s = p + c;
            if s.is_nan() {
                return nan;
            }
            if s.is_infinite() {
                return round_inf(s, f);
            }
            let (s, err) = two_sum(p, c);
            if s == 0.0 && err == 0.0 {
                // The product's sign takes part even when it is a zero.
                let pz = if p == 0.0 {
                    if a.is_sign_negative() ^ b.is_sign_negative() {
                        -0.0
                    } else {
                        0.0
                    }
                } else {
                    p
                };
                return zero(zero_sum_sign(pz, c, mode));
            }
            (s, sgn(err))
        }
        FOp::Div | FOp::Rcp => {
            let (a, b) = if op == FOp::Rcp { (1.0, a) } else { (a, b) };
            let q = a / b;
            if q.is_nan() {
                return nan;
            }
            if q.is_infinite() || q == 0.0 {
                // Division by zero, an infinite operand, or a zero dividend: exact.
                return if q == 0.0 {
                    zero(q.is_sign_negative())
                } else {
                    round_inf(q, f)
                };
            }
            let r = (-q).mul_add(b, a); // exact remainder
            (q, sgn(r) * sgn(b))
        }
        FOp::Sqrt => {
            if a < 0.0 {
                return nan;
            }
            if a == 0.0 || a.is_infinite() {
                return round_inf_or_zero(a.sqrt(), f);
            }
            let s = a.sqrt();
            let r = (-s).mul_add(s, a); // exact
            (s, sgn(r))
        }
    };
    round_f64(x, tail, f, mode)
}

fn round_inf(x: f64, f: Fmt) -> u64 {
    if x < 0.0 {
        f.sign() | f.inf()
    } else {
        f.inf()
    }
}

fn round_inf_or_zero(x: f64, f: Fmt) -> u64 {
    if x.is_infinite() {
        round_inf(x, f)
    } else if x.is_sign_negative() {
        f.sign()
    } else {
        0
    }
}

/// f32 arithmetic with PTX's modifiers: `.ftz` (inputs and result), `.sat` ([+0, 1]:
/// NaN and -0 -> +0, as `cvt.sat` and the half-precision `.sat`).
pub fn f32_op(op: FOp, mode: Mode, ftz: bool, sat: bool, a: u32, b: u32, c: u32) -> u32 {
    let fl = |x: u32| if ftz { F32.flush(x as u64) } else { x as u64 };
    let v = |x: u32| F32.to_f64(fl(x));
    let r = narrow_op(op, mode, F32, v(a), v(b), v(c));
    let r = if sat { sat_bits(F32, r, true) } else { r };
    (if ftz { F32.flush(r) } else { r }) as u32
}

/// `.sat`: NaN -> +0, below 0 -> +0, above 1 -> 1. `-0` becomes +0 when `zero_to_pos`.
pub fn sat_bits(f: Fmt, x: u64, zero_to_pos: bool) -> u64 {
    if f.is_nan(x) {
        return 0;
    }
    let v = f.to_f64(x);
    if v < 0.0 || (zero_to_pos && v == 0.0) {
        0
    } else if v > 1.0 {
        f.one()
    } else {
        x
    }
}

/// f64 arithmetic: `None` where the error-term argument does not hold (results near the
/// subnormal range for mul/div/sqrt, and fma in a directed mode).
pub fn f64_op(op: FOp, mode: Mode, a: u64, b: u64, c: u64) -> Option<u64> {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let nan = F64.nan();
    let tiny = 2f64.powi(-960);
    let zero = |neg: bool| if neg { F64.sign() } else { 0 };
    // Overflow of a finite result: infinity or the largest finite value by direction.
    let over = |r: f64| round(r < 0.0, (1u128 << 53) - 1, 1024 - 52, 1, F64, mode);
    let (r, tail) = match op {
        FOp::Add | FOp::Sub => {
            let y = if op == FOp::Sub { -y } else { y };
            let s = x + y;
            if s.is_nan() {
                return Some(nan);
            }
            if s.is_infinite() {
                return Some(if x.is_infinite() || y.is_infinite() {
                    s.to_bits()
                } else {
                    over(s)
                });
            }
            let (s, err) = two_sum(x, y);
            if s == 0.0 && err == 0.0 {
                return Some(zero(zero_sum_sign(x, y, mode)));
            }
            (s, sgn(err))
        }
        FOp::Mul => {
            let p = x * y;
            if p.is_nan() {
                return Some(nan);
            }
            if p.is_infinite() {
                return Some(if x.is_infinite() || y.is_infinite() {
                    p.to_bits()
                } else {
                    over(p)
                });
            }
            if x == 0.0 || y == 0.0 {
                return Some(zero(x.is_sign_negative() ^ y.is_sign_negative()));
            }
            if p.abs() < tiny {
                return None;
            }
            (p, sgn(x.mul_add(y, -p)))
        }
        FOp::Fma => {
            if mode != Mode::Rn {
                return None;
            }
            let r = x.mul_add(y, z);
            return Some(if r.is_nan() { nan } else { r.to_bits() });
        }
        FOp::Div | FOp::Rcp => {
            let (x, y) = if op == FOp::Rcp { (1.0, x) } else { (x, y) };
            let q = x / y;
            if q.is_nan() {
                return Some(nan);
            }
            if x.is_infinite() || y.is_infinite() || y == 0.0 || x == 0.0 {
                return Some(q.to_bits());
            }
            if q.is_infinite() {
                return Some(over(q));
            }
            if q.abs() < tiny || x.abs() < tiny {
                return None;
            }
            let r = (-q).mul_add(y, x);
            (q, sgn(r) * sgn(y))
        }
        FOp::Sqrt => {
            if x.is_nan() || x < 0.0 {
                return Some(nan);
            }
            if x == 0.0 || x.is_infinite() {
                return Some(x.sqrt().to_bits());
            }
            if x < tiny {
                return None;
            }
            let s = x.sqrt();
            (s, sgn((-s).mul_add(s, x)))
        }
    };
    Some(round_f64(r, tail, F64, mode))
}

/// PTX float comparisons (`setp`), on exact values.
pub fn fcmp(cmp: &str, a: f64, b: f64) -> bool {
    let u = a.is_nan() || b.is_nan();
    match cmp {
        "eq" => a == b,
        "ne" => !u && a != b,
        "lt" => a < b,
        "le" => a <= b,
        "gt" => a > b,
        "ge" => a >= b,
        "equ" => u || a == b,
        "neu" => u || a != b,
        "ltu" => u || a < b,
        "leu" => u || a <= b,
        "gtu" => u || a > b,
        "geu" => u || a >= b,
        "num" => !u,
        "nan" => u,
        _ => panic!("comparison {cmp}"),
    }
}

/// PTX `min`/`max` on bits of format `f` (no modifiers): a NaN loses to a number, two
/// NaNs give the canonical NaN, -0 < +0.
pub fn fminmax(f: Fmt, max: bool, a: u64, b: u64) -> u64 {
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    if na && nb {
        return f.nan();
    }
    if na {
        return b;
    }
    if nb {
        return a;
    }
    let (x, y) = (f.to_f64(a), f.to_f64(b));
    // Order with -0 < +0.
    let key = |v: f64| (v, v == 0.0 && !v.is_sign_negative());
    let a_less = x < y || (x == y && !key(x).1 && key(y).1);
    let b_less = y < x || (x == y && key(x).1 && !key(y).1);
    if max {
        if a_less {
            b
        } else {
            a
        }
    } else if b_less {
        b
    } else {
        a
    }
}

/// Rounds an integer into `f` (`cvt.rnd.float.int`).
pub fn int_to_float(v: i128, f: Fmt, mode: Mode) -> u64 {
    if v == 0 {
        return 0;
    }
    round(v < 0, v.unsigned_abs(), 0, 0, f, mode)
}

/// Integer rounding of a float value (`.rni .rzi .rmi .rpi`; index 0..3).
pub fn round_integral(x: f64, irnd: usize) -> f64 {
    match irnd {
        0 => x.round_ties_even(),
        1 => x.trunc(),
        2 => x.floor(),
        _ => x.ceil(),
    }
}
