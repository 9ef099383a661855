//! The asynchronous-copy and transaction-barrier operations of [`InstKind::Async`]
//! (`cp.async`, `cp.async.bulk`, `cp.async.mbarrier.arrive`, `mbarrier.*`), part of the
//! synchronisation family: their operand layout and types, declared once here, and the
//! descriptor encoding the JIT passes to its helper. Semantics: `crate::exec::asyncop`.
//!
//! [`InstKind::Async`]: super::InstKind::Async

use super::*;

/// An asynchronous-copy or mbarrier operation. Every operation has up to three
/// addresses (`addrs` of [`InstKind::Async`], each in its own state space) and the
/// sources [`AsyncOp::src_types`] lists; [`AsyncOp::dst_type`] is its result, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncOp {
    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], size{, src_size}` and the
    /// `ignore-src` form: addrs `[dst (shared), src (global)]`; srcs `[src_size]` when
    /// `src_size` (bytes read, the rest of `size` zero-filled), `[ignore]` (a predicate
    /// read as `.u32`: nonzero zero-fills everything) when `ignore_src`.
    CpAsync {
        size: u8,
        src_size: bool,
        ignore_src: bool,
    },
    /// `cp.async.bulk.dst.src{.mbarrier::complete_tx::bytes} [dst], [src], size{, [mbar]}`:
    /// addrs `[dst, src]` (plus `[mbar]` when `complete_tx`), srcs `[size]`.
    CpBulk { complete_tx: bool },
    /// `cp.async.mbarrier.arrive{.noinc}.b64 [mbar]`: addrs `[mbar]`.
    CpAsyncArrive { noinc: bool },
    /// `mbarrier.init.b64 [mbar], count`: srcs `[count]`.
    Init,
    /// `mbarrier.inval.b64 [mbar]`.
    Inval,
    /// `mbarrier.arrive{_drop}{.expect_tx}{.noComplete}.b64 state, [mbar]{, count|tx}`:
    /// srcs `[count]` (1 when absent) and, with `expect_tx`, `[tx]` instead (count 1).
    Arrive { drop: bool, expect_tx: bool },
    /// `mbarrier.expect_tx.b64 [mbar], tx`: srcs `[tx]`.
    ExpectTx,
    /// `mbarrier.complete_tx.b64 [mbar], tx`: srcs `[tx]`.
    CompleteTx,
    /// `mbarrier.{test,try}_wait{.parity}.b64 p, [mbar], state|parity{, hint}`: srcs
    /// `[state]` (`.b64`) or `[parity]` (`.u32`); the result is 1 when the phase has
    /// completed (a `.u32` that `check` turns into the predicate). `try_wait` lets the
    /// CTA's other warps run before it answers.
    Wait { parity: bool, try_wait: bool },
    /// `mbarrier.pending_count.b64 count, state`: no address; srcs `[state]`.
    PendingCount,
    /// `atom{.space}.{cas,exch}.b128 d, [a], b{, c}` (sm_90), here because it shares
    /// the helper's shape (two results): srcs `[b.lo, b.hi]` (exch) or `[b.lo, b.hi,
    /// c.lo, c.hi]` (cas, `b` compared, `c` stored), results `[old.lo, old.hi]`; one
    /// 128-bit host atomic per lane, lanes in ascending order.
    Atom128 { cas: bool },
    /// `mapa{.shared::cluster}.{u32,u64} d, a, b` (clusters, `crate::exec::cluster`):
    /// addrs `[a]` (`.shared::cluster` or generic), srcs `[b]` (the target rank); the
    /// result (`.u64` when `wide`) is the address of the same byte in CTA `b`.
    Mapa { wide: bool },
    /// `getctarank{.shared::cluster}.{u32,u64} d, a`: addrs `[a]`; the result is the
    /// rank of the CTA whose shared memory holds `a`.
    GetCtaRank,
    /// `cvta.shared::cluster.size d, a` (`to_generic`) and `cvta.to.shared::cluster.size
    /// d, a`: addrs `[a]` (`.shared::cluster` resp. generic); `wide` for `.u64`.
    ClusterCvta { to_generic: bool, wide: bool },
    /// `barrier.cluster.arrive{.release,.relaxed}{.aligned}`: no operands.
    ClusterArrive,
    /// `barrier.cluster.wait{.acquire}{.aligned}`: no operands.
    ClusterWait,
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
    /// [dst], [src], size, [mbar], ctaMask`: addrs `[dst, src, mbar]` (`.shared::cluster`,
    /// `.global`, `.shared::cluster`), srcs `[size, ctaMask]`; the bytes and the
    /// complete-tx go to the same offsets in each CTA whose rank is set in `ctaMask`
    /// (`crate::exec::bulk`).
    CpBulkMulticast,
    /// `cp.reduce.async.bulk.dst.src.completion.op.type [dst], [src], size{, [mbar]}`:
    /// addrs `[dst, src]` (plus `[mbar]` when `complete_tx`), srcs `[size]`; each
    /// element of `dst` becomes `op(dst, src)` (`crate::ops::atomic::apply`).
    CpReduceBulk {
        op: AtomOp,
        ty: Type,
        complete_tx: bool,
    },
    /// `st.async{.shared::cluster}.mbarrier::complete_tx::bytes{.vec}.type [a], b, [mbar]`:
    /// addrs `[a, mbar]`, srcs the `nvec` elements of `b` (`.u32` or `.b64` slots).
    StAsync { ty: Type, nvec: u8 },
    /// `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type
    /// [a], b, [mbar]`: addrs `[a, mbar]`, srcs `[b]`.
    RedAsync { op: AtomOp, ty: Type },
    /// `cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
    /// [dst], [tmap, {c0, ...}], [mbar]` (`crate::exec::tma`): addrs `[dst
    /// (.shared::cluster), tmap (generic), mbar (.shared::cluster)]`, srcs the `dim`
    /// coordinates (`.s32`).
    CpTensorLoad { dim: u8 },
    /// `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tmap, {c0, ...}],
    /// [src]` (`red` none) and `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op
    /// {.tile}.bulk_group` (`red` the operation): addrs `[tmap (generic), src (.shared)]`,
    /// srcs the `dim` coordinates.
    CpTensorStore { dim: u8, red: Option<AtomOp> },
    /// `tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val`
    /// (`crate::exec::tma`): addrs `[addr]`, srcs `[new_val]` (`.b64`); `field` is the
    /// index of the field in [`TENSORMAP_FIELDS`], `ord` the dimension (0 for fields
    /// that have none).
    TensormapReplace { field: u8, ord: u8 },
}

