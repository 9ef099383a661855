//! The seed-20 mutation run's findings (issue 15, `tests/corpus/MUTATION_FINDINGS.md`,
//! "Seed 20"). Oracle: ptxas 12.9 (`-arch sm_90`, `-arch sm_52` for the sm_1x module) on
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
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .s32 %s<8>;
	.reg .s64 %sd<4>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	.reg .b64 %st;
	.shared .align 16 .b8 sh[16];
	.shared .align 8 .b64 bar;
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

/// ptxas (`.target sm_10`): "Feature 'generic addressing' requires .target sm_20 or
/// higher", for `ld`, `st`, `atom` and `red` without a state space; `st.global` loads,
/// and so does generic `st` under sm_20.
#[test]
fn generic_addressing_needs_sm_20() {
    let m = |target: &str, line: &str| {
        format!(
            ".version 3.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .u64 %rd<2>;\n\t.reg .u32 %r<2>;\n\t.reg .f32 %f<2>;\n\tld.param.u64 %rd1, [p];\n\t{line}\n\tret;\n}}\n"
        )
    };
    for ok in ["st.global.f32 [%rd1], %f0;", "ld.global.f32 %f0, [%rd1];"] {
        if let Err(e) = parse_and_check(&m("sm_10", ok), "m.ptx") {
            panic!("'{ok}' must load: {e}");
        }
    }
    if let Err(e) = parse_and_check(&m("sm_20", "st.f32 [%rd1], %f0;"), "m.ptx") {
        panic!("generic st under sm_20 must load: {e}");
    }
    for (line, op) in [
        ("st.f32 [%rd1], %f0;", "st"),
        ("ld.f32 %f0, [%rd1];", "ld"),
        ("atom.add.u32 %r0, [%rd1], 1;", "atom"),
        ("red.add.u32 [%rd1], 1;", "red"),
    ] {
        match parse_and_check(&m("sm_10", line), "m.ptx") {
            Ok(_) => panic!("'{line}' under sm_10 must be rejected"),
            Err(e) => assert_eq!(
                e.to_string(),
                format!("m.ptx:10:2: error: generic addressing ('{op}' without a state space) requires .target sm_20 or higher (this module targets sm_10)"),
            ),
        }
    }
}

/// ptxas: "Argument 4 of instruction 'bfi': value '4294967296' out of range, expected to
/// be in range [0..255]"; the same for `bfi`'s position, `bfe`'s position and length, any
/// type, and -1 or 256.
#[test]
fn bfe_bfi_fields_are_at_most_255() {
    let msg = |col: u32, text: &str| {
        format!("16:{col}: error: '{text}': a bit position or length must be in 0..=255")
    };
    rejects(
        "\tbfi.b32 %r1, %r2, %r3, %r4, 4294967296;",
        &msg(30, "bfi.b32"),
    );
    rejects("\tbfi.b32 %r1, %r2, %r3, 256, 4;", &msg(25, "bfi.b32"));
    rejects("\tbfi.b64 %rd1, %rd2, %rd3, %r4, 256;", &msg(33, "bfi.b64"));
    rejects("\tbfe.u32 %r1, %r2, -1, %r3;", &msg(20, "bfe.u32"));
    rejects("\tbfe.s64 %rd1, %rd2, 256, %r4;", &msg(22, "bfe.s64"));
    rejects("\tbfe.u32 %r1, %r2, %r3, 256;", &msg(25, "bfe.u32"));
}

/// 255 is in range and runs: `bfi` inserts bits 0..27 of a = 0x12345678 at position 4
/// (the field is cut at bit 31) into b = 0xFFFFFFFF: 0x23456780 | 0xF = 0x2345678F;
/// `bfe.u32` at 4, length 255 reads bits 4..31 then zeros: 0x12345678 >> 4 = 0x01234567.
#[test]
fn bfe_bfi_fields_of_255_run() {
    let body = "\tmov.b32 %r2, 0x12345678;
	mov.b32 %r3, 0xFFFFFFFF;
	bfi.b32 %r1, %r2, %r3, 4, 255;
	bfe.u32 %r4, %r2, 4, 255;
	st.global.v2.u32 [%rd1], {%r1, %r4};";
    assert_eq!(run_both(body, &[0u32; 2]), vec![0x2345_678F, 0x0123_4567]);
}

/// ptxas: "Illegal modifier '.noComplete' for instruction 'mbarrier.arrive without count
/// argument'" (and `arrive_drop`); with the count it loads.
#[test]
fn no_complete_needs_a_count() {
    for op in ["arrive", "arrive_drop"] {
        let with = format!("\tmbarrier.{op}.noComplete.b64 %st, [bar], 1;");
        if let Err(e) = parse_and_check(&module(&with), "m.ptx") {
            panic!("'{with}' must load: {e}");
        }
        rejects(
            &format!("\tmbarrier.{op}.noComplete.b64 %st, [bar];"),
            &format!(
                "16:2: error: 'mbarrier.{op}.noComplete.b64': .noComplete needs a count operand"
            ),
        );
    }
}

// ---- too strict: ptxas accepts, so must ptxjit ----

