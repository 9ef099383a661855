//! More sanitizer checks, each on both backends with the same report:
//!
//! - memcheck and initcheck of the device heap (`malloc`/`free` in kernels) on the buggy
//!   kernels of tests/sanitize/heap.cu (compiled by NVRTC), naming the kernel, the
//!   instruction, block, thread, address and the block. The kernels store their blocks'
//!   pointers to `keep` before the bug, so the expected addresses are read back from the
//!   device; the expected offsets are derived in the comments from the kernel source;
//! - NVVM's `used_bytes_mask` pragma (tests/sanitize/used_bytes_hand.ptx, hand-written,
//!   ptxas-validated): over-wide loads are checked on their used bytes only;
//! - racecheck across CTAs on global memory (tests/sanitize/cta_race.cu, NVRTC): two
//!   buggy kernels caught, three correct ones clean.

use ptxjit::{
    Backend, Device, DeviceOptions, Error, Finding, FindingKind, KernelArg, LaunchConfig, Module,
    SanitizeOptions,
};

const HEAP: &str = include_str!("sanitize/heap.nvrtc.ptx");

fn device(modes: &str) -> Device {
    Device::with_options(DeviceOptions {
        sanitize: Some(SanitizeOptions::parse(modes).unwrap()),
        ..Default::default()
    })
    .unwrap()
}

/// Launches `kernel` (one block of 32 threads) with `keep` (room for two pointers),
/// then (`out`) a 64-byte output buffer, then `extra`; returns the launch result and
/// the kept pointers.
fn launch(
    dev: &Device,
    m: &Module,
    kernel: &str,
    out: bool,
    extra: &[KernelArg],
    backend: Backend,
) -> (Result<(), Error>, [u64; 2]) {
    let keep = dev.alloc_zeroed(16).unwrap();
    let o = dev.alloc_zeroed(64).unwrap();
    let mut args = vec![KernelArg::from(&keep)];
    if out {
        args.push(KernelArg::from(&o));
    }
    args.extend_from_slice(extra);
    let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1]).backend(backend);
    let r = dev.launch(m, kernel, &cfg, &args);
    let k: Vec<u64> = dev.read(&keep).unwrap();
    dev.free(keep).unwrap();
    dev.free(o).unwrap();
    (r, [k[0], k[1]])
}

/// The finding that stopped a launch.
fn finding(r: Result<(), Error>, what: &str) -> Finding {
    match r {
        Err(Error::Sanitizer(f)) => *f,
        other => panic!("{what}: expected a sanitizer finding, got {other:?}"),
    }
}

/// Checks a finding's kind, kernel, instruction, block, thread and address; returns it
/// with the block address `p` in its address and detail replaced by offsets, to compare
/// the backends.
fn check(f: Finding, kernel: &str, want: (FindingKind, &str, u32), addr: u64, p: u64) -> Finding {
    let (kind, inst, thread) = want;
    let who = format!("{kernel}: {f}");
    assert_eq!(f.kind, kind, "{who}");
    assert_eq!(f.kernel, kernel, "{who}");
    let at = f.at.as_ref().expect("located");
    assert!(at.inst.starts_with(inst), "{who}");
    assert!(at.line > 0 && at.col > 0, "{who}");
    assert_eq!((f.block, f.thread), ([0; 3], [thread, 0, 0]), "{who}");
    assert_eq!(f.addr, addr, "{who}");
    assert!(p != 0, "{who}: malloc returned NULL");
    let mut f = f;
    f.addr -= p;
    f.detail = f.detail.replace(&format!("{p:#x}"), "P");
    f
}

/// Runs a buggy kernel on both backends (a fresh device each) and compares the reports.
fn both(
    kernel: &str,
    modes: &str,
    out: bool,
    extra: &[KernelArg],
    expect: impl Fn(Finding, [u64; 2]) -> Finding,
) {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device(modes);
        let m = dev.load_ptx(HEAP, "heap.nvrtc.ptx").unwrap();
        let (r, keep) = launch(&dev, &m, kernel, out, extra, backend);
        let f = expect(finding(r, &format!("{kernel} on {backend:?}")), keep);
        println!("{kernel} on {backend:?}: {f}");
        got.push(f);
    }
    assert_eq!(got[0], got[1], "{kernel}: the backends disagree");
}

