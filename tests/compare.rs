//! `set` (integer and float sources, .u32/.s32/.b32/.f32 destinations, BoolOp, .ftz) and
//! `setp`/`set` on `.f16` sources and `setp.f16x2 p|q` (tests/kernels/set_cmp.ptx), on both backends, against
//! Rust's own comparisons (f16 through rustc_apfloat's `Half`).
#[macro_use]
mod common;
use common::*;
use rustc_apfloat::ieee::Half;
use rustc_apfloat::Float;
use std::cmp::Ordering;

const FILE: &str = "set_cmp.ptx";

/// Interesting u32 bit patterns (also as f32: zeros, subnormals, NaNs, infinities).
const SPECIAL: &[u32] = &[
    0,
    1,
    2,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x0000_0001,
    0x8000_0001,
    0x0040_0000,
];

fn pairs(rng: &mut Rng, n: usize) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for &a in SPECIAL {
        for &b in SPECIAL {
            v.push((a, b));
        }
    }
    while v.len() < n || !v.len().is_multiple_of(64) {
        let a = rng.u32();
        let b = match rng.range(0, 4) {
            0 => a,
            1 => a ^ 1,
            _ => rng.u32(),
        };
        v.push((a, b));
    }
    v
}

/// The f32 comparison `a cmp b` per PTX (ordered: false on NaN; unordered: true).
fn fcmp(x: f32, y: f32, cmp: &str) -> bool {
    let o = x.partial_cmp(&y);
    let nan = o.is_none();
    match cmp {
        "lt" => o == Some(Ordering::Less),
        "geu" => nan || o != Some(Ordering::Less),
        "nan" => nan,
        _ => unreachable!(),
    }
}

fn ftz32(b: u32) -> f32 {
    if b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        f32::from_bits(b)
    }
}

