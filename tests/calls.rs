//! Function calls (tests/kernels/calls.cu, compiled by clang and NVRTC, and hand-written
//! PTX in tests/kernels/spec_calls*.ptx): calls with and without return values, struct
//! arguments and returns (arrays in .param), per-lane recursion, calls under divergence,
//! `bar.sync` inside a called function. Every kernel runs on both backends against a
//! plain Rust reference.
#[macro_use]
mod common;
use common::*;

const SENTINEL: u32 = 0x5EE5_5EE5;

fn sq1(x: u32) -> u32 {
    x.wrapping_mul(x).wrapping_add(1)
}
fn fact(n: u32) -> u32 {
    if n <= 1 {
        1
    } else {
        n.wrapping_mul(fact(n - 1))
    }
}
fn fib(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}
fn odd_path(x: u32) -> u32 {
    if x & 1 != 0 {
        return sq1(x) ^ 0x55;
    }
    let mut s = 0u32;
    for i in 0..(x & 7) {
        s = s.wrapping_add(sq1(i.wrapping_add(x)));
    }
    s
}

/// out[8i..8i+8] of kernel `calls` for thread i with input x.
fn reference(i: u32, x: u32) -> [u32; 8] {
    let mut o = [SENTINEL; 8];
    o[0] = sq1(x);
    let d = (i & 7) + 1;
    o[1] = x >> d;
    o[2] = x & ((1 << d) - 1);
    let q = [x, x >> 3, i, x ^ i];
    o[3] = q[0]
        .wrapping_add(q[1].wrapping_mul(2))
        .wrapping_add(q[2].wrapping_mul(3))
        .wrapping_add(q[3].wrapping_mul(i & 3));
    o[4] = fact(x & 15);
    o[5] = fib(i & 15);
    let v = if i & 3 == 0 { odd_path(x) } else { 7 };
    o[6] = v;
    o[7] = !v;
    o
}

fn calls(backend: Backend) {
    let dev = device();
    for file in variants("calls") {
        let m = module(&dev, &file, backend);
        for &(n, block) in &[(1usize, 32u32), (45, 32), (300, 128)] {
            let mut rng = Rng::new(n as u64);
            let input: Vec<u32> = (0..n)
                .map(|i| if i < 40 { i as u32 } else { rng.u32() })
                .collect();
            let grid = blocks(n, block);
            let total = (grid * block) as usize;
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; 8 * total]).unwrap();
            let what = format!("{file} calls n={n} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "calls",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            let mut want = vec![SENTINEL; 8 * total];
            for i in 0..n {
                want[8 * i..8 * i + 8].copy_from_slice(&reference(i as u32, input[i]));
            }
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

fn bar_in_call(backend: Backend) {
    let dev = device();
    for file in variants("calls") {
        let m = module(&dev, &file, backend);
        for &(grid, block) in &[(1u32, 32u32), (3, 96), (2, 256)] {
            let n = (grid * block) as usize;
            let input: Vec<u32> = Rng::new(9).vec_u32(n);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; n]).unwrap();
            let what = format!("{file} bar_in_call grid={grid} block={block} {backend:?}");
            launch(
                &dev,
                &m,
                "bar_in_call",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf)],
                &what,
            );
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    let b = i / block as usize * block as usize;
                    let t = i % block as usize;
                    input[b + block as usize - 1 - t].wrapping_mul(3)
                })
                .collect();
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

both_backends!(calls, bar_in_call);

/// The compiler samples of tests/frontend_ptx/call.* (nvcc and clang call sequences).
fn frontend_samples(backend: Backend) {
    let dev = device();
    for c in COMPILERS {
        let file = format!("tests/frontend_ptx/call.{c}.ptx");
        let src = load_root(&file);
        let m = match backend {
            Backend::Jit => dev.load_ptx(&src, &file),
            Backend::Interp => dev.load_ptx_with(&src, &file, false),
        }
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        let input: Vec<u32> = Rng::new(3).vec_u32(64);
        let buf = dev.alloc_from(&input).unwrap();
        let what = format!("{file} {backend:?}");
        launch(
            &dev,
            &m,
            "calls",
            &cfg([1, 1, 1], [64, 1, 1], backend),
            &[arg(&buf)],
            &what,
        );
        let want: Vec<u32> = input.iter().map(|&x| sq1(x)).collect();
        assert_slice_eq(&dev.read::<u32>(&buf).unwrap(), &want, &what);
    }
}

both_backends!(frontend_samples);

