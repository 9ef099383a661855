//! The seed-21 and seed-22 mutation runs' findings (issue 15,
//! `tests/corpus/MUTATION_FINDINGS.md`, "Seeds 21 and 22"). Oracle: ptxas 12.9 (`-arch sm_90`) on
//! the same modules; its error for each rejected form is quoted in the comment. Forms
//! ptxas accepts run on both backends, with expected values worked out by hand in the
//! comments.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::check::parse_and_check;

const HEAD: &str = ".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .b128 %q;
	.reg .u32 %u<4>;
	.reg .f32 %f<4>;
	.reg .b16 %h<4>;
	.reg .u16 %hu;
	.reg .f16x2 %x;
	.shared .align 16 .b8 sh[16];
	ld.param.u64 %rd1, [p];
";

/// `body` (lines starting at line 16) in the sm_90 kernel above.
fn module(body: &str) -> String {
    finding_module(HEAD, body)
}

/// `body` must fail to load with `m.ptx:<want>`.
fn rejects(body: &str, want: &str) {
    finding_rejects(HEAD, body, want)
}

/// `body` run on both backends (see [`finding_run_both`]).
fn run_both<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(body: &str, init: &[T]) -> Vec<T> {
    finding_run_both(HEAD, body, init)
}

// ---- too lenient: ptxas rejects, so must ptxjit ----

/// ptxas 12.9 rejects every cache qualifier on `ldu`, before or after `.global` and for
/// any type: "Illegal modifier '.cs' for instruction 'ldu'" (likewise `.ca .cg .lu .cv
/// .nc .L2::64B .L2::128B .L2::256B .L2::cache_hint`), "Illegal modifier
/// '.level::eviction_priority' for instruction 'ldu'" (`.L1::evict_*`,
/// `.L1::no_allocate`, `.L2::evict_*`). `ld.global` takes them all.
#[test]
fn ldu_takes_no_cache_qualifiers() {
    let msg = |q: &str, text: &str| {
        format!("16:2: error: '.{q}' is not a qualifier of 'ldu' in '{text}'")
    };
    rejects(
        "\tldu.global.b128.cs %q, [%rd1];",
        &msg("cs", "ldu.global.b128.cs"),
    );
    for q in [
        "ca",
        "cg",
        "cs",
        "lu",
        "cv",
        "nc",
        "L1::evict_last",
        "L1::no_allocate",
        "L2::evict_first",
        "L2::64B",
        "L2::256B",
    ] {
        rejects(
            &format!("\tldu.global.{q}.u32 %r1, [%rd1];"),
            &msg(q, &format!("ldu.global.{q}.u32")),
        );
        rejects(
            &format!("\tldu.{q}.global.u32 %r1, [%rd1];"),
            &msg(q, &format!("ldu.{q}.global.u32")),
        );
    }
    rejects(
        "\tldu.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
        &msg("L2::cache_hint", "ldu.global.L2::cache_hint.u32"),
    );
    for ok in [
        "\tld.global.cs.u32 %r1, [%rd1];",
        "\tld.global.nc.L1::evict_last.u32 %r1, [%rd1];",
        "\tld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
    ] {
        if let Err(e) = parse_and_check(&module(ok), "m.ptx") {
            panic!("'{ok}' must load: {e}");
        }
    }
}

/// `ldu` without qualifiers loads and runs. The words at `p` are 0x11111111, 0x22222222,
/// 0x33333333, 0x44444444, then zeros: r1 (scalar at byte 0) = word 0, {r2, r3} (`.v2`
/// at byte 8) = words 2 and 3, stored at words 4..6 (word 7 stays 0); the `.b128` load
/// of bytes 0..16 stored at byte 32 puts words 0..3 unchanged at words 8..11.
#[test]
fn ldu_without_qualifiers_runs() {
    let body = "\tldu.global.u32 %r1, [%rd1];
	ldu.global.v2.u32 {%r2, %r3}, [%rd1+8];
	ldu.global.b128 %q, [%rd1];
	st.global.v2.u32 [%rd1+16], {%r1, %r2};
	st.global.u32 [%rd1+24], %r3;
	st.global.b128 [%rd1+32], %q;";
    let init = [
        0x1111_1111u32,
        0x2222_2222,
        0x3333_3333,
        0x4444_4444,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ];
    assert_eq!(
        run_both(body, &init),
        vec![
            0x1111_1111,
            0x2222_2222,
            0x3333_3333,
            0x4444_4444,
            0x1111_1111,
            0x3333_3333,
            0x4444_4444,
            0,
            0x1111_1111,
            0x2222_2222,
            0x3333_3333,
            0x4444_4444
        ]
    );
}

