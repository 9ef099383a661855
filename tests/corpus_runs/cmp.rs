//! Buffer comparison for `tests/corpus_runs.rs`: bit-exact, or within a tolerance relative
//! to the largest magnitude of the expected buffer, element by element after decoding the
//! element type (f16 and bf16 decoded exactly).

/// An IEEE binary16 value as f64 (exact).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// The elements of a buffer of `dtype` as f64 (integers up to 2^53 exactly; wider ones are
/// only compared bit-exactly in practice).
fn decode(dtype: &str, b: &[u8]) -> Result<Vec<f64>, String> {
    let w = match dtype {
        "f64" | "i64" | "u64" => 8,
        "f32" | "i32" | "u32" => 4,
        "f16" | "bf16" | "i16" | "u16" => 2,
        "u8" | "i8" => 1,
        _ => return Err(format!("unknown dtype {dtype}")),
    };
    Ok(b.chunks_exact(w)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..w].copy_from_slice(c);
            let u = u64::from_le_bytes(a);
            match dtype {
                "f64" => f64::from_bits(u),
                "f32" => f64::from(f32::from_bits(u as u32)),
                "f16" => f16_to_f64(u as u16),
                "bf16" => f64::from(f32::from_bits((u as u32) << 16)),
                "i64" => u as i64 as f64,
                "u64" => u as f64,
                "i32" => f64::from(u as u32 as i32),
                "u32" => f64::from(u as u32),
                "i16" => f64::from(u as u16 as i16),
                "u16" => f64::from(u as u16),
                "i8" => f64::from(u as u8 as i8),
                _ => f64::from(u as u8),
            }
        })
        .collect())
}

/// Compares `got` with `want`: `tol == 0` bit-exact (Ok(None)); otherwise Ok(Some(max
/// error relative to max|want|)) when every element is within `tol * max|want|`.
pub fn compare(dtype: &str, want: &[u8], got: &[u8], tol: f64) -> Result<Option<f64>, String> {
    if want.len() != got.len() {
        return Err(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let (w, g) = (decode(dtype, want)?, decode(dtype, got)?);
    if tol == 0.0 {
        if want == got {
            return Ok(None);
        }
        let width = want.len() / w.len().max(1);
        let bad: Vec<usize> = (0..w.len())
            .filter(|&i| want[i * width..(i + 1) * width] != got[i * width..(i + 1) * width])
            .collect();
        let first = bad.first().copied().unwrap_or(0);
        return Err(format!(
            "not bit-exact: {} of {} elements differ (first [{first}]: got {} want {})",
            bad.len(),
            w.len(),
            g.get(first).copied().unwrap_or(f64::NAN),
            w.get(first).copied().unwrap_or(f64::NAN),
        ));
    }
    let scale = w
        .iter()
        .filter(|v| v.is_finite())
        .fold(0f64, |m, v| m.max(v.abs()));
    let scale = if scale == 0.0 { 1.0 } else { scale };
    let mut worst = 0f64;
    let mut bad = Vec::new();
    for (i, (a, b)) in w.iter().zip(&g).enumerate() {
        let err = if a.is_nan() || b.is_nan() {
            if a.is_nan() && b.is_nan() {
                0.0
            } else {
                f64::INFINITY
            }
        } else if a == b {
            0.0
        } else {
            (a - b).abs() / scale
        };
        worst = worst.max(err);
        if err > tol {
            bad.push(i);
        }
    }
    if let Some(&i) = bad.first() {
        return Err(format!(
            "{} of {} elements beyond {tol:e} of max|want| {scale:e} (first [{i}]: got {} want {}; worst {worst:.3e})",
            bad.len(),
            w.len(),
            g[i],
            w[i]
        ));
    }
    Ok(Some(worst))
}
