//! How a launch's workers share its CTAs: the units a worker claims from the launch's
//! counter at once (guided self-scheduling) and the batches of single CTAs one call of
//! the JIT's code runs.

use super::Shape;
use crate::exec::ctx::WARP_SIZE;

/// Scheduling units a worker takes from the launch's counter at once: a few in large
/// grids (one shared counter update per CTA costs as much as a small CTA when the
/// workers contend for it), at most 8 (a batch of that many CTAs still sees the time
/// limit's stop flag soon).
pub(super) fn chunk_units(units: u64, nsmid: u32) -> u64 {
    (units / (64 * nsmid.max(1) as u64)).clamp(1, 8)
}

/// Units a worker claims from the launch's counter when `started` of `units` have been
/// claimed: guided self-scheduling, a `1 / (GUIDED_SHARE * workers)` share of what is
/// left and at least `chunk`, so each worker runs long ranges of consecutive CTAs (one
/// stream through each array for the hardware prefetchers, instead of interleaving
/// small chunks with the other workers) while the shrinking claims near the end keep
/// the workers' finishing times close. The time limit and an abort are still seen
/// batch by batch (`worker`).
pub(super) fn claim_units(units: u64, started: u64, chunk: u64, nsmid: u32) -> u64 {
    let left = units.saturating_sub(started);
    (left / (GUIDED_SHARE * nsmid.max(1) as u64)).max(chunk)
}

/// See [`claim_units`].
const GUIDED_SHARE: u64 = 4;

/// Most warps one call of the JIT's code runs in a batch: saxpy (8-warp CTAs) ran 10%
/// slower in CPU time with batches of 64 warps than one CTA at a time, and as fast
/// with 32 (2026-11-28; each chained warp touches its own `WarpCtx` and `WarpEnv`).
const BATCH_WARPS: u64 = 32;

/// CTAs a worker runs as one batch: the units of a chunk, up to `BATCH_WARPS` warps,
/// when they are single CTAs (no clusters, not cooperative) of a kernel run without
/// coroutines, in order and not sanitized (`fixed`: coroutines, a sanitizer or a drawn
/// schedule), else 1. A batch's warps are exactly the warps its CTAs would run one after
/// the other (CTA by CTA, warp 0, 1, ...); each CTA of a batch has its own `%ctaid`, shared
/// window and local area, zeroed as a lone CTA's; a CTA's partial last warp is followed
/// by the next CTA's first warp.
pub(super) fn batch_size(fixed: bool, shape: &Shape, nsmid: u32) -> u64 {
    match fixed || shape.cooperative || shape.cluster != [1, 1, 1] {
        true => 1,
        false => chunk_units(shape.ncta, nsmid)
            .min(BATCH_WARPS / shape.nthreads.div_ceil(WARP_SIZE as u64))
            .max(1),
    }
}

/// `ids` := the `k` CTAs of linear numbers `first..first + k` (x fastest, as single-CTA
/// units are numbered); the first is divided out, the others counted on from it.
pub(super) fn batch_ctaids(grid: [u32; 3], first: u64, k: u64, ids: &mut Vec<[u32; 3]>) {
    let (gx, gy) = (grid[0] as u64, grid[1] as u64);
    let mut c = [
        (first % gx) as u32,
        ((first / gx) % gy) as u32,
        (first / (gx * gy)) as u32,
    ];
    ids.clear();
    for _ in 0..k {
        ids.push(c);
        next_ctaid(&mut c, grid);
    }
}

/// `c` := the CTA after `c` in linear order (x fastest, carried into y and z).
pub(super) fn next_ctaid(c: &mut [u32; 3], grid: [u32; 3]) {
    c[0] += 1;
    if c[0] == grid[0] {
        c[0] = 0;
        c[1] += 1;
        if c[1] == grid[1] {
            c[1] = 0;
            c[2] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claims taken one after another (as workers would, in any interleaving) cover
    /// every unit once; they start at a `1 / (GUIDED_SHARE * workers)` share and shrink
    /// to the chunk.
    #[test]
    fn guided_claims_cover_the_grid_and_shrink() {
        for (units, workers) in [
            (1u64, 2u32),
            (7, 2),
            (16, 2),
            (1000, 1),
            (65536, 2),
            (65536, 16),
        ] {
            let chunk = chunk_units(units, workers);
            let (mut started, mut claims) = (0u64, Vec::new());
            while started < units {
                let take = claim_units(units, started, chunk, workers);
                assert!(take >= chunk && take >= 1, "{units} {workers}: {take}");
                claims.push(take.min(units - started));
                started += take;
            }
            assert_eq!(claims.iter().sum::<u64>(), units, "{units} {workers}");
            assert!(claims.windows(2).all(|w| w[1] <= w[0]), "{claims:?}");
            assert_eq!(
                claims[0],
                (units / (GUIDED_SHARE * workers as u64)).max(chunk)
            );
            // The last full claims are the chunk (the workers finish close together).
            assert!(claims
                .iter()
                .rev()
                .skip(1)
                .take(3)
                .all(|&c| c <= chunk.max(1) * 2));
        }
        // saxpy's 2^24 floats in 256-thread CTAs on 2 workers: 8,192 CTAs (8 MiB of each
        // array) in the first claim, 65,536 / 8.
        assert_eq!(claim_units(65536, 0, chunk_units(65536, 2), 2), 8192);
    }

    #[test]
    fn batch_ctaids_count_x_fastest() {
        let mut ids = Vec::new();
        batch_ctaids([3, 2, 2], 4, 5, &mut ids);
        // Linear 4 = (1, 1, 0); then (2, 1, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1).
        assert_eq!(
            ids,
            vec![[1, 1, 0], [2, 1, 0], [0, 0, 1], [1, 0, 1], [2, 0, 1]]
        );
    }
}