/// ptxas 12.9 takes a packed or narrow `cvt` operand only in a bit register of exactly
/// the packed size (`.b32` for `.f16x2`/`.bf16x2`/`.tf32`, `.b16` for an fp8 pair), or in
/// an `.f16x2` register where the format is `.f16x2`; an integer or `.f32` register is
/// "Arguments mismatch for instruction 'cvt'" (seed 22: `cvt.rn.f16x2.f32` into an
/// `.f32` register), as is an `.f16x2` register for `.bf16x2`. A single `.f16` result
/// (`.relu`) goes to an `.f16` or bit register, not `.u32`.
#[test]
fn cvt_packed_operands_are_bit_registers() {
    const B32: &str = "a .b32 register";
    const B16: &str = "a .b16 register";
    const F16X2: &str = "a .b32 or .f16x2 register";
    const F16: &str = "an .f16 register or a bit register of at least 16 bits";
    for (line, reg, ty, want) in [
        ("cvt.rn.f16x2.f32 %f1, %f2, %f3;", "%f1", ".f32", F16X2),
        ("cvt.rn.bf16x2.f32 %u1, %f2, %f3;", "%u1", ".u32", B32),
        ("cvt.rn.bf16x2.f32 %x, %f2, %f3;", "%x", ".f16x2", B32),
        ("cvt.rna.tf32.f32 %u1, %f2;", "%u1", ".u32", B32),
        ("cvt.rn.f16x2.e4m3x2 %r1, %hu;", "%hu", ".u16", B16),
        (
            "cvt.rn.satfinite.e4m3x2.f32 %hu, %f1, %f2;",
            "%hu",
            ".u16",
            B16,
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f16x2 %h1, %u1;",
            "%u1",
            ".u32",
            F16X2,
        ),
        ("cvt.rn.relu.f16.f32 %u1, %f1;", "%u1", ".u32", F16),
    ] {
        let col = line.find(reg).map_or(0, |k| k + 2);
        let text = &line[..line.find(' ').unwrap_or(0)];
        rejects(
            &format!("\t{line}"),
            &format!("16:{col}: error: register '{reg}' has type {ty}; this operand of '{text}' needs {want}"),
        );
    }
}

/// The accepted registers run. 1.5 is f16 0x3E00 and -2.0 is 0xC000, so
/// `cvt.rn.f16x2.f32 x, 1.5, -2.0` (a to the upper half) is 0x3E00C000 in an `.f16x2`
/// register; as e4m3 (bias 7, 3 mantissa bits) 1.5 = 0 0111 100 = 0x3C and -2.0 =
/// 1 1000 000 = 0xC0, so `e4m3x2.f16x2` gives 0x3CC0 and converting back gives 0x3E00C000
/// again; `relu.f16` of 1.5 is 0x3E00. Words: 0x3E00C000, 0x3CC0 | 0x3E00 << 16,
/// 0x3E00C000.
#[test]
fn cvt_packed_operands_run() {
    let body = "\tmov.f32 %f1, 0f3FC00000;
	mov.f32 %f2, 0fC0000000;
	cvt.rn.f16x2.f32 %x, %f1, %f2;
	mov.b32 %r1, %x;
	cvt.rn.satfinite.e4m3x2.f16x2 %h1, %x;
	cvt.rn.relu.f16.f32 %h2, %f1;
	cvt.rn.f16x2.e4m3x2 %r2, %h1;
	st.global.b32 [%rd1], %r1;
	st.global.v2.b16 [%rd1+4], {%h1, %h2};
	st.global.b32 [%rd1+8], %r2;";
    assert_eq!(
        run_both(body, &[0u32; 3]),
        vec![0x3E00_C000, 0x3E00_3CC0, 0x3E00_C000]
    );
}

