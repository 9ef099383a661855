//! How `tests/golden.rs` compares ptxjit's results with the GPU's: bit for bit, with the
//! documented known differences (each a named rule with its reason, excusing only the
//! lanes it describes), the ISA's error bounds for the approximate functions, and the
//! floating-point `mma` statistics (see `mma.rs`).

mod approx;
mod mma;
mod texture;

use crate::Case;
use ptxjit::Backend;
use std::collections::BTreeMap;

/// Cases whose instruction ptxjit rejects at load time (its module holds only them).
pub const UNSUPPORTED: &[(&str, &str)] = &[(
    "mad_hi_sat_s32",
    "mad.hi.sat.s32 is not supported by ptxjit's front end yet",
)];

pub enum Verdict {
    Ok,
    Bad(String),
}

/// What the comparison saw besides exact matches.
#[derive(Default)]
pub struct Report {
    /// (case, rule) -> lanes excused by a known difference.
    pub excused: BTreeMap<(String, &'static str), usize>,
    /// case -> (largest error / bound, largest error, lanes outside the bound's domain).
    pub approx: BTreeMap<String, (f64, f64, usize)>,
    pub unsupported: Vec<String>,
    /// case -> text of the mma statistics.
    pub mma: BTreeMap<String, String>,
}

impl Report {
    pub fn print(&self, backend: Backend) {
        println!("golden ({backend:?}): known differences from the GPU (lanes excused):");
        for ((case, rule), n) in &self.excused {
            println!("  {case}: {n} lanes: {rule}");
        }
        println!("golden ({backend:?}): approximate forms, worst |ptxjit - GPU|:");
        for (case, (ratio, err, outside)) in &self.approx {
            println!(
                "  {case}: {err:.3e} ({:.1}% of the ISA bound){}",
                ratio * 100.0,
                if *outside > 0 {
                    format!(", {outside} lanes outside the bound's documented range (not checked)")
                } else {
                    String::new()
                }
            );
        }
        for (case, s) in &self.mma {
            println!("golden ({backend:?}): {case}: {s}");
        }
        for case in &self.unsupported {
            println!("golden ({backend:?}): {case}: not supported by ptxjit (load error)");
        }
    }
}

/// Register bytes of a source generator of gen.py.
fn src_width(g: &str) -> usize {
    match g {
        "f64" | "i64" => 8,
        "f16" | "bf16" | "i16" | "b8x2" => 2,
        _ => 4,
    }
}

fn dst_width(d: &str) -> usize {
    match d {
        "h" => 2,
        "d" => 8,
        _ => 4,
    }
}

fn word(bytes: &[u8], at: usize, w: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..w].copy_from_slice(&bytes[at..at + w]);
    u64::from_le_bytes(b)
}

/// Floating-point formats of results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
    /// Two f16 halves in 32 bits.
    F16x2,
}

impl Fmt {
    pub fn is_nan(self, v: u64) -> bool {
        match self {
            Fmt::F16 => v & 0x7c00 == 0x7c00 && v & 0x3ff != 0,
            Fmt::Bf16 => v & 0x7f80 == 0x7f80 && v & 0x7f != 0,
            Fmt::F32 => f32::from_bits(v as u32).is_nan(),
            Fmt::F64 => f64::from_bits(v).is_nan(),
            Fmt::F16x2 => Fmt::F16.is_nan(v & 0xffff) || Fmt::F16.is_nan(v >> 16),
        }
    }
}

/// Formats whose NaN results may differ in payload and sign (rule `NAN_BITS`).
fn nan_bits_fmt(case: &str) -> Option<Fmt> {
    const F64: &[&str] = &[
        "div_rn_f64",
        "sqrt_rn_f64",
        "rcp_rn_f64",
        "min_f64",
        "max_f64",
        "cvt_rni_f64_f64",
        "cvt_rzi_f64_f64",
        "cvt_f64_f32",
        "cvt_ftz_f64_f32",
        "cvt_f64_f16",
        "rsqrt_approx_f64",
    ];
    let f64_arith = ["add_", "sub_", "mul_", "fma_"]
        .iter()
        .any(|p| case.starts_with(p) && case.ends_with("_f64"));
    if f64_arith || F64.contains(&case) {
        return Some(Fmt::F64);
    }
    match case {
        "cvt_f32_bf16" => Some(Fmt::F32),
        "cvt_rn_f32_f64" | "cvt_rz_f32_f64" | "cvt_rm_f32_f64" | "cvt_rp_f32_f64" => Some(Fmt::F32),
        "cvt_rn_f16_f64" => Some(Fmt::F16),
        "cvt_rn_bf16_f64" => Some(Fmt::Bf16),
        _ => None,
    }
}

pub const NAN_BITS: &str = "NaN result bits: ptxjit gives the canonical NaN; the GPU \
     propagates f64 NaN operands (quieted, payload and sign kept; invalid operations give \
     0xfff8000000000000) and keeps payloads through float conversions";
pub const BFE64: &str = "64-bit bfe/bfi: the GPU (ptxas's 64-bit emulation) uses the whole 32-bit \
     position and length, where the ISA's semantics (and ptxjit) take them modulo 256";
pub const FTZ_TINY: &str = "mul/fma .ftz: the GPU flushes a result whose exact value is below \
     the smallest normal even when it rounds up to it (tininess before rounding); ptxjit \
     flushes after rounding";
