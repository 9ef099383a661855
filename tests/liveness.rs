//! Register liveness (`ir::analysis::liveness`) on hand-built IR, with the expected
//! sets worked out by hand in each test's comment, and a sweep over the PTX files of
//! the repository: every register an instruction or terminator names is in its use or
//! def set (so no family's reads are missed), and the per-block sets satisfy the
//! dataflow equations.

use ptxjit::ir::analysis::liveness::{inst_effect, term_effect, Liveness, RegSet, Writes};
use ptxjit::ir::{
    AddrBase, Address, ArithOp, AsyncOp, Block, BlockId, CallArg, CallDst, CallRet, CallSrc, CmpOp,
    Dim, FloatMode, FuncId, FuncKind, Function, Guard, Inst, InstId, InstKind, Operand,
    PerfDirectives, PredSrc, RegId, RegInfo, Space, SpecialReg, Terminator, Type,
};

fn inst(kind: InstKind) -> Inst {
    Inst {
        guard: None,
        kind,
        id: InstId(0),
    }
}

fn guarded(pred: u32, kind: InstKind) -> Inst {
    Inst {
        guard: Some(Guard {
            pred: RegId(pred),
            negate: false,
        }),
        kind,
        id: InstId(0),
    }
}

/// A kernel with `n` registers (`%r0..`, `.u32`; those in `preds` are `.pred`, those in
/// `wide` `.u64`).
fn func(n: u32, preds: &[u32], wide: &[u32], blocks: Vec<Block>) -> Function {
    Function {
        name: "k".into(),
        kind: FuncKind::Entry,
        linkage: Default::default(),
        params: vec![],
        rets: vec![],
        param_size: 0,
        regs: (0..n)
            .map(|i| RegInfo {
                name: format!("%r{i}"),
                ty: if preds.contains(&i) {
                    Type::Pred
                } else if wide.contains(&i) {
                    Type::U64
                } else {
                    Type::U32
                },
            })
            .collect(),
        blocks: blocks.into(),
        local_size: 0,
        local_align: 1,
        perf: PerfDirectives::default(),
        loc: Default::default(),
    }
}

fn block(insts: Vec<Inst>, term: Terminator) -> Block {
    Block {
        label: None,
        insts,
        term,
    }
}

fn r(i: u32) -> Operand {
    Operand::Reg(RegId(i))
}

fn mov(dst: u32, src: Operand) -> InstKind {
    InstKind::Mov {
        ty: Type::U32,
        dst: RegId(dst),
        src,
    }
}

fn add(dst: u32, a: Operand, b: Operand) -> InstKind {
    InstKind::Arith {
        op: ArithOp::Add,
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: RegId(dst),
        srcs: vec![a, b],
    }
}

fn setp_lt(dst: u32, a: Operand, b: Operand) -> InstKind {
    InstKind::Setp {
        cmp: CmpOp::Lt,
        ty: Type::U32,
        ftz: false,
        dst: Some(RegId(dst)),
        dst_neg: None,
        a,
        b,
        combine: None,
    }
}

fn jump(t: u32) -> Terminator {
    Terminator::Jump {
        target: BlockId(t),
        inst: None,
    }
}

fn branch(p: u32, taken: u32, not_taken: u32) -> Terminator {
    Terminator::Branch {
        guard: Guard {
            pred: RegId(p),
            negate: false,
        },
        taken: BlockId(taken),
        not_taken: BlockId(not_taken),
        uni: false,
        inst: InstId(0),
    }
}

fn exit() -> Terminator {
    Terminator::Exit {
        guard: None,
        next: None,
        inst: InstId(0),
    }
}

fn barrier(next: u32) -> Terminator {
    Terminator::Barrier {
        guard: None,
        barrier: Operand::Imm(0),
        count: None,
        red: None,
        next: BlockId(next),
        inst: InstId(0),
    }
}

