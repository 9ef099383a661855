//! Forms found in public PTX (issue 15, `tests/corpus/public/`) and the vector `mov` of a
//! scalar into four 16-bit elements. Every module passes ptxas 12.9 (`--gpu-name sm_90`)
//! unless a case says ptxas rejects it; expected values come from the SASS ptxas
//! generates for the same module (read with nvdisasm 13) or from hand arithmetic shown in
//! the comment. Each run is made on both backends, which must agree.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::check::parse_and_check;
#[path = "common/mutation.rs"]
mod mutation;

/// Loads `src` on both backends, launches kernel `kernel` on one thread with `init` as its
/// only argument's contents, and returns the contents afterwards (the backends agree).
fn run_both<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(
    src: &str,
    kernel: &str,
    init: &[T],
) -> Vec<T> {
    mutation::run_kernel_both(src, kernel, 1, init, |_| Vec::new())
}

fn load_error(src: &str) -> String {
    match parse_and_check(src, "m.ptx") {
        Ok(_) => panic!("must be rejected"),
        Err(e) => e.to_string(),
    }
}

const MOV_V4_16: &str = r#".version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .u64 %rd1;
	.reg .u16 %h<5>;
	.reg .s16 %s<4>;
	.reg .b16 %b<4>;
	.reg .v4 .u16 w;
	ld.param.u64 %rd1, [p];
	mov.v4.u16 {%h0, %h1, %h2, %h3}, 0x8877665544332211;
	st.global.v4.u16 [%rd1], {%h0, %h1, %h2, %h3};
	mov.v4.s16 {%s0, %s1, %s2, %s3}, -2;
	st.global.v4.s16 [%rd1+8], {%s0, %s1, %s2, %s3};
	mov.v4.u16 w, 0x12345678;
	st.global.v4.u16 [%rd1+16], w;
	ld.global.u16 %h4, [%rd1+40];
	mov.v4.b16 {%b0, %b1, %b2, %b3}, %h4;
	st.global.v4.b16 [%rd1+24], {%b0, %b1, %b2, %b3};
	ret;
}
"#;

/// `mov.v4.{u16,s16,b16} d, s` with a scalar `s`: element k receives bits 32k..32k+15 of
/// `s` as a 64-bit value, elements 2 and 3 are 0. Oracle: ptxas 12.9's cubin of this
/// module (nvdisasm): `IMAD.MOV.U32 R6, RZ, RZ, 0x66552211; HFMA2.MMA R7, -RZ, RZ, 0, 0;
/// STG.E.64 [p], R6` (0x8877665544332211 -> 0x2211, 0x6655, 0, 0), `R8 = -0x2, R9 = RZ`
/// (-2 -> 0xfffe, 0xffff, 0, 0), `R10 = 0x5678, R11 = 0` (0x12345678 -> 0x5678, 0, 0, 0),
/// `PRMT R4, R0, 0x5410, RZ; R5 = RZ` (a `.u16` register h -> h, 0, 0, 0).
#[test]
fn mov_v4_16_from_a_scalar() {
    let mut init = vec![0x5555u16; 24];
    init[20] = 0xbeef;
    let got = run_both(MOV_V4_16, "k", &init);
    let want: [u16; 16] = [
        0x2211, 0x6655, 0, 0, 0xfffe, 0xffff, 0, 0, 0x5678, 0, 0, 0, 0xbeef, 0, 0, 0,
    ];
    assert_slice_eq(&got[..16], &want, "mov.v4 16-bit elements");
}

const DECL_WITHOUT_SEMICOLON: &str = r#".version 8.3
.target sm_90
.address_size 64
.visible .func (.param .u32 r) f (.param .u32 a)

.visible .func (.param .u32 r) f (.param .u32 a)
{
 .reg .u32 x;
 ld.param.u32 x, [a];
 add.u32 x, x, 1;
 st.param.u32 [r], x;
 ret;
}
.visible .entry k(.param .u64 out)
{
 .reg .u64 p;
 .reg .u32 v;
 ld.param.u64 p, [out];
 { .param .u32 a0; .param .u32 r0; st.param.u32 [a0], 41; call (r0), f, (a0); ld.param.u32 v, [r0]; }
 st.global.u32 [p], v;
 ret;
}
"#;

/// A function header followed by the next directive is a declaration (nvopencc's PTX
/// ISA 2.x output: `.visible .func (...) f (...)` without `;`, then `.file` or the
/// definition). ptxas 12.9 accepts it. f(41) = 41 + 1 = 42.
#[test]
fn function_declaration_without_semicolon() {
    let got = run_both(DECL_WITHOUT_SEMICOLON, "k", &[0u32]);
    assert_eq!(got, [42]);
}

