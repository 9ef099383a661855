//! Device memory: one reserved host address range, committed lazily, holding everything
//! a kernel can address (allocations, module variables, shared windows, local frames,
//! parameter buffers). The table of regions that accesses are checked against is
//! [`crate::exec::region`].
//!
//! A device pointer is a host address inside the range, so generated code needs no
//! translation. The range is mapped readable and writable with `MAP_NORESERVE`; pages are
//! committed on first touch and given back with `madvise(MADV_DONTNEED)` when freed.
//! The one exception: pages of an allocation exported for CUDA IPC (`cuIpcGetMemHandle`
//! in the libcuda crate) are remapped `MAP_SHARED` from a process-wide memfd at the same
//! addresses, and a block of the range is mapped over another process's exported pages.

use crate::exec::freelist::FreeList;
use crate::exec::region::{sorted_regions, Region, RegionKind, RegionTable};
use crate::exec::sanitize::shadow::InitMap;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Freed allocations remembered for use-after-free reports (newest last).
const FREED_REMEMBERED: usize = 4096;
/// With quarantine on, bytes of freed allocations kept from reuse.
const QUARANTINE_BYTES: u64 = 1 << 30;

/// Allocation granularity and minimum alignment (as `cuMemAlloc`'s 256 bytes).
pub const ALLOC_ALIGN: u64 = 256;
/// A gap left unallocated after every allocation, so that an access just past the end
/// of one allocation is never inside the next one.
const GUARD: u64 = 256;
/// Allocations of at least this many bytes start on a 2 MiB boundary and their whole
/// 2 MiB blocks are advised for transparent huge pages (`MADV_HUGEPAGE`), as a GPU
/// driver backs large allocations with 2 MiB pages: streaming kernels touch a new 4 KiB
/// page every 1,024 floats, and their TLB misses cost saxpy about a third of its time.
pub const HUGE_PAGE: u64 = 1 << 21;
/// Freed ranges with at most this many bytes of whole pages are zeroed by writing (see
/// `DeviceMemory::zero_range`).
const SMALL_ZERO_BYTES: usize = 64 << 10;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("cannot reserve {0} bytes of address space for device memory: {1}")]
    Reserve(u64, std::io::Error),
    #[error("out of device memory: cannot allocate {0} bytes")]
    OutOfMemory(u64),
    #[error("{0:#x} is not the start of a live device allocation")]
    BadFree(u64),
    #[error("device range [{addr:#x}, +{len}) is not inside one live allocation")]
    BadRange { addr: u64, len: u64 },
    #[error("host range [{addr:#x}, +{len}) overlaps device memory or a registered host range")]
    AlreadyRegistered { addr: u64, len: u64 },
    #[error("{0:#x} is not the start of a registered host range")]
    NotRegistered(u64),
}

struct Heap {
    /// Live blocks: start -> (size requested, kind).
    live: BTreeMap<u64, (u64, RegionKind)>,
    /// Free blocks (starts and sizes multiples of ALLOC_ALIGN).
    free: FreeList,
    /// Recently freed allocations: (start, requested size, block size).
    freed: VecDeque<(u64, u64, u64)>,
    /// Bytes of `freed` blocks not yet returned to `free` (quarantine).
    held: u64,
    /// Host memory registered for kernels (`cuMemHostRegister`): start -> length. It
    /// lies outside the reserved range; kernels reach it at its host address.
    registered: BTreeMap<u64, u64>,
    /// The launch windows among `live` (shared, local, parameter buffers), which a
    /// launch's region table lists itself: start -> (size, kind).
    windows: BTreeMap<u64, (u64, RegionKind)>,
    /// The regions of everything else live (allocations, module variables, registered
    /// host memory), sorted ([`DeviceMemory::region_table`], granule-rounded and exact),
    /// built when a launch asks and dropped when they change: launches share them.
    fixed: [Option<Arc<[Region]>>; 2],
}

/// Whether allocations of `kind` are a launch's windows (see `Heap::windows`).
fn is_window(kind: RegionKind) -> bool {
    matches!(
        kind,
        RegionKind::Shared | RegionKind::Local | RegionKind::Param
    )
}

