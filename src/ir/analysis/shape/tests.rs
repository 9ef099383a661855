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
