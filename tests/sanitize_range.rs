//! The sanitizers' range path (a warp's contiguous access checked as one range of bytes,
//! `exec::sanitize::range`) on accesses that only partly overlap an unwritten,
//! out-of-bounds or racy byte range (tests/sanitize/range_hand.ptx, hand-written and
//! ptxas-validated): each must name the same first lane, address and byte as a check
//! lane by lane does. The expected lanes and offsets are derived by hand in the
//! kernels' comments and below; every case runs on the interpreter and the JIT, and the
//! reports must agree. (The range path against the per-lane path on random accesses:
//! the unit test in `exec::sanitize::range`.)

use ptxjit::{
    Backend, Buffer, Device, DeviceOptions, Error, Finding, FindingKind, KernelArg, LaunchConfig,
    Module, SanitizeOptions,
};

const PTX: &str = include_str!("sanitize/range_hand.ptx");

fn device() -> Device {
    Device::with_options(DeviceOptions {
        sanitize: Some(SanitizeOptions::parse("memcheck").unwrap()),
        ..Default::default()
    })
    .unwrap()
}

/// Where the finding's address is: a byte of buffer `buf` or of shared variable `var`.
enum At {
    Buf(u64),
    Shared(&'static str, u64),
}

struct Case {
    kernel: &'static str,
    modes: &'static str,
    /// The buffer passed before `out`, made on the device (`None`: only `out`).
    buf: Option<fn(&Device) -> Buffer>,
    kind: FindingKind,
    inst: &'static str,
    thread: u32,
    at: At,
    /// The other access of a race: its thread and opcode.
    other: Option<(u32, &'static str)>,
    /// A piece of the detail.
    detail: &'static str,
}

/// Runs `case` (one warp) on `backend`; checks the finding against the hand-derived
/// expectation and returns it with the buffer address replaced by its offset.
fn run(dev: &Device, m: &Module, case: &Case, backend: Backend) -> Finding {
    let out = dev.alloc_zeroed(128).unwrap();
    let buf = case.buf.map(|b| b(dev));
    let mut args: Vec<KernelArg> = buf.iter().map(KernelArg::from).collect();
    args.push((&out).into());
    let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1])
        .backend(backend)
        .sanitize(SanitizeOptions::parse(case.modes).unwrap());
    let mut f = match dev.launch(m, case.kernel, &cfg, &args) {
        Err(Error::Sanitizer(f)) => *f,
        other => panic!(
            "{} on {backend:?}: expected a finding, got {other:?}",
            case.kernel
        ),
    };
    let who = format!("{} on {backend:?}: {f}", case.kernel);
    assert_eq!(f.kind, case.kind, "{who}");
    assert_eq!(f.kernel, case.kernel, "{who}");
    let at = f.at.as_ref().expect("located");
    assert!(at.inst.starts_with(case.inst), "{who}");
    assert_eq!((f.block, f.thread), ([0; 3], [case.thread, 0, 0]), "{who}");
    assert!(f.detail.contains(case.detail), "{who}");
    match case.at {
        At::Buf(off) => {
            let p = buf.as_ref().expect("a buffer").ptr();
            assert_eq!(f.addr, p + off, "{who}");
            f.addr = off;
            f.detail = f.detail.replace(&format!("{p:#x}"), "BUF");
        }
        At::Shared(var, off) => {
            let v = m.ir().shared_vars.iter().find(|v| v.name.contains(var));
            let base = v.expect("the shared variable").offset as u64;
            assert_eq!(f.addr, base + off, "{who}");
        }
    }
    match (case.other, &f.other) {
        (None, None) => {}
        (Some((thread, inst)), Some(o)) => {
            assert_eq!(o.thread, [thread, 0, 0], "{who}");
            assert!(o.at.inst.starts_with(inst), "{who}");
        }
        _ => panic!("{who}: other access {:?}", f.other),
    }
    if let Some(b) = buf {
        dev.free(b).unwrap();
    }
    dev.free(out).unwrap();
    f
}

