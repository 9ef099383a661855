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
use ptxjit::Backend;

/// Loads `src` on both backends, launches kernel `kernel` on one thread with `init` as its
/// only argument's contents, and returns the contents afterwards (the backends agree).
fn run_both<T: ptxjit::DeviceCopy + PartialEq + std::fmt::Debug>(
    src: &str,
    kernel: &str,
    init: &[T],
) -> Vec<T> {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(src, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        let buf = dev.alloc_from(init).expect("alloc");
        let c = cfg([1, 1, 1], [1, 1, 1], backend);
        launch(&dev, &m, kernel, &c, &[arg(&buf)], kernel);
        got.push(dev.read::<T>(&buf).expect("read"));
    }
    assert_eq!(got[0], got[1], "interpreter vs JIT");
    got.swap_remove(0)
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
