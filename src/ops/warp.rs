//! Warp-wide operations (`shfl.sync vote.sync match.sync redux.sync activemask elect.sync
//! bar.warp.sync`): the whole warp's result from every lane's operands, shared by the
//! interpreter and the JIT's `ptxjit_warp` helper.
//!
//! The lanes that *run* the instruction are `mask` (active, guard true). Lane `l`'s result
//! is computed over its participants `mask & membermask[l]`. On a GPU every non-exited
//! lane of `membermask` must execute the same instruction; ptxjit runs the lanes of a warp
//! that are at the same instruction together (divergent paths reconverge at the earliest
//! point), so in a well-formed program the participants are exactly those lanes. A lane
//! that reads a register of a lane that is not running (`shfl` from an inactive lane) gets
//! whatever that register holds: the ISA leaves the value undefined.

use crate::ir::{ReduxOp, ShflMode, Type, VoteMode, WarpOp};

pub const WARP: usize = 32;

/// Operands of a warp operation: `srcs[k][lane]` as raw bits of the operand's type, and
/// the predicate source of `vote` as lane bits (negation applied).
pub struct WarpIn<'a> {
    pub mask: u32,
    pub srcs: &'a [[u64; WARP]],
    pub pred: u32,
}

/// Values (per lane, for the lanes in `mask`) and predicate bits of a warp operation.
pub struct WarpOut {
    pub vals: [u64; WARP],
    pub preds: u32,
}

/// Index in `srcs` of the `membermask` operand of `op` (`None`: no operand).
pub fn member_index(op: WarpOp) -> Option<usize> {
    match op {
        WarpOp::Shfl(_) => Some(3),
        WarpOp::Match { .. } | WarpOp::Redux(_) => Some(1),
        WarpOp::Vote(_) | WarpOp::Ballot | WarpOp::Elect | WarpOp::WarpSync => Some(0),
        WarpOp::Activemask => None,
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP).filter(move |l| mask >> l & 1 != 0)
}

/// The participants of lane `l`: the running lanes in its `membermask`.
fn participants(op: WarpOp, i: &WarpIn, l: usize) -> u32 {
    match member_index(op) {
        Some(k) => i.mask & i.srcs.get(k).map_or(u32::MAX, |m| m[l] as u32),
        None => i.mask,
    }
}

/// `shfl.sync`'s source lane for lane `lane` and whether it is in range (the ISA's
/// pseudo-code, with `j` as a signed integer).
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (lane_i, bval) = (lane as i64, (b & 31) as i64);
    let cval = (c & 31) as i64;
    let segmask = ((c >> 8) & 31) as i64;
    let max_lane = (lane_i & segmask) | (cval & !segmask);
    let min_lane = lane_i & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane_i - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane_i + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane_i ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    if pval && (0..WARP as i64).contains(&j) {
        (j as u32, true)
    } else {
        (lane, pval)
    }
}

