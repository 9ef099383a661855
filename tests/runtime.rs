//! Runtime behaviour on both backends: launch validation, barriers with exited threads,
//! deadlock detection, fault kinds and messages, module variables, worker thread counts.
//! Kernels: `tests/ptx/runtime.ptx` (hand-written, validated with ptxas).

use ptxjit::{Backend, Device, DeviceOptions, Error, FaultKind, KernelArg, LaunchConfig};

const PTX: &str = include_str!("ptx/runtime.ptx");
const BACKENDS: [Backend; 2] = [Backend::Jit, Backend::Interp];

fn setup() -> (Device, ptxjit::Module) {
    let dev = Device::new().expect("device");
    let m = dev.load_ptx(PTX, "runtime.ptx").expect("load runtime.ptx");
    (dev, m)
}

#[test]
fn deadlock_is_reported_not_hung() {
    // One worker thread: block (0,0,0) is always the first to deadlock.
    let dev = Device::with_options(DeviceOptions {
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let m = dev.load_ptx(PTX, "runtime.ptx").unwrap();
    for b in BACKENDS {
        let err = dev
            .launch(&m, "deadlock", &LaunchConfig::new(2, 64).backend(b), &[])
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Deadlock(_)), "{b:?}: {msg}");
        assert!(
            msg.contains("deadlock in kernel 'deadlock' block (0,0,0)"),
            "{msg}"
        );
        assert!(
            msg.contains("barrier 0") && msg.contains("barrier 1"),
            "{msg}"
        );
    }
}

#[test]
fn exited_threads_do_not_hold_up_a_barrier() {
    let (dev, m) = setup();
    for b in BACKENDS {
        for k in [0u32, 1, 31, 32, 33, 100, 128] {
            let out = dev.alloc_zeroed(128 * 4).unwrap();
            dev.launch(
                &m,
                "exit_before_barrier",
                &LaunchConfig::new(1, 128).backend(b),
                &[(&out).into(), k.into()],
            )
            .unwrap_or_else(|e| panic!("{b:?} k={k}: {e}"));
            let v: Vec<u32> = dev.read(&out).unwrap();
            let want: Vec<u32> = (0..128).map(|t| if t < k { t + 100 } else { 0 }).collect();
            assert_eq!(v, want, "{b:?} k={k}");
        }
    }
}

#[test]
fn misaligned_and_out_of_bounds_loads_fault_with_location() {
    let (dev, m) = setup();
    let p = dev.alloc_from(&[1u32, 2, 3, 4]).unwrap();
    let out = dev.alloc_zeroed(4).unwrap();
    for b in BACKENDS {
        let cfg = LaunchConfig::new(1, 1).backend(b);
        dev.launch(
            &m,
            "load_at",
            &cfg,
            &[(&p).into(), 8u64.into(), (&out).into()],
        )
        .unwrap();
        assert_eq!(dev.read::<u32>(&out).unwrap(), [3]);
        let err = dev
            .launch(
                &m,
                "load_at",
                &cfg,
                &[(&p).into(), 2u64.into(), (&out).into()],
            )
            .unwrap_err();
        let Error::Fault(f) = &err else {
            panic!("{b:?}: expected a fault, got {err}")
        };
        assert_eq!(f.kind, FaultKind::Misaligned);
        assert_eq!(f.addr, p.ptr() + 2);
        assert_eq!(
            (f.kernel.as_str(), f.inst.as_str(), f.line),
            ("load_at", "ld.u32", 53),
            "{err}"
        );
        // Past the end of the 16-byte allocation but inside its 256-byte granule: a GPU
        // reads the padding (zero here); one past the granule is a fault.
        dev.launch(
            &m,
            "load_at",
            &cfg,
            &[(&p).into(), 16u64.into(), (&out).into()],
        )
        .unwrap();
        let err = dev
            .launch(
                &m,
                "load_at",
                &cfg,
                &[(&p).into(), 256u64.into(), (&out).into()],
            )
            .unwrap_err();
        let Error::Fault(f) = &err else {
            panic!("{b:?}: expected a fault, got {err}")
        };
        assert_eq!(f.kind, FaultKind::OutOfBounds, "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("runtime.ptx:53:") && msg.contains("block (0,0,0), thread (0,0,0)"),
            "{msg}"
        );
        assert!(msg.contains(&format!("{:#x}", p.ptr() + 256)), "{msg}");
    }
}