use FindingKind::*;

#[test]
fn overflow_past_the_requested_size() {
    // n = 5 ints = 20 bytes; i = 5 stores p[5] at p + 20: bytes 20..24 of the block.
    both(
        "heap_overflow",
        "memcheck",
        false,
        &[KernelArg::I32(5)],
        |f, k| {
            let f = check(
                f,
                "heap_overflow",
                (OutOfBounds, "st.u32", 0),
                k[0] + 20,
                k[0],
            );
            assert_eq!(f.detail, "bytes 20..24 of the 20-byte malloc'd block at P");
            f
        },
    );
}

#[test]
fn overflow_into_the_next_block() {
    // p and q are 16-byte blocks; p[4] is p + 16, the first byte after p: the guard
    // granule memcheck leaves between blocks (q starts at p + 32).
    both(
        "heap_overflow_next",
        "memcheck",
        false,
        &[KernelArg::I32(4)],
        |f, k| {
            assert_eq!(k[1], k[0] + 32, "a guard granule between the blocks");
            let f = check(
                f,
                "heap_overflow_next",
                (OutOfBounds, "st.u32", 0),
                k[0] + 16,
                k[0],
            );
            assert_eq!(f.detail, "bytes 16..20 of the 16-byte malloc'd block at P");
            f
        },
    );
}

#[test]
fn read_of_a_freed_block() {
    // p[1] = 7, free(p), then a volatile read of p[1] at p + 4.
    both(
        "heap_use_after_free",
        "memcheck",
        true,
        &[KernelArg::I32(1)],
        |f, k| {
            let want = (UseAfterFree, "ld.volatile.u32", 0);
            let f = check(f, "heap_use_after_free", want, k[0] + 4, k[0]);
            assert_eq!(f.detail, "in the freed 16-byte malloc'd block at P");
            f
        },
    );
}

#[test]
fn double_free() {
    // The second `free` (of the pointer read back from keep[0]) names the freed block.
    both("heap_double_free", "memcheck", false, &[], |f, k| {
        let f = check(f, "heap_double_free", (DoubleFree, "call", 0), k[0], k[0]);
        assert_eq!(
            f.detail,
            "free(P): the 16-byte malloc'd block was already freed"
        );
        f
    });
}

#[test]
fn free_of_an_interior_pointer() {
    // free(p + 2): 8 bytes into the block.
    both(
        "heap_free_interior",
        "memcheck",
        false,
        &[KernelArg::I32(2)],
        |f, k| {
            let want = format!(
                "free({:#x}): inside a malloc'd block, not its start",
                k[0] + 8
            );
            assert_eq!(f.detail, want);
            let mut f = check(
                f,
                "heap_free_interior",
                (InvalidFree, "call", 0),
                k[0] + 8,
                k[0],
            );
            f.detail.clear();
            f
        },
    );
}

#[test]
fn read_of_unwritten_malloc_memory() {
    // n = 4: p[0] is written, the unrolled sum's second volatile load reads p[1] at p + 4.
    both(
        "heap_uninit",
        "initcheck",
        true,
        &[KernelArg::I32(4)],
        |f, k| {
            let f = check(
                f,
                "heap_uninit",
                (Uninit, "ld.volatile.u32", 0),
                k[0] + 4,
                k[0],
            );
            assert!(f.detail.contains("first unwritten byte at offset 0"), "{f}");
            f
        },
    );
}

