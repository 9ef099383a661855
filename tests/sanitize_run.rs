//! The checked access path's run entry (`exec::ctx`'s `run`: a sanitized warp access
//! whose active lanes are consecutive and whose addresses follow each other is checked
//! and copied as one range) on the kernels of tests/sanitize/run_hand.ptx (hand-written,
//! ptxas-validated): an element out of bounds, unwritten or outside the shared window in
//! the last lane, and partial warps, must give the per-lane path's report (kind, thread,
//! address); clean runs of u8, u32 and u64 elements must copy what a Rust reference
//! computes. Every case runs on the interpreter and the JIT, and the reports must agree.

use ptxjit::{
    Backend, Buffer, Device, DeviceOptions, Error, Finding, FindingKind, KernelArg, LaunchConfig,
    Module, SanitizeOptions,
};

const PTX: &str = include_str!("sanitize/run_hand.ptx");
const MODES: &str = "memcheck,initcheck,racecheck";
const BACKENDS: [Backend; 2] = [Backend::Interp, Backend::Jit];

fn setup() -> (Device, Module) {
    let dev = Device::with_options(DeviceOptions::default()).unwrap();
    let m = dev.load_ptx(PTX, "run_hand.ptx").unwrap();
    (dev, m)
}

fn cfg(threads: u32, backend: Backend) -> LaunchConfig {
    cfg_modes(threads, backend, MODES)
}

fn cfg_modes(threads: u32, backend: Backend, modes: &str) -> LaunchConfig {
    LaunchConfig::new([1, 1, 1], [threads, 1, 1])
        .backend(backend)
        .sanitize(SanitizeOptions::parse(modes).unwrap())
}

/// Launches `kernel` on `threads` threads of one block and returns its finding.
fn finding(
    dev: &Device,
    m: &Module,
    kernel: &str,
    threads: u32,
    bufs: &[&Buffer],
    backend: Backend,
) -> Finding {
    let args: Vec<_> = bufs.iter().map(|b| (*b).into()).collect();
    match dev.launch(m, kernel, &cfg(threads, backend), &args) {
        Err(Error::Sanitizer(f)) => *f,
        other => panic!("{kernel} on {backend:?}: expected a finding, got {other:?}"),
    }
}

/// Checks `f`'s kind, opcode, thread and address.
fn check(f: &Finding, kind: FindingKind, inst: &str, thread: u32, addr: u64) {
    let who = format!("{f}");
    assert_eq!(f.kind, kind, "{who}");
    assert!(
        f.at.as_ref().expect("located").inst.starts_with(inst),
        "{who}"
    );
    assert_eq!((f.block, f.thread), ([0; 3], [thread, 0, 0]), "{who}");
    assert_eq!(f.addr, addr, "{who}");
}

fn words(n: u32) -> Vec<u32> {
    (0..n).map(|i| 1000 + 7 * i).collect()
}

/// 32 threads load the u32 at src + 4t of a 124-byte allocation: lane 31's bytes
/// 124..128 are past its end; nothing is stored.
#[test]
fn last_lane_load_out_of_bounds() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let src = dev.alloc_from(&words(31)).unwrap();
        let dst = dev.alloc_zeroed(128).unwrap();
        let f = finding(&dev, &m, "copy_u32", 32, &[&src, &dst], b);
        check(
            &f,
            FindingKind::OutOfBounds,
            "ld.global.u32",
            31,
            src.ptr() + 124,
        );
        assert_eq!(dev.read::<u32>(&dst).unwrap(), vec![0; 32], "{b:?}");
    }
}

/// The store of lane 31 (bytes 124..128 of a 124-byte allocation) is out of bounds:
/// the finding names it, and the faulting store writes nothing (no lane's element).
#[test]
fn last_lane_store_out_of_bounds_writes_nothing() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let src = dev.alloc_from(&words(32)).unwrap();
        let dst = dev.alloc_zeroed(124).unwrap();
        let f = finding(&dev, &m, "copy_u32", 32, &[&src, &dst], b);
        check(
            &f,
            FindingKind::OutOfBounds,
            "st.global.u32",
            31,
            dst.ptr() + 124,
        );
        assert!(f.write, "{f}");
        assert_eq!(dev.read::<u32>(&dst).unwrap(), vec![0; 31], "{b:?}");
    }
}

/// An uninitialised allocation whose first 125 bytes the host wrote: lane 31's element
/// (bytes 124..128) has byte 125 unwritten (offset 1); lanes 0..30 are clean.
#[test]
fn partly_initialised_range() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let src = dev.alloc_uninit(128).unwrap();
        let host: Vec<u8> = (0..125u32).map(|i| i as u8).collect();
        dev.write(&src, &host).unwrap();
        let dst = dev.alloc_zeroed(128).unwrap();
        let f = finding(&dev, &m, "copy_u32", 32, &[&src, &dst], b);
        check(
            &f,
            FindingKind::Uninit,
            "ld.global.u32",
            31,
            src.ptr() + 124,
        );
        assert!(
            f.detail.contains("(first unwritten byte at offset 1)"),
            "{f}"
        );
    }
}

