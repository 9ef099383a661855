//! Integer `min/max.relu.s32`, the packed `.u16x2`/`{.relu}.s16x2` forms, integer
//! `abs`/`neg` at the type minimum, and the predicate-output `lop3.{and,or}.b32 d|p`
//! on both backends (`tests/ptx/intminmax.ptx`, ptxas-validated for sm_90).
//!
//! Oracles: Rust's `i16`/`u16`/`i32`/`i64` `min`/`max`/`wrapping_abs`/`wrapping_neg`
//! per half or word; `.relu` clamps a negative result to 0; lop3's function is
//! evaluated bit by bit from the look-up table's definition (bit `4a + 2b + c` of the
//! LUT), and `p = (d != 0) BoolOp q` (ISA). Inputs: every pair of high bytes in each
//! 16-bit half (65,536 threads), plus signed/unsigned extremes.

#[macro_use]
mod common;
use common::*;

const SRC: &str = include_str!("ptx/intminmax.ptx");
const WORDS: usize = 26;

fn inputs() -> Vec<(u32, u32)> {
    let sp = |v: u32| v << 8 | ((v * 37) & 0xff);
    let mut v = Vec::new();
    for i in 0..256u32 {
        for j in 0..256u32 {
            v.push((sp(i) | sp(j) << 16, sp(j) | sp(i ^ 0x80) << 16));
        }
    }
    let ext = [
        0u32,
        1,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x8000_7fff,
        0x0001_8000,
    ];
    for &a in &ext {
        for &b in &ext {
            v.push((a, b));
        }
    }
    v
}

fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..32 {
        let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d |= ((lut as u32 >> idx) & 1) << i;
    }
    d
}

fn reference(a: u32, b: u32) -> [u32; WORDS] {
    let halves = |x: u32| [x as u16, (x >> 16) as u16];
    let pack = |f: &dyn Fn(u16, u16) -> u16| {
        let (x, y) = (halves(a), halves(b));
        f(x[0], y[0]) as u32 | (f(x[1], y[1]) as u32) << 16
    };
    let relu16 = |v: i16| v.max(0) as u16;
    let (sa, sb) = (a as i32, b as i32);
    let wide = a as u64 | (b as u64) << 32;
    let d = lop3(a, b, 0xF0F0_F0F0, 0xE8);
    let q = a & 1 != 0;
    let nz = d != 0;
    let mut r = [0u32; WORDS];
    r[0] = pack(&|x, y| (x as i16).min(y as i16) as u16);
    r[1] = pack(&|x, y| (x as i16).max(y as i16) as u16);
    r[2] = pack(&|x, y| relu16((x as i16).min(y as i16)));
    r[3] = pack(&|x, y| relu16((x as i16).max(y as i16)));
    r[4] = pack(&|x, y| x.min(y));
    r[5] = pack(&|x, y| x.max(y));
    r[6] = sa.min(sb).max(0) as u32;
    r[7] = sa.max(sb).max(0) as u32;
    r[8] = sa.wrapping_abs() as u32;
    r[9] = sa.wrapping_neg() as u32;
    r[10] = sa.min(sb) as u32;
    r[11] = (a as i16).wrapping_abs() as u16 as u32;
    r[12] = (a as i16).wrapping_neg() as u16 as u32;
    let abs64 = (wide as i64).wrapping_abs() as u64;
    let neg64 = (wide as i64).wrapping_neg() as u64;
    r[14] = abs64 as u32;
    r[15] = (abs64 >> 32) as u32;
    r[16] = neg64 as u32;
    r[17] = (neg64 >> 32) as u32;
    r[18] = d;
    r[19] = (nz || q) as u32;
    r[20] = (nz && !q) as u32;
    r[21] = nz as u32;
    r[22] = 1;
    r[23] = nz as u32;
    r[24] = 0;
    r
}

fn run(backend: Backend, xs: &[(u32, u32)]) -> Vec<u32> {
    let dev = device();
    let m = match backend {
        Backend::Jit => dev.load_ptx(SRC, "intminmax.ptx"),
        Backend::Interp => dev.load_ptx_with(SRC, "intminmax.ptx", false),
    }
    .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
    let input: Vec<u32> = xs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let i = dev.alloc_from(&input).unwrap();
    let n = xs.len();
    let o = zeroed(&dev, n * WORDS * 4);
    launch(
        &dev,
        &m,
        "intops",
        &cfg([blocks(n, 256), 1, 1], [256, 1, 1], backend),
        &[arg(&i), arg(&o), KernelArg::from(n as u32)],
        "intops",
    );
    dev.read(&o).unwrap()
}

fn intops(backend: Backend) {
    let xs = inputs();
    let got = run(backend, &xs);
    const NAMES: [&str; WORDS] = [
        "min.s16x2",
        "max.s16x2",
        "min.relu.s16x2",
        "max.relu.s16x2",
        "min.u16x2",
        "max.u16x2",
        "min.relu.s32",
        "max.relu.s32",
        "abs.s32",
        "neg.s32",
        "min.s32",
        "abs.s16",
        "neg.s16",
        "-",
        "abs.s64 lo",
        "abs.s64 hi",
        "neg.s64 lo",
        "neg.s64 hi",
        "lop3",
        "lop3.or q",
        "lop3.and !q",
        "lop3.and 1",
        "lop3.or 1",
        "lop3.or 0",
        "lop3.and 0",
        "-",
    ];
    let mut bad = Vec::new();
    for (t, &(a, b)) in xs.iter().enumerate() {
        let want = reference(a, b);
        for k in 0..WORDS {
            let g = got[t * WORDS + k];
            if g != want[k] && bad.len() < 12 {
                bad.push(format!(
                    "{} a={a:#x} b={b:#x}: got {g:#x} want {:#x}",
                    NAMES[k], want[k]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{backend:?}:\n{}", bad.join("\n"));
}

both_backends!(intops);
