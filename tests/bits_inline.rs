//! Bit operations the JIT computes in vectors (tests/ptx/bits_inline.ptx, hand-written,
//! passes ptxas 12.9): `bfe` with immediate position and length (`.u32`, `.s32` with the
//! field ending at bit 31, the whole word, one bit; `.u64`, `.s64`), `popc.b32`, `clz.b32`,
//! and two `bfe` forms left to the helper (zero length; a `.s32` field past bit 31, whose
//! missing bits are bit 31), on the interpreter and both JIT tiers, against references
//! written from the ISA's definitions with Rust's integer operations.
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

/// `bfe` of a `w`-bit value: bits `pos..pos + len` of `x`, sign-extended from the field's
/// top bit for `.s`; field bits past bit `w - 1` are the sign bit (bit `w - 1` for `.s`,
/// 0 for `.u`); a zero length gives 0.
fn bfe(x: u64, w: u32, signed: bool, pos: u32, len: u32) -> u64 {
    let mask_w = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let bit = |i: u32| match (i < w, signed) {
        (true, _) => (x >> i) & 1,
        (false, true) => (x >> (w - 1)) & 1,
        (false, false) => 0,
    };
    let mut r = 0u64;
    for i in 0..len.min(w) {
        r |= bit(pos + i) << i;
    }
    if signed && len > 0 && bit(pos + len - 1) == 1 {
        for i in len.min(w)..w {
            r |= 1 << i;
        }
    }
    r & mask_w
}

fn reference(x: u64) -> [u32; 12] {
    let lo = x as u32;
    let l = lo as u64;
    let u64a = bfe(x, 64, false, 40, 20);
    let s64a = bfe(x, 64, true, 8, 40);
    [
        bfe(l, 32, false, 3, 5) as u32,
        bfe(l, 32, true, 20, 12) as u32,
        lo,
        bfe(l, 32, true, 0, 1) as u32,
        0,
        bfe(l, 32, true, 28, 8) as u32,
        lo.count_ones(),
        lo.leading_zeros(),
        u64a as u32,
        (u64a >> 32) as u32,
        s64a as u32,
        (s64a >> 32) as u32,
    ]
}

fn run_on(dev: &Device, backend: Backend, what: &str) {
    let m = module_at(dev, "tests/ptx/bits_inline.ptx", backend);
    let n = 96usize;
    let mut rng = Rng::new(11);
    let mut x: Vec<u64> = (0..n).map(|_| rng.u64() >> (rng.u32() % 64)).collect();
    let edges = [
        0u64,
        1,
        u64::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0x8000_0000_0000_0000,
        0x0000_0080_0000_0000,
        0x0000_7fff_ffff_ff00,
        0x0010_0000,
        0x00ff_ffff,
        3,
    ];
    x[..edges.len()].copy_from_slice(&edges);
    let inb = dev.alloc_from(&x).unwrap();
    let out = dev.alloc_from(&vec![0u32; 12 * n]).unwrap();
    launch(
        dev,
        &m,
        "bitsi",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&inb), arg(&out)],
        what,
    );
    let want: Vec<u32> = x.iter().flat_map(|&v| reference(v)).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, what);
}

interp_and_tiers!(run_on, "bits_inline");