fn st(addr: u32, v: Operand) -> InstKind {
    InstKind::St {
        space: Space::Global,
        ty: Type::U32,
        srcs: vec![v],
        addr: Address {
            base: AddrBase::Reg(RegId(addr)),
            offset: 0,
        },
    }
}

fn set(regs: &[u32]) -> Vec<RegId> {
    regs.iter().map(|&i| RegId(i)).collect()
}

fn members(s: &RegSet) -> Vec<RegId> {
    s.iter().collect()
}

/// `benches/ptx/bar_loop.ptx`'s shape (r0 = k, r1 = tid, r2 = i, r3 = sum, p4, r5 the
/// address, r6 a temporary, r7 never used):
/// b0: r0 = 5; r1 = %tid.x; r2 = 0; r3 = 0; r7 = 9; p4 = r2 < r0; @p4 bra b1 else b3
/// b1: bar.sync 0 -> b2
/// b2: r3 = r3 + r2; r2 = r2 + 1; p4 = r2 < r0; @p4 bra b1 else b3
/// b3: r6 = r1 + r1; r5 = r6; st [r5], r3; exit
/// After the barrier (live-in of b2): r0 (loop bound), r1 (read in b3), r2, r3 (read
/// before written in b2); not p4 (written before its read in b2), r5, r6 (written in
/// b3 before read), r7 (never read).
#[test]
fn loop_with_barrier() {
    let f = func(
        8,
        &[4],
        &[],
        vec![
            block(
                vec![
                    inst(mov(0, Operand::Imm(5))),
                    inst(mov(1, Operand::Special(SpecialReg::Tid(Dim::X)))),
                    inst(mov(2, Operand::Imm(0))),
                    inst(mov(3, Operand::Imm(0))),
                    inst(mov(7, Operand::Imm(9))),
                    inst(setp_lt(4, r(2), r(0))),
                ],
                branch(4, 1, 3),
            ),
            block(vec![], barrier(2)),
            block(
                vec![
                    inst(add(3, r(3), r(2))),
                    inst(add(2, r(2), Operand::Imm(1))),
                    inst(setp_lt(4, r(2), r(0))),
                ],
                branch(4, 1, 3),
            ),
            block(
                vec![
                    inst(add(6, r(1), r(1))),
                    inst(mov(5, r(6))),
                    inst(st(5, r(3))),
                ],
                exit(),
            ),
        ],
    );
    let l = Liveness::of(&f);
    assert_eq!(members(&l.live_in[BlockId(2)]), set(&[0, 1, 2, 3]));
    assert_eq!(
        l.after_barrier(&f, BlockId(1)).map(members),
        Some(set(&[0, 1, 2, 3]))
    );
    assert_eq!(l.after_barrier(&f, BlockId(2)), None);
    assert_eq!(members(&l.live_in[BlockId(3)]), set(&[1, 3]));
    // Nothing is read before written in b0.
    assert!(l.live_in[BlockId(0)].is_empty());
    // Before `r5 = r6` in b3: r6 and r3 (the store's value).
    assert_eq!(members(&l.before(&f, BlockId(3), 1)), set(&[3, 6]));
    // Before the terminator of b2: the successors' live-ins plus the guard p4.
    assert_eq!(members(&l.before(&f, BlockId(2), 3)), set(&[0, 1, 2, 3, 4]));
    // Written since a resume, at the barrier: what b2 writes (r2, r3, p4); b0's
    // writes are on the path from the entry, which saves everything live.
    let w = Writes::of(&f);
    assert_eq!(members(&w.at_exit[BlockId(1)]), set(&[2, 3, 4]));
    assert!(w.at_exit[BlockId(0)].is_empty());
}