/// The reserved range and a first-fit allocator over it.
pub struct DeviceMemory {
    map: memmap2::MmapMut,
    base: u64,
    size: u64,
    heap: Mutex<Heap>,
    /// initcheck's shadow of the allocations made uninitialised
    /// ([`DeviceMemory::alloc_uninit`]).
    pub init: Arc<Mutex<InitMap>>,
    /// Keep freed blocks from reuse (up to 1 GiB), so that use-after-free is caught.
    quarantine: bool,
}

impl DeviceMemory {
    /// Reserves `size` bytes of address space (nothing is committed until touched).
    pub fn new(size: u64) -> Result<DeviceMemory, MemoryError> {
        let size = size.next_multiple_of(1 << 21);
        let map = memmap2::MmapOptions::new()
            .len(size as usize)
            .no_reserve_swap()
            .map_anon()
            .map_err(|e| MemoryError::Reserve(size, e))?;
        let base = map.as_ptr() as u64;
        // Keep the first page unused so that no device pointer is the range's base.
        let first = ALLOC_ALIGN.max(4096);
        let free = FreeList::new(base + first, size - first);
        Ok(DeviceMemory {
            map,
            base,
            size,
            heap: Mutex::new(Heap {
                live: BTreeMap::new(),
                free,
                freed: VecDeque::new(),
                held: 0,
                registered: BTreeMap::new(),
                windows: BTreeMap::new(),
                fixed: [None, None],
            }),
            init: Arc::default(),
            quarantine: false,
        })
    }

    /// Keeps freed blocks from reuse (memcheck's quarantine).
    pub fn set_quarantine(&mut self, on: bool) {
        self.quarantine = on;
    }

    /// Like [`DeviceMemory::alloc`], but initcheck treats the bytes as never written
    /// (as `cuMemAlloc`, which leaves memory uninitialised on a GPU).
    pub fn alloc_uninit(&self, len: u64, align: u64) -> Result<u64, MemoryError> {
        let a = self.alloc(len, align, RegionKind::Alloc)?;
        self.init_map().add_uninit(a, len);
        Ok(a)
    }

    fn init_map(&self) -> std::sync::MutexGuard<'_, InitMap> {
        self.init.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Freed allocations not reused since: (start, requested size).
    pub fn freed(&self) -> Vec<(u64, u64)> {
        let heap = self.heap();
        heap.freed
            .iter()
            .filter(|&&(a, _, _)| {
                heap.live
                    .range(..=a)
                    .next_back()
                    .is_none_or(|(&lo, &(l, _))| a >= lo + l.max(1))
            })
            .map(|&(a, l, _)| (a, l))
            .collect()
    }

    /// Live allocations of `kind`: (start, requested size).
    pub fn live(&self, kind: RegionKind) -> Vec<(u64, u64)> {
        self.heap()
            .live
            .iter()
            .filter(|(_, &(_, k))| k == kind)
            .map(|(&a, &(l, _))| (a, l))
            .collect()
    }

    pub fn base(&self) -> u64 {
        self.base
    }
    pub fn size(&self) -> u64 {
        self.size
    }

    fn heap(&self) -> std::sync::MutexGuard<'_, Heap> {
        self.heap.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `len` bytes (zero-filled), aligned to `align` (at least 256).
    pub fn alloc(&self, len: u64, align: u64, kind: RegionKind) -> Result<u64, MemoryError> {
        let huge = len >= HUGE_PAGE;
        let align = match huge {
            true => align.max(HUGE_PAGE),
            false => align.max(ALLOC_ALIGN),
        }
        .next_power_of_two();
        let need = len.max(1).next_multiple_of(ALLOC_ALIGN) + GUARD;
        let mut heap = self.heap();
        let Some(a) = heap.free.take(need, align) else {
            return Err(MemoryError::OutOfMemory(len));
        };
        heap.live.insert(a, (len, kind));
        if is_window(kind) {
            heap.windows.insert(a, (len, kind));
        } else {
            heap.fixed = [None, None];
        }
        if huge {
            self.advise_huge(a, len, libc::MADV_HUGEPAGE);
        }
        Ok(a)
    }

    /// Gives `advice` for the whole 2 MiB blocks of `[addr, addr + len)` (an allocation
    /// starting on a 2 MiB boundary); a failure only loses the advice.
    fn advise_huge(&self, addr: u64, len: u64, advice: libc::c_int) {
        let whole = len / HUGE_PAGE * HUGE_PAGE;
        if whole > 0 && addr.is_multiple_of(HUGE_PAGE) {
            // SAFETY: advice on a range of our own mapping; it changes no contents.
            unsafe { libc::madvise(addr as *mut libc::c_void, whole as usize, advice) };
        }
    }

