//! The sanitizers (`crate::exec::sanitize`) on deliberately buggy kernels
//! (tests/sanitize/bugs.cu compiled by NVRTC, and the hand-written bugs_hand.ptx), each
//! the smallest form of a real CUDA bug: every one is caught, with the same report, on
//! both backends. The expected thread, address and other access of each finding are
//! derived in the comments from the kernel and the launch (warps run in order, lanes in
//! ascending order: the first bad lane of the first warp to reach the bug reports).

use ptxjit::{
    Backend, Buffer, Device, DeviceOptions, Error, Finding, FindingKind, KernelArg, LaunchConfig,
    Module, SanitizeOptions,
};

const BUGS: &str = include_str!("sanitize/bugs.nvrtc.ptx");
const HAND: &str = include_str!("sanitize/bugs_hand.ptx");

/// Where the reported address must be.
#[derive(Clone, Copy)]
enum Addr {
    /// Not checked (layout chosen by the compiler).
    Any,
    /// Byte offset into buffer argument `.0`.
    Buf(usize, u64),
    /// A window offset (local) or other absolute value.
    Abs(u64),
    /// Byte offset into the kernel's shared variable (the one whose mangled name holds
    /// the kernel's name, else `buf`; the dynamic area for launches with dynamic shared
    /// memory): shared variables of all kernels share one module-wide layout.
    Shared(u64),
}

