//! The parser mutation differential's findings (issue 15, `tests/corpus/MUTATION_FINDINGS.md`):
//! each case is a one-line mutant of an accepted instruction. Oracle: ptxas 12.9
//! (`-arch sm_90`) on the same module (kernel below, the instruction on line 12): for the
//! "too lenient" cases ptxas accepts the original and rejects the mutant (its error is
//! quoted in the comment), and ptxjit must give a located error; for the "too strict"
//! cases ptxas accepts both and so must ptxjit. Column numbers: the line is a tab and
//! the instruction, so the opcode is column 2.

#[allow(unused_macros)]
#[macro_use]
mod common;
use ptxjit::check::parse_and_check;
#[path = "common/mutation.rs"]
mod mutation;
use mutation::{accepts, module, rejects, run, run_both, run_both_with};

/// ptxas: `error   : State space mismatch between instruction and address in instruction 'ld'`.
#[test]
fn generic_ld_of_a_param() {
    rejects(
        "ld.param.u64 %rd2, [p];",
        "ld.u64 %rd2, [p];",
        "12:16: error: state space mismatch: 'p' is a .param variable, which only '.param' accesses can name",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'bar'`.
#[test]
fn bar_sync_needs_a_barrier() {
    rejects(
        "bar.sync 0;",
        "bar.sync;",
        "12:2: error: instruction 'bar.sync' takes 1 or 2 operands",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'barrier.cta'`.
#[test]
fn barrier_cta_sync_needs_a_barrier() {
    rejects(
        "barrier.cta.sync 0;",
        "barrier.cta.sync;",
        "12:2: error: instruction 'barrier.cta.sync' takes 1 or 2 operands",
    );
}

/// ptxas: `error   : Unexpected instruction types specified for 'or'`.
#[test]
fn logic_ops_take_bit_types() {
    rejects(
        "or.b32 %r1, %r2, %r3;",
        "or.u32 %r1, %r2, %r3;",
        "12:2: error: type .u32 is not valid for 'or.u32'",
    );
}

/// ptxas: `error   : Unexpected instruction types specified for 'shl'`.
#[test]
fn shl_takes_bit_types() {
    rejects(
        "shl.b32 %r1, %r2, 8;",
        "shl.u32 %r1, %r2, 8;",
        "12:2: error: type .u32 is not valid for 'shl.u32'",
    );
}

/// ptxas: `error   : Special register argument not allowed for instruction 'cvt'`.
#[test]
fn cvt_to_float_from_a_special_register() {
    rejects(
        "cvt.u32.u16 %r1, %tid.x;",
        "cvt.rn.f32.u16 %f1, %tid.x;",
        "12:22: error: a special register can only be the source of an integer-to-integer 'cvt'",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'atom'`.
#[test]
fn atom_destination_has_the_type_size() {
    rejects(
        "atom.global.add.u32 %r1, [%rd1], 1;",
        "atom.global.add.u32 %rd2, [%rd1], 1;",
        "12:22: error: register '%rd2' has type .b64, which does not fit instruction type .u32",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'atom'`.
#[test]
fn atom_source_has_the_type_size() {
    rejects(
        "atom.global.add.u32 %r1, [%rd1], %r2;",
        "atom.global.add.u32 %r1, [%rd1], %rd1;",
        "12:35: error: register '%rd1' has type .b64, which does not fit instruction type .u32",
    );
}

/// ptxas: `error   : Illegal modifier '.release' for instruction 'membar'`.
#[test]
fn membar_takes_no_semantics() {
    rejects(
        "membar.gl;",
        "membar.gl.release;",
        "12:11: error: modifier '.release' is not allowed in 'membar.gl.release'",
    );
}

/// ptxas: `error   : .proxykind modifier required for instruction 'fence.proxy'`.
#[test]
fn fence_proxy_needs_a_proxy_kind() {
    rejects(
        "fence.proxy.alias;",
        "fence.proxy;",
        "12:2: error: 'fence.proxy' needs a proxy kind (.alias, .async)",
    );
}

/// ptxas: `error   : .proxykind modifier required for instruction 'fence.proxy'`.
#[test]
fn fence_proxy_async_space_only() {
    rejects(
        "fence.proxy.async.global;",
        "fence.proxy.global;",
        "12:2: error: 'fence.proxy.global' needs a proxy kind (.alias, .async)",
    );
}

/// ptxas: `error   : Comparison qualifier is not allowed for instruction 'fence.proxy'`.
#[test]
fn fence_proxy_rejects_other_modifiers() {
    rejects(
        "fence.proxy.async.shared::cta;",
        "fence.proxy.lo.async.shared::cta;",
        "12:13: error: modifier '.lo' is not allowed in 'fence.proxy.lo.async.shared::cta'",
    );
}

/// ptxas: `error   : .proxykind modifier required for instruction 'membar.proxy'`.
#[test]
fn membar_proxy_needs_a_proxy_kind() {
    rejects(
        "membar.proxy.alias;",
        "membar.proxy;",
        "12:2: error: 'membar.proxy' needs a proxy kind (.alias, .async)",
    );
}

/// ptxas: `error   : .acquire/.release modifier required for instruction 'fence.proxy'`.
#[test]
fn tensormap_fence_needs_acquire_or_release() {
    rejects(
        "fence.proxy.tensormap::generic.release.gpu;",
        "fence.proxy.tensormap::generic.gpu;",
        "12:2: error: 'fence.proxy.tensormap::generic.gpu' needs '.acquire' or '.release'",
    );
}

/// ptxas: `error   : Modifier '.acquire' requires scope with 'fence.proxy' instruction`.
#[test]
fn tensormap_fence_needs_a_scope() {
    rejects(
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
        "fence.proxy.tensormap::generic.acquire [%rd1], 128;",
        "12:2: error: 'fence.proxy.tensormap::generic.acquire' needs a scope (.cta, .cluster, .gpu, .sys)",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'fence.proxy'`.
#[test]
fn tensormap_acquire_needs_address_and_size() {
    rejects(
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1];",
        "12:45: error: 'fence.proxy.tensormap::generic.acquire.gpu' takes 2 operands, not 1",
    );
}

/// ptxas: `error   : Arguments mismatch for instruction 'fence.proxy'`.
#[test]
fn tensormap_acquire_size_is_an_immediate() {
    rejects(
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], %r1;",
        "12:53: error: the size operand must be the integer 128",
    );
}

/// ptxas: `error   : Modifier '.mbarrier_init' requires modifier 'order'`.
#[test]
fn mbarrier_init_fence_needs_release() {
    rejects(
        "fence.mbarrier_init.release.cluster;",
        "fence.mbarrier_init.cluster;",
        "12:2: error: 'fence.mbarrier_init.cluster' needs '.release'",
    );
}

#[test]
fn float_literal_in_b64_is_its_double_bits() {
    accepts("mov.b64 %rd2, 0x3FE0000000000000;", "mov.b64 %rd2, 0.5;");
}

#[test]
fn repeated_sync_modifier() {
    accepts(
        "shfl.sync.bfly.b32 %r1, %r2, 2, 31, -1;",
        "shfl.sync.bfly.b32.sync %r1, %r2, 2, 31, -1;",
    );
}

#[test]
fn vote_sync_pred_without_mode_is_any() {
    accepts(
        "vote.sync.any.pred %p1, %p2, -1;",
        "vote.sync.pred %p1, %p2, -1;",
    );
}

#[test]
fn vote_takes_a_predicate_immediate() {
    accepts(
        "vote.sync.any.pred %p1, %p2, -1;",
        "vote.sync.any.pred %p1, 1, -1;",
    );
}

/// A decimal float in a `.b64` operand is its IEEE double bits. Oracle: ptxas 12.9
/// (sm_90) assembles `mov.b64 %rd2, 0.5` and `mov.b64 %rd2, 0x3FE0000000000000` to the
/// same cubin, byte for byte. Both backends.
#[test]
fn float_literal_in_b64_runs_as_its_double_bits() {
    let src = module("mov.b64 %rd2, 0.5;\n\tst.global.u64 [%rd1], %rd2;");
    assert_eq!(
        run_both_with(&src, 1, &[0u64], &[]),
        vec![0x3FE0_0000_0000_0000]
    );
}

/// ptxas: `Illegal modifier '.ftz' for instruction 'tanh'`.
#[test]
fn tanh_has_no_ftz() {
    rejects(
        "tanh.approx.f32 %f1, %f2;",
        "tanh.ftz.approx.f32 %f1, %f2;",
        "12:2: error: '.ftz' is not valid for 'tanh.ftz.approx.f32'",
    );
}

/// `.bf16x2` on a target below sm_80. ptxas (same kernel, `.target sm_70`, `-arch
/// sm_70`): `Feature '.bf16x2' requires .target sm_75 or higher` (and on sm_75 "sm_80
/// or higher"); on sm_90 it accepts `add.bf16x2`.
#[test]
fn bf16x2_needs_sm_80() {
    let line = "add.bf16x2 %r1, %r2, %r3;";
    if let Err(e) = parse_and_check(&module(line), "m.ptx") {
        panic!("sm_90 must load: {e}");
    }
    let src = module(line).replace(".target sm_90", ".target sm_70");
    match parse_and_check(&src, "m.ptx") {
        Ok(_) => panic!("sm_70 must reject .bf16x2"),
        Err(e) => assert_eq!(
            e.to_string(),
            "m.ptx:12:5: error: .bf16x2 requires .target sm_80 or higher (this module targets sm_70)"
        ),
    }
}

/// A 32-bit register as a `.global` (or generic) address under `.address_size 64`.
/// ptxas: `fatal : 32-Bit compilation is no longer supported` (a 32-bit `.shared`
/// address is fine: `tests/addr32.rs`).
#[test]
fn global_address_needs_64_bits() {
    rejects(
        "ld.shared.u32 %r1, [%r2];",
        "ld.global.u32 %r1, [%r2];",
        "12:22: error: address register '%r2' is 32-bit: a generic or .global address needs a 64-bit register under .address_size 64",
    );
}

// ---- Seed 16 run (MUTATION_FINDINGS.md, "Rerun after the fixes"): too strict ----

/// `vset` with a negative immediate: ptxas reads `-1` as the constant 0xFFFFFFFF (only
/// `vmad` negates operands). `vset.u32.u32.ne d, a, -1` is 1 for a = 5, 0 for a =
/// 0xFFFFFFFF; `vset.u32.u32.lt` compares unsigned: 5 < 0xFFFFFFFF.
#[test]
fn vset_takes_a_negative_immediate() {
    accepts(
        "vset.u32.u32.ne %r1, %r2, %r3.h1;",
        "vset.u32.u32.ne %r1, %r2, -1;",
    );
    let got = run(
        "ld.global.u32 %r2, [%rd1];\n\tld.global.u32 %r3, [%rd1+4];\n\t\
         vset.u32.u32.ne %r4, %r2, -1;\n\tvset.u32.u32.ne %r5, %r3, -1;\n\t\
         vset.u32.u32.lt %r6, %r2, -1;\n\t\
         st.global.u32 [%rd1+8], %r4;\n\tst.global.u32 [%rd1+12], %r5;\n\t\
         st.global.u32 [%rd1+16], %r6;",
        &[0xFFFF_FFFF_0000_0005, 0, 0],
    );
    // Words at +8/+12: (5 != -1) = 1, (-1 != -1) = 0; at +16: 5 < 0xFFFFFFFF = 1.
    assert_eq!(got[1], 1, "{got:x?}");
    assert_eq!(got[2], 1, "{got:x?}");
}

/// ptxas: "Incorrect video selector for operand 2": the SIMD video instructions take
/// no immediates.
#[test]
fn simd_video_takes_no_immediates() {
    rejects(
        "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r1;",
        "vadd2.s32.s32.u32.sat %r1, %r2, 255U, %r1;",
        "12:34: error: a SIMD video operand must be a register ('vadd2.s32.s32.u32.sat')",
    );
}

/// `rcp.rn.ftz.f64`: ptxas 12.9 (sm_90) assembles it to the cubin of `rcp.rn.f64`,
/// byte for byte. 1/3 and 1/-7 rounded to nearest are Rust's `1.0 / x` (IEEE division).
#[test]
fn rcp_rn_ftz_f64_is_rcp_rn_f64() {
    accepts("rcp.rn.f64 %fd1, %fd2;", "rcp.rn.ftz.f64 %fd1, %fd2;");
    let got = run(
        "ld.global.f64 %fd2, [%rd1];\n\trcp.rn.ftz.f64 %fd1, %fd2;\n\t\
         st.global.f64 [%rd1+8], %fd1;\n\tld.global.f64 %fd2, [%rd1+16];\n\t\
         rcp.rz.ftz.f64 %fd1, %fd2;\n\tst.global.f64 [%rd1+24], %fd1;",
        &[3.0f64.to_bits(), 0, (-7.0f64).to_bits(), 0],
    );
    assert_eq!(got[1], (1.0f64 / 3.0).to_bits());
    // Toward zero: 1/-7 = -2^-3 * 8/7; the 53-bit significand of 8/7 truncated is
    // floor(2^55 / 7), so the bits are sign | (1023 - 3) << 52 | (floor(2^55/7) - 2^52).
    let want = (1u64 << 63) | ((1023 - 3) << 52) | ((1u64 << 55) / 7 - (1 << 52));
    assert_eq!(got[3], want, "{:x} vs {want:x}", got[3]);
}

/// `mov.vN.type d, scalar`: the scalar's bits cut into N pieces, each zero-extended.
/// Oracle: ptxas 12.9 (sm_90) cubins (`mov.v2.b32 {a, b}, 0x11223344` stores 0x3344,
/// 0x1122; `.v4.b32` a register's bytes; `.v2.b64` its words; `.v2.b16` bytes).
#[test]
fn vector_mov_of_a_scalar_splits_it() {
    accepts(
        "mov.v2.u32 {%r1, %r2}, {%r3, %r4};",
        "mov.v2.u32 {%r1, %r2}, 1;",
    );
    let got = run(
        "ld.global.u32 %r3, [%rd1];\n\tmov.v2.b32 {%r1, %r2}, 0x11223344;\n\t\
         st.global.v2.u32 [%rd1+8], {%r1, %r2};\n\t\
         mov.v4.b32 {%r4, %r5, %r6, %r7}, %r3;\n\t\
         st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};\n\t\
         ld.global.u64 %rd2, [%rd1];\n\tmov.v2.u64 {%rd3, %rd4}, %rd2;\n\t\
         st.global.v2.u64 [%rd1+32], {%rd3, %rd4};",
        &[0xCAFE_F00D_A1B2_C3D4, 0, 0, 0, 0, 0],
    );
    assert_eq!(got[1], 0x1122_0000_3344);
    assert_eq!(got[2], (0xC3 << 32) | 0xD4);
    assert_eq!(got[3], (0xA1 << 32) | 0xB2);
    assert_eq!(got[4], 0xA1B2_C3D4);
    assert_eq!(got[5], 0xCAFE_F00D);
}

/// `ld`/`ldu`/`st` of a narrower type with a `.b128` register (the relaxed operand
/// sizes). Oracle: ptxas 12.9 (sm_90) cubins: `ld.global.f32 q` zero-fills above the
/// value, `ldu.global.s64 q` fills with the sign, `st.global.u32 [a], q` stores the low
/// 32 bits.
#[test]
fn narrow_access_to_a_b128_register() {
    accepts(
        ".reg .b128 %q1; ld.global.b128 %q1, [%rd1];",
        ".reg .b128 %q1; ld.global.f32 %q1, [%rd1];",
    );
    let body = "ld.global.f32 %q1, [%rd1];\n\tst.global.b128 [%rd1+16], %q1;\n\t\
                ldu.global.s64 %q2, [%rd1+8];\n\tst.global.b128 [%rd1+32], %q2;\n\t\
                st.global.u32 [%rd1+48], %q2;";
    let got = run(
        &format!(".reg .b128 %q<3>;\n\t{body}"),
        &[0xFFFF_FFFF_3F80_0000, 0xFFFF_FFFF_FFFF_FFF9, 0, 0, 0, 0, 0],
    );
    assert_eq!(&got[2..4], &[0x3F80_0000, 0]);
    assert_eq!(&got[4..6], &[0xFFFF_FFFF_FFFF_FFF9, u64::MAX]);
    assert_eq!(got[6], 0xFFFF_FFF9);
}

/// `ld.volatile` with an L2 prefetch size: ptxas accepts `.L2::64B/128B/256B` (not
/// `.ca`, `.L1::evict_last` or `.L2::cache_hint`) with `.volatile`.
#[test]
fn volatile_load_with_a_prefetch_size() {
    accepts(
        "ld.global.L2::256B.f64 %fd1, [%rd1];",
        "ld.volatile.global.L2::256B.f64 %fd1, [%rd1];",
    );
    let got = run(
        "ld.volatile.global.L2::128B.u64 %rd2, [%rd1];\n\tst.global.u64 [%rd1+8], %rd2;",
        &[0x1234_5678_9ABC_DEF0, 0],
    );
    assert_eq!(got[1], 0x1234_5678_9ABC_DEF0);
}

/// A bulk copy's mbarrier as a bare 64-bit register: ptxas assembles it to the cubin of
/// `[reg]`, byte for byte; a 32-bit register stays an error ("Arguments mismatch").
#[test]
fn bulk_copy_mbarrier_as_a_register() {
    accepts(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd2], [%rd1], 128, [%rd3];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd2], [%rd1], 128, %rd3;",
    );
}

/// `st.async`/`red.async` without the mbarrier operand: ptxas accepts them and
/// assembles nothing (the cubin has no store): ptxjit loads them as no-ops.
#[test]
fn st_async_without_mbarrier() {
    accepts(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd2], %r1, [%rd3];",
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd2], %r1;",
    );
}

/// `mapa` with an immediate address: ptxas assembles `mapa.shared::cluster.u32 d, 3,
/// r` to the cubin of `mapa` on a register holding 3.
#[test]
fn mapa_takes_an_immediate_address() {
    accepts(
        "mapa.shared::cluster.u32 %r1, %r2, 3;",
        "mapa.shared::cluster.u32 %r1, 3, %r2;",
    );
}

/// An indirect call through a 32-bit register: ptxas accepts it, and its cubin calls
/// through the one 32-bit register either way (`CALL.REL.NOINC R2` for a `.u64` and a
/// `.u32` address). Here the low half of a function address from a jump table.
#[test]
fn indirect_call_through_a_32_bit_register() {
    let src = ".version 8.3
.target sm_90
.address_size 64
.func (.reg .u32 rv) foo (.reg .u32 a, .reg .u32 b) { add.u32 rv, a, b; ret; }
.func (.reg .u32 rv) bar (.reg .u32 a, .reg .u32 b) { sub.u32 rv, a, b; ret; }
.global .u64 jmptbl[2] = { foo, bar };
.visible .entry k(.param .u64 out, .param .u32 sel)
{
	.reg .u64 %r0, %rd<4>;
	.reg .u32 retval, x, y, s, a32;
	ld.param.u64 %rd1, [out];
	ld.param.u32 s, [sel];
	mov.u32 x, 7;
	mov.u32 y, 5;
	mul.wide.u32 %rd2, s, 8;
	mov.u64 %rd3, jmptbl;
	add.u64 %rd3, %rd3, %rd2;
	ld.global.u64 %r0, [%rd3];
	cvt.u32.u64 a32, %r0;
	call (retval), a32, (x, y), jmptbl;
	st.global.u32 [%rd1], retval;
	ret;
}
";
    // foo(7, 5) = 12, bar(7, 5) = 2.
    for (sel, want) in [(0u32, 12u32), (1, 2)] {
        let got = run_both_with(src, 1, &[0u32], &[ptxjit::KernelArg::from(sel)]);
        assert_eq!(got, vec![want], "sel {sel}");
    }
}

// ---- Seed 16 run: too lenient (each rule checked against ptxas 12.9, -arch sm_90) ----

/// `module(line)` with another `.version` and `.target`.
fn module_at(line: &str, version: &str, target: &str) -> String {
    module(line)
        .replace(".version 8.5", &format!(".version {version}"))
        .replace(".target sm_90", &format!(".target {target}"))
}

/// `rejects` for a module with another `.version` and `.target`.
fn rejects_at(version: &str, target: &str, original: &str, mutant: &str, want: &str) {
    if let Err(e) = parse_and_check(&module_at(original, version, target), "m.ptx") {
        panic!("original '{original}' must load: {e}");
    }
    match parse_and_check(&module_at(mutant, version, target), "m.ptx") {
        Ok(_) => panic!("mutant '{mutant}' must be rejected"),
        Err(e) => assert_eq!(e.to_string(), format!("m.ptx:{want}"), "{mutant}"),
    }
}

/// ptxas: "Argument 2 of instruction 'cp.async.bulk': unexpected value '7', expected to
/// be multiple of 16" (and "out of range, expected to be in range [0..1048560]").
#[test]
fn bulk_copy_size_is_a_multiple_of_16() {
    rejects(
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 16;",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 7;",
        "12:62: error: the size of 'cp.async.bulk.global.shared::cta.bulk_group' must be a multiple of 16 in [0, 1048560]",
    );
    rejects(
        "cp.async.bulk.prefetch.L2.global [%rd1], %r2;",
        "cp.async.bulk.prefetch.L2.global [%rd1], 0x80000000;",
        "12:43: error: the size of 'cp.async.bulk.prefetch.L2.global' must be a multiple of 16 in [0, 1048560]",
    );
}

/// ptxas: "Special register argument not allowed" / "Arguments mismatch for instruction
/// 'cp.async.bulk.prefetch'".
#[test]
fn bulk_prefetch_operands() {
    rejects(
        "cp.async.bulk.prefetch.L2.global [%rd1], %r2;",
        "cp.async.bulk.prefetch.L2.global [%rd1], %tid.x;",
        "12:43: error: a special register can only be read by 'mov' or 'cvt'",
    );
    rejects(
        "cp.async.bulk.prefetch.L2.global [%rd1], %r2;",
        "cp.async.bulk.prefetch.L2.global %rd1, %r2;",
        "12:35: error: expected an address '[...]'",
    );
}

/// ptxas: "Arguments mismatch for instruction 'cp.async.bulk.wait_group'".
#[test]
fn wait_group_needs_its_count() {
    rejects(
        "cp.async.bulk.wait_group 2;",
        "cp.async.bulk.wait_group;",
        "12:2: error: instruction 'cp.async.bulk.wait_group' takes 1 operands, not 0",
    );
    rejects(
        "cp.async.wait_group 2;",
        "cp.async.wait_group;",
        "12:2: error: instruction 'cp.async.wait_group' takes 1 operands, not 0",
    );
}

/// ptxas: "Arguments mismatch for instruction 'shfl'" (an `.f32` membermask), 'bar.warp'
/// (a float constant), 'redux' (a float source).
#[test]
fn warp_operands_are_integers() {
    rejects(
        "shfl.sync.down.b32 %r1|%p1, %r2, %r3, %r4, %r5;",
        "shfl.sync.down.b32 %r1|%p1, %r2, %r3, %r4, %f1;",
        "12:45: error: register '%f1' has type .f32, which does not fit instruction type .u32",
    );
    rejects(
        "bar.warp.sync -1;",
        "bar.warp.sync 0f3F800000;",
        "12:16: error: floating-point constant cannot be used with type .u32",
    );
    rejects(
        "redux.sync.xor.b32 %r1, %r2, -1;",
        "redux.sync.xor.b32 %r1, 0f3F800000, -1;",
        "12:26: error: a float constant cannot be a source of 'redux.sync.xor.b32'",
    );
}

/// ptxas: "Scope modifier required for instruction 'fence'".
#[test]
fn fence_needs_a_scope() {
    rejects(
        "fence.sc.cta;",
        "fence.sc;",
        "12:2: error: 'fence.sc' needs a scope (.cta, .cluster, .gpu, .sys)",
    );
}

/// ptxas: "Immediate addresses allowed only for .local state space".
#[test]
fn immediate_addresses_only_for_local() {
    rejects("st.local.s32 [100], %r1;", "st.s32 [100], %r1;", "12:10: error: an immediate address is allowed only in the .local state space, not .generic");
    rejects(
        "ld.local.b64 %rd2, [240];",
        "ld.shared.b64 %rd2, [240];",
        "12:23: error: an immediate address is allowed only in the .local state space, not .shared",
    );
}

/// ptxas: "Modifier '.cta' requires order", "Illegal modifier '.acquire'", "Illegal
/// modifier '.cta' for instruction 'mbarrier.pending_count'", "Unexpected instruction
/// types", "Unknown modifier '.expect_tx'".
#[test]
fn mbarrier_qualifiers() {
    rejects(
        "mbarrier.complete_tx.relaxed.cta.shared.b64 [%rd2], 512;",
        "mbarrier.complete_tx.cta.shared.b64 [%rd2], 512;",
        "12:22: error: scope '.cta' needs a semantics in 'mbarrier.complete_tx.cta.shared.b64'",
    );
    rejects(
        "mbarrier.complete_tx.shared.b64 [%rd2], 512;",
        "mbarrier.complete_tx.shared.b64.acquire [%rd2], 512;",
        "12:33: error: modifier '.acquire' is not allowed in 'mbarrier.complete_tx.shared.b64.acquire'",
    );
    rejects(
        "mbarrier.pending_count.b64 %r1, %rd2;",
        "mbarrier.pending_count.cta.b64 %r1, %rd2;",
        "12:24: error: modifier '.cta' is not allowed in 'mbarrier.pending_count.cta.b64'",
    );
    rejects(
        "mbarrier.pending_count.b64 %r1, %rd2;",
        "mbarrier.pending_count %r1, %rd2;",
        "12:2: error: 'mbarrier.pending_count' needs '.b64'",
    );
    rejects(
        "mbarrier.expect_tx.b64 [%rd2], 32;",
        "mbarrier.cta.expect_tx.b64 [%rd2], 32;",
        "12:10: error: 'mbarrier.cta.expect_tx.b64' must name its operation first",
    );
}

/// ptxas: "Arguments mismatch for instruction 'getctarank'" (a bare 32-bit register as
/// a `.u64` address; `%r2 + 4` is accepted).
#[test]
fn getctarank_address_size() {
    rejects(
        "getctarank.shared::cluster.u64 %r1, %rd2;",
        "getctarank.shared::cluster.u64 %r1, %r2;",
        "12:38: error: address register '%r2' is 32-bit; 'getctarank.shared::cluster.u64' needs a 64-bit address",
    );
}

/// ptxas: "Arguments mismatch for instruction 'createpolicy.fractional'" (a `.b64`
/// fraction), "value '1048576' must be less than or equal to the value '0' of argument
/// 4", "Arguments mismatch for instruction 'createpolicy.range'" (a `.b64` size).
#[test]
fn createpolicy_operands() {
    rejects(
        "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %rd2, %rd3;",
        "12:51: error: register '%rd3' has type .b64, which does not fit instruction type .f32",
    );
    let range = "createpolicy.range.L2::evict_last.L2::evict_first.b64 %rd2, [%rd1], 0x100000,";
    rejects(
        &format!("{range} 0x200000;"),
        &format!("{range} 0;"),
        "12:70: error: the primary size of 'createpolicy.range.L2::evict_last.L2::evict_first.b64' exceeds the total size",
    );
    rejects(
        &format!("{range} 0x200000;"),
        &format!("{range} %rd3;"),
        "12:80: error: register '%rd3' has type .b64, which does not fit instruction type .u32",
    );
}

/// ptxas: "Modifier '.release' requires scope with 'multimem.st' instruction".
#[test]
fn multimem_semantics_need_a_scope() {
    rejects(
        "multimem.st.release.cta.global.u32 [%rd1], %r1;",
        "multimem.st.release.global.u32 [%rd1], %r1;",
        "12:2: error: 'multimem.st.release.global.u32' needs a scope (.cta, .cluster, .gpu, .sys)",
    );
}

/// ptxas: "Arguments mismatch for instruction 'cvt'": `.bf16` operands are 16-bit
/// registers; packed fp8 sources are registers.
#[test]
fn cvt_bf16_and_fp8_operands() {
    rejects(
        ".reg .b16 %h; cvt.rn.bf16.f32 %h, %f1;",
        ".reg .b16 %h; cvt.rn.bf16.f32 %rd3, %f1;",
        "12:32: error: register '%rd3' has type .b64, which does not fit instruction type .bf16",
    );
    rejects(
        ".reg .b16 %h; cvt.f64.bf16 %fd1, %h;",
        ".reg .b16 %h; cvt.f64.bf16 %fd1, %rd2;",
        "12:35: error: register '%rd2' has type .b64, which does not fit instruction type .bf16",
    );
    rejects(
        ".reg .b16 %h; cvt.rn.f16x2.e4m3x2 %r1, %h;",
        ".reg .b16 %h; cvt.rn.f16x2.e4m3x2 %r1, 5;",
        "12:41: error: a .b16 source of 'cvt.rn.f16x2.e4m3x2' must be a register",
    );
}

/// ptxas: "Illegal modifier '.sat' for instruction 'cvt'" where the conversion cannot
/// overflow (`cvt.sat.u64.s32` can: it is accepted).
#[test]
fn cvt_sat_needs_a_possible_overflow() {
    rejects(
        "cvt.sat.u64.s32 %rd2, %r1;",
        "cvt.s64.sat.s32 %rd2, %r1;",
        "12:2: error: '.sat' is not valid for 'cvt.s64.sat.s32': the conversion cannot overflow",
    );
}

/// ptxas: "Result register required for instruction 'stackrestore'".
#[test]
fn stackrestore_takes_a_register() {
    rejects(
        "stackrestore.u64 %rd2;",
        "stackrestore.u64 255;",
        "12:19: error: 'stackrestore' takes a register (a value 'stacksave' wrote)",
    );
}

/// ptxas: "Unknown modifier '.to'" (`.to` after the state space).
#[test]
fn cvta_to_comes_first() {
    rejects(
        "cvta.to.shared.u64 %rd2, %rd3;",
        "cvta.shared.to.u64 %rd2, %rd3;",
        "12:13: error: '.to' must come before the state space in 'cvta.shared.to.u64'",
    );
}

/// Version and target requirements. ptxas: "Modifier '.evict_last' on 'ld' requires PTX
/// ISA .version 7.4 or later" (`.version 6.5`, sm_70), "... requires .target sm_70 or
/// higher" (sm_61), "Feature '.relu' requires PTX ISA .version 7.0 or later",
/// "Feature 'f16 arithemetic and compare instructions' requires .target sm_53".
#[test]
fn feature_requirements() {
    rejects_at(
        "6.5",
        "sm_70",
        "ld.global.u32 %r2, [%rd1];",
        "ld.global.u32.L1::evict_last %r2, [%rd1];",
        "12:15: error: '.L1::evict_last' on 'ld' requires PTX ISA .version 7.4 or later (this module is 6.5)",
    );
    rejects_at(
        "7.4",
        "sm_61",
        "st.global.u32 [%rd1], %r2;",
        "st.L1::evict_last.global.u32 [%rd1], %r2;",
        "12:4: error: '.L1::evict_last' on 'st' requires .target sm_70 or higher (this module targets sm_61)",
    );
    rejects_at(
        "6.5",
        "sm_75",
        "cvt.rn.f16.f32 %r1, %f1;",
        "cvt.relu.rn.f16.f32 %r1, %f1;",
        "12:5: error: '.relu' on 'cvt' requires PTX ISA .version 7.0 or later (this module is 6.5)",
    );
    rejects_at(
        "6.0",
        "sm_52",
        "setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;",
        "setp.lt.and.f16x2 %p1|%p2, %r1, %r2, %p3;",
        "12:13: error: '.f16x2' arithmetic and comparison requires .target sm_53 or higher (this module targets sm_52)",
    );
}

/// ptxas: "Arguments mismatch for instruction 'suq'" (a `.b64` destination).
#[test]
fn surface_query_result_is_32_bits() {
    rejects(
        ".reg .b64 s; suq.width.b32 %r1, [s];",
        ".reg .b64 s; suq.width.b32 s, [s];",
        "12:29: error: register 's' has type .b64, which does not fit instruction type .b32",
    );
}

/// Seed-17 rerun: ptxas accepts any integer look-up table for `lop3` and keeps its low 8
/// bits (`cuobjdump -sass` of the sm_90 cubins: `-1` and `0x1ff` give `LOP3.LUT …, 0xff`,
/// `0x1fe` gives `0xfe`, `256` gives `0x0`; the `lop3.or … d|p` form likewise).
/// Inputs a = 0xF0F0F0F0, b = 0xCCCCCCCC, c = 0xAAAAAAAA (the LUT's own bit patterns), so
/// the result is the LUT byte repeated: 0xff → 0xFFFFFFFF, 0xfe → 0xFEFEFEFE, 0x00 → 0.
#[test]
fn lop3_table_keeps_the_low_8_bits() {
    let lines = [
        "lop3.b32 %r4, %r1, %r2, %r3, -1;",
        "lop3.b32 %r4, %r1, %r2, %r3, 0x1fe;",
        "lop3.b32 %r4, %r1, %r2, %r3, 256;",
        "lop3.or.b32 %r4|%p1, %r1, %r2, %r3, 0x1fe, 0;",
    ];
    let want = [0xFFFF_FFFFu32, 0xFEFE_FEFE, 0, 0xFEFE_FEFE];
    for (line, want) in lines.iter().zip(want) {
        let src = module(&format!(
            "mov.b32 %r1, 0xF0F0F0F0;\n\tmov.b32 %r2, 0xCCCCCCCC;\n\tmov.b32 %r3, 0xAAAAAAAA;\n\t{line}\n\tst.global.u32 [%rd1], %r4;"
        ));
        assert_eq!(run_both(&src, 1, 4), vec![want], "{line}");
    }
}

/// Seed-17 rerun: `shfl.sync`'s `b` and `c` are `.b32` operands in ptxas 12.9, which
/// accepts `0f00000002` and an `.f32` register there (and rejects `1.0` and a `.b16`
/// register). Lane 5 reads lane 5 + 2 = 7 (`down`, c = 0x1f), so the value is 7·3 = 21.
#[test]
fn shfl_lane_operands_are_b32() {
    let body = "mov.u32 %r1, %tid.x;\n\tmul.lo.u32 %r2, %r1, 3;\n\tmov.b32 %f1, 0f0000001f;\n\t{LINE}\n\tsetp.eq.u32 %p2, %r1, 5;\n\t@%p2 st.global.u32 [%rd1], %r3;";
    for line in [
        "shfl.sync.down.b32 %r3|%p1, %r2, 0f00000002, %f1, -1;",
        "shfl.sync.down.b32 %r3|%p1, %r2, 2, 0f0000001f, -1;",
    ] {
        let src = module(&body.replace("{LINE}", line));
        assert_eq!(run_both(&src, 32, 4), vec![21], "{line}");
    }
    rejects(
        "shfl.sync.down.b32 %r3|%p1, %r2, 2, 31, -1;",
        "shfl.sync.down.b32 %r3|%p1, %r2, 1.0, 31, -1;",
        "12:35: error: floating-point constant cannot be used with type .b32",
    );
}

/// Seed-17 rerun: ptxas 12.9 on sm_86: "Feature 'add.bf16x2' requires .target sm_90 or
/// higher" (likewise `setp.bf16`, `sub`/`mul`/`set` on `.bf16`/`.bf16x2`); `fma.rn.bf16`
/// loads on sm_86.
#[test]
fn bf16_add_and_setp_need_sm_90() {
    let sm86 = |line: &str| module(line).replace(".target sm_90", ".target sm_86");
    for (line, want) in [
        (
            "add.bf16x2 %r2, %r3, %r4;",
            "m.ptx:12:5: error: 'add.bf16x2' requires .target sm_90 or higher (this module targets sm_86)",
        ),
        (
            "setp.eq.bf16x2 %p1|%p2, %r3, %r4;",
            "m.ptx:12:9: error: 'setp.bf16x2' requires .target sm_90 or higher (this module targets sm_86)",
        ),
    ] {
        assert!(parse_and_check(&module(line), "m.ptx").is_ok(), "{line} on sm_90");
        match parse_and_check(&sm86(line), "m.ptx") {
            Ok(_) => panic!("{line} must be rejected on sm_86"),
            Err(e) => assert_eq!(e.to_string(), want),
        }
    }
    assert!(parse_and_check(&sm86("fma.rn.bf16x2 %r2, %r3, %r4, %r5;"), "m.ptx").is_ok());
}
