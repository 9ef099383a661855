//! memcheck and initcheck of the device heap (`malloc`/`free` in kernels,
//! `crate::exec::heap`): heap accesses are checked against the blocks (byte-exact
//! against the requested size; freed blocks stay poisoned until reused), a bad `free`
//! is a finding (double free, a pointer that is not a block's start), a new block's
//! bytes start unwritten for initcheck, and the `malloc` sites of a launch's blocks are
//! kept for leak reports at device destruction (the runtime's side).

use super::{FindingKind, RawFinding, Sanitizer, WarpView};
use crate::ir::{InstId, Space};
use std::collections::HashMap;
use std::sync::Arc;

/// Why a device-heap `free` failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeError {
    /// Inside the heap but not the start of a live block (e.g. freed twice).
    NotABlock,
    /// Outside the heap.
    OutsideHeap,
}

/// What memcheck finds at a heap access ([`HeapBlocks::check`]); blocks are given as
/// `(start, requested size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapAccess {
    /// Inside the requested bytes of one live block.
    Ok,
    /// Starts in a live block but runs past its requested bytes.
    Overflow(u64, u64),
    /// In a freed block not reused since.
    Freed(u64, u64),
    /// In no block; the nearest live block below, if any.
    NoBlock(Option<(u64, u64)>),
}

/// The device heap as memcheck sees it (`crate::exec::heap::DeviceHeap`).
pub trait HeapBlocks: Send + Sync {
    /// The heap's range `[lo, hi)`.
    fn range(&self) -> (u64, u64);
    /// Whether `addr` lies in the heap.
    fn contains(&self, addr: u64) -> bool {
        let (lo, hi) = self.range();
        addr >= lo && addr < hi
    }
    /// The check of an access `[addr, addr+len)` inside the heap.
    fn check(&self, addr: u64, len: u64) -> HeapAccess;
    /// The requested size of the freed, not reused block starting at `ptr`.
    fn freed_block(&self, ptr: u64) -> Option<u64>;
}

/// Where a device-heap block was allocated: instruction, block and thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MallocSite {
    pub inst: InstId,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// Requested size.
    pub len: u64,
}

impl Sanitizer {
    /// The device heap memcheck checks, if any.
    pub fn heap(&self) -> Option<&Arc<dyn HeapBlocks>> {
        self.heap.as_ref()
    }

    /// Checks the device heap's blocks under memcheck.
    pub fn with_heap(mut self, heap: Option<Arc<dyn HeapBlocks>>) -> Sanitizer {
        self.heap = heap.filter(|_| self.opts.memcheck);
        self
    }

    /// memcheck of a heap access `[h, h+len)` (called for accesses in the heap region
    /// only): whether it is a fault (then [`Sanitizer::fault`] reports it).
    pub fn heap_fault(&self, h: u64, len: u64) -> bool {
        self.heap
            .as_ref()
            .is_some_and(|hp| hp.contains(h) && hp.check(h, len) != HeapAccess::Ok)
    }

    /// The kind and detail of a bad heap access at host address `h`.
    pub(super) fn heap_detail(&self, h: u64, len: u64) -> Option<(FindingKind, String)> {
        let hp = self.heap.as_ref().filter(|hp| hp.contains(h))?;
        Some(match hp.check(h, len) {
            HeapAccess::Ok => return None,
            HeapAccess::Overflow(lo, n) => (
                FindingKind::OutOfBounds,
                format!(
                    "bytes {}..{} of the {n}-byte malloc'd block at {lo:#x}",
                    h - lo,
                    h - lo + len
                ),
            ),
            HeapAccess::Freed(lo, n) => (
                FindingKind::UseAfterFree,
                format!("in the freed {n}-byte malloc'd block at {lo:#x}"),
            ),
            HeapAccess::NoBlock(Some((lo, n))) => (
                FindingKind::OutOfBounds,
                format!(
                    "in the device heap, {} bytes past the end of the {n}-byte malloc'd \
                     block at {lo:#x}",
                    h - (lo + n)
                ),
            ),
            HeapAccess::NoBlock(None) => (
                FindingKind::OutOfBounds,
                "in the device heap, in no malloc'd block".to_string(),
            ),
        })
    }