fn load_spec(dev: &Device, file: &str, backend: Backend) -> ptxjit::Module {
    module(dev, file, backend)
}

fn spec(backend: Backend) {
    let dev = device();
    let m = load_spec(&dev, "spec_calls.ptx", backend);
    for &block in &[32u32, 45, 128] {
        let n = block as usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| {
                if i < 40 {
                    i
                } else {
                    i.wrapping_mul(2654435761)
                }
            })
            .collect();
        let in_buf = dev.alloc_from(&input).unwrap();
        let out_buf = dev.alloc_from(&vec![SENTINEL; 4 * n]).unwrap();
        let what = format!("spec_calls spec block={block} {backend:?}");
        launch(
            &dev,
            &m,
            "spec",
            &cfg([1, 1, 1], [block, 1, 1], backend),
            &[arg(&in_buf), arg(&out_buf)],
            &what,
        );
        let mut want = vec![SENTINEL; 4 * n];
        for t in 0..n {
            let x = input[t];
            let tid = t as u32;
            want[4 * t] = x >> (tid & 7);
            want[4 * t + 1] = if x & 1 != 0 {
                x.wrapping_mul(3)
            } else {
                (1..=(x & 15)).sum()
            };
            want[4 * t + 2] = if tid & 3 == 0 { x >> 4 } else { 0xdead };
            if x & 7 != 5 {
                want[4 * t + 3] = tid;
            }
        }
        assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
    }
}

fn multi(backend: Backend) {
    let dev = device();
    let m = load_spec(&dev, "spec_calls_noabi.ptx", backend);
    let n = 64usize;
    let input: Vec<u32> = Rng::new(5).vec_u32(n);
    let in_buf = dev.alloc_from(&input).unwrap();
    let out_buf = dev.alloc_from(&vec![SENTINEL; 3 * n]).unwrap();
    let what = format!("spec_calls_noabi multi {backend:?}");
    launch(
        &dev,
        &m,
        "multi",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&in_buf), arg(&out_buf)],
        &what,
    );
    let mut want = vec![SENTINEL; 3 * n];
    for t in 0..n {
        let (x, s) = (input[t], t as u32 & 7);
        want[3 * t] = x >> s;
        want[3 * t + 1] = x & ((1 << s) - 1);
        want[3 * t + 2] = if t & 3 == 1 { x & 15 } else { 0xdead };
    }
    assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
}

/// Per-lane recursion depth up to the limit (1000 frames), and one frame more is an
/// error that names the function.
fn depth_limit(backend: Backend) {
    let dev = device();
    let m = load_spec(&dev, "spec_calls.ptx", backend);
    let out = dev.alloc_from(&vec![SENTINEL; 64]).unwrap();
    for n in [0u32, 7, 998] {
        let what = format!("deep n={n} {backend:?}");
        launch(
            &dev,
            &m,
            "deep",
            &cfg([1, 1, 1], [64, 1, 1], backend),
            &[arg(&out), KernelArg::from(n)],
            &what,
        );
        let want: Vec<u32> = (0..64u32).map(|t| n + (t & 1)).collect();
        assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
    }
    // n = 999: only the odd lanes go one frame too deep.
    for (n, thread) in [(999u32, "(1,0,0)"), (1000, "(0,0,0)"), (100_000, "(0,0,0)")] {
        let e = dev
            .launch(
                &m,
                "deep",
                &cfg([1, 1, 1], [64, 1, 1], backend),
                &[arg(&out), KernelArg::from(n)],
            )
            .expect_err("too deep");
        let msg = e.to_string();
        let line = load("spec_calls.ptx")
            .lines()
            .position(|l| l.contains("call (r), down"))
            .map_or(0, |i| i + 1);
        assert!(
            msg.contains(&format!(
                "kernel 'deep' stopped at spec_calls.ptx:{line} (`call`) in block (0,0,0), thread {thread}: \
                 call to function 'down' at spec_calls.ptx:{line}:2 (`call`) failed: more than 1000 nested calls"
            )),
            "{msg}"
        );
    }
}

both_backends!(spec, multi, depth_limit);