/// ptxas 12.9 checks a bulk copy's constant size on its low 32 bits, read as signed
/// (seed 22: `cp.async.bulk...complete_tx::bytes [d], [s], 4294967296, [mbar]` loads):
/// 4294967312 is 16 and loads for copies, reductions and prefetches; 4294967297 is 1
/// ("unexpected value '1', expected to be multiple of 16") and -16 is below 0 ("value
/// '-16' out of range, expected to be in range [0..1048560]"). The copy of size
/// 4294967312 moves the 16 shared bytes 7, 8, 9, 10 to `p`.
#[test]
fn bulk_size_is_the_low_32_bits() {
    let body = "\tst.shared.v4.u32 [sh], {7, 8, 9, 10};
	fence.proxy.async.shared::cta;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sh], 4294967312;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;";
    assert_eq!(run_both(body, &[0u32; 4]), vec![7, 8, 9, 10]);
    for ok in [
        "\tcp.async.bulk.prefetch.L2.global [%rd1], 4294967296;",
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [sh], 4294967312;",
    ] {
        if let Err(e) = parse_and_check(&module(ok), "m.ptx") {
            panic!("'{ok}' must load: {e}");
        }
    }
    for n in ["4294967297", "-16"] {
        let line = format!("\tcp.async.bulk.global.shared::cta.bulk_group [%rd1], [sh], {n};");
        rejects(
            &line,
            "16:60: error: the size of 'cp.async.bulk.global.shared::cta.bulk_group' must be a multiple of 16 in [0, 1048560]",
        );
    }
}

/// Found while probing the seed-22 `cvt` rule: ptxas 12.9 rejects `.bf16` and `.bf16x2`
/// as declared types, for registers, variables and parameters ("Parsing error near
/// '.bf16': syntax error"); bf16 values live in `.b16`/`.b32` registers, which load.
#[test]
fn bf16_is_not_a_declared_type() {
    rejects(
        "\t.reg .bf16 %z;",
        "16:7: error: '.bf16' cannot be a declared type (use .b16 or .b32)",
    );
    rejects(
        "\t.local .align 4 .bf16x2 l;",
        "16:18: error: '.bf16x2' cannot be a declared type (use .b16 or .b32)",
    );
    let entry = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .bf16 a)\n{\n\tret;\n}\n";
    match parse_and_check(entry, "m.ptx") {
        Ok(_) => panic!("a .bf16 parameter must be rejected"),
        Err(e) => assert_eq!(
            e.to_string(),
            "m.ptx:4:26: error: '.bf16' cannot be a declared type (use .b16 or .b32)"
        ),
    }
    if let Err(e) = parse_and_check(&module("\t.reg .b16 %z;\n\t.reg .b32 %y;"), "m.ptx") {
        panic!("bf16 values in .b16/.b32 registers must load: {e}");
    }
}

// ---- seed 23: ptxas accepts, ptxjit stopped with an internal error ----