/// Evaluates a warp operation for the lanes in `i.mask`.
pub fn eval(op: WarpOp, ty: Type, i: &WarpIn) -> WarpOut {
    let mut o = WarpOut {
        vals: [0; WARP],
        preds: 0,
    };
    let src = |k: usize, l: usize| i.srcs.get(k).map_or(0, |s| s[l]);
    // `redux` of the last participant set (lanes usually share theirs: one reduction
    // per warp instead of one per lane).
    let mut last_redux: Option<(u32, u64)> = None;
    // `match`: the participants of the last participant set grouped by value, sorted
    // (one sort per warp instead of a comparison of every lane with every lane).
    let mut last_groups: Option<(u32, Vec<(u64, u32)>)> = None;
    for l in lanes(i.mask) {
        let part = participants(op, i, l);
        let (v, p) = match op {
            WarpOp::Shfl(mode) => {
                let (j, p) = shfl_source(mode, l as u32, src(1, l) as u32, src(2, l) as u32);
                (src(0, j as usize) & 0xffff_ffff, p)
            }
            WarpOp::Vote(mode) => {
                let yes = part & i.pred;
                let p = match mode {
                    VoteMode::All => yes == part,
                    VoteMode::Any => yes != 0,
                    VoteMode::Uni => yes == 0 || yes == part,
                };
                (0, p)
            }
            WarpOp::Ballot => ((part & i.pred) as u64, false),
            WarpOp::Match { all } => {
                let groups = match &mut last_groups {
                    Some((p, g)) if *p == part => g,
                    slot => &mut slot.insert((part, value_groups(part, |k| src(0, k)))).1,
                };
                let a = src(0, l);
                let same = groups
                    .binary_search_by_key(&a, |&(v, _)| v)
                    .map_or(0, |k| groups[k].1);
                if all {
                    let p = same == part;
                    (if p { part as u64 } else { 0 }, p)
                } else {
                    (same as u64, false)
                }
            }
            WarpOp::Redux(r) => match last_redux {
                Some((p, v)) if p == part => (v, false),
                _ => {
                    let v = redux(r, ty, lanes(part).map(|k| src(0, k)));
                    last_redux = Some((part, v));
                    (v, false)
                }
            },
            WarpOp::Activemask => (i.mask as u64, false),
            WarpOp::Elect => {
                // The lowest participant leads (deterministic, as the ISA requires); a
                // lane outside its own membermask (undefined) elects itself.
                let leader = if part == 0 {
                    l as u32
                } else {
                    part.trailing_zeros()
                };
                (leader as u64, leader == l as u32)
            }
            WarpOp::WarpSync => (0, false),
        };
        o.vals[l] = v;
        if p {
            o.preds |= 1 << l;
        }
    }
    o
}

/// The lanes of `part` grouped by their value `val(lane)`: `(value, lanes)` sorted by value.
fn value_groups(part: u32, val: impl Fn(usize) -> u64) -> Vec<(u64, u32)> {
    let mut by_value: Vec<(u64, usize)> = lanes(part).map(|k| (val(k), k)).collect();
    by_value.sort_unstable();
    let mut groups: Vec<(u64, u32)> = Vec::with_capacity(by_value.len());
    for (v, k) in by_value {
        match groups.last_mut() {
            Some((last, m)) if *last == v => *m |= 1 << k,
            _ => groups.push((v, 1 << k)),
        }
    }
    groups
}

/// `redux.sync` over the participants' 32-bit values (`.add` wraps to 32 bits).
fn redux(op: ReduxOp, ty: Type, vals: impl Iterator<Item = u64>) -> u64 {
    let signed = ty == Type::S32;
    let key = |v: u64| {
        if signed {
            v as u32 as i32 as i64
        } else {
            v as u32 as i64
        }
    };
    let mut acc: Option<u64> = None;
    for v in vals.map(|v| v & 0xffff_ffff) {
        acc = Some(match acc {
            None => v,
            Some(a) => match op {
                ReduxOp::Add => (a as u32).wrapping_add(v as u32) as u64,
                ReduxOp::Min => {
                    if key(v) < key(a) {
                        v
                    } else {
                        a
                    }
                }
                ReduxOp::Max => {
                    if key(v) > key(a) {
                        v
                    } else {
                        a
                    }
                }
                ReduxOp::And => a & v,
                ReduxOp::Or => a | v,
                ReduxOp::Xor => a ^ v,
            },
        });
    }
    acc.unwrap_or(0)
}

/// Packs `(op, ty)` into the JIT helper's descriptor.
pub fn encode(op: WarpOp, ty: Type) -> u64 {
    let (code, sub) = match op {
        WarpOp::Shfl(m) => (0, m as u64),
        WarpOp::Vote(m) => (1, m as u64),
        WarpOp::Ballot => (2, 0),
        WarpOp::Match { all } => (3, all as u64),
        WarpOp::Redux(r) => (4, r as u64),
        WarpOp::Activemask => (5, 0),
        WarpOp::Elect => (6, 0),
        WarpOp::WarpSync => (7, 0),
    };
    let t = TYPES.iter().position(|&t| t == ty).unwrap_or(0xff) as u64;
    code | sub << 8 | t << 16
}