struct Case {
    kernel: &'static str,
    hand: bool,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    modes: &'static str,
    /// Builds the arguments; buffers are returned for address checks and freeing.
    args: fn(&Device) -> (Vec<KernelArg>, Vec<Buffer>),
    kind: FindingKind,
    /// Prefix of the reported instruction's text.
    inst: &'static str,
    thread: [u32; 3],
    addr: Addr,
    /// The other access (thread, instruction prefix) of races and barriers.
    other: Option<([u32; 3], &'static str)>,
}

fn f32s(d: &Device, n: usize) -> Buffer {
    d.alloc_from(&(0..n).map(|i| i as f32).collect::<Vec<f32>>())
        .unwrap()
}
fn i32s(d: &Device, v: &[i32]) -> Buffer {
    d.alloc_from(v).unwrap()
}
fn out(d: &Device, bytes: usize) -> Buffer {
    d.alloc_zeroed(bytes).unwrap()
}
fn ptrs(bufs: &[Buffer]) -> Vec<KernelArg> {
    bufs.iter().map(KernelArg::from).collect()
}

const B1: [u32; 3] = [1, 1, 1];
const fn blk(x: u32) -> [u32; 3] {
    [x, 1, 1]
}
const fn t(x: u32) -> [u32; 3] {
    [x, 0, 0]
}

fn cases() -> Vec<Case> {
    use FindingKind::*;
    let c = |kernel, block: [u32; 3], modes, args, kind, inst, thread, addr, other| Case {
        kernel,
        hand: false,
        grid: B1,
        block,
        shared: 0,
        modes,
        args,
        kind,
        inst,
        thread,
        addr,
        other,
    };
    vec![
        // in has 64 floats; thread 63 (lane 31 of warp 1) reads in[64] = in + 256.
        c(
            "oob_next_elem",
            blk(64),
            "memcheck",
            |d| {
                let b = vec![f32s(d, 64), out(d, 256)];
                let mut a = ptrs(&b);
                a.push(KernelArg::I32(64));
                (a, b)
            },
            OutOfBounds,
            "ld.global",
            t(63),
            Addr::Buf(0, 256),
            None,
        ),
        // 96 threads, n = 64: thread 64 stores out[64] = out + 256.
        c(
            "oob_le_bound",
            blk(96),
            "memcheck",
            |d| {
                let b = vec![out(d, 256)];
                let mut a = ptrs(&b);
                a.push(KernelArg::I32(64));
                (a, b)
            },
            OutOfBounds,
            "st.global",
            t(64),
            Addr::Buf(0, 256),
            None,
        ),
        // w = 4, h = 8, out has 32 floats: thread (x, y) stores out[8y + x]; the first
        // index >= 32 is y = 4, x = 0 (lane 16): out + 128.
        c(
            "oob_2d_index",
            [4, 8, 1],
            "memcheck",
            |d| {
                let b = vec![out(d, 128)];
                let mut a = ptrs(&b);
                a.extend([KernelArg::I32(4), KernelArg::I32(8)]);
                (a, b)
            },
            OutOfBounds,
            "st.global",
            [0, 4, 0],
            Addr::Buf(0, 128),
            None,
        ),
        // The input is freed before the launch: thread 0 reads its first byte.
        c(
            "read_input",
            blk(32),
            "memcheck",
            |d| {
                let o = out(d, 128);
                let gone = i32s(d, &[1; 32]);
                d.free(gone).unwrap();
                (
                    vec![KernelArg::from(&gone), KernelArg::from(&o)],
                    vec![gone, o],
                )
            },
            UseAfterFree,
            "ld.global",
            t(0),
            Addr::Buf(0, 0),
            None,
        ),
        // Thread 0 loads an int at bytes + 1.
        c(
            "misaligned_cast",
            blk(32),
            "memcheck",
            |d| {
                let b = vec![out(d, 256), out(d, 128)];
                (ptrs(&b), b)
            },
            Misaligned,
            "ld.global",
            t(0),
            Addr::Buf(0, 1),
            None,
        ),
        // idx[5] = 1000: thread 5 reads a[1000], 4000 bytes into an 8-int frame.
        c(
            "local_index",
            blk(32),
            "memcheck",
            |d| {
                let idx: Vec<i32> = (0..32).map(|i| if i == 5 { 1000 } else { i % 8 }).collect();
                let b = vec![i32s(d, &idx), out(d, 128)];
                (ptrs(&b), b)
            },
            LocalOverflow,
            "ld.local",
            t(5),
            Addr::Abs(4000),
            None,
        ),
        // 128 bytes of dynamic shared memory: thread 16 stores buf[32] at offset 128.
        Case {
            shared: 128,
            ..c(
                "shared_too_small",
                blk(32),
                "memcheck",
                |d| {
                    let b = vec![f32s(d, 32), out(d, 128)];
                    (ptrs(&b), b)
                },
                SharedOverflow,
                "st.shared",
                t(16),
                Addr::Shared(128),
                None,
            )
        },
        // The accumulator (the only shared variable, offset 0) is never zeroed: thread
        // 0's atomic add reads it first.
        c(
            "shared_acc_uninit",
            blk(32),
            "initcheck",
            |d| {
                let b = vec![f32s(d, 32), out(d, 4)];
                (ptrs(&b), b)
            },
            Uninit,
            "atom.shared",
            t(0),
            Addr::Shared(0),
            None,
        ),
        // The input comes from an uninitialised allocation: thread 0 reads in[0].
        c(
            "scale",
            blk(32),
            "initcheck",
            |d| {
                let b = vec![d.alloc_uninit(128).unwrap(), out(d, 128)];
                let mut a = ptrs(&b);
                a.push(KernelArg::F32(2.0));
                (a, b)
            },
            Uninit,
            "ld.global",
            t(0),
            Addr::Buf(0, 0),
            None,
        ),
        // Threads 0..31 fill tile[0..32); thread 32 reads tile[32] at offset 128.
        c(
            "partial_tile_load",
            blk(64),
            "initcheck",
            |d| {
                let b = vec![f32s(d, 64), out(d, 256)];
                (ptrs(&b), b)
            },
            Uninit,
            "ld.shared",
            t(32),
            Addr::Shared(128),
            None,
        ),
        // n[3] = 2 but k[3] = 3: thread 3 reads a[3], never written by it.
        c(
            "local_partial_init",
            blk(32),
            "initcheck",
            |d| {
                let n: Vec<i32> = (0..32).map(|i| if i == 3 { 2 } else { 16 }).collect();
                let k: Vec<i32> = (0..32).map(|i| i % 16).collect();
                let b = vec![i32s(d, &n), i32s(d, &k), out(d, 128)];
                (ptrs(&b), b)
            },
            Uninit,
            "ld.local",
            t(3),
            Addr::Any,
            None,
        ),
        // n = 48: s[48..64) stay unwritten; at stride 32 thread 16 reads s[48] (192).
        c(
            "reduce_reads_padding",
            blk(64),
            "initcheck",
            |d| {
                let b = vec![f32s(d, 64), out(d, 4)];
                let mut a = ptrs(&b);
                a.push(KernelArg::I32(48));
                (a, b)
            },
            Uninit,
            "ld.shared",
            t(16),
            Addr::Shared(192),
            None,
        ),
        // Warp 0 runs every stride before warp 1 runs: at stride 16 thread 0 reads
        // s[16] (64), which thread 16 wrote at stride 32 with no barrier between.
        c(
            "reduce_no_sync",
            blk(128),
            "racecheck",
            |d| {
                let b = vec![f32s(d, 128), out(d, 4)];
                (ptrs(&b), b)
            },
            RaceRaw,
            "ld.shared",
            t(0),
            Addr::Shared(64),
            Some((t(16), "st.shared")),
        ),
        // After `v[t] += v[t+32]`, thread 0 reads v[16] (64), which thread 16 of the
        // same warp has just written: no __syncwarp between.
        c(
            "warp_reduce_no_syncwarp",
            blk(64),
            "racecheck",
            |d| {
                let b = vec![f32s(d, 64), out(d, 4)];
                (ptrs(&b), b)
            },
            RaceRaw,
            "ld.volatile.shared",
            t(0),
            Addr::Shared(64),
            Some((t(16), "st.volatile.shared")),
        ),
        // Second tile: thread (0,0) overwrites as[0][0] that thread (1,0) of its warp
        // read in the first tile's k loop (no trailing barrier).
        Case {
            grid: [2, 2, 1],
            ..c(
                "gemm_no_trailing_sync",
                [8, 8, 1],
                "racecheck",
                |d| {
                    let b = vec![f32s(d, 256), f32s(d, 256), out(d, 1024)];
                    let mut a = ptrs(&b);
                    a.push(KernelArg::I32(16));
                    (a, b)
                },
                RaceWar,
                "st.shared",
                t(0),
                Addr::Any,
                Some((t(1), "ld.shared")),
            )
        },
        // Warp 0 reads s[32..64) before warp 1 writes it: thread 32's store of s[32]
        // (128) races with thread 0's read.
        c(
            "neighbour_no_sync",
            blk(64),
            "racecheck",
            |d| {
                let b = vec![f32s(d, 64), out(d, 256)];
                (ptrs(&b), b)
            },
            RaceWar,
            "st.shared",
            t(32),
            Addr::Shared(128),
            Some((t(0), "ld.shared")),
        ),
        // The lanes of one store instruction count as one store; warp 1's store to
        // `last` (offset 0) races with warp 0's, whose last lane (thread 31) wrote it.
        c(
            "shared_flag_waw",
            blk(64),
            "racecheck",
            |d| {
                let b = vec![out(d, 256)];
                (ptrs(&b), b)
            },
            RaceWaw,
            "st.shared",
            t(32),
            Addr::Shared(0),
            Some((t(31), "st.shared")),
        ),
        // in[i] = i: h[0] is read by threads 0 and 4 (kept readers), then thread 0
        // stores it: a race with thread 4's read.
        c(
            "histogram_no_atomic",
            blk(64),
            "racecheck",
            |d| {
                let b = vec![i32s(d, &(0..64).collect::<Vec<_>>()), out(d, 16)];
                (ptrs(&b), b)
            },
            RaceWar,
            "st.shared",
            t(0),
            Addr::Shared(0),
            Some((t(4), "ld.shared")),
        ),
        // Every thread loads *sum, then thread 0 stores it: races with thread 1's load.
        c(
            "global_sum_no_atomic",
            blk(32),
            "racecheck",
            |d| {
                let b = vec![i32s(d, &[1; 32]), out(d, 4)];
                (ptrs(&b), b)
            },
            RaceWar,
            "st.global",
            t(0),
            Addr::Buf(1, 0),
            Some((t(1), "ld.global")),
        ),
        // tile is [16][17] floats; thread (1,0) reads tile[1][0] (68), stored by thread
        // (0,1) of the same warp with no barrier.
        c(
            "transpose_no_sync",
            [16, 16, 1],
            "racecheck",
            |d| {
                let b = vec![f32s(d, 256), out(d, 1024)];
                (ptrs(&b), b)
            },
            RaceRaw,
            "ld.shared",
            t(1),
            Addr::Shared(68),
            Some(([0, 1, 0], "st.shared")),
        ),
        // flags[64] = 0: thread 0 resets count (plain store) and adds nothing; thread
        // 1's atomic add comes next in the same epoch: a write-after-write race.
        c(
            "counter_reset_no_sync",
            blk(64),
            "racecheck",
            |d| {
                let flags: Vec<i32> = (0..128).map(|i| (i != 64) as i32).collect();
                let b = vec![i32s(d, &flags), out(d, 8)];
                (ptrs(&b), b)
            },
            RaceWaw,
            "atom.shared",
            t(1),
            Addr::Shared(0),
            Some((t(0), "st.shared")),
        ),
        // Lanes 0..15 wait at the if-branch's barrier, lanes 16..31 at the else-branch's.
        // The warp runs the else block first (it comes first in reverse post-order:
        // NVRTC reaches it by the `bra.uni` after the conditional branch), so thread 16
        // arrives first and thread 0's arrival is the divergent one.
        c(
            "syncthreads_if_else",
            blk(64),
            "synccheck",
            |d| {
                let b = vec![out(d, 256)];
                (ptrs(&b), b)
            },
            DivergentBarrier,
            "bar.sync",
            t(0),
            Addr::Any,
            Some((t(16), "bar.sync")),
        ),
        // Warp 0 loops twice, warp 1 once: in round 2 warp 0 waits at the loop's
        // barrier (thread 0 first) while warp 1 (thread 32) waits at the one after it.
        c(
            "sync_in_variable_loop",
            blk(64),
            "synccheck",
            |d| {
                let counts: Vec<i32> = (0..64).map(|i| if i < 32 { 2 } else { 1 }).collect();
                let b = vec![i32s(d, &counts), out(d, 256)];
                (ptrs(&b), b)
            },
            DivergentBarrier,
            "bar.sync",
            t(32),
            Addr::Any,
            Some((t(0), "bar.sync")),
        ),
        // Lanes 0..15 run the shfl whose mask names all 32.
        c(
            "shfl_full_mask_divergent",
            blk(32),
            "synccheck",
            |d| {
                let b = vec![out(d, 128)];
                (ptrs(&b), b)
            },
            MaskNamesInactive,
            "shfl.sync",
            t(0),
            Addr::Any,
            None,
        ),
        // Mask 0xffff, all 32 lanes run it: lane 16 is the first outside its mask.
        c(
            "ballot_mask_too_small",
            blk(32),
            "synccheck",
            |d| {
                let b = vec![i32s(d, &[1; 32]), out(d, 128)];
                (ptrs(&b), b)
            },
            MaskExcludesSelf,
            "vote.sync.ballot",
            t(16),
            Addr::Any,
            None,
        ),
        // __syncwarp() (full mask) run by lanes 0..7 only.
        c(
            "syncwarp_divergent",
            blk(32),
            "synccheck",
            |d| {
                let b = vec![out(d, 128)];
                (ptrs(&b), b)
            },
            MaskNamesInactive,
            "bar.warp.sync",
            t(0),
            Addr::Any,
            None,
        ),
        // 48 threads: warp 1 has lanes 0..15 only; its first lane (thread 32) names 16
        // lanes that do not exist.
        c(
            "shfl_partial_warp",
            blk(48),
            "synccheck",
            |d| {
                let b = vec![f32s(d, 48), out(d, 8)];
                (ptrs(&b), b)
            },
            MaskNamesInactive,
            "shfl.sync.down",
            t(32),
            Addr::Any,
            None,
        ),
        // Lane 31 returned; the full-mask reduction names it.
        c(
            "redux_after_return",
            blk(32),
            "synccheck",
            |d| {
                let b = vec![i32s(d, &[1; 32]), out(d, 128)];
                (ptrs(&b), b)
            },
            MaskNamesInactive,
            "redux.sync",
            t(0),
            Addr::Any,
            None,
        ),
        // Hand-written: lane 0 loads buf[1] (4), stored by lane 1 without bar.warp.sync.
        Case {
            hand: true,
            ..c(
                "warp_exchange",
                blk(32),
                "racecheck",
                |d| {
                    let b = vec![out(d, 128)];
                    (ptrs(&b), b)
                },
                RaceRaw,
                "ld.shared",
                t(0),
                Addr::Shared(4),
                Some((t(1), "st.shared")),
            )
        },
        // Hand-written: thread 0 stores to coeffs[1] through a generic pointer.
        Case {
            hand: true,
            ..c(
                "store_to_const",
                blk(32),
                "memcheck",
                |_| (vec![KernelArg::U32(7)], vec![]),
                ReadOnlyStore,
                "st.u32",
                t(0),
                Addr::Any,
                None,
            )
        },
        // Hand-written: bar.warp.sync 0xffff run by 32 lanes: lane 16 is outside.
        Case {
            hand: true,
            ..c(
                "warp_sync_half_mask",
                blk(32),
                "synccheck",
                |d| {
                    let b = vec![out(d, 128)];
                    (ptrs(&b), b)
                },
                MaskExcludesSelf,
                "bar.warp.sync",
                t(16),
                Addr::Any,
                None,
            )
        },
        // Hand-written: thread 0 loads 8 bytes at in + 4.
        Case {
            hand: true,
            ..c(
                "misaligned_v2",
                blk(32),
                "memcheck",
                |d| {
                    let b = vec![out(d, 264), out(d, 128)];
                    (ptrs(&b), b)
                },
                Misaligned,
                "ld.global.v2",
                t(0),
                Addr::Buf(0, 4),
                None,
            )
        },
    ]
}

fn shared_base(m: &Module, case: &Case) -> u64 {
    let ir = m.ir();
    let named = |n: &str| {
        ir.shared_vars
            .iter()
            .find(|v| !v.dynamic && v.name.contains(n))
    };
    match named(case.kernel) {
        Some(v) => v.offset as u64,
        None if case.shared > 0 => ir.dyn_shared_offset as u64,
        None => named("buf").map_or(u64::MAX, |v| v.offset as u64),
    }
}

fn device() -> Device {
    Device::with_options(DeviceOptions {
        sanitize: Some(SanitizeOptions::parse("memcheck").unwrap()),
        ..Default::default()
    })
    .unwrap()
}

/// Runs `case` on `backend`; returns the finding that stopped the launch.
fn run(dev: &Device, m: &Module, case: &Case, backend: Backend) -> Finding {
    let (args, bufs) = (case.args)(dev);
    let cfg = LaunchConfig::new(case.grid, case.block)
        .shared_bytes(case.shared)
        .backend(backend)
        .sanitize(SanitizeOptions::parse(case.modes).unwrap());
    let r = dev.launch(m, case.kernel, &cfg, &args);
    let f = match r {
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
    assert!(at.line > 0 && at.col > 0, "{who}");
    assert_eq!(f.block, [0, 0, 0], "{who}");
    assert_eq!(f.thread, case.thread, "{who}");
    let mut f = f;
    match case.addr {
        Addr::Any => {}
        Addr::Buf(i, off) => {
            assert_eq!(f.addr, bufs[i].ptr() + off, "{who}");
            // The buffers differ between runs: compare the backends on the offset.
            f.addr = off;
            f.detail = f.detail.replace(&format!("{:#x}", bufs[i].ptr()), "BUF");
        }
        Addr::Abs(a) => assert_eq!(f.addr, a, "{who}"),
        Addr::Shared(off) => assert_eq!(f.addr, shared_base(m, case) + off, "{who}"),
    }
    match (case.other, &f.other) {
        (None, None) => {}
        (Some((thread, inst)), Some(o)) => {
            assert_eq!(o.thread, thread, "{who}");
            assert!(o.at.inst.starts_with(inst), "{who}");
        }
        _ => panic!("{who}: other access {:?}", f.other),
    }
    for b in bufs {
        let _ = dev.free(b);
    }
    f
}

#[test]
fn every_buggy_kernel_is_caught_with_the_same_report_on_both_backends() {
    let dev = device();
    let bugs = dev.load_ptx(BUGS, "bugs.nvrtc.ptx").unwrap();
    let hand = dev.load_ptx(HAND, "bugs_hand.ptx").unwrap();
    let cases = cases();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let m = if case.hand { &hand } else { &bugs };
        let a = run(&dev, m, case, Backend::Interp);
        let b = run(&dev, m, case, Backend::Jit);
        assert_eq!(a, b, "{}: the backends disagree", case.kernel);
        println!("{a}");
    }
    assert!(dev.leaks().is_empty(), "{}", dev.leaks());
}

/// Runs `case` with `report-only` on `backend`: every finding of the launch, addresses
/// in or just past a buffer (the nearest buffer start below, within 64 KiB) given as
/// (buffer index + 1) << 40 plus the offset (the buffers differ between runs), buffer
/// addresses in the details as `BUFi`.
fn run_report_only(dev: &Device, m: &Module, case: &Case, backend: Backend) -> Vec<Finding> {
    let (args, bufs) = (case.args)(dev);
    let modes = format!("{},report-only", case.modes);
    let cfg = LaunchConfig::new(case.grid, case.block)
        .shared_bytes(case.shared)
        .backend(backend)
        .sanitize(SanitizeOptions::parse(&modes).unwrap());
    dev.launch(m, case.kernel, &cfg, &args)
        .unwrap_or_else(|e| panic!("{} on {backend:?}, report-only: {e}", case.kernel));
    let mut found = dev.take_sanitizer_report().findings;
    for f in &mut found {
        let near = bufs
            .iter()
            .enumerate()
            .filter(|(_, b)| b.ptr() <= f.addr && f.addr - b.ptr() < 1 << 16)
            .max_by_key(|(_, b)| b.ptr());
        if let Some((i, b)) = near {
            f.addr = ((i as u64 + 1) << 40) + (f.addr - b.ptr());
        }
        for (i, b) in bufs.iter().enumerate() {
            f.detail = f
                .detail
                .replace(&format!("{:#x}", b.ptr()), &format!("BUF{i}"));
        }
    }
    for b in bufs {
        let _ = dev.free(b);
    }
    found
}

/// With `report-only` every finding of each buggy kernel is collected (not only the
/// first): the two backends must collect the same list — same kinds, instructions,
/// threads, addresses and other accesses, in the same order — and it must contain the
/// finding the stopping run reports first.
#[test]
fn every_buggy_kernel_reports_the_same_findings_on_both_backends_in_report_only_mode() {
    let dev = device();
    let bugs = dev.load_ptx(BUGS, "bugs.nvrtc.ptx").unwrap();
    let hand = dev.load_ptx(HAND, "bugs_hand.ptx").unwrap();
    for case in &cases() {
        let m = if case.hand { &hand } else { &bugs };
        let a = run_report_only(&dev, m, case, Backend::Interp);
        let b = run_report_only(&dev, m, case, Backend::Jit);
        assert_eq!(a, b, "{}: the backends disagree", case.kernel);
        assert!(
            a.iter()
                .any(|f| f.kind == case.kind && f.thread == case.thread),
            "{}: {a:?}",
            case.kernel
        );
    }
}
