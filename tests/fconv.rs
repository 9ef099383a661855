//! Float conversions and float arithmetic (tests/kernels/fconv.cu, fconv_rz.cu) on +-0, NaN, +-inf,
//! subnormals, halfway cases and values at the edges of the integer ranges.
//!
//! Float-to-int conversions: PTX clamps to the destination range and converts NaN to 0,
//! which is exactly Rust's saturating `as` (from f64 an H100 gives the destination's
//! sign bit for NaN, as ptxjit does: tests/golden). Int-to-float `as` rounds to nearest-even as
//! cvt.rn does. Results the ISA leaves as "an unspecified NaN" (arithmetic on NaN,
//! abs/neg of NaN, cvt between float types, integral rounding of NaN) are checked with
//! `assert_*_bits_nan_any`; everything else bit for bit.
#[macro_use]
mod common;
use common::*;

const NI: usize = 8;
const NL: usize = 4;
const NF: usize = 16;
const ND: usize = 12;
const NC: usize = 8;

fn f32_specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        3.5,
        -3.5,
        0.49999997, // largest f32 below 0.5
        -0.3,
        0.7,
        8388607.5, // halfway, 2^23 - 0.5
        8388609.0,
        16777216.0,
        123456.79,
        1.0e10,
        -1.0e10,
        2147483520.0,  // largest f32 below 2^31
        2147483648.0,  // 2^31: saturates i32
        -2147483648.0, // i32::MIN exactly
        -2147483904.0, // below i32::MIN
        4294967040.0,  // largest f32 below 2^32
        4294967296.0,  // 2^32: saturates u32
        9.223372e18,   // 2^63
        -9.223372e18,
        1.8446744e19, // 2^64
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signalling NaN
        f32::from_bits(0x0000_0001), // smallest subnormal
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff), // largest subnormal
        -1.0e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        1.0e-30,
        3.0,
        -7.0,
    ]
}

fn f64_specials() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        1.0 / 3.0,
        -0.75,
        4503599627370495.5, // halfway, 2^52 - 0.5
        9007199254740993.0, // 2^53 + 1 (rounds to 2^53 in f64)
        2147483647.5,
        2147483648.0,
        -2147483648.5,
        -2147483649.0,
        4294967295.9,
        4294967296.0,
        -1.0,
        9.223372036854776e18,
        -9.223372036854776e18,
        1.8446744073709552e19,
        1.0e300,
        -1.0e300,
        3.4028235677973366e38, // just above f32::MAX: rounds to f32::MAX or inf
        3.4028235677973362e38,
        1.401298464324817e-45, // f32 smallest subnormal
        7.0e-46,               // half of it: rounds to 0 or the subnormal
        1.0e-40,
        5.0e-324,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from_bits(0xfff8_0000_0000_0001),
        1.0000000596046448, // 1 + 2^-24 (+ tiny): f32 halfway region
        1.0000000596046447,
        16777217.0,
        -16777217.0,
        0.1,
    ]
}

struct Inputs {
    f: Vec<f32>,
    g: Vec<f32>,
    d: Vec<f64>,
    e: Vec<f64>,
    k: Vec<i32>,
    l: Vec<i64>,
}

fn inputs(n: usize, seed: u64) -> Inputs {
    let mut rng = Rng::new(seed);
    let fs = f32_specials();
    let ds = f64_specials();
    let ks = [
        0i32,
        1,
        -1,
        i32::MAX,
        i32::MIN,
        16777217,
        -16777217,
        33554431,
        16777219,
        0x7fff_ff80,
        -0x7fff_ffc0,
    ];
    let ls = [
        0i64,
        -1,
        i64::MAX,
        i64::MIN,
        (1 << 53) + 1,
        (1 << 24) + 1,
        -(1 << 24) - 3,
        (1 << 62) + (1 << 39) - 1,
        u64::MAX as i64 - 1024,
        0x7fff_ffff_ffff_fc00,
    ];
    let mut inp = Inputs {
        f: vec![],
        g: vec![],
        d: vec![],
        e: vec![],
        k: vec![],
        l: vec![],
    };
    for i in 0..n {
        // f runs over the specials, g over the specials at another stride, so that all
        // sorts of pairs (equal, opposite zeros, NaN with number, ...) meet.
        let (x, y) = if i < fs.len() * 3 {
            (fs[i % fs.len()], fs[(i * 7 + i / fs.len()) % fs.len()])
        } else if i % 4 == 0 {
            let v = f32::from_bits(rng.u32());
            (v, v)
        } else {
            (f32::from_bits(rng.u32()), rng.f32())
        };
        let (p, q) = if i < ds.len() * 3 {
            (ds[i % ds.len()], ds[(i * 5 + i / ds.len()) % ds.len()])
        } else if i % 2 == 0 {
            (f64::from_bits(rng.u64()), rng.f64())
        } else {
            (rng.f64() * 1.0e6, rng.f64())
        };
        inp.f.push(x);
        inp.g.push(y);
        inp.d.push(p);
        inp.e.push(q);
        inp.k.push(if i < ks.len() * 2 {
            ks[i % ks.len()]
        } else {
            rng.u32() as i32
        });
        inp.l.push(if i < ls.len() * 2 {
            ls[i % ls.len()]
        } else {
            rng.u64() as i64 >> (i % 40)
        });
    }
    inp
}

