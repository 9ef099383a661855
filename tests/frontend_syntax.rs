//! The hand-written syntax samples (validated with ptxas): everything parses, the
//! executable subset checks into the expected IR, every other instruction is rejected
//! with a located "not supported yet" error.

use ptxjit::check::parse_and_check;
use ptxjit::ir::*;
use ptxjit::parse::{ast, parse};

const SYNTAX: &str = include_str!("frontend_ptx/syntax.ptx");
const INSTRS: &str = include_str!("frontend_ptx/instructions.ptx");

fn check(src: &str) -> Module {
    parse_and_check(src, "syntax.ptx").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn syntax_module_header_and_functions() {
    let m = check(SYNTAX);
    assert_eq!(m.version, (7, 8));
    assert_eq!(
        m.target,
        vec!["sm_70".to_string(), "texmode_independent".to_string()]
    );
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["ext_fn", "add_one", "reg_fn", "stop_here", "kern", "kern2"]
    );
    let (_, k2) = m.function("kern2").unwrap();
    assert_eq!(k2.perf.reqntid, Some([64, 2, 1]));
    assert_eq!(k2.perf.maxnreg, Some(32));
    let (_, ext) = m.function("ext_fn").unwrap();
    assert!(!ext.has_body());
    assert_eq!(ext.linkage, Linkage::Extern);
    assert_eq!(ext.rets.len(), 1);
    let (_, add_one) = m.function("add_one").unwrap();
    assert_eq!(add_one.kind, FuncKind::Func);
    // Parameters first, then return values, in one .param buffer.
    assert_eq!(add_one.params[0].offset, 0);
    assert_eq!(add_one.rets[0].offset, 4);
    assert_eq!(add_one.param_size, 8);
    let (_, reg_fn) = m.function("reg_fn").unwrap();
    assert!(reg_fn.params.iter().all(|p| p.regs.len() == 1));
    assert_eq!(
        reg_fn.rets[0].regs.first().map(|r| reg_fn.reg(*r).ty),
        Some(Type::B32)
    );
    // `.reg` parameters have frame slots too (the calling convention of
    // `ir::Terminator::Call`): ra at 0, rb at 8, rr at 16.
    assert_eq!(
        (
            reg_fn.params[0].offset,
            reg_fn.params[1].offset,
            reg_fn.rets[0].offset,
            reg_fn.param_size
        ),
        (0, 8, 16, 20)
    );
}

#[test]
fn syntax_kernel_params_and_perf() {
    let m = check(SYNTAX);
    let (_, k) = m.function("kern").unwrap();
    let p: Vec<(u32, u32, u32)> = k
        .params
        .iter()
        .map(|p| (p.offset, p.size, p.align))
        .collect();
    assert_eq!(
        p,
        [
            (0, 8, 8),
            (8, 8, 8),
            (16, 8, 8),
            (24, 16, 8),
            (40, 4, 4),
            (48, 8, 8)
        ]
    );
    assert_eq!(k.param_size, 56);
    assert_eq!(k.params[0].ptr_space, Some(Space::Global));
    assert_eq!(k.params[2].ptr_space, Some(Space::Generic));
    assert_eq!(k.params[3].ty, Type::B8);
    assert_eq!(k.params[3].count, 16);
    assert_eq!(k.perf.maxntid, Some([256, 1, 1]));
    assert_eq!(k.perf.minnctapersm, Some(2));
    assert_eq!(k.local_size, 32);
    assert_eq!(k.local_align, 8);
    // %r<10> expands to %r0..%r9; the comma list adds %extra; the vector register
    // becomes four registers.
    assert!(k.regs.iter().any(|r| r.name == "%r9"));
    assert!(!k.regs.iter().any(|r| r.name == "%r10"));
    assert!(k.regs.iter().any(|r| r.name == "%extra"));
    assert!(k
        .regs
        .iter()
        .any(|r| r.name == "%vf.w" && r.ty == Type::F32));
}