const MAD_NO_RND: &str = r#".version 2.3
.target sm_20
.address_size 64
.entry k (.param .u64 p)
{
	.reg .u64 %rd1;
	.reg .f32 %f<4>;
	ld.param.u64 %rd1, [p];
	ld.global.f32 %f1, [%rd1];
	ld.global.f32 %f2, [%rd1+4];
	ld.global.f32 %f3, [%rd1+8];
	mad.f32 %f0, %f1, %f2, %f3;
	st.global.f32 [%rd1+12], %f0;
	exit;
}
"#;

/// `mad.f32` without a rounding modifier (PTX ISA <= 3.1): ptxas 12.9 compiles it to
/// `FFMA` (fused, round to nearest even) for an sm_20 `.target`, `FFMA.FTZ` for sm_1x.
/// a = 1 + 2^-23, b = 1 - 2^-24, c = -1: the fused result is 2^-24 - 2^-47 (exact in
/// f32; Rust's `mul_add` is the oracle), where a separate multiply would round a*b to 1.0
/// and give 0. a = 2^-100, b = 2^-30, c = 0: 2^-130 is subnormal (kept for sm_20, flushed
/// to +0 under `.ftz`, sm_13).
#[test]
fn mad_f32_without_rounding_in_old_ptx() {
    let cases = [
        (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON / 2.0, -1.0f32),
        (2f32.powi(-100), 2f32.powi(-30), 0.0),
    ];
    for (a, b, c) in cases {
        let want = a.mul_add(b, c);
        let got = run_both(MAD_NO_RND, "k", &[a, b, c, 7.0]);
        assert_eq!(
            got[3].to_bits(),
            want.to_bits(),
            "sm_20 mad.f32 {a} {b} {c}"
        );
        let sm13 = MAD_NO_RND.replace(".target sm_20", ".target sm_13");
        let got = run_both(&sm13, "k", &[a, b, c, 7.0]);
        let ftz = if want.is_subnormal() { 0.0 } else { want };
        assert_eq!(got[3].to_bits(), ftz.to_bits(), "sm_13 mad.f32 {a} {b} {c}");
    }
    assert_eq!(
        (1.0f32 + f32::EPSILON).mul_add(1.0 - f32::EPSILON / 2.0, -1.0),
        2f32.powi(-24) - 2f32.powi(-47)
    );
    // ptxas 12.9 from PTX ISA 3.2: "Rounding modifier required for instruction 'mad'".
    let v32 = MAD_NO_RND.replace(".version 2.3", ".version 3.2");
    assert_eq!(
        load_error(&v32),
        "m.ptx:12:2: error: rounding modifier required for 'mad.f32'"
    );
}

const MODULE_REG: &str = r#".version 2.3
.target sm_20
.address_size 64
.reg .u32 %g<2>;
.entry k (.param .u64 p)
{
	.reg .u64 %rd1;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %g1, [%rd1];
	add.u32 %g1, %g1, 7;
	st.global.u32 [%rd1+4], %g1;
	exit;
}
.entry k2 (.param .u64 p)
{
	.reg .u64 %rd1;
	ld.param.u64 %rd1, [p];
	mov.u32 %g0, 5;
	st.global.u32 [%rd1], %g0;
	exit;
}
"#;

/// Module-scope `.reg` (PTX ISA < 3.0; ptxas 12.9: "Use of module scoped .local or .reg
/// variable '%g<' found, disabling ABI"): per-thread registers each kernel uses. k stores
/// 35 + 7 = 42 at word 1; k2 stores 5 at word 0. From PTX ISA 3.0 ptxas says "Module-scoped
/// variables in .reg state space are not allowed with ABI".
#[test]
fn module_scope_registers_in_old_ptx() {
    assert_eq!(run_both(MODULE_REG, "k", &[35u32, 0]), [35, 42]);
    assert_eq!(run_both(MODULE_REG, "k2", &[0u32, 9]), [5, 9]);
    let v30 = MODULE_REG.replace(".version 2.3", ".version 3.0");
    assert!(
        load_error(&v30).starts_with(
            "m.ptx:4:1: error: module-scope '.reg' variables are not allowed with the ABI"
        ),
        "{}",
        load_error(&v30)
    );
}

