//! Bit operations the JIT computes in vectors (tests/ptx/bits_inline.ptx, hand-written,
//! passes ptxas 12.9): `bfe` with immediate position and length (`.u32`, `.s32` with the
//! field ending at bit 31, the whole word, one bit; `.u64`, `.s64`), `popc.b32`, `clz.b32`,
//! two `bfe` forms left to the helper (zero length; a `.s32` field past bit 31, whose
//! missing bits are bit 31), and `prmt` with immediate selectors (the default mode, `.f4e`,
//! `.b4e`, `.rc16`; one selector replicating a sign, left to the helper), `brev.b32` and
//! `bfind` (`.u32`, `.s32`, with and without `.shiftamt`), on the interpreter and both JIT tiers, against references
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

/// `prmt`'s result from the bytes of `{b, a}` it selects: `sel[k]` is the source byte of
/// result byte `k` (0..8, `a`'s bytes first); `sign[k]` replicates that byte's top bit.
fn pick(a: u32, b: u32, sel: [u32; 4], sign: [bool; 4]) -> u32 {
    let src = ((b as u64) << 32) | a as u64;
    (0..4).fold(0u32, |d, k| {
        let v = ((src >> (8 * sel[k])) & 0xff) as u32;
        let v = match sign[k] {
            true if v & 0x80 != 0 => 0xff,
            true => 0,
            false => v,
        };
        d | v << (8 * k)
    })
}

/// `bfind`: the position of the most significant 1 (for a negative `.s32`, of the most
/// significant 0), counted from bit 0 or (`shiftamt`) from bit 31; all ones where there
/// is none.
fn bfind(x: u32, signed: bool, shiftamt: bool) -> u32 {
    let v = if signed && (x as i32) < 0 { !x } else { x };
    match (v, shiftamt) {
        (0, _) => u32::MAX,
        (_, true) => v.leading_zeros(),
        (_, false) => 31 - v.leading_zeros(),
    }
}

fn reference(x: u64) -> [u32; 24] {
    let lo = x as u32;
    let (a, b) = (lo, (x >> 32) as u32);
    let plain = [false; 4];
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
        // 0x5410: a's low half, then b's low half.
        pick(a, b, [0, 1, 4, 5], plain),
        // 0x0167: bytes 7, 6, 1, 0.
        pick(a, b, [7, 6, 1, 0], plain),
        // .f4e, shift 3: bytes 3, 4, 5, 6 (forward four extract).
        pick(a, b, [3, 4, 5, 6], plain),
        // .b4e, shift 1: bytes 1, 0, 7, 6 (backward four extract).
        pick(a, b, [1, 0, 7, 6], plain),
        // .rc16, shift 1: the high half of a, twice.
        pick(a, b, [2, 3, 2, 3], plain),
        // 0x8f31: bytes 1, 3, sign of 7, sign of 0.
        pick(a, b, [1, 3, 7, 0], [false, false, true, true]),
        lo.reverse_bits(),
        bfind(lo, false, false),
        bfind(lo, false, true),
        bfind(lo, true, false),
        bfind(lo, true, true),
        0, // unused: keeps each thread's 64-bit results aligned
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
    let out = dev.alloc_from(&vec![0u32; 24 * n]).unwrap();
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