/// Indirect calls: per-lane targets from a .global table (prototype) and from
/// `mov.u64 %rd, func;` (.calltargets), lanes grouped by target.
fn indirect(backend: Backend) {
    let dev = device();
    let m = load_spec(&dev, "spec_calls_indirect.ptx", backend);
    for &block in &[1u32, 32, 45, 96] {
        let n = block as usize;
        let input: Vec<u32> = Rng::new(11).vec_u32(n);
        let in_buf = dev.alloc_from(&input).unwrap();
        let out_buf = dev.alloc_from(&vec![SENTINEL; 2 * n]).unwrap();
        let what = format!("spec_calls_indirect ind block={block} {backend:?}");
        launch(
            &dev,
            &m,
            "ind",
            &cfg([1, 1, 1], [block, 1, 1], backend),
            &[arg(&in_buf), arg(&out_buf), KernelArg::from(0u32)],
            &what,
        );
        let xor = |x: u32, y: u32| {
            if y < 16 {
                x ^ y
            } else {
                (x ^ y).wrapping_add(1000)
            }
        };
        let mut want = vec![SENTINEL; 2 * n];
        for t in 0..n {
            let (x, tid) = (input[t], t as u32);
            want[2 * t] = match (tid & 3) % 3 {
                0 => x.wrapping_add(tid),
                1 => x.wrapping_mul(tid),
                _ => xor(x, tid),
            };
            want[2 * t + 1] = if tid & 1 != 0 {
                x.wrapping_add(7)
            } else {
                xor(x, 7)
            };
        }
        assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
    }
}

/// A lane calling an address that is no function, or a function outside .calltargets:
/// an error naming the instruction, the thread and the address.
fn indirect_bad_target(backend: Backend) {
    let dev = device();
    let m = load_spec(&dev, "spec_calls_indirect.ptx", backend);
    let in_buf = dev.alloc_from(&[3u32; 32]).unwrap();
    let out_buf = dev.alloc_from(&[0u32; 64]).unwrap();
    for (bad, want) in [
        (
            1u32,
            "indirect call to address 0x1234, which is not a function of the module",
        ),
        (2, "(function 1), which is not a target of this call"),
    ] {
        let e = dev
            .launch(
                &m,
                "ind",
                &cfg([1, 1, 1], [32, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(bad)],
            )
            .expect_err("bad target");
        let msg = e.to_string();
        let thread = if bad == 1 { "(5,0,0)" } else { "(7,0,0)" };
        assert!(
            msg.contains(want)
                && msg.contains(&format!(
                    "kernel 'ind' stopped at spec_calls_indirect.ptx:{} (`call`) in block (0,0,0), thread {thread}",
                    if bad == 1 { 82 } else { 105 }
                )),
            "{msg}"
        );
    }
}

both_backends!(indirect, indirect_bad_target);

/// Indirect calls through a table of function pointers in .global (compiler output).
fn fnptr(backend: Backend) {
    let dev = device();
    for file in variants("calls") {
        let m = module(&dev, &file, backend);
        for &(n, block) in &[(1usize, 32u32), (77, 32), (300, 128)] {
            let input: Vec<u32> = Rng::new(n as u64 + 1).vec_u32(n);
            let grid = blocks(n, block);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; n]).unwrap();
            let what = format!("{file} fnptr n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "fnptr",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    let (x, i) = (input[i], i as u32);
                    match x & 3 {
                        1 => x.wrapping_mul(i),
                        2 => (x ^ 0x9e37_79b9).wrapping_sub(i),
                        _ => x.wrapping_add(i),
                    }
                })
                .collect();
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

both_backends!(fnptr);

fn mix_local(x: u32, depth: u32) -> u32 {
    let a: Vec<u32> = (0..8u32)
        .map(|k| x.wrapping_mul(k + 1).wrapping_add(depth))
        .collect();
    let mut r = a[(((x >> 3) ^ x) & 7) as usize];
    if depth > 0 {
        r = r.wrapping_add(mix_local(x ^ a[(x & 7) as usize], depth - 1));
    }
    r.wrapping_add(a[(x.wrapping_add(depth) & 7) as usize])
}

/// Local arrays in recursive callees (a .local frame per call).
fn locals(backend: Backend) {
    let dev = device();
    for file in variants("calls") {
        let m = module(&dev, &file, backend);
        for &(n, block) in &[(1usize, 32u32), (77, 32), (300, 128)] {
            let input: Vec<u32> = Rng::new(n as u64 + 2).vec_u32(n);
            let grid = blocks(n, block);
            let in_buf = dev.alloc_from(&input).unwrap();
            let out_buf = dev.alloc_from(&vec![SENTINEL; n]).unwrap();
            let what = format!("{file} locals n={n} {backend:?}");
            launch(
                &dev,
                &m,
                "locals",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&in_buf), arg(&out_buf), KernelArg::from(n as u32)],
                &what,
            );
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    let x = input[i];
                    let b = x.wrapping_add((x & 3) * 7);
                    mix_local(x, i as u32 & 7) ^ b
                })
                .collect();
            assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
        }
    }
}

