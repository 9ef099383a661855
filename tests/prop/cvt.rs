//! `cvt` between every pair of integer and float types the front end accepts, with every
//! rounding modifier, `.ftz` and `.sat`; 8- and 16-bit values both in 16-bit registers
//! and in 32-bit registers (the relaxed operand rules: a narrower result is sign- or
//! zero-extended into the register, a wider source register is truncated). Independent
//! reference: `oracle.rs` (integer rounding into each format, f64 comparisons for the
//! integer ranges).

use super::int::val;
use super::oracle::{self, Fmt, Mode, BF16, F16, F32, F64};
use super::{gen, mask, Form, Gen, Reg};
use ptxjit::ir::{Rnd, Type};
use ptxjit::ops;
use std::sync::Arc;

pub const INTS: [Type; 8] = [
    Type::U8,
    Type::S8,
    Type::U16,
    Type::S16,
    Type::U32,
    Type::S32,
    Type::U64,
    Type::S64,
];

fn fmt(t: Type) -> Fmt {
    match t {
        Type::F16 => F16,
        Type::BF16 => BF16,
        Type::F32 => F32,
        _ => F64,
    }
}

fn reg_of(t: Type) -> Reg {
    match t.bits() {
        8 | 16 => Reg::H,
        32 => Reg::R,
        _ => Reg::D,
    }
}

fn rnd_name(r: Option<Rnd>) -> &'static str {
    match r {
        None => "",
        Some(Rnd::Rn) => ".rn",
        Some(Rnd::Rz) => ".rz",
        Some(Rnd::Rm) => ".rm",
        Some(Rnd::Rp) => ".rp",
        Some(Rnd::Rni) => ".rni",
        Some(Rnd::Rzi) => ".rzi",
        Some(Rnd::Rmi) => ".rmi",
        Some(Rnd::Rpi) => ".rpi",
    }
}

fn mode_of(r: Option<Rnd>) -> Mode {
    match r {
        Some(Rnd::Rz | Rnd::Rzi) => Mode::Rz,
        Some(Rnd::Rm | Rnd::Rmi) => Mode::Rm,
        Some(Rnd::Rp | Rnd::Rpi) => Mode::Rp,
        _ => Mode::Rn,
    }
}

fn irnd_index(r: Option<Rnd>) -> usize {
    match r {
        Some(Rnd::Rni) => 0,
        Some(Rnd::Rmi) => 2,
        Some(Rnd::Rpi) => 3,
        _ => 1, // .rzi, and the default of float -> int
    }
}

fn range(t: Type) -> (i128, i128) {
    let w = t.bits();
    if t.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// The reference `cvt`.
pub fn cvt_ref(d: Type, s: Type, rnd: Option<Rnd>, ftz: bool, sat: bool, a: u64) -> u64 {
    let a = a & mask(s.bits());
    let dm = mask(d.bits());
    match (s.is_float(), d.is_float()) {
        (false, false) => {
            let v = val(s, a);
            let v = if sat {
                let (lo, hi) = range(d);
                v.clamp(lo, hi)
            } else {
                v
            };
            v as u128 as u64 & dm
        }
        (false, true) => {
            let f = fmt(d);
            let r = oracle::int_to_float(val(s, a), f, mode_of(rnd));
            if sat {
                oracle::sat_bits(f, r, true)
            } else {
                r
            }
        }
        (true, false) => {
            let sf = fmt(s);
            let a = if ftz && s == Type::F32 {
                sf.flush(a)
            } else {
                a
            };
            let x = sf.to_f64(a);
            if x.is_nan() {
                // 0 (the ISA's rule) from f32/f16/bf16 to 32 bits or fewer; the
                // destination's sign bit from f64 or to 64 bits, as an H100 gives
                // (tests/golden).
                return if s == Type::F64 || d.bits() == 64 {
                    1u64 << (d.bits() - 1)
                } else {
                    0
                };
            }
            let r = oracle::round_integral(x, irnd_index(rnd));
            let (lo, hi) = range(d);
            let v = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            v as u128 as u64 & dm
        }
        (true, true) => {
            let (sf, df) = (fmt(s), fmt(d));
            let a = if ftz && s == Type::F32 {
                sf.flush(a)
            } else {
                a
            };
            if sf.is_nan(a) {
                return if sat { 0 } else { df.nan() };
            }
            let x = sf.to_f64(a);
            let integral = matches!(rnd, Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi));
            let x = if integral {
                oracle::round_integral(x, irnd_index(rnd))
            } else {
                x
            };
            let r = if x.is_infinite() {
                if x < 0.0 {
                    df.sign() | df.inf()
                } else {
                    df.inf()
                }
            } else {
                oracle::round_f64(x, 0, df, mode_of(rnd))
            };
            let r = if ftz && d == Type::F32 {
                df.flush(r)
            } else {
                r
            };
            if sat {
                oracle::sat_bits(df, r, true)
            } else {
                r
            }
        }
    }
}

/// Integers that are rounding ties (or one away from them) for `p`-bit significands, in
/// `w` bits, mixed with `gen::int(w)`.
fn int_ties(w: u32) -> Gen {
    Arc::new(move |r, lane, prev| {
        if r.u32() & 1 == 0 {
            return gen::int(w)(r, lane, prev);
        }
        let p = [8u32, 11, 24, 53][r.range(0, 4) as usize];
        if p + 1 >= w {
            return gen::int_value(r, w);
        }
        // p+1 significant bits ending in 1: halfway between two p-bit neighbours.
        let m = (1u64 << p) | (r.u64() & mask(p)) | 1;
        let m = (m as i64 + r.range(0, 3) as i64 - 1) as u64;
        let k = r.range(0, w - p);
        let v = m << k;
        if r.u32() & 1 == 0 {
            v & mask(w)
        } else {
            v.wrapping_neg() & mask(w)
        }
    })
}

