//! The seed-17 and seed-18 mutation runs' findings (issue 15,
//! `tests/corpus/MUTATION_FINDINGS.md`), split from `frontend_mutations.rs`. Oracle:
//! ptxas 12.9 (`-arch sm_90`) on the same module (`mutation::module`, the instruction on
//! line 12): for the "too lenient" cases ptxas accepts the original and rejects the
//! mutant (its error is quoted in the comment), and ptxjit must give a located error; for
//! the "too strict" cases ptxas accepts both and so must ptxjit.

#[allow(unused_macros)]
#[macro_use]
mod common;
#[path = "common/mutation.rs"]
mod mutation;
use mutation::{accepts, module, rejects, run, run_both, run_both_on};

// ---- Seed 17, the shapes left open (each rule and case checked against ptxas 12.9,
// `--gpu-name sm_90`, on `module(line)`) ----

/// Too lenient: each mutant's ptxas error is quoted next to it. `red.async` needs
/// `.relaxed.cluster` (PTX ISA syntax); `cp.async.mbarrier.arrive` its `.b64`;
/// `st.async`/`red.async` data operands and `cvt` operands next to a `.bf16` have the
/// type's size exactly; `createpolicy` needs its eviction priority (`.cvt` only `.L2`);
/// `red` has no `.acquire`/`.acq_rel`; a generic access cannot name a `.const` variable;
/// `cp.async.bulk.prefetch` needs `.L2.global`; `cp.async` has no eviction priority.
#[test]
fn seed17_lenient_shapes() {
    let red = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32 [%rd2], %r1, [%rd3];";
    let st = "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd2], %r1, [%rd3];";
    let cases = [
        // "Modifier '.relaxed' requires scope with 'red.async' instruction"
        (red, red.replace(".cluster.shared", ".shared"), "12:2: error: 'red.async.relaxed.shared::cluster.mbarrier::complete_tx::bytes.min.u32': '.relaxed' needs the scope '.cluster'"),
        // "order modifier required for instruction 'red.async'"
        (red, red.replace(".relaxed", ""), "12:2: error: 'red.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32' needs the order '.relaxed'"),
        // "Unexpected instruction types specified for 'cp.async.mbarrier.arrive'"
        (
            "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%rd2];",
            "cp.async.mbarrier.arrive.noinc.shared::cta [%rd2];".into(),
            "12:2: error: 'cp.async.mbarrier.arrive.noinc.shared::cta' needs the type .b64",
        ),
        // "Arguments mismatch for instruction 'st.async'"
        (st, st.replace("%r1", "%rd4"), "12:68: error: register '%rd4' has type .b64, which does not fit instruction type .u32"),
        (
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%rd2], {%r1, %r2}, [%rd3];",
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%rd2], {%rd4, %rd5}, [%rd3];".into(),
            "12:72: error: register '%rd4' has type .b64, which does not fit instruction type .u32",
        ),
        // "Arguments mismatch for instruction 'cvt'" (three times)
        (
            ".reg .b16 %h<4>; cvt.rn.bf16.f32 %h1, %f1;",
            ".reg .b16 %h<4>; cvt.rn.bf16.f32 %h1, %rd2;".into(),
            "12:40: error: register '%rd2' has type .b64, which does not fit instruction type .f32",
        ),
        (
            ".reg .b16 %h<4>; cvt.rp.f16.bf16 %h2, %h1;",
            ".reg .b16 %h<4>; cvt.rp.f16.bf16 %rd2, %h1;".into(),
            "12:35: error: register '%rd2' has type .b64, which does not fit instruction type .f16",
        ),
        (
            ".reg .b16 %h<4>; cvt.f32.bf16 %f1, %h1;",
            ".reg .b16 %h<4>; cvt.f32.bf16 %f1, %r1;".into(),
            "12:37: error: register '%r1' has type .b32, which does not fit instruction type .bf16",
        ),
        // "cache eviction priority modifier required for instruction
        // 'createpolicy.fractional'"
        (
            "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;",
            "createpolicy.fractional.b64 %rd2, 1.0;".into(),
            "12:2: error: 'createpolicy.fractional.b64': needs an eviction priority '.L2::evict_*'",
        ),
        // "Illegal modifier '.level::eviction_priority' for instruction 'createpolicy.cvt'"
        (
            "createpolicy.cvt.L2.b64 %rd2, %rd3;",
            "createpolicy.cvt.L2::evict_last.b64 %rd2, %rd3;".into(),
            "12:2: error: 'createpolicy.cvt.L2::evict_last.b64': needs '.L2'",
        ),
        // "Illegal modifier '.acquire' for instruction 'red'" (likewise '.acq_rel')
        (
            "red.add.noftz.f16x2 [%rd1], %r1;",
            "red.add.acquire.noftz.f16x2 [%rd1], %r1;".into(),
            "12:2: error: '.acquire' is not valid for 'red.add.acquire.noftz.f16x2': red's .sem is .relaxed or .release",
        ),
        (
            "red.release.gpu.add.u32 [%rd1], %r1;",
            "red.acq_rel.gpu.add.u32 [%rd1], %r1;".into(),
            "12:2: error: '.acq_rel' is not valid for 'red.acq_rel.gpu.add.u32': red's .sem is .relaxed or .release",
        ),
        // "State space mismatch between instruction and address in instruction 'ld'"
        // (and 'st')
        (
            ".const .u32 cv = 5; ld.const.u32 %r1, [cv];",
            ".const .u32 cv = 5; ld.u32 %r1, [cv];".into(),
            "12:35: error: state space mismatch: 'cv' is a .const variable, which only '.const' accesses can name",
        ),
        (
            ".const .u32 cv = 5; ld.const.u32 %r1, [cv];",
            ".const .u32 cv = 5; st.u32 [cv], %r1;".into(),
            "12:30: error: state space mismatch: 'cv' is a .const variable, which only '.const' accesses can name",
        ),
        // "State space modifier required for instruction 'cp.async.bulk.prefetch'"
        (
            "cp.async.bulk.prefetch.L2.global [%rd1], 64;",
            "cp.async.bulk.prefetch.L2 [%rd1], 64;".into(),
            "12:2: error: 'cp.async.bulk.prefetch.L2' needs '.L2.global'",
        ),
        // "Illegal modifier '.level::eviction_priority' for instruction 'cp.async'"
        (
            ".shared .align 16 .b8 s[16]; cp.async.ca.shared.global [s], [%rd1], 4;",
            ".shared .align 16 .b8 s[16]; cp.async.ca.shared.global.L1::evict_last [s], [%rd1], 4;".into(),
            "12:56: error: '.L1::evict_last' is not valid for 'cp.async.ca.shared.global.L1::evict_last': cp.async takes no eviction priority",
        ),
    ];
    for (original, mutant, want) in &cases {
        rejects(original, mutant, want);
    }
}

