//! Integer mix (tests/kernels/intmix.cu): mul.hi / mul.wide, 64-bit arithmetic, shifts
//! by per-thread amounts, signed/unsigned compares and selects, 8/16-bit memory.
#[macro_use]
mod common;
use common::*;

const N32: usize = 15;
const N64: usize = 8;

struct Inputs {
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u64>,
    bytes: Vec<u8>,
    halves: Vec<i16>,
}

fn inputs(n: usize, seed: u64) -> Inputs {
    let mut rng = Rng::new(seed);
    let edge32 = [
        0u32,
        1,
        2,
        5,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_ffff,
        0xffff_fffb,
        0xffff,
        0x1_0000,
    ];
    let edge64 = [
        0u64,
        1,
        0xffff_ffff,
        0x1_0000_0000,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        0x8000_0000,
    ];
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for i in 0..n {
        // All pairs of edge values first, then random ones (equal pairs now and then).
        let m = edge32.len();
        if i < m * m {
            a.push(edge32[i / m]);
            b.push(edge32[i % m]);
        } else {
            let x = rng.u32();
            a.push(x);
            b.push(if i % 7 == 0 { x } else { rng.u32() });
        }
    }
    let c = (0..n)
        .map(|i| {
            if i % 5 == 0 {
                edge64[(i / 5) % edge64.len()]
            } else {
                rng.u64()
            }
        })
        .collect();
    let bytes = (0..n).map(|_| rng.u32() as u8).collect();
    let halves = (0..n)
        .map(|i| {
            if i % 9 == 0 {
                [i16::MIN, -1, 0, 1, i16::MAX][(i / 9) % 5]
            } else {
                rng.u32() as i16
            }
        })
        .collect();
    Inputs {
        a,
        b,
        c,
        bytes,
        halves,
    }
}

/// The kernel's results for one thread, from the C source's operations written in Rust.
fn reference(
    x: u32,
    y: u32,
    z: u64,
    bv: u8,
    hv: i16,
) -> ([u32; N32], [u64; N64], [u8; 2], [u16; 2]) {
    let (sx, sy, sz) = (x as i32, y as i32, z as i64);
    let s = y & 31;
    let t = x & 31;
    let u = x >> 26; // 0..63
    let hx = x as u16;
    let hy = y as u16;
    let r = [
        ((x as u64 * y as u64) >> 32) as u32,               // __umulhi
        ((sx as i64 * sy as i64) >> 32) as u32,             // __mulhi
        x.wrapping_mul(y).wrapping_add(x ^ y),              // x*y + (x^y)
        (x << s) ^ (y >> t),                                // logical shifts
        (sx >> s) as u32,                                   // arithmetic shift
        if sx < sy { x ^ 0x55 } else { y.wrapping_add(7) }, // signed compare
        if x < y { x.wrapping_sub(y) } else { x | y },      // unsigned compare
        !x & (y | 0xF0F0),
        if (sx >= 0) == (sy >= 0) {
            x.wrapping_sub(y)
        } else {
            y.wrapping_sub(x)
        },
        (x == y) as u32,
        if x != 0 { 0xAAAA } else { 0x5555 },
        (sx <= -5) as u32,
        if x >= 0x8000_0000 { y } else { x },
        // (unsigned short)((unsigned)hx * hy + hx): 32-bit unsigned math, low 16 bits.
        ((hx as u32).wrapping_mul(hy as u32).wrapping_add(hx as u32)) as u16 as u32,
        // (unsigned)(int)(short)(hx ^ hy) >> 3: sign-extend, then a logical shift.
        ((hx ^ hy) as i16 as i32 as u32) >> 3,
    ];
    let q = [
        x as u64 * y as u64,            // mul.wide.u32
        (sx as i64 * sy as i64) as u64, // mul.wide.s32
        z.wrapping_mul(z >> 7).wrapping_add(x as u64),
        ((z as u128 * (z ^ y as u64) as u128) >> 64) as u64, // __umul64hi(z, z ^ y)
        (z << u) ^ ((sz >> (63 - u)) as u64),
        if sz < sx as i64 {
            z.wrapping_sub(x as u64)
        } else {
            z.wrapping_add(y as u64)
        },
        (sx as i64 as u64).wrapping_add(y as u64),
        if z > 0xFFFF_FFFF {
            (z >> 32).wrapping_mul(z & 0xFFFF_FFFF)
        } else {
            z.wrapping_sub(1)
        },
    ];
    let o8 = [(bv as u32).wrapping_add(x) as u8, bv ^ 0xA5];
    // short * 3 and short >> 2 in int (no overflow), stored as unsigned short.
    let o16 = [(hv as i32 * 3) as u16, (hv as i32 >> 2) as u16];
    (r, q, o8, o16)
}