const MODULE_LOCAL: &str = r#".version 2.3
.target sm_20
.address_size 64
.local .u32 lv[4];
.entry k (.param .u64 p)
{
	.reg .u32 %r<4>;
	.reg .u64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 3;
	st.local.u32 [lv+4], %r2;
	bar.sync 0;
	ld.local.u32 %r3, [lv+4];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	exit;
}
"#;

/// Module-scope `.local` (ptxas 12.9: accepted before PTX ISA 3.0 with "Use of module
/// scoped .local or .reg variable 'lv' found, disabling ABI"; from 3.0 "Module-scoped
/// variables in .local state space are not allowed with ABI"): per-thread local memory.
/// Each of 4 threads stores 3 * tid to lv[1], waits at a barrier, reads it back: a
/// shared copy would give every thread the last writer's value; per-thread gives
/// [0, 3, 6, 9].
#[test]
fn module_scope_local_in_old_ptx() {
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(MODULE_LOCAL, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        let buf = dev.alloc_from(&[7u32; 4]).expect("alloc");
        let c = cfg([1, 1, 1], [4, 1, 1], backend);
        launch(&dev, &m, "k", &c, &[arg(&buf)], "k");
        assert_eq!(
            dev.read::<u32>(&buf).expect("read"),
            [0, 3, 6, 9],
            "{backend:?}"
        );
    }
    let v30 = MODULE_LOCAL.replace(".version 2.3", ".version 3.0");
    assert!(
        load_error(&v30).starts_with(
            "m.ptx:4:1: error: module-scope '.local' variables are not allowed with the ABI"
        ),
        "{}",
        load_error(&v30)
    );
}

const TEX_V4_COORDS: &str = r#".version 2.3
.target sm_20
.address_size 64
.global .texref t2;
.entry k (.param .u64 p)
{
	.reg .u64 %rd1;
	.reg .s32 %r<4>;
	.reg .f32 %f<8>;
	.reg .u32 %u<4>;
	ld.param.u64 %rd1, [p];
	mov.s32 %r0, 1;
	tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [t2, {%r0, %r1, %r2, %r3}];
	tex.2d.v4.u32.f32 {%u0, %u1, %u2, %u3}, [t2, {%f4, %f5, %f6, %f7}];
	st.global.f32 [%rd1], %f0;
	st.global.u32 [%rd1+4], %u0;
	exit;
}
"#;

/// `tex` notes in the ISA: "For compatibility with prior versions of PTX, ... `.v4`
/// coordinate vectors are allowed for any geometry, with the extra elements being
/// ignored" (nvopencc: `tex.1d.v4.f32.s32 {..}, [t, {%r16, %r18, %r20, %r22}]`). Both
/// backends load and compile it; a 4-element vector stays an error where it is not the
/// coordinates.
#[test]
fn tex_takes_v4_coordinates_for_any_geometry() {
    for jit in [false, true] {
        device()
            .load_ptx_with(TEX_V4_COORDS, "m.ptx", jit)
            .unwrap_or_else(|e| panic!("jit {jit}: {e}"));
    }
    let three = TEX_V4_COORDS.replace("{%r0, %r1, %r2, %r3}", "{%r0, %r1, %r2}");
    assert!(
        load_error(&three).contains("needs 1 elements here, not 3"),
        "{}",
        load_error(&three)
    );
}

const V13_DEFAULTS: &str = r#".version 1.3
.target sm_13
.global .f32 fa[6] = {0f40400000, 0f40000000, 0f40800000, 0f00000000, 0f00000000, 0f00000000};
.global .f64 da[5] = {0d4008000000000000, 0d4000000000000000, 0d0000000000000000, 0d0000000000000000, 0d0000000000000000};
.entry k
{
	.reg .f32 %f<4>;
	.reg .f64 %d<4>;
	ld.global.f32 %f1, [fa];
	ld.global.f32 %f2, [fa+4];
	div.f32 %f3, %f1, %f2;
	st.global.f32 [fa+12], %f3;
	ex2.f32 %f3, %f2;
	st.global.f32 [fa+16], %f3;
	ld.global.f32 %f1, [fa+8];
	sqrt.f32 %f3, %f1;
	st.global.f32 [fa+20], %f3;
	ld.global.f64 %d1, [da];
	ld.global.f64 %d2, [da+8];
	div.f64 %d3, %d1, %d2;
	st.global.f64 [da+16], %d3;
	mad.f64 %d3, %d1, %d2, %d1;
	st.global.f64 [da+24], %d3;
	sqrt.f64 %d3, %d2;
	st.global.f64 [da+32], %d3;
	exit;
}
"#;