    /// Frees an allocation; its pages go back to the OS (and read as zero when reused).
    pub fn free(&self, addr: u64) -> Result<(), MemoryError> {
        let mut heap = self.heap();
        let (len, kind) = heap.live.remove(&addr).ok_or(MemoryError::BadFree(addr))?;
        if is_window(kind) {
            heap.windows.remove(&addr);
        } else {
            heap.fixed = [None, None];
        }
        self.init_map().remove(addr);
        let size = len.max(1).next_multiple_of(ALLOC_ALIGN) + GUARD;
        self.zero_range(addr, size);
        if len >= HUGE_PAGE {
            // Small allocations that reuse the range keep 4 KiB pages.
            self.advise_huge(addr, len, libc::MADV_NOHUGEPAGE);
        }
        heap.freed.push_back((addr, len, size));
        if self.quarantine {
            heap.held += size;
        } else {
            heap.free.give(addr, size);
        }
        while heap.freed.len() > FREED_REMEMBERED || heap.held > QUARANTINE_BYTES {
            let Some((a, _, sz)) = heap.freed.pop_front() else {
                break;
            };
            if self.quarantine {
                heap.held -= sz;
                heap.free.give(a, sz);
            }
        }
        Ok(())
    }

    /// Zeroes a freed range: pages given back with `madvise(MADV_DONTNEED)` where the
    /// range spans more than [`SMALL_ZERO_BYTES`] of whole pages, else written with zeros.
    /// (`madvise` on a process whose other threads are running, such as the worker
    /// pool's, interrupts their CPUs to flush their TLBs, and the next use of the range
    /// faults its pages in again: both cost more than writing a few pages.)
    fn zero_range(&self, addr: u64, len: u64) {
        let off = (addr - self.base) as usize;
        let page = 4096usize;
        let lo = off.next_multiple_of(page);
        let hi = (off + len as usize) / page * page;
        // SAFETY: the range is inside the mapping, and no live allocation overlaps it.
        unsafe {
            if hi > lo + SMALL_ZERO_BYTES {
                std::ptr::write_bytes((self.base as usize + off) as *mut u8, 0, lo - off);
                libc::madvise(
                    (self.base as usize + lo) as *mut libc::c_void,
                    hi - lo,
                    libc::MADV_DONTNEED,
                );
                std::ptr::write_bytes(
                    (self.base as usize + hi) as *mut u8,
                    0,
                    off + len as usize - hi,
                );
            } else {
                std::ptr::write_bytes((self.base as usize + off) as *mut u8, 0, len as usize);
            }
        }
    }

    /// The size of the live allocation starting at `addr`.
    pub fn alloc_len(&self, addr: u64) -> Option<u64> {
        self.heap().live.get(&addr).map(|&(l, _)| l)
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation or one
    /// registered host range.
    pub fn check_range(&self, addr: u64, len: u64) -> Result<(), MemoryError> {
        let heap = self.heap();
        let inside =
            |start: u64, alen: u64| addr.checked_add(len).is_some_and(|end| end <= start + alen);
        let alloc = heap
            .live
            .range(..=addr)
            .next_back()
            .map(|(&s, &(l, _))| (s, l));
        let reg = heap
            .registered
            .range(..=addr)
            .next_back()
            .map(|(&s, &l)| (s, l));
        if [alloc, reg]
            .into_iter()
            .flatten()
            .any(|(s, l)| inside(s, l))
        {
            Ok(())
        } else {
            Err(MemoryError::BadRange { addr, len })
        }
    }

    /// Makes the host range `[addr, addr+len)` reachable by kernels at its own address
    /// (`cuMemHostRegister`). The caller keeps the memory valid until
    /// [`DeviceMemory::unregister_host`]. Ranges overlapping the reserved range or
    /// another registered range are refused.
    pub fn register_host(&self, addr: u64, len: u64) -> Result<(), MemoryError> {
        let bad = MemoryError::AlreadyRegistered { addr, len };
        let end = addr
            .checked_add(len)
            .filter(|_| len > 0 && addr != 0)
            .ok_or(bad)?;
        let overlaps = |lo: u64, hi: u64| addr < hi && lo < end;
        let mut heap = self.heap();
        if overlaps(self.base, self.base + self.size)
            || heap
                .registered
                .range(..end)
                .next_back()
                .is_some_and(|(&s, &l)| overlaps(s, s + l))
        {
            return Err(MemoryError::AlreadyRegistered { addr, len });
        }
        heap.registered.insert(addr, len);
        heap.fixed = [None, None];
        Ok(())
    }

    /// Ends the registration of the host range starting at `addr`; returns its length.
    pub fn unregister_host(&self, addr: u64) -> Result<u64, MemoryError> {
        let mut heap = self.heap();
        let len = heap
            .registered
            .remove(&addr)
            .ok_or(MemoryError::NotRegistered(addr))?;
        heap.fixed = [None, None];
        Ok(len)
    }

    /// The registered host range holding `addr`: (start, length).
    pub fn registered_range(&self, addr: u64) -> Option<(u64, u64)> {
        let heap = self.heap();
        let (&s, &l) = heap.registered.range(..=addr).next_back()?;
        (addr < s + l).then_some((s, l))
    }

    /// Copies host bytes into device memory.
    pub fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        self.check_range(addr, bytes.len() as u64)?;
        // SAFETY: checked to be inside a live allocation of the mapping.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
        self.init_map().mark(addr, bytes.len() as u64);
        Ok(())
    }