/// b0: @p0 r1 = 1; r2 = r1 + 0; exit. A guarded write keeps the old value in threads
/// whose guard is false: r1 stays live at entry (with p0); r2 is written unguarded and
/// never read.
#[test]
fn guarded_write_does_not_kill() {
    let f = func(
        3,
        &[0],
        &[],
        vec![block(
            vec![
                guarded(0, mov(1, Operand::Imm(1))),
                inst(add(2, r(1), Operand::Imm(0))),
            ],
            exit(),
        )],
    );
    let l = Liveness::of(&f);
    assert_eq!(members(&l.live_in[BlockId(0)]), set(&[0, 1]));
    let e = inst_effect(&f, &f.blocks[BlockId(0)].insts[0]);
    assert_eq!(e.uses, set(&[0]));
    assert_eq!(e.defs, set(&[1]));
    assert!(e.kills.is_empty());
}

/// b0: @p0 bra b2 else b1; b1: r1 = 1; bra b3; b2: bra b3; b3: st [r2], r1; exit.
/// Per thread: threads through b2 read the r1 of before b0, so r1 is live at b0 and
/// b2, not at b1 (written there first); r2 is live everywhere before b3.
#[test]
fn write_in_one_arm() {
    let f = func(
        3,
        &[0],
        &[2],
        vec![
            block(vec![], branch(0, 2, 1)),
            block(vec![inst(mov(1, Operand::Imm(1)))], jump(3)),
            block(vec![], jump(3)),
            block(vec![inst(st(2, r(1)))], exit()),
        ],
    );
    let l = Liveness::of(&f);
    assert_eq!(members(&l.live_in[BlockId(0)]), set(&[0, 1, 2]));
    assert_eq!(members(&l.live_in[BlockId(1)]), set(&[2]));
    assert_eq!(members(&l.live_in[BlockId(2)]), set(&[1, 2]));
    assert_eq!(members(&l.live_out[BlockId(0)]), set(&[1, 2]));
}

/// An `add` with one source (refused by `check`) has no valid operand list: the
/// documented fallback reads every register and kills nothing, so all three registers
/// are live at entry although r0 is written.
#[test]
fn malformed_instruction_uses_everything() {
    let bad = InstKind::Arith {
        op: ArithOp::Add,
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: RegId(0),
        srcs: vec![r(1)],
    };
    let f = func(3, &[], &[], vec![block(vec![inst(bad)], exit())]);
    let e = inst_effect(&f, &f.blocks[BlockId(0)].insts[0]);
    assert_eq!(e.uses, set(&[0, 1, 2]));
    assert!(e.kills.is_empty());
    assert_eq!(
        members(&Liveness::of(&f).live_in[BlockId(0)]),
        set(&[0, 1, 2])
    );
}