/// `setp.eq.b32 %p, %r, %f` with an `.f32` register (seed 23): a bit type takes any
/// register of its size, and the comparison is of the bits, not of the float values.
/// ptxas 12.9 accepts it; ptxjit's checker let it through but lowered it to a `.u32`
/// comparison the IR validator refused for the `.f32` register ("internal error").
/// Bits: 1.0 = 0x3F800000 equals `%r1` = 0x3F800000 (1); -0.0 = 0x80000000 differs
/// from 0 (0, where `setp.eq.f32` would say equal); `set.ne.u32.b32` of the same pair
/// gives 0xFFFFFFFF, and `set.eq.u32.b32` of the NaN 0x7FC00000 with itself gives
/// 0xFFFFFFFF (the bits are equal, though a NaN is unequal to itself as a float).
#[test]
fn setp_bits_of_a_float_register() {
    let body = "\t{
	.reg .pred %p<3>;
	mov.f32 %f1, 0f3F800000;
	mov.b32 %r1, 0x3F800000;
	setp.eq.b32 %p1, %r1, %f1;
	selp.u32 %r2, 1, 0, %p1;
	mov.f32 %f2, 0f80000000;
	setp.eq.b32 %p2, %f2, 0;
	selp.u32 %r3, 1, 0, %p2;
	set.ne.u32.b32 %r4, %f2, 0;
	mov.f32 %f3, 0f7FC00000;
	set.eq.u32.b32 %r5, %f3, %f3;
	st.global.v4.b32 [%rd1], {%r2, %r3, %r4, %r5};
	}";
    assert_eq!(
        run_both(body, &[7u32; 4]),
        vec![1, 0, 0xFFFF_FFFF, 0xFFFF_FFFF]
    );
}

// ---- seed 23: too lenient (ptxas rejects, so must ptxjit) ----

/// Seed 23's lenient forms, each with ptxas 12.9's error on the same module:
/// - `.ftz` with `.oob` on `fma` (any half type): "Modifier '.ftz' cannot be combined
///   with modifier '.oob'";
/// - `.read` on `cp.async.wait_group`/`wait_all` (only `cp.async.bulk.wait_group` has
///   it): "Illegal modifier '.read' for instruction 'cp.async.wait_group'";
/// - a floating-point `lop3` look-up table: "Arguments mismatch for instruction 'lop3'";
/// - `st` into `.const`, modifiers in either order: "State space incorrect for
///   instruction 'st'";
/// - a constant `cp.async` src-size outside [0, cp-size]: "Argument 3 of instruction
///   'cp.async': value '7' out of range, expected to be in range [0..4]" (and '-1' for
///   [0..16]).
#[test]
fn seed23_lenient_forms_are_rejected() {
    let cases = [
        (
            "\tfma.ftz.rn.oob.relu.f16x2 %r1, %r2, %r3, %r4;",
            "16:5: error: modifier '.ftz' is not valid for 'fma.ftz.rn.oob.relu.f16x2' together with '.oob'",
        ),
        (
            "\tfma.rn.oob.ftz.f16 %h1, %h2, %h3, %h1;",
            "16:12: error: modifier '.ftz' is not valid for 'fma.rn.oob.ftz.f16' together with '.oob'",
        ),
        (
            "\tcp.async.wait_group.read 0;",
            "16:21: error: '.read' is only valid on 'cp.async.bulk.wait_group', not in 'cp.async.wait_group.read'",
        ),
        (
            "\tcp.async.wait_all.read;",
            "16:19: error: '.read' is only valid on 'cp.async.bulk.wait_group', not in 'cp.async.wait_all.read'",
        ),
        (
            "\tlop3.b32 %r1, %r2, %r3, %r4, 0f3F800000;",
            "16:31: error: the lop3 look-up table must be an integer immediate",
        ),
        (
            "\tst.b16.const [%rd1], %h1;",
            "16:2: error: 'st.b16.const' cannot write the .const state space",
        ),
        (
            "\tst.const.u32 [%rd1], %r1;",
            "16:2: error: 'st.const.u32' cannot write the .const state space",
        ),
        (
            "\tcp.async.ca.shared.global [sh], [%rd1], 4, 7;",
            "16:45: error: the src-size 7 of 'cp.async.ca.shared.global' is out of range [0, 4]",
        ),
        (
            "\tcp.async.cg.shared.global [sh], [%rd1], 16, -1;",
            "16:46: error: the src-size -1 of 'cp.async.cg.shared.global' is out of range [0, 16]",
        ),
    ];
    for (body, want) in cases {
        rejects(body, want);
    }
}

