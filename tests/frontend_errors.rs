//! Located errors: exact `file:line:col: error: message` for parse and check errors,
//! and robustness against hostile input (deep nesting, huge ranges, random bytes).

use ptxjit::check::parse_and_check;
use ptxjit::parse::parse;

/// Module header and a kernel with some registers; the body starts on line 11.
const HEAD: &str = ".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\t.reg .f32 %f<4>;
\t.reg .f64 %fd<4>;
";

fn kernel(body: &str) -> String {
    format!("{HEAD}{body}\n\tret;\n}}\n")
}

fn err(src: &str) -> String {
    match parse_and_check(src, "e.ptx") {
        Ok(_) => panic!("no error for:\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn body_err(body: &str) -> String {
    err(&kernel(body))
}

#[test]
fn the_kernel_wrapper_checks() {
    parse_and_check(&kernel("\tadd.s32 %r1, %r2, %r3;"), "e.ptx").unwrap();
}

// ----- parse errors ---------------------------------------------------------------------

#[test]
fn missing_semicolon_names_the_next_token() {
    assert_eq!(
        body_err("\tadd.s32 %r1, %r2, %r3\n\tadd.s32 %r1, %r2, %r3;"),
        "e.ptx:12:2: error: expected ';' but found 'add'"
    );
}

#[test]
fn missing_operand() {
    assert_eq!(
        body_err("\tadd.s32 %r1, , %r3;"),
        "e.ptx:11:15: error: expected an operand but found ','"
    );
}

#[test]
fn unexpected_character() {
    assert_eq!(
        body_err("\t# x"),
        "e.ptx:11:2: error: expected an instruction, label or declaration but found '#'"
    );
}

#[test]
fn unterminated_comment_and_string() {
    assert_eq!(
        err(".version 7.0\n  /* open\n\n"),
        "e.ptx:2:3: error: unterminated comment"
    );
    assert_eq!(
        body_err("\t.pragma \"nounroll;"),
        "e.ptx:11:10: error: unterminated string literal"
    );
}

#[test]
fn missing_closing_brace() {
    assert_eq!(
        err(".version 7.0\n.entry k()\n{\n\tret;\n"),
        "e.ptx:5:1: error: expected '}' but found end of file (block opened at 3:1)"
    );
}

#[test]
fn bad_literals() {
    assert_eq!(
        body_err("\tmov.f32 %f1, 0f3F80;"),
        "e.ptx:11:15: error: invalid floating-point literal '0f3F80': expected 8 hexadecimal digits after '0f'"
    );
    assert_eq!(
        body_err("\tmov.f64 %fd1, 0d3FF00000;"),
        "e.ptx:11:16: error: invalid floating-point literal '0d3FF00000': expected 16 hexadecimal digits after '0d'"
    );
    assert_eq!(
        body_err("\tmov.u32 %r1, 09;"),
        "e.ptx:11:15: error: invalid integer literal '09'"
    );
    assert_eq!(
        body_err("\tmov.u32 %r1, 0b102;"),
        "e.ptx:11:15: error: invalid integer literal '0b102'"
    );
    assert_eq!(
        body_err("\tmov.u32 %r1, 0xZ1;"),
        "e.ptx:11:15: error: invalid integer literal '0xZ1'"
    );
    assert_eq!(
        body_err("\tmov.u64 %rd1, 18446744073709551616;"),
        "e.ptx:11:16: error: integer literal '18446744073709551616' does not fit in 64 bits"
    );
}

#[test]
fn bad_declarations() {
    assert_eq!(
        body_err("\t.reg .b32 %q<4;"),
        "e.ptx:11:16: error: expected '>' but found ';'"
    );
    assert_eq!(
        body_err("\t.reg .b33 %q;"),
        "e.ptx:11:7: error: expected a type but found '.b33'"
    );
    assert_eq!(
        body_err("\t.shared .align 3 .b8 s[4];"),
        "e.ptx:11:17: error: alignment 3 is not a power of two"
    );
    assert_eq!(
        err(".version 7.0\n.target sm_70\n.foo"),
        "e.ptx:3:1: error: expected '.entry', '.func' or a variable declaration but found '.foo'"
    );
    assert_eq!(
        err(".version 7.0\nadd.s32"),
        "e.ptx:2:1: error: expected a directive but found 'add'"
    );
    assert_eq!(
        err(".version x"),
        "e.ptx:1:10: error: expected a version number 'major.minor' but found 'x'"
    );
    assert_eq!(
        err(".entry k(.param .u64 p"),
        "e.ptx:1:23: error: expected ',' or ')' but found end of file"
    );
    assert_eq!(
        err(".entry k(.param .u64 p) ret;"),
        "e.ptx:1:25: error: expected '{' or ';' but found 'ret'"
    );
}

#[test]
fn bad_operands() {
    assert_eq!(
        body_err("\tld.global.u32 %r1, [%rd1;"),
        "e.ptx:11:26: error: expected ',' or ']' but found ';'"
    );
    assert_eq!(
        body_err("\tst.global.v2.u32 [%rd1], {%r1, %r2;"),
        "e.ptx:11:36: error: expected ',' or '}' but found ';'"
    );
    assert_eq!(
        body_err("\tsetp.eq.s32 %p1|, %r1, %r2;"),
        "e.ptx:11:18: error: expected a predicate register but found ','"
    );
    assert_eq!(
        body_err("\t@ bra L;"),
        "e.ptx:11:4: error: unknown symbol 'bra'"
    );
}

// ----- check errors ---------------------------------------------------------------------

#[test]
fn unknown_names() {
    assert_eq!(
        body_err("\tadd.s32 %r1, %r9, 1;"),
        "e.ptx:11:15: error: unknown register '%r9'"
    );
    assert_eq!(
        body_err("\tbra L_nowhere;"),
        "e.ptx:11:6: error: unknown label 'L_nowhere'"
    );
    assert_eq!(
        body_err("\tld.global.u32 %r1, [nowhere];"),
        "e.ptx:11:22: error: unknown symbol 'nowhere'"
    );
    assert_eq!(
        body_err("\t@%r1 bra L;\nL:"),
        "e.ptx:11:3: error: '%r1' is not a predicate register"
    );
    assert_eq!(
        body_err("\tbra %r1;"),
        "e.ptx:11:6: error: indirect bra through a register is not supported; use brx.idx"
    );
}

#[test]
fn scopes() {
    // A register of an inner scope is not visible after it.
    assert_eq!(
        body_err("\t{\n\t.reg .b32 %in;\n\t}\n\tmov.u32 %in, 1;"),
        "e.ptx:14:10: error: unknown register '%in'"
    );
    // A label of an inner block is not visible outside it.
    assert_eq!(
        body_err("\tbra IN;\n\t{\nIN:\n\tret;\n\t}"),
        "e.ptx:11:6: error: unknown label 'IN'"
    );
    assert_eq!(
        body_err("\t.reg .b32 %r1;"),
        "e.ptx:11:12: error: '%r1' is already declared in this scope"
    );
    assert_eq!(
        body_err("L:\n\tret;\nL:"),
        "e.ptx:13:1: error: label 'L' is already declared in this scope"
    );
    assert_eq!(
        body_err("\t.reg .b32 L;\nL:"),
        "e.ptx:11:12: error: 'L' is already declared in this scope"
    );
    // Shadowing in an inner scope is fine, and sibling blocks may reuse labels.
    parse_and_check(
        &kernel("\t{\n\t.reg .b32 %r1;\nL:\n\tbra L;\n\t}\n\t{\nL:\n\tbra L;\n\t}"),
        "e.ptx",
    )
    .unwrap();
}

#[test]
fn duplicates_at_module_scope() {
    let src = ".version 7.0\n.global .u32 g;\n.global .u32 g;\n";
    assert_eq!(err(src), "e.ptx:3:14: error: 'g' is already declared");
    let src = ".version 7.0\n.func f() { ret; }\n.func f() { ret; }\n";
    assert_eq!(err(src), "e.ptx:3:7: error: function 'f' is defined twice");
    // A declaration followed by the definition is fine.
    parse_and_check(".version 7.0\n.func f();\n.func f() { ret; }\n", "e.ptx").unwrap();
}

#[test]
fn operand_types() {
    assert_eq!(
        body_err("\tadd.u32 %r1, %rd1, 1;"),
        "e.ptx:11:15: error: register '%rd1' has type .b64, which does not fit instruction type .u32"
    );
    assert_eq!(
        body_err("\tadd.f32 %f1, %fd1, %f2;"),
        "e.ptx:11:15: error: register '%fd1' has type .f64, which does not fit instruction type .f32"
    );
    assert_eq!(
        body_err("\tadd.u32 %r1, %r1, 0f3F800000;"),
        "e.ptx:11:20: error: floating-point constant cannot be used with type .u32"
    );
    assert_eq!(
        body_err("\tmov.b32 %r1, 0d3FF0000000000000;"),
        "e.ptx:11:15: error: floating-point constant cannot be used with type .b32"
    );
    assert_eq!(
        body_err("\tmov.u64 %rd1, %tid.x;"),
        "e.ptx:11:16: error: special register '%tid.x' (32-bit) cannot be read with type .u64"
    );
    assert_eq!(
        body_err("\tmov.u32 %r1, %tid;"),
        "e.ptx:11:15: error: special register '%tid' needs a component '.x', '.y' or '.z'"
    );
    assert_eq!(
        body_err("\tadd.u32 %r1, %tid.x, 1;"),
        "e.ptx:11:15: error: a special register can only be read by 'mov' or 'cvt'"
    );
    assert_eq!(body_err("\tshl.b32 %r1, %r1, %rd1;"), "e.ptx:11:20: error: register '%rd1' has type .b64, which does not fit instruction type .u32");
    // ld/st/cvt may use wider registers for integer types, floats must match.
    parse_and_check(
        &kernel(
            "\tld.global.u8 %rd1, [%rd2];\n\tst.global.u16 [%rd2], %r1;\n\tcvt.u16.u32 %r1, %rd1;",
        ),
        "e.ptx",
    )
    .unwrap();
    assert_eq!(
        body_err("\tcvt.u32.u16 %r1, %f1;"),
        "e.ptx:11:19: error: register '%f1' has type .f32, which does not fit instruction type .u16"
    );
    parse_and_check(
        &kernel(
            "\tld.global.u8 %rd1, [%rd2];\n\tst.global.u16 [%rd2], %r1;\n\tcvt.u16.u64 %r1, %rd1;",
        ),
        "e.ptx",
    )
    .unwrap();
    assert_eq!(
        body_err("\tld.global.f32 %fd1, [%rd1];"),
        "e.ptx:11:16: error: register '%fd1' has type .f64, which does not fit instruction type .f32"
    );
    assert_eq!(body_err("\tmov.u32 %f1, 1;"), "e.ptx:11:10: error: register '%f1' has type .f32, which does not fit instruction type .u32");
}

#[test]
fn comparison_rules() {
    assert_eq!(
        body_err("\tsetp.lt.b32 %p1, %r1, %r2;"),
        "e.ptx:11:2: error: comparison '.lt' is not valid for type .b32 in 'setp.lt.b32'"
    );
    assert_eq!(
        body_err("\tsetp.lo.b32 %p1, %r1, %r2;"),
        "e.ptx:11:2: error: comparison '.lo' is not valid for type .b32 in 'setp.lo.b32'"
    );
    assert_eq!(
        body_err("\tsetp.hi.s32 %p1, %r1, %r2;"),
        "e.ptx:11:2: error: comparison '.hi' is not valid for type .s32 in 'setp.hi.s32'"
    );
    assert_eq!(
        body_err("\tsetp.equ.u32 %p1, %r1, %r2;"),
        "e.ptx:11:2: error: comparison '.equ' is not valid for type .u32 in 'setp.equ.u32'"
    );
    assert_eq!(
        body_err("\tsetp.eq.and.u32 %p1, %r1, %r2;"),
        "e.ptx:11:2: error: instruction 'setp.eq.and.u32' takes 4 operands, not 3"
    );
    assert_eq!(body_err("\tsetp.eq.u32 %r1, %r1, %r2;"), "e.ptx:11:14: error: register '%r1' has type .b32, which does not fit instruction type .pred");
}

#[test]
fn modifier_rules() {
    assert_eq!(
        body_err("\tdiv.f32 %f1, %f2, %f3;"),
        "e.ptx:11:2: error: rounding modifier required for 'div.f32'"
    );
    assert_eq!(
        body_err("\tdiv.f64 %fd1, %fd2, %fd3;"),
        "e.ptx:11:2: error: rounding modifier required for 'div.f64'"
    );
    assert_eq!(
        body_err("\tfma.f32 %f1, %f2, %f3, %f1;"),
        "e.ptx:11:2: error: rounding modifier required for 'fma.f32'"
    );
    assert_eq!(
        body_err("\tcvt.f32.s32 %f1, %r1;"),
        "e.ptx:11:2: error: rounding modifier required for 'cvt.f32.s32'"
    );
    assert_eq!(
        body_err("\tcvt.rn.f64.f32 %fd1, %f1;"),
        "e.ptx:11:2: error: illegal rounding modifier for 'cvt.rn.f64.f32'"
    );
    assert_eq!(
        body_err("\tcvt.rni.s32.s64 %r1, %rd1;"),
        "e.ptx:11:2: error: illegal rounding modifier for 'cvt.rni.s32.s64'"
    );
    assert_eq!(
        body_err("\tmul.s32 %r1, %r2, %r3;"),
        "e.ptx:11:2: error: 'mul.s32' needs '.lo', '.hi' or '.wide'"
    );
    assert_eq!(
        body_err("\tmul.wide.s64 %rd1, %rd2, %rd3;"),
        "e.ptx:11:2: error: type .s64 is not valid for 'mul.wide.s64'"
    );
    assert_eq!(
        body_err("\tadd.ftz.f64 %fd1, %fd1, %fd1;"),
        "e.ptx:11:2: error: '.ftz' and '.sat' are only valid for .f32 in 'add.ftz.f64'"
    );
    assert_eq!(
        body_err("\tadd %r1, %r1, %r1;"),
        "e.ptx:11:2: error: instruction 'add' needs a type"
    );
    assert_eq!(
        body_err("\tadd.s32.s32 %r1, %r1, %r1;"),
        "e.ptx:11:9: error: instruction 'add.s32.s32' has too many types"
    );
    assert_eq!(
        body_err("\tld.global.bogus.u32 %r1, [%rd1];"),
        "e.ptx:11:11: error: instruction 'ld.global.bogus.u32' is not supported yet (modifier '.bogus')"
    );
    assert_eq!(
        body_err("\tbar.sync 16;"),
        "e.ptx:11:11: error: barrier number 16 is out of range 0..15"
    );
    assert_eq!(
        body_err("\tbar.sync 0, 33;"),
        "e.ptx:11:14: error: thread count 33 must be a positive multiple of the warp size"
    );
}

#[test]
fn memory_rules() {
    let src = format!(
        ".version 7.0\n.shared .u32 sm;\n{}",
        &kernel("\tld.global.u32 %r1, [sm];")[13..]
    );
    assert_eq!(
        err(&src),
        "e.ptx:12:22: error: variable 'sm' is in the .shared state space, not .global"
    );
    assert_eq!(
        body_err("\tld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];"),
        "e.ptx:11:19: error: 'ld.global.v2.u32' needs a vector of 2 registers, not 3"
    );
    assert_eq!(body_err("\tld.global.u32 %r1, [%f1];"), "e.ptx:11:22: error: address register '%f1' has type .f32; it must be a 32- or 64-bit integer");
    assert_eq!(
        body_err("\tld.global.u32 %r1, %rd1;"),
        "e.ptx:11:21: error: expected an address '[...]'"
    );
    assert_eq!(
        body_err("\tcvta.to.global.u16 %r1, %r1;"),
        "e.ptx:11:2: error: type .u16 is not valid for 'cvta.to.global.u16' (use .u32 or .u64)"
    );
    assert_eq!(
        body_err("\t.shared .u32 s = 1;"),
        "e.ptx:11:19: error: .shared variables cannot have initializers"
    );
    assert_eq!(
        body_err("\t.local .u32 l = 1;"),
        "e.ptx:11:18: error: '.local' variables cannot have initializers"
    );
}

#[test]
fn directive_rules() {
    assert_eq!(
        body_err("ts: .branchtargets L1, L2;\nL1:"),
        "e.ptx:11:24: error: unknown label 'L2'"
    );
    // Labels of .branchtargets may be forward references.
    parse_and_check(
        &kernel("ts: .branchtargets L1, L0;\nL0:\n\tret;\nL1:"),
        "e.ptx",
    )
    .unwrap();
    parse_and_check(&kernel("ts: .branchtargets N<3>;\nN0:\nN1:\nN2:"), "e.ptx").unwrap();
    assert_eq!(
        body_err("ts: .branchtargets N<3>;\nN0:\nN1:"),
        "e.ptx:11:20: error: unknown label 'N2'"
    );
    // Functions of .calltargets must be declared before it.
    let src = ".version 7.0\n.func f();\n.entry k()\n{\nct: .calltargets f, g;\n}\n.func g();\n";
    assert_eq!(
        err(src),
        "e.ptx:5:21: error: function 'g' must be declared before '.calltargets'"
    );
    let src = ".version 7.0\n.entry k()\n{\nct: .calltargets nope;\n}\n";
    assert_eq!(err(src), "e.ptx:4:18: error: unknown function 'nope'");
    assert_eq!(
        err(".version 7.0\n.entry k() .maxntid 0 { ret; }"),
        "e.ptx:2:21: error: invalid value 0 for '.maxntid'"
    );
    assert_eq!(
        err(".version 7.0\n.address_size 48\n"),
        "e.ptx:2:1: error: address size must be 32 or 64, not 48"
    );
    assert_eq!(
        err(".version 7.0\n.entry k(.reg .u32 r) { ret; }"),
        "e.ptx:2:10: error: kernel parameters must be in the '.param' space"
    );
}

#[test]
fn initializer_rules() {
    assert_eq!(
        err(".version 7.0\n.global .u32 a[2] = {1, 2, 3};"),
        "e.ptx:2:28: error: too many initializers"
    );
    assert_eq!(
        err(".version 7.0\n.global .u32 a[2][2] = {{1, 2, 3}};"),
        "e.ptx:2:32: error: too many initializers"
    );
    assert_eq!(
        err(".version 7.0\n.global .u32 a = nope;"),
        "e.ptx:2:18: error: unknown symbol 'nope'"
    );
    assert_eq!(
        err(".version 7.0\n.global .u16 a = b;\n.global .u32 b;"),
        "e.ptx:2:18: error: an address needs a 32- or 64-bit element, not .u16"
    );
    assert_eq!(
        err(".version 7.0\n.global .u32 a = 1 / 0;"),
        "e.ptx:2:22: error: division by zero in constant expression"
    );
    assert_eq!(
        err(".version 7.0\n.global .u32 a = 1.5;"),
        "e.ptx:2:18: error: floating-point constant cannot be used with type .u32"
    );
    assert_eq!(
        err(".version 7.0\n.global .u32 x;\n.global .u8 a[2] = {0xFF(generic(x)), 0xFF00(generic(x))};"),
        "e.ptx:3:21: error: a partial address (byte mask) in an initializer is not supported yet"
    );
}

#[test]
fn unsupported_is_located_at_the_opcode() {
    assert_eq!(
        body_err("\tatom.global.add.b128 %rd1, [%rd1], %rd1;"),
        "e.ptx:11:2: error: instruction 'atom.global.add.b128' is not supported yet"
    );
    assert_eq!(
        body_err("\t@%p1 tcgen05.fence::before_thread_sync;"),
        "e.ptx:11:7: error: instruction 'tcgen05.fence::before_thread_sync' is not supported yet"
    );
    // Supported since the bit-manipulation family landed: only `.sat` on other types is
    // rejected.
    parse_and_check(
        &kernel("\tdiv.s32 %r1, %r2, %r3;\n\tadd.sat.s32 %r1, %r2, %r3;"),
        "e.ptx",
    )
    .unwrap();
    assert_eq!(
        body_err("\tadd.sat.u32 %r1, %r2, %r3;"),
        "e.ptx:11:2: error: type .u32 is not valid for 'add.sat.u32'"
    );
    // The carry chain and min/max .NaN are supported (tests/intfp_frontend.rs).
    // fma.oob is supported too (tests/fma_oob.rs), from PTX 8.1 and sm_90 as in ptxas
    // (this file's kernel is PTX 7.0 for sm_70).
    let oob = kernel("\tfma.rn.oob.f16x2 %r1, %r2, %r3, %r4;");
    parse_and_check(
        &oob.replace(".version 7.0", ".version 8.1")
            .replace(".target sm_70", ".target sm_90"),
        "e.ptx",
    )
    .unwrap();
    assert_eq!(
        err(&oob),
        "e.ptx:11:8: error: '.oob' on 'fma' requires PTX ISA .version 8.1 or later (this module is 7.0)"
    );
    // Tensor copies are supported (tests/tma.rs); their im2col modes are not.
    parse_and_check(
        &kernel("\tcp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1}], [%rd1];"),
        "e.ptx",
    )
    .unwrap();
    assert_eq!(
        body_err("\tmov.u32 %r1, %clock64;"),
        "e.ptx:11:15: error: special register '%clock64' (64-bit) cannot be read with type .u32"
    );
    assert_eq!(
        body_err("\tcp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r1, %r1}], [%rd1];"),
        "e.ptx:11:2: error: 'cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group': the .im2col_no_offs mode is not supported yet"
    );
    // Unsupported instructions in unreachable code are still reported.
    assert_eq!(
        body_err("\tret;\n\ttcgen05.fence::before_thread_sync;"),
        "e.ptx:12:2: error: instruction 'tcgen05.fence::before_thread_sync' is not supported yet"
    );
    // A call to a function without a body is reported at the call.
    let src = ".version 7.0\n.func f(.param .b32 a);\n.entry k()\n{\n\t.reg .b32 %r;\n\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0], %r;\n\tcall.uni f, (p0);\n\t}\n}\n";
    assert_eq!(
        err(src),
        "e.ptx:9:2: error: call to function 'f', which has no body in this module (linking is not supported)"
    );
    assert_eq!(
        err(".version 7.0\n.global .samplerref t;"),
        "e.ptx:2:9: error: '.samplerref' variables need '.target texmode_independent'"
    );
}

#[test]
fn legacy_and_debug_directives_are_ignored() {
    let src = ".version 7.0
.target sm_70, debug
.address_size 64
.file 1 \"k.cu\", 1700000000, 99
.entry k ()
{
\t.loc 1 5 3, function_name $L__info_string0, inlined_at 1 2 3
\tret;
}
\t.section\t.debug_info
\t{
.b32 74
\t@@DWARF .byte 0x2b, 0x00
$L__info_string0:
.b8 118,101,99,0
.b8 09, 1.5e, 0x
\t}
\t@@DWARF .section .debug_pubnames, \"\",@progbits
\t@@DWARF .byte\t0x2b, 0x00, 0x00, 0x00, 0x02, 0x00
";
    let m = parse_and_check(src, "e.ptx").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.target, ["sm_70", "debug"]);
    assert_eq!(
        err(".version 7.0\n.alias a, b;"),
        "e.ptx:2:1: error: directive '.alias' is not supported yet"
    );
}

// ----- robustness -----------------------------------------------------------------------

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let n = 100_000;
    let blocks = format!(".version 7.0\n.entry k()\n{}", "{".repeat(n));
    assert!(err(&blocks).contains("nesting deeper than"));
    let parens = kernel(&format!(
        "\tmov.u32 %r1, {}1{};",
        "(".repeat(n),
        ")".repeat(n)
    ));
    assert!(err(&parens).contains("nesting deeper than"));
    let unary = kernel(&format!("\tmov.u32 %r1, {}1;", "-".repeat(n)));
    assert!(err(&unary).contains("nesting deeper than"));
    let binary = kernel(&format!("\tmov.u32 %r1, 1{};", "+1".repeat(n)));
    assert!(err(&binary).contains("nesting deeper than"));
    let init = format!(
        ".version 7.0\n.global .u32 a = {}1{};",
        "{".repeat(n),
        "}".repeat(n)
    );
    assert!(err(&init).contains("nesting deeper than"));
    let vecs = kernel(&format!(
        "\tmov.b64 %rd1, {}%r1{};",
        "{".repeat(n),
        "}".repeat(n)
    ));
    assert!(err(&vecs).contains("nesting deeper than"));
    let sections = format!(
        ".version 7.0\n.section .debug_info {}{}\n",
        "{".repeat(n),
        "}".repeat(n)
    );
    parse(&sections, "e.ptx").unwrap();
}