/// The fields `tensormap.replace` names, in the order of their codes.
pub const TENSORMAP_FIELDS: [&str; 10] = [
    "global_address",
    "rank",
    "box_dim",
    "global_dim",
    "global_stride",
    "element_stride",
    "elemtype",
    "interleave_layout",
    "swizzle_mode",
    "fill_mode",
];

/// Tensor coordinates (`.s32`, up to five).
static COORDS: [Type; 5] = [Type::S32; 5];

/// Sources of 32-bit and 64-bit elements (`st.async` takes up to four).
static U32S: [Type; 4] = [Type::U32; 4];
static B64S: [Type; 4] = [Type::B64; 4];

/// `n` element sources of type `ty` (`.u32` slots for 32-bit types, `.b64` for 64-bit).
fn elems(ty: Type, n: usize) -> &'static [Type] {
    let all: &'static [Type; 4] = if ty.bits() == 64 { &B64S } else { &U32S };
    &all[..n.min(4)]
}

impl AsyncOp {
    /// The number of addresses the operation takes.
    pub fn naddrs(self) -> usize {
        match self {
            AsyncOp::CpAsync { .. } => 2,
            AsyncOp::CpBulk { complete_tx } | AsyncOp::CpReduceBulk { complete_tx, .. } => {
                2 + complete_tx as usize
            }
            AsyncOp::CpBulkMulticast | AsyncOp::CpTensorLoad { .. } => 3,
            AsyncOp::CpTensorStore { .. } => 2,
            AsyncOp::StAsync { .. } | AsyncOp::RedAsync { .. } => 2,
            AsyncOp::TensormapReplace { .. } => 1,
            AsyncOp::PendingCount | AsyncOp::ClusterArrive | AsyncOp::ClusterWait => 0,
            _ => 1,
        }
    }