/// `.relu` on `fma` needs sm_80 and `.oob` sm_90 (ptxas 12.9: "Modifier '.relu' requires
/// .target sm_80 or higher", "Modifier '.oob' requires .target sm_90 or higher"); the
/// same instructions load on the targets that have them.
#[test]
fn seed23_fma_modifier_targets() {
    let src = |sm: u32, inst: &str| {
        format!(
            ".version 8.5\n.target sm_{sm}\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .b16 %h<4>;\n\t{inst}\n\tret;\n}}\n"
        )
    };
    let relu = "fma.rn.relu.f16 %h1, %h2, %h3, %h1;";
    let oob = "fma.rn.oob.f16 %h1, %h2, %h3, %h1;";
    for (sm, inst, want) in [
        (75, relu, "m.ptx:7:8: error: '.relu' on 'fma' requires .target sm_80 or higher (this module targets sm_75)"),
        (80, oob, "m.ptx:7:8: error: '.oob' on 'fma' requires .target sm_90 or higher (this module targets sm_80)"),
    ] {
        match parse_and_check(&src(sm, inst), "m.ptx") {
            Ok(_) => panic!("'{inst}' must be rejected under sm_{sm}"),
            Err(e) => assert_eq!(e.to_string(), want),
        }
    }
    for (sm, inst) in [(80, relu), (90, oob)] {
        if let Err(e) = parse_and_check(&src(sm, inst), "m.ptx") {
            panic!("'{inst}' must load under sm_{sm}: {e}");
        }
    }
}

// ---- seed 23: too strict (ptxas accepts, so must ptxjit) ----

/// `fns.b32`'s `base` and `offset` (typed `.u32`/`.s32` by the ISA) take any 32-bit
/// register and hexadecimal float constants in ptxas 12.9, as bits (a decimal `1.0`
/// stays "Arguments mismatch"). By the ISA's pseudo-code, with mask 0xAAAAAAAA (the odd
/// bits): base = the bits 3 of `%f1` (0f00000003), offset 1 → the first set bit from 3
/// up: 3; base 0, offset = the bits 2 of `%f2` → the second set bit from 0 up: 3; base =
/// 0f00000005, offset 1 → 5; offset 0f3F800000 = 1,065,353,216 → no such bit: 0xFFFFFFFF.
#[test]
fn fns_takes_bit_operands() {
    let body = "\tmov.b32 %f1, 0f00000003;
	mov.b32 %f2, 0f00000002;
	fns.b32 %r1, 0xAAAAAAAA, %f1, 1;
	fns.b32 %r2, 0xAAAAAAAA, 0, %f2;
	fns.b32 %r3, 0xAAAAAAAA, 0f00000005, 1;
	fns.b32 %r4, 0xAAAAAAAA, 0, 0f3F800000;
	st.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};";
    assert_eq!(run_both(body, &[7u32; 4]), vec![3, 3, 5, 0xFFFF_FFFF]);
    rejects(
        "\tfns.b32 %r1, %r2, 1.0, -1;",
        "16:20: error: floating-point constant cannot be used with type .b32",
    );
}

/// `mapa` and `getctarank` take `.s32`/`.s64` as well as `.u32`/`.u64` (ptxas 12.9;
/// `.b32`/`.b64` are "Unexpected instruction types"). `getctarank.s64` of the CTA's own
/// shared array in a launch without clusters (a cluster of one) is rank 0.
#[test]
fn cluster_address_types_may_be_signed() {
    for ok in [
        "\tmapa.shared::cluster.s64 %rd2, %rd1, 0;",
        "\tmapa.s64 %rd2, %rd1, 0;",
        "\tmapa.shared::cluster.s32 %r2, %r3, 0;",
        "\tgetctarank.shared::cluster.s32 %r1, %r2;",
    ] {
        if let Err(e) = parse_and_check(&module(ok), "m.ptx") {
            panic!("'{ok}' must load: {e}");
        }
    }
    rejects(
        "\tmapa.shared::cluster.b64 %rd2, %rd1, 0;",
        "16:2: error: 'mapa.shared::cluster.b64' needs .u32 or .u64",
    );
    let body = "\tmov.u64 %rd2, sh;
	getctarank.shared::cluster.s64 %r1, %rd2;
	st.global.b32 [%rd1], %r1;";
    assert_eq!(run_both(body, &[7u32]), vec![0]);
}