/// Families whose reads are not all plain operands: address bases, predicates of
/// `setp`'s combine and `selp`, the carry flag, `vote`'s predicate, `cp.async`'s
/// addresses, and the terminators' operands.
#[test]
fn reads_of_each_family() {
    let f = func(8, &[5, 6], &[0, 1], vec![block(vec![], exit())]);
    let ld = InstKind::Ld {
        space: Space::Global,
        ty: Type::U32,
        dsts: vec![Some(RegId(2)), None],
        addr: Address {
            base: AddrBase::Reg(RegId(0)),
            offset: 4,
        },
    };
    let e = inst_effect(&f, &inst(ld));
    assert_eq!((e.uses, e.defs), (set(&[0]), set(&[2])));
    let setp = InstKind::Setp {
        cmp: CmpOp::Lt,
        ty: Type::U32,
        ftz: false,
        dst: Some(RegId(5)),
        dst_neg: Some(RegId(6)),
        a: r(2),
        b: Operand::Imm(3),
        combine: Some((
            ptxjit::ir::BoolOp::And,
            PredSrc {
                reg: RegId(6),
                negate: true,
            },
        )),
    };
    let e = inst_effect(&f, &inst(setp));
    assert_eq!(e.uses, set(&[2, 6]));
    assert_eq!(e.kills, set(&[5, 6]));
    let selp = InstKind::Selp {
        ty: Type::U32,
        dst: RegId(3),
        a: r(2),
        b: r(4),
        cond: PredSrc {
            reg: RegId(5),
            negate: false,
        },
    };
    assert_eq!(inst_effect(&f, &inst(selp)).uses, set(&[2, 4, 5]));
    let carry = InstKind::Carry {
        op: ptxjit::ir::CarryOp::Add,
        ty: Type::U32,
        dst: RegId(3),
        srcs: vec![r(2), r(4)],
        cc_in: Some(RegId(6)),
        cc_out: Some(RegId(6)),
    };
    let e = inst_effect(&f, &inst(carry));
    assert_eq!((e.uses, e.defs), (set(&[2, 4, 6]), set(&[3, 6])));
    let cp = InstKind::Async {
        op: AsyncOp::CpAsync {
            size: 4,
            src_size: false,
            ignore_src: false,
        },
        dsts: vec![],
        addrs: vec![
            (
                Space::Shared,
                Address {
                    base: AddrBase::Reg(RegId(3)),
                    offset: 0,
                },
            ),
            (
                Space::Global,
                Address {
                    base: AddrBase::Reg(RegId(1)),
                    offset: 0,
                },
            ),
        ],
        srcs: vec![],
    };
    assert_eq!(inst_effect(&f, &inst(cp)).uses, set(&[3, 1]));
    let bar = Terminator::Barrier {
        guard: Some(Guard {
            pred: RegId(5),
            negate: false,
        }),
        barrier: r(2),
        count: Some(r(3)),
        red: Some(PredSrc {
            reg: RegId(6),
            negate: false,
        }),
        next: BlockId(0),
        inst: InstId(0),
    };
    assert_eq!(term_effect(&f, &bar).uses, set(&[5, 2, 3, 6]));
    let brx = Terminator::BrxIdx {
        guard: None,
        index: r(4),
        targets: vec![BlockId(0)],
        uni: false,
        next: BlockId(0),
        inst: InstId(0),
    };
    assert_eq!(term_effect(&f, &brx).uses, set(&[4]));
}

/// Calls read their register arguments and write their register results; a guarded
/// call kills nothing (threads whose guard is false keep the old values); an indirect
/// call also reads its address register.
#[test]
fn calls() {
    let f = func(6, &[5], &[0], vec![block(vec![], exit())]);
    let args = vec![
        CallArg {
            src: CallSrc::Value(r(2), Type::U32),
            dst: 0,
            size: 4,
        },
        CallArg {
            src: CallSrc::Local(16),
            dst: 4,
            size: 4,
        },
    ];
    let rets = vec![CallRet {
        src: 8,
        dst: CallDst::Reg(RegId(3), Type::U32),
        size: 4,
    }];
    let call = |guard| Terminator::Call {
        guard,
        func: FuncId(1),
        args: args.clone(),
        rets: rets.clone(),
        next: BlockId(0),
        uni: false,
        inst: InstId(0),
        resume: None,
    };
    let e = term_effect(&f, &call(None));
    assert_eq!((e.uses, e.defs, e.kills), (set(&[2]), set(&[3]), set(&[3])));
    let g = Some(Guard {
        pred: RegId(5),
        negate: false,
    });
    let e = term_effect(&f, &call(g));
    assert_eq!((e.uses, e.defs), (set(&[5, 2]), set(&[3])));
    assert!(e.kills.is_empty());
    let ind = Terminator::CallIndirect {
        guard: None,
        addr: RegId(0),
        targets: vec![FuncId(1)],
        args,
        rets,
        next: BlockId(0),
        inst: InstId(0),
        resume: None,
    };
    assert_eq!(term_effect(&f, &ind).uses, set(&[0, 2]));
}