#[test]
fn syntax_globals_and_shared_layout() {
    let m = check(SYNTAX);
    let g = |n: &str| {
        m.globals
            .iter_enumerated()
            .find(|(_, g)| g.name == n)
            .unwrap()
    };
    let (_, gs) = g("gscalar");
    assert_eq!(gs.init, 7u32.to_le_bytes());
    let (garr_id, garr) = g("garr");
    assert_eq!(garr.size, 24);
    let want: Vec<u8> = [1i32, 2, 3, 4, 5, -6]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(garr.init, want);
    let (_, table) = g("gtable");
    let (gscalar_id, _) = g("gscalar");
    let relocs: Vec<(u64, u8, RelocTarget, i64)> = table
        .relocs
        .iter()
        .map(|r| (r.offset, r.size, r.target, r.addend))
        .collect();
    assert_eq!(
        relocs,
        [
            (0, 8, RelocTarget::Global(gscalar_id), 0),
            (8, 8, RelocTarget::Global(garr_id), 0),
            (16, 8, RelocTarget::Global(garr_id), 4)
        ]
    );
    let (_, gf) = g("gf");
    assert_eq!(gf.size, 16);
    let f: Vec<u32> = gf
        .init
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(
        f,
        [
            1.0f32.to_bits(),
            0x3F80_0000,
            (-2.5e-3f32).to_bits(),
            0x4049_0FDB
        ]
    );
    assert_eq!(g("gd").1.init, 1.0f64.to_le_bytes());
    assert_eq!(g("gbytes").1.init, [1, 3, 15, 255, 0]);
    assert_eq!(g("gsum").1.init, 3u32.to_le_bytes());
    assert_eq!(g("cbuf").1.space, Space::Const);
    assert_eq!(g("cbuf").1.align, 16);
    let (add_one, _) = m.function("add_one").unwrap();
    assert_eq!(g("fptr").1.relocs[0].target, RelocTarget::Func(add_one));
    assert_eq!(g("gweak").1.init, [255; 4]);
    // Shared window: sbuf (64 bytes at 0), then the kernel's fn_shared; the dynamic
    // array starts at the static size rounded up to 16.
    let sh: Vec<(&str, u32, u32, bool)> = m
        .shared_vars
        .iter()
        .map(|s| (s.name.as_str(), s.offset, s.size, s.dynamic))
        .collect();
    assert_eq!(
        sh,
        [
            ("sbuf", 0, 64, false),
            ("dyn_smem", 96, 0, true),
            ("fn_shared", 64, 32, false)
        ]
    );
    assert_eq!(m.shared_static_size, 96);
    assert_eq!(m.dyn_shared_offset, 96);
}

fn all_insts(f: &Function) -> Vec<&InstKind> {
    f.blocks
        .iter()
        .flat_map(|b| b.insts.iter().map(|i| &i.kind))
        .collect()
}

