//! The compiler-generated samples of tests/frontend_ptx (NVRTC = nvcc's NVVM, and clang):
//! what they check into, and where the unsupported ones are rejected.

use ptxjit::check::{parse_and_check, validate};
use ptxjit::ir::*;

macro_rules! sample {
    ($name:literal) => {
        (
            concat!($name),
            include_str!(concat!("frontend_ptx/", $name)),
        )
    };
}

fn check(sample: (&str, &str)) -> Module {
    let m = parse_and_check(sample.1, sample.0).unwrap_or_else(|e| panic!("{e}"));
    validate(&m).unwrap_or_else(|e| panic!("{}: {e}", sample.0));
    m
}

fn global<'m>(m: &'m Module, name: &str) -> (GlobalId, &'m GlobalVar) {
    m.globals
        .iter_enumerated()
        .find(|(_, g)| g.name == name)
        .unwrap_or_else(|| panic!("no global {name}"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn globals_with_initializers_and_relocations() {
    for s in [sample!("globals.nvrtc.ptx"), sample!("globals.clang.ptx")] {
        let m = check(s);
        let (table_id, table) = global(&m, "table");
        assert_eq!(
            words(&table.init),
            [1, 2, 3, (-4i32) as u32, 0x7fff_ffff],
            "{}",
            s.0
        );
        let (_, coeffs) = global(&m, "coeffs");
        assert_eq!(coeffs.space, Space::Const);
        let f: Vec<f32> = words(&coeffs.init)
            .into_iter()
            .map(f32::from_bits)
            .collect();
        assert_eq!(f, [0.5, 1.5, -2.25, 3.0e10]);
        assert_eq!(global(&m, "dcoeff").1.init, 2.5f64.to_le_bytes());
        let grid: Vec<i16> = global(&m, "grid2")
            .1
            .init
            .chunks(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(grid, [1, 2, 3, 4, 5, 6]);
        assert_eq!(global(&m, "counter").1.init, [0; 4]);
        // ptr_to_table = &table[2]: generic(table)+8.
        let ptr = &global(&m, "ptr_to_table").1.relocs;
        assert_eq!(ptr.len(), 1);
        assert_eq!(
            (ptr[0].offset, ptr[0].size, ptr[0].target, ptr[0].addend),
            (0, 8, RelocTarget::Global(table_id), 8)
        );
        // fns = {twice, thrice}: function addresses.
        let fns = &global(&m, "fns").1.relocs;
        let targets: Vec<&str> = fns
            .iter()
            .map(|r| match r.target {
                RelocTarget::Func(f) => m.functions[f].name.as_str(),
                RelocTarget::Global(_) => "global",
            })
            .collect();
        assert_eq!(targets, ["_Z5twicei", "_Z6thricei"]);
        assert_eq!(fns[1].offset, 8);
    }
}

#[test]
fn pointers_in_packed_structs_are_byte_masks() {
    for s in [sample!("packed.nvrtc.ptx"), sample!("packed.clang.ptx")] {
        let m = check(s);
        let (x, _) = global(&m, "x");
        let (_, v) = global(&m, "s");
        assert_eq!(v.size, 9);
        assert_eq!(v.init[0], 1);
        assert_eq!(v.relocs.len(), 1, "{}", s.0);
        let r = &v.relocs[0];
        assert_eq!(
            (r.offset, r.size, r.target, r.addend),
            (1, 8, RelocTarget::Global(x), 0)
        );
    }
}

#[test]
fn shared_memory_static_dynamic_and_barriers() {
    for s in [sample!("shared.nvrtc.ptx"), sample!("shared.clang.ptx")] {
        let m = check(s);
        let tile = m.shared_vars.iter().find(|v| v.name == "tile").unwrap();
        assert_eq!((tile.size, tile.dynamic), (1024, false));
        let dynamic = m.shared_vars.iter().find(|v| v.name == "dyn").unwrap();
        assert!(dynamic.dynamic);
        assert_eq!(dynamic.offset, m.dyn_shared_offset);
        assert!(
            m.dyn_shared_offset >= m.shared_static_size && m.dyn_shared_offset.is_multiple_of(16)
        );
        let (_, f) = m.function("block_sum").unwrap();
        let barriers = f
            .blocks
            .iter()
            .filter(|b| matches!(b.term, Terminator::Barrier { .. }))
            .count();
        assert_eq!(barriers, 2, "{}", s.0);
    }
}

#[test]
fn local_depot_and_stack_pointer() {
    for s in [sample!("locals.nvrtc.ptx"), sample!("locals.clang.ptx")] {
        let m = check(s);
        let (_, f) = m.function("locals").unwrap();
        assert_eq!(f.local_size, 64);
        // mov.u64 %SPL, __local_depot0;
        let mov_depot = f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
            matches!(
                i.kind,
                InstKind::Mov {
                    ty: Type::U64,
                    src: Operand::VarAddr(VarRef::Local(0), 0),
                    ..
                }
            )
        });
        assert!(mov_depot, "{}", s.0);
        assert!(f.blocks.iter().flat_map(|b| &b.insts).any(|i| matches!(
            i.kind,
            InstKind::St {
                space: Space::Local,
                ..
            }
        )));
    }
}

#[test]
fn control_flow_and_types_check() {
    for s in [
        sample!("control.nvrtc.ptx"),
        sample!("control.clang.ptx"),
        sample!("types.nvrtc.ptx"),
        sample!("types.clang.ptx"),
        sample!("vecadd.nvrtc.ptx"),
        sample!("vecadd.clang.ptx"),
    ] {
        let m = check(s);
        assert!(m
            .functions
            .iter()
            .all(|f| f.kind == FuncKind::Entry && f.has_body()));
    }
    let m = check(sample!("control.nvrtc.ptx"));
    let (_, f) = m.function("control").unwrap();
    // Loops: some branch goes back to a block numbered no higher than itself.
    let back_edges = f
        .blocks
        .iter()
        .enumerate()
        .filter(|(i, b)| b.term.successors().iter().any(|s| s.0 as usize <= *i))
        .count();
    assert!(back_edges >= 2);
}

#[test]
fn debug_sections_and_line_directives_are_ignored() {
    let s = sample!("vecadd_debug.nvrtc.ptx");
    assert!(s.1.contains(".section\t.debug_info") && s.1.contains(".loc\t"));
    let m = check(s);
    assert_eq!(m.functions.len(), 1);
}

#[test]
fn atomics_shuffles_and_math_samples_check() {
    // Atomics, shuffles (tests/atomics.rs, tests/warp.rs run them) and NVRTC's libm
    // expansions of the special functions all load now.
    for (s, inst) in [
        (sample!("atomic.nvrtc.ptx"), "atom.global.add.u32"),
        (sample!("atomic.clang.ptx"), "atom.global.add.u32"),
        (sample!("shuffle.nvrtc.ptx"), "shfl.sync.down.b32"),
        (sample!("shuffle.clang.ptx"), "shfl.sync.down.b32"),
        (sample!("mathfns.nvrtc.ptx"), "sqrt.rn.f32"),
    ] {
        assert!(s.1.contains(inst), "{} lacks {inst}", s.0);
        check(s);
    }
    // Calls check (they run in tests/calls.rs).
    for s in [sample!("call.nvrtc.ptx"), sample!("call.clang.ptx")] {
        let m = parse_and_check(s.1, s.0).unwrap();
        let (_, helper) = m.function("_Z6helperi").unwrap();
        assert_eq!(
            (helper.kind, helper.params.len(), helper.rets.len()),
            (FuncKind::Func, 1, 1)
        );
    }
}
