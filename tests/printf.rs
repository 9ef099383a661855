//! Device `printf` (`vprintf`) and `assert` (`__assertfail`) from CUDA C
//! (tests/kernels/printf.cu, compiled by clang and NVRTC), on both backends: the printed
//! text is compared with hand-written expected lines (C `printf` conventions, worked out
//! by hand below); a failing assertion names the thread, file, line and function.
#[macro_use]
mod common;
use common::*;

const A: [i32; 5] = [0, -7, 123456, i32::MAX, i32::MIN];
#[allow(clippy::approx_constant)]
const D: [f64; 5] = [1.5, -0.25, 1e10, 3.14159, 0.0001234];
const S: &[u8] = b"ptxjit!\0";

/// The first `printf` of thread t (p = the address of `a`). `f` is `(float)d[t]`
/// promoted back to double: 1e10 = 9765625 * 2^10 is exact in f32; (float)3.14159 =
/// 3.14159011840..., (float)0.0001234 = 0.000123400002...
fn first(p: u64) -> Vec<String> {
    [
        "t=0 a=    0 u=0 x=0 ld=0 f=1.500000 e=1.500e+00 g=1.5 s=ptxjit! c=A",
        "t=1 a=   -7 u=4294967289 x=0xfffffff9 ld=-7000000000 f=-0.250000 e=-2.500e-01 g=-0.25 s=txjit! c=B",
        "t=2 a=123456 u=123456 x=0x1e240 ld=123456000000000 f=10000000000.000000 e=1.000e+10 g=1e+10 s=xjit! c=C",
        "t=3 a=2147483647 u=2147483647 x=0x7fffffff ld=2147483647000000000 f=3.141590 e=3.142e+00 g=3.14159 s=jit! c=D",
        "t=4 a=-2147483648 u=2147483648 x=0x80000000 ld=-2147483648000000000 f=0.000123 e=1.234e-04 g=0.0001234 s=it! c=E",
    ]
    .iter()
    .map(|l| format!("{l} p={p:#x}%"))
    .collect()
}

/// The divergent second `printf`: odd threads `odd %d|%-4d|%+d|%05.1f` (-0.25 is a tie
/// at one decimal: to even, -0.2); even threads `even %llx %-8s|` of `(u64)a << 32`.
const ODD: [&str; 2] = ["odd 1|1   |+1|-00.2", "odd 3|3   |+3|003.1"];
const EVEN: [&str; 3] = [
    "even 0 ptxjit! |",
    "even 1e24000000000 ptxjit! |",
    "even 8000000000000000 ptxjit! |",
];

fn printk(backend: Backend) {
    let dev = device();
    dev.capture_output(true);
    for file in variants("printf") {
        let m = module(&dev, &file, backend);
        let a = dev.alloc_from(&A).unwrap();
        let d = dev.alloc_from(&D).unwrap();
        let s = dev.alloc_from(S).unwrap();
        let what = format!("{file} {backend:?}");
        launch(
            &dev,
            &m,
            "printk",
            &cfg([1, 1, 1], [32, 1, 1], backend),
            &[arg(&a), arg(&d), arg(&s), KernelArg::from(5u32)],
            &what,
        );
        let out = dev.take_output();
        let lines: Vec<&str> = out.lines().collect();
        assert!(out.ends_with('\n'), "{what}: {out}");
        assert_eq!(lines.len(), 11, "{what}: {out}");
        assert_eq!(lines[0], "hello", "{what}");
        assert_eq!(&lines[1..6], &first(a.ptr())[..], "{what}");
        // The two sides of the branch run one after the other (in either order, as on a
        // GPU), each side's lanes in ascending order.
        let rest = &lines[6..];
        let (odd, even): (Vec<&str>, Vec<&str>) = rest.iter().partition(|l| l.starts_with("odd"));
        assert_eq!(odd, ODD, "{what}: {out}");
        assert_eq!(even, EVEN, "{what}: {out}");
        assert!(rest[0..2] == ODD || rest[0..3] == EVEN, "{what}: {out}");
        assert!(dev.take_output().is_empty());
    }
}

fn assert_fails(backend: Backend) {
    let dev = device();
    dev.capture_output(true);
    for file in variants("printf") {
        let m = module(&dev, &file, backend);
        let a: Vec<i32> = (0..64).map(|t| 3 * t).collect();
        let a = dev.alloc_from(&a).unwrap();
        let what = format!("{file} {backend:?}");
        // An assertion that holds everywhere: no error, no output.
        launch(
            &dev,
            &m,
            "assertk",
            &cfg([2, 1, 1], [64, 1, 1], backend),
            &[arg(&a), KernelArg::from(-1i32)],
            &what,
        );
        // Thread 37 (warp 1, lane 5) of every block fails.
        let e = dev
            .launch(
                &m,
                "assertk",
                &cfg([1, 1, 1], [64, 1, 1], backend),
                &[arg(&a), KernelArg::from(3 * 37i32)],
            )
            .expect_err(&what);
        match &e {
            Error::Kernel {
                kernel,
                block,
                thread,
                msg,
                ..
            } => {
                assert_eq!(kernel, "assertk", "{what}");
                assert_eq!(*block, [0, 0, 0], "{what}");
                assert_eq!(*thread, [37, 0, 0], "{what}: {e}");
                assert!(
                    msg.starts_with("assertion failed: a[t] != bad at printf.cu:21 in assertk"),
                    "{what}: {e}"
                );
            }
            _ => panic!("{what}: {e}"),
        }
        assert!(e.is_assertion(), "{what}");
        assert!(dev.take_output().is_empty(), "{what}");
    }
}

both_backends!(printk, assert_fails);

/// A function named `vprintf` with another signature is not the built-in: calling it is
/// the usual load-time error.
#[test]
fn other_signature_is_not_builtin() {
    let ptx = r#"
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 r) vprintf (.param .b64 a);
.visible .entry k()
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 0;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b32 r0;
    call.uni (r0), vprintf, (p0);
    ld.param.b32 %r1, [r0];
    }
    ret;
}
"#;
    let dev = device();
    let e = dev.load_ptx(ptx, "bad.ptx").expect_err("must not load");
    assert!(e.to_string().contains("which has no body"), "{e}");
}