/// A partial warp (a block of 20 threads): lanes 0..19 run; a 76-byte source puts lane
/// 19's element (bytes 76..80) past the end. With 80 bytes the run is clean and the
/// copy stops at lane 19 (the bytes after dst's 20 words stay as they were).
#[test]
fn partial_warp() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let src = dev.alloc_from(&words(19)).unwrap();
        let dst = dev.alloc_zeroed(128).unwrap();
        let f = finding(&dev, &m, "copy_u32", 20, &[&src, &dst], b);
        check(
            &f,
            FindingKind::OutOfBounds,
            "ld.global.u32",
            19,
            src.ptr() + 76,
        );

        let src = dev.alloc_from(&words(20)).unwrap();
        let dst = dev.alloc_from(&[0xdead_beef_u32; 32]).unwrap();
        dev.launch(&m, "copy_u32", &cfg(20, b), &[(&src).into(), (&dst).into()])
            .unwrap();
        let mut want: Vec<u32> = words(20).iter().map(|x| x + 1).collect();
        want.resize(32, 0xdead_beef);
        assert_eq!(dev.read::<u32>(&dst).unwrap(), want, "{b:?}");
        assert!(dev.take_sanitizer_report().findings.is_empty(), "{b:?}");
    }
}

/// Clean runs of 1-, 4- and 8-byte elements (u8 loads fill 32-bit containers) on full
/// and partial warps: dst[t] = src[t] + 1 for the running threads only.
#[test]
fn clean_runs_copy_every_width() {
    let (dev, m) = setup();
    for b in BACKENDS {
        for threads in [32, 13] {
            let n = threads as usize;
            let s8: Vec<u8> = (0..32).map(|i| (i * 37 + 250) as u8).collect();
            let s64: Vec<u64> = (0..32).map(|i| (i as u64) << 40 | 0xffff_fff0).collect();
            let (a8, d8) = (dev.alloc_from(&s8).unwrap(), dev.alloc_zeroed(32).unwrap());
            let (a32, d32) = (
                dev.alloc_from(&words(32)).unwrap(),
                dev.alloc_zeroed(128).unwrap(),
            );
            let (a64, d64) = (
                dev.alloc_from(&s64).unwrap(),
                dev.alloc_zeroed(256).unwrap(),
            );
            for (k, s, d) in [
                ("copy_u8", &a8, &d8),
                ("copy_u32", &a32, &d32),
                ("copy_u64", &a64, &d64),
            ] {
                dev.launch(&m, k, &cfg(threads, b), &[s.into(), d.into()])
                    .unwrap_or_else(|e| panic!("{k} on {b:?}: {e}"));
            }
            let mut w8: Vec<u8> = s8[..n].iter().map(|x| x.wrapping_add(1)).collect();
            w8.resize(32, 0);
            let mut w32: Vec<u32> = words(32)[..n].iter().map(|x| x + 1).collect();
            w32.resize(32, 0);
            let mut w64: Vec<u64> = s64[..n].iter().map(|x| x + 1).collect();
            w64.resize(32, 0);
            assert_eq!(dev.read::<u8>(&d8).unwrap(), w8, "{b:?} {threads}");
            assert_eq!(dev.read::<u32>(&d32).unwrap(), w32, "{b:?} {threads}");
            assert_eq!(dev.read::<u64>(&d64).unwrap(), w64, "{b:?} {threads}");
            assert!(dev.take_sanitizer_report().findings.is_empty(), "{b:?}");
        }
    }
}

/// Shared memory: a 124-byte shared buffer; lane 31's store (offset 124) is past the
/// window. With 31 threads the run fits and dst[t] = 3t.
#[test]
fn shared_window_last_lane() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let dst = dev.alloc_zeroed(128).unwrap();
        let f = finding(&dev, &m, "shared_u32", 32, &[&dst], b);
        check(&f, FindingKind::SharedOverflow, "st.shared.u32", 31, 124);
        dev.launch(&m, "shared_u32", &cfg(31, b), &[(&dst).into()])
            .unwrap();
        let mut want: Vec<u32> = (0..31).map(|t| 3 * t).collect();
        want.push(0);
        assert_eq!(dev.read::<u32>(&dst).unwrap(), want, "{b:?}");
    }
}

/// A load every lane makes from one address (the uniform entry under memcheck or
/// synccheck alone, the per-lane path with initcheck): element 31 of a 124-byte
/// allocation is out of bounds at lane 0 (the first active lane); element 5 is copied
/// to every lane.
#[test]
fn broadcast_load() {
    let (dev, m) = setup();
    for b in BACKENDS {
        for modes in ["memcheck", "memcheck,synccheck", MODES] {
            let src = dev.alloc_from(&words(31)).unwrap();
            let dst = dev.alloc_zeroed(128).unwrap();
            let args = |i: u32| vec![(&src).into(), (&dst).into(), KernelArg::U32(i)];
            let f = match dev.launch(&m, "bcast_u32", &cfg_modes(32, b, modes), &args(31)) {
                Err(Error::Sanitizer(f)) => *f,
                other => panic!("{modes} on {b:?}: expected a finding, got {other:?}"),
            };
            check(
                &f,
                FindingKind::OutOfBounds,
                "ld.global.u32",
                0,
                src.ptr() + 124,
            );
            dev.launch(&m, "bcast_u32", &cfg_modes(32, b, modes), &args(5))
                .unwrap();
            assert_eq!(dev.read::<u32>(&dst).unwrap(), vec![1035; 32], "{b:?}");
        }
    }
}

/// Both backends give the same finding for each bad case.
#[test]
fn backends_agree() {
    let (dev, m) = setup();
    let mut got = Vec::new();
    for b in BACKENDS {
        let src = dev.alloc_from(&words(31)).unwrap();
        let dst = dev.alloc_zeroed(128).unwrap();
        let mut f = finding(&dev, &m, "copy_u32", 32, &[&src, &dst], b);
        f.addr -= src.ptr();
        f.detail = f.detail.replace(&format!("{:#x}", src.ptr()), "SRC");
        got.push(f);
    }
    assert_eq!(got[0], got[1]);
}
