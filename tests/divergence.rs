//! Divergent control flow (tests/kernels/divergence.cu): early returns, if/else with
//! stores in both arms, per-lane loop trip counts, nested loops with break/continue, a
//! bounded Collatz walk.
#[macro_use]
mod common;
use common::*;

const SENTINEL: u32 = 0x5EE5_5EE5;

/// The kernel, per thread: returns (out[4i..4i+4], odd_out[i]) given the initial
/// contents of the untouched slots (SENTINEL).
fn reference(i: usize, tid_x: u32, v: u32) -> ([u32; 4], u32) {
    let mut out = [SENTINEL; 4];
    let mut odd = SENTINEL;
    let _ = i;
    if v & 1 != 0 {
        odd = v.wrapping_mul(3).wrapping_add(1);
    } else {
        out[3] = v >> 1;
    }
    let mut acc = v;
    for k in 0..(tid_x & 15) {
        acc = acc.wrapping_mul(1664525).wrapping_add(1013904223) ^ k;
    }
    out[0] = acc;
    let mut w: u32 = 0;
    'outer: for a in 0..(v & 7) {
        for b in 0..8u32 {
            if (v >> b) & 1 == 0 {
                continue;
            }
            w = w.wrapping_add(a * 16 + b);
            if w > 100 {
                break;
            }
        }
        if w > 200 {
            break 'outer;
        }
    }
    out[2] = w;
    let (mut x, mut steps) = (v, 0u32);
    while x != 1 && steps < 300 {
        x = if x & 1 != 0 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x >> 1
        };
        steps += 1;
    }
    if x == 0 {
        out[1] = 0xdeadbeef;
    } else {
        out[1] = steps | if x == 1 { 0x8000_0000 } else { 0 };
    }
    (out, odd)
}

fn diverge(backend: Backend) {
    let dev = device();
    for file in variants("divergence") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [
            (1usize, 32u32),
            (31, 32),
            (33, 32),
            (100, 64),
            (1000, 128),
            (4099, 256),
        ]
        .iter()
        .enumerate()
        {
            let mut rng = Rng::new(70 + s as u64);
            // Small values (short walks, 0 and 1 included), then full-range ones.
            let input: Vec<u32> = (0..n)
                .map(|i| {
                    if i < 64 {
                        i as u32
                    } else if i % 3 == 0 {
                        rng.range(0, 1000)
                    } else {
                        rng.u32()
                    }
                })
                .collect();
            let grid = blocks(n, block);
            let total = (grid * block) as usize;
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; 4 * total]).unwrap();
            let odd_buf = dev.alloc_from(&vec![SENTINEL; total]).unwrap();
            let what = format!("{file} diverge n={n} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "diverge",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[
                    arg(&in_buf),
                    arg(&out_buf),
                    arg(&odd_buf),
                    KernelArg::from(n as u32),
                ],
                &what,
            );
            let mut want_out = vec![SENTINEL; 4 * total];
            let mut want_odd = vec![SENTINEL; total];
            for i in 0..n {
                let (o, d) = reference(i, i as u32 % block, input[i]);
                want_out[4 * i..4 * i + 4].copy_from_slice(&o);
                want_odd[i] = d;
            }
            assert_slice_eq(
                &dev.read::<u32>(&out_buf).unwrap(),
                &want_out,
                &format!("{what} out"),
            );
            assert_slice_eq(
                &dev.read::<u32>(&odd_buf).unwrap(),
                &want_odd,
                &format!("{what} odd_out"),
            );
        }
    }
}

both_backends!(diverge);