#[test]
fn syntax_operands() {
    let m = check(SYNTAX);
    let (_, k) = m.function("kern").unwrap();
    let insts = all_insts(k);
    let reg = |n: &str| RegId(k.regs.iter().position(|r| r.name == n).unwrap() as u32);
    let has = |pred: &dyn Fn(&InstKind) -> bool| insts.iter().any(|i| pred(i));
    // ld.param.v2.u32 {%r1, %r2}, [kp_struct+8]
    assert!(has(
        &|i| matches!(i, InstKind::Ld { space: Space::Param, dsts, addr: Address { base: AddrBase::Var(VarRef::KernelParam(24)), offset: 8 }, .. } if dsts.len() == 2)
    ));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            src: Operand::Special(SpecialReg::Ctaid(Dim::Y)),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            src: Operand::Special(SpecialReg::LaneId),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            ty: Type::U32,
            src: Operand::Imm(32),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            src: Operand::VarAddr(VarRef::Global(_), 0),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            ty: Type::U32,
            src: Operand::VarAddr(VarRef::Shared(64), 0),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            src: Operand::VarAddr(VarRef::Local(0), 0),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Mov {
            src: Operand::FuncAddr(FuncId(1)),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Cvta {
            to_generic: true,
            space: Space::Shared,
            src: Operand::VarAddr(VarRef::Shared(96), 0),
            ..
        }
    )));
    // ld.global.nc.v4.f32 {%f0, %f1, _, %f3}, [%rd5+16]
    assert!(has(
        &|i| matches!(i, InstKind::Ld { space: Space::Global, dsts, addr: Address { offset: 16, .. }, .. } if dsts[2].is_none() && dsts.len() == 4)
    ));
    // ld.global.v4.f32 %vf, [%rd5]: the whole vector register.
    assert!(has(
        &|i| matches!(i, InstKind::Ld { dsts, .. } if dsts == &vec![Some(reg("%vf.x")), Some(reg("%vf.y")), Some(reg("%vf.z")), Some(reg("%vf.w"))])
    ));
    assert!(has(
        &|i| matches!(i, InstKind::Arith { op: ArithOp::Add, ty: Type::F32, srcs, .. } if srcs == &vec![Operand::Reg(reg("%vf.x")), Operand::Reg(reg("%vf.w"))])
    ));
    assert!(has(&|i| matches!(
        i,
        InstKind::St {
            space: Space::Shared,
            addr: Address {
                base: AddrBase::Var(VarRef::Shared(64)),
                offset: 4
            },
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::St {
            addr: Address {
                base: AddrBase::Reg(_),
                offset: -4
            },
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Ld {
            space: Space::Generic,
            addr: Address {
                base: AddrBase::Var(VarRef::Global(_)),
                ..
            },
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Ld {
            space: Space::Global,
            ty: Type::U8,
            ..
        }
    )));
    // setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3
    assert!(has(&|i| matches!(
        i,
        InstKind::Setp {
            cmp: CmpOp::Lt,
            ty: Type::S32,
            dst: Some(_),
            dst_neg: Some(_),
            combine: Some((BoolOp::And, PredSrc { negate: true, .. })),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Setp {
            ty: Type::U32,
            dst: None,
            dst_neg: Some(_),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Selp {
            a: Operand::Imm(1),
            b: Operand::Imm(0xFFFF_FFFF),
            ..
        }
    )));
    assert!(has(
        &|i| matches!(i, InstKind::Arith { op: ArithOp::Sub, srcs, .. } if srcs[1] == Operand::Imm((-15i32) as u32 as u64))
    ));
    assert!(has(&|i| matches!(
        i,
        InstKind::Arith {
            op: ArithOp::Mul(MulMode::Wide),
            ty: Type::S32,
            ..
        }
    )));
    // Barriers end their block.
    let bars: Vec<(Operand, Option<Operand>)> = k
        .blocks
        .iter()
        .filter_map(|b| match &b.term {
            Terminator::Barrier {
                barrier,
                count,
                guard: None,
                ..
            } => Some((*barrier, *count)),
            _ => None,
        })
        .collect();
    assert_eq!(bars.len(), 3);
    assert_eq!(bars[0], (Operand::Imm(0), None));
    assert_eq!(bars[1], (Operand::Imm(1), Some(Operand::Imm(64))));
    assert!(matches!(bars[2], (Operand::Reg(_), Some(Operand::Imm(32)))));
    assert!(has(&|i| matches!(
        i,
        InstKind::Cvt {
            dst_ty: Type::F32,
            src_ty: Type::S32,
            rnd: Some(Rnd::Rn),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Cvt {
            dst_ty: Type::S32,
            src_ty: Type::F64,
            rnd: Some(Rnd::Rzi),
            ..
        }
    )));
    assert!(has(&|i| matches!(
        i,
        InstKind::Cvt {
            dst_ty: Type::F64,
            src_ty: Type::F32,
            rnd: None,
            ..
        }
    )));
}

#[test]
fn syntax_inner_scope_shadows() {
    let m = check(SYNTAX);
    let (_, k) = m.function("kern").unwrap();
    // The inner block declares its own %r1 and %p1.
    assert_eq!(k.regs.iter().filter(|r| r.name == "%r1").count(), 2);
    assert_eq!(k.regs.iter().filter(|r| r.name == "%p1").count(), 2);
    // The guarded exit inside it continues at the next block.
    assert!(k.blocks.iter().any(|b| matches!(
        b.term,
        Terminator::Exit {
            guard: Some(_),
            next: Some(_),
            ..
        }
    )));
    assert!(k.blocks.iter().any(|b| matches!(
        b.term,
        Terminator::Ret {
            guard: Some(_),
            next: Some(_),
            ..
        }
    )));
}

#[test]
fn syntax_cfg_is_in_reverse_post_order() {
    let m = check(SYNTAX);
    for f in m.functions.iter().filter(|f| f.has_body()) {
        rpo_invariants(f);
    }
}

/// blocks[0] is the entry and has no predecessors; every block is reachable; every edge
/// goes to a higher number except back edges (to a block that dominates... here simply:
/// to a block on the DFS stack, which RPO numbers lower).
pub fn rpo_invariants(f: &Function) {
    let n = f.blocks.len();
    let mut preds: IdxVec<BlockId, u32> = IdxVec::from_elem(0, n);
    for b in &f.blocks {
        for s in b.term.successors() {
            assert!(preds.get(s).is_some(), "{}: successor out of range", f.name);
            preds[s] += 1;
        }
    }
    assert_eq!(
        preds[BlockId(0)],
        0,
        "{}: entry block has predecessors",
        f.name
    );
    let mut seen: IdxVec<BlockId, bool> = IdxVec::from_elem(false, n);
    let mut stack = vec![BlockId(0)];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        stack.extend(f.blocks[b].term.successors());
    }
    assert!(
        seen.iter().all(|&s| s),
        "{}: unreachable block kept",
        f.name
    );
}

#[test]
fn instructions_parse() {
    let m = parse(INSTRS, "instructions.ptx").unwrap_or_else(|e| panic!("{e}"));
    let k = m
        .items
        .iter()
        .find_map(|i| match i {
            ast::Item::Func(f) if f.name.name == "instrs" => Some(f),
            _ => None,
        })
        .expect("kernel instrs");
    let body = k.body.as_ref().unwrap();
    let insts: Vec<&ast::Instruction> = body
        .stmts
        .iter()
        .filter_map(|s| {
            if let ast::Stmt::Inst(i) = s {
                Some(i)
            } else {
                None
            }
        })
        .collect();
    let shfl = insts.iter().find(|i| i.opcode.name == "shfl").unwrap();
    assert_eq!(shfl.text(), "shfl.sync.bfly.b32");
    assert!(matches!(shfl.operands[0], ast::Operand::Pair(..)));
    let tex = insts.iter().find(|i| i.opcode.name == "tex").unwrap();
    assert!(matches!(&tex.operands[1], ast::Operand::Bracket(items, _) if items.len() == 2));
    let ld = insts
        .iter()
        .find(|i| i.text() == "ld.global.L2::cache_hint.b32")
        .unwrap();
    assert_eq!(ld.operands.len(), 3);
    // The call blocks: call.uni (retval0), callee, (param0, param1);
    let calls: Vec<&ast::Instruction> = body
        .stmts
        .iter()
        .filter_map(|s| {
            if let ast::Stmt::Block(b) = s {
                Some(b)
            } else {
                None
            }
        })
        .flat_map(|b| b.stmts.iter())
        .filter_map(|s| {
            if let ast::Stmt::Inst(i) = s {
                Some(i)
            } else {
                None
            }
        })
        .filter(|i| i.opcode.name == "call")
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(matches!(&calls[0].operands[2], ast::Operand::List(v, _) if v.len() == 2));
    assert_eq!(calls[1].operands.len(), 4);
}

/// Each unsupported line is rejected at its own line: comment out the rejected line and
/// check again, until the module checks.
#[test]
fn every_unsupported_instruction_is_rejected_where_it_is() {
    let mut lines: Vec<String> = INSTRS.lines().map(str::to_string).collect();
    let mut rejected = Vec::new();
    loop {
        let src = lines.join("\n");
        match parse_and_check(&src, "instructions.ptx") {
            Ok(_) => break,
            Err(e) => {
                assert!(e.msg.contains("not supported yet"), "{e}");
                let l = e.line as usize - 1;
                let text = lines[l].trim().to_string();
                // The error names the instruction (or declaration) on that line.
                if let Some(op) = e
                    .msg
                    .strip_prefix("instruction '")
                    .and_then(|s| s.split('\'').next())
                {
                    assert!(text.contains(op) || text.starts_with('@'), "{e} vs {text}");
                    assert_eq!(
                        e.col as usize,
                        lines[l].find(op.split('.').next().unwrap()).unwrap() + 1,
                        "{e}"
                    );
                }
                rejected.push(text);
                lines[l] = format!("// {}", lines[l]);
            }
        }
    }
    // Module `.texref`s and `tex` through them are supported now.
    assert!(
        !rejected
            .iter()
            .any(|l| l.contains(".texref") || l.contains("tex0")),
        "{rejected:?}"
    );
    // Direct and indirect calls check.
    assert!(!rejected.iter().any(|l| l.starts_with("call")));
    // brx.idx with its .branchtargets list is supported.
    assert!(!rejected.iter().any(|l| l.starts_with("brx.idx")));
    // The bit-manipulation family and integer div/rem are supported now.
    for now_supported in [
        "div.s32",
        "rem.u32",
        "popc.b32",
        "clz.b64",
        "brev.b32",
        "bfe.u32",
        "bfi.b32",
        "prmt.b32",
        "lop3.b32",
        "shf.l.wrap",
        "mul24.lo",
        "sad.u32",
        "sqrt.",
        "rsqrt.",
        "ex2.",
        "lg2.",
        "sin.",
        "cos.",
        "atom.",
        "red.",
        "shfl.",
        "vote.",
        "match.",
        "activemask",
        "prefetch.",
        "isspacep.",
        "mov.u32 %r1, %clock",
        "mov.u64 %rd3, %clock64",
        "mov.u32 %r1, %lanemask_lt",
        "add.cc",
        "addc",
        "testp",
        "copysign",
        "cvt.rn.f16.f32",
        "cvt.rn.f16x2.f32",
        "cp.async",
    ] {
        assert!(
            !rejected.iter().any(|l| l.starts_with(now_supported)),
            "{now_supported} was rejected"
        );
    }
    // Nothing is rejected any more: the file checks, cluster directives included.
    assert!(rejected.is_empty(), "{rejected:?}");
    let m = parse_and_check(&lines.join("\n"), "instructions.ptx").unwrap();
    assert!(m.function("clus").is_some() && m.function("clus2").is_some());
}
