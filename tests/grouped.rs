//! Straight-line float code laid out lane group by lane group
//! (`jit::translate::grouped`): `tests/ptx/grouped.ptx` keeps 15 f32 temporaries of a
//! thread live at once (120 vectors per warp, against 16 vector registers), under a
//! divergent branch and guarded writes, with NaN payloads, infinities, signed zeros and
//! subnormals among the inputs, an `.ftz` add and an f64 chain. Both backends (and the
//! JIT with the grouping on and off: the process-wide switch `PTXJIT_GROUPED=0` is read
//! once, so the off case is the same test run under it) against a Rust reference of
//! the GPU rules: IEEE results rounded to nearest, a NaN result is the canonical NaN
//! (`0x7fffffff`, `0x7fffffffffffffff`), `.ftz` flushes subnormal inputs and results to
//! zero of the same sign.

#[macro_use]
mod common;
use common::*;

const CANON32: u32 = 0x7fff_ffff;
const CANON64: u64 = 0x7fff_ffff_ffff_ffff;

/// Special f32 inputs: payload NaNs, infinities, zeros, subnormals, extremes.
const SPECIAL32: [u32; 12] = [
    0x7fc0_0001, // quiet NaN with a payload
    0xff80_0001, // negative signalling NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // largest negative subnormal
    0x0080_0000, // smallest normal
    0x7f7f_ffff, // largest finite
    0x3f80_0000, // 1
    0xc040_0000, // -3
];

const SPECIAL64: [u64; 8] = [
    0x7ff8_0000_0000_0001,
    0xfff0_0000_0000_0001,
    0x7ff0_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x7fef_ffff_ffff_ffff,
    0x3ff8_0000_0000_0000,
    0xc000_0000_0000_0000,
];

fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        CANON32
    } else {
        x.to_bits()
    }
}

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        CANON64
    } else {
        x.to_bits()
    }
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// The 8 f32 words and 3 f64 words thread `t` stores (`tests/ptx/grouped.ptx`, line by
/// line; every NaN propagates, so canonicalising the stored values suffices).
fn reference(t: usize, a: [f32; 4], d: f64, s: f32) -> ([u32; 8], [u64; 3]) {
    if t % 4 == 3 {
        return ([0; 8], [0; 3]);
    }
    let guard = t & 4 != 0;
    let [f1, f2, f3, f4] = a;
    let mut f5 = f1 + f2;
    let f6 = f1 - f3;
    let f7 = f2 * f4;
    let f8 = f3.mul_add(f4, f1);
    let f9 = f5 * s;
    let f10 = f6 + 1.5;
    let f11 = f7 - f8;
    let f12 = f5 / f6;
    let f13 = f7.sqrt();
    let f14 = 1.0 / f8;
    let f15 = -f9;
    let f16 = f11.abs();
    if guard {
        f5 = f12.mul_add(f13, f14);
    }
    let f17 = flush(flush(f4) + flush(f3));
    let f18 = f15 * f16;
    let f19 = f10.mul_add(f9, f18);
    let mut fd2 = d * d;
    let fd3 = fd2 + d;
    if guard {
        fd2 = fd3.mul_add(d, d);
    }
    let fd4 = fd2 - fd3;
    let w = [
        f5 + f6,
        f7 + f8,
        f9 + f10,
        f11 + f12,
        f13 + f14,
        f15 + f16,
        f17 + f18,
        f19 + f1,
    ];
    (w.map(canon32), [fd2, fd3, fd4].map(canon64))
}

fn grouped_run(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/grouped.ptx", backend);
    let mut rng = Rng::new(0x6772_6f75);
    // 3 warps: thread t's inputs mix the specials (in every position and pairing) with
    // random normal numbers.
    let n = 96usize;
    let mut in32 = Vec::with_capacity(4 * n);
    for t in 0..n {
        for j in 0..4 {
            let k = (t * 5 + j * 7) % 17;
            in32.push(match SPECIAL32.get(k) {
                Some(&b) => f32::from_bits(b),
                None => rng.f32(),
            });
        }
    }
    let in64: Vec<f64> = (0..n)
        .map(|t| match SPECIAL64.get(t % 11) {
            Some(&b) => f64::from_bits(b),
            None => rng.f64(),
        })
        .collect();
    for s in [1.75f32, -0.0, f32::INFINITY] {
        let b32 = dev.alloc_from(&in32).unwrap();
        let b64 = dev.alloc_from(&in64).unwrap();
        let o32 = zeroed(&dev, n * 32);
        let o64 = zeroed(&dev, n * 24);
        launch(
            &dev,
            &m,
            "grouped_run",
            &cfg([1, 1, 1], [n as u32, 1, 1], backend),
            &[arg(&b32), arg(&b64), arg(&o32), arg(&o64), s.into()],
            "grouped_run",
        );
        let g32: Vec<u32> = dev.read(&o32).unwrap();
        let g64: Vec<u64> = dev.read(&o64).unwrap();
        for t in 0..n {
            let a = [0, 1, 2, 3].map(|j| in32[4 * t + j]);
            let (w32, w64) = reference(t, a, in64[t], s);
            assert_eq!(
                g32[8 * t..8 * t + 8],
                w32,
                "{backend:?} s={s} thread {t}: f32 words (inputs {a:?})"
            );
            assert_eq!(
                g64[3 * t..3 * t + 3],
                w64,
                "{backend:?} s={s} thread {t}: f64 words (input {})",
                in64[t]
            );
        }
    }
}

both_backends!(grouped_run);