/// Runs kernel `k` of `src` (no parameters) on both backends; returns the module
/// variables `fa` and `da` afterwards.
fn run_globals(src: &str) -> (Vec<f32>, Vec<f64>) {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(src, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        launch(&dev, &m, "k", &cfg([1, 1, 1], [1, 1, 1], backend), &[], "k");
        let fa = dev
            .read::<f32>(&m.global("fa").expect("fa"))
            .expect("read fa");
        let da = dev
            .read::<f64>(&m.global("da").expect("da"))
            .expect("read da");
        got.push((fa, da));
    }
    assert_eq!(got[0], got[1], "interpreter vs JIT");
    got.swap_remove(0)
}

/// PTX ISA 1.0 ... 1.3 defaults (each instruction's "PTX ISA Notes"; ptxas 12.9 accepts
/// these forms only before 1.4): `div.f32` is `div.approx.ftz.f32`, `ex2.f32`/`sqrt.f32`
/// `.approx.ftz`, `div.f64`/`sqrt.f64` `.rn`, and "legacy `mad.f64` ... will map to
/// `mad.rn.f64`". Hand arithmetic: 3 / 2 = 1.5 (rcp.approx of 2 is exact), 2^2 = 4,
/// sqrt(4) = 2, 3.0 / 2.0 = 1.5, 3 * 2 + 3 = 9, sqrt(2) = 1.4142135623730951 (f64
/// `sqrt`, correctly rounded); the approximate forms must equal the explicit ones.
#[test]
fn ptx_1_3_defaults() {
    let (fa, da) = run_globals(V13_DEFAULTS);
    assert_eq!(fa[3], 1.5);
    assert!((fa[4] - 4.0).abs() <= 4.0 * 2f32.powi(-21), "ex2 {}", fa[4]);
    assert!(
        (fa[5] - 2.0).abs() <= 2.0 * 2f32.powi(-21),
        "sqrt {}",
        fa[5]
    );
    assert_eq!(&da[2..], &[1.5, 9.0, 2f64.sqrt()]);
    let explicit = V13_DEFAULTS
        .replace(".version 1.3", ".version 1.4")
        .replace("div.f32", "div.approx.ftz.f32")
        .replace("ex2.f32", "ex2.approx.ftz.f32")
        .replace("sqrt.f32", "sqrt.approx.ftz.f32")
        .replace("div.f64", "div.rn.f64")
        .replace("mad.f64", "mad.rn.f64")
        .replace("sqrt.f64", "sqrt.rn.f64");
    let (fe, de) = run_globals(&explicit);
    assert_eq!(
        fa.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        fe.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(da, de);
    // From 1.4 the modifiers are required (ptxas: "Rounding modifier or '.approx'
    // modifier required for instruction 'div'").
    let v14 = V13_DEFAULTS.replace(".version 1.3", ".version 1.4");
    assert_eq!(
        load_error(&v14),
        "m.ptx:11:2: error: rounding modifier required for 'div.f32'"
    );
}

const UNSIZED_PARAM: &str = r#".version 7.0
.target sm_80
.address_size 64

// sum(n, args): the sum of the first n (at most 3) words of args.
.func (.param .u32 rv) sum(.param .u32 n, .param .align 4 .b8 args[])
{
	.reg .u32 %r<6>;
	.reg .pred %p<4>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	setp.lt.u32 %p1, %r1, 1;
	@%p1 bra DONE;
	ld.param.u32 %r3, [args];
	add.u32 %r2, %r2, %r3;
	setp.lt.u32 %p2, %r1, 2;
	@%p2 bra DONE;
	ld.param.u32 %r3, [args+4];
	add.u32 %r2, %r2, %r3;
	setp.lt.u32 %p3, %r1, 3;
	@%p3 bra DONE;
	ld.param.u32 %r3, [args+8];
	add.u32 %r2, %r2, %r3;
DONE:
	st.param.u32 [rv], %r2;
	ret;
}

.visible .entry k(.param .u64 out)
{
	.reg .u64 %rd<3>;
	.reg .u32 %r<5>;
	ld.param.u64 %rd1, [out];
	{
		.param .u32 n;
		.param .align 4 .b8 a[12];
		.param .u32 rv;
		st.param.u32 [n], 3;
		st.param.u32 [a], 5;
		st.param.u32 [a+4], 10;
		st.param.u32 [a+8], 20;
		call (rv), sum, (n, a);
		ld.param.u32 %r1, [rv];
	}
	{
		.param .u32 n;
		.param .b32 a[1];
		.param .u32 rv;
		st.param.u32 [n], 1;
		st.param.b32 [a], 7;
		call (rv), sum, (n, a);
		ld.param.u32 %r2, [rv];
	}
	{
		.param .u32 n;
		.param .u32 rv;
		st.param.u32 [n], 0;
		call (rv), sum, (n);
		ld.param.u32 %r3, [rv];
	}
	{
		.param .u32 n;
		.param .u32 a[2];
		.param .u32 rv;
		st.param.u32 [n], 2;
		st.param.u32 [a], 100;
		st.param.u32 [a+4], 200;
		mov.u64 %rd2, sum;
		proto: .callprototype (.param .u32 _) _ (.param .u32 _, .param .align 4 .b8 _[]);
		call (rv), %rd2, (n, a), proto;
		ld.param.u32 %r4, [rv];
	}
	st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
	ret;
}
"#;

/// An unsized `.param` array as the last parameter of a `.func` (ZLUDA's
/// `.param .b32 foobar[]`; the ISA's `.func` directive: "The last parameter ... may be a
/// `.param` array ... with no size specified", "the last argument may be omitted"). Hand
/// arithmetic: sum(3, {5, 10, 20}) = 35, sum(1, {7}) = 7, sum(0) with the argument
/// omitted = 0, and through a `.callprototype` with `_[]` sum(2, {100, 200}) = 300.
#[test]
fn unsized_param_array_of_a_func() {
    let got = run_both(UNSIZED_PARAM, "k", &[0u32; 4]);
    assert_eq!(got, vec![35, 7, 0, 300]);
}

/// What ptxas 12.9 rejects about unsized `.param` arrays, rejected at the same place:
/// "Parameter to entry function cannot be an incomplete array", "Only the last input
/// parameter can be an incomplete array", "Output parameter cannot be an incomplete
/// array", "Incomplete array parameters must be in '.param' space", a second dimension
/// (a syntax error), PTX ISA before 6.0 ("requires PTX ISA .version 6.0"), `call f;`
/// without the list ("Call has wrong number of parameters"), a scalar or a register as
/// the argument ("Type of argument does not match formal parameter"), another
/// alignment ("Alignment of argument does not match"). Element types may differ.
#[test]
fn unsized_param_array_rules() {
    let module = |version: &str, func: &str, call: &str| {
        format!(
            ".version {version}\n.target sm_80\n.address_size 64\n{func}\n{{\nret;\n}}\n.visible .entry k(.param .u64 o)\n{{\n.reg .b32 r;\n{call}\nret;\n}}\n"
        )
    };
    let f = ".visible .func f(.param .b32 a[])";
    let cases = [
        ("7.0", ".visible .func f(.param .b32 a[], .param .b32 b)", "", "m.ptx:4:30: error: only the last input parameter can be an unsized array (not a return value)"),
        ("7.0", ".visible .func (.param .b32 r[]) f(.param .b32 a)", "", "m.ptx:4:29: error: only the last input parameter can be an unsized array (not a return value)"),
        ("7.0", ".visible .func f(.reg .b32 a[])", "", "m.ptx:4:28: error: an unsized array parameter must be in the '.param' space"),
        ("7.0", ".visible .func f(.param .b32 a[][2])", "", "m.ptx:4:30: error: an unsized array parameter has one dimension"),
        ("5.0", f, "", "m.ptx:4:30: error: unsized array parameters require PTX ISA .version 6.0 or later (this module is 5.0)"),
        ("7.0", f, "call f;", "m.ptx:11:1: error: 'f' takes 1 argument(s), not 0"),
        ("7.0", f, ".param .b32 p; call f, (p);", "m.ptx:11:25: error: 'p' is not a one-dimensional array; unsized array parameter 'a' takes one"),
        ("7.0", f, "call f, (r);", "m.ptx:11:10: error: unsized array parameter 'a' takes a call-site '.param' array"),
        ("7.0", f, ".param .b64 p[2]; call f, (p);", "m.ptx:11:28: error: 'p' is aligned to 8 bytes; unsized array parameter 'a' to 4"),
        ("7.0", f, ".param .align 8 .b32 p[2]; call f, (p);", "m.ptx:11:37: error: 'p' is aligned to 8 bytes; unsized array parameter 'a' to 4"),
        ("7.0", f, ".param .b32 p[2][2]; call f, (p);", "m.ptx:11:31: error: 'p' is not a one-dimensional array; unsized array parameter 'a' takes one"),
    ];
    for (version, func, call, want) in cases {
        assert_eq!(
            load_error(&module(version, func, call)),
            want,
            "{func} / {call}"
        );
    }
    let kernel = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .b32 a[])\n{\nret;\n}\n";
    assert_eq!(
        load_error(kernel),
        "m.ptx:4:31: error: a kernel parameter cannot be an unsized array"
    );
    for (func, call) in [
        (f, "call f, ();"),
        (f, ".param .f32 p[3]; call f, (p);"),
        (
            ".visible .func f(.param .align 4 .b8 a[])",
            ".param .b32 p[3]; call f, (p);",
        ),
    ] {
        parse_and_check(&module("7.0", func, call), "m.ptx")
            .unwrap_or_else(|e| panic!("{func} / {call}: {e}"));
    }
}

