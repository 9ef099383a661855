//! What a kernel's inputs are ([`Input`], [`Len`], [`Elem`]) and how fuzzer bytes become
//! one concrete launch ([`Launch`]).
//!
//! The bytes are read in this order (an `arbitrary::Unstructured`; bytes that run out
//! read as the range's low end / zero): the grid and block dimensions, then each input's
//! scalar value or buffer length in input order (the "header"), then the contents of the
//! fuzzed buffers of known length in input order, and last the [`Len::Rest`] buffer, which
//! takes every byte left. A mutation of the tail therefore changes only buffer contents,
//! and a parser kernel sees the fuzzer's bytes directly.

use crate::{DeviceCopy, KernelArg};
use arbitrary::Unstructured;

/// An element type of a buffer or a scalar parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    /// The smallest and largest value (floats: the raw bit patterns, any).
    fn bounds(self) -> (i128, i128) {
        match self {
            Elem::U8 => (0, u8::MAX as i128),
            Elem::U16 => (0, u16::MAX as i128),
            Elem::U32 | Elem::F32 => (0, u32::MAX as i128),
            Elem::U64 | Elem::F64 => (0, u64::MAX as i128),
            Elem::I8 => (i8::MIN as i128, i8::MAX as i128),
            Elem::I16 => (i16::MIN as i128, i16::MAX as i128),
            Elem::I32 => (i32::MIN as i128, i32::MAX as i128),
            Elem::I64 => (i64::MIN as i128, i64::MAX as i128),
        }
    }

    /// The kernel argument of this type holding `v` (two's complement bits; floats: the
    /// bit pattern).
    pub fn arg(self, v: i128) -> KernelArg {
        let b = v as u64;
        match self {
            Elem::U8 => KernelArg::U8(b as u8),
            Elem::U16 => KernelArg::U16(b as u16),
            Elem::U32 => KernelArg::U32(b as u32),
            Elem::U64 => KernelArg::U64(b),
            Elem::I8 => KernelArg::I8(b as i8),
            Elem::I16 => KernelArg::I16(b as i16),
            Elem::I32 => KernelArg::I32(b as i32),
            Elem::I64 => KernelArg::I64(b as i64),
            Elem::F32 => KernelArg::F32(f32::from_bits(b as u32)),
            Elem::F64 => KernelArg::F64(f64::from_bits(b)),
        }
    }
}

/// Rust element types with an [`Elem`].
pub trait FuzzElem: DeviceCopy {
    const ELEM: Elem;
}
macro_rules! fuzz_elem {
    ($($t:ty => $e:ident),*) => { $(impl FuzzElem for $t { const ELEM: Elem = Elem::$e; })* };
}
fuzz_elem!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32,
    i64 => I64, f32 => F32, f64 => F64);

/// The length (in elements) of a buffer input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Len {
    /// Always this many.
    Fixed(usize),
    /// Chosen by the fuzzer in `lo..=hi`.
    Range(usize, usize),
    /// Every input byte left after the other inputs, in whole elements, at most `max`
    /// (one `Rest` buffer per kernel).
    Rest { max: usize },
    /// The same length as buffer input `i` (an earlier or later input).
    SameAs(usize),
}

/// Whether a buffer starts with fuzzer bytes or zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Contents from the fuzzer's bytes (zeros where they run out).
    Fuzz,
    /// Zero-filled (an output).
    Zero,
}

/// One kernel parameter, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A device buffer; the parameter is its address.
    Buffer { elem: Elem, len: Len, fill: Fill },
    /// A scalar chosen by the fuzzer in `lo..=hi` (two's complement for signed types;
    /// the bit pattern for floats).
    Scalar { elem: Elem, lo: i128, hi: i128 },
    /// A scalar holding the element count of buffer input `buffer` (derived, not fuzzed).
    LenOf { elem: Elem, buffer: usize },
    /// Always this argument.
    Fixed(KernelArg),
}

/// One concrete value of an input.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A buffer's initial contents (little-endian elements).
    Buffer {
        elem: Elem,
        bytes: Vec<u8>,
    },
    Scalar(KernelArg),
}

/// One decoded launch: dimensions and a value per input.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub values: Vec<Value>,
}

impl Launch {
    /// A one-line description (dimensions, scalars, buffer lengths) for reports.
    pub fn describe(&self) -> String {
        let vals: Vec<String> = self
            .values
            .iter()
            .map(|v| match v {
                Value::Buffer { elem, bytes } => {
                    format!("{:?}[{}]", elem, bytes.len() / elem.size())
                }
                Value::Scalar(a) => format!("{a:?}"),
            })
            .collect();
        format!(
            "grid {:?}, block {:?}, inputs ({})",
            self.grid,
            self.block,
            vals.join(", ")
        )
    }
}

/// A value in `lo..=hi` from the header (`lo` when the bytes run out).
fn pick(u: &mut Unstructured, lo: i128, hi: i128) -> i128 {
    if hi <= lo {
        return lo;
    }
    let span = (hi - lo) as u64;
    lo + u.int_in_range(0..=span).unwrap_or(0) as i128
}

