//! .local arrays with data-dependent indices and __constant__ memory with initialisers
//! (tests/kernels/localconst.cu).
#[macro_use]
mod common;
use common::*;

const CTAB: [i32; 16] = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3];
const CVEC: [[f32; 4]; 2] = [[0.5, -1.25, 3.0, 0.1], [-0.0, 1e-40, 65504.0, -2.5]];

fn reference(k: u32) -> ([i32; 2], [f32; 4]) {
    let mut a = [0i32; 8];
    for j in 0..8u32 {
        // ctab[(j + k) & 15] * (j + 1): (j + k) is unsigned arithmetic (k is unsigned).
        a[j as usize] = CTAB[(j.wrapping_add(k) & 15) as usize] * (j as i32 + 1);
    }
    a[(k & 7) as usize] += (k >> 8) as i32;
    let mut s: i32 = 0;
    for j in 0..8u32 {
        s = s.wrapping_add(a[(k.wrapping_add(3 * j) & 7) as usize] ^ j as i32);
    }
    a[(k.wrapping_mul(0x9E37_79B1) >> 29) as usize] = s;
    let ints = [s, a[(k >> 29) as usize]];
    let c = CVEC[(k & 1) as usize];
    let f = [
        c[0] * (k & 255) as f32,
        c[1] + c[2],
        c[2] - c[0],
        c[3] * c[1],
    ];
    (ints, f)
}

fn local_const(backend: Backend) {
    // The __constant__ initialiser 1e-40f is the f32 subnormal 0x000116c2 in both PTX files.
    assert_eq!(1e-40f32.to_bits(), 0x0001_16c2);
    let dev = device();
    for file in variants("localconst") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [(1usize, 32u32), (100, 64), (1000, 256)].iter().enumerate() {
            let mut rng = Rng::new(500 + s as u64);
            let idx: Vec<u32> = (0..n)
                .map(|i| if i < 40 { i as u32 } else { rng.u32() })
                .collect();
            let idx_buf = dev.alloc_from(&idx).unwrap();
            let out = dev.alloc_zeroed(n * 8).unwrap();
            let fout = dev.alloc_zeroed(n * 16).unwrap();
            let what = format!("{file} local_const n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "local_const",
                &cfg([blocks(n, block), 1, 1], [block, 1, 1], backend),
                &[
                    arg(&idx_buf),
                    arg(&out),
                    arg(&fout),
                    KernelArg::from(n as u32),
                ],
                &what,
            );
            let (mut wi, mut wf) = (vec![], vec![]);
            for &k in &idx {
                let (i2, f4) = reference(k);
                wi.extend_from_slice(&i2);
                wf.extend_from_slice(&f4);
            }
            assert_slice_eq(&dev.read::<i32>(&out).unwrap(), &wi, &what);
            assert_f32_bits(
                &dev.read::<f32>(&fout).unwrap(),
                &wf,
                &format!("{what} (float4 from __constant__)"),
            );
        }
    }
}

both_backends!(local_const);
