//! `alloca`, `stacksave`, `stackrestore` (PTX 7.3: `tests/ptx/alloca.ptx`) and vector
//! `.reg` parameters (`tests/ptx/vector_reg_params.ptx`), on both backends; both files pass
//! ptxas 12.9. Expected values are worked by hand from the ISA's text (shown beside each
//! assertion).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

fn stack(backend: Backend) {
    let dev = device();
    let m = dev
        .load_ptx_with(
            &load_root("tests/ptx/alloca.ptx"),
            "alloca.ptx",
            backend == Backend::Jit,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let n = 64usize;
    let out = zeroed(&dev, n * 8);
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [n as u32, 1, 1], backend),
        &[arg(&out)],
        "k",
    );
    let got: Vec<u32> = dev.read(&out).expect("read");
    for t in 0..n as u32 {
        let words = t % 4 + 1;
        // The sum over j < words of t*100 + j; the callee's pointer is 32-byte aligned
        // (no 0x1000000 mark); flags 1|2|4: callee freed, restore worked, size fits.
        let want = words * t * 100 + words * (words - 1) / 2;
        let i = t as usize;
        assert_eq!(
            &got[2 * i..2 * i + 2],
            &[want, 7],
            "thread {t} on {backend:?}"
        );
    }

    // 32-bit forms: 7 + 9 = 16; the allocation is 24 bytes below the saved pointer, at
    // most 7 more for the default 8-byte alignment; restore gives the saved pointer back.
    let out = zeroed(&dev, 16);
    launch(
        &dev,
        &m,
        "narrow",
        &cfg([1, 1, 1], [1, 1, 1], backend),
        &[arg(&out)],
        "narrow",
    );
    let got: Vec<u32> = dev.read(&out).expect("read");
    assert_eq!(got[0], 16, "{backend:?}");
    assert!(
        (24..32).contains(&got[1]),
        "{backend:?}: alloca 24 moved sp by {}",
        got[1]
    );
    assert_eq!(got[2], 0, "{backend:?}");
    assert_eq!(got[3] % 8, 0, "{backend:?}: 8-byte aligned");

    // 1 MiB does not fit the 1 KiB stack: the launch stops naming the instruction.
    let out = zeroed(&dev, 8);
    let err = dev
        .launch(
            &m,
            "too_big",
            &cfg([1, 1, 1], [1, 1, 1], backend),
            &[arg(&out)],
        )
        .expect_err("alloca of 1 MiB must fail");
    let msg = err.to_string();
    assert!(
        msg.contains("alloca of 1048576 bytes"),
        "{backend:?}: {msg}"
    );
    assert!(msg.contains("alloca.ptx:"), "{backend:?}: {msg}");
}
both_backends!(stack);

/// Vector `.reg` parameters and return values: `tests/ptx/vector_reg_params.ptx` (passes
/// ptxas 12.9). Its header works the expected values out: `{104, tid + 1}`.
fn vector_reg_params(backend: Backend) {
    let dev = device();
    let src = load_root("tests/ptx/vector_reg_params.ptx");
    let m = dev
        .load_ptx_with(&src, "vector_reg_params.ptx", backend == Backend::Jit)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = zeroed(&dev, 64 * 8);
    launch(
        &dev,
        &m,
        "k",
        &cfg([1, 1, 1], [64, 1, 1], backend),
        &[arg(&out)],
        "k",
    );
    let got: Vec<u32> = dev.read(&out).expect("read");
    for t in 0..64u32 {
        let i = 2 * t as usize;
        assert_eq!(&got[i..i + 2], &[104, t + 1], "thread {t} on {backend:?}");
    }
}
both_backends!(vector_reg_params);

/// `.global`/`.const` variables declared inside a function (`tests/ptx/fn_scope_vars.ptx`,
/// passes ptxas 12.9; its header derives the expected values).
fn fn_scope_vars(backend: Backend) {
    let dev = device();
    let src = load_root("tests/ptx/fn_scope_vars.ptx");
    let m = dev
        .load_ptx_with(&src, "fn_scope_vars.ptx", backend == Backend::Jit)
        .unwrap_or_else(|e| panic!("{e}"));
    let n = 64u32;
    for launch_no in 0..2u32 {
        let out = zeroed(&dev, n as usize * 4);
        launch(
            &dev,
            &m,
            "k",
            &cfg([1, 1, 1], [n, 1, 1], backend),
            &[arg(&out)],
            "k",
        );
        let mut got: Vec<u32> = dev.read(&out).expect("read");
        got.sort_unstable();
        let want: Vec<u32> = (0..n).map(|i| 5 * (launch_no * n + i)).collect();
        assert_eq!(got, want, "launch {launch_no} on {backend:?}");
    }
}
both_backends!(fn_scope_vars);