both_backends!(locals);

/// Call errors are located load-time errors.
#[test]
fn load_errors() {
    let dev = device();
    let err = |body: &str| -> String {
        let src = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .func (.param .b32 r) f (.param .b32 a)\n{{\n\tst.param.b32 [r], 1;\n\tret;\n}}\n\
             .func g (.param .b32 a, .param .b64 b)\n{{\n\tret;\n}}\n\
             .entry k()\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p;\n{body}\n}}\n"
        );
        match dev.load_ptx_with(&src, "e.ptx", false) {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        err("\tcall (%r1), f, (%r2, %r3);"),
        "e.ptx:18:2: error: 'f' takes 1 argument(s), not 2"
    );
    assert_eq!(
        err("\tcall f, (%r2);"),
        "e.ptx:18:2: error: 'f' returns 1 value(s), not 0"
    );
    assert_eq!(
        err("\tcall k;"),
        "e.ptx:18:2: error: 'k' is a kernel (.entry) and cannot be called"
    );
    assert_eq!(
        err("\t{\n\t.param .b32 p;\n\tcall g, (p, p);\n\t}"),
        "e.ptx:20:14: error: 'p' has 4 bytes; parameter 'b' needs 8"
    );
    assert_eq!(
        err("\tcall (%r1), %rd1, (%r2), nope;"),
        "e.ptx:18:27: error: 'nope' is not a '.calltargets' or '.callprototype' label of this function, nor a call table (an array initialized with function names)"
    );
    assert_eq!(
        err("\tt: .calltargets f, g;\n\tcall (%r1), %rd1, (%r2), t;"),
        "e.ptx:19:27: error: call targets 'f' and 'g' have different parameters"
    );
    assert_eq!(
        err("\tcall (%r1), %p, (%r2), t;"),
        "e.ptx:18:14: error: the address of an indirect call must be a 32- or 64-bit integer register"
    );
}

/// Names in a `.callprototype` do not clash with the caller's; `.reg` arguments and an
/// immediate argument of an indirect call.
fn named_prototype(backend: Backend) {
    let src = r#"
.version 7.0
.target sm_70
.address_size 64
.func (.reg .b32 r) twice (.reg .b32 a, .reg .b32 b)
{
	mad.lo.u32 r, a, 2, b;
	ret;
}
.entry k(.param .u64 pout)
{
	.reg .b32 a, r;
	.reg .b64 %rd<4>;
	proto: .callprototype (.reg .b32 r) _ (.reg .b32 a, .reg .b32 b);
	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 a, %tid.x;
	mov.u64 %rd2, twice;
	call (r), %rd2, (a, 5), proto;
	mul.wide.u32 %rd3, a, 4;
	add.s64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], r;
	ret;
}
"#;
    let dev = device();
    let m = match backend {
        Backend::Jit => dev.load_ptx(src, "named.ptx"),
        Backend::Interp => dev.load_ptx_with(src, "named.ptx", false),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dev.alloc_from(&[0u32; 40]).unwrap();
    let what = format!("named_prototype {backend:?}");
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [40, 1, 1], backend),
        &[arg(&out)],
        &what,
    );
    let want: Vec<u32> = (0..40).map(|t| 2 * t + 5).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
}

both_backends!(named_prototype);