/// Checks an input list: lengths and scalar ranges are consistent, `SameAs` and `LenOf`
/// name buffers, at most one `Rest` buffer, and no fuzzed buffer depends on its length.
pub(crate) fn validate(inputs: &[Input]) -> Result<(), String> {
    let is_buffer = |i: usize| matches!(inputs.get(i), Some(Input::Buffer { .. }));
    let len_of = |i: usize| match inputs.get(i) {
        Some(Input::Buffer { len, .. }) => Some(*len),
        _ => None,
    };
    let mut rest = 0;
    for (k, inp) in inputs.iter().enumerate() {
        match inp {
            Input::Buffer { len, fill, .. } => match *len {
                Len::Range(lo, hi) if lo > hi => {
                    return Err(format!("input {k}: length range {lo}..={hi} is empty"))
                }
                Len::Rest { .. } => rest += 1,
                Len::SameAs(i) => match len_of(i) {
                    None => return Err(format!("input {k}: SameAs({i}) is not a buffer")),
                    Some(Len::SameAs(_)) => {
                        return Err(format!("input {k}: SameAs({i}) names another SameAs"))
                    }
                    Some(Len::Rest { .. }) if *fill == Fill::Fuzz => {
                        return Err(format!(
                            "input {k}: a fuzzed buffer cannot take the Rest buffer's length; \
                             make it Fill::Zero or give it a Range"
                        ))
                    }
                    _ => {}
                },
                _ => {}
            },
            Input::Scalar { elem, lo, hi } => {
                let (min, max) = elem.bounds();
                if lo > hi || *lo < min || *hi > max {
                    return Err(format!(
                        "input {k}: range {lo}..={hi} is empty or outside {elem:?}"
                    ));
                }
            }
            Input::LenOf { buffer, .. } if !is_buffer(*buffer) => {
                return Err(format!("input {k}: LenOf({buffer}) is not a buffer"))
            }
            _ => {}
        }
    }
    if rest > 1 {
        return Err("at most one buffer may have Len::Rest".into());
    }
    Ok(())
}

/// Decodes fuzzer bytes into a launch (see the module doc for the byte order).
/// `inputs` must have passed [`validate`].
pub(crate) fn decode(
    data: &[u8],
    grid: &[(u32, u32); 3],
    block: &[(u32, u32); 3],
    inputs: &[Input],
) -> Launch {
    let mut u = Unstructured::new(data);
    let mut dims =
        |r: &[(u32, u32); 3]| r.map(|(lo, hi)| pick(&mut u, lo as i128, hi as i128) as u32);
    let grid = dims(grid);
    let block = dims(block);
    // Header: scalars and ranged lengths.
    let mut lens: Vec<Option<usize>> = vec![None; inputs.len()];
    let mut scalars: Vec<Option<i128>> = vec![None; inputs.len()];
    for (k, inp) in inputs.iter().enumerate() {
        match inp {
            Input::Buffer { len, .. } => match *len {
                Len::Fixed(n) => lens[k] = Some(n),
                Len::Range(lo, hi) => lens[k] = Some(pick(&mut u, lo as i128, hi as i128) as usize),
                _ => {}
            },
            Input::Scalar { lo, hi, .. } => scalars[k] = Some(pick(&mut u, *lo, *hi)),
            _ => {}
        }
    }
    let same_as = |lens: &mut Vec<Option<usize>>| {
        for (k, inp) in inputs.iter().enumerate() {
            if let Input::Buffer {
                len: Len::SameAs(i),
                ..
            } = inp
            {
                lens[k] = lens[*i];
            }
        }
    };
    same_as(&mut lens);
    // Contents of the fuzzed buffers of known length, then the Rest buffer.
    let mut contents: Vec<Vec<u8>> = vec![Vec::new(); inputs.len()];
    for (k, inp) in inputs.iter().enumerate() {
        if let (Input::Buffer { elem, fill, .. }, Some(n)) = (inp, lens[k]) {
            let mut bytes = vec![0u8; n.saturating_mul(elem.size())];
            if *fill == Fill::Fuzz {
                let take = bytes.len().min(u.len());
                if let Ok(src) = u.bytes(take) {
                    bytes[..take].copy_from_slice(src);
                }
            }
            contents[k] = bytes;
        }
    }
    for (k, inp) in inputs.iter().enumerate() {
        if let Input::Buffer {
            elem,
            len: Len::Rest { max },
            fill,
        } = inp
        {
            let n = (u.len() / elem.size()).min(*max);
            let mut bytes = vec![0u8; n * elem.size()];
            if *fill == Fill::Fuzz {
                if let Ok(src) = u.bytes(bytes.len()) {
                    bytes.copy_from_slice(src);
                }
            }
            lens[k] = Some(n);
            contents[k] = bytes;
        }
    }
    same_as(&mut lens);
    let values = inputs
        .iter()
        .enumerate()
        .map(|(k, inp)| match inp {
            Input::Buffer { elem, .. } => {
                let mut bytes = std::mem::take(&mut contents[k]);
                bytes.resize(lens[k].unwrap_or(0) * elem.size(), 0);
                Value::Buffer { elem: *elem, bytes }
            }
            Input::Scalar { elem, .. } => Value::Scalar(elem.arg(scalars[k].unwrap_or(0))),
            Input::LenOf { elem, buffer } => {
                Value::Scalar(elem.arg(lens.get(*buffer).copied().flatten().unwrap_or(0) as i128))
            }
            Input::Fixed(a) => Value::Scalar(a.clone()),
        })
        .collect();
    Launch {
        grid,
        block,
        values,
    }
}
