//! The regions of device memory a kernel may access (allocations, module variables,
//! shared windows, local frames, parameter buffers), sorted for lookup: every checked
//! access of both backends is looked up here. The runtime's `DeviceMemory` hands out the
//! regions; a launch freezes them into a [`RegionTable`].

use std::sync::Arc;

/// What a region is, for messages and write permission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    Alloc,
    Global,
    Const,
    Shared,
    Local,
    Param,
}

/// A range `[lo, hi)` of host addresses that kernels may access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub lo: u64,
    pub hi: u64,
    pub writable: bool,
    pub kind: RegionKind,
}

/// Sorted, non-overlapping regions, looked up by address: those that outlive launches
/// (allocations, module variables, registered host memory), shared by every launch
/// until one of them changes, and a launch's own (its windows), so that a launch's
/// table costs its windows, not the device's live allocations.
#[derive(Clone, Debug)]
pub struct RegionTable {
    /// Sorted, non-empty regions shared between launches.
    fixed: Arc<[Region]>,
    /// The rest, sorted and non-empty (a launch's windows; none of them overlaps `fixed`).
    extra: Vec<Region>,
    /// A range whose regions never go into the per-instruction region caches (the
    /// device heap under memcheck: each access is checked against its blocks).
    uncached: (u64, u64),
}

impl Default for RegionTable {
    fn default() -> RegionTable {
        RegionTable::new(Vec::new())
    }
}

/// `regions` without empty ones, sorted by start.
pub fn sorted_regions(mut regions: Vec<Region>) -> Vec<Region> {
    regions.retain(|r| r.hi > r.lo);
    regions.sort_by_key(|r| r.lo);
    regions
}

/// The region of sorted `regions` containing all of `[addr, end)`, if any.
fn find_in(regions: &[Region], addr: u64, end: u64) -> Option<Region> {
    let i = regions.partition_point(|r| r.lo <= addr);
    let r = *regions.get(i.checked_sub(1)?)?;
    (end <= r.hi).then_some(r)
}

impl RegionTable {
    pub fn new(regions: Vec<Region>) -> RegionTable {
        RegionTable::layered(Arc::from(sorted_regions(regions)), Vec::new())
    }
    /// A table of `fixed` (sorted, non-empty: [`sorted_regions`]) and `extra` regions.
    pub fn layered(fixed: Arc<[Region]>, extra: Vec<Region>) -> RegionTable {
        debug_assert!(fixed
            .windows(2)
            .all(|w| w[0].lo < w[1].lo && w[0].hi > w[0].lo));
        RegionTable {
            fixed,
            extra: sorted_regions(extra),
            uncached: (0, 0),
        }
    }
    /// Keeps regions overlapping `[lo, hi)` out of the region caches.
    pub fn with_uncached(mut self, lo: u64, hi: u64) -> RegionTable {
        self.uncached = (lo, hi);
        self
    }
    /// Whether region `r` may go into a region cache.
    pub fn cacheable(&self, r: &Region) -> bool {
        !(r.lo < self.uncached.1 && self.uncached.0 < r.hi)
    }
    /// The region containing all of `[addr, addr+len)`, if any.
    pub fn find(&self, addr: u64, len: u64) -> Option<Region> {
        let end = addr.checked_add(len)?;
        find_in(&self.extra, addr, end).or_else(|| find_in(&self.fixed, addr, end))
    }
}
