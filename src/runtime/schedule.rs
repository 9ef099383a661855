//! Schedule exploration ([`Schedule::Random`]): a launch runs its CTAs in an order drawn
//! from the seed, and each CTA runs its warps, in every round of its scheduler (at every
//! barrier), in an order drawn from the seed and the CTA's index. The same seed gives the
//! same order, so a schedule that exposes a bug can be replayed.

use super::device::Schedule;

/// SplitMix64: a small, well-mixed generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// Most CTAs a launch shuffles; larger grids run in order (the permutation would need
/// too much memory).
const MAX_SHUFFLED_CTAS: u64 = 1 << 22;

/// The order of a launch's CTAs (`None`: in order).
pub(crate) fn cta_order(s: Schedule, ncta: u64) -> Option<Vec<u64>> {
    let Schedule::Random(seed) = s else {
        return None;
    };
    if ncta > MAX_SHUFFLED_CTAS {
        return None;
    }
    let mut v: Vec<u64> = (0..ncta).collect();
    Rng(seed).shuffle(&mut v);
    Some(v)
}

/// The warp order of one CTA's scheduler rounds.
pub(crate) struct Order {
    rng: Option<Rng>,
    n: usize,
}

impl Order {
    pub(crate) fn new(s: Schedule, ctaid: [u32; 3], n: usize) -> Order {
        let rng = match s {
            Schedule::InOrder => None,
            Schedule::Random(seed) => {
                let c = (ctaid[0] as u64) | (ctaid[1] as u64) << 32 ^ (ctaid[2] as u64) << 48;
                Some(Rng(seed ^ c.wrapping_mul(0x2545_f491_4f6c_dd1d)))
            }
        };
        Order { rng, n }
    }

    /// The warps in the order of the next round.
    pub(crate) fn next_round(&mut self) -> Vec<usize> {
        let mut v = Vec::with_capacity(self.n);
        self.fill_round(&mut v);
        v
    }

    /// [`Order::next_round`] into `v` (no allocation once `v` holds `n` warps).
    pub(crate) fn fill_round(&mut self, v: &mut Vec<usize>) {
        if self.rng.is_none() && v.len() == self.n {
            // In order: the same round as before.
            return;
        }
        v.clear();
        v.extend(0..self.n);
        if let Some(r) = self.rng.as_mut() {
            r.shuffle(v);
        }
    }
}

/// The warp order of a CTA without barriers.
pub(crate) fn warp_order(s: Schedule, ctaid: [u32; 3], n: usize) -> Vec<usize> {
    Order::new(s, ctaid, n).next_round()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_orders_are_permutations_and_replayable() {
        let a = cta_order(Schedule::Random(7), 100).unwrap();
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        assert_eq!(Some(a.clone()), cta_order(Schedule::Random(7), 100));
        assert_ne!(Some(a), cta_order(Schedule::Random(8), 100));
        assert_eq!(cta_order(Schedule::InOrder, 100), None);
        assert_eq!(warp_order(Schedule::InOrder, [0; 3], 3), vec![0, 1, 2]);
    }
}