struct Want {
    oi: Vec<i32>,
    oc: Vec<u8>,
    ol: Vec<i64>,
    of: Vec<f32>,
    od: Vec<f64>,
}

// `!(p < q)` is the point: the unordered compare (true when p or q is NaN).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn reference(inp: &Inputs) -> Want {
    let n = inp.f.len();
    let mut w = Want {
        oi: vec![],
        oc: vec![0; NC * n],
        ol: vec![],
        of: vec![],
        od: vec![],
    };
    for i in 0..n {
        let (x, y, p, q, m, l) = (inp.f[i], inp.g[i], inp.d[i], inp.e[i], inp.k[i], inp.l[i]);
        w.oi.extend_from_slice(&[
            x as i32,                          // cvt.rzi.s32.f32 (saturating, NaN -> 0)
            x.round_ties_even() as i32,        // cvt.rni.s32.f32
            x.floor() as i32,                  // cvt.rmi.s32.f32
            x.ceil() as i32,                   // cvt.rpi.s32.f32
            x as u32 as i32,                   // cvt.rzi.u32.f32 (negative -> 0)
            x.round_ties_even() as u32 as i32, // cvt.rni.u32.f32
            // cvt.rzi.{s32,u32}.f64: a NaN gives 0x80000000 from f64 on an H100
            // (tests/golden; the ISA says 0)
            if p.is_nan() { i32::MIN } else { p as i32 },
            if p.is_nan() {
                i32::MIN
            } else {
                p as u32 as i32
            },
        ]);
        // Flag j lives at oc[j*n + i]. Rust's float comparisons are IEEE's: false with a
        // NaN, except `!=`, which is the unordered "neu".
        let flags = [
            x < y,
            x == y,
            x > y,
            x != y,
            p <= q,
            p >= q,
            !(p < q),
            p.is_nan(),
        ];
        for (j, &f) in flags.iter().enumerate() {
            w.oc[j * n + i] = f as u8;
        }
        w.ol.extend_from_slice(&[
            // cvt.rzi.{s64,u64}.{f32,f64}: a NaN gives 0x8000000000000000 (as above)
            if x.is_nan() { i64::MIN } else { x as i64 },
            if p.is_nan() { i64::MIN } else { p as i64 },
            if p.is_nan() {
                i64::MIN
            } else {
                p as u64 as i64
            },
            if x.is_nan() {
                i64::MIN
            } else {
                x as u64 as i64
            },
        ]);
        w.of.extend_from_slice(&[
            x.round_ties_even(), // cvt.rni.f32.f32 (rintf)
            x.floor(),           // cvt.rmi.f32.f32
            x.ceil(),            // cvt.rpi.f32.f32
            x.trunc(),           // cvt.rzi.f32.f32
            m as f32,            // cvt.rn.f32.s32
            m as u32 as f32,     // cvt.rn.f32.u32
            p as f32,            // cvt.rn.f32.f64 (overflow -> inf, subnormal results kept)
            ptx_min_f32(x, y),   // min.f32
            ptx_max_f32(x, y),   // max.f32
            x.abs(),             // abs.f32
            -x,                  // neg.f32
            x + y,               // add.rn.f32
            x - y,               // sub.f32
            x * y,               // mul.rn.f32
            x / y,               // div.rn.f32 (IEEE division, correctly rounded)
            l as f32,            // cvt.rn.f32.s64
        ]);
        w.od.extend_from_slice(&[
            x as f64,                        // cvt.f64.f32 (exact)
            m as f64,                        // cvt.rn.f64.s32 (exact)
            l as f64,                        // cvt.rn.f64.s64
            l as u64 as f64,                 // cvt.rn.f64.u64
            ptx_min_f64(p, q),               // min.f64
            ptx_max_f64(p, q),               // max.f64
            p.abs(),                         // abs.f64
            -p,                              // neg.f64
            p / q,                           // div.rn.f64
            p.mul_add(q, p),                 // fma.rn.f64
            p + q,                           // add.rn.f64
            p.round_ties_even() + q.floor(), // cvt.rni.f64.f64 + cvt.rmi.f64.f64, add
        ]);
    }
    w
}