/// Two barriers in a row: b0: r0 = 1; r1 = 2; bar -> b1; b1: r2 = r0 + 1; bar -> b2;
/// b2: r3 = r2 + r1; st [r4], r3; exit. After the first barrier r0, r1, r4 are live;
/// after the second r1, r2, r4. Written since a resume at the second barrier: r2 only.
#[test]
fn barriers_in_sequence() {
    let f = func(
        5,
        &[],
        &[4],
        vec![
            block(
                vec![inst(mov(0, Operand::Imm(1))), inst(mov(1, Operand::Imm(2)))],
                barrier(1),
            ),
            block(vec![inst(add(2, r(0), Operand::Imm(1)))], barrier(2)),
            block(vec![inst(add(3, r(2), r(1))), inst(st(4, r(3)))], exit()),
        ],
    );
    let l = Liveness::of(&f);
    assert_eq!(
        l.after_barrier(&f, BlockId(0)).map(members),
        Some(set(&[0, 1, 4]))
    );
    assert_eq!(
        l.after_barrier(&f, BlockId(1)).map(members),
        Some(set(&[1, 2, 4]))
    );
    let w = Writes::of(&f);
    assert!(w.at_exit[BlockId(0)].is_empty());
    assert_eq!(members(&w.at_exit[BlockId(1)]), set(&[2]));
    assert_eq!(members(&w.at_exit[BlockId(2)]), set(&[3]));
}

/// The register numbers named in `text` (a `Debug` form: `RegId(n)`).
fn named_regs(text: &str) -> Vec<RegId> {
    text.split("RegId(")
        .skip(1)
        .filter_map(|s| s.split(')').next()?.parse().ok())
        .map(RegId)
        .collect()
}

/// Every `.ptx` file under `dir` (one level).
fn ptx_files(dir: &str) -> Vec<std::path::PathBuf> {
    let d = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<_> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{d}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    v
}

/// Over the repository's PTX (every family appears somewhere): each register an
/// instruction or terminator names is one it reads or writes, every kill is a def, and
/// the block sets are a fixed point of `in = uses ∪ (out − kills)`, `out = ∪ in(succ)`.
#[test]
fn effects_cover_every_named_register() {
    let mut files = ptx_files("tests/ptx");
    files.extend(ptx_files("benches/ptx"));
    files.extend(ptx_files("tests/ptx/shapes"));
    let mut checked = 0;
    for p in files {
        let src = std::fs::read_to_string(&p).expect("read");
        let name = p.display().to_string();
        // Some files are error cases on purpose: only those that check are swept.
        let Ok(m) = ptxjit::check::parse_and_check(&src, &name) else {
            continue;
        };
        for f in m.functions.iter().filter(|f| f.has_body()) {
            let l = Liveness::of(f);
            for (b, blk) in f.blocks.iter_enumerated() {
                for i in &blk.insts {
                    let e = inst_effect(f, i);
                    for reg in named_regs(&format!("{:?} {:?}", i.guard, i.kind)) {
                        assert!(
                            e.uses.contains(&reg) || e.defs.contains(&reg),
                            "{name}: {reg:?} of {i:?}"
                        );
                    }
                    assert!(e.kills.iter().all(|k| e.defs.contains(k)), "{name}: {i:?}");
                    checked += 1;
                }
                let e = term_effect(f, &blk.term);
                let text = match &blk.term {
                    // Successor and callee numbers are not registers.
                    Terminator::Resume { .. } => String::new(),
                    t => format!("{t:?}"),
                };
                for reg in named_regs(&text) {
                    assert!(
                        e.uses.contains(&reg) || e.defs.contains(&reg),
                        "{name}: {reg:?} of {:?}",
                        blk.term
                    );
                }
                let mut out = RegSet::new(f.regs.len());
                for s in blk.term.successors() {
                    out.union_with(&l.live_in[s]);
                }
                assert_eq!(out, l.live_out[b], "{name} {}: live-out", f.name);
                assert_eq!(
                    l.before(f, b, 0),
                    l.live_in[b],
                    "{name} {}: live-in",
                    f.name
                );
            }
        }
    }
    assert!(checked > 1000, "only {checked} instructions swept");
}
