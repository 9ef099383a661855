//! 2-D and 3-D grids (tests/kernels/grid2d.cu): naive and shared-memory tiled
//! transposes, a pitched 2-D add, and every special register of 3-D launches.
#[macro_use]
mod common;
use common::*;

const SHAPES: [(u32, u32); 6] = [(1, 1), (17, 5), (5, 17), (33, 64), (100, 37), (64, 64)];
const SENTINEL: f32 = -3.5e-12;

fn matrix(w: u32, h: u32, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    rng.vec_f32((w * h) as usize)
}

/// out (h wide, w tall) = transpose of in (w wide, h tall), both row-major.
fn transposed(input: &[f32], w: u32, h: u32) -> Vec<f32> {
    let mut out = vec![0.0; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            out[(x * h + y) as usize] = input[(y * w + x) as usize];
        }
    }
    out
}

fn transpose(backend: Backend) {
    let dev = device();
    for file in variants("grid2d") {
        let m = module(&dev, &file, backend);
        for &(w, h) in &SHAPES {
            for &(bx, by) in &[(16u32, 8u32), (8, 8), (32, 4), (1, 32)] {
                let input = matrix(w, h, (w * 1000 + h) as u64);
                let in_buf = dev.alloc_from(&input).unwrap();
                let out_buf = dev.alloc_from(&vec![SENTINEL; (w * h) as usize]).unwrap();
                let grid = [w.div_ceil(bx), h.div_ceil(by), 1];
                let what = format!("{file} transpose {w}x{h} block {bx}x{by} {backend:?}");
                launch(
                    &dev,
                    &m,
                    "transpose",
                    &cfg(grid, [bx, by, 1], backend),
                    &[
                        arg(&in_buf),
                        arg(&out_buf),
                        KernelArg::from(w),
                        KernelArg::from(h),
                    ],
                    &what,
                );
                assert_f32_bits(
                    &dev.read::<f32>(&out_buf).unwrap(),
                    &transposed(&input, w, h),
                    &what,
                );
            }
        }
    }
}

fn transpose_tiled(backend: Backend) {
    let dev = device();
    for file in variants("grid2d") {
        let m = module(&dev, &file, backend);
        for &(w, h) in SHAPES.iter().chain(&[(300, 77)]) {
            let input = matrix(w, h, (w * 7 + h) as u64);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; (w * h) as usize]).unwrap();
            let grid = [w.div_ceil(16), h.div_ceil(16), 1];
            let what = format!("{file} transpose_tiled {w}x{h} {backend:?}");
            launch(
                &dev,
                &m,
                "transpose_tiled",
                &cfg(grid, [16, 16, 1], backend),
                &[
                    arg(&in_buf),
                    arg(&out_buf),
                    KernelArg::from(w),
                    KernelArg::from(h),
                ],
                &what,
            );
            assert_f32_bits(
                &dev.read::<f32>(&out_buf).unwrap(),
                &transposed(&input, w, h),
                &what,
            );
        }
    }
}

fn add2d(backend: Backend) {
    let dev = device();
    for file in variants("grid2d") {
        let m = module(&dev, &file, backend);
        for &(w, h, pitch) in &[
            (1u32, 1u32, 1u32),
            (17, 5, 20),
            (33, 64, 40),
            (100, 37, 128),
        ] {
            let mut rng = Rng::new((w + h + pitch) as u64);
            let len = (pitch * h) as usize;
            let a: Vec<i32> = (0..len).map(|_| rng.u32() as i32).collect();
            let b: Vec<i32> = (0..len).map(|_| rng.u32() as i32).collect();
            let c0: Vec<i32> = (0..len).map(|k| -(k as i32) - 1).collect(); // padding marker
            let (a_buf, b_buf, c_buf) = (
                dev.alloc_from(&a).unwrap(),
                dev.alloc_from(&b).unwrap(),
                dev.alloc_from(&c0).unwrap(),
            );
            let grid = [w.div_ceil(16), h.div_ceil(16), 1];
            let what = format!("{file} add2d {w}x{h} pitch {pitch} {backend:?}");
            launch(
                &dev,
                &m,
                "add2d",
                &cfg(grid, [16, 16, 1], backend),
                &[
                    arg(&a_buf),
                    arg(&b_buf),
                    arg(&c_buf),
                    KernelArg::from(w),
                    KernelArg::from(h),
                    KernelArg::from(pitch),
                ],
                &what,
            );
            let mut want = c0.clone();
            for y in 0..h {
                for x in 0..w {
                    let k = (y * pitch + x) as usize;
                    want[k] = a[k].wrapping_add(b[k]);
                }
            }
            assert_slice_eq(&dev.read::<i32>(&c_buf).unwrap(), &want, &what);
        }
    }
}

fn sregs(backend: Backend) {
    let dev = device();
    for file in variants("grid2d") {
        let m = module(&dev, &file, backend);
        for &(grid, block) in &[
            ([3u32, 2u32, 2u32], [5u32, 3u32, 2u32]),
            ([1, 1, 1], [33, 2, 1]),
            ([2, 1, 1], [64, 1, 1]),
            ([1, 3, 1], [8, 8, 4]),
            ([2, 2, 3], [1, 1, 1]),
            ([1, 1, 1], [1024, 1, 1]),
        ] {
            let tpb = block[0] * block[1] * block[2];
            let nblocks = grid[0] * grid[1] * grid[2];
            let total = (tpb * nblocks) as usize;
            let out_buf = dev.alloc_zeroed(total * 16 * 4).unwrap();
            let what = format!("{file} sregs grid {grid:?} block {block:?} {backend:?}");
            launch(
                &dev,
                &m,
                "sregs",
                &cfg(grid, block, backend),
                &[arg(&out_buf)],
                &what,
            );
            let mut want = vec![0u32; total * 16];
            for bz in 0..grid[2] {
                for by in 0..grid[1] {
                    for bx in 0..grid[0] {
                        let bid = (bz * grid[1] + by) * grid[0] + bx;
                        for tz in 0..block[2] {
                            for ty in 0..block[1] {
                                for tx in 0..block[0] {
                                    // Threads are numbered x-fastest within the block;
                                    // warps are consecutive runs of 32 of them.
                                    let tid = (tz * block[1] + ty) * block[0] + tx;
                                    let g = (bid * tpb + tid) as usize;
                                    let lane = tid % 32;
                                    want[16 * g..16 * g + 16].copy_from_slice(&[
                                        tx, ty, tz, lane, block[0], block[1], block[2], tid, bx,
                                        by, bz, bid, grid[0], grid[1], grid[2], g as u32,
                                    ]);
                                }
                            }
                        }
                    }
                }
            }
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

both_backends!(transpose, transpose_tiled, add2d, sregs);
