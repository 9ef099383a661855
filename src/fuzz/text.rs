//! Input specs as text (the `ptxjit fuzz --input SPEC` syntax), parsed into [`Input`]s,
//! and dimension ranges.
//!
//! ```text
//! u8[rest]  u8[rest:4096]   a fuzzed buffer taking every byte left (at most 4096 elements)
//! u32[16]   i32[0..64]      a fuzzed buffer of 16 / a fuzzer-chosen 0..=64 elements
//! f32[=0]                   a fuzzed buffer as long as buffer input 0
//! out:u32[33]  out:f32[=0]  a zero-filled (output) buffer
//! u32=0..100   i64=-5..5    a scalar from a range
//! u32=7        f32=1.5      a fixed scalar
//! u32=len(0)                the element count of buffer input 0
//! ```
//! Types: u8 u16 u32 u64 s8/i8 s16/i16 s32/i32 s64/i64 f32 f64.

use super::spec::{Elem, Fill, Input, Len};
use crate::KernelArg;

fn elem(s: &str) -> Result<Elem, String> {
    Ok(match s {
        "u8" | "b8" => Elem::U8,
        "u16" | "b16" => Elem::U16,
        "u32" | "b32" => Elem::U32,
        "u64" | "b64" => Elem::U64,
        "s8" | "i8" => Elem::I8,
        "s16" | "i16" => Elem::I16,
        "s32" | "i32" => Elem::I32,
        "s64" | "i64" => Elem::I64,
        "f32" => Elem::F32,
        "f64" => Elem::F64,
        _ => return Err(format!("unknown element type '{s}'")),
    })
}

fn num<T: std::str::FromStr>(s: &str, spec: &str) -> Result<T, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number in input spec '{spec}'"))
}

/// `lo..hi` (inclusive) or a single number.
fn range<T: std::str::FromStr + Copy>(s: &str, spec: &str) -> Result<(T, T), String> {
    match s.split_once("..") {
        Some((a, b)) => Ok((num(a, spec)?, num(b.trim_start_matches('='), spec)?)),
        None => {
            let v = num(s, spec)?;
            Ok((v, v))
        }
    }
}

/// Parses one input spec (see the module doc).
pub fn parse_input(spec: &str) -> Result<Input, String> {
    let s = spec.trim();
    let (fill, s) = match s.strip_prefix("out:") {
        Some(rest) => (Fill::Zero, rest),
        None => (Fill::Fuzz, s),
    };
    if let Some((ty, rest)) = s.split_once('[') {
        let inner = rest
            .strip_suffix(']')
            .ok_or_else(|| format!("input spec '{spec}' lacks its closing ']'"))?;
        let len = if inner == "rest" {
            Len::Rest { max: 1 << 20 }
        } else if let Some(max) = inner.strip_prefix("rest:") {
            Len::Rest {
                max: num(max, spec)?,
            }
        } else if let Some(i) = inner.strip_prefix('=') {
            Len::SameAs(num(i, spec)?)
        } else {
            let (lo, hi) = range::<usize>(inner, spec)?;
            if lo == hi {
                Len::Fixed(lo)
            } else {
                Len::Range(lo, hi)
            }
        };
        return Ok(Input::Buffer {
            elem: elem(ty.trim())?,
            len,
            fill,
        });
    }
    if fill == Fill::Zero {
        return Err(format!(
            "'out:' applies to buffers (TYPE[LEN]), not '{spec}'"
        ));
    }
    let (ty, val) = s
        .split_once('=')
        .ok_or_else(|| format!("input spec '{spec}' is neither TYPE[LEN] nor TYPE=VALUE"))?;
    let e = elem(ty.trim())?;
    let val = val.trim();
    if let Some(i) = val.strip_prefix("len(").and_then(|v| v.strip_suffix(')')) {
        return Ok(Input::LenOf {
            elem: e,
            buffer: num(i, spec)?,
        });
    }
    match e {
        Elem::F32 => Ok(Input::Fixed(KernelArg::F32(num(val, spec)?))),
        Elem::F64 => Ok(Input::Fixed(KernelArg::F64(num(val, spec)?))),
        _ => {
            let (lo, hi) = range::<i128>(val, spec)?;
            Ok(if lo == hi {
                Input::Fixed(e.arg(lo))
            } else {
                Input::Scalar { elem: e, lo, hi }
            })
        }
    }
}

/// Dimension ranges: `X[,Y[,Z]]`, each a number or `lo..hi`.
pub fn parse_dims(s: &str) -> Result<[(u32, u32); 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("dimensions take X[,Y[,Z]], got '{s}'"));
    }
    let mut d = [(1, 1); 3];
    for (k, p) in parts.iter().enumerate() {
        d[k] = range::<u32>(p, s)?;
    }
    Ok(d)
}