#[test]
fn a_block_never_freed_is_a_leak_located_at_its_malloc() {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let json = std::env::temp_dir().join(format!(
            "ptxjit-heap-leak-{}-{backend:?}.json",
            std::process::id()
        ));
        let dev = Device::with_options(DeviceOptions {
            sanitize: Some(SanitizeOptions::parse("memcheck").unwrap()),
            sanitize_json: Some(json.clone()),
            ..Default::default()
        })
        .unwrap();
        let m = dev.load_ptx(HEAP, "heap.nvrtc.ptx").unwrap();
        // Thread 1 mallocs 24 bytes and keeps the pointer; the launch itself succeeds.
        let (r, k) = launch(&dev, &m, "heap_leak", false, &[KernelArg::I32(24)], backend);
        r.unwrap();
        let leaks = dev.leaks();
        assert_eq!(leaks.findings.len(), 1, "{leaks}");
        let f = check(
            leaks.findings[0].clone(),
            "heap_leak",
            (Leak, "call", 1),
            k[0],
            k[0],
        );
        assert_eq!(
            (f.size, f.detail.as_str()),
            (
                24,
                "24 bytes malloc'd on the device heap at P were never freed"
            )
        );
        println!("{backend:?}: {}", leaks.findings[0]);
        got.push(f);
        // At device destruction the leak goes to the JSON report.
        drop(m);
        drop(dev);
        let text = std::fs::read_to_string(&json).unwrap();
        let _ = std::fs::remove_file(&json);
        assert!(
            text.contains("\"kind\":\"leak\"") && text.contains("\"kernel\":\"heap_leak\""),
            "{text}"
        );
    }
    assert_eq!(got[0], got[1], "the backends disagree");
}

#[test]
fn freed_blocks_are_no_leak_and_correct_heap_use_is_clean() {
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device("memcheck,initcheck");
        let m = dev.load_ptx(HEAP, "heap.nvrtc.ptx").unwrap();
        let keep = dev.alloc_zeroed(16).unwrap();
        let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1]).backend(backend);
        let args = [KernelArg::from(&keep), KernelArg::I32(24)];
        dev.launch(&m, "heap_leak", &cfg, &args).unwrap();
        // The heap leak (located at its malloc) beside the live `keep` allocation.
        let heap_leaks = |d: &Device| d.leaks().findings.iter().filter(|f| f.at.is_some()).count();
        assert_eq!(
            (heap_leaks(&dev), dev.leaks().findings.len()),
            (1, 2),
            "{backend:?}"
        );
        dev.launch(&m, "heap_free_kept", &cfg, &args[..1]).unwrap();
        assert_eq!(heap_leaks(&dev), 0, "{backend:?}: freed by a later launch");
        dev.free(keep).unwrap();
        // Every thread of 2 x 64 mallocs 8 ints, fills p[i] = t + i and sums them:
        // 8t + 28 (0 + 1 + ... + 7 = 28).
        let out = dev.alloc_zeroed(128 * 4).unwrap();
        let cfg = LaunchConfig::new([2, 1, 1], [64, 1, 1]).backend(backend);
        dev.launch(
            &m,
            "heap_clean",
            &cfg,
            &[KernelArg::from(&out), KernelArg::I32(8)],
        )
        .unwrap();
        let got: Vec<i32> = dev.read(&out).unwrap();
        let want: Vec<i32> = (0..128).map(|t| 8 * t + 28).collect();
        assert_eq!(got, want, "{backend:?}");
        dev.free(out).unwrap();
        assert!(dev.take_sanitizer_report().is_empty(), "{backend:?}");
    }
}

const USED: &str = include_str!("sanitize/used_bytes_hand.ptx");

/// Runs a used_bytes_hand.ptx kernel (one thread) on a 12-byte input [1, 2, 3] under
/// memcheck and initcheck; returns the result and out[0].
fn used_bytes_run(kernel: &str, backend: Backend) -> (Result<(), Error>, i32) {
    let dev = device("memcheck,initcheck");
    let m = dev.load_ptx(USED, "used_bytes_hand.ptx").unwrap();
    let input = dev.alloc_from(&[1i32, 2, 3]).unwrap();
    let out = dev.alloc_zeroed(4).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [1, 1, 1]).backend(backend);
    let args = match kernel {
        "ubm_shared" => vec![KernelArg::from(&out)],
        _ => vec![KernelArg::from(&input), KernelArg::from(&out)],
    };
    let r = dev.launch(&m, kernel, &cfg, &args);
    let got: Vec<i32> = dev.read(&out).unwrap();
    (r, got[0])
}