/// `.reg .pred` parameters and return values of a `.func`, directly (guarded, with
/// register and immediate arguments, under divergence) and through a `.callprototype`.
/// PTX's grammar allows `.reg` parameters of any type; ptxas rejects this module only
/// because its ABI ("passing predicate, 8-bit and 16-bit parameters to device functions is
/// not supported"), so the text lives here rather than in a ptxas-validated file.
const PRED_PARAMS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
// r = a xor (x > 100), with the return taken under a guard.
.func (.reg .pred r) inv_if (.reg .pred a, .reg .b32 x)
{
    .reg .pred q;
    setp.gt.u32 q, x, 100;
    mov.pred r, a;
    @!q ret;
    not.pred r, a;
    ret;
}
.visible .entry predk(.param .u64 in, .param .u64 out)
{
    .reg .pred p<6>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    proto: .callprototype (.reg .pred _) _ (.reg .pred _, .reg .b32 _);
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd3, %rd1, %rd3;
    ld.global.u32 %r2, [%rd3];
    and.b32 %r3, %r2, 1;
    setp.ne.u32 p1, %r3, 0;
    rem.u32 %r3, %r1, 3;
    setp.ne.u32 p2, %r3, 0;
    and.b32 %r3, %r1, 4;
    setp.ne.u32 p3, %r3, 0;
    @p2 call (p3), inv_if, (p1, %r2);
    mul.wide.u32 %rd4, %r1, 12;
    add.u64 %rd4, %rd2, %rd4;
    selp.u32 %r4, 1, 0, p3;
    st.global.u32 [%rd4], %r4;
    and.b32 %r3, %r2, 2;
    setp.ne.u32 p4, %r3, 0;
    @!p4 bra ELSE;
    call (p5), inv_if, (1, %r2);
    bra JOIN;
ELSE:
    call (p5), inv_if, (0, %r2);
JOIN:
    selp.u32 %r4, 1, 0, p5;
    st.global.u32 [%rd4+4], %r4;
    mov.u64 %rd5, inv_if;
    call (p5), %rd5, (p1, %r2), proto;
    selp.u32 %r4, 1, 0, p5;
    st.global.u32 [%rd4+8], %r4;
    ret;
}
"#;

fn pred_params(backend: Backend) {
    let dev = device();
    let m = match backend {
        Backend::Jit => dev.load_ptx(PRED_PARAMS, "pred_params.ptx"),
        Backend::Interp => dev.load_ptx_with(PRED_PARAMS, "pred_params.ptx", false),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let n = 96usize;
    let mut input = Rng::new(11).vec_u32(n);
    for (t, x) in input.iter_mut().enumerate() {
        *x %= 200 + t as u32; // both sides of 100
    }
    let in_buf = dev.alloc_from(&input).unwrap();
    let out_buf = dev.alloc_from(&vec![SENTINEL; 3 * n]).unwrap();
    let what = format!("pred_params {backend:?}");
    launch(
        &dev,
        &m,
        "predk",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&in_buf), arg(&out_buf)],
        &what,
    );
    let mut want = vec![0u32; 3 * n];
    for t in 0..n {
        let x = input[t];
        let (odd, big) = (x & 1 != 0, x > 100);
        want[3 * t] = if t % 3 != 0 {
            (odd ^ big) as u32
        } else {
            (t & 4 != 0) as u32
        };
        want[3 * t + 1] = ((x & 2 != 0) ^ big) as u32;
        want[3 * t + 2] = (odd ^ big) as u32;
    }
    assert_slice_eq(&dev.read::<u32>(&out_buf).unwrap(), &want, &what);
}
both_backends!(pred_params);

/// The ISA's call-table form (tests/ptx/call_table.ptx): `call (r), %r0, (x, y), jmptbl;`
/// where `jmptbl` is a `.global` array initialized with `foo, bar, baz`: each lane calls
/// the function its selector picks from the table (foo: x+y, bar: x-y, baz: x*y, with
/// x = tid+7, y = 5); a lane whose pointer is `baz2` (not in the table) is a located
/// fault.
fn call_table(backend: Backend) {
    let dev = device();
    let text = std::fs::read_to_string(format!(
        "{}/tests/ptx/call_table.ptx",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let m = dev
        .load_ptx_with(&text, "call_table.ptx", backend == Backend::Jit)
        .unwrap();
    let sel: Vec<u32> = (0..64u32).map(|t| (t * 7 + t / 5) % 3).collect();
    let sel_buf = dev.alloc_from(&sel).unwrap();
    let out = dev.alloc_from(&[SENTINEL; 64]).unwrap();
    let what = format!("call_table {backend:?}");
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [64, 1, 1], backend),
        &[arg(&out), arg(&sel_buf)],
        &what,
    );
    let want: Vec<u32> = (0..64u32)
        .map(|t| {
            let (x, y) = (t + 7, 5u32);
            [x + y, x - y, x * y][sel[t as usize] as usize]
        })
        .collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);

    let mut bad = sel.clone();
    bad[37] = 3;
    let sel_buf = dev.alloc_from(&bad).unwrap();
    let e = dev
        .launch(
            &m,
            "k",
            &cfg([1, 1, 1], [64, 1, 1], backend),
            &[arg(&out), arg(&sel_buf)],
        )
        .expect_err(&what);
    let msg = e.to_string();
    assert!(
        msg.contains("which is not a target of this call")
            && msg.contains("kernel 'k' stopped at call_table.ptx:35 (`call`) in block (0,0,0), thread (37,0,0)"),
        "{what}: {msg}"
    );
}

both_backends!(call_table);
