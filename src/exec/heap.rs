//! The device heap of CUDA's device-side `malloc`/`free` (`Builtin::Malloc`/`Free`): one
//! device allocation of `CU_LIMIT_MALLOC_HEAP_SIZE` bytes (8 MiB by default, as on a
//! GPU), made by the runtime before the first launch that needs it, and a first-fit
//! allocator over it shared by every warp of every launch on the device.
//!
//! GPU behaviour followed (recorded on an H100, `tests/golden/misc_run/probe.out`):
//! blocks are 16-byte aligned; `malloc(0)` returns a unique non-NULL pointer; a request
//! the heap cannot hold returns NULL (no fault); `free(NULL)` does nothing; freeing a
//! pointer that is not a live block (a double free, a wild pointer) stops the launch.
//! Memory inside the heap is one region for the access checks, so an overflow from one
//! block into the next is not a fault here either (the GPU does not catch it) — except
//! under memcheck, which checks every heap access against the blocks
//! ([`DeviceHeap::check_access`]: byte-exact against the requested size, freed blocks poisoned
//! until reused) and keeps freed blocks from reuse for a while and a free granule after
//! each block ([`DeviceHeap::set_quarantine`]).

use crate::exec::freelist::FreeList;
pub use crate::exec::sanitize::{FreeError, HeapAccess};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Alignment of every block (and the granularity of sizes).
pub const HEAP_ALIGN: u64 = 16;

struct Blocks {
    /// Live blocks: start -> (size, a multiple of HEAP_ALIGN; requested size).
    live: BTreeMap<u64, (u64, u64)>,
    free: FreeList,
    /// Freed blocks whose bytes no block reuses yet: start -> requested size.
    freed: BTreeMap<u64, u64>,
    /// With quarantine on, freed blocks not yet given back to `free`: (start, size).
    held: VecDeque<(u64, u64)>,
    held_bytes: u64,
}

/// The size of a block of `len` requested bytes.
fn block_size(len: u64) -> Option<u64> {
    len.max(1).checked_next_multiple_of(HEAP_ALIGN)
}

/// The allocator over the heap range `[base, base + size)`.
pub struct DeviceHeap {
    base: u64,
    size: u64,
    blocks: Mutex<Blocks>,
    quarantine: AtomicBool,
}

impl DeviceHeap {
    /// A heap over `[base, base + size)` (the range must stay mapped while it lives).
    pub fn new(base: u64, size: u64) -> DeviceHeap {
        let size = size / HEAP_ALIGN * HEAP_ALIGN;
        DeviceHeap {
            base,
            size,
            blocks: Mutex::new(Blocks {
                live: BTreeMap::new(),
                free: FreeList::new(base, size),
                freed: BTreeMap::new(),
                held: VecDeque::new(),
                held_bytes: 0,
            }),
            quarantine: AtomicBool::new(false),
        }
    }

    /// Keeps freed blocks from reuse (memcheck's quarantine) until a quarter of the heap
    /// is held, or a `malloc` finds no room otherwise; new blocks get a guard granule.
    pub fn set_quarantine(&self, on: bool) {
        self.quarantine.store(on, Ordering::Relaxed);
        if !on {
            let mut b = self.blocks();
            while let Some((a, sz)) = b.held.pop_front() {
                b.free.give(a, sz);
            }
            b.held_bytes = 0;
        }
    }

    pub fn base(&self) -> u64 {
        self.base
    }
    pub fn size(&self) -> u64 {
        self.size
    }

    fn blocks(&self) -> std::sync::MutexGuard<'_, Blocks> {
        self.blocks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `len` bytes (at least one granule); returns 0 (NULL) when no free
    /// extent is large enough.
    pub fn malloc(&self, len: u64) -> u64 {
        // Under memcheck a guard granule follows each block, so that an overflow into
        // the next block lands in no block.
        let guard = self.quarantine.load(Ordering::Relaxed) as u64 * HEAP_ALIGN;
        let Some(need) = block_size(len).and_then(|n| n.checked_add(guard)) else {
            return 0;
        };
        let mut b = self.blocks();
        let start = match b.free.take(need, HEAP_ALIGN) {
            Some(s) => s,
            None if !b.held.is_empty() => {
                // Out of room: the quarantine gives its blocks back.
                while let Some((a, sz)) = b.held.pop_front() {
                    b.free.give(a, sz);
                }
                b.held_bytes = 0;
                match b.free.take(need, HEAP_ALIGN) {
                    Some(s) => s,
                    None => return 0,
                }
            }
            None => return 0,
        };
        // Freed blocks this one reuses are no longer poisoned.
        let reused: Vec<u64> = b
            .freed
            .range(..start + need)
            .rev()
            .take_while(|&(&lo, &l)| lo + block_size(l).unwrap_or(HEAP_ALIGN) > start)
            .map(|(&lo, _)| lo)
            .collect();
        for lo in reused {
            b.freed.remove(&lo);
        }
        b.live.insert(start, (need, len));
        start
    }

    /// Frees the block starting at `ptr` (0: nothing to do).
    pub fn free(&self, ptr: u64) -> Result<(), FreeError> {
        if ptr == 0 {
            return Ok(());
        }
        if ptr < self.base || ptr >= self.base + self.size {
            return Err(FreeError::OutsideHeap);
        }
        let mut b = self.blocks();
        let Some((size, len)) = b.live.remove(&ptr) else {
            return Err(FreeError::NotABlock);
        };
        b.freed.insert(ptr, len);
        if self.quarantine.load(Ordering::Relaxed) {
            b.held.push_back((ptr, size));
            b.held_bytes += size;
            while b.held_bytes > self.size / 4 {
                let Some((a, sz)) = b.held.pop_front() else {
                    break;
                };
                b.held_bytes -= sz;
                b.free.give(a, sz);
            }
        } else {
            b.free.give(ptr, size);
        }
        Ok(())
    }

