//! The regions of device memory a kernel may access (allocations, module variables,
//! shared windows, local frames, parameter buffers), sorted for lookup: every checked
//! access of both backends is looked up here. The runtime's `DeviceMemory` hands out the
//! regions; a launch freezes them into a [`RegionTable`].

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

/// Sorted, non-overlapping regions, looked up by address.
#[derive(Clone, Debug, Default)]
pub struct RegionTable {
    regions: Vec<Region>,
    /// A range whose regions never go into the per-instruction region caches (the
    /// device heap under memcheck: each access is checked against its blocks).
    uncached: (u64, u64),
}

impl RegionTable {
    pub fn new(mut regions: Vec<Region>) -> RegionTable {
        regions.retain(|r| r.hi > r.lo);
        regions.sort_by_key(|r| r.lo);
        RegionTable {
            regions,
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
        let i = self.regions.partition_point(|r| r.lo <= addr);
        let r = *self.regions.get(i.checked_sub(1)?)?;
        (end <= r.hi).then_some(r)
    }
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }
}