    /// The types of the sources, in order.
    pub fn src_types(self) -> &'static [Type] {
        match self {
            AsyncOp::CpAsync {
                src_size: false,
                ignore_src: false,
                ..
            }
            | AsyncOp::CpAsyncArrive { .. }
            | AsyncOp::Inval
            | AsyncOp::GetCtaRank
            | AsyncOp::ClusterCvta { .. }
            | AsyncOp::ClusterArrive
            | AsyncOp::ClusterWait => &[],
            AsyncOp::CpAsync { .. }
            | AsyncOp::CpBulk { .. }
            | AsyncOp::Init
            | AsyncOp::Arrive { .. }
            | AsyncOp::ExpectTx
            | AsyncOp::CompleteTx
            | AsyncOp::Mapa { .. }
            | AsyncOp::Wait { parity: true, .. } => &[Type::U32],
            AsyncOp::Wait { parity: false, .. }
            | AsyncOp::PendingCount
            | AsyncOp::TensormapReplace { .. } => &[Type::B64],
            AsyncOp::Atom128 { cas: false } => &[Type::B64, Type::B64],
            AsyncOp::Atom128 { cas: true } => &[Type::B64; 4],
            AsyncOp::CpBulkMulticast => &[Type::U32, Type::U16],
            AsyncOp::CpReduceBulk { .. } => &[Type::U32],
            AsyncOp::StAsync { ty, nvec } => elems(ty, nvec as usize),
            AsyncOp::RedAsync { ty, .. } => elems(ty, 1),
            AsyncOp::CpTensorLoad { dim } | AsyncOp::CpTensorStore { dim, .. } => {
                &COORDS[..(dim as usize).min(5)]
            }
        }
    }

    /// The types of the results.
    pub fn dst_types(self) -> &'static [Type] {
        match self {
            AsyncOp::Arrive { .. } => &[Type::B64],
            AsyncOp::Wait { .. } | AsyncOp::PendingCount | AsyncOp::GetCtaRank => &[Type::U32],
            AsyncOp::Mapa { wide: false } | AsyncOp::ClusterCvta { wide: false, .. } => {
                &[Type::U32]
            }
            AsyncOp::Mapa { wide: true } | AsyncOp::ClusterCvta { wide: true, .. } => &[Type::U64],
            AsyncOp::Atom128 { .. } => &[Type::B64, Type::B64],
            _ => &[],
        }
    }

    /// Whether the operation may let the CTA's other warps run (the scheduler must run
    /// the kernel's warps in coroutines).
    pub fn polls(self) -> bool {
        matches!(
            self,
            AsyncOp::Wait { .. } | AsyncOp::ClusterArrive | AsyncOp::ClusterWait
        )
    }

    /// Whether the operation belongs to `crate::exec::cluster` (clusters).
    pub fn is_cluster(self) -> bool {
        matches!(
            self,
            AsyncOp::Mapa { .. }
                | AsyncOp::GetCtaRank
                | AsyncOp::ClusterCvta { .. }
                | AsyncOp::ClusterArrive
                | AsyncOp::ClusterWait
        )
    }

    /// Whether the operation's addresses may be `.shared::cluster` ones (another CTA's
    /// shared memory).
    pub fn cluster_space_ok(self) -> bool {
        self.is_cluster()
            || matches!(
                self,
                AsyncOp::CpBulk { .. }
                    | AsyncOp::CpAsyncArrive { .. }
                    | AsyncOp::Init
                    | AsyncOp::Inval
                    | AsyncOp::Arrive { .. }
                    | AsyncOp::ExpectTx
                    | AsyncOp::CompleteTx
                    | AsyncOp::Wait { .. }
                    | AsyncOp::CpBulkMulticast
                    | AsyncOp::CpReduceBulk { .. }
                    | AsyncOp::StAsync { .. }
                    | AsyncOp::RedAsync { .. }
                    | AsyncOp::CpTensorLoad { .. }
            )
    }

    /// The operation as one integer (the JIT helper's descriptor).
    pub fn encode(self) -> u64 {
        let b = |x: bool| x as u64;
        match self {
            AsyncOp::CpAsync {
                size,
                src_size,
                ignore_src,
            } => size as u64 | b(src_size) << 8 | b(ignore_src) << 9,
            AsyncOp::CpBulk { complete_tx } => 1 << 16 | b(complete_tx),
            AsyncOp::CpAsyncArrive { noinc } => 2 << 16 | b(noinc),
            AsyncOp::Init => 3 << 16,
            AsyncOp::Inval => 4 << 16,
            AsyncOp::Arrive { drop, expect_tx } => 5 << 16 | b(drop) | b(expect_tx) << 1,
            AsyncOp::ExpectTx => 6 << 16,
            AsyncOp::CompleteTx => 7 << 16,
            AsyncOp::Wait { parity, try_wait } => 8 << 16 | b(parity) | b(try_wait) << 1,
            AsyncOp::PendingCount => 9 << 16,
            AsyncOp::Atom128 { cas } => 10 << 16 | b(cas),
            AsyncOp::Mapa { wide } => 11 << 16 | b(wide),
            AsyncOp::GetCtaRank => 12 << 16,
            AsyncOp::ClusterCvta { to_generic, wide } => 13 << 16 | b(to_generic) | b(wide) << 1,
            AsyncOp::ClusterArrive => 14 << 16,
            AsyncOp::ClusterWait => 15 << 16,
            AsyncOp::CpBulkMulticast => 16 << 16,
            AsyncOp::CpReduceBulk {
                op,
                ty,
                complete_tx,
            } => 17 << 16 | op.code() | ty.code() << 4 | b(complete_tx) << 9,
            AsyncOp::StAsync { ty, nvec } => 18 << 16 | ty.code() | (nvec as u64) << 5,
            AsyncOp::RedAsync { op, ty } => 19 << 16 | op.code() | ty.code() << 4,
            AsyncOp::CpTensorLoad { dim } => 20 << 16 | dim as u64,
            AsyncOp::CpTensorStore { dim, red } => {
                let r = red.map_or(0, |o| 1 << 3 | o.code() << 4);
                21 << 16 | dim as u64 & 7 | r
            }
            AsyncOp::TensormapReplace { field, ord } => {
                22 << 16 | (field as u64 & 0xff) | (ord as u64 & 0xff) << 8
            }
        }
    }

    /// Inverse of [`AsyncOp::encode`].
    pub fn decode(c: u64) -> Option<AsyncOp> {
        let bit = |k: u32| c >> k & 1 != 0;
        Some(match c >> 16 {
            0 => AsyncOp::CpAsync {
                size: (c & 0xff) as u8,
                src_size: bit(8),
                ignore_src: bit(9),
            },
            1 => AsyncOp::CpBulk {
                complete_tx: bit(0),
            },
            2 => AsyncOp::CpAsyncArrive { noinc: bit(0) },
            3 => AsyncOp::Init,
            4 => AsyncOp::Inval,
            5 => AsyncOp::Arrive {
                drop: bit(0),
                expect_tx: bit(1),
            },
            6 => AsyncOp::ExpectTx,
            7 => AsyncOp::CompleteTx,
            8 => AsyncOp::Wait {
                parity: bit(0),
                try_wait: bit(1),
            },
            9 => AsyncOp::PendingCount,
            10 => AsyncOp::Atom128 { cas: bit(0) },
            11 => AsyncOp::Mapa { wide: bit(0) },
            12 => AsyncOp::GetCtaRank,
            13 => AsyncOp::ClusterCvta {
                to_generic: bit(0),
                wide: bit(1),
            },
            14 => AsyncOp::ClusterArrive,
            15 => AsyncOp::ClusterWait,
            16 => AsyncOp::CpBulkMulticast,
            17 => AsyncOp::CpReduceBulk {
                op: AtomOp::from_code(c & 0xf)?,
                ty: Type::from_code(c >> 4 & 0x1f)?,
                complete_tx: bit(9),
            },
            18 => AsyncOp::StAsync {
                ty: Type::from_code(c & 0x1f)?,
                nvec: (c >> 5 & 0x7) as u8,
            },
            19 => AsyncOp::RedAsync {
                op: AtomOp::from_code(c & 0xf)?,
                ty: Type::from_code(c >> 4 & 0x1f)?,
            },
            20 => AsyncOp::CpTensorLoad { dim: (c & 7) as u8 },
            21 => AsyncOp::CpTensorStore {
                dim: (c & 7) as u8,
                red: match bit(3) {
                    true => Some(AtomOp::from_code(c >> 4 & 0xf)?),
                    false => None,
                },
            },
            22 => AsyncOp::TensormapReplace {
                field: (c & 0xff) as u8,
                ord: (c >> 8 & 0xff) as u8,
            },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip() {
        let ops = [
            AsyncOp::CpAsync {
                size: 16,
                src_size: true,
                ignore_src: false,
            },
            AsyncOp::CpAsync {
                size: 4,
                src_size: false,
                ignore_src: true,
            },
            AsyncOp::CpBulk { complete_tx: true },
            AsyncOp::CpAsyncArrive { noinc: true },
            AsyncOp::Init,
            AsyncOp::Inval,
            AsyncOp::Arrive {
                drop: true,
                expect_tx: true,
            },
            AsyncOp::ExpectTx,
            AsyncOp::CompleteTx,
            AsyncOp::Wait {
                parity: true,
                try_wait: false,
            },
            AsyncOp::PendingCount,
            AsyncOp::Atom128 { cas: true },
            AsyncOp::Mapa { wide: true },
            AsyncOp::GetCtaRank,
            AsyncOp::ClusterCvta {
                to_generic: false,
                wide: true,
            },
            AsyncOp::ClusterArrive,
            AsyncOp::ClusterWait,
            AsyncOp::CpBulkMulticast,
            AsyncOp::CpReduceBulk {
                op: AtomOp::Dec,
                ty: Type::BF16,
                complete_tx: true,
            },
            AsyncOp::CpReduceBulk {
                op: AtomOp::Xor,
                ty: Type::B64,
                complete_tx: false,
            },
            AsyncOp::StAsync {
                ty: Type::F64,
                nvec: 2,
            },
            AsyncOp::StAsync {
                ty: Type::S32,
                nvec: 4,
            },
            AsyncOp::RedAsync {
                op: AtomOp::Max,
                ty: Type::S32,
            },
            AsyncOp::CpTensorLoad { dim: 5 },
            AsyncOp::CpTensorStore { dim: 1, red: None },
            AsyncOp::CpTensorStore {
                dim: 3,
                red: Some(AtomOp::Xor),
            },
            AsyncOp::TensormapReplace { field: 9, ord: 4 },
        ];
        for op in ops {
            assert_eq!(AsyncOp::decode(op.encode()), Some(op));
        }
    }
}
