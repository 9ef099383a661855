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
//! block into the next is not a fault here either (the GPU does not catch it).

use crate::exec::freelist::FreeList;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Alignment of every block (and the granularity of sizes).
pub const HEAP_ALIGN: u64 = 16;

/// Why a `free` failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeError {
    /// Inside the heap but not the start of a live block (e.g. freed twice).
    NotABlock,
    /// Outside the heap.
    OutsideHeap,
}

struct Blocks {
    /// Live blocks: start -> size (multiples of HEAP_ALIGN).
    live: BTreeMap<u64, u64>,
    free: FreeList,
}

/// The allocator over the heap range `[base, base + size)`.
pub struct DeviceHeap {
    base: u64,
    size: u64,
    blocks: Mutex<Blocks>,
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
            }),
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
        let Some(need) = len.max(1).checked_next_multiple_of(HEAP_ALIGN) else {
            return 0;
        };
        let mut b = self.blocks();
        let Some(start) = b.free.take(need, HEAP_ALIGN) else {
            return 0;
        };
        b.live.insert(start, need);
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
        let Some(size) = b.live.remove(&ptr) else {
            return Err(FreeError::NotABlock);
        };
        b.free.give(ptr, size);
        Ok(())
    }

    /// Bytes in live blocks.
    pub fn live_bytes(&self) -> u64 {
        self.blocks().live.values().sum()
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
}
