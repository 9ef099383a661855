//! `slct` and the cache-control / dependent-launch instructions (tests/ptx/slct_cache.ptx)
//! on both backends. Expected values from the ISA's definition, `d = c >= 0 ? a : b`,
//! written out below for the interesting `c`: -0 is >= 0, NaN is not, a negative
//! subnormal is not (but is, as -0, with `.ftz`).
#[macro_use]
mod common;
use common::*;

fn slct_and_cache(backend: Backend) {
    let cs: [u32; 12] = [
        0,           // 0: >= 0 both ways
        1,           // s32 1 / f32 smallest subnormal: >= 0
        0x8000_0000, // s32 MIN: < 0; f32 -0: >= 0
        0x8000_0001, // s32 < 0; f32 negative subnormal: < 0, with .ftz -0 >= 0
        0x7fc0_0000, // s32 > 0; f32 NaN: not >= 0
        0xffc0_0000, // s32 < 0; f32 -NaN
        0x3f80_0000, // 1.0
        0xbf80_0000, // -1.0
        0x7f80_0000, // +inf
        0xff80_0000, // -inf
        0x807f_ffff, // largest negative subnormal
        0xffff_ffff, // s32 -1; f32 NaN
    ];
    let n = cs.len();
    let mut input = Vec::new();
    for (t, &c) in cs.iter().enumerate() {
        input.extend([100 + t as u32, 200 + t as u32, c]);
    }
    // (slct.u32.s32, slct.u32.f32, slct.ftz.u32.f32): true = a.
    let want_sel: [(bool, bool, bool); 12] = [
        (true, true, true),
        (true, true, true),
        (false, true, true),
        (false, false, true),
        (true, false, false),
        (false, false, false),
        (true, true, true),
        (false, false, false),
        (true, true, true),
        (false, false, false),
        (false, false, true),
        (false, false, false),
    ];
    let dev = device();
    let m = module_at(&dev, "tests/ptx/slct_cache.ptx", backend);
    let inb = dev.alloc_from(&input).unwrap();
    let out = zeroed(&dev, n * 12);
    let scratch = zeroed(&dev, 256);
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out), arg(&scratch)],
        "slct_cache",
    );
    let got: Vec<u32> = dev.read(&out).unwrap();
    let mut want = Vec::new();
    for (t, s) in want_sel.iter().enumerate() {
        let pick = |x: bool| if x { 100 + t as u32 } else { 200 + t as u32 };
        want.extend([pick(s.0), pick(s.1), pick(s.2)]);
    }
    assert_slice_eq(&got, &want, &format!("slct {backend:?}"));
}

both_backends!(slct_and_cache);

/// The ISA's relaxed operand sizes (tests/corpus/handwritten/relaxed_operand_sizes.ptx,
/// accepted by ptxas): `ld.global.f32` into a `.b64` register zero-extends the 32 loaded
/// bits; `ld.global.u16` into a `.u32` register reads two bytes; `cvt.u16.u32` into a
/// `.u32` register zero-extends the 16-bit result.
fn relaxed_operand_sizes(backend: Backend) {
    let dev = device();
    let m = module_at(
        &dev,
        "tests/corpus/handwritten/relaxed_operand_sizes.ptx",
        backend,
    );
    let inb = dev.alloc_from(&[0x3fc0_0000u32, 0x1234_beef]).unwrap();
    let out = dev.alloc_from(&[u32::MAX; 4]).unwrap();
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        "relaxed_operand_sizes",
    );
    let got: Vec<u32> = dev.read(&out).unwrap();
    assert_eq!(got, vec![0x3fc0_0000, 0, 0xbeef, u32::MAX], "{backend:?}");
}

both_backends!(relaxed_operand_sizes);

/// `mov.u32 d, a+20` and `a+-30` (tests/ptx/mov_regoff_cvt_bf16.ptx): a = 7 gives 27 and
/// 7 - 30 = -23 = 0xffffffe9 (wrapping in 32 bits); `cvt.rz.f32.bf16` and
/// `cvt.f64.bf16.rp` of bf16 values are exact widenings whatever the rounding modifier:
/// 0x3fc0 = 1.5, 0x8000 = -0.0, 0x0001 = 2^-133 (a bf16 subnormal: f32 0x00010000).
fn mov_regoff_cvt_bf16(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, "tests/ptx/mov_regoff_cvt_bf16.ptx", backend);
    for (h, f, d) in [
        (0x3fc0u16, 1.5f32, 1.5f64),
        (0x8000, -0.0, -0.0),
        (0x0001, f32::from_bits(0x0001_0000), 2f64.powi(-133)),
    ] {
        let inb = dev.alloc_from(&[7u32, h as u32]).unwrap();
        let out = zeroed(&dev, 24);
        launch(
            &dev,
            &m,
            "k",
            &cfg([1, 1, 1], [1, 1, 1], backend),
            &[arg(&inb), arg(&out)],
            "mov_regoff_cvt_bf16",
        );
        let w: Vec<u32> = dev.read(&out).unwrap();
        assert_eq!((w[0], w[1]), (27, 0xffff_ffe9), "{backend:?}");
        assert_eq!(w[2], f.to_bits(), "{backend:?} {h:#x}");
        let d_bits = (w[5] as u64) << 32 | w[4] as u64;
        assert_eq!(d_bits, d.to_bits(), "{backend:?} {h:#x}");
    }
}

both_backends!(mov_regoff_cvt_bf16);
