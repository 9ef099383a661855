//! Half precision (`.f16`) comparisons: exact, through the (exact) widening to f64.

/// The value of an IEEE binary16 bit pattern as an f64 (exact: every f16 is an f64).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = (h & 0x3ff) as f64;
    let mag = match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + man) * 2f64.powi(e as i32 - 25),
    };
    sign * mag
}

/// `.ftz` for f16: a subnormal becomes a zero of the same sign.
pub fn flush_f16(h: u16) -> u16 {
    if h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}