#[test]
fn huge_sizes_are_errors() {
    assert_eq!(
        body_err("\t.reg .b32 %x<2000000>;"),
        "e.ptx:11:15: error: register range <2000000> is too large (at most 1048576)"
    );
    assert!(err(".version 7.0\n.global .b8 big[4000000000000];").contains("too large"));
    assert!(body_err("\t.local .b8 big[4000000000000];").contains("too large"));
    assert_eq!(
        err(".version 7.0\n.shared .b8 big[4000000000];"),
        "e.ptx:2:13: error: shared variable is too large (at most 1048576 bytes of static shared memory)"
    );
    assert!(body_err("\t.local .b8 a[600000];\n\t.local .b8 b[600000];")
        .contains("local frame too large"));
    assert!(
        body_err("\t.reg .b32 %x<1000000>;\n\t.reg .b32 %y<1000000>;")
            .contains("too many registers")
    );
}

/// Deterministic pseudo-random inputs: mutations of a real kernel and random bytes.
#[test]
fn random_inputs_never_panic() {
    let seed_src = include_str!("frontend_ptx/syntax.ptx").as_bytes().to_vec();
    let mut s: u64 = 0x1234_5678_9abc_def1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let alphabet = b"{}[]()<>;:,.%$_@!|+-*/0123456789abcdefxXfFdD \n\t\"";
    for round in 0..600 {
        let mut bytes = seed_src.clone();
        for _ in 0..(1 + next() % 8) {
            let pos = (next() as usize) % bytes.len().max(1);
            match next() % 4 {
                0 => {
                    bytes.remove(pos);
                }
                1 => bytes.insert(pos, alphabet[(next() as usize) % alphabet.len()]),
                2 => bytes[pos] = alphabet[(next() as usize) % alphabet.len()],
                _ => {
                    let end = (pos + (next() as usize) % 40).min(bytes.len());
                    let chunk: Vec<u8> = bytes[pos..end].to_vec();
                    let at = (next() as usize) % bytes.len();
                    bytes.splice(at..at, chunk);
                }
            }
        }
        if round % 5 == 0 {
            bytes = (0..(next() % 300)).map(|_| next() as u8).collect();
        }
        let src = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse_and_check(&src, "fuzz.ptx") {
            assert!(e.line >= 1 && e.col >= 1, "unlocated error: {e}");
        } else if let Ok(m) = parse_and_check(&src, "fuzz.ptx") {
            ptxjit::check::validate(&m)
                .unwrap_or_else(|e| panic!("invariant violated: {e}\n{src}"));
        }
    }
}