const REG_PLUS_CONST: &str = r#".version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .u64 %rd<4>;
	.reg .b64 %b1;
	.reg .u32 %r<6>;
	.reg .s32 %s1;
	.reg .b16 %h<3>;
	.reg .u8 %q1;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [p];
	ld.global.b64 %b1, [%rd1];
	ld.global.u32 %r1, [%rd1+8];
	ld.global.b16 %h1, [%rd1+12];
	ld.global.u8 %q1, [%rd1+14];
	ld.global.s32 %s1, [%rd1+16];
	st.global.u64 [%rd1+24], %b1 + 1;
	st.global.u32 [%rd1+32], %r1 + -1;
	cvt.u32.u16 %r2, %h1 + 0xffff;
	st.global.u32 [%rd1+36], %r2;
	add.u32 %r3, %r1 + 1 + 1, %r1;
	st.global.u32 [%rd1+40], %r3;
	setp.eq.u32 %p1, %r1 + 2*3, 11;
	selp.u32 %r4, 1, 2, %p1;
	st.global.u32 [%rd1+44], %r4;
	cvt.s64.s32 %rd2, %s1 + 0xffffffff;
	st.global.u64 [%rd1+48], %rd2;
	st.global.u8 [%rd1+56], %q1 + 1;
	setp.ne.u32 %p2, %r1, %r1;
	@%p2 st.global.u32 [%rd1+60], %r1 + 3;
	@!%p2 st.global.u32 [%rd1+64], %r1 + 3;
	ret;
}
"#;

