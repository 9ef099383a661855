//! The analysis on hand-built IR (the PTX-level tests are in `tests/shapes.rs`).

use super::*;
use crate::ir::{
    ArithOp, Block, BlockId, CmpOp, FloatMode, FuncKind, Guard, Inst, InstId, InstKind, Operand,
    PerfDirectives, RegInfo, SpecialReg, Terminator,
};

fn inst(kind: InstKind) -> Inst {
    Inst {
        guard: None,
        kind,
        id: InstId(0),
    }
}

fn func(regs: &[(&str, Type)], blocks: Vec<Block>) -> Function {
    Function {
        name: "k".into(),
        kind: FuncKind::Entry,
        linkage: Default::default(),
        params: vec![],
        rets: vec![],
        param_size: 0,
        regs: regs
            .iter()
            .map(|(n, t)| RegInfo {
                name: n.to_string(),
                ty: *t,
            })
            .collect(),
        blocks: blocks.into(),
        local_size: 0,
        local_align: 1,
        perf: PerfDirectives::default(),
        loc: Default::default(),
    }
}

fn jump(t: u32) -> Terminator {
    Terminator::Jump {
        target: BlockId(t),
        inst: None,
    }
}

fn mov(dst: u32, src: Operand) -> Inst {
    inst(InstKind::Mov {
        ty: Type::U32,
        dst: RegId(dst),
        src,
    })
}

/// b0: r0 = %laneid; p = r0 < 16; @p bra b2 else b1
/// b1: r1 = 7; r3 = %ctaid.x; bra b3      b2: r1 = 9; r3 = %ctaid.x; bra b3
/// b3: r2 = r1 + 1 (r1, r2 varying; r3 is uniform in each arm but meets varying too,
///     since the arms ran at different times: written in the region)
#[test]
fn divergent_if_else() {
    let setp = inst(InstKind::Setp {
        cmp: CmpOp::Lt,
        ty: Type::U32,
        ftz: false,
        dst: Some(RegId(4)),
        dst_neg: None,
        a: Operand::Reg(RegId(0)),
        b: Operand::Imm(16),
        combine: None,
    });
    let arm = |v: u64| Block {
        label: None,
        insts: vec![
            mov(1, Operand::Imm(v)),
            mov(3, Operand::Special(SpecialReg::Ctaid(crate::ir::Dim::X))),
        ],
        term: jump(3),
    };
    let add = inst(InstKind::Arith {
        op: ArithOp::Add,
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: RegId(2),
        srcs: vec![Operand::Reg(RegId(1)), Operand::Reg(RegId(0))],
    });
    let f = func(
        &[
            ("r0", Type::U32),
            ("r1", Type::U32),
            ("r2", Type::U32),
            ("r3", Type::U32),
            ("p", Type::Pred),
        ],
        vec![
            Block {
                label: None,
                insts: vec![mov(0, Operand::Special(SpecialReg::LaneId)), setp],
                term: Terminator::Branch {
                    guard: Guard {
                        pred: RegId(4),
                        negate: false,
                    },
                    taken: BlockId(2),
                    not_taken: BlockId(1),
                    uni: false,
                    inst: InstId(0),
                },
            },
            arm(7),
            arm(9),
            Block {
                label: None,
                insts: vec![add],
                term: Terminator::Exit {
                    guard: None,
                    next: None,
                    inst: InstId(0),
                },
            },
        ],
    );
    let s = Shapes::analyze(&f, LaunchShape::default());
    assert_eq!(s.terminator(BlockId(0)), Divergence::Divergent);
    assert_eq!(s.terminator(BlockId(1)), Divergence::Uniform);
    // r0 is written before it is read: not live at the entry, so no fact is kept.
    assert_eq!(s.block_entry(BlockId(0))[RegId(0)].shape, Shape::Varying);
    let e0 = s.before(&f, BlockId(0), 1);
    assert_eq!(e0[RegId(0)].shape, Shape::Affine(1));
    assert_eq!(s.before(&f, BlockId(1), 2)[RegId(1)].shape, Shape::Uniform);
    let j = s.block_entry(BlockId(3));
    assert_eq!(j[RegId(1)].shape, Shape::Varying);
    assert_eq!(j[RegId(3)].shape, Shape::Varying);
    // r0 was written before the split and is read at the join: still affine there.
    assert_eq!(j[RegId(0)].shape, Shape::Affine(1));
    assert_eq!(s.before(&f, BlockId(3), 1)[RegId(2)].shape, Shape::Varying);
    assert!(!s.convergent());
}

#[test]
fn facts_meet_and_hold() {
    let a = Fact::affine(4, 7, 32);
    assert_eq!(a.shape, Shape::Affine(4));
    assert_eq!(a.meet(Fact::affine(4, 5, 32)).tz, 5);
    assert_eq!(a.meet(Fact::affine(8, 7, 32)), Fact::VARYING);
    assert_eq!(Fact::UNIFORM.meet(a), Fact::VARYING);
    assert_eq!(Fact::affine(1 << 32, 0, 32), Fact::UNIFORM);
    assert!(a.holds(32, &[(0, 0x80), (1, 0x84), (31, 0x80 + 124)]));
    // Base 0x40 has only 6 known zero bits, not 7.
    assert!(!a.holds(32, &[(0, 0x40), (1, 0x44)]));
    assert!(Fact::constant(0, 32).holds(32, &[(3, 0), (9, 0)]));
    assert!(!Fact::constant(0, 32).holds(32, &[(3, 0), (9, 0x100)]));
}

