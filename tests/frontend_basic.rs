//! End-to-end front-end tests on small kernels: structure of the produced IR.

use ptxjit::check::parse_and_check;
use ptxjit::ir::*;

fn check(src: &str) -> Module {
    match parse_and_check(src, "t.ptx") {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn vecadd_nvrtc() {
    let m = check(include_str!("frontend_ptx/vecadd.nvrtc.ptx"));
    assert_eq!(m.version, (8, 8));
    assert_eq!(m.target, vec!["sm_70".to_string()]);
    assert_eq!(m.address_size, 64);
    let (_, f) = m.function("vecadd").expect("kernel");
    assert_eq!(f.kind, FuncKind::Entry);
    assert_eq!(f.linkage, Linkage::Visible);
    let offs: Vec<u32> = f.params.iter().map(|p| p.offset).collect();
    assert_eq!(offs, vec![0, 8, 16, 24]);
    assert_eq!(f.param_size, 28);
    assert_eq!(f.blocks.len(), 3);
    match &f.blocks[BlockId(0)].term {
        Terminator::Branch {
            taken, not_taken, ..
        } => {
            assert_eq!(*not_taken, BlockId(1));
            assert_eq!(*taken, BlockId(2));
        }
        t => panic!("unexpected terminator {t:?}"),
    }
    assert!(matches!(
        f.blocks[BlockId(1)].term,
        Terminator::Jump {
            target: BlockId(2),
            inst: None
        }
    ));
    assert!(matches!(
        f.blocks[BlockId(2)].term,
        Terminator::Ret {
            guard: None,
            next: None,
            ..
        }
    ));
    assert_eq!(f.blocks[BlockId(2)].label.as_deref(), Some("$L__BB0_2"));
    // ld.param.u64 %rd1, [vecadd_param_0];
    match &f.blocks[BlockId(0)].insts[0].kind {
        InstKind::Ld {
            space: Space::Param,
            ty: Type::U64,
            dsts,
            addr,
        } => {
            assert_eq!(dsts.len(), 1);
            assert_eq!(addr.base, AddrBase::Var(VarRef::KernelParam(0)));
        }
        k => panic!("unexpected {k:?}"),
    }
    let info = m.info(f.blocks[BlockId(0)].insts[4].id);
    assert_eq!(info.text, "mov.u32");
    assert_eq!(info.loc, Loc { line: 32, col: 2 });
}

#[test]
fn vecadd_clang() {
    let m = check(include_str!("frontend_ptx/vecadd.clang.ptx"));
    let (_, f) = m.function("vecadd").expect("kernel");
    assert_eq!(f.blocks.len(), 3);
}