/// The instruction types of warp operations.
const TYPES: [Type; 4] = [Type::B32, Type::B64, Type::U32, Type::S32];

/// Inverse of [`encode`].
pub fn decode(d: u64) -> Option<(WarpOp, Type)> {
    let sub = d >> 8 & 0xff;
    let ty = *TYPES.get((d >> 16 & 0xff) as usize)?;
    let shfl = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
    let vote = [VoteMode::All, VoteMode::Any, VoteMode::Uni];
    let redux = [
        ReduxOp::Add,
        ReduxOp::Min,
        ReduxOp::Max,
        ReduxOp::And,
        ReduxOp::Or,
        ReduxOp::Xor,
    ];
    let op = match d & 0xff {
        0 => WarpOp::Shfl(*shfl.get(sub as usize)?),
        1 => WarpOp::Vote(*vote.get(sub as usize)?),
        2 => WarpOp::Ballot,
        3 => WarpOp::Match { all: sub != 0 },
        4 => WarpOp::Redux(*redux.get(sub as usize)?),
        5 => WarpOp::Activemask,
        6 => WarpOp::Elect,
        7 => WarpOp::WarpSync,
        _ => return None,
    };
    Some((op, ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CUDA idioms: `__shfl_down_sync(m, v, d)` is `c = 0x1f`, `__shfl_up_sync` is
    /// `c = 0`, `__shfl_xor_sync` `c = 0x1f`, `__shfl_sync(m, v, src, w)` is
    /// `c = ((32 - w) << 8) | 0x1f`.
    #[test]
    fn shfl_sources() {
        // down by 4: lane 27 reads 31, lane 28 keeps its own (32 > maxLane 31).
        assert_eq!(shfl_source(ShflMode::Down, 27, 4, 0x1f), (31, true));
        assert_eq!(shfl_source(ShflMode::Down, 28, 4, 0x1f), (28, false));
        // up by 3: lane 3 reads 0, lane 2 keeps its own (-1 < minLane 0).
        assert_eq!(shfl_source(ShflMode::Up, 3, 3, 0), (0, true));
        assert_eq!(shfl_source(ShflMode::Up, 2, 3, 0), (2, false));
        // idx with width 8 (segmask 0x18): lane 13 asking for lane 2 reads 8 + 2.
        assert_eq!(
            shfl_source(ShflMode::Idx, 13, 2, (24 << 8) | 0x1f),
            (10, true)
        );
        // bfly 16 within width 16 (c = (16 << 8) | 0x1f): 16 & ~0x10 = 0 ... lane 5 ^ 16
        // = 21 > maxLane (5 & 0x10) | (0x1f & ~0x10) = 15: stays.
        assert_eq!(
            shfl_source(ShflMode::Bfly, 5, 16, (16 << 8) | 0x1f),
            (5, false)
        );
        assert_eq!(
            shfl_source(ShflMode::Bfly, 5, 8, (16 << 8) | 0x1f),
            (13, true)
        );
        // up with width 8 (c = 24 << 8): lane 9 up by 2 -> 7 < segment start 8: stays.
        assert_eq!(shfl_source(ShflMode::Up, 9, 2, 24 << 8), (9, false));
        assert_eq!(shfl_source(ShflMode::Up, 11, 2, 24 << 8), (9, true));
    }

    #[test]
    fn encode_round_trips() {
        for op in [
            WarpOp::Shfl(ShflMode::Idx),
            WarpOp::Vote(VoteMode::Uni),
            WarpOp::Ballot,
            WarpOp::Match { all: true },
            WarpOp::Redux(ReduxOp::Xor),
            WarpOp::Activemask,
            WarpOp::Elect,
            WarpOp::WarpSync,
        ] {
            for ty in TYPES {
                assert_eq!(decode(encode(op, ty)), Some((op, ty)));
            }
        }
    }
}