/// Per-slot comparison so that a failure names the operation (slot k of each thread).
fn check_slots<T: Copy>(
    fails: &mut Failures,
    got: &[T],
    want: &[T],
    slots: usize,
    names: &[&str],
    what: &str,
    cmp: impl Fn(&[T], &[T], &str) -> Option<String>,
) {
    assert_eq!(names.len(), slots);
    for (k, name) in names.iter().enumerate() {
        let g: Vec<T> = got.iter().skip(k).step_by(slots).copied().collect();
        let w: Vec<T> = want.iter().skip(k).step_by(slots).copied().collect();
        fails.add(cmp(
            &g,
            &w,
            &format!("{what}: slot {k} ({name}) indexed by thread"),
        ));
    }
}

fn fconv(backend: Backend) {
    let dev = device();
    for file in variants("fconv") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [(200usize, 64u32), (1000, 256)].iter().enumerate() {
            let inp = inputs(n, 300 + s as u64);
            let ins = (
                dev.alloc_from(&inp.f).unwrap(),
                dev.alloc_from(&inp.g).unwrap(),
                dev.alloc_from(&inp.d).unwrap(),
                dev.alloc_from(&inp.e).unwrap(),
                dev.alloc_from(&inp.k).unwrap(),
                dev.alloc_from(&inp.l).unwrap(),
            );
            let oi = dev.alloc_zeroed(n * NI * 4).unwrap();
            let oc = dev.alloc_zeroed(n * NC).unwrap();
            let ol = dev.alloc_zeroed(n * NL * 8).unwrap();
            let of = dev.alloc_zeroed(n * NF * 4).unwrap();
            let od = dev.alloc_zeroed(n * ND * 8).unwrap();
            let what = format!("{file} fconv n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "fconv",
                &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
                &[
                    arg(&ins.0),
                    arg(&ins.1),
                    arg(&ins.2),
                    arg(&ins.3),
                    arg(&ins.4),
                    arg(&ins.5),
                    arg(&oi),
                    arg(&oc),
                    arg(&ol),
                    arg(&of),
                    arg(&od),
                    KernelArg::from(n as u32),
                ],
                &what,
            );
            let w = reference(&inp);
            let mut fails = Failures::default();
            let ni = [
                "(int)x",
                "__float2int_rn",
                "__float2int_rd",
                "__float2int_ru",
                "(unsigned)x",
                "__float2uint_rn",
                "(int)p",
                "(unsigned)p",
            ];
            check_slots(
                &mut fails,
                &dev.read::<i32>(&oi).unwrap(),
                &w.oi,
                NI,
                &ni,
                &what,
                diff_slice,
            );
            let got_c = dev.read::<u8>(&oc).unwrap();
            let nc = [
                "x<y", "x==y", "x>y", "x!=y", "p<=q", "p>=q", "!(p<q)", "p!=p",
            ];
            for j in 0..NC {
                fails.add(diff_slice(
                    &got_c[j * n..(j + 1) * n],
                    &w.oc[j * n..(j + 1) * n],
                    &format!("{what}: flag {} indexed by thread", nc[j]),
                ));
            }
            let nl = [
                "(long long)x",
                "(long long)p",
                "(unsigned long long)p",
                "(unsigned long long)x",
            ];
            check_slots(
                &mut fails,
                &dev.read::<i64>(&ol).unwrap(),
                &w.ol,
                NL,
                &nl,
                &what,
                diff_slice,
            );
            let nf = [
                "rintf",
                "floorf",
                "ceilf",
                "truncf",
                "(float)m",
                "(float)(unsigned)m",
                "(float)p",
                "fminf",
                "fmaxf",
                "fabsf",
                "-x",
                "x+y",
                "x-y",
                "x*y",
                "x/y",
                "(float)w",
            ];
            // min/max: NaN only when both inputs are NaN ("NaN", payload unspecified).
            check_slots(
                &mut fails,
                &dev.read::<f32>(&of).unwrap(),
                &w.of,
                NF,
                &nf,
                &what,
                |g, w, s| diff_f32(g, w, s, true),
            );
            let nd = [
                "(double)x",
                "(double)m",
                "(double)w",
                "(double)(unsigned long long)w",
                "fmin",
                "fmax",
                "fabs",
                "-p",
                "p/q",
                "fma(p,q,p)",
                "p+q",
                "rint(p)+floor(q)",
            ];
            check_slots(
                &mut fails,
                &dev.read::<f64>(&od).unwrap(),
                &w.od,
                ND,
                &nd,
                &what,
                |g, w, s| diff_f64(g, w, s, true),
            );
            fails.finish(&what);
        }
    }
}