fn intmix(backend: Backend) {
    let dev = device();
    for file in variants("intmix") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [(121usize, 64u32), (1000, 128), (37, 32)]
            .iter()
            .enumerate()
        {
            let inp = inputs(n, 90 + s as u64);
            let bufs = (
                dev.alloc_from(&inp.a).unwrap(),
                dev.alloc_from(&inp.b).unwrap(),
                dev.alloc_from(&inp.c).unwrap(),
                dev.alloc_from(&inp.bytes).unwrap(),
                dev.alloc_from(&inp.halves).unwrap(),
            );
            let o32 = dev.alloc_zeroed(n * N32 * 4).unwrap();
            let o64 = dev.alloc_zeroed(n * N64 * 8).unwrap();
            let o8 = dev.alloc_zeroed(n * 2).unwrap();
            let o16 = dev.alloc_zeroed(n * 2 * 2).unwrap();
            let what = format!("{file} intmix n={n} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "intmix",
                &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
                &[
                    arg(&bufs.0),
                    arg(&bufs.1),
                    arg(&bufs.2),
                    arg(&bufs.3),
                    arg(&bufs.4),
                    arg(&o32),
                    arg(&o64),
                    arg(&o8),
                    arg(&o16),
                    KernelArg::from(n as u32),
                ],
                &what,
            );
            let (mut w32, mut w64, mut w8, mut w16) = (vec![], vec![], vec![], vec![]);
            for i in 0..n {
                let (r, q, b8, b16) =
                    reference(inp.a[i], inp.b[i], inp.c[i], inp.bytes[i], inp.halves[i]);
                w32.extend_from_slice(&r);
                w64.extend_from_slice(&q);
                w8.extend_from_slice(&b8);
                w16.extend_from_slice(&b16);
            }
            let mut fails = Failures::default();
            let g32 = dev.read::<u32>(&o32).unwrap();
            // Report per result slot, so a failure names the operation.
            for k in 0..N32 {
                let g: Vec<u32> = g32.iter().skip(k).step_by(N32).copied().collect();
                let w: Vec<u32> = w32.iter().skip(k).step_by(N32).copied().collect();
                fails.add(diff_slice(
                    &g,
                    &w,
                    &format!("{what} o32 slot r[{k}] (thread = index)"),
                ));
            }
            let g64 = dev.read::<u64>(&o64).unwrap();
            for k in 0..N64 {
                let g: Vec<u64> = g64.iter().skip(k).step_by(N64).copied().collect();
                let w: Vec<u64> = w64.iter().skip(k).step_by(N64).copied().collect();
                fails.add(diff_slice(
                    &g,
                    &w,
                    &format!("{what} o64 slot q[{k}] (thread = index)"),
                ));
            }
            fails.add(diff_slice(
                &dev.read::<u8>(&o8).unwrap(),
                &w8,
                &format!("{what} o8"),
            ));
            fails.add(diff_slice(
                &dev.read::<u16>(&o16).unwrap(),
                &w16,
                &format!("{what} o16"),
            ));
            fails.finish(&what);
        }
    }
}

both_backends!(intmix);
