//! 16-bit and sub-word forms that the differential fuzzer generates (`fuzz/src/gen/half.rs`,
//! `vmem.rs`) against a Rust reference written from the PTX ISA, on both backends and
//! both JIT tiers (`tests/ptx/half16_forms.ptx`, ptxas-checked): `cvt` with registers
//! wider than the type (the result sign-extended for signed types, zero-extended
//! otherwise; a source's low bits used), `.sat` narrowing, `ld.s8/.s16` into wide
//! registers, `mul.wide/.hi.s16`, 16-bit shifts by more than 16, `mov` packing of
//! halves, f16 `cvt`s through b32 registers, `cvt.rz.f16x2.f32`, `.local` and `.global`
//! vector accesses of bytes and halves, `set`/`min.NaN` on f16, wrapping u16 `mad` and
//! `div.s16`. Kernel `varying` gives each thread its own input row; `uniform` gives a
//! CTA one row (`%ctaid.x`), so that the JIT's uniform (scalar) code runs too.
//!
//! The f16 references use the `half` crate (`f16::from_f32`: round to nearest even;
//! `to_f32`: exact); round-toward-zero steps the nearest-even result back by one unit
//! when it is larger in magnitude than the input.

#[allow(unused_macros)]
mod common;
use common::*;
use half::f16;

const PTX: &str = "tests/ptx/half16_forms.ptx";
const ROWS: usize = 256;

/// f16 bits of `x` rounded to nearest even (a NaN: the canonical 0x7fff).
fn f16_rn(x: f32) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    f16::from_f32(x).to_bits()
}

/// f16 bits of `x` rounded toward zero (finite values never round to infinity).
fn f16_rz(x: f32) -> u16 {
    let r = f16_rn(x);
    if x.is_nan() || x.is_infinite() {
        return r;
    }
    if f64::from(f16::from_bits(r).to_f32()).abs() > f64::from(x).abs() {
        r - 1 // one unit toward zero in magnitude (the sign bit is untouched)
    } else {
        r
    }
}

fn f16_is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// The f16 order with -0 < +0 (ISA `min`: "If values of both inputs are 0.0, then +0.0
/// > -0.0"), for non-NaN values.
fn f16_key(h: u16) -> i32 {
    if h & 0x8000 != 0 {
        -i32::from(h & 0x7fff) - 1
    } else {
        i32::from(h)
    }
}

/// The 16 output slots of one input row `[a, b, c, d]` (see the PTX comments).
fn reference(row: [u32; 4]) -> [u64; 16] {
    let [a, b, c, d] = row;
    let (h1, h2) = (a as u16, (a >> 16) as u16);
    let mut s = [0u64; 16];
    s[0] = u64::from(a as u8 as i8 as i32 as u32);
    s[1] = (b as i32).clamp(-128, 127) as i64 as u64;
    let rd5 = u64::from(a) | u64::from(b) << 32;
    s[2] = (rd5 as i64).clamp(0, 255) as u64;
    s[3] = (a >> 8) as u8 as i8 as i64 as u64;
    s[4] = u64::from((b >> 16) as u16 as i16 as i32 as u32);
    let wide = (i32::from(h1 as i16) * i32::from(h2 as i16)) as u32;
    let hi = u32::from((wide >> 16) as u16);
    s[5] = u64::from(wide) | u64::from(hi) << 32;
    let sh = c & 31;
    let h4 = ((h2 as i16) >> sh.min(15)) as u16;
    let h5 = if sh >= 16 { 0 } else { h1 << sh };
    s[6] = u64::from(u32::from(h4) | u32::from(h5) << 16);
    let (h6, h7, h8, h9) = (b as u16, (b >> 16) as u16, c as u16, (c >> 16) as u16);
    let r9 = u64::from(u32::from(h7) | u32::from(h8) << 16);
    let rev = u64::from(h9) | u64::from(h8) << 16 | u64::from(h7) << 32 | u64::from(h6) << 48;
    s[7] = (r9 | r9 << 32) ^ rev;
    let fd = f32::from_bits(d);
    s[8] = u64::from(f16_rn(fd));
    let f1 = if f16_is_nan(h1) {
        0x7fff_ffff // a NaN converts to the canonical NaN
    } else {
        f16::from_bits(h1).to_f32().to_bits()
    };
    s[9] = u64::from(f1);
    s[10] = u64::from(u32::from(f16_rz(fd)) << 16 | u32::from(f16_rz(b as i32 as f32)));
    s[11] = u64::from(h2 as u8 as i8 as i32 as u32) | u64::from(h2 & 0xff) << 32;
    let (h12, h13) = (h2 & 0xff, h2 >> 8);
    s[12] =
        u64::from(h9 as i16 as i32 as u32) | u64::from(u32::from(h12) | u32::from(h13) << 16) << 32;
    let nan = f16_is_nan(h1) || f16_is_nan(h2);
    let lt = !nan && f16_key(h1) < f16_key(h2);
    let min = match nan {
        true => 0x7fff,
        false if f16_key(h1) < f16_key(h2) => h1,
        false => h2,
    };
    s[13] = u64::from(if lt { u32::MAX } else { 0 }) | u64::from(min) << 32;
    let h3 = h1.wrapping_mul(0x4001).wrapping_add(b as u16);
    let h5 = (h1 as i16).wrapping_div((c as u16 | 1) as i16) as u16;
    s[14] = u64::from(u32::from(h3) | u32::from(h5) << 16);
    let (b6, b7) = ((b >> 16) & 0xff, b >> 24);
    let r9 = (b6 | b7 << 16) ^ (c >> 16 | (d & 0xffff) << 16);
    let r10 = (c & 0xffff) | (d >> 16) << 16;
    s[15] = u64::from(r9) | u64::from(r10) << 32;
    s
}