/// Forms next to the seed-17 rules that ptxas 12.9 accepts: a second eviction priority,
/// a 64-bit `red.async.add.u64` operand, an `.f32` register for `st.async.b32`, a `.b64`
/// destination for `cvt.rn.f16.f32` (no `.bf16` side), a generic load of a `.global`
/// variable, and a bulk reduction's mbarrier as an integer constant (like a bare 64-bit
/// register, the address value; `[8]` is "Immediate addresses allowed only for .local").
#[test]
fn seed17_neighbours_load() {
    let reduce = "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32 [%rd2], [%rd3], 128, [%rd4];";
    accepts(reduce, &reduce.replace("[%rd4]", "8"));
    accepts(
        "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;",
        "createpolicy.fractional.L2::evict_unchanged.L2::evict_first.b64 %rd2, 0.5;",
    );
    accepts(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32 [%rd2], %r1, [%rd3];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%rd2], %rd4, [%rd3];",
    );
    accepts(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd2], %r1, [%rd3];",
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%rd2], %f1, [%rd3];",
    );
    accepts(
        ".reg .b16 %h<4>; cvt.rn.f16.f32 %h1, %f1;",
        ".reg .b16 %h<4>; cvt.rn.f16.f32 %rd2, %f1;",
    );
    accepts(
        ".global .u32 gv; ld.global.u32 %r1, [gv];",
        ".global .u32 gv; ld.u32 %r1, [gv];",
    );
}