/// A register plus a constant as a source operand (ZLUDA's `st.u64 [a], temp + 1`):
/// ptxas 12.9 adds the constant at the register's width. Oracle: its sm_90 cubin of this
/// module (nvdisasm): `IADD3 R6, P1, R4, 0x1, RZ; IMAD.X R7, RZ, RZ, R5, P1` (b + 1 with
/// the carry: 0xFFFFFFFF + 1 = 0x1_0000_0000), `VIADD R10, R0, 0xffffffff` (5 + -1 = 4),
/// `VIADD R11, R6, 0xffff; LOP3.LUT R11, R11, 0xffff` (cvt.u32.u16 of h + 0xffff at 16
/// bits: 1 + 0xffff = 0), `IADD3 R12, R0, 0x2, R0` (5 + 1 + 1 + 5 = 12), `VIADD R9, R0,
/// 0x6; ISETP.NE` (5 + 2*3 == 11: selp gives 1), `IADD3 R4, R7, -0x1; SHF.R.S32.HI`
/// (cvt.s64.s32 of 0 + 0xffffffff: -1 sign-extended), `IADD3 R9, R8, 0x1; STG.E.U8`
/// (0xFF + 1: byte 0), the guarded store under a false predicate left out, the other
/// one 5 + 3 = 8.
#[test]
fn register_plus_constant_source() {
    let mut init = vec![0x5555_5555u32; 18];
    init[..5].copy_from_slice(&[0xFFFF_FFFF, 0, 5, 0x00FF_0001, 0]);
    let got = run_both(REG_PLUS_CONST, "k", &init);
    let mut want = init.clone();
    want[6..17].copy_from_slice(&[
        0,
        1,
        4,
        0,
        12,
        1,
        0xFFFF_FFFF,
        0xFFFF_FFFF,
        0x5555_5500,
        0x5555_5555,
        8,
    ]);
    assert_eq!(got, want);
}

/// Module for the rejection cases of register operands: `LINE` is the case.
const OPERAND_CASE: &str = r#".version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .u64 %rd1;
	.reg .u32 %r<3>;
	.reg .b32 %w1;
	.reg .f32 %f<3>;
	.reg .pred %p1;
	.reg .v2 .u32 v, v2;
	.reg .v2 .b16 x;
	.reg .v4 .u32 z;
	.reg .b64 %b1;
	ld.param.u64 %rd1, [p];
	LINE
	ret;
}
"#;