    /// Copies device memory into host bytes.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        self.check_range(addr, out.len() as u64)?;
        // SAFETY: checked to be inside a live allocation of the mapping.
        unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Fills device memory with a byte.
    pub fn fill(&self, addr: u64, len: u64, byte: u8) -> Result<(), MemoryError> {
        self.check_range(addr, len)?;
        // SAFETY: checked to be inside a live allocation of the mapping.
        unsafe { std::ptr::write_bytes(addr as *mut u8, byte, len as usize) };
        self.init_map().mark(addr, len);
        Ok(())
    }

    /// The region table of all live allocations, for a launch.
    ///
    /// Device allocations and module variables extend to the next multiple of
    /// [`ALLOC_ALIGN`], as on a GPU, where memory is handed out in 256-byte granules and
    /// compilers rely on it: NVVM emits vector loads that read past the end of an array
    /// (`.pragma "used_bytes_mask"` naming the bytes used), which a GPU runs. The launch
    /// windows (parameters, shared, local) keep their exact sizes. With `exact`, every
    /// region ends at the requested size (`DeviceOptions::exact_bounds`).
    ///
    /// The regions other than windows are sorted once and shared by the launches until
    /// an allocation, a free or a registration changes them; each launch lists only the
    /// windows (its own and those of launches running at the same time), so that its
    /// cost does not grow with the device's live allocations.
    pub fn region_table(&self, exact: bool) -> RegionTable {
        let mut heap = self.heap();
        let region = |lo: u64, len: u64, kind: RegionKind| Region {
            lo,
            hi: lo
                + match kind {
                    RegionKind::Alloc | RegionKind::Global | RegionKind::Const if !exact => {
                        len.max(1).next_multiple_of(ALLOC_ALIGN)
                    }
                    RegionKind::Alloc | RegionKind::Global | RegionKind::Const => len,
                    RegionKind::Shared | RegionKind::Local | RegionKind::Param => len,
                },
            writable: !matches!(kind, RegionKind::Const | RegionKind::Param),
            kind,
        };
        let fixed = match &heap.fixed[exact as usize] {
            Some(f) => f.clone(),
            None => {
                let all: Vec<Region> = heap
                    .live
                    .iter()
                    .filter(|(_, &(_, kind))| !is_window(kind))
                    .map(|(&lo, &(len, kind))| region(lo, len, kind))
                    .chain(heap.registered.iter().map(|(&lo, &len)| Region {
                        // Registered host memory keeps its exact size: past its end lies
                        // memory ptxjit does not own.
                        lo,
                        hi: lo + len,
                        writable: true,
                        kind: RegionKind::Alloc,
                    }))
                    .collect();
                let f: Arc<[Region]> = Arc::from(sorted_regions(all));
                heap.fixed[exact as usize] = Some(f.clone());
                f
            }
        };
        let windows = heap
            .windows
            .iter()
            .map(|(&lo, &(len, kind))| region(lo, len, kind))
            .collect();
        RegionTable::layered(fixed, windows)
    }