#[test]
fn used_bytes_mask_limits_the_bounds_check_to_the_used_bytes() {
    for backend in [Backend::Interp, Backend::Jit] {
        // 1 + 2 + 3 (mask 0xfff: bytes 0..12) and 1 + 3 (mask 0xf0f: 0..4 and 8..12).
        for (kernel, want) in [("ubm_used", 6), ("ubm_gap", 4), ("ubm_shared", 3)] {
            let (r, got) = used_bytes_run(kernel, backend);
            assert!(r.is_ok(), "{kernel} on {backend:?}: {r:?}");
            assert_eq!(got, want, "{kernel} on {backend:?}");
        }
        // Byte 12 used (mask 0x1fff) or no mask: a 16-byte read of a 12-byte buffer.
        for kernel in ["ubm_past", "ubm_none"] {
            let (r, _) = used_bytes_run(kernel, backend);
            let f = finding(r, kernel);
            assert_eq!(f.kind, OutOfBounds, "{kernel} on {backend:?}: {f}");
            let at = f.at.as_ref().expect("located");
            assert!(at.inst.starts_with("ld.global.v4.u32"), "{f}");
            assert_eq!((f.size, f.thread), (16, [0; 3]), "{f}");
        }
    }
}

const CTA: &str = include_str!("sanitize/cta_race.nvrtc.ptx");

/// Runs a cta_race.nvrtc.ptx kernel on `grid` blocks of 32 threads under racecheck with
/// buffers of `sizes` bytes; returns the finding with buffer 0's address made relative.
fn cta_race(kernel: &str, grid: u32, sizes: &[usize], backend: Backend) -> Finding {
    let dev = device("racecheck");
    let m = dev.load_ptx(CTA, "cta_race.nvrtc.ptx").unwrap();
    let bufs: Vec<_> = sizes
        .iter()
        .map(|&n| dev.alloc_zeroed(n).unwrap())
        .collect();
    let args: Vec<KernelArg> = bufs.iter().map(KernelArg::from).collect();
    let cfg = LaunchConfig::new([grid, 1, 1], [32, 1, 1]).backend(backend);
    let mut f = finding(dev.launch(&m, kernel, &cfg, &args), kernel);
    f.addr -= bufs[0].ptr();
    f
}

#[test]
fn two_ctas_writing_one_slot_race() {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        // Thread 0 of block 0 stores out[0]; thread 0 of block 1 stores it again.
        let f = cta_race("cta_same_slot", 2, &[4], backend);
        println!("{backend:?}: {f}");
        assert_eq!(f.kind, RaceWaw, "{f}");
        assert_eq!((f.block, f.thread, f.addr), ([1, 0, 0], [0; 3], 0), "{f}");
        assert!(f.at.as_ref().unwrap().inst.starts_with("st.global"), "{f}");
        let o = f.other.as_ref().expect("the other access");
        assert!(o.at.inst.starts_with("st.global") && o.write, "{f}");
        assert_eq!(o.thread, [0; 3], "{f}");
        assert!(
            f.detail.starts_with("the other access is by block (0,0,0)"),
            "{f}"
        );
        got.push(f);
    }
    assert_eq!(got[0], got[1], "the backends disagree");
}

#[test]
fn a_cta_reading_what_the_next_one_writes_races() {
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        // Block 0 reads buf[1]; block 1 then stores buf[1] (buf + 4): write after read.
        let f = cta_race("cta_read_neighbour", 2, &[12, 8], backend);
        println!("{backend:?}: {f}");
        assert_eq!(f.kind, RaceWar, "{f}");
        assert_eq!((f.block, f.thread, f.addr), ([1, 0, 0], [0; 3], 4), "{f}");
        assert!(f.at.as_ref().unwrap().inst.starts_with("st.global"), "{f}");
        let o = f.other.as_ref().expect("the other access");
        assert!(o.at.inst.starts_with("ld.global") && !o.write, "{f}");
        assert!(
            f.detail.starts_with("the other access is by block (0,0,0)"),
            "{f}"
        );
        got.push(f);
    }
    assert_eq!(got[0], got[1], "the backends disagree");
}

