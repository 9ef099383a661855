//! `cuda_fp16.h` as applications use it (`tests/kernels/half_lib.cu`, NVRTC with the
//! CUDA runtime headers): `__half2` arithmetic through the header's inline PTX and
//! conversions, on both backends, against the `half` crate with each result rounded
//! once (random halves have exponents in [-6, 6], so sums of products are exact in f64
//! before the one rounding to f16; special values are added separately).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use half::f16;

const N: usize = 1024;
const FILE: &str = "half_lib.nvrtc.ptx";

fn specials() -> Vec<u16> {
    vec![
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x0001, 0x8001,
        0x03ff, 0x0400, 0x3555, 0xc900,
    ]
}

/// Halves: the specials, then random ones with exponents in [-6, 6].
fn halves(seed: u64) -> Vec<u16> {
    let mut r = Rng::new(seed);
    let mut v = specials();
    while v.len() < 2 * N {
        let sign = (r.u32() & 1) as u16;
        let exp = (r.range(0, 13) + 15 - 6) as u16;
        let mant = (r.u32() & 0x3ff) as u16;
        v.push(sign << 15 | exp << 10 | mant);
    }
    v
}

fn h(b: u16) -> f64 {
    f16::from_bits(b).to_f64()
}

/// The f16 nearest `x` (ties to even); NaN stays NaN.
fn round(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}

fn same(got: u16, want: u16) -> bool {
    let nan = |b: u16| b & 0x7c00 == 0x7c00 && b & 0x3ff != 0;
    if nan(want) {
        nan(got)
    } else {
        got == want
    }
}

fn run_both(kernel: &str, inputs: &[&[u8]], outs: &[usize]) -> Vec<Vec<u8>> {
    let dev = device();
    let mut res = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let m = module(&dev, FILE, backend);
        let ins: Vec<_> = inputs.iter().map(|b| dev.alloc_from(b).unwrap()).collect();
        let bufs: Vec<_> = outs.iter().map(|&n| zeroed(&dev, n)).collect();
        let mut args: Vec<_> = ins.iter().chain(&bufs).map(arg).collect();
        args.push(ptxjit::KernelArg::I32(N as i32));
        let c = cfg([blocks(N, 128), 1, 1], [128, 1, 1], backend);
        launch(&dev, &m, kernel, &c, &args, kernel);
        res.push(
            bufs.iter()
                .map(|b| dev.read::<u8>(b).unwrap())
                .collect::<Vec<_>>(),
        );
    }
    let interp = res.pop().unwrap();
    let jit = res.pop().unwrap();
    assert_eq!(jit, interp, "{kernel}: JIT and interpreter differ");
    jit
}