/// Too strict: the scalar video data-merge form without a selector (`vop... d, a, b,
/// c`): the ISA's `optMerge` with no `.dsel` leaves `d = tmp`, `c` unused; ptxas 12.9's
/// sm_90 cubin of `vmin.s32.s32.s32.sat d, a, b, c` does not even load `c`.
/// vmin(-5, 7) = -5 = 0xFFFFFFFB; with `.add` (for contrast) -5 + 100 = 95;
/// vadd.sat(0x7FFFFFFF, 1) saturates to 0x7FFFFFFF.
#[test]
fn video_fourth_operand_without_a_secondary_op() {
    let body = "mov.b32 %r2, 0xFFFFFFFB;\n\tmov.b32 %r3, 7;\n\tmov.b32 %r4, 100;\n\t\
        vmin.s32.s32.s32.sat %r1, %r2, %r3, %r4;\n\tst.global.u32 [%rd1], %r1;\n\t\
        vmin.s32.s32.s32.sat.add %r1, %r2, %r3, %r4;\n\tst.global.u32 [%rd1+4], %r1;\n\t\
        mov.b32 %r2, 0x7FFFFFFF;\n\tmov.b32 %r3, 1;\n\t\
        vadd.s32.s32.s32.sat %r1, %r2, %r3, %r4;\n\tst.global.u32 [%rd1+8], %r1;";
    assert_eq!(
        run_both(&module(body), 1, 12),
        vec![0xFFFF_FFFB, 95, 0x7FFF_FFFF]
    );
}

/// Too strict: `st.b128 [a], imm` stores the 64-bit constant zero-extended. Oracle:
/// ptxas 12.9's sm_90 cubin (`MOV`s of the constant's halves, `CS2R` zeros for the high
/// 64 bits, one `STG.E.128`): `-2` stores 0xFFFFFFFFFFFFFFFE, 0; `5` stores 5, 0.
#[test]
fn st_b128_of_an_immediate() {
    let got = run(
        "st.global.b128 [%rd1], -2;\n\tst.global.b128 [%rd1+16], 5;",
        &[1, 2, 3, 4],
    );
    assert_eq!(got, vec![0xFFFF_FFFF_FFFF_FFFE, 0, 5, 0]);
}

/// Too strict: `mov.b16 d, r+20` is an integer add at 16 bits (ptxas 12.9's sm_90 cubin:
/// `IADD3 R5, R0, 0x14, RZ`, then a 16-bit store). 0xFFF0 + 20 = 0x10004, so 0x0004.
#[test]
fn mov_b16_register_plus_constant() {
    let got = run(
        ".reg .b16 %h<4>;\n\tld.global.u16 %h1, [%rd1];\n\tmov.b16 %h2, %h1+20;\n\tst.global.u16 [%rd1+2], %h2;",
        &[0xFFF0],
    );
    assert_eq!(got, vec![0x0004_FFF0]);
}