#[test]
fn disjoint_writes_atomic_counters_and_last_block_reductions_are_clean() {
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device("memcheck,initcheck,racecheck,synccheck");
        let m = dev.load_ptx(CTA, "cta_race.nvrtc.ptx").unwrap();
        let cfg = |g| LaunchConfig::new([g, 1, 1], [32, 1, 1]).backend(backend);
        // 4 x 32 threads store out[i] = 3i.
        let out = dev.alloc_zeroed(128 * 4).unwrap();
        dev.launch(&m, "cta_disjoint", &cfg(4), &[KernelArg::from(&out)])
            .unwrap();
        let got: Vec<i32> = dev.read(&out).unwrap();
        assert_eq!(got, (0..128).map(|i| 3 * i).collect::<Vec<i32>>());
        // 4 x 32 atomic increments.
        let count = dev.alloc_zeroed(4).unwrap();
        dev.launch(&m, "cta_atomic_count", &cfg(4), &[KernelArg::from(&count)])
            .unwrap();
        assert_eq!(dev.read::<i32>(&count).unwrap(), vec![128]);
        // 8 blocks publish 1..=8; the last one sums them: 36.
        let partial = dev.alloc_zeroed(8 * 4).unwrap();
        let n = dev.alloc_zeroed(4).unwrap();
        let result = dev.alloc_zeroed(4).unwrap();
        let args = [&partial, &n, &result].map(KernelArg::from);
        dev.launch(&m, "cta_last_block", &cfg(8), &args).unwrap();
        assert_eq!(dev.read::<i32>(&result).unwrap(), vec![36], "{backend:?}");
        assert!(dev.take_sanitizer_report().is_empty(), "{backend:?}");
        for b in [out, count, partial, n, result] {
            dev.free(b).unwrap();
        }
    }
}

const CDP: &str = include_str!("kernels/cdp/cdp.nvrtc.ptx");

/// A device-heap block freed by one thread and handed out again to a thread of another
/// warp or CTA, and a device-runtime parameter buffer reused by a later CTA's launch, are
/// new objects: writing them is no race with the earlier owner's accesses (the
/// zero-findings sweep found both as false races).
#[test]
fn reused_heap_blocks_and_parameter_buffers_are_no_race() {
    for backend in [Backend::Interp, Backend::Jit] {
        for modes in ["racecheck", "all"] {
            let dev = device(modes);
            let m = dev.load_ptx(HEAP, "heap.nvrtc.ptx").unwrap();
            // 2 x 64 threads each malloc 8 ints, fill p[i] = t + i, sum them (8t + 28,
            // as in freed_blocks_are_no_leak_and_correct_heap_use_is_clean) and free:
            // warp 1 gets the blocks warp 0 freed.
            let out = dev.alloc_zeroed(128 * 4).unwrap();
            let cfg = LaunchConfig::new([2, 1, 1], [64, 1, 1]).backend(backend);
            let args = [KernelArg::from(&out), KernelArg::I32(8)];
            dev.launch(&m, "heap_clean", &cfg, &args)
                .unwrap_or_else(|e| panic!("{backend:?} {modes}: {e}"));
            let got: Vec<i32> = dev.read(&out).unwrap();
            let want: Vec<i32> = (0..128).map(|t| 8 * t + 28).collect();
            assert_eq!(got, want, "{backend:?} {modes}");
            dev.free(out).unwrap();
            // Each of 2 x 4 parent threads launches a child filling out[s * 50 + i] =
            // s * 1000 + i * i (tests/cdp.rs): block 1 gets block 0's parameter buffers.
            let m = dev
                .load_ptx_with(CDP, "cdp.nvrtc.ptx", backend == Backend::Jit)
                .unwrap();
            let out = dev.alloc_from(&vec![-1i32; 8 * 50]).unwrap();
            let errs = dev.alloc_from(&[-1i32; 8]).unwrap();
            let cfg = LaunchConfig::new([2, 1, 1], [4, 1, 1]).backend(backend);
            let args = [
                KernelArg::from(&out),
                KernelArg::I32(50),
                KernelArg::from(&errs),
            ];
            dev.launch(&m, "parent_slices", &cfg, &args)
                .unwrap_or_else(|e| panic!("{backend:?} {modes}: {e}"));
            let want: Vec<i32> = (0..8)
                .flat_map(|s| (0..50).map(move |i| s * 1000 + i * i))
                .collect();
            assert_eq!(dev.read::<i32>(&out).unwrap(), want, "{backend:?} {modes}");
            assert_eq!(dev.read::<i32>(&errs).unwrap(), vec![0; 8]);
            dev.free(out).unwrap();
            dev.free(errs).unwrap();
            assert!(
                dev.take_sanitizer_report().is_empty(),
                "{backend:?} {modes}"
            );
        }
    }
}
