//! What a sanitizer found, as the exec layer records it ([`RawFinding`]): the kind, the
//! instruction (an [`InstId`], located by the runtime), block, thread, address and, for
//! races and barriers, the other access. `crate::runtime::sanitize` turns these into
//! located reports.

use crate::ir::{InstId, Space};

/// What is wrong, grouped by the checker that finds it ([`FindingKind::checker`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// memcheck: an address in no allocation, variable or window.
    OutOfBounds,
    /// memcheck: an address in an allocation that has been freed.
    UseAfterFree,
    /// memcheck: an address that is not a multiple of the access size.
    Misaligned,
    /// memcheck: a store to `.const` memory or kernel parameters.
    ReadOnlyStore,
    /// memcheck: a `.local` access outside the thread's frame (stack overflow).
    LocalOverflow,
    /// memcheck: a `.shared` access outside the CTA's window.
    SharedOverflow,
    /// memcheck: a device allocation (or device-heap `malloc` block) still live when the
    /// device is destroyed.
    Leak,
    /// memcheck: a device-heap `free` of a block already freed.
    DoubleFree,
    /// memcheck: a device-heap `free` of a pointer that is not the start of a block.
    InvalidFree,
    /// initcheck: a read of bytes never written.
    Uninit,
    /// racecheck: a read of bytes another thread wrote with no barrier between.
    RaceRaw,
    /// racecheck: a write of bytes another thread read with no barrier between.
    RaceWar,
    /// racecheck: a write of bytes another thread wrote with no barrier between.
    RaceWaw,
    /// synccheck: threads of a CTA arrived at one barrier from different instructions.
    DivergentBarrier,
    /// synccheck: more threads arrived at a barrier than its thread count.
    BarrierCount,
    /// synccheck: a lane's `membermask` does not include the lane itself.
    MaskExcludesSelf,
    /// synccheck: a `membermask` names lanes that do not execute the instruction.
    MaskNamesInactive,
}

impl FindingKind {
    /// The checker that reports this kind: `memcheck`, `initcheck`, `racecheck` or
    /// `synccheck`.
    pub fn checker(self) -> &'static str {
        use FindingKind::*;
        match self {
            OutOfBounds | UseAfterFree | Misaligned | ReadOnlyStore | LocalOverflow
            | SharedOverflow | Leak | DoubleFree | InvalidFree => "memcheck",
            Uninit => "initcheck",
            RaceRaw | RaceWar | RaceWaw => "racecheck",
            DivergentBarrier | BarrierCount | MaskExcludesSelf | MaskNamesInactive => "synccheck",
        }
    }

    /// A short stable name (also the JSON `kind`).
    pub fn name(self) -> &'static str {
        use FindingKind::*;
        match self {
            OutOfBounds => "out-of-bounds",
            UseAfterFree => "use-after-free",
            Misaligned => "misaligned",
            ReadOnlyStore => "store-to-read-only",
            LocalOverflow => "local-overflow",
            SharedOverflow => "shared-overflow",
            Leak => "leak",
            DoubleFree => "double-free",
            InvalidFree => "invalid-free",
            Uninit => "uninitialized-read",
            RaceRaw => "race-read-after-write",
            RaceWar => "race-write-after-read",
            RaceWaw => "race-write-after-write",
            DivergentBarrier => "divergent-barrier",
            BarrierCount => "barrier-count",
            MaskExcludesSelf => "membermask-excludes-lane",
            MaskNamesInactive => "membermask-names-inactive-lanes",
        }
    }
}

/// The other access of a race, or the other arrival of a barrier finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherAccess {
    pub inst: InstId,
    /// `%tid` of the other thread.
    pub thread: [u32; 3],
    pub write: bool,
    pub atomic: bool,
}

/// One finding as recorded during a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFinding {
    pub kind: FindingKind,
    /// The instruction (`None` for leaks).
    pub inst: Option<InstId>,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// The state-space address as the instruction computed it (for leaks, the
    /// allocation's start).
    pub addr: u64,
    pub space: Space,
    /// Bytes accessed (for leaks, the allocation's size).
    pub size: u32,
    pub write: bool,
    pub atomic: bool,
    pub other: Option<OtherAccess>,
    /// Extra facts (the allocation a use-after-free hit, the lanes of a mask, ...).
    pub detail: String,
}

impl RawFinding {
    /// The key findings are deduplicated by: kind and instruction pair.
    pub fn key(&self) -> (FindingKind, Option<InstId>, Option<InstId>) {
        (self.kind, self.inst, self.other.map(|o| o.inst))
    }
}