/// ptxas accepts a repeated `.cc` (and `.sat`, `.sync`, `.approx`, `.uni`, `.shiftamt`),
/// which means what one does, and rejects other repeats (`.ftz.ftz`: "Duplicate .ftz
/// modifier"; `.rn.rn`: "Multiple rounding modifiers specified"; `.lo.lo`).
/// 0xFFFFFFFF * 0xFFFFFFFF = 0xFFFFFFFE_00000001: low word 1, + c = 0xFFFFFFFF gives
/// 0x1_00000000, so the result is 0 with carry-out 1, which `addc 0, 0` reads as 1.
/// `add.sat.sat.s32` 0x7FFFFFFF + 1 clamps to 0x7FFFFFFF; `bfind.shiftamt.shiftamt.u32`
/// of 0x10 (msb at bit 4) is 31 - 4 = 27. First `add.cc.cc` 0xFFFFFFFF + 1 = 0 with
/// carry 1, and `addc.cc.cc` 0 + 0 + 1 = 1 without a carry, so word 4 is 1 and the
/// next `addc` gives 0 + 0 + 0 = 0 (word 5); `bra.uni.uni` skips the store of 9.
#[test]
fn repeated_flag_modifiers() {
    let body = "\tmov.b32 %r2, 0xFFFFFFFF;
	add.cc.cc.u32 %r1, %r2, 1;
	addc.cc.cc.u32 %r1, 0, 0;
	addc.u32 %r3, 0, 0;
	st.global.v2.u32 [%rd1+16], {%r1, %r3};
	bra.uni.uni $skip;
	st.global.u32 [%rd1+24], 9;
$skip:
	mov.b32 %r2, 0xFFFFFFFF;
	mov.b32 %r3, 0xFFFFFFFF;
	mov.b32 %r4, 0xFFFFFFFF;
	mad.lo.cc.cc.u32 %r1, %r2, %r3, %r4;
	addc.u32 %r5, 0, 0;
	mov.b32 %r6, 0x7FFFFFFF;
	add.sat.sat.s32 %r6, %r6, 1;
	mov.b32 %r7, 0x10;
	bfind.shiftamt.shiftamt.u32 %r7, %r7;
	st.global.v4.u32 [%rd1], {%r1, %r5, %r6, %r7};";
    assert_eq!(
        run_both(body, &[0u32; 7]),
        vec![0, 1, 0x7FFF_FFFF, 27, 1, 0, 0]
    );
    rejects(
        "\tadd.ftz.ftz.f32 %f1, %f2, %f3;",
        "16:9: error: instruction 'add.ftz.ftz.f32' is not supported yet (modifier '.ftz')",
    );
}

/// ptxas accepts `.f32`/`.f64` vector `ld`/`st` of integer registers of exactly that size
/// and one type; it rejects the scalar form ("Arguments mismatch for instruction 'st'"),
/// wider registers and mixed ones ("Vector with elements of different types are not
/// allowed in st instruction"). The bits move unchanged: -1 is 0xFFFFFFFF, 5 is 5; the
/// `.v2.f32` load of the first two words into `.s32` registers, stored as `.s32` at word 4.
#[test]
fn float_vector_of_integer_registers() {
    let body = "\tmov.s32 %s0, -1;
	mov.s32 %s1, 5;
	mov.s32 %s2, 0x3F800000;
	mov.s32 %s3, 7;
	st.global.v4.f32 [%rd1], {%s0, %s1, %s2, %s3};
	ld.global.v2.f32 {%s4, %s5}, [%rd1];
	st.global.v2.s32 [%rd1+16], {%s4, %s5};
	mov.s64 %sd0, 0x4000000000000000;
	mov.s64 %sd1, -2;
	st.global.v2.f64 [%rd1+32], {%sd0, %sd1};";
    // Words: -1, 5, 0x3F800000, 7, then -1, 5, two untouched zeros, then (the 16-byte
    // aligned `.v2.f64` at byte 32) 0x4000000000000000 and -2 as two little-endian words
    // each.
    assert_eq!(
        run_both(body, &[0u32; 12]),
        vec![
            0xFFFF_FFFF,
            5,
            0x3F80_0000,
            7,
            0xFFFF_FFFF,
            5,
            0,
            0,
            0,
            0x4000_0000,
            0xFFFF_FFFE,
            0xFFFF_FFFF
        ]
    );
    let fit = |reg: &str, ty: &str, col: u32| {
        format!("16:{col}: error: register '{reg}' has type {ty}, which does not fit instruction type .f32")
    };
    rejects("\tst.global.f32 [%rd1], %s1;", &fit("%s1", ".s32", 24));
    rejects(
        "\tst.global.v2.f32 [%rd1], {%sd1, %sd2};",
        &fit("%sd1", ".s64", 28),
    );
    rejects(
        "\tst.global.v2.f32 [%rd1], {%s1, %f2};",
        &fit("%s1", ".s32", 28),
    );
}

/// ptxas takes any 64-bit constant as the `wait_group` count and keeps its low 32 bits:
/// its cubins for 4294967296 and 0 are identical (as are 2^32 + 1 and 1). So
/// `wait_group.read 4294967296` waits until the bulk copy has read the shared source
/// (then overwriting it with 9 does not change the copy), and `wait_group 4294967296`
/// until its writes are done: the global words are 7, 0, 0, 0 and the load reads 7,
/// stored at word 4.
#[test]
fn bulk_wait_group_count_is_64_bit() {
    let body = "\tmov.u32 %r1, 7;
	st.shared.v4.u32 [sh], {%r1, 0, 0, 0};
	fence.proxy.async.shared::cta;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sh], 16;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 4294967296;
	st.shared.u32 [sh], 9;
	cp.async.bulk.wait_group 4294967296;
	ld.global.u32 %r2, [%rd1];
	st.global.u32 [%rd1+16], %r2;";
    assert_eq!(run_both(body, &[1u32; 5]), vec![7, 0, 0, 0, 7]);
    for n in ["18446744073709551615", "-1", "4294967297"] {
        let line = format!("\tcp.async.bulk.wait_group.read {n};");
        if let Err(e) = parse_and_check(&module(&line), "m.ptx") {
            panic!("'{line}' must load: {e}");
        }
    }
}