    /// Keeps the mapping alive for as long as `self` lives.
    pub fn mapping_len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_free_reuse_and_regions() {
        let m = DeviceMemory::new(1 << 24).unwrap();
        let a = m.alloc(100, 0, RegionKind::Alloc).unwrap();
        let b = m.alloc(4096, 0, RegionKind::Alloc).unwrap();
        assert_eq!(a % 256, 0);
        assert!(b >= a + 100 + 256, "a guard gap separates allocations");
        m.write(a, &[7; 100]).unwrap();
        assert!(m.write(a, &[7; 101]).is_err());
        let exact = m.region_table(true);
        assert!(exact.find(a + 96, 4).is_some());
        assert!(
            exact.find(a + 100, 1).is_none(),
            "exact bounds end at the size"
        );
        let t = m.region_table(false);
        assert!(t.find(a, 100).is_some());
        // The GPU's 256-byte granule is addressable; the guard gap after it is not.
        assert!(t.find(a + 96, 8).is_some());
        assert!(t.find(a + 252, 4).is_some());
        assert!(t.find(a + 252, 8).is_none());
        assert!(t.find(a + 256, 1).is_none());
        m.free(a).unwrap();
        assert!(m.free(a).is_err());
        let c = m.alloc(64, 0, RegionKind::Alloc).unwrap();
        let mut out = [1u8; 64];
        m.read(c, &mut out).unwrap();
        assert_eq!(out, [0; 64], "reused memory reads as zero");
    }

    /// The region tables a launch takes follow every change: the shared regions are
    /// rebuilt after an allocation, a free, a registration or its end (in both the
    /// granule-rounded and exact forms), launch windows come and go without that, and
    /// the layered table finds what a table built from scratch finds.
    #[test]
    fn region_tables_follow_allocations_windows_and_registrations() {
        let m = DeviceMemory::new(1 << 24).unwrap();
        let a = m.alloc(100, 0, RegionKind::Alloc).unwrap();
        let t = m.region_table(false);
        assert_eq!(t.find(a, 256).map(|r| r.kind), Some(RegionKind::Alloc));
        assert!(m.region_table(true).find(a, 101).is_none());
        // A window: listed by the launch, not in the shared regions.
        let w = m.alloc(512, 0, RegionKind::Shared).unwrap();
        let shared_before = m.heap().fixed[0].clone().expect("built above");
        let t = m.region_table(false);
        assert_eq!(t.find(w, 512).map(|r| r.kind), Some(RegionKind::Shared));
        assert!(t.find(w, 513).is_none(), "windows keep their exact size");
        let shared_after = m.heap().fixed[0].clone().expect("still built");
        assert!(
            Arc::ptr_eq(&shared_before, &shared_after),
            "a window rebuilt nothing"
        );
        m.free(w).unwrap();
        assert!(m.region_table(false).find(w, 1).is_none());
        // A second allocation and a free: both forms rebuilt.
        let b = m.alloc(4000, 0, RegionKind::Const).unwrap();
        let t = m.region_table(false);
        let r = t.find(b, 4096).expect("rounded to the granule");
        assert!(!r.writable);
        assert!(m.region_table(true).find(b, 4001).is_none());
        m.free(a).unwrap();
        assert!(m.region_table(false).find(a, 1).is_none());
        assert!(m.region_table(true).find(a, 1).is_none());
        // Registered host memory, then its end.
        let host = [0u8; 64];
        let h = host.as_ptr() as u64;
        m.register_host(h, 64).unwrap();
        assert!(m.region_table(false).find(h, 64).is_some());
        m.unregister_host(h).unwrap();
        assert!(m.region_table(false).find(h, 1).is_none());
        // Against a table built from every region: the same answers at every boundary.
        let w2 = m.alloc(300, 0, RegionKind::Local).unwrap();
        let layered = m.region_table(false);
        let flat = RegionTable::new(vec![
            Region {
                lo: b,
                hi: b + 4096,
                writable: false,
                kind: RegionKind::Const,
            },
            Region {
                lo: w2,
                hi: w2 + 300,
                writable: true,
                kind: RegionKind::Local,
            },
        ]);
        for addr in [b - 1, b, b + 4095, b + 4096, w2 - 1, w2, w2 + 299, w2 + 300] {
            for len in [1, 4, 300] {
                assert_eq!(
                    layered.find(addr, len),
                    flat.find(addr, len),
                    "{addr:#x} +{len}"
                );
            }
        }
    }