/// A xorshift64 generator from `seed` (nonzero): the property tests' pseudo-random input.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// `%tid.x` in a launch of whole-row warps: lane `l` holds `32 w + l`.
const TID_X: Fact = Fact {
    shape: Shape::Affine(1),
    tz: 5,
    guarded: false,
};

#[test]
fn warp_and_lane_of_tid() {
    use super::transfer::{bitwise_fact, shr_fact, BitOp};
    let and_fact = |x, m, w| bitwise_fact(BitOp::And, x, Fact::constant(m, w), Some(m), w);
    // tid >> 5 (the warp) is uniform; tid & 31 (the lane) is 0 + l.
    let warp = shr_fact(TID_X, 5, 32, false).unwrap();
    assert_eq!(warp.shape, Shape::Uniform);
    assert_eq!(shr_fact(TID_X, 6, 32, true).unwrap().shape, Shape::Uniform);
    let lane = and_fact(TID_X, 31, 32).unwrap();
    assert_eq!(lane, Fact::affine(1, 64, 32));
    assert_eq!(and_fact(TID_X, !31, 32).unwrap().shape, Shape::Uniform);
    // tid >> 4: lanes 0-15 and 16-31 differ; tid & 15 wraps at lane 16.
    assert_eq!(shr_fact(TID_X, 4, 32, false), None);
    assert_eq!(and_fact(TID_X, 15, 32), None);
    // Byte offsets 4 × tid back to the index: affine with stride 1.
    let bytes = Fact::affine(4, 7, 32);
    assert_eq!(shr_fact(bytes, 2, 32, false), Some(Fact::affine(1, 5, 32)));
    // Triton's `pid << 10 | tid`: affine; `tid ^ 64`, `2 × lane | 1`: affine.
    let block = Fact {
        tz: 10,
        ..Fact::UNIFORM
    };
    let or = bitwise_fact(BitOp::Or, TID_X, block, None, 32);
    assert_eq!(or, Some(Fact::affine(1, 5, 32)));
    let xor = bitwise_fact(BitOp::Xor, TID_X, Fact::constant(64, 32), Some(64), 32);
    assert_eq!(xor, Some(Fact::affine(1, 5, 32)));
    let even = Fact::affine(2, 6, 32);
    let odd = bitwise_fact(BitOp::Or, even, Fact::constant(1, 32), Some(1), 32);
    assert_eq!(odd, Some(Fact::affine(2, 0, 32)));
    // `2 × lane & 510` keeps every lane bit; `tid ^ 16` does not.
    assert_eq!(and_fact(even, 510, 32), Some(Fact::affine(2, 6, 32)));
    let x16 = bitwise_fact(BitOp::Xor, TID_X, Fact::constant(16, 32), Some(16), 32);
    assert_eq!(x16, None);
}

/// Every fact the `shr`/`and`/`or`/`xor` rules give holds for the 32 lanes' values computed as the
/// ISA defines them, over pseudo-random bases with the known zero bits, strides, shift
/// counts and masks.
#[test]
fn shr_and_facts_hold() {
    use super::transfer::{bitwise_fact, shr_fact, BitOp};
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    let strides = [
        1u64,
        2,
        3,
        4,
        8,
        12,
        16,
        64,
        1 << 20,
        u64::MAX,
        u64::MAX - 3,
    ];
    let (mut shr_claims, mut and_claims) = (0, 0);
    for _ in 0..20_000 {
        let w = [16u32, 32, 64][(next() % 3) as usize];
        let m = crate::ops::mask(w);
        let s = strides[(next() % strides.len() as u64) as usize] & m;
        let tz = (next() % 40) as u32;
        let base = if tz >= 64 { 0 } else { (next() << tz) & m };
        let x = Fact::affine(s, tz, w);
        let lanes: Vec<u64> = (0..32u64)
            .map(|l| base.wrapping_add(l.wrapping_mul(s)) & m)
            .collect();
        assert!(x.holds(w, &lanes.iter().copied().enumerate().collect::<Vec<_>>()));
        let k = next() % u64::from(w);
        let signed = next().is_multiple_of(2);
        if let Some(f) = shr_fact(x, k, w, signed) {
            shr_claims += 1;
            let vals: Vec<(usize, u64)> = lanes
                .iter()
                .map(|&v| {
                    if signed {
                        (crate::ops::sext(v, w) >> k) as u64 & m
                    } else {
                        v >> k
                    }
                })
                .enumerate()
                .collect();
            assert!(
                f.holds(w, &vals),
                "shr {k} of {base:#x} + l*{s:#x} ({w} bits): {f:?}"
            );
        }
        let mask = match next() % 4 {
            0 => crate::ops::mask((next() % 12) as u32),
            1 => !crate::ops::mask((next() % 12) as u32),
            _ => next(),
        };
        // The other operand: an immediate, or a uniform register with known zero bits.
        let imm = next().is_multiple_of(2);
        let (u, c) = if imm {
            (Fact::constant(mask, w), Some(mask))
        } else {
            let tu = (next() % 12) as u32;
            (
                Fact {
                    tz: tu as u8,
                    ..Fact::UNIFORM
                },
                None,
            )
        };
        let uval = if imm { mask & m } else { (next() << u.tz) & m };
        for op in [BitOp::And, BitOp::Or, BitOp::Xor] {
            if let Some(f) = bitwise_fact(op, x, u, c, w) {
                and_claims += 1;
                let vals: Vec<(usize, u64)> = lanes
                    .iter()
                    .map(|&v| match op {
                        BitOp::And => v & uval,
                        BitOp::Or => v | uval,
                        BitOp::Xor => v ^ uval,
                    })
                    .enumerate()
                    .collect();
                assert!(
                    f.holds(w, &vals),
                    "{op:?} {uval:#x} of {base:#x} + l*{s:#x} ({w} bits): {f:?}"
                );
            }
        }
    }
    // The rules said something often enough for the check to mean something.
    assert!(
        shr_claims > 1000 && and_claims > 1000,
        "{shr_claims} {and_claims}"
    );
}