/// Input rows: random words, halves that are f16 NaNs, infinities, +-0 and extremes,
/// and `d` an f32 that rounds (or overflows, or is subnormal) in f16.
fn inputs() -> Vec<[u32; 4]> {
    let mut rng = Rng::new(0x16f0);
    let halves = [
        0x0000u32,
        0x8000,
        0x7c00,
        0xfc00,
        0x7e00,
        0x7c01,
        0x3c00,
        0xbc00,
        0x7bff,
        0x0001,
        0x8000_u32 | 0x3ff,
        0x7fff,
        0xffff,
    ];
    let floats = [
        1.0f32,
        -0.0,
        65504.0,
        65520.0,
        1e9,
        -1e9,
        5.96e-8,
        2.98e-8,
        1e-10,
        0.1,
        -2.5e-5,
        f32::INFINITY,
    ];
    (0..ROWS)
        .map(|i| {
            let mut w = [rng.u32(), rng.u32(), rng.u32(), rng.f32().to_bits()];
            if i % 3 == 1 {
                let k = rng.range(0, halves.len() as u32) as usize;
                let j = rng.range(0, halves.len() as u32) as usize;
                w[0] = halves[k] | halves[j] << 16;
            }
            if i % 4 == 2 {
                w[3] = floats[rng.range(0, floats.len() as u32) as usize].to_bits();
            }
            if i % 5 == 3 {
                w[1] = rng.range(0, 600).wrapping_sub(300); // around the s8 range
            }
            w
        })
        .collect()
}

#[test]
fn sixteen_bit_and_sub_word_forms_match_the_isa() {
    let rows = inputs();
    let bytes: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let (grid, block) = (4u32, 64u32);
    for backend in [Backend::Jit, Backend::Interp] {
        for &tier in tiers(backend) {
            let dev = device_tier(tier);
            let m = module_at(&dev, PTX, backend);
            let input = zeroed(&dev, bytes.len());
            dev.write(&input, &bytes).expect("write in");
            for kernel in ["varying", "uniform"] {
                let out = zeroed(&dev, (grid * block) as usize * 128);
                let c = cfg([grid, 1, 1], [block, 1, 1], backend);
                let what = format!("{kernel} on {backend:?} {tier:?}");
                launch(&dev, &m, kernel, &c, &[arg(&input), arg(&out)], &what);
                let got = dev.read(&out).expect("read out");
                for t in 0..(grid * block) as usize {
                    let row = match kernel {
                        "varying" => t,
                        _ => t / block as usize,
                    };
                    let want = reference(rows[row]);
                    for (k, w) in want.iter().enumerate() {
                        let o = t * 128 + k * 8;
                        let g = u64::from_le_bytes(got[o..o + 8].try_into().unwrap());
                        assert_eq!(
                            g, *w,
                            "{what}: thread {t} slot {k} (row {:08x?}): got {g:#x}, want {w:#x}",
                            rows[row]
                        );
                    }
                }
            }
        }
    }
}