use FindingKind::*;

fn cases() -> Vec<Case> {
    vec![
        // Threads 0..26 wrote bytes 0..54; thread 13 loads 52..56: byte 54 (offset 2).
        Case {
            kernel: "init_partial",
            modes: "initcheck",
            buf: Some(|d| d.alloc_uninit(128).unwrap()),
            kind: Uninit,
            inst: "ld.global.u32",
            thread: 13,
            at: At::Buf(52),
            other: None,
            detail: "(first unwritten byte at offset 2)",
        },
        Case {
            kernel: "init_partial_shared",
            modes: "initcheck",
            buf: None,
            kind: Uninit,
            inst: "ld.shared.u32",
            thread: 13,
            at: At::Shared("sbuf", 52),
            other: None,
            detail: "(first unwritten byte at offset 2)",
        },
        // A 102-byte allocation: thread 25 loads bytes 100..104.
        Case {
            kernel: "oob_partial",
            modes: "memcheck,initcheck,racecheck",
            buf: Some(|d| d.alloc_zeroed(102).unwrap()),
            kind: OutOfBounds,
            inst: "ld.global.u32",
            thread: 25,
            at: At::Buf(100),
            other: None,
            detail: "",
        },
        // Lane t wrote byte 133 - t; thread 25 loads 100..104, whose first written
        // byte, 102, is lane 31's (133 - 31).
        Case {
            kernel: "race_partial_shared",
            modes: "racecheck",
            buf: None,
            kind: RaceRaw,
            inst: "ld.shared.u32",
            thread: 25,
            at: At::Shared("rbuf", 100),
            other: Some((31, "st.shared.u8")),
            detail: "both threads are in one warp",
        },
        Case {
            kernel: "race_partial_global",
            modes: "racecheck",
            buf: Some(|d| d.alloc_zeroed(256).unwrap()),
            kind: RaceRaw,
            inst: "ld.global.u32",
            thread: 25,
            at: At::Buf(100),
            other: Some((31, "st.global.u8")),
            detail: "both threads are in one warp",
        },
        // Lane t read byte 133 - t; thread 25 stores 100..104: byte 102, read by 31.
        Case {
            kernel: "war_partial_shared",
            modes: "racecheck",
            buf: None,
            kind: RaceWar,
            inst: "st.shared.u32",
            thread: 25,
            at: At::Shared("wbuf", 100),
            other: Some((31, "ld.shared.u8")),
            detail: "both threads are in one warp",
        },
    ]
}

#[test]
fn partly_overlapping_ranges_name_the_first_lane_and_byte_on_both_backends() {
    let dev = device();
    let m = dev.load_ptx(PTX, "range_hand.ptx").unwrap();
    for case in &cases() {
        let a = run(&dev, &m, case, Backend::Interp);
        let b = run(&dev, &m, case, Backend::Jit);
        assert_eq!(a, b, "{}: the backends disagree", case.kernel);
        println!("{a}");
    }
}

/// The same accesses with report-only: every lane after the first is checked too, and
/// the one finding per instruction pair is still the first lane's.
#[test]
fn report_only_keeps_the_first_lane() {
    let dev = device();
    let m = dev.load_ptx(PTX, "range_hand.ptx").unwrap();
    for backend in [Backend::Interp, Backend::Jit] {
        let out = dev.alloc_zeroed(128).unwrap();
        let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1])
            .backend(backend)
            .sanitize(SanitizeOptions::parse("racecheck,report-only").unwrap());
        dev.launch(&m, "race_partial_shared", &cfg, &[(&out).into()])
            .unwrap();
        let r = dev.take_sanitizer_report();
        let f: Vec<&Finding> = r.findings.iter().collect();
        assert_eq!(f.len(), 1, "{backend:?}: {r}");
        assert_eq!(
            (f[0].kind, f[0].thread),
            (RaceRaw, [25, 0, 0]),
            "{backend:?}"
        );
        dev.free(out).unwrap();
    }
}