/// What ptxas 12.9 rejects about a register plus a constant, or gives no meaning to,
/// rejected: `r - 1` (a syntax error, as are `{r + 1, s}`, `v.x + 1` and `1 + r`), a
/// destination, a predicate ("Arguments mismatch"), a float constant ("Integer
/// constant expression expected"); floating point, where ptxas's cubin drops the
/// instruction (`st.global.f32 [a], f + 1` and `add.f32 d, w + 1, f` store nothing) or
/// ptxas crashes (`mov.b32 d, f + 1` where `d` is used); and other operand sizes than
/// the plain register's (ptxas accepts `st.global.u64 [a], r + 1` of a `.u32` `r` and
/// `add.u64 d, r + 1, b`, whose cubin takes the sum's high word from R1, the stack
/// pointer).
#[test]
fn register_plus_constant_rules() {
    let cases = [
        ("st.global.u32 [%rd1], %r1 - 1;", "m.ptx:16:24: error: '%r1 - constant' is not an operand (ptxas: syntax error); write '%r1 + -constant'"),
        ("add.u32 %r1 + 1, %r1, %r1;", "m.ptx:16:10: error: a register plus a constant is not a destination"),
        ("st.global.u32 [%rd1], %p1 + 1;", "m.ptx:16:24: error: '%p1 + constant' needs an integer or bit register, not .pred (ptxas drops or rejects the instruction)"),
        ("st.global.u32 [%rd1], %r1 + 1.5;", "m.ptx:16:30: error: expected an integer constant"),
        ("st.global.v2.u32 [%rd1], {%r1 + 1, %r1};", "m.ptx:16:28: error: expected a register or constant operand"),
        ("st.global.u32 [%rd1], v.x + 1;", "m.ptx:16:24: error: expected a register or constant operand"),
        ("st.global.u32 [%rd1], 1 + %r1;", "m.ptx:16:28: error: '%r1' is not a constant"),
        ("st.global.f32 [%rd1], %f1 + 1;", "m.ptx:16:24: error: '%f1 + constant' needs an integer or bit register, not .f32 (ptxas drops or rejects the instruction)"),
        ("add.f32 %f2, %w1 + 1, %f1;", "m.ptx:16:15: error: '%w1+1' (a register plus a constant) is an integer operand, not .f32 (ptxas drops such an instruction)"),
        ("mov.b32 %r2, %f1 + 1;", "m.ptx:16:15: error: '%f1 + constant' needs an integer or bit register, not .f32 (ptxas drops or rejects the instruction)"),
        ("st.global.u64 [%rd1], %r1 + 1;", "m.ptx:16:24: error: register '%r1+1' has type .u32, which does not fit instruction type .u64"),
    ];
    for (line, want) in cases {
        assert_eq!(
            load_error(&OPERAND_CASE.replace("LINE", line)),
            want,
            "{line}"
        );
    }
}

const VECTOR_AS_SCALAR: &str = r#".version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .u64 %rd1;
	.reg .b64 %b<3>;
	.reg .u32 %r<4>;
	.reg .b16 %h1;
	.reg .pred %p1;
	.reg .v2 .u32 v, w;
	.reg .v2 .b16 x;
	.reg .v4 .b8 y;
	.reg .v4 .u32 z;
	.reg .v2 .f32 f;
	ld.param.u64 %rd1, [p];
	ld.global.v2.u32 v, [%rd1];
	mov.b64 %b1, v;
	st.global.b64 [%rd1+8], %b1;
	ld.global.b64 %b2, [%rd1];
	mov.b64 w, %b2;
	add.u32 w.x, w.x, 1;
	st.global.v2.u32 [%rd1+16], w;
	ld.global.u32 %r1, [%rd1];
	mov.b32 x, %r1;
	st.global.b16 [%rd1+24], x.y;
	mov.b16 %h1, x.x;
	st.global.b16 [%rd1+26], %h1;
	mov.b32 y, 0x04030201;
	mov.b32 %r2, y;
	st.global.u32 [%rd1+28], %r2;
	st.global.b8 [%rd1+32], y.w;
	ld.global.v4.u32 z, [%rd1];
	mad.lo.u32 z.r, z.g, 3, z.a;
	setp.eq.u32 %p1, z.b, 0;
	selp.u32 z.b, 9, 8, %p1;
	st.global.v4.u32 [%rd1+48], z;
	ld.global.u32 w.y, [%rd1+4];
	st.global.u32 [%rd1+64], w.y;
	ld.global.v2.f32 f, [%rd1];
	mov.b64 %b1, f;
	st.global.b64 [%rd1+72], %b1;
	ret;
}
"#;