/// ptxas 12.9 rejects integer literals as float operands ("Arguments mismatch" for
/// `mov.f32 %f1, 0`, `add.f64 %fd1, %fd1, 1`, `st.global.f32 [a], 0`; "Initial value type
/// mismatch" for `.global .f32 g = 1`), and accepts float literals and `mov.b32 %f1, 0`.
#[test]
fn integer_literals_are_not_float_operands() {
    for body in [
        "\tmov.f32 %f1, 0;",
        "\tadd.f64 %fd1, %fd1, 1;",
        "\tst.global.f32 [%rd1], 0;",
        "\tselp.f32 %f1, 0, 1, %p1;",
    ] {
        let e = body_err(body);
        assert!(
            e.contains("an integer constant cannot be a .f"),
            "{body}: {e}"
        );
    }
    for body in [
        "\tmov.f32 %f1, 1.0;",
        "\tmov.b32 %f1, 0;",
        "\tadd.f64 %fd1, %fd1, 0f3f800000;",
    ] {
        parse_and_check(&kernel(body), "e.ptx").unwrap_or_else(|e| panic!("{body}: {e}"));
    }
    // alloca's alignment is a constant power of two.
    let e = body_err("\talloca.u64 %rd1, 16, 12;");
    assert!(e.contains("must be a constant power of 2"), "{e}");
}