    /// Bytes in live blocks.
    pub fn live_bytes(&self) -> u64 {
        self.blocks().live.values().map(|&(s, _)| s).sum()
    }

    /// Live blocks: (start, requested size).
    pub fn live_blocks(&self) -> Vec<(u64, u64)> {
        self.blocks()
            .live
            .iter()
            .map(|(&a, &(_, l))| (a, l))
            .collect()
    }

    /// The requested size of the freed, not reused block starting at `ptr`.
    pub fn freed_block(&self, ptr: u64) -> Option<u64> {
        self.blocks().freed.get(&ptr).copied()
    }

    /// Whether `addr` lies in the heap.
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base && addr - self.base < self.size
    }

    /// memcheck's check of an access `[addr, addr+len)` inside the heap.
    pub fn check_access(&self, addr: u64, len: u64) -> HeapAccess {
        let b = self.blocks();
        let end = addr.saturating_add(len);
        let below = b.live.range(..=addr).next_back();
        if let Some((&lo, &(size, req))) = below {
            if end <= lo + req {
                return HeapAccess::Ok;
            }
            if addr < lo + size.max(req) {
                return HeapAccess::Overflow(lo, req);
            }
        }
        if let Some((&lo, &req)) = b.freed.range(..=addr).next_back() {
            if addr < lo + block_size(req).unwrap_or(HEAP_ALIGN) {
                return HeapAccess::Freed(lo, req);
            }
        }
        HeapAccess::NoBlock(below.map(|(&lo, &(_, req))| (lo, req)))
    }
}

impl crate::exec::sanitize::HeapBlocks for DeviceHeap {
    fn range(&self) -> (u64, u64) {
        (self.base, self.base + self.size)
    }
    fn check(&self, addr: u64, len: u64) -> HeapAccess {
        self.check_access(addr, len)
    }
    fn freed_block(&self, ptr: u64) -> Option<u64> {
        DeviceHeap::freed_block(self, ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_alignment_null_and_coalescing() {
        let h = DeviceHeap::new(0x1000, 256);
        let a = h.malloc(1);
        let b = h.malloc(0);
        assert_eq!(
            (a, b),
            (0x1000, 0x1010),
            "16-byte granules, malloc(0) non-NULL"
        );
        assert_eq!(h.malloc(256), 0, "224 bytes are left: NULL");
        let c = h.malloc(224);
        assert_eq!(c, 0x1020);
        assert_eq!(h.malloc(1), 0, "full");
        assert_eq!(h.free(b), Ok(()));
        assert_eq!(h.free(b), Err(FreeError::NotABlock), "double free");
        assert_eq!(h.free(0x1008), Err(FreeError::NotABlock), "inside a block");
        assert_eq!(h.free(0x2000), Err(FreeError::OutsideHeap));
        assert_eq!(h.free(0), Ok(()), "free(NULL)");
        h.free(a).unwrap();
        h.free(c).unwrap();
        assert_eq!(h.live_bytes(), 0);
        assert_eq!(h.malloc(256), 0x1000, "the extents coalesced into one");
        assert_eq!(h.malloc(u64::MAX), 0, "no overflow on huge requests");
    }

    #[test]
    fn memcheck_view_of_blocks_and_quarantine() {
        let h = DeviceHeap::new(0x1000, 256);
        h.set_quarantine(true);
        // Blocks of 32 + 16 (guard) and 16 + 16 bytes.
        let a = h.malloc(20); // [0x1000, +20)
        let b = h.malloc(16); // [0x1030, +16)
        assert_eq!((a, b), (0x1000, 0x1030));
        assert_eq!(h.check_access(0x1010, 4), HeapAccess::Ok, "bytes 16..20");
        assert_eq!(
            h.check_access(0x1010, 8),
            HeapAccess::Overflow(a, 20),
            "bytes 16..24"
        );
        assert_eq!(
            h.check_access(0x1020, 1),
            HeapAccess::Overflow(a, 20),
            "padding"
        );
        assert_eq!(
            h.check_access(0x1040, 4),
            HeapAccess::Overflow(b, 16),
            "the guard"
        );
        assert_eq!(
            h.check_access(0x1050, 4),
            HeapAccess::NoBlock(Some((b, 16)))
        );
        h.free(a).unwrap();
        assert_eq!(h.check_access(0x1004, 4), HeapAccess::Freed(a, 20));
        assert_eq!(h.freed_block(a), Some(20));
        // 48 bytes held (at most a quarter of the heap, 64): a is not reused yet.
        assert_eq!(h.malloc(20), 0x1050);
        assert_eq!(h.check_access(0x1004, 4), HeapAccess::Freed(a, 20));
        // Filling the heap makes the quarantine give a back: [0x1080, 0x1100) is 128.
        assert_eq!(h.malloc(112), 0x1080);
        assert_eq!(h.malloc(32), a, "reused once nothing else is left");
        assert_eq!(h.check_access(0x1004, 4), HeapAccess::Ok);
        assert_eq!(h.freed_block(a), None);
    }
}