/// A whole vector register as the scalar of a `.b16`/`.b32`/`.b64` `mov` (ZLUDA's
/// `mov.b64 packed, temp` of a `.v2 .u32`, `mov.b32 x16_0, x0` into a `.v2 .b16`), and
/// element selectors `.x .y .z .w` / `.r .g .b .a` as sources and destinations of any
/// instruction (`add`, `mad`, `setp`, `selp`, `ld`, `st`). Oracle: ptxas 12.9's sm_90
/// cubin of this module (nvdisasm): the pack is the `{x, y}` pack (`STG.E.64 [p+0x8]` of
/// the loaded pair), the unpack gives x = low word (`IADD3 R10, R16, 0x1`: w.x + 1),
/// `PRMT R14, R0, 0x5432, R0` stores x.y then x.x (0x1111, 0x2222), `mov.b32 y,
/// 0x04030201` then `mov.b32 r, y` gives the constant back and y.w = 4, `IMAD R4, R5,
/// 0x3, R7` (z.r = z.g * 3 + z.a = 4 * 0x33334444 = 0xCCCD1110: z is words 0..3 after
/// the pair was stored to words 2..3), `SEL R6, R6, 0x8, !P0` (z.b != 0: 8), and the
/// `.v2 .f32` pair's bits.
#[test]
fn vector_register_as_scalar_and_elements() {
    let mut init = vec![0x5555_5555u32; 20];
    init[..4].copy_from_slice(&[0x1111_2222, 0x3333_4444, 0, 7]);
    let got = run_both(VECTOR_AS_SCALAR, "k", &init);
    let want = [
        0x1111_2222,
        0x3333_4444,
        0x1111_2222,
        0x3333_4444,
        0x1111_2223,
        0x3333_4444,
        0x2222_1111,
        0x0403_0201,
        0x5555_5504,
        0x5555_5555,
        0x5555_5555,
        0x5555_5555,
        0xCCCD_1110,
        0x3333_4444,
        8,
        0x3333_4444,
        0x3333_4444,
        0x5555_5555,
        0x1111_2222,
        0x3333_4444,
    ];
    assert_eq!(got, want);
}

/// What ptxas 12.9 rejects about vector registers as scalars, rejected: another type
/// than `.bN` or another total size ("Arguments mismatch"), vectors on both sides
/// ("Illegal vector-vector operands for vector-scalar or scalar-vector mov
/// instruction"), any instruction but `mov` ("Vector operand is not allowed", "Argument
/// vector size mismatch"), an element of another size, an unknown selector ("Unknown
/// vector selector"); and `v.z` of a `.v2` register, which ptxas accepts and crashes on
/// (segmentation fault) where it is used.
#[test]
fn vector_register_as_scalar_rules() {
    let cases = [
        ("mov.u64 %b1, v;", "m.ptx:16:2: error: invalid vector operand for 'mov.u64'"),
        ("mov.b64 %b1, z;", "m.ptx:16:10: error: register 'z.x' has type .u32, which does not fit instruction type .b16"),
        ("mov.b32 %r2, v;", "m.ptx:16:10: error: register 'v.x' has type .u32, which does not fit instruction type .b16"),
        ("mov.b64 v2, v;", "m.ptx:16:2: error: 'mov.b64' with a scalar type moves between a vector and a scalar, not two vectors (use '.v2'/'.v4')"),
        ("add.u64 %b1, v, 1;", "m.ptx:16:15: error: expected a register or constant operand"),
        ("st.global.b64 [%rd1], v;", "m.ptx:16:24: error: expected a register or constant operand"),
        ("mov.b32 %r2, x.y;", "m.ptx:16:15: error: register 'x.y' has type .b16, which does not fit instruction type .b32"),
        ("mov.u32 %r2, v.q;", "m.ptx:16:16: error: expected ';' but found '.q'"),
        ("mov.u32 %r2, v.z;", "m.ptx:16:15: error: vector register 'v' has no component '.z'"),
    ];
    for (line, want) in cases {
        assert_eq!(
            load_error(&OPERAND_CASE.replace("LINE", line)),
            want,
            "{line}"
        );
    }
}
