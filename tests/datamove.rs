//! Data movement on both backends (`tests/ptx/datamove.ptx`, ptxas-validated for sm_80,
//! and `tests/ptx/datamove_v8.ptx` for sm_100): `isspacep` on pointers into every
//! state-space window and on non-pointers, `mov`/`cvta`/`cvta.to` in every space,
//! `prefetch` on bad addresses, the `ld`/`st` qualifiers nvcc and clang emit, memory
//! ordering between two CTAs on two worker threads, 256-bit vector accesses. Expected
//! values come from the launch arguments, the module's variable addresses
//! (`Module::global`) and the initializers written in the PTX.

#[macro_use]
mod common;

use ptxjit::check::parse_and_check;
use ptxjit::{Backend, Device, DeviceOptions, Error, FaultKind, KernelArg, LaunchConfig};

const SRC: &str = include_str!("ptx/datamove.ptx");
const SRC_V8: &str = include_str!("ptx/datamove_v8.ptx");

fn device(threads: usize) -> Device {
    Device::with_options(DeviceOptions {
        threads,
        ..DeviceOptions::default()
    })
    .unwrap()
}

fn load(dev: &Device, src: &str, b: Backend) -> ptxjit::Module {
    dev.load_ptx_with(src, "datamove.ptx", b == Backend::Jit)
        .unwrap()
}

/// The `.param .align 8 .b8 pa[16]` argument: bytes 0xa0, 0xa1, ...
fn pa() -> KernelArg {
    KernelArg::Bytes((0..16).map(|i| 0xa0 + i).collect())
}

const GLOBAL: u32 = 1;
const SHARED: u32 = 2;
const LOCAL: u32 = 4;
const CONST: u32 = 8;
const PARAM: u32 = 16;

fn windows(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC, b);
    let n = 64usize;
    let len = 256u64;
    let buf = dev.alloc_zeroed(len as usize).unwrap();
    let out = dev.alloc_zeroed(n * 48).unwrap();
    let cfg = LaunchConfig::new(1, n as u32).backend(b);
    dev.launch(
        &m,
        "windows",
        &cfg,
        &[(&buf).into(), len.into(), (&out).into(), pa()],
    )
    .unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    let want = [
        (GLOBAL, "an allocation"),
        (GLOBAL, "a .global variable"),
        (CONST, "a .const variable"),
        (SHARED, "the CTA's shared block"),
        (LOCAL, "the thread's local frame"),
        (
            GLOBAL | PARAM,
            "the kernel parameters (inside the global window)",
        ),
        (0, "address 0"),
        (0, "address 0x1234"),
        (GLOBAL, "the last byte of an allocation"),
        (0, "one past an allocation"),
        (0, "0xffff_ffff_ffff_fff0"),
    ];
    for t in 0..n {
        for (i, (bits, what)) in want.iter().enumerate() {
            assert_eq!(r[t * 12 + i], *bits, "{b:?} thread {t}: {what}");
        }
        assert_eq!(r[t * 12 + 11], (t % 2 == 0) as u32, "{b:?} guarded, {t}");
    }
}

fn roundtrip(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC, b);
    let n = 64usize;
    let out = dev.alloc_zeroed(n * 128).unwrap();
    let cfg = LaunchConfig::new(1, n as u32).backend(b);
    dev.launch(&m, "roundtrip", &cfg, &[(&out).into(), pa()])
        .unwrap();
    let r: Vec<u64> = dev.read(&out).unwrap();
    let gv = m.global("gv").unwrap().ptr();
    let cv = m.global("cv").unwrap().ptr();
    let shared_base = r[7];
    let mut frames = std::collections::HashSet::new();
    for t in 0..n {
        let g = |k: usize| r[t * 16 + k];
        let ctx = format!("{b:?} thread {t}");
        // State-space addresses: .global/.const/.param ones are generic addresses;
        // .shared and .local ones are offsets in their windows (sm and lm come first).
        assert_eq!(g(0), gv + 8, "mov gv+8 {ctx}");
        assert_eq!(g(1), cv + 4, "mov cv+4 {ctx}");
        assert_eq!(g(2), 4 * t as u64, "mov sm+4t {ctx}");
        assert_eq!(g(3), 4, "mov lm+4 {ctx}");
        assert_eq!(
            (g(5), g(6), g(9)),
            (g(0), g(1), g(4)),
            "cvta identity {ctx}"
        );
        assert_eq!(g(7), shared_base + 4 * t as u64, "cvta.shared {ctx}");
        assert!(frames.insert(g(8)), "local frames overlap {ctx}");
        assert_eq!(g(10), 0x1_1f1f, "cvta var / cvta.to round trips {ctx}");
        // Loads through the generic addresses (initializers of gv and cv, the values
        // the kernel stored, the pa argument bytes).
        assert_eq!(g(11), 0x0c0b_0a09, "ld gv+8 {ctx}");
        assert_eq!(g(12), 0x1c1b_1a19, "ld cv+4 {ctx}");
        assert_eq!(g(13), 7 * t as u64 + 1, "ld shared {ctx}");
        assert_eq!(g(14), 100 + t as u64, "ld local {ctx}");
        assert_eq!(g(15), 0xa7a6_a5a4, "ld param {ctx}");
    }
}

