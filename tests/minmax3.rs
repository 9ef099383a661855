//! Three-input `min`/`max` (PTX ISA 8.8: `min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c`,
//! `tests/ptx/minmax3.ptx`, validated by ptxas for sm_100) on both backends, with
//! hand-checked results: the two-input rules applied to three inputs (a NaN input is
//! ignored unless all are NaN; `.NaN`: any NaN input gives the canonical NaN
//! 0x7fffffff; `.ftz` flushes subnormal inputs to a zero of the same sign; -0 < +0;
//! `.abs` compares magnitudes). No GPU oracle: the H100 cannot run sm_100 code.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const NAN: u32 = 0x7fff_ffff;

fn minmax3(backend: Backend) {
    let f = |x: f32| x.to_bits();
    // (a, b, c) and the expected min, max, min.NaN, max.ftz, min.abs, max.NaN.abs.
    let cases: [([u32; 3], [u32; 6]); 8] = [
        (
            [f(3.0), f(-1.0), f(2.0)],
            [f(-1.0), f(3.0), f(-1.0), f(3.0), f(1.0), f(3.0)],
        ),
        // A NaN among numbers: ignored, except by .NaN.
        (
            [0x7fc0_0000, f(5.0), f(2.0)],
            [f(2.0), f(5.0), NAN, f(5.0), f(2.0), NAN],
        ),
        (
            [f(1.0), 0x7fc0_0000, 0xffc0_0001],
            [f(1.0), f(1.0), NAN, f(1.0), f(1.0), NAN],
        ),
        // All NaN: the canonical NaN.
        ([0x7fc0_0000; 3], [NAN; 6]),
        // -0 is below +0; |-0| = +0.
        ([0x8000_0000, 0, 0], [0x8000_0000, 0, 0x8000_0000, 0, 0, 0]),
        // Subnormals: kept, except by .ftz (max of +0, -0, -1 is +0); magnitudes 2^-149,
        // 2^-149, 1.
        (
            [1, 0x8000_0001, f(-1.0)],
            [f(-1.0), 1, f(-1.0), 0, 1, f(1.0)],
        ),
        (
            [f(-5.0), f(4.0), f(-3.0)],
            [f(-5.0), f(4.0), f(-5.0), f(4.0), f(3.0), f(5.0)],
        ),
        (
            [f(f32::INFINITY), f(f32::NEG_INFINITY), 0],
            [
                f(f32::NEG_INFINITY),
                f(f32::INFINITY),
                f(f32::NEG_INFINITY),
                f(f32::INFINITY),
                0,
                f(f32::INFINITY),
            ],
        ),
    ];
    let input: Vec<u32> = cases.iter().flat_map(|c| c.0).collect();
    let want: Vec<u32> = cases.iter().flat_map(|c| c.1).collect();
    let dev = device();
    let m = module_at(&dev, "tests/ptx/minmax3.ptx", backend);
    let inb = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, want.len() * 4);
    let c = cfg([1, 1, 1], [cases.len() as u32, 1, 1], backend);
    launch(&dev, &m, "minmax3", &c, &[arg(&inb), arg(&out)], "minmax3");
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "minmax3");
}

both_backends!(minmax3);