    /// A `malloc` of `len` bytes by `lane` returned `ptr` (0: none): the block starts
    /// unwritten (initcheck) and with no access recorded (racecheck: a block freed and
    /// handed out again is a new object, whose earlier accesses the `free` and the
    /// `malloc` order before its new owner's), and memcheck keeps its site for a leak
    /// report.
    pub fn heap_malloc(&self, w: &WarpView, inst: InstId, lane: usize, ptr: u64, len: u64) {
        if ptr == 0 {
            return;
        }
        self.new_object(ptr, len.max(1));
        if self.opts.initcheck {
            let mut init = self.init.lock().unwrap_or_else(|e| e.into_inner());
            init.add_uninit(ptr, len.max(1));
        }
        if self.opts.memcheck {
            let site = MallocSite {
                inst,
                block: w.ctaid,
                thread: w.thread(lane),
                len,
            };
            let mut m = self.mallocs.lock().unwrap_or_else(|e| e.into_inner());
            m.insert(ptr, site);
        }
    }

    /// Global bytes `[ptr, ptr+len)` were handed out as a new object (a device-heap block,
    /// a device-runtime parameter buffer), possibly reused: racecheck forgets their
    /// accesses, which the release and the new request order before the new owner's.
    pub fn new_object(&self, ptr: u64, len: u64) {
        if self.opts.racecheck {
            let mut s = self.state();
            let end = ptr.saturating_add(len);
            s.global_race
                .each_mut(ptr, end, true, |_, r| *r = Default::default());
            s.cta_race.forget(ptr, end - ptr);
        }
    }

    /// A `free(ptr)` by `lane` returned `res`. A good free forgets the block's shadow; a
    /// bad one is a memcheck finding: returns `Some(skip)` then (`skip`: report-only,
    /// the lane goes on), `None` when memcheck is off or the free was good.
    pub fn heap_free(
        &self,
        w: &WarpView,
        inst: InstId,
        lane: usize,
        ptr: u64,
        res: Result<(), FreeError>,
    ) -> Option<bool> {
        let Err(e) = res else {
            if ptr != 0 {
                if self.opts.initcheck {
                    self.init
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(ptr);
                }
                let mut m = self.mallocs.lock().unwrap_or_else(|e| e.into_inner());
                m.remove(&ptr);
            }
            return None;
        };
        if !self.opts.memcheck {
            return None;
        }
        let freed = self.heap.as_ref().and_then(|h| h.freed_block(ptr));
        let (kind, detail) = match (e, freed) {
            (FreeError::NotABlock, Some(n)) => (
                FindingKind::DoubleFree,
                format!("free({ptr:#x}): the {n}-byte malloc'd block was already freed"),
            ),
            (FreeError::NotABlock, None) => (
                FindingKind::InvalidFree,
                match self.heap.as_ref().map(|h| h.check(ptr, 1)) {
                    Some(HeapAccess::Ok | HeapAccess::Overflow(..)) => {
                        format!("free({ptr:#x}): inside a malloc'd block, not its start")
                    }
                    _ => format!("free({ptr:#x}): not a block returned by malloc"),
                },
            ),
            (FreeError::OutsideHeap, _) => (
                FindingKind::InvalidFree,
                format!("free({ptr:#x}): the pointer is outside the device heap"),
            ),
        };
        self.state().push(RawFinding {
            kind,
            inst: Some(inst),
            block: w.ctaid,
            thread: w.thread(lane),
            addr: ptr,
            space: Space::Global,
            size: 0,
            write: false,
            atomic: false,
            other: None,
            detail,
        });
        Some(self.opts.report_only)
    }

    /// The `malloc` sites of this launch's blocks not freed in it.
    pub fn take_mallocs(&self) -> HashMap<u64, MallocSite> {
        std::mem::take(&mut *self.mallocs.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