pub const TF32_NAN: &str = "cvt.rna{.satfinite}.tf32.f32 of a NaN: the GPU rounds the bits \
     like a number's (a NaN keeps its high 10 payload bits; one with only low payload bits \
     becomes +-inf, or +-MAX_NORM with .satfinite), ptxjit gives the canonical NaN";
pub const RCP64_LSB: &str = "rcp/rsqrt.approx.ftz.f64: the GPU's 32-bit approximation differs \
     from ptxjit's in the last bit of the high word";

/// The known difference that excuses this lane, if any.
fn known(case: &str, s: &[u64], gpu: u64, got: u64) -> Option<&'static str> {
    if let Some(f) = nan_bits_fmt(case) {
        if f.is_nan(gpu) && f.is_nan(got) {
            return Some(NAN_BITS);
        }
    }
    match case {
        "cvt_rna_tf32_f32" | "cvt_rna_satfinite_tf32_f32" if Fmt::F32.is_nan(s[0]) => {
            Some(TF32_NAN)
        }
        "bfe_u64" | "bfe_s64" if s[1] > 255 || s[2] > 255 => Some(BFE64),
        "bfi_b64" if s[2] > 255 || s[3] > 255 => Some(BFE64),
        "mul_rn_ftz_f32" | "fma_rn_ftz_f32"
            if gpu & 0x7fff_ffff == 0
                && got & 0x7fff_ffff == 0x0080_0000
                && (gpu ^ got) >> 31 == 0 =>
        {
            Some(FTZ_TINY)
        }
        "rcp_approx_ftz_f64" | "rsqrt_approx_ftz_f64"
            if gpu as u32 == 0 && got as u32 == 0 && (gpu >> 32).abs_diff(got >> 32) == 1 =>
        {
            Some(RCP64_LSB)
        }
        _ => None,
    }
}

pub fn compare(
    c: &Case,
    inputs: &[Vec<u8>],
    file: &str,
    want: &[u8],
    got: &[u8],
    r: &mut Report,
) -> Verdict {
    if want.len() != got.len() {
        return Verdict::Bad(format!("{} bytes, the GPU wrote {}", got.len(), want.len()));
    }
    let check = c.meta.get("check").map_or("exact", |s| s.as_str());
    let srcs = c.meta.get("srcs").map_or("custom", |s| s.as_str());
    if check == "mma" {
        return mma::check(c, &inputs[0], want, got, r);
    }
    if c.ptx.starts_with("future_suld") && !file.ends_with("_array.bin") {
        return texture::suld_check(c, file, want, got);
    }
    if c.ptx == "future_tex.ptx" {
        return texture::check(c, &inputs[0], want, got, r);
    }
    if srcs == "custom" {
        return match want.iter().zip(got).position(|(a, b)| a != b) {
            None => Verdict::Ok,
            Some(i) => {
                let k = i / 4 * 4;
                let nbad = (0..want.len() / 4)
                    .filter(|&w| want[4 * w..4 * w + 4] != got[4 * w..4 * w + 4])
                    .count();
                Verdict::Bad(format!(
                    "{nbad} of {} words differ; word {} (byte {k}): GPU {:#010x}, ptxjit {:#010x}",
                    want.len() / 4,
                    k / 4,
                    word(want, k, 4),
                    word(got, k, 4)
                ))
            }
        };
    }
    let n: usize = c.meta["n"].parse().expect("n");
    let gens: Vec<&str> = srcs.split(',').collect();
    let mut soff = Vec::new();
    let mut o = 0;
    for g in &gens {
        soff.push((o, src_width(g)));
        o += src_width(g) * n;
    }
    let mut off = 0;
    let mut bad = Vec::new();
    let mut nbad = 0;
    let mut lane_srcs = Vec::with_capacity(gens.len());
    for d in c.meta["dsts"].split(',') {
        let w = dst_width(d);
        for lane in 0..n {
            let (g, x) = (word(want, off + lane * w, w), word(got, off + lane * w, w));
            if g == x {
                continue;
            }
            lane_srcs.clear();
            lane_srcs.extend(
                soff.iter()
                    .map(|&(so, sw)| word(&inputs[0], so + lane * sw, sw)),
            );
            let excuse = known(&c.name, &lane_srcs, g, x).or_else(|| {
                if check == "approx" {
                    approx::check(&c.name, &lane_srcs, g, x, r)
                } else {
                    None
                }
            });
            match excuse {
                Some(rule) if !rule.is_empty() => {
                    *r.excused.entry((c.name.clone(), rule)).or_default() += 1;
                }
                Some(_) => {}
                None => {
                    nbad += 1;
                    if bad.len() < 4 {
                        let s: Vec<String> = lane_srcs.iter().map(|v| format!("{v:#x}")).collect();
                        bad.push(format!(
                            "lane {lane} [{}]: GPU {g:#x}, ptxjit {x:#x}",
                            s.join(", ")
                        ));
                    }
                }
            }
        }
        off += w * n;
    }
    let _ = file;
    if nbad == 0 {
        Verdict::Ok
    } else {
        Verdict::Bad(format!(
            "{nbad} of {n} lanes differ, e.g. {}",
            bad.join("; ")
        ))
    }
}
