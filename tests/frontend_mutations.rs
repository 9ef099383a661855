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
use common::*;
use ptxjit::check::parse_and_check;
use ptxjit::Backend;

const HEAD: &str = ".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	ld.param.u64 %rd1, [p];
";

fn module(line: &str) -> String {
    format!("{HEAD}\t{line}\n\tret;\n}}\n")
}

/// The original loads, the mutant fails with `m.ptx:<want>`.
fn rejects(original: &str, mutant: &str, want: &str) {
    if let Err(e) = parse_and_check(&module(original), "m.ptx") {
        panic!("original '{original}' must load: {e}");
    }
    match parse_and_check(&module(mutant), "m.ptx") {
        Ok(_) => panic!("mutant '{mutant}' must be rejected"),
        Err(e) => assert_eq!(e.to_string(), format!("m.ptx:{want}"), "{mutant}"),
    }
}

/// ptxas accepts both forms.
fn accepts(original: &str, mutant: &str) {
    for l in [original, mutant] {
        if let Err(e) = parse_and_check(&module(l), "m.ptx") {
            panic!("'{l}' must load: {e}");
        }
    }
}

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
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(&src, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = zeroed(&dev, 8);
        launch(
            &dev,
            &m,
            "k",
            &cfg([1, 1, 1], [1, 1, 1], backend),
            &[arg(&out)],
            "b64 float",
        );
        let got: Vec<u64> = dev.read(&out).expect("read");
        assert_eq!(got, vec![0x3FE0_0000_0000_0000], "{backend:?}");
    }
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
