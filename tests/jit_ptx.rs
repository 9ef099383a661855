//! JIT tests from PTX text (through `check::parse_and_check`): instruction forms as the
//! front end lowers them, each kernel run on the JIT and on the interpreter with
//! hand-checked expectations; `dump`; errors for unsupported forms; thread safety.

mod jit_util;

use jit_util::*;
use ptxjit::check::parse_and_check;
use ptxjit::jit::{dump, DumpKind, JitModule};

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Runs kernel `k(.param .u64 out)` of `body` with `n` threads on both backends and
/// returns the first `words` u32 of `out` (initially 0xdeadbeef).
fn run_ptx(src: &str, n: u32, words: usize) -> Vec<u32> {
    let text = format!("{HEADER}{src}");
    let m = parse_and_check(&text, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let out = dev.alloc_u32(&vec![0xdead_beef; words]);
    let mut l = Launch::threads(n, params_u64(&[out]));
    l.shared = 1024;
    l.local = 64;
    let (o, mem) = run_both(&dev, &m, &layout, "k", &l, &[(out, words * 4)]);
    assert!(
        o.statuses.iter().all(|&s| s == 0),
        "statuses {:?} fault {:?}",
        o.statuses,
        o.fault
    );
    mem[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn integer_mix() {
    let got = run_ptx(
        r#"
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    .reg .b16 %rs<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd2, %rd3;
    // 0: mad.hi.s32 / mul.hi.u32
    mul.lo.s32 %r2, %r1, -1000003;
    mul.hi.s32 %r3, %r2, 1234567;
    mad.hi.u32 %r4, %r2, %r2, %r1;
    st.global.u32 [%rd4], %r3;
    st.global.u32 [%rd4+4], %r4;
    // 2: mul.wide.s32, mad.lo (div/rem are not accepted by the front end yet)
    sub.s32 %r5, %r1, 3;
    mul.wide.s32 %rd5, %r2, %r5;
    st.global.u64 [%rd4+8], %rd5;
    // 4: 16-bit arithmetic, shifts by lane-dependent amounts, min/max
    cvt.u16.u32 %rs1, %r2;
    shl.b16 %rs2, %rs1, %r1;
    shr.s16 %rs3, %rs1, 3;
    cvt.s32.s16 %r8, %rs3;
    cvt.u32.u16 %r9, %rs2;
    st.global.u32 [%rd4+16], %r8;
    st.global.u32 [%rd4+20], %r9;
    min.s32 %r10, %r2, %r5;
    max.u32 %r11, %r2, %r5;
    xor.b32 %r12, %r10, %r11;
    // 6: predicates with combine, selp
    setp.lt.s32 %p1, %r2, 0;
    setp.eq.and.u32 %p2|%p3, %r5, 7, %p1;
    selp.b32 %r13, %r12, 77, %p2;
    selp.b32 %r14, 1, 2, %p3;
    add.s32 %r13, %r13, %r14;
    st.global.u32 [%rd4+24], %r13;
    // 7: bit ops
    not.b32 %r15, %r1;
    and.b32 %r16, %r15, 0xff;
    or.b32 %r17, %r16, 0x100;
    shr.u32 %r18, %r17, %r1;
    st.global.u32 [%rd4+28], %r18;
    ret;
}
"#,
        64,
        64 * 8,
    );
    for t in 0..64u32 {
        let r2 = t.wrapping_mul(-1000003i32 as u32) as i32;
        let w = |i: usize| got[(t * 8) as usize + i];
        assert_eq!(
            w(0) as i32,
            ((r2 as i64 * 1234567) >> 32) as i32,
            "mul.hi t={t}"
        );
        let r5 = t as i32 - 3;
        let wide = r2 as i64 * r5 as i64;
        assert_eq!(
            ((w(3) as u64) << 32 | w(2) as u64) as i64,
            wide,
            "mul.wide.s32 t={t}"
        );
        let rs1 = r2 as u16;
        let shl = if t >= 16 { 0 } else { rs1 << t };
        assert_eq!(w(5), shl as u32, "shl.b16 t={t}");
        assert_eq!(w(4) as i32, ((rs1 as i16) >> 3) as i32, "shr.s16 t={t}");
        let s = if t >= 32 {
            0
        } else {
            ((!t & 0xff) | 0x100) >> t
        };
        assert_eq!(w(7), s, "shr.u32 t={t}");
    }
}

#[test]
fn floats_and_conversions() {
    let got = run_ptx(
        r#"
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .f32 %f<12>;
    .reg .f64 %fd<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd1, %rd3;
    cvt.rn.f32.u32 %f1, %r1;
    sub.f32 %f2, %f1, 16.0;
    div.rn.f32 %f3, 1.0, %f2;
    mul.f32 %f4, %f3, %f3;
    fma.rn.f32 %f5, %f4, 0f40490FDB, %f2;
    max.f32 %f6, %f5, 0fFFC00000;
    min.ftz.f32 %f7, %f6, -0.0;
    abs.f32 %f8, %f7;
    neg.f32 %f9, %f8;
    st.global.f32 [%rd4], %f5;
    st.global.f32 [%rd4+4], %f9;
    cvt.f64.f32 %fd1, %f3;
    add.rz.f64 %fd3, %fd1, 0d3FF0000000000001;
    st.global.f64 [%rd4+8], %fd3;
    cvt.rn.f32.f64 %f10, %fd3;
    cvt.rzi.s32.f32 %r2, %f5;
    cvt.rni.s32.f64 %r3, %fd3;
    cvt.sat.f32.f32 %f11, %f2;
    st.global.f32 [%rd4+16], %f10;
    st.global.u32 [%rd4+20], %r2;
    st.global.u32 [%rd4+24], %r3;
    st.global.f32 [%rd4+28], %f11;
    setp.nan.f32 %p1, %f3, %f3;
    @%p1 st.global.u32 [%rd4+28], 7;
    ret;
}
"#,
        32,
        32 * 8,
    );
    for t in 0..32u32 {
        let f2 = t as f32 - 16.0;
        let f3 = 1.0 / f2;
        let f5 = (f3 * f3).mul_add(std::f32::consts::PI, f2);
        assert_eq!(got[(t * 8) as usize], f5.to_bits(), "fma t={t}");
        assert_eq!(got[(t * 8 + 5) as usize] as i32, f5 as i32, "cvt.rzi t={t}");
        let sat = f2.clamp(0.0, 1.0);
        assert_eq!(
            got[(t * 8 + 7) as usize],
            if f2 <= 0.0 { 0 } else { sat.to_bits() },
            "cvt.sat t={t}"
        );
    }
}

#[test]
fn divergence_shared_local_and_generic() {
    let got = run_ptx(
        r#"
.visible .entry k(.param .u64 out)
{
    .local .align 4 .b8 depot[16];
    .shared .align 4 .u32 sm[64];
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, sm;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    mov.u64 %rd4, depot;
    cvta.local.u64 %rd5, %rd4;
    st.u32 [%rd5+4], %r3;
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
LOOP:
    and.b32 %r7, %r1, 3;
    setp.gt.u32 %p1, %r7, %r6;
    @!%p1 bra DONE;
    add.s32 %r5, %r5, %r6;
    add.s32 %r6, %r6, 1;
    bra.uni LOOP;
DONE:
    ld.local.u32 %r8, [depot+4];
    add.s32 %r5, %r5, %r8;
    xor.b32 %r9, %r3, 124;
    add.s32 %r10, %r2, %r9;
    ld.shared.u32 %r11, [%r10];
    add.s32 %r5, %r5, %r11;
    setp.eq.u32 %p2, %r7, 2;
    @%p2 exit;
    st.global.u32 [%rd3], %r5;
    ret;
}
"#,
        32,
        32,
    );
    for t in 0..32u32 {
        let n = t & 3;
        let want = (0..n).sum::<u32>() + 4 * t + (t ^ 31);
        assert_eq!(
            got[t as usize],
            if n == 2 { 0xdead_beef } else { want },
            "t={t}"
        );
    }
}

#[test]
fn dump_clif_and_asm() {
    let src = format!(
        "{HEADER}{}",
        include_str!("../examples/saxpy.ptx")
            .split(".address_size 64")
            .nth(1)
            .unwrap_or("")
    );
    let m = parse_and_check(&src, "saxpy.ptx").unwrap();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let clif = dump(&m, &layout, Some("saxpy"), DumpKind::Clif).unwrap();
    assert!(
        clif.contains("function") && clif.contains("br_table"),
        "{clif}"
    );
    let asm = dump(&m, &layout, None, DumpKind::Asm).unwrap();
    assert!(asm.contains("; kernel saxpy") && asm.len() > 1000);
    assert!(dump(&m, &layout, Some("nope"), DumpKind::Clif).is_err());
}

/// Every form the JIT has no lowering for is a check-time error: `add.f16` is checked
/// into `InstKind::Half` and compiles; the same module with the add turned by hand into
/// an f16 `Arith` (a form `check` never builds) fails `validate`, and the JIT names it an
/// internal error at the instruction's line.
#[test]
fn forms_the_jit_refuses_are_check_errors() {
    use ptxjit::ir::{ArithOp, BlockId, FloatMode, FuncId, InstKind, Type};
    let text = format!(
        "{HEADER}{}",
        r#"
.visible .entry k(.param .u64 out)
{
    .reg .f16 %h<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.global.b16 %h1, [%rd1];
    add.f16 %h2, %h1, %h1;
    st.global.b16 [%rd1], %h2;
    ret;
}
"#
    );
    let m = parse_and_check(&text, "h.ptx").unwrap_or_else(|e| panic!("{e}"));
    let dev = Dev::new();
    let layout = dev.layout(&m);
    JitModule::compile(&m, &layout).unwrap_or_else(|e| panic!("{e}"));
    let mut bad = m.clone();
    let add = bad.functions[FuncId(0)].blocks[BlockId(0)]
        .insts
        .iter_mut()
        .find(|i| matches!(i.kind, InstKind::Half { .. }))
        .expect("the add");
    let InstKind::Half { dst, srcs, .. } = add.kind.clone() else {
        unreachable!()
    };
    add.kind = InstKind::Arith {
        op: ArithOp::Add,
        ty: Type::F16,
        fmode: FloatMode::default(),
        dst,
        srcs,
    };
    let e = ptxjit::check::validate(&bad).expect_err("an f16 Arith");
    assert!(e.contains("Add on .f16"), "{e}");
    let e = match JitModule::compile(&bad, &layout) {
        Ok(_) => panic!("the JIT has no f16 Arith lowering"),
        Err(e) => e.to_string(),
    };
    assert!(e.starts_with("h.ptx:11:5: internal error: "), "{e}");
    assert!(e.ends_with("(check and validate reject it: a bug)"), "{e}");
}

#[test]
fn jit_module_is_send_and_sync_and_runs_on_many_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JitModule>();
    let text = format!(
        "{HEADER}{}",
        r#"
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mul.lo.u32 %r2, %r1, %r1;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#
    );
    let m = parse_and_check(&text, "t.ptx").unwrap();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let jit = compile(&m, &layout);
    let outs: Vec<u64> = (0..4).map(|_| dev.alloc_u32(&[0; 64])).collect();
    std::thread::scope(|s| {
        for &o in &outs {
            let (dev, jit, m) = (&dev, &jit, &m);
            s.spawn(move || {
                let r = run(dev, jit, m, "k", &Launch::threads(64, params_u64(&[o])));
                assert_eq!(r.statuses, vec![0, 0]);
            });
        }
    });
    for o in outs {
        assert_eq!(
            dev.read_u32(o, 64),
            (0..64).map(|i| i * i).collect::<Vec<u32>>()
        );
    }
}

#[test]
fn generic_access_to_a_shared_variable() {
    // `ld.u32 [sm+4]` without a state space: the IR gives Space::Generic with the
    // variable as base, whose generic address (`ir::AddrBase::Var`) is the shared window
    // base plus the variable's offset; both backends must agree.
    let text = format!(
        "{HEADER}{}",
        r#"
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .u32 sm[64];
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    st.shared.u32 [sm+4], 42;
    ld.u32 %r2, [sm+4];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#
    );
    let m = parse_and_check(&text, "t.ptx").unwrap();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let out = dev.alloc_u32(&[0; 32]);
    let mut l = Launch::threads(32, params_u64(&[out]));
    l.shared = 1024;
    let (r, mem) = run_both(&dev, &m, &layout, "k", &l, &[(out, 32 * 4)]);
    assert_eq!(r.statuses, vec![0], "{:?}", r.fault);
    let got: Vec<u32> = mem[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, vec![42; 32]);
}