#[test]
fn const_memory_is_read_only_and_initialised() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let err = dev
            .launch(&m, "write_const", &LaunchConfig::new(1, 1).backend(b), &[])
            .unwrap_err();
        let Error::Fault(f) = &err else {
            panic!("{b:?}: expected a fault, got {err}")
        };
        assert_eq!(f.kind, FaultKind::ReadOnly, "{err}");
        let out = dev.alloc_zeroed(8 * 4).unwrap();
        dev.launch(
            &m,
            "read_vars",
            &LaunchConfig::new(1, 8).backend(b),
            &[(&out).into()],
        )
        .unwrap();
        // table = {10, 20, 30, 40}, counter = 7.
        assert_eq!(
            dev.read::<u32>(&out).unwrap(),
            [17, 27, 37, 47, 17, 27, 37, 47],
            "{b:?}"
        );
    }
    let counter = m.global("counter").expect("global variable");
    assert_eq!(dev.read::<u32>(&counter).unwrap(), [7]);
}

#[test]
fn shared_window_offsets_are_checked() {
    let (dev, m) = setup();
    for b in BACKENDS {
        let cfg = LaunchConfig::new(1, 32).backend(b);
        dev.launch(&m, "shared_oob", &cfg, &[60u32.into()]).unwrap();
        let err = dev
            .launch(&m, "shared_oob", &cfg, &[64u32.into()])
            .unwrap_err();
        let Error::Fault(f) = &err else {
            panic!("{b:?}: expected a fault, got {err}")
        };
        assert_eq!((f.kind, f.addr), (FaultKind::OutsideWindow, 64), "{err}");
    }
}

#[test]
fn launch_arguments_and_configuration_are_validated() {
    let (dev, m) = setup();
    let out = dev.alloc_zeroed(64).unwrap();
    let launch = |cfg: LaunchConfig, args: &[KernelArg]| {
        dev.launch(&m, "ids", &cfg, args).unwrap_err().to_string()
    };
    assert!(launch(LaunchConfig::new(1, 1), &[]).contains("takes 1 parameters but 0 arguments"));
    assert!(launch(LaunchConfig::new(1, 1), &[1u32.into()])
        .contains("is 4 bytes but parameter 'out' is 8 bytes"));
    assert!(launch(LaunchConfig::new(1, 1025), &[(&out).into()]).contains("at most 1024"));
    assert!(launch(LaunchConfig::new(0, 1), &[(&out).into()]).contains("zero dimension"));
    let e = dev
        .launch(&m, "nope", &LaunchConfig::new(1, 1), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no kernel named 'nope'") && e.contains("ids"),
        "{e}"
    );
}

#[test]
fn results_do_not_depend_on_worker_threads() {
    let want: Vec<u32> = (0..37u32)
        .flat_map(|c| (0..96u32).map(move |t| c * 1000 + t))
        .collect();
    for threads in [1, 2, 3] {
        let dev = Device::with_options(DeviceOptions {
            threads,
            ..Default::default()
        })
        .unwrap();
        let m = dev.load_ptx(PTX, "runtime.ptx").unwrap();
        for b in BACKENDS {
            let out = dev.alloc_zeroed(want.len() * 4).unwrap();
            dev.launch(
                &m,
                "ids",
                &LaunchConfig::new(37, 96).backend(b),
                &[(&out).into()],
            )
            .unwrap();
            assert_eq!(
                dev.read::<u32>(&out).unwrap(),
                want,
                "{threads} threads, {b:?}"
            );
        }
    }
}

#[test]
fn ptx_errors_are_located() {
    let dev = Device::new().unwrap();
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    add.u32 %r1, 1, 2;\n    ret;\n}\n";
    let err = dev.load_ptx(src, "bad.ptx").unwrap_err();
    assert!(matches!(err, Error::Ptx(_)), "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("bad.ptx:6:13: error:"), "{msg}");
    assert!(msg.contains("%r1"), "{msg}");
}

#[test]
fn guarded_off_lanes_never_touch_memory() {
    // tests/ptx/predicates.ptx: accesses to an address outside every allocation happen
    // only under guards that are false for the lanes concerned, so nothing faults.
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/predicates.ptx"), "predicates.ptx")
        .unwrap();
    let bad = dev.alloc_zeroed(16).unwrap();
    let bad_addr = bad.ptr();
    dev.free(bad).unwrap(); // freed: any access to it would fault
    for b in BACKENDS {
        let init: Vec<u32> = (0..64).collect();
        let out = dev.alloc_from(&init).unwrap();
        dev.launch(
            &m,
            "guarded",
            &LaunchConfig::new(1, 64).backend(b),
            &[(&out).into(), bad_addr.into()],
        )
        .unwrap_or_else(|e| panic!("{b:?}: {e}"));
        // Even tid: its own value read back; odd tid: 3*tid; +1000 from tid 16 on.
        let want: Vec<u32> = (0..64)
            .map(|t| if t % 2 == 0 { t } else { 3 * t } + if t >= 16 { 1000 } else { 0 })
            .collect();
        assert_eq!(dev.read::<u32>(&out).unwrap(), want, "{b:?}");
    }
}
