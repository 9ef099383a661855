//! A small coverage-guided mutation loop over a [`Harness`], for fuzzing without
//! libFuzzer (the `ptxjit fuzz` command): libFuzzer-style mutations of a corpus, an input
//! kept when it reaches a new (counter, hit-count bucket) feature of the kernel coverage
//! counters, and a callback for each new finding (deduplicated by kind and location).
//!
//! It is deliberately simple (no comparison tracing, no dictionary): with the kernel's
//! own counters it climbs branch by branch like libFuzzer's default mode does.

use super::{Finding, Harness};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Limits of one [`Fuzzer::run`].
#[derive(Clone, Debug)]
pub struct LoopOptions {
    /// Stop after this many inputs (`None`: no limit).
    pub runs: Option<u64>,
    /// Stop after this long (`None`: no limit).
    pub max_time: Option<Duration>,
    /// Longest input generated.
    pub max_len: usize,
    /// Stop at the first finding.
    pub stop_at_first: bool,
}

impl Default for LoopOptions {
    fn default() -> Self {
        LoopOptions {
            runs: None,
            max_time: None,
            max_len: 4096,
            stop_at_first: false,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub execs: u64,
    pub corpus: usize,
    pub features: usize,
    pub findings: usize,
}

/// The mutation loop's state: corpus, seen features, random state.
pub struct Fuzzer<'h> {
    h: &'h Harness,
    rng: u64,
    corpus: Vec<Vec<u8>>,
    /// Per counter, the hit-count buckets seen.
    seen: Vec<u8>,
    features: usize,
    found: HashSet<String>,
}

/// libFuzzer's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+.
fn bucket(n: u8) -> u8 {
    match n {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 4,
        4..=7 => 8,
        8..=15 => 16,
        16..=31 => 32,
        32..=127 => 64,
        _ => 128,
    }
}

/// The dedup key of a finding: its kind and the first `FILE:LINE` location it names.
fn finding_key(f: &Finding) -> String {
    let loc = f
        .report
        .split_whitespace()
        .find(|w| w.contains(".ptx:") || w.contains(".cu:"))
        .unwrap_or(&f.report);
    format!("{:?} {loc}", f.kind)
}

impl<'h> Fuzzer<'h> {
    /// A fuzzer over `h` with `seeds` as the initial corpus (an empty input when there
    /// are none) and a random `seed`.
    pub fn new(h: &'h Harness, seeds: Vec<Vec<u8>>, seed: u64) -> Fuzzer<'h> {
        let n = h.coverage().map_or(0, |c| c.counters().len());
        let corpus = if seeds.is_empty() {
            vec![Vec::new()]
        } else {
            seeds
        };
        Fuzzer {
            h,
            // Distinct seeds give distinct streams (xorshift needs a nonzero state).
            rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            corpus,
            seen: vec![0; n],
            features: 0,
            found: HashSet::new(),
        }
    }

    /// The inputs kept so far.
    pub fn corpus(&self) -> &[Vec<u8>] {
        &self.corpus
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One to four mutations of `d`, at most `max_len` bytes long.
    fn mutate(&mut self, d: &mut Vec<u8>, max_len: usize) {
        for _ in 0..1 + self.below(4) {
            let i = self.below(d.len());
            match self.below(9) {
                0 if !d.is_empty() => d[i] ^= 1 << self.below(8),
                1 if !d.is_empty() => d[i] = self.next() as u8,
                2 if !d.is_empty() => {
                    const SPECIAL: [u8; 8] = [0, 1, 2, 0x7f, 0x80, 0xff, 0x10, 0x20];
                    d[i] = SPECIAL[self.below(SPECIAL.len())];
                }
                3 if !d.is_empty() => d[i] = d[i].wrapping_add(self.below(9) as u8).wrapping_sub(4),
                4 if d.len() > 1 => {
                    let n = 1 + self.below(d.len().min(8));
                    let at = self.below(d.len() - n + 1);
                    d.drain(at..at + n);
                }
                5 if !d.is_empty() => {
                    let n = 1 + self.below(d.len().min(16));
                    let from = self.below(d.len() - n + 1);
                    let chunk = d[from..from + n].to_vec();
                    let at = self.below(d.len() + 1);
                    d.splice(at..at, chunk);
                }
                6 if self.corpus.len() > 1 => {
                    let k = self.below(self.corpus.len());
                    let other = self.corpus[k].clone();
                    let cut = self.below(d.len() + 1);
                    let from = self.below(other.len() + 1);
                    d.truncate(cut);
                    d.extend_from_slice(&other[from..]);
                }
                7 => {
                    let at = self.below(d.len() + 1);
                    let b = self.next() as u8;
                    d.insert(at, b);
                }
                _ => {
                    for _ in 0..1 + self.below(8) {
                        let b = self.next() as u8;
                        d.push(b);
                    }
                }
            }
        }
        d.truncate(max_len);
    }

    /// Runs `d`; returns the finding (if any) and whether it reached a new feature.
    fn execute(&mut self, d: &[u8]) -> (Option<Finding>, bool) {
        let cov = self.h.coverage();
        if let Some(c) = cov {
            c.clear();
        }
        let r = self.h.run(d);
        let mut new = false;
        if let Some(c) = cov {
            for (i, ctr) in c.counters().iter().enumerate() {
                let v = ctr.load(std::sync::atomic::Ordering::Relaxed);
                if v != 0 {
                    let b = bucket(v);
                    if self.seen[i] & b == 0 {
                        self.seen[i] |= b;
                        self.features += 1;
                        new = true;
                    }
                }
            }
        }
        (r.err(), new)
    }

    /// Fuzzes within `opts`' limits; `on_finding` sees each new finding with its input.
    pub fn run(
        &mut self,
        opts: &LoopOptions,
        mut on_finding: impl FnMut(&[u8], &Finding),
    ) -> LoopStats {
        let start = Instant::now();
        let mut stats = LoopStats::default();
        let mut report = |this: &mut Self, d: &[u8], f: Option<Finding>, stats: &mut LoopStats| {
            if let Some(f) = f {
                if this.found.insert(finding_key(&f)) {
                    stats.findings += 1;
                    on_finding(d, &f);
                }
            }
        };
        // The seeds first.
        for k in 0..self.corpus.len() {
            let d = self.corpus[k].clone();
            let (f, _) = self.execute(&d);
            stats.execs += 1;
            report(self, &d, f, &mut stats);
        }
        loop {
            if opts.runs.is_some_and(|r| stats.execs >= r)
                || opts.max_time.is_some_and(|t| start.elapsed() >= t)
                || (opts.stop_at_first && stats.findings > 0)
            {
                break;
            }
            let k = self.below(self.corpus.len());
            let mut d = self.corpus[k].clone();
            self.mutate(&mut d, opts.max_len);
            let (f, new) = self.execute(&d);
            stats.execs += 1;
            if new && f.is_none() {
                self.corpus.push(d.clone());
            }
            report(self, &d, f, &mut stats);
        }
        stats.corpus = self.corpus.len();
        stats.features = self.features;
        stats
    }
}
