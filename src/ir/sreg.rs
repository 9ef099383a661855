//! Special registers ([`SpecialReg`]: `%tid`, `%ctaid`, `%laneid`, clocks, lane masks,
//! reserved shared-memory addresses, ...) and their dimensions.

/// Dimension of a vector special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X = 0,
    Y = 1,
    Z = 2,
}

/// Special registers (`WARP_SZ` is lowered to the immediate 32 by `check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    LaneId,
    WarpId,
    NWarpId,
    /// `%clock` (low 32 bits of `%clock64`), `%clock_hi` (high 32 bits), `%clock64`.
    Clock,
    ClockHi,
    Clock64,
    /// `%globaltimer` (u64 nanoseconds) and its low/high halves.
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    SmId,
    NSmId,
    /// `%gridid` (u64).
    GridId,
    LaneMask(LaneMask),
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    ClusterId(Dim),
    NClusterId(Dim),
    ClusterCtaId(Dim),
    ClusterNCtaId(Dim),
    ClusterCtaRank,
    ClusterNCtaRank,
    /// `%is_explicit_cluster` (`.pred`).
    IsExplicitCluster,
    /// `%current_graph_exec` (u64; always 0: no CUDA graphs).
    CurrentGraphExec,
    /// `%envreg0..31` (always 0).
    EnvReg(u8),
    /// `%pm0..7` (u32) and `%pm0_64..%pm7_64` (u64): always 0.
    Pm {
        n: u8,
        wide: bool,
    },
    /// `%reserved_smem_offset_{begin,end,cap,0,1}`: always 0 (no reserved shared memory).
    ReservedSmem(ReservedSmem),
}

/// `%lanemask_{eq,le,lt,ge,gt}`: bits of the lanes equal to, at or below, below, at or
/// above, above the reading lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneMask {
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
}

/// Which `%reserved_smem_offset_*` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReservedSmem {
    Begin,
    End,
    Cap,
    Offset0,
    Offset1,
}

impl SpecialReg {
    /// The register's width: 32, 64 (`%clock64 %globaltimer %gridid %pmN_64
    /// %current_graph_exec`) or 1 (`%is_explicit_cluster`, a predicate).
    pub fn bits(self) -> u32 {
        match self {
            SpecialReg::Clock64
            | SpecialReg::GlobalTimer
            | SpecialReg::GridId
            | SpecialReg::CurrentGraphExec
            | SpecialReg::Pm { wide: true, .. } => 64,
            SpecialReg::IsExplicitCluster => 1,
            _ => 32,
        }
    }

    /// The `mov` types other than the register's own width that PTX still accepts for
    /// legacy code: 16 bits for `%tid %ntid %ctaid %nctaid`, 16 or 32 for `%gridid`.
    pub fn legacy_bits(self) -> &'static [u32] {
        match self {
            SpecialReg::Tid(_)
            | SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_) => &[16],
            SpecialReg::GridId => &[16, 32],
            _ => &[],
        }
    }

    /// The value of registers that are the same constant everywhere on a CPU.
    pub fn constant(self) -> Option<u64> {
        match self {
            SpecialReg::CurrentGraphExec
            | SpecialReg::EnvReg(_)
            | SpecialReg::Pm { .. }
            | SpecialReg::ReservedSmem(_) => Some(0),
            _ => None,
        }
    }
}
