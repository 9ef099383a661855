//! Lowering details: every immediate form, operand-size rules, instruction modes, and the
//! CFG (block splitting, terminators, reverse post-order, unreachable blocks).

use ptxjit::check::{parse_and_check, validate};
use ptxjit::ir::*;

const HEAD: &str = ".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .pred %p<4>;
\t.reg .b16 %rs<4>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\t.reg .f32 %f<4>;
\t.reg .f64 %fd<4>;
";

fn module(body: &str) -> Module {
    let src = format!("{HEAD}{body}\n}}\n");
    let m = parse_and_check(&src, "l.ptx").unwrap_or_else(|e| panic!("{e}"));
    validate(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

/// The instructions of the kernel's first block.
fn insts(body: &str) -> Vec<InstKind> {
    let m = module(body);
    m.functions[FuncId(0)].blocks[BlockId(0)]
        .insts
        .iter()
        .map(|i| i.kind.clone())
        .collect()
}

/// The source operand of a single `mov`.
fn mov_imm(line: &str) -> u64 {
    match insts(line).as_slice() {
        [InstKind::Mov {
            src: Operand::Imm(v),
            ..
        }] => *v,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn integer_immediates() {
    assert_eq!(mov_imm("\tmov.u32 %r1, 42;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 0x2A;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 0X2a;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 052;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 0b101010;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 42U;"), 42);
    assert_eq!(mov_imm("\tmov.u32 %r1, 0;"), 0);
    assert_eq!(mov_imm("\tmov.u32 %r1, -1;"), 0xFFFF_FFFF);
    assert_eq!(mov_imm("\tmov.s32 %r1, -2147483648;"), 0x8000_0000);
    assert_eq!(mov_imm("\tmov.u64 %rd1, -1;"), u64::MAX);
    assert_eq!(mov_imm("\tmov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;"), u64::MAX);
    assert_eq!(mov_imm("\tmov.u16 %rs1, 70000;"), 70000 & 0xFFFF);
    assert_eq!(mov_imm("\tmov.b16 %rs1, -2;"), 0xFFFE);
    assert_eq!(mov_imm("\tmov.u32 %r1, WARP_SZ;"), 32);
    assert_eq!(mov_imm("\tmov.u32 %r1, 1 + 2 * 3 - (8 >> 1);"), 3);
    assert_eq!(mov_imm("\tmov.u32 %r1, (~0 & 0xF0 ^ 3);"), 0xF3);
    assert_eq!(mov_imm("\tmov.s32 %r1, -7 / 2;"), (-3i32) as u32 as u64);
    assert_eq!(mov_imm("\tmov.s32 %r1, -7 % 3;"), (-1i32) as u32 as u64);
    assert_eq!(mov_imm("\tmov.u32 %r1, 0xFFFFFFFFU >> 4;"), 0x0FFF_FFFF);
    assert_eq!(mov_imm("\tmov.u32 %r1, WARP_SZ - 1;"), 31);
    assert_eq!(mov_imm("\tmov.u32 %r1, !5;"), 0);
    assert_eq!(mov_imm("\tmov.pred %p1, 1;"), 1);
}

#[test]
fn float_immediates() {
    assert_eq!(mov_imm("\tmov.f32 %f1, 0f3F800000;"), 0x3F80_0000);
    assert_eq!(mov_imm("\tmov.f32 %f1, 0F7FC00001;"), 0x7FC0_0001);
    assert_eq!(
        mov_imm("\tmov.f64 %fd1, 0d3FF0000000000000;"),
        1.0f64.to_bits()
    );
    assert_eq!(
        mov_imm("\tmov.f64 %fd1, 0D7FF0000000000000;"),
        f64::INFINITY.to_bits()
    );
    assert_eq!(mov_imm("\tmov.f32 %f1, 1.5;"), 1.5f32.to_bits() as u64);
    assert_eq!(mov_imm("\tmov.f32 %f1, 1e-3;"), 1e-3f32.to_bits() as u64);
    assert_eq!(
        mov_imm("\tmov.f32 %f1, -2.5E2;"),
        (-250.0f32).to_bits() as u64
    );
    assert_eq!(
        mov_imm("\tmov.f32 %f1, 1e40;"),
        f32::INFINITY.to_bits() as u64
    );
    assert_eq!(mov_imm("\tmov.f64 %fd1, 0.1;"), 0.1f64.to_bits());
    assert_eq!(
        mov_imm("\tmov.f64 %fd1, -0d3FF0000000000000;"),
        (-1.0f64).to_bits()
    );
    assert_eq!(mov_imm("\tmov.f64 %fd1, 1.5 * 2;"), 3.0f64.to_bits());
    // Integer literals are not float operands: ptxas 12.9 answers "Arguments mismatch"
    // for each of these.
    for line in [
        "\tmov.f32 %f1, 3;",
        "\tmov.f32 %f1, -1;",
        "\tmov.f64 %fd1, 0xFFFFFFFFFFFFFFFF;",
    ] {
        let src = format!("{HEAD}{line}\n}}\n");
        let e = parse_and_check(&src, "l.ptx").expect_err(line).to_string();
        assert!(
            e.contains("an integer constant cannot be a .f"),
            "{line}: {e}"
        );
    }
    // 0f in an f64 instruction is widened exactly, 0d in an f32 one rounded to nearest.
    assert_eq!(
        mov_imm("\tmov.f64 %fd1, 0f3DCCCCCD;"),
        (f32::from_bits(0x3DCC_CCCD) as f64).to_bits()
    );
    assert_eq!(
        mov_imm("\tmov.f32 %f1, 0d3FB999999999999A;"),
        0.1f32.to_bits() as u64
    );
    // NaN payloads survive conversions between precisions.
    assert_eq!(
        mov_imm("\tmov.f64 %fd1, 0f7FC00001;"),
        0x7FF8_0000_2000_0000
    );
    // Bit types take 0f/0d of their size as raw bits.
    assert_eq!(mov_imm("\tmov.b32 %r1, 0f3F800000;"), 0x3F80_0000);
    assert_eq!(
        mov_imm("\tmov.b64 %rd1, 0d3FF0000000000000;"),
        1.0f64.to_bits()
    );
    match insts("\tsetp.eq.f32 %p1, %f1, 0f00000000;").as_slice() {
        [InstKind::Setp {
            b: Operand::Imm(0),
            ty: Type::F32,
            ..
        }] => {}
        other => panic!("{other:?}"),
    }
    match insts("\tadd.f64 %fd1, %fd1, 1.0;").as_slice() {
        [InstKind::Arith { srcs, .. }] => assert_eq!(srcs[1], Operand::Imm(1.0f64.to_bits())),
        other => panic!("{other:?}"),
    }
}

#[test]
fn special_registers() {
    let ks = insts(
        "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r1, %ntid.y;\n\tmov.u32 %r1, %ctaid.z;\n\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r1, %laneid;\n\tmov.u32 %r1, %warpid;\n\tmov.u32 %r1, %nwarpid;\n\tmov.u16 %rs1, %tid.y;\n\tmov.u32 %r1, %tid.w;\n\tcvt.u64.u32 %rd1, %ctaid.x;",
    );
    let srcs: Vec<Operand> = ks
        .iter()
        .map(|k| match k {
            InstKind::Mov { src, .. } | InstKind::Cvt { src, .. } => *src,
            other => panic!("{other:?}"),
        })
        .collect();
    use SpecialReg::*;
    assert_eq!(
        srcs,
        [
            Operand::Special(Tid(Dim::X)),
            Operand::Special(Ntid(Dim::Y)),
            Operand::Special(Ctaid(Dim::Z)),
            Operand::Special(Nctaid(Dim::X)),
            Operand::Special(LaneId),
            Operand::Special(WarpId),
            Operand::Special(NWarpId),
            Operand::Special(Tid(Dim::Y)),
            Operand::Imm(0),
            Operand::Special(Ctaid(Dim::X)),
        ]
    );
}

#[test]
fn arithmetic_modes() {
    let ks = insts(
        "\tmul.f32 %f1, %f2, %f3;
\tmul.rz.ftz.sat.f32 %f1, %f2, %f3;
\tdiv.rn.f32 %f1, %f2, %f3;
\tdiv.full.ftz.f32 %f1, %f2, %f3;
\tdiv.approx.f32 %f1, %f2, %f3;
\tdiv.rm.f64 %fd1, %fd2, %fd3;
\tfma.rn.f64 %fd1, %fd2, %fd3, %fd1;
\tmad.rp.f32 %f1, %f2, %f3, %f1;
\tmul.hi.u32 %r1, %r2, %r3;
\tmul.wide.u16 %r1, %rs1, %rs2;
\tmad.wide.s32 %rd1, %r1, %r2, %rd2;
\tmad.hi.s64 %rd1, %rd2, %rd3, %rd4;
\tneg.f32 %f1, %f1;
\tabs.ftz.f32 %f1, %f1;
\tneg.s64 %rd1, %rd1;
\tmin.u16 %rs1, %rs2, %rs3;
\tmax.ftz.f32 %f1, %f2, %f3;
\tnot.pred %p1, %p2;
\tand.b32 %r1, %r2, 0xFF;
\txor.pred %p1, %p2, %p3;
\tshr.s32 %r1, %r2, 3;
\tshl.b64 %rd1, %rd2, %r1;
\tsub.f32 %f1, %f1, 0f3F800000;",
    );
    let got: Vec<(ArithOp, Type, FloatMode)> = ks
        .iter()
        .map(|k| match k {
            InstKind::Arith { op, ty, fmode, .. } => (*op, *ty, *fmode),
            other => panic!("{other:?}"),
        })
        .collect();
    let fm = |rnd: Option<Rnd>, ftz: bool, sat: bool| FloatMode { rnd, ftz, sat };
    let d = FloatMode::default();
    use ArithOp::*;
    assert_eq!(
        got,
        [
            (Mul(MulMode::Lo), Type::F32, d),
            (Mul(MulMode::Lo), Type::F32, fm(Some(Rnd::Rz), true, true)),
            (
                Div(DivMode::Ieee),
                Type::F32,
                fm(Some(Rnd::Rn), false, false)
            ),
            (Div(DivMode::Full), Type::F32, fm(None, true, false)),
            (Div(DivMode::Approx), Type::F32, d),
            (
                Div(DivMode::Ieee),
                Type::F64,
                fm(Some(Rnd::Rm), false, false)
            ),
            (Fma, Type::F64, fm(Some(Rnd::Rn), false, false)),
            (Mad(MulMode::Lo), Type::F32, fm(Some(Rnd::Rp), false, false)),
            (Mul(MulMode::Hi), Type::U32, d),
            (Mul(MulMode::Wide), Type::U16, d),
            (Mad(MulMode::Wide), Type::S32, d),
            (Mad(MulMode::Hi), Type::S64, d),
            (Neg, Type::F32, d),
            (Abs, Type::F32, fm(None, true, false)),
            (Neg, Type::S64, d),
            (Min, Type::U16, d),
            (Max, Type::F32, fm(None, true, false)),
            (Not, Type::Pred, d),
            (And, Type::B32, d),
            (Xor, Type::Pred, d),
            (Shr, Type::S32, d),
            (Shl, Type::B64, d),
            (Sub, Type::F32, d),
        ]
    );
}

#[test]
fn comparisons() {
    let ks = insts(
        "\tsetp.lo.u32 %p1, %r1, %r2;
\tsetp.hs.u64 %p1, %rd1, %rd2;
\tsetp.ne.b16 %p1, %rs1, 0;
\tsetp.nan.f64 %p1, %fd1, %fd2;
\tsetp.gtu.ftz.f32 %p1|%p2, %f1, %f2;
\tsetp.le.or.s64 %p1, %rd1, %rd2, %p3;
\tsetp.num.xor.f32 _|%p2, %f1, 1.0, !%p3;",
    );
    let got: Vec<(CmpOp, Type, bool, bool, bool, Option<BoolOp>)> = ks
        .iter()
        .map(|k| match k {
            InstKind::Setp {
                cmp,
                ty,
                ftz,
                dst,
                dst_neg,
                combine,
                ..
            } => (
                *cmp,
                *ty,
                *ftz,
                dst.is_some(),
                dst_neg.is_some(),
                combine.map(|c| c.0),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            (CmpOp::Lt, Type::U32, false, true, false, None),
            (CmpOp::Ge, Type::U64, false, true, false, None),
            (CmpOp::Ne, Type::U16, false, true, false, None),
            (CmpOp::Nan, Type::F64, false, true, false, None),
            (CmpOp::Gtu, Type::F32, true, true, true, None),
            (CmpOp::Le, Type::S64, false, true, false, Some(BoolOp::Or)),
            (CmpOp::Num, Type::F32, false, false, true, Some(BoolOp::Xor)),
        ]
    );
}

#[test]
fn relaxed_operand_sizes_and_bit_registers() {
    // clang keeps floats in .b32/.b64 registers.
    module("\tadd.f32 %r1, %r2, %r3;\n\tfma.rn.f64 %rd1, %rd2, %rd3, %rd4;\n\tsetp.lt.f32 %p1, %r1, 0f00000000;");
    // Integer loads into wider registers, stores from wider registers, cvt both ways.
    let ks = insts("\tld.global.s8 %r1, [%rd1];\n\tld.global.u16 %rd1, [%rd1];\n\tst.global.u8 [%rd1], %rd2;\n\tcvt.s32.s8 %r1, %r2;\n\tld.global.b32 %f1, [%rd1];");
    assert!(matches!(ks[0], InstKind::Ld { ty: Type::S8, .. }));
    assert!(matches!(ks[4], InstKind::Ld { ty: Type::B32, .. }));
    // Shift amounts are .u32 whatever the type.
    module("\tshl.b16 %rs1, %rs1, %r1;\n\tshr.u64 %rd1, %rd1, 7;");
}

#[test]
fn memory_and_addresses() {
    let src = ".version 7.4
.target sm_80
.address_size 64
.global .align 8 .b8 g[64];
.const .u32 c[4];
.visible .entry k(.param .u64 p, .param .align 16 .b8 s[32])
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\t.shared .align 16 .b8 sm[128];
\t.local .u32 loc[4];
\tld.param.u64 %rd1, [p];
\tld.param.v4.u32 {%r0, %r1, %r2, %r3}, [s+16];
\tld.global.v2.u32 {%r0, _}, [g+8];
\tld.const.u32 %r1, [c+12];
\tst.shared.v2.b32 [sm+-16], {%r1, 7};
\tst.local.u32 [loc+4], %r1;
\tldu.global.u32 %r1, [%rd1];
\tld.u32 %r1, [sm];
\tld.local.u32 %r1, [1024];
\tcvta.global.u64 %rd2, g;
\tcvta.to.shared.u32 %r1, %r2;
\tcvta.local.u64 %rd3, %rd2;
\tcvta.param.u64 %rd3, %rd2;
\tcvta.const.u64 %rd3, c+4;
\tst.global.L2::cache_hint.u32 [%rd1], %r1, %rd2;
}
";
    let m = parse_and_check(src, "m.ptx").unwrap_or_else(|e| panic!("{e}"));
    validate(&m).unwrap();
    let f = &m.functions[FuncId(0)];
    assert_eq!(f.params[1].offset, 16);
    let ks: Vec<&InstKind> = f.blocks[BlockId(0)].insts.iter().map(|i| &i.kind).collect();
    let addr = |k: &InstKind| match k {
        InstKind::Ld { space, addr, .. } | InstKind::St { space, addr, .. } => (*space, *addr),
        other => panic!("{other:?}"),
    };
    let a = |base, offset| Address { base, offset };
    assert_eq!(
        addr(ks[0]),
        (Space::Param, a(AddrBase::Var(VarRef::KernelParam(0)), 0))
    );
    assert_eq!(
        addr(ks[1]),
        (Space::Param, a(AddrBase::Var(VarRef::KernelParam(16)), 16))
    );
    assert_eq!(
        addr(ks[2]),
        (
            Space::Global,
            a(AddrBase::Var(VarRef::Global(GlobalId(0))), 8)
        )
    );
    assert_eq!(
        addr(ks[3]),
        (
            Space::Const,
            a(AddrBase::Var(VarRef::Global(GlobalId(1))), 12)
        )
    );
    assert_eq!(
        addr(ks[4]),
        (Space::Shared, a(AddrBase::Var(VarRef::Shared(0)), -16))
    );
    assert_eq!(
        addr(ks[5]),
        (Space::Local, a(AddrBase::Var(VarRef::Local(0)), 4))
    );
    assert_eq!(addr(ks[6]).0, Space::Global);
    assert_eq!(
        addr(ks[7]),
        (Space::Generic, a(AddrBase::Var(VarRef::Shared(0)), 0))
    );
    // An immediate address only in .local (ptxas: "Immediate addresses allowed only for
    // .local state space").
    assert_eq!(addr(ks[8]), (Space::Local, a(AddrBase::Abs, 1024)));
    assert!(matches!(ks[4], InstKind::St { srcs, .. } if srcs[1] == Operand::Imm(7)));
    assert!(matches!(
        ks[9],
        InstKind::Cvta {
            to_generic: true,
            space: Space::Global,
            ty: Type::U64,
            src: Operand::VarAddr(VarRef::Global(GlobalId(0)), 0),
            ..
        }
    ));
    assert!(matches!(
        ks[10],
        InstKind::Cvta {
            to_generic: false,
            space: Space::Shared,
            ty: Type::U32,
            ..
        }
    ));
    assert!(matches!(
        ks[12],
        InstKind::Cvta {
            space: Space::Param,
            ..
        }
    ));
    assert!(matches!(
        ks[13],
        InstKind::Cvta {
            space: Space::Const,
            src: Operand::VarAddr(VarRef::Global(GlobalId(1)), 4),
            ..
        }
    ));
    assert!(matches!(
        ks[14],
        InstKind::St {
            space: Space::Global,
            ..
        }
    ));
    assert_eq!(f.local_size, 16);
    assert_eq!(f.local_align, 4);
}

#[test]
fn mov_pack_and_unpack() {
    let m = module(
        "\tmov.b64 {%r1, %r2}, %rd1;\n\tmov.b64 %rd2, {%r1, %r2};\n\tmov.b32 {%rs1, _}, %r3;",
    );
    let f = &m.functions[FuncId(0)];
    // One InstInfo per source instruction, shared by the lowered sequence.
    let ids: Vec<u32> = f.blocks[BlockId(0)].insts.iter().map(|i| i.id.0).collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        m.inst_info.iter().filter(|i| i.text == "mov.b64").count(),
        2
    );
    assert_eq!(
        m.inst_info.iter().filter(|i| i.text == "mov.b32").count(),
        1
    );
    // The unpack writes %r1 and %r2 from shifted copies; the pack ends in a mov to %rd2.
    let rd2 = RegId(f.regs.iter().position(|r| r.name == "%rd2").unwrap() as u32);
    assert!(f.blocks[BlockId(0)]
        .insts
        .iter()
        .any(|i| matches!(i.kind, InstKind::Mov { ty: Type::B64, dst, .. } if dst == rd2)));
}

// ----- CFG --------------------------------------------------------------------------

fn kernel(body: &str) -> Function {
    module(body).functions.remove(0)
}

#[test]
fn straight_line_falls_off_the_end_into_an_implicit_ret() {
    let src = format!("{HEAD}\tadd.s32 %r1, %r2, %r3;\n}}\n");
    let m = parse_and_check(&src, "l.ptx").unwrap();
    let f = &m.functions[FuncId(0)];
    assert_eq!(f.blocks.len(), 1);
    let Terminator::Ret {
        guard: None,
        next: None,
        inst,
    } = f.blocks[BlockId(0)].term
    else {
        panic!("{:?}", f.blocks[BlockId(0)].term)
    };
    let info = m.info(inst);
    assert_eq!(info.text, "ret");
    assert_eq!(info.loc, Loc { line: 13, col: 1 });
    assert_eq!(m.inst_info.len(), 2);
}

#[test]
fn loop_header_is_numbered_before_its_body() {
    let f = kernel(
        "\tmov.u32 %r1, 0;
LOOP:
\tadd.u32 %r1, %r1, 1;
\tsetp.lt.u32 %p1, %r1, 10;
\t@%p1 bra LOOP;
\tret;",
    );
    assert_eq!(f.blocks.len(), 3);
    assert_eq!(f.blocks[BlockId(1)].label.as_deref(), Some("LOOP"));
    assert!(matches!(
        f.blocks[BlockId(0)].term,
        Terminator::Jump {
            target: BlockId(1),
            inst: None
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(1)].term,
        Terminator::Branch {
            taken: BlockId(1),
            not_taken: BlockId(2),
            uni: false,
            ..
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(2)].term,
        Terminator::Ret { guard: None, .. }
    ));
}

#[test]
fn a_label_at_the_start_gets_its_own_block_so_the_entry_has_no_predecessors() {
    let f = kernel("TOP:\n\tadd.u32 %r1, %r1, 1;\n\tbra.uni TOP;");
    assert_eq!(f.blocks.len(), 2);
    assert!(f.blocks[BlockId(0)].insts.is_empty());
    assert!(f.blocks[BlockId(0)].label.is_none());
    assert!(matches!(
        f.blocks[BlockId(1)].term,
        Terminator::Jump {
            target: BlockId(1),
            inst: Some(_)
        }
    ));
}

#[test]
fn if_else_join_is_numbered_after_both_arms() {
    let f = kernel(
        "\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 bra ELSE;
\tmov.u32 %r2, 1;
\tbra.uni JOIN;
ELSE:
\tmov.u32 %r2, 2;
JOIN:
\tst.global.u32 [%rd1], %r2;
\tret;",
    );
    assert_eq!(f.blocks.len(), 4);
    let label = |i: BlockId| f.blocks[i].label.clone();
    assert_eq!(label(BlockId(3)).as_deref(), Some("JOIN"));
    let Terminator::Branch {
        taken, not_taken, ..
    } = f.blocks[BlockId(0)].term
    else {
        panic!()
    };
    assert_eq!(label(taken).as_deref(), Some("ELSE"));
    assert_eq!(not_taken, BlockId(1));
    assert!(matches!(
        f.blocks[BlockId(1)].term,
        Terminator::Jump {
            target: BlockId(3),
            inst: Some(_)
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(2)].term,
        Terminator::Jump {
            target: BlockId(3),
            inst: None
        }
    ));
}

#[test]
fn unreachable_blocks_are_dropped() {
    let f =
        kernel("\tbra.uni END;\n\tadd.u32 %r1, %r1, 1;\nDEAD:\n\tmov.u32 %r2, 1;\nEND:\n\tret;");
    assert_eq!(f.blocks.len(), 2);
    assert_eq!(f.blocks[BlockId(1)].label.as_deref(), Some("END"));
    assert!(f.blocks.iter().all(|b| b.insts.is_empty()));
}

#[test]
fn guarded_ret_and_exit_continue_at_the_next_block() {
    let m = module("\t@%p1 ret;\n\t@!%p2 exit;\n\tadd.u32 %r1, %r1, 1;\n\texit;");
    let f = &m.functions[FuncId(0)];
    assert_eq!(f.blocks.len(), 3);
    assert!(matches!(
        f.blocks[BlockId(0)].term,
        Terminator::Ret {
            guard: Some(Guard { negate: false, .. }),
            next: Some(BlockId(1)),
            ..
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(1)].term,
        Terminator::Exit {
            guard: Some(Guard { negate: true, .. }),
            next: Some(BlockId(2)),
            ..
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(2)].term,
        Terminator::Exit {
            guard: None,
            next: None,
            ..
        }
    ));
    let texts: Vec<&str> = m.inst_info.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts, ["ret", "exit", "add.u32", "exit"]);
}

#[test]
fn branches_into_and_out_of_nested_scopes() {
    let f = kernel(
        "\t{
\t.reg .b32 %t;
\tmov.u32 %t, 1;
\t@%p1 bra OUT;
INNER:
\tadd.u32 %t, %t, 1;
\t@%p2 bra INNER;
\t}
OUT:
\tret;",
    );
    // entry, INNER, and OUT (the empty block after the inner branch takes the label).
    assert_eq!(f.blocks.len(), 3);
    assert_eq!(f.blocks[BlockId(1)].label.as_deref(), Some("INNER"));
    assert_eq!(f.blocks[BlockId(2)].label.as_deref(), Some("OUT"));
    assert!(f.regs.iter().any(|r| r.name == "%t"));
}

#[test]
fn guarded_instructions_keep_their_guard() {
    let f = kernel("\t@!%p1 add.u32 %r1, %r1, 1;\n\t@%p2 bar.sync 0;");
    assert!(matches!(
        f.blocks[BlockId(0)].insts[0].guard,
        Some(Guard { negate: true, .. })
    ));
    // A barrier ends its block; all lanes continue at the next one.
    assert!(matches!(
        f.blocks[BlockId(0)].term,
        Terminator::Barrier {
            guard: Some(Guard { negate: false, .. }),
            barrier: Operand::Imm(0),
            count: None,
            next: BlockId(1),
            ..
        }
    ));
    assert_eq!(f.blocks.len(), 2);
}

#[test]
fn initializer_shapes() {
    let src = ".version 7.0
.global .u32 flat[][2] = {1, 2, 3, 4, 5};
.global .v2 .u32 vecs[] = {{1, 2}, {3, 4}};
.global .v2 .u16 vflat[] = {1, 2, 3, 4};
.global .u32 scalar = {9};
.global .s16 nested[2][2][2] = {{{1, 2}, {3}}, {{5, 6}}};
.global .f32 conv[3] = {1.0, -2.0, 0f41800000};
.global .u64 mixed = (1 << 40) | 5;
";
    let m = parse_and_check(src, "i.ptx").unwrap_or_else(|e| panic!("{e}"));
    let g = |n: &str| m.globals.iter().find(|g| g.name == n).unwrap();
    let u32s = |b: &[u8]| -> Vec<u32> {
        b.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    assert_eq!(u32s(&g("flat").init), [1, 2, 3, 4, 5, 0]);
    assert_eq!(u32s(&g("vecs").init), [1, 2, 3, 4]);
    assert_eq!(g("vecs").align, 8);
    assert_eq!(g("vflat").init, [1, 0, 2, 0, 3, 0, 4, 0]);
    assert_eq!(u32s(&g("scalar").init), [9]);
    let s16: Vec<i16> = g("nested")
        .init
        .chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(s16, [1, 2, 3, 0, 5, 6, 0, 0]);
    let f: Vec<f32> = u32s(&g("conv").init)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    assert_eq!(f, [1.0, -2.0, 16.0]);
    assert_eq!(g("mixed").init, ((1u64 << 40) | 5).to_le_bytes());
    // ptxas 12.9: "Initial value type mismatch" for integers in a float initializer.
    let e = parse_and_check(".version 7.0\n.global .f32 g[2] = {0, 1};\n", "i.ptx")
        .expect_err("integer initializer of .f32")
        .to_string();
    assert!(e.contains("an integer constant cannot be a .f32"), "{e}");
}