/// Too strict: an integer constant in `tex`'s depth-compare position. ptxas 12.9 drops
/// it: the sm_90 cubin of `tex.1d.v4.f32.f32 d, [t, {x}], -1` is that of `tex.1d.v4.f32.f32
/// d, [t, {x}]`, byte for byte (likewise `1`, and `tld4.r.2d` with `-1` or `3`). Point
/// sampling, unnormalised coordinates, texels [0, 1, 2, 4]: x = 2.5 reads texel
/// floor(2.5) = 2 into the first element (the others as `tests/texture.rs` reads them;
/// both forms must give the same four).
#[test]
fn tex_integer_depth_compare_is_dropped() {
    use ptxjit::runtime::texture::{AddressMode, ArrayDesc, ArrayFormat, TextureDesc};
    let src = |extra: &str| {
        format!(
            ".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 t)
{{
	.reg .b64 %rd<4>;
	.reg .f32 %f<6>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [t];
	mov.f32 %f1, 0f40200000;
	tex.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [%rd2, {{%f1}}]{extra};
	st.global.v4.f32 [%rd1], {{%f2, %f3, %f4, %f5}};
	ret;
}}
"
        )
    };
    let texture = |dev: &ptxjit::Device| {
        let a = dev
            .create_array(ArrayDesc {
                width: 4,
                height: 0,
                depth: 0,
                format: ArrayFormat::F32,
                channels: 1,
                layered: false,
                surface: false,
                cubemap: false,
            })
            .expect("array");
        let texels: Vec<u8> = [0f32, 1.0, 2.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        dev.write_array(&a, &texels).expect("write array");
        let desc = TextureDesc {
            address: [AddressMode::Clamp; 3],
            linear: false,
            normalized: false,
            read_as_integer: false,
            border: [0.0; 4],
        };
        let t = dev
            .create_texture_object(a.resource(), desc)
            .expect("texture");
        vec![ptxjit::KernelArg::from(t)]
    };
    let base = run_both_on(&src(""), 1, &[0f32; 4], texture);
    for extra in [", -1", ", 1"] {
        let got = run_both_on(&src(extra), 1, &[0f32; 4], texture);
        assert_eq!(got, base, "{extra}");
    }
    assert_eq!(base[0], 2.0);
}

// ---- Seed 18 (MUTATION_FINDINGS.md, "seed 18"): too lenient ----

/// `multimem.ld_reduce`/`st`/`red` scalar data operands have the type's size; packed
/// `.u16x2`/`.s16x2` sources are registers. ptxas 12.9 (sm_90): "Arguments mismatch for
/// instruction 'multimem.ld_reduce'" (and 'multimem.st', 'multimem.red', 'max', 'add').
#[test]
fn seed18_lenient_shapes() {
    let cases = [
        (
            "multimem.ld_reduce.and.b32 %r1, [%rd1];",
            "multimem.ld_reduce.and.b32 %rd2, [%rd1];",
            "12:29: error: register '%rd2' has type .b64, which does not fit instruction type .b32",
        ),
        (
            "multimem.st.release.cta.global.u32 [%rd1], %r1;",
            "multimem.st.release.cta.global.u32 [%rd1], %rd2;",
            "12:45: error: register '%rd2' has type .b64, which does not fit instruction type .u32",
        ),
        (
            "multimem.red.add.u32 [%rd1], %r1;",
            "multimem.red.add.u32 [%rd1], %rd2;",
            "12:31: error: register '%rd2' has type .b64, which does not fit instruction type .u32",
        ),
        (
            "max.relu.s16x2 %r1, %r2, %r3;",
            "max.relu.s16x2 %r1, %r2, 255U;",
            "12:27: error: 'max.relu.s16x2' takes registers, not constants",
        ),
        (
            "add.s16x2 %r1, %r2, %r3;",
            "add.s16x2 %r1, %r2, 3;",
            "12:22: error: 'add.s16x2' takes registers, not constants",
        ),
    ];
    for (original, mutant, want) in cases {
        rejects(original, mutant, want);
    }
    accepts(
        "multimem.ld_reduce.and.b32 %r1, [%rd1];",
        "multimem.ld_reduce.and.b32 %f1, [%rd1];",
    );
    // "Arguments mismatch for instruction 'mapa'": the CTA rank is a .u32 operand.
    rejects(
        "mapa.u64 %rd2, %rd3, %r1;",
        "mapa.u64 %rd2, %rd3, %rd4;",
        "12:23: error: register '%rd4' has type .b64, which does not fit instruction type .u32",
    );
}

/// ptxas 12.9: "No state space qualifier expected for instruction
/// 'createpolicy.fractional'" (and 'createpolicy.cvt'): only `.range` takes `.global`.
#[test]
fn createpolicy_state_space_only_on_range() {
    rejects(
        "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;",
        "createpolicy.fractional.global.L2::evict_last.b64 %rd2, 1.0;",
        "12:2: error: 'createpolicy.fractional.global.L2::evict_last.b64': takes no state space; only '.range' allows '.global'",
    );
    rejects(
        "createpolicy.cvt.L2.b64 %rd2, %rd3;",
        "createpolicy.cvt.global.L2.b64 %rd2, %rd3;",
        "12:2: error: 'createpolicy.cvt.global.L2.b64': takes no state space; only '.range' allows '.global'",
    );
    accepts(
        "createpolicy.range.L2::evict_last.L2::evict_unchanged.b64 %rd2, [%rd1], 16, 32;",
        "createpolicy.range.global.L2::evict_last.L2::evict_unchanged.b64 %rd2, [%rd1], 16, 32;",
    );
}