fn bytes16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words16(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

#[test]
fn half2_arithmetic() {
    let (a, b, c) = (halves(1), halves(2), halves(3));
    // Special values meet every special value in the first lanes.
    let mut a = a;
    let mut b = b;
    let sp = specials();
    for (i, &x) in sp.iter().enumerate() {
        for (j, &y) in sp.iter().enumerate() {
            let k = 2 * (i * sp.len() + j) % (2 * N);
            a[k] = x;
            b[k] = y;
        }
    }
    let out = run_both(
        "half2_ops",
        &[&bytes16(&a), &bytes16(&b), &bytes16(&c)],
        &[N * 7 * 4],
    );
    let got = words16(&out[0]);
    let mut bad = Vec::new();
    for i in 0..N {
        for lane in 0..2 {
            let (x, y, z) = (a[2 * i + lane], b[2 * i + lane], c[2 * i + lane]);
            let (xf, yf) = (h(x), h(y));
            let swapped = h(a[2 * i + 1 - lane]);
            let max = |p: f64, q: f64| {
                // PTX max: NaN yields the other operand; "if values of both inputs are
                // 0.0, then +0.0 > -0.0"; else (p > q) ? p : q.
                if p.is_nan() {
                    q
                } else if q.is_nan() || p > q {
                    p
                } else if p == 0.0 && q == 0.0 {
                    if p.is_sign_positive() {
                        p
                    } else {
                        q
                    }
                } else {
                    q
                }
            };
            // __floats2half2_rn(low(x) * 3, high(y) + 1): f32 arithmetic, then rn.
            let lohi = if lane == 0 {
                f16::from_f32(h(a[2 * i]) as f32 * 3.0).to_bits()
            } else {
                f16::from_f32(h(b[2 * i + 1]) as f32 + 1.0).to_bits()
            };
            let want = [
                round(xf.mul_add(yf, h(z))),
                round(xf * yf),
                round(xf + yf),
                round(xf - yf),
                x & 0x7fff,
                lohi,
                round(max(swapped, yf)),
            ];
            for (k, &w) in want.iter().enumerate() {
                let g = got[(7 * i + k) * 2 + lane];
                if !same(g, w) && bad.len() < 20 {
                    bad.push(format!(
                        "element {i} lane {lane} result {k}: x={x:#06x} y={y:#06x} z={z:#06x}: got {g:#06x}, want {w:#06x}"
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn conversions() {
    let mut r = Rng::new(4);
    let mut f: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        65504.0,
        65520.0,
        -65520.0,
        1e-8,
        -3e-8,
        2.9802322e-8,
        1.0 + f32::EPSILON,
    ];
    while f.len() < N {
        f.push(match r.u32() % 3 {
            0 => f32::from_bits(r.u32()),
            1 => (r.f32() - 0.5) * 1e5,
            _ => (r.f32() - 0.5) * 1e-4,
        });
    }
    let hs = halves(5);
    let out = run_both(
        "half_cvt",
        &[&bytes_f32(&f), &bytes16(&hs[..N])],
        &[N * 12, N * 4],
    );
    let got = words16(&out[0]);
    let gi: Vec<i32> = out[1]
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut bad = Vec::new();
    for i in 0..N {
        let v = f[i] as f64;
        // Directed roundings from the two neighbours of the nearest half.
        let dir = |up: bool, toward_zero: bool| -> u16 {
            if v.is_nan() {
                return 0x7fff;
            }
            let n = f16::from_f64(v);
            let nv = n.to_f64();
            if nv == v {
                return n.to_bits();
            }
            let up = if toward_zero { v < 0.0 } else { up };
            let step = |b: f16, dir_up: bool| -> f16 {
                // next representable half in the direction (through ±max to ±inf).
                let bits = b.to_bits();
                let pos = bits & 0x8000 == 0;
                let next = if (dir_up && pos) || (!dir_up && !pos) {
                    if bits & 0x7fff == 0 && !dir_up {
                        0x8001
                    } else if bits & 0x7fff == 0 {
                        0x0001
                    } else {
                        bits + 1
                    }
                } else if bits & 0x7fff == 0 {
                    if dir_up {
                        0x0001
                    } else {
                        0x8001
                    }
                } else {
                    bits - 1
                };
                f16::from_bits(next)
            };
            let r = if (nv < v) == up { step(n, up) } else { n };
            // Overflow: rz/rd/ru never produce an infinity on the side they round away
            // from.
            let rb = r.to_bits();
            if rb & 0x7fff == 0x7c00 && !(v.is_infinite()) {
                let toward_inf = (rb == 0x7c00 && up) || (rb == 0xfc00 && !up);
                if !toward_inf {
                    return if rb == 0x7c00 { 0x7bff } else { 0xfbff };
                }
            }
            rb
        };
        let iv = f[i] as i32; // (int)v: saturating, NaN -> 0 in Rust as in CUDA's cvt.rzi
        let want = [
            f16::from_f32(f[i]).to_bits(),
            dir(false, true),
            dir(false, false),
            dir(true, false),
            round(iv as f64),
            (h(hs[i]) < f16::from_f32(f[i]).to_f64()) as u16,
        ];
        for (k, &w) in want.iter().enumerate() {
            let g = got[6 * i + k];
            if !same(g, w) && bad.len() < 20 {
                bad.push(format!(
                    "{:e} ({:#x}) result {k}: got {g:#06x}, want {w:#06x}",
                    f[i],
                    f[i].to_bits()
                ));
            }
        }
        let hv = h(hs[i]);
        let wi = if hv.is_nan() {
            0
        } else {
            hv.trunc().clamp(i32::MIN as f64, i32::MAX as f64) as i32
        };
        if gi[i] != wi && bad.len() < 20 {
            bad.push(format!(
                "__half2int_rz({:#06x}) = {}, want {wi}",
                hs[i], gi[i]
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
