//! Block-sum reductions (tests/kernels/reduce.cu): __shared__ memory, __syncthreads(),
//! tree order with strides 128, 64, ..., 1; one partial sum per block.
#[macro_use]
mod common;
use common::*;

const BLOCK: u32 = 256;
const SIZES: [usize; 7] = [1, 255, 256, 257, 1000, 4099, 65536];

/// The kernel's tree, replayed: s[t] = in[b*256 + t] (0 past n); for stride 128, 64,
/// ..., 1: s[t] = s[t] + s[t + stride] for t < stride. Returns s[0] of each block.
fn tree_sums<T: Copy>(input: &[T], zero: T, block: usize, add: impl Fn(T, T) -> T) -> Vec<T> {
    input
        .chunks(block)
        .map(|chunk| {
            let mut s: Vec<T> = (0..block)
                .map(|t| chunk.get(t).copied().unwrap_or(zero))
                .collect();
            let mut stride = block / 2;
            while stride > 0 {
                for t in 0..stride {
                    s[t] = add(s[t], s[t + stride]);
                }
                stride /= 2;
            }
            s[0]
        })
        .collect()
}

fn block_sum_u32(backend: Backend) {
    let dev = device();
    for file in variants("reduce") {
        let m = module(&dev, &file, backend);
        for (s, &n) in SIZES.iter().enumerate() {
            let mut rng = Rng::new(40 + s as u64);
            let input = rng.vec_u32(n); // sums wrap around: u32 addition is exact mod 2^32
            let grid = blocks(n, BLOCK);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_zeroed(grid as usize * 4).unwrap();
            let what = format!("{file} block_sum_u32 n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "block_sum_u32",
                &cfg([grid, 1, 1], [BLOCK, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            let want: Vec<u32> = input
                .chunks(BLOCK as usize)
                .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
                .collect();
            // The tree gives the same wrapped sum as a sequential fold.
            assert_eq!(
                want,
                tree_sums(&input, 0u32, BLOCK as usize, u32::wrapping_add)
            );
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

fn block_sum_f32(backend: Backend) {
    let dev = device();
    for file in variants("reduce") {
        let m = module(&dev, &file, backend);
        for (s, &n) in SIZES.iter().enumerate() {
            let mut rng = Rng::new(50 + s as u64);
            // Mixed magnitudes, so the result depends on the summation order.
            let input = rng.vec_f32(n);
            let grid = blocks(n, BLOCK);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_zeroed(grid as usize * 4).unwrap();
            let what = format!("{file} block_sum_f32 n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "block_sum_f32",
                &cfg([grid, 1, 1], [BLOCK, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            let want = tree_sums(&input, 0.0f32, BLOCK as usize, |a, b| a + b);
            assert_f32_bits(&dev.read::<f32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

fn block_sum_dyn_u64(backend: Backend) {
    let dev = device();
    for file in variants("reduce") {
        let m = module(&dev, &file, backend);
        for (s, &(n, block)) in [
            (1usize, 32u32),
            (100, 32),
            (1000, 64),
            (1000, 128),
            (5000, 512),
            (3000, 1024),
        ]
        .iter()
        .enumerate()
        {
            let mut rng = Rng::new(60 + s as u64);
            let input = rng.vec_u32(n);
            let grid = blocks(n, block);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_zeroed(grid as usize * 8).unwrap();
            let what = format!("{file} block_sum_dyn_u64 n={n} block={block} {backend:?}");
            // extern __shared__ unsigned long long dyn[]: one u64 per thread.
            let c = cfg([grid, 1, 1], [block, 1, 1], backend).shared_bytes((block * 8) as _);
            launch(
                &dev,
                &m,
                "block_sum_dyn_u64",
                &c,
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            // At most 1024 u32 per block: the u64 sums are exact.
            let want: Vec<u64> = input
                .chunks(block as usize)
                .map(|c| c.iter().map(|&v| v as u64).sum())
                .collect();
            assert_slice_eq(&dev.read::<u64>(&out_buf).unwrap(), &want, &what);
        }
    }
}

both_backends!(block_sum_u32, block_sum_f32, block_sum_dyn_u64);