fn set_cases(backend: Backend) {
    let mut rng = Rng::new(0x5e7);
    let cases = pairs(&mut rng, 400);
    let n = cases.len();
    // One thread per case: the grid has exactly n threads.
    assert!(n.is_multiple_of(64));
    let dev = device();
    let m = module(&dev, FILE, backend);
    let input: Vec<u32> = cases.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, n * 40);
    launch(
        &dev,
        &m,
        "set_cases",
        &cfg([n.div_ceil(64) as u32, 1, 1], [64, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        "set_cases",
    );
    let got = dev.read::<u32>(&out).unwrap();
    const T: u32 = 0xffff_ffff;
    const ONE: u32 = 0x3f80_0000;
    let iset = |t: bool| if t { T } else { 0 };
    let fset = |t: bool| if t { ONE } else { 0 };
    let mut want = Vec::with_capacity(n * 10);
    for &(a, b) in &cases {
        let p = a & 1 != 0;
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        want.extend([
            iset((a as i32) < (b as i32)),         // set.lt.u32.s32
            iset(a > b),                           // set.hi.u32.u32
            fset(a <= b),                          // set.ls.f32.u32
            iset(a != b && p),                     // set.ne.and.s32.b32 .., p
            iset((a as i32) <= (b as i32) || !p),  // set.le.or.u32.s32 .., !p
            fset(((a as i32) > (b as i32)) != p),  // set.gt.xor.f32.s32 .., p
            fset(fcmp(x, y, "lt")),                // set.lt.f32.f32
            iset(fcmp(x, y, "nan")),               // set.nan.u32.f32
            iset(fcmp(ftz32(a), ftz32(b), "geu")), // set.geu.ftz.s32.f32
            iset(x.is_nan() || y.is_nan() || x as f64 == y as f64), // set.equ.u32.f64
        ]);
    }
    assert_slice_eq(&got, &want, &format!("set_cases {backend:?}"));
}

/// PTX f16 comparison `h cmp g` through rustc_apfloat.
fn hcmp(h: u16, g: u16, cmp: &str, ftz: bool) -> bool {
    let f = |b: u16| {
        let b = if ftz && b & 0x7c00 == 0 {
            b & 0x8000
        } else {
            b
        };
        Half::from_bits(b as u128)
    };
    let (x, y) = (f(h), f(g));
    let o = x.partial_cmp(&y);
    let nan = o.is_none();
    let (lt, eq, gt) = (
        o == Some(Ordering::Less),
        o == Some(Ordering::Equal),
        o == Some(Ordering::Greater),
    );
    match cmp {
        "eq" => eq,
        "ne" => lt || gt,
        "lt" => lt,
        "le" => lt || eq,
        "gt" => gt,
        "ge" => gt || eq,
        "equ" => nan || eq,
        "neu" => nan || lt || gt,
        "ltu" => nan || lt,
        "leu" => nan || lt || eq,
        "gtu" => nan || gt,
        "geu" => nan || gt || eq,
        "num" => !nan,
        "nan" => nan,
        _ => unreachable!(),
    }
}

fn f16_cases(backend: Backend) {
    const SPECIAL16: &[u16] = &[
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0x7c00,
        0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x0002,
    ];
    let mut rng = Rng::new(0xf16);
    let mut cases: Vec<(u16, u16)> = Vec::new();
    for &a in SPECIAL16 {
        for &b in SPECIAL16 {
            cases.push((a, b));
        }
    }
    while !cases.len().is_multiple_of(64) || cases.len() < 512 {
        let a = rng.u32() as u16;
        let b = if rng.range(0, 3) == 0 {
            a
        } else {
            rng.u32() as u16
        };
        cases.push((a, b));
    }
    let n = cases.len();
    let dev = device();
    let m = module(&dev, FILE, backend);
    let input: Vec<u16> = cases.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, n * 80);
    launch(
        &dev,
        &m,
        "f16_cases",
        &cfg([(n / 64) as u32, 1, 1], [64, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        "f16_cases",
    );
    let got = dev.read::<u32>(&out).unwrap();
    let mut want = Vec::with_capacity(n * 20);
    for &(h, g) in &cases {
        for c in [
            "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ] {
            want.push(hcmp(h, g, c, false) as u32);
        }
        let q = h & 1 != 0;
        want.push(hcmp(h, g, "lt", true) as u32);
        want.push(if hcmp(h, g, "lt", false) {
            0xffff_ffff
        } else {
            0
        });
        want.push(if hcmp(h, g, "ge", false) && q {
            0xffff_ffff
        } else {
            0
        });
        want.push((hcmp(h, g, "ne", false) != q) as u32);
        want.extend([0, 0]);
    }
    assert_slice_eq(&got, &want, &format!("f16_cases {backend:?}"));
}

fn f16x2_cases(backend: Backend) {
    const SPECIAL16: &[u16] = &[
        0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x7c00, 0x7e00, 0x03ff, 0x0400,
    ];
    let mut rng = Rng::new(0xf16f16);
    let mut cases: Vec<(u32, u32)> = Vec::new();
    for &a in SPECIAL16 {
        for &b in SPECIAL16 {
            // Low halves: a vs b; high halves: b vs a.
            cases.push((a as u32 | (b as u32) << 16, b as u32 | (a as u32) << 16));
        }
    }
    while !cases.len().is_multiple_of(64) || cases.len() < 256 {
        let a = rng.u32();
        let b = match rng.range(0, 3) {
            0 => a,
            1 => a ^ 0x8000,
            _ => rng.u32(),
        };
        cases.push((a, b));
    }
    let n = cases.len();
    let dev = device();
    let m = module(&dev, FILE, backend);
    let input: Vec<u32> = cases.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inb = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, n * 32);
    launch(
        &dev,
        &m,
        "f16x2_cases",
        &cfg([(n / 64) as u32, 1, 1], [64, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        "f16x2_cases",
    );
    let got = dev.read::<u32>(&out).unwrap();
    let mut want = Vec::with_capacity(n * 8);
    for &(a, b) in &cases {
        let c = a & 1 != 0;
        let halves = |x: u32| [x as u16, (x >> 16) as u16];
        let (ha, hb) = (halves(a), halves(b));
        for k in 0..4 {
            for h in 0..2 {
                let (x, y) = (ha[h], hb[h]);
                want.push(match k {
                    0 => hcmp(x, y, "lt", false),
                    1 => hcmp(x, y, "equ", false),
                    2 => hcmp(x, y, "ne", false) && c,
                    _ => hcmp(x, y, "gt", true),
                } as u32);
            }
        }
    }
    assert_slice_eq(&got, &want, &format!("f16x2_cases {backend:?}"));
}

both_backends!(set_cases, f16_cases, f16x2_cases);

#[test]
fn invalid_set_and_setp_forms_are_located_errors() {
    // sm_90: `setp`/`set` on `.bf16` need it (below sm_90 that is the first error, as in
    // ptxas: "Feature 'setp.bf16' requires .target sm_90 or higher").
    let head = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b16 %h<4>;\n";
    let err = |body: &str| {
        ptxjit::check::parse_and_check(&format!("{head}{body}\n\tret;\n}}\n"), "e.ptx")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("\tset.eq.u16.f16x2 %h1, %r2, %r3;"),
        "e.ptx:9:8: error: destination type .u16 is not valid with source type .f16x2 in 'set.eq.u16.f16x2'"
    );
    assert_eq!(
        err("\tsetp.eq.ftz.bf16 %p1, %h1, %h2;"),
        "e.ptx:9:2: error: '.ftz' is only valid for .f32, .f16 and .f16x2 sources and non-bf16 destinations in 'setp.eq.ftz.bf16'"
    );
    assert_eq!(
        err("\tset.eq.f16.bf16 %h1, %h2, %h3;"),
        "e.ptx:9:8: error: destination type .f16 is not valid with source type .bf16 in 'set.eq.f16.bf16'"
    );
    assert_eq!(
        err("\tset.eq.f32.f16 %r1, %h2, %h3;"),
        "e.ptx:9:8: error: destination type .f32 is not valid with .f16 sources in 'set.eq.f32.f16'"
    );
    assert_eq!(
        err("\tset.eq.u64.u32 %r1, %r2, %r3;"),
        "e.ptx:9:8: error: destination type .u64 is not valid with source type .u32 in 'set.eq.u64.u32'"
    );
    assert_eq!(
        err("\tset.eq.u32 %r1, %r2, %r3;"),
        "e.ptx:9:2: error: instruction 'set.eq.u32' needs a destination and a source type"
    );
    assert_eq!(
        err("\tset.lt.ftz.u32.s32 %r1, %r2, %r3;"),
        "e.ptx:9:2: error: '.ftz' is only valid for .f32, .f16 and .f16x2 sources and non-bf16 destinations in 'set.lt.ftz.u32.s32'"
    );
}