fn prefetches(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC, b);
    for bad in [0x10u64, 0xdead_0000_0000, u64::MAX - 3] {
        let out = dev.alloc_zeroed(64 * 4).unwrap();
        let cfg = LaunchConfig::new(1, 64).backend(b);
        dev.launch(&m, "prefetches", &cfg, &[(&out).into(), bad.into()])
            .unwrap_or_else(|e| panic!("{b:?} prefetch of {bad:#x}: {e}"));
        let r: Vec<u32> = dev.read(&out).unwrap();
        assert_eq!(r, vec![1; 64], "{b:?} {bad:#x}");
    }
}

fn quals(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC, b);
    let n = 64usize;
    let input: Vec<u32> = (0..n as u32).map(|t| 3 * t + 1000).collect();
    let bin = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_zeroed(17 * n * 4).unwrap();
    let cfg = LaunchConfig::new(1, n as u32).backend(b);
    dev.launch(
        &m,
        "quals",
        &cfg,
        &[(&bin).into(), (&out).into(), (n as u32).into()],
    )
    .unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    for t in 0..n {
        for k in 0..17 {
            let want = if k == 15 {
                t as u32 + 15
            } else {
                input[t] + k as u32
            };
            assert_eq!(r[k * n + t], want, "{b:?} form {k} thread {t}");
        }
    }
}

fn reload(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC, b);
    let out = dev.alloc_zeroed(16).unwrap();
    let cfg = LaunchConfig::new(1, 32).backend(b);
    dev.launch(&m, "reload", &cfg, &[(&out).into()]).unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    assert_eq!(&r[..3], &[0, 5, 6], "{b:?}");
    let c: Vec<u32> = dev.read(&m.global("counter").unwrap()).unwrap();
    assert_eq!(c, vec![6], "{b:?}");
}

fn handshake(b: Backend) {
    let dev = device(2);
    let m = load(&dev, SRC, b);
    let out = dev.alloc_zeroed(32).unwrap();
    let cfg = LaunchConfig::new(2, 32).backend(b);
    dev.launch(&m, "handshake", &cfg, &[(&out).into()]).unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    assert_eq!(
        (r[0], r[1]),
        (1, 42),
        "{b:?}: CTA 0 saw flag_a and the data"
    );
    assert_eq!(r[4], 1, "{b:?}: CTA 1 saw flag_b");
}

fn v8(b: Backend) {
    let dev = device(1);
    let m = load(&dev, SRC_V8, b);
    let n = 64usize;
    let mut rng = common::Rng::new(0x5eed);
    let input: Vec<u32> = (0..n * 8).map(|_| rng.u64() as u32).collect();
    let bin = dev.alloc_from(&input).unwrap();
    let out = dev.alloc_zeroed(n * 128).unwrap();
    let cfg = LaunchConfig::new(1, n as u32).backend(b);
    dev.launch(&m, "v8", &cfg, &[(&bin).into(), (&out).into()])
        .unwrap();
    let r: Vec<u32> = dev.read(&out).unwrap();
    for t in 0..n {
        let w = &input[t * 8..t * 8 + 8];
        let o = &r[t * 32..t * 32 + 32];
        let rev: Vec<u32> = w.iter().rev().copied().collect();
        assert_eq!(&o[0..8], &rev[..], "{b:?} v8.f32 {t}");
        assert_eq!(&o[8..16], &rev[..], "{b:?} v8.b32 {t}");
        let mut d = Vec::new();
        for k in (0..4).rev() {
            d.extend_from_slice(&w[2 * k..2 * k + 2]);
        }
        assert_eq!(&o[16..24], &d[..], "{b:?} v4.b64 {t}");
        let h: Vec<u32> = w[..4].iter().flat_map(|x| [x & 0xffff, x >> 16]).collect();
        let pairs: Vec<u32> = (0..4).map(|j| h[2 * j] << 16 | h[2 * j + 1]).collect();
        assert_eq!(&o[24..28], &pairs[..], "{b:?} v8.u16 {t}");
        assert_eq!(&o[28..32], &[w[6], w[7], w[0], w[1]], "{b:?} v4.f64 {t}");
    }
    let e = dev
        .launch(&m, "v8_misaligned", &cfg, &[(&bin).into()])
        .unwrap_err();
    match e {
        Error::Fault(f) => {
            assert_eq!(
                (f.kind, f.size, f.write),
                (FaultKind::Misaligned, 32, false)
            );
            assert_eq!(f.addr, bin.ptr() + 16, "{b:?}");
        }
        e => panic!("{b:?}: {e}"),
    }
}

both_backends!(windows, roundtrip, prefetches, quals, reload, handshake, v8);