fn src_gen(t: Type) -> Gen {
    match t {
        Type::F32 => gen::f32(),
        Type::F64 => gen::f64(),
        Type::F16 => gen::half(false),
        Type::BF16 => gen::half(true),
        _ => int_ties(t.bits()),
    }
}

fn form(
    d: Type,
    s: Type,
    rnd: Option<Rnd>,
    ftz: bool,
    sat: bool,
    regs: Option<(Reg, Reg)>,
) -> Form {
    let text = format!(
        "cvt{}{}{}.{}.{}",
        rnd_name(rnd),
        if ftz { ".ftz" } else { "" },
        if sat { ".sat" } else { "" },
        d.name(),
        s.name()
    );
    let (dr, sr) = regs.unwrap_or((reg_of(d), reg_of(s)));
    let name = if regs.is_some() {
        format!("{text} (b32 registers)")
    } else {
        text.clone()
    };
    let g = if sr == Reg::R && s.bits() < 32 {
        // Garbage above the source type's bits: the instruction must ignore it.
        gen::any()
    } else {
        src_gen(s)
    };
    Form::new(name, format!("{text} {{d}}, {{a}};"))
        .src(sr, g)
        .dst_ext(dr, d.bits(), d.is_signed())
        .ops1(move |x| ops::cvt(d, s, rnd, ftz, sat, x[0]))
        .indep1(move |x| cvt_ref(d, s, rnd, ftz, sat, x[0]))
}

const FRND: [Option<Rnd>; 4] = [Some(Rnd::Rn), Some(Rnd::Rz), Some(Rnd::Rm), Some(Rnd::Rp)];
const IRND: [Option<Rnd>; 4] = [
    Some(Rnd::Rni),
    Some(Rnd::Rzi),
    Some(Rnd::Rmi),
    Some(Rnd::Rpi),
];

/// The forms between `types` (integer and float types; half types only where the front
/// end takes them).
pub fn forms(types: &[Type]) -> Vec<Form> {
    let mut v = Vec::new();
    for &d in types {
        for &s in types {
            match (s.is_float(), d.is_float()) {
                (false, false) => {
                    v.push(form(d, s, None, false, false, None));
                    // ptxas rejects a .sat that cannot clamp (so does ptxjit).
                    let (sl, sh) = range(s);
                    let (dl, dh) = range(d);
                    if sl < dl || sh > dh {
                        v.push(form(d, s, None, false, true, None));
                    }
                }
                (false, true) => {
                    for (k, rnd) in FRND.into_iter().enumerate() {
                        v.push(form(d, s, rnd, false, false, None));
                        if k < 2 {
                            v.push(form(d, s, rnd, false, true, None));
                        }
                        if k == 0 && d == Type::F32 {
                            v.push(form(d, s, rnd, true, false, None));
                        }
                    }
                }
                (true, false) => {
                    for rnd in IRND {
                        v.push(form(d, s, rnd, false, false, None));
                        if s == Type::F32 {
                            v.push(form(d, s, rnd, true, false, None));
                        }
                    }
                    v.push(form(d, s, Some(Rnd::Rzi), false, true, None));
                }
                (true, true) => {
                    let ftzs: &[bool] = if d == Type::F32 || s == Type::F32 {
                        &[false, true]
                    } else {
                        &[false]
                    };
                    let rnds: Vec<Option<Rnd>> = if d.bits() < s.bits() {
                        FRND.to_vec()
                    } else if d == s {
                        let mut r = vec![None];
                        r.extend(IRND);
                        r
                    } else {
                        vec![None]
                    };
                    for rnd in rnds {
                        for &ftz in ftzs {
                            for sat in [false, true] {
                                v.push(form(d, s, rnd, ftz, sat, None));
                            }
                        }
                    }
                }
            }
        }
    }
    // Narrow integer types in 32-bit registers.
    for n in [Type::U8, Type::S8, Type::U16, Type::S16] {
        for w in [Type::U32, Type::S32] {
            v.push(form(w, n, None, false, false, Some((Reg::R, Reg::R))));
            v.push(form(n, w, None, false, false, Some((Reg::R, Reg::R))));
            v.push(form(n, w, None, false, true, Some((Reg::R, Reg::R))));
        }
        v.push(form(
            Type::F32,
            n,
            Some(Rnd::Rn),
            false,
            false,
            Some((Reg::R, Reg::R)),
        ));
        v.push(form(
            n,
            Type::F32,
            Some(Rnd::Rni),
            false,
            false,
            Some((Reg::R, Reg::R)),
        ));
    }
    v
}

/// Every type pair without half types.
pub fn main_forms() -> Vec<Form> {
    let mut t = INTS.to_vec();
    t.extend([Type::F32, Type::F64]);
    forms(&t)
}

/// The pairs that involve `.f16` or `.bf16`.
pub fn half_forms() -> Vec<Form> {
    let mut all = INTS.to_vec();
    all.extend([Type::F32, Type::F64, Type::F16, Type::BF16]);
    // ptxas takes no .sat with a bf16 source or destination and no 8-bit integer bf16
    // conversions.
    forms(&all)
        .into_iter()
        .filter(|f| f.name.contains("f16"))
        .filter(|f| {
            !(f.name.contains("bf16")
                && (f.name.contains(".sat") || f.name.contains("u8") || f.name.contains("s8")))
        })
        .collect()
}