#[test]
fn setp_of_tid_against_warp_bounds() {
    use super::transfer::setp_uniform;
    let imm = |c: u64| (Fact::constant(c, 32), Operand::Imm(c));
    let tid = (TID_X, Operand::Reg(RegId(0)));
    let t = |cmp, ty, a: &(Fact, Operand), b: &(Fact, Operand)| {
        setp_uniform(cmp, ty, (a.0, &a.1), (b.0, &b.1))
    };
    // tid < 32, tid > 31, 64 <= tid: whole warps; tid < 16, tid == 0: not.
    assert!(t(CmpOp::Lt, Type::U32, &tid, &imm(32)));
    assert!(t(CmpOp::Gt, Type::U32, &tid, &imm(31)));
    assert!(t(CmpOp::Le, Type::S32, &imm(64), &tid));
    assert!(!t(CmpOp::Lt, Type::U32, &tid, &imm(16)));
    assert!(!t(CmpOp::Eq, Type::U32, &tid, &imm(0)));
    // tid < ntid with ntid a multiple of 32 (a uniform register with 5 known zeros).
    let ntid = (
        Fact {
            tz: 5,
            ..Fact::UNIFORM
        },
        Operand::Reg(RegId(1)),
    );
    assert!(t(CmpOp::Lt, Type::U32, &tid, &ntid));
    assert!(!t(CmpOp::Le, Type::U32, &tid, &ntid));
}

/// Every `setp` the rule calls uniform gives the 32 lanes one result, computed as the
/// ISA defines the compare, over pseudo-random bases, strides and bounds.
#[test]
fn setp_uniform_holds() {
    use super::transfer::setp_uniform;
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    let strides = [1u64, 2, 4, 3, 8, 1 << 20, u64::MAX];
    let cmps = [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Eq,
        CmpOp::Ne,
    ];
    let mut claims = 0;
    for _ in 0..50_000 {
        let ty = [
            Type::U16,
            Type::S16,
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
        ][(next() % 6) as usize];
        let w = ty.bits();
        let m = crate::ops::mask(w);
        let s = strides[(next() % strides.len() as u64) as usize] & m;
        let tz = (next() % 12) as u32;
        let base = (next() << tz) & m;
        let x = Fact::affine(s, tz, w);
        let c = match next() % 3 {
            0 => (next() << (next() % 12)) & m,
            1 => ((next() << (next() % 12)).wrapping_sub(1)) & m,
            _ => base.wrapping_add(next() % 64) & m,
        };
        let u = Fact::constant(c, w);
        let cmp = cmps[(next() % cmps.len() as u64) as usize];
        let swap = next().is_multiple_of(2);
        let (xo, uo) = (Operand::Reg(RegId(0)), Operand::Imm(c));
        let uniform = if swap {
            setp_uniform(cmp, ty, (u, &uo), (x, &xo))
        } else {
            setp_uniform(cmp, ty, (x, &xo), (u, &uo))
        };
        if !uniform {
            continue;
        }
        claims += 1;
        let key = |v: u64| -> i128 {
            if ty.is_signed() {
                i128::from(crate::ops::sext(v, w))
            } else {
                i128::from(v)
            }
        };
        let results: Vec<bool> = (0..32u64)
            .map(|l| {
                let v = key(base.wrapping_add(l.wrapping_mul(s)) & m);
                let (a, b) = if swap { (key(c), v) } else { (v, key(c)) };
                match cmp {
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                    CmpOp::Eq => a == b,
                    _ => a != b,
                }
            })
            .collect();
        assert!(
            results.iter().all(|&r| r == results[0]),
            "{cmp:?} {ty} swap {swap}: {base:#x} + l*{s:#x} vs {c:#x}"
        );
    }
    assert!(claims > 2000, "{claims}");
}