/// A kernel with `body` (registers %r, %rd, %f, %p and variables sm, gv declared).
fn kernel(body: &str) -> String {
    format!(
        ".version 8.8\n.target sm_100\n.address_size 64\n.global .b32 gv;\n\
         .visible .entry k()\n{{\n\t.shared .align 32 .b8 sm[64];\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<8>;\n\
         \t.reg .f64 %fd<8>;\n\t.reg .pred %p<2>;\n{body}\n\tret;\n}}\n"
    )
}

fn err(body: &str) -> String {
    match parse_and_check(&kernel(body), "e.ptx") {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn invalid_forms_are_load_time_errors() {
    let r8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
    // Each was checked with ptxas 12.9, which rejects it too.
    let cases = [
        (
            format!("\tld.shared.v8.b32 {r8}, [sm];"),
            "e.ptx:13:2: error: a 256-bit vector access needs the .global state space or generic addressing",
        ),
        (
            "\tld.global.v8.f64 {%fd0, %fd1, %fd2, %fd3, %fd4, %fd5, %fd6, %fd7}, [%rd1];".into(),
            "e.ptx:13:2: error: vector of 8 x 64 bits is too large",
        ),
        (
            format!("\tldu.global.v8.b32 {r8}, [%rd1];"),
            "e.ptx:13:2: error: vector of 8 x 32 bits is too large",
        ),
        (
            "\tld.release.gpu.global.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: '.release' is not a qualifier of 'ld'",
        ),
        (
            "\tst.acquire.gpu.global.u32 [%rd1], %r1;".into(),
            "e.ptx:13:2: error: '.acquire' is not a qualifier of 'st'",
        ),
        (
            "\tld.acquire.global.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: '.acquire' needs a scope",
        ),
        (
            "\tld.gpu.global.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: scope '.gpu' needs a memory order",
        ),
        (
            "\tld.volatile.local.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: '.volatile' cannot be used with the .local state space",
        ),
        (
            "\tld.volatile.global.ca.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: '.volatile' cannot be combined with a cache operator or '.nc'",
        ),
        (
            "\tld.volatile.relaxed.gpu.global.u32 %r1, [%rd1];".into(),
            "e.ptx:13:13: error: '.relaxed' cannot be combined with '.volatile'",
        ),
        (
            "\tld.shared.nc.u32 %r1, [sm];".into(),
            "e.ptx:13:2: error: '.nc' needs 'ld.global'",
        ),
        (
            "\tld.mmio.relaxed.gpu.global.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: '.mmio' needs '.relaxed.sys'",
        ),
        (
            "\tld.global.L2::evict_last.v4.b32 {%r0, %r1, %r2, %r3}, [%rd1];".into(),
            "e.ptx:13:2: error: '.L2::evict_last' needs a 256-bit access (.v8.b32 or .v4.b64)",
        ),
        (
            "\tld.shared.L1::evict_last.u32 %r1, [sm];".into(),
            "e.ptx:13:2: error: an eviction priority needs global memory",
        ),
        (
            "\tld.global.cg.L1::evict_last.u32 %r1, [%rd1];".into(),
            "e.ptx:13:2: error: an eviction priority cannot be combined with a cache operator",
        ),
        (
            "\tprefetch.global [%rd1];".into(),
            "e.ptx:13:2: error: 'prefetch' needs a cache level (.L1 or .L2)",
        ),
        (
            "\tprefetch.local.L2::evict_last [%rd1];".into(),
            "e.ptx:13:2: error: an eviction priority needs .global or generic addressing",
        ),
        (
            "\tprefetchu.L2 [%rd1];".into(),
            "e.ptx:13:2: error: 'prefetchu' needs '.L1' and no state space",
        ),
        (
            "\tisspacep %p1, %rd1;".into(),
            "e.ptx:13:2: error: 'isspacep' needs a state space",
        ),
        (
            "\tisspacep.global %p1, %f1;".into(),
            "e.ptx:13:23: error: the address of 'isspacep.global' must be a .u32 or .u64 register, not .f32",
        ),
        (
            "\tisspacep.global %p1, gv;".into(),
            "e.ptx:13:23: error: 'isspacep.global' takes a register or an integer address",
        ),
    ];
    for (body, want) in cases {
        let e = err(&body);
        assert!(e.starts_with(want), "{body}:\n got {e}\nwant {want}");
    }
    for ok in [
        format!("\tld.global.v8.b32 {r8}, [%rd1];"),
        format!("\tst.v8.b32 [%rd1], {r8};"),
        "\tld.global.v4.f64 {%fd0, %fd1, %fd2, %fd3}, [%rd1];".into(),
        format!("\tld.shared.v8.u8 {r8}, [sm];"),
        "\tld.global.nc.L1::no_allocate.L2::256B.f32 %f1, [%rd1];".into(),
        "\tld.relaxed.cluster.shared::cta.u32 %r1, [sm];".into(),
        format!("\tld.L2::evict_first.v8.b32 {r8}, [%rd1];"),
        "\tst.release.sys.global.L1::evict_last.u32 [%rd1], %r1;".into(),
        "\tisspacep.shared::cluster %p1, %rd1+8;".into(),
        "\tprefetch.const.tensormap [%rd1];".into(),
    ] {
        parse_and_check(&kernel(&ok), "ok.ptx").unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}