/// Round-toward-zero conversions (tests/kernels/fconv_rz.cu): __int2float_rz
/// (cvt.rz.f32.s32) and __double2float_rz (cvt.rz.f32.f64), including f32 overflow
/// (-> +-MAX, never inf) and underflow.
fn fconv_rz(backend: Backend) {
    let dev = device();
    for file in variants("fconv_rz") {
        let m = module(&dev, &file, backend);
        let n = 400;
        let inp = inputs(n, 77);
        let k_buf = dev.alloc_from(&inp.k).unwrap();
        let d_buf = dev.alloc_from(&inp.d).unwrap();
        let o = dev.alloc_zeroed(n * 8).unwrap();
        let what = format!("{file} fconv_rz {backend:?}");
        launch(
            &dev,
            &m,
            "fconv_rz",
            &cfg([blocks(n, 128), 1, 1], [128, 1, 1], backend),
            &[arg(&k_buf), arg(&d_buf), arg(&o), KernelArg::from(n as u32)],
            &what,
        );
        let got = dev.read::<f32>(&o).unwrap();
        let g_i: Vec<f32> = got.iter().step_by(2).copied().collect();
        let g_d: Vec<f32> = got.iter().skip(1).step_by(2).copied().collect();
        let w_i: Vec<f32> = inp.k.iter().map(|&k| f32_from_i32_rz(k)).collect();
        let w_d: Vec<f32> = inp.d.iter().map(|&d| f32_from_f64_rz(d)).collect();
        assert_f32_bits(&g_i, &w_i, &format!("{what} __int2float_rz"));
        assert_f32_bits_nan_any(&g_d, &w_d, &format!("{what} __double2float_rz"));
    }
}

/// The reference helpers themselves, on hand-checked values (no device needed).
#[test]
fn rz_helpers() {
    // 16777217 = 2^24 + 1 is not an f32; toward zero gives 2^24, nearest-even too.
    assert_eq!(f32_from_i32_rz(16777217), 16777216.0);
    // 16777219 = 2^24 + 3: nearest-even gives 2^24 + 4, toward zero 2^24 + 2.
    assert_eq!(f32_from_i32_rz(16777219), 16777218.0);
    assert_eq!(f32_from_i32_rz(-16777219), -16777218.0);
    // i32::MAX = 2^31 - 1: nearest gives 2^31, toward zero 2^31 - 128.
    assert_eq!(f32_from_i32_rz(i32::MAX), 2147483520.0);
    assert_eq!(f32_from_f64_rz(1.0e300), f32::MAX);
    assert_eq!(f32_from_f64_rz(-1.0e300), f32::MIN);
    assert_eq!(f32_from_f64_rz(f64::INFINITY), f32::INFINITY);
    assert_eq!(f32_from_f64_rz(1.0e-50).to_bits(), 0);
    assert_eq!(f32_from_f64_rz(-1.0e-50).to_bits(), 0x8000_0000);
    // 0.1 in f64 is slightly above 0.1; f32 nearest 0.1 is above it (0x3dcccccd), so
    // toward zero is one ulp below.
    assert_eq!(f32_from_f64_rz(0.1).to_bits(), 0x3dcc_cccc);
    assert_eq!(ptx_min_f32(-0.0, 0.0).to_bits(), 0x8000_0000);
    assert_eq!(ptx_min_f32(0.0, -0.0).to_bits(), 0x8000_0000);
    assert_eq!(ptx_max_f32(-0.0, 0.0).to_bits(), 0);
    assert_eq!(ptx_max_f32(f32::NAN, -3.0), -3.0);
    assert_eq!(ptx_min_f64(2.0, f64::NAN), 2.0);
}

both_backends!(fconv, fconv_rz);
