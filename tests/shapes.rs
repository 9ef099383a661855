//! The shape analysis (`ir::analysis::shape`) on hand-written PTX: which registers it
//! calls uniform, affine or varying at chosen points and which terminators divergent,
//! and, for each kernel, a launch on the interpreter with the shape checker on
//! (`LaunchConfig::check_shapes`), which verifies every claim over the active lanes.
//! The kernels are in `tests/ptx/shapes/` (each passes `ptxas -arch=sm_70`).

#[allow(unused_macros)]
mod common;

use ptxjit::ir::analysis::shape::{Divergence, LaunchShape, Shape, Shapes};
use ptxjit::ir::{BlockId, FuncId, Function, Module, RegId};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

fn load(name: &str) -> String {
    let p = format!("{}/tests/ptx/shapes/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {p}: {e}"))
}

fn checked(name: &str) -> Module {
    ptxjit::check::parse_and_check(&load(name), name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The block whose label is `label` (`None`: the entry block).
fn block(f: &Function, label: Option<&str>) -> BlockId {
    match label {
        None => BlockId(0),
        Some(l) => {
            f.blocks
                .iter_enumerated()
                .find(|(_, b)| b.label.as_deref() == Some(l))
                .unwrap_or_else(|| panic!("no block {l}"))
                .0
        }
    }
}

fn reg(f: &Function, name: &str) -> RegId {
    f.regs
        .iter_enumerated()
        .find(|(_, r)| r.name == name)
        .unwrap_or_else(|| panic!("no register {name}"))
        .0
}

/// The shape of register `name` right before instruction `i` of the block labelled
/// `label` (`i` = the block's length: before its terminator).
fn at(s: &Shapes, f: &Function, label: Option<&str>, i: usize, name: &str) -> Shape {
    let b = block(f, label);
    let i = i.min(f.blocks[b].insts.len());
    s.before(f, b, i)[reg(f, name)].shape
}

fn end(s: &Shapes, f: &Function, label: Option<&str>, name: &str) -> Shape {
    at(s, f, label, usize::MAX, name)
}

/// Blocks of 64 × 1 × 1, 48 × 1 × 1 and 40 × 2 × 1 threads.
fn rows() -> LaunchShape {
    LaunchShape::of_block([64, 1, 1])
}
fn one_row_48() -> LaunchShape {
    LaunchShape::of_block([48, 1, 1])
}
fn no_rows() -> LaunchShape {
    LaunchShape::of_block([40, 2, 1])
}

/// Runs kernel `k` of `name` on the interpreter with the shape checker on; `args` are
/// `u32` values and buffers of `words` u32 each.
fn run_checked(
    dev: &Device,
    name: &str,
    k: &str,
    block: [u32; 3],
    grid: u32,
    params: &[KernelArg],
) {
    let m = dev
        .load_ptx_with(&load(name), name, false)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let cfg = LaunchConfig::new([grid, 1, 1], block)
        .backend(Backend::Interp)
        .check_shapes(true);
    dev.launch(&m, k, &cfg, params)
        .unwrap_or_else(|e| panic!("{name} {k} block {block:?}: {e}"));
}

#[test]
fn saxpy_sources_and_addresses() {
    let m = checked("basic.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    let e = |r| end(&s, f, None, r);
    // Parameters, %ctaid and %ntid are uniform; %tid.x affine; ctaid*ntid+tid affine.
    assert_eq!(e("%rd1"), Shape::Uniform);
    assert_eq!(e("%r1"), Shape::Uniform);
    assert_eq!(e("%r2"), Shape::Uniform);
    assert_eq!(e("%r4"), Shape::Affine(1));
    assert_eq!(e("%r5"), Shape::Affine(1));
    // i << 2: stride 4; the comparison with n: varying, so the branch diverges.
    assert_eq!(e("%r6"), Shape::Affine(4));
    assert_eq!(e("%p1"), Shape::Varying);
    assert_eq!(s.terminator(BlockId(0)), Divergence::Divergent);
    // ctaid * ntid + tid with ntid % 32 == 0: the base is a multiple of 32, so the
    // widened byte offsets and addresses stay affine with stride 4.
    let body = Some("BODY");
    assert_eq!(end(&s, f, body, "%rd2"), Shape::Affine(4));
    assert_eq!(end(&s, f, body, "%rd4"), Shape::Affine(4));
    assert_eq!(end(&s, f, body, "%rd3"), Shape::Affine(4));
    assert_eq!(end(&s, f, body, "%rd5"), Shape::Affine(4));
    // With 48 threads per row the base may be anywhere: a lane may wrap where the
    // others do not, so widening gives a varying value.
    let s48 = Shapes::analyze(f, one_row_48());
    assert_eq!(end(&s48, f, None, "%r5"), Shape::Affine(1));
    assert_eq!(end(&s48, f, body, "%rd2"), Shape::Varying);
    assert_eq!(end(&s48, f, body, "%rd5"), Shape::Varying);
    // lane * 0x80000000 << 1 wraps to 0 in 32 bits: uniform.
    assert_eq!(end(&s, f, body, "%r8"), Shape::Affine(0x8000_0000));
    assert_eq!(end(&s, f, body, "%r9"), Shape::Uniform);
    // A load from a uniform address is uniform; from an affine one, varying.
    assert_eq!(end(&s, f, body, "%f1"), Shape::Varying);
    assert_eq!(end(&s, f, body, "%f2"), Shape::Uniform);
    // Without whole-warp rows %tid.x is varying and so is everything derived from it.
    let s2 = Shapes::analyze(f, no_rows());
    assert_eq!(end(&s2, f, None, "%r4"), Shape::Varying);
    assert_eq!(end(&s2, f, None, "%r6"), Shape::Varying);
    assert_eq!(end(&s2, f, None, "%r2"), Shape::Uniform);
    for blk in [[64, 1, 1], [48, 1, 1], [40, 2, 1], [32, 3, 2]] {
        let dev = Device::new().expect("device");
        let x = dev.alloc_zeroed(4 * 4096).expect("alloc");
        run_checked(
            &dev,
            "basic.ptx",
            "basic",
            blk,
            3,
            &[(&x).into(), KernelArg::from(100u32)],
        );
        let _ = dev.free(x);
    }
}

#[test]
fn joins_after_divergent_and_uniform_branches() {
    let m = checked("joins.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    // Divergent if/else: each arm's constant is uniform inside the arm, varying at the join.
    assert_eq!(s.terminator(BlockId(0)), Divergence::Divergent);
    assert_eq!(end(&s, f, Some("T1"), "%r2"), Shape::Uniform);
    assert_eq!(at(&s, f, Some("J1"), 0, "%r2"), Shape::Varying);
    assert_eq!(end(&s, f, Some("J1"), "%r3"), Shape::Varying);
    // A register the arms do not write stays uniform across the join.
    assert_eq!(at(&s, f, Some("J1"), 0, "%r7"), Shape::Uniform);
    // Uniform if/else on a parameter: the join keeps the arms' uniform values.
    let j1 = block(f, Some("J1"));
    assert_eq!(s.terminator(j1), Divergence::Uniform);
    assert_eq!(at(&s, f, Some("J2"), 0, "%r4"), Shape::Uniform);
    // A write under a divergent guard: varying; under a uniform guard: uniform.
    assert_eq!(end(&s, f, Some("J2"), "%r5"), Shape::Varying);
    assert_eq!(end(&s, f, Some("J2"), "%r6"), Shape::Uniform);
    for p in [0u32, 1] {
        run_checked(
            &Device::new().expect("device"),
            "joins.ptx",
            "joins",
            [64, 1, 1],
            2,
            &[KernelArg::from(p)],
        );
    }
}

#[test]
fn loop_inside_a_divergent_if() {
    let m = checked("if_loop.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    // The `if` around the clearing loop diverges; its lanes leave only through J, so the
    // registers the region does not write keep their facts after it, even where a
    // later loop writes them again (%r1): ctaid * ntid + tid and its byte address stay
    // affine. The loop's own counter is varying at J.
    assert_eq!(s.terminator(BlockId(0)), Divergence::Divergent);
    assert_eq!(at(&s, f, Some("J"), 0, "%r1"), Shape::Affine(1));
    assert_eq!(at(&s, f, Some("J"), 0, "%r2"), Shape::Varying);
    assert_eq!(end(&s, f, Some("K"), "%r4"), Shape::Affine(1));
    assert_eq!(end(&s, f, Some("K"), "%rd5"), Shape::Affine(4));
    assert_eq!(end(&s, f, Some("K"), "%r5"), Shape::Varying);
    for blk in [[64, 1, 1], [48, 1, 1], [40, 2, 1], [32, 3, 2], [256, 1, 1]] {
        let dev = Device::new().expect("device");
        let x = dev.alloc_zeroed(4 * 4096).expect("alloc");
        run_checked(
            &dev,
            "if_loop.ptx",
            "if_loop",
            blk,
            3,
            &[(&x).into(), KernelArg::from(700u32)],
        );
        let _ = dev.free(x);
    }
}

#[test]
fn loops() {
    let m = checked("loops.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    // A loop with a per-lane trip count: the counter is uniform in the loop (lanes that
    // leave wait after it), varying after it.
    let l1 = block(f, Some("L1"));
    assert_eq!(s.terminator(l1), Divergence::Divergent);
    assert_eq!(at(&s, f, Some("L1"), 0, "%r1"), Shape::Uniform);
    assert_eq!(at(&s, f, Some("X1"), 0, "%r1"), Shape::Varying);
    // A loop with a uniform trip count and a divergent `if` inside: the counter stays
    // uniform; the arm's value is varying at the latch.
    assert_eq!(at(&s, f, Some("L2"), 0, "%r3"), Shape::Uniform);
    assert_eq!(at(&s, f, Some("LATCH2"), 0, "%r3"), Shape::Uniform);
    assert_eq!(at(&s, f, Some("LATCH2"), 0, "%r5"), Shape::Varying);
    assert_eq!(at(&s, f, Some("X2"), 0, "%r3"), Shape::Uniform);
    // A divergent `continue` straight to the header: lanes may run different iterations
    // of the loop at once, so its counter is varying inside it.
    assert_eq!(at(&s, f, Some("L3"), 0, "%r6"), Shape::Varying);
    for blk in [[32, 1, 1], [96, 1, 1], [50, 1, 1]] {
        run_checked(
            &Device::new().expect("device"),
            "loops.ptx",
            "loops",
            blk,
            2,
            &[KernelArg::from(5u32)],
        );
    }
}

#[test]
fn memory_warp_ops_and_barriers() {
    let m = checked("memwarp.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    let e = |r| end(&s, f, Some("TAIL"), r);
    // Shared load at a uniform address: uniform. Local load: varying (each lane's own
    // frame). Volatile global load: varying (other threads may store in between).
    assert_eq!(e("%r2"), Shape::Uniform);
    assert_eq!(e("%r3"), Shape::Varying);
    assert_eq!(e("%r4"), Shape::Varying);
    // ballot and vote with a uniform member mask: uniform; shfl: varying.
    assert_eq!(e("%r5"), Shape::Uniform);
    assert_eq!(e("%p3"), Shape::Uniform);
    assert_eq!(e("%p2"), Shape::Varying);
    assert_eq!(e("%r6"), Shape::Varying);
    // After a barrier the warp's values are as before it.
    assert_eq!(e("%r1"), Shape::Uniform);
    for blk in [[64, 1, 1], [33, 1, 1]] {
        let dev = Device::new().expect("device");
        let x = dev.alloc_zeroed(4 * 256).expect("alloc");
        run_checked(&dev, "memwarp.ptx", "memwarp", blk, 2, &[(&x).into()]);
        let _ = dev.free(x);
    }
}

/// A store from several lanes to one (uniform) address keeps the highest-numbered
/// active lane's value on both backends: with `limit` = L, lanes 0..L-1 store
/// `lane + 100`, so the word holds 100 + L - 1 (one 32-thread block per word).
#[test]
fn uniform_store_highest_lane_wins() {
    let m = checked("uniform_store.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    let st = f.blocks[BlockId(0)].insts.len() - 1;
    let b = &f.blocks[BlockId(0)].insts[st];
    let ptxjit::ir::InstKind::St { space, addr, .. } = &b.kind else {
        panic!("the last instruction is the store");
    };
    let facts = s.before(f, BlockId(0), st);
    assert_eq!(s.address(f, &facts, *space, addr).shape, Shape::Uniform);
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = Device::new().expect("device");
        let m = dev
            .load_ptx_with(
                &load("uniform_store.ptx"),
                "uniform_store.ptx",
                backend == Backend::Jit,
            )
            .expect("load");
        for limit in [1u32, 7, 20, 32] {
            let out = dev.alloc_zeroed(4 * 3).expect("alloc");
            let cfg = LaunchConfig::new([3, 1, 1], [32, 1, 1])
                .backend(backend)
                .check_shapes(backend == Backend::Interp);
            dev.launch(
                &m,
                "uniform_store",
                &cfg,
                &[(&out).into(), KernelArg::from(limit)],
            )
            .expect("launch");
            let got: Vec<u32> = dev.read(&out).expect("read");
            assert_eq!(got, vec![100 + limit - 1; 3], "{backend:?} limit {limit}");
            let _ = dev.free(out);
        }
    }
}

/// `LaunchShape::HALF_ROWS` (each half-warp of a launch with `%ntid.x == 16`) on
/// `tests/ptx/halves_known.ptx`: `%tid.x` affine and its 4-byte scaling widened exactly
/// (the 16 consecutive words of each half), `%tid.y` rows uniform, `%laneid` varying
/// (16 more in the upper half than the half's lane number); with no assumption, the
/// rows and words vary. Then the interpreter's shape checker, which checks these claims
/// per half-warp in 16-wide launches, on 16 × 8 and 16 × 4 × 2 blocks (the JIT's
/// results for them are in tests/mem_halves.rs).
#[test]
fn half_warp_rows_of_16_wide_blocks() {
    let src = std::fs::read_to_string(format!(
        "{}/tests/ptx/halves_known.ptx",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("read the PTX");
    let m = ptxjit::check::parse_and_check(&src, "halves_known.ptx").expect("checks");
    let f = &m.functions[FuncId(0)];
    let half = Shapes::analyze(f, LaunchShape::HALF_ROWS);
    assert_eq!(end(&half, f, Some("$L_rows"), "%rd5"), Shape::Uniform);
    assert_eq!(end(&half, f, Some("$L_rows"), "%rd6"), Shape::Affine(4));
    assert_eq!(end(&half, f, Some("$L_rows"), "%rd8"), Shape::Affine(4));
    assert_eq!(end(&half, f, Some("$L_rows"), "%r42"), Shape::Varying);
    let any = Shapes::analyze(f, LaunchShape::default());
    assert_eq!(end(&any, f, Some("$L_rows"), "%rd5"), Shape::Varying);
    assert_eq!(end(&any, f, Some("$L_rows"), "%rd6"), Shape::Varying);
    // The checker checks these claims per half in 16-wide launches.
    let dev = Device::new().expect("device");
    let m = dev
        .load_ptx_with(&src, "halves_known.ptx", false)
        .expect("loads");
    let out = dev.alloc_zeroed(128 * 4).expect("alloc");
    for block in [[16, 8, 1], [16, 4, 2]] {
        let cfg = LaunchConfig::new([1, 1, 1], block)
            .backend(Backend::Interp)
            .check_shapes(true);
        let args = [
            (&out).into(),
            KernelArg::from(3u32),
            KernelArg::from(0u32),
            KernelArg::from(99u32),
        ];
        dev.launch(&m, "halves_known", &cfg, &args)
            .unwrap_or_else(|e| panic!("block {block:?}: {e}"));
    }
}

/// Warp and lane numbers from `%tid.x` (`warp_lane.ptx`): `tid >> 5`, `tid / 64` and
/// `tid < 32` uniform, `tid & 31` and `tid % 32` affine where warps are whole rows
/// (varying otherwise); each launch on the interpreter with the shape checker and on
/// both JIT tiers gives the values the Rust reference computes.
#[test]
fn warp_and_lane_numbers() {
    let m = checked("warp_lane.ptx");
    let f = &m.functions[FuncId(0)];
    let s = Shapes::analyze(f, rows());
    let at_branch = |s: &Shapes, r| end(s, f, None, r);
    assert_eq!(at_branch(&s, "%r2"), Shape::Uniform);
    assert_eq!(at_branch(&s, "%r3"), Shape::Affine(1));
    assert_eq!(at_branch(&s, "%r4"), Shape::Uniform);
    assert_eq!(at_branch(&s, "%r5"), Shape::Affine(1));
    assert_eq!(at_branch(&s, "%p1"), Shape::Uniform);
    assert_eq!(s.terminator(BlockId(0)), Divergence::Uniform);
    // The lane-31 test splits the warp; the warp-0 test after the barrier does not.
    let s2 = Shapes::analyze(f, no_rows());
    assert_eq!(at_branch(&s2, "%r2"), Shape::Varying);
    let skip = block(f, Some("SKIP"));
    assert_eq!(s.terminator(skip), Divergence::Divergent);
    // (`bar.sync` ends block WAIT; the warp-0 test ends the block after it.)
    let after = BlockId(block(f, Some("WAIT")).0 + 1);
    assert_eq!(f.blocks[after].insts.len(), 1, "setp, then the branch");
    assert_eq!(s.terminator(after), Divergence::Uniform);
    assert_eq!(s.before(f, after, 1)[reg(f, "%p3")].shape, Shape::Uniform);
    assert_eq!(s2.terminator(after), Divergence::Divergent);

    assert_eq!(at_branch(&s2, "%p1"), Shape::Varying);
    assert_eq!(s2.terminator(BlockId(0)), Divergence::Divergent);

    for ntid in [96u32, 64, 40, 48, 32, 1] {
        let mut want = vec![0u32; 2 * ntid as usize];
        let value = |t: u32| {
            100000 * (t % 32) + 1000 * (t >> 5) + (t & 31) + t / 64 + if t < 32 { 7 } else { 0 }
        };
        for t in 0..ntid {
            want[t as usize] = value(t);
            if t >= 32 {
                want[(ntid + t) as usize] = value(32 * (t / 32 - 1) + 31);
            }
        }
        for (backend, tier) in common::backends_and_tiers() {
            let dev = common::device_tier(tier);
            let m = common::module_at(&dev, "tests/ptx/shapes/warp_lane.ptx", backend);
            let out = dev.alloc_zeroed(8 * ntid as usize).expect("alloc");
            let cfg = LaunchConfig::new([1, 1, 1], [ntid, 1, 1])
                .backend(backend)
                .check_shapes(backend == Backend::Interp);
            dev.launch(&m, "warp_lane", &cfg, &[(&out).into()])
                .unwrap_or_else(|e| panic!("{backend:?} {tier:?} block {ntid}: {e}"));
            let got = dev.read::<u32>(&out).expect("read");
            assert_eq!(got, want, "{backend:?} {tier:?} block {ntid}");
        }
    }
}