    /// Freed ranges read as zero when reused, whether they were zeroed by writing (at most
    /// `SMALL_ZERO_BYTES` of whole pages) or given back to the OS (larger), with the
    /// unaligned head and tail bytes of each; the first-fit reuse returns the same start.
    #[test]
    fn freed_ranges_read_as_zero_on_both_paths() {
        let m = DeviceMemory::new(1 << 24).unwrap();
        for len in [
            300,
            4096 + 17,
            SMALL_ZERO_BYTES as u64 - 100,
            SMALL_ZERO_BYTES as u64 + 3 * 4096 + 5,
            (SMALL_ZERO_BYTES as u64) * 4,
        ] {
            let a = m.alloc(len, 0, RegionKind::Alloc).unwrap();
            m.write(a, &vec![0xa5; len as usize]).unwrap();
            m.free(a).unwrap();
            let b = m.alloc(len, 0, RegionKind::Alloc).unwrap();
            assert_eq!(b, a, "the freed range is reused ({len} bytes)");
            let mut out = vec![1u8; len as usize];
            m.read(b, &mut out).unwrap();
            assert!(out.iter().all(|&x| x == 0), "{len} bytes read as zero");
            m.free(b).unwrap();
        }
    }

    #[test]
    fn registered_host_ranges() {
        let m = DeviceMemory::new(1 << 24).unwrap();
        let mut host = vec![0u8; 1000];
        let h = host.as_mut_ptr() as u64;
        m.register_host(h, 1000).unwrap();
        assert!(m.register_host(h + 10, 10).is_err(), "overlap");
        assert!(
            m.register_host(m.base() + 4096, 64).is_err(),
            "inside device memory"
        );
        m.check_range(h + 990, 10).unwrap();
        assert!(m.check_range(h + 990, 11).is_err());
        assert_eq!(m.registered_range(h + 999), Some((h, 1000)));
        assert_eq!(m.registered_range(h + 1000), None);
        let t = m.region_table(false);
        assert!(t.find(h, 1000).is_some_and(|r| r.writable));
        assert!(
            t.find(h + 996, 8).is_none(),
            "registered ranges keep their exact size"
        );
        m.write(h + 5, &[9; 3]).unwrap();
        assert_eq!(host[5..8], [9; 3]);
        assert_eq!(m.unregister_host(h).unwrap(), 1000);
        assert!(m.unregister_host(h).is_err());
        assert!(m.check_range(h, 1).is_err());
        assert!(m.region_table(false).find(h, 1).is_none());
    }

    /// The `VmFlags` line of the mapping of this process that holds `addr`, if any.
    fn vm_flags(addr: u64) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'));
            if let Some((lo, hi)) = range.filter(|_| !line.starts_with("VmFlags")) {
                if let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16))
                {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
            if inside && line.starts_with("VmFlags:") {
                return Some(line.to_string());
            }
        }
        None
    }

    #[test]
    fn large_allocations_take_huge_pages() {
        let m = DeviceMemory::new(1 << 26).unwrap();
        let small = m.alloc(100, 0, RegionKind::Alloc).unwrap();
        let big = m.alloc(3 << 20, 0, RegionKind::Alloc).unwrap();
        assert_eq!(
            big % HUGE_PAGE,
            0,
            "a 3 MiB allocation starts on a 2 MiB boundary"
        );
        m.write(big + (3 << 20) - 4, &[1, 2, 3, 4]).unwrap();
        if std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            // `hg`: advised MADV_HUGEPAGE (smaps' VmFlags); the block after the first 2 MiB
            // is not a whole huge page and keeps the default.
            let flags = |a| vm_flags(a).unwrap_or_default();
            assert!(flags(big).contains(" hg"), "{}", flags(big));
            assert!(!flags(small).contains(" hg"), "{}", flags(small));
            assert!(!flags(big + HUGE_PAGE).contains(" hg"));
            m.free(big).unwrap();
            assert!(flags(big).contains(" nh"), "freed: {}", flags(big));
        }
        let again = m.alloc(4096, 0, RegionKind::Alloc).unwrap();
        let mut out = [1u8; 4096];
        m.read(again, &mut out).unwrap();
        assert_eq!(out, [0; 4096], "reused memory reads as zero");
    }
}
