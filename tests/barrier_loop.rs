//! Barrier loops with divergent code between the barriers (`tests/ptx/bar_if.ptx`): an
//! `if`/`else` or an `if` that reconverges before the next `bar.sync` leaves the
//! barriers continuations in the JIT (`ir::analysis::cfg::divergent_blocks_given`,
//! `jit::control::cont`, `runtime::launch::cont`). Both backends against Rust
//! references written here, full and partial CTAs, exited warps and lanes, 1 and 2
//! workers, several CTAs per worker and per scheduling unit (clusters), in order and
//! under random warp orders; and a fault in a warp that has resumed from a barrier
//! names its block and thread.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::{DeviceOptions, Schedule};

const FILE: &str = "tests/ptx/bar_if.ptx";
const FILL: u32 = 0x5EE5;

/// Deterministic inputs (an LCG).
fn inputs(n: usize) -> Vec<u32> {
    let mut x = 12345u32;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x >> 8
        })
        .collect()
}

/// `scan_if` on one CTA's inputs: (inclusive prefix sums, per thread the sum of the
/// rounds `off` in which it had nothing to add).
fn scan_reference(input: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = input.len();
    let mut v = input.to_vec();
    let mut cnt = vec![0u32; n];
    let mut off = 1;
    while off < n {
        let old = v.clone();
        for t in 0..n {
            if t >= off {
                v[t] = v[t].wrapping_add(old[t - off]);
            } else {
                cnt[t] = cnt[t].wrapping_add(off as u32);
            }
        }
        off <<= 1;
    }
    (v, cnt)
}

/// `reduce_if` on one CTA's inputs with the threads below `stay` (at least 1) left:
/// the value thread 0 stores.
fn reduce_reference(input: &[u32], stay: usize) -> u32 {
    let mut a = input.to_vec();
    let mut h = input.len() / 2;
    while h > 0 {
        for t in 0..h.min(stay) {
            a[t] = a[t].wrapping_add(a[t + h]);
        }
        h /= 2;
    }
    a[0]
}

fn device(threads: usize) -> Device {
    Device::with_options(DeviceOptions {
        threads,
        ..Default::default()
    })
    .expect("device")
}

/// The launch shapes: (grid, block, cluster size).
const SHAPES: [(u32, u32, u32); 5] = [(3, 256, 1), (2, 100, 1), (4, 64, 2), (1, 32, 1), (4, 96, 2)];

const SCHEDULES: [Schedule; 2] = [Schedule::InOrder, Schedule::Random(7)];

fn config(grid: u32, block: u32, cluster: u32, backend: Backend, s: Schedule) -> LaunchConfig {
    let c = cfg([grid, 1, 1], [block, 1, 1], backend).schedule(s);
    match cluster {
        1 => c,
        k => c.cluster([k, 1, 1]),
    }
}

/// An inclusive scan with an `if`/`else` between the two barriers of each round.
#[test]
fn scan_with_if_else_in_barrier_loop() {
    for threads in [1, 2] {
        let dev = device(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, FILE, backend);
            for (grid, block, cluster) in SHAPES {
                for schedule in SCHEDULES {
                    let n = (grid * block) as usize;
                    let input = inputs(n);
                    let inb = dev.alloc_from(&input).unwrap();
                    let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                    let cnt = dev.alloc_from(&vec![FILL; n]).unwrap();
                    let c = config(grid, block, cluster, backend, schedule);
                    let what = format!(
                        "scan_if {backend:?} {grid}x{block} cluster {cluster} {schedule:?} t={threads}"
                    );
                    launch(
                        &dev,
                        &m,
                        "scan_if",
                        &c,
                        &[arg(&out), arg(&cnt), arg(&inb)],
                        &what,
                    );
                    let (mut want, mut want_cnt) = (Vec::new(), Vec::new());
                    for cta in input.chunks(block as usize) {
                        let (v, k) = scan_reference(cta);
                        want.extend(v);
                        want_cnt.extend(k);
                    }
                    assert_eq!(dev.read::<u32>(&out).unwrap(), want, "{what}");
                    assert_eq!(dev.read::<u32>(&cnt).unwrap(), want_cnt, "{what}");
                }
            }
            if backend == Backend::Jit {
                assert_eq!(m.barriers_as_continuations("scan_if"), Some(true));
            }
        }
    }
}

/// A tree reduction with an `if` before each barrier, after whole warps and lanes of
/// a warp exited.
#[test]
fn reduction_with_if_in_barrier_loop() {
    for threads in [1, 2] {
        let dev = device(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, FILE, backend);
            for (grid, block, cluster) in SHAPES {
                for stay in [block, block / 2 + 3, 1] {
                    for schedule in SCHEDULES {
                        let n = (grid * block) as usize;
                        let input = inputs(n);
                        let inb = dev.alloc_from(&input).unwrap();
                        let out = dev.alloc_from(&vec![FILL; grid as usize]).unwrap();
                        let c = config(grid, block, cluster, backend, schedule);
                        let what = format!(
                            "reduce_if {backend:?} {grid}x{block} cluster {cluster} stay {stay} {schedule:?} t={threads}"
                        );
                        let args = [arg(&out), arg(&inb), KernelArg::U32(stay)];
                        launch(&dev, &m, "reduce_if", &c, &args, &what);
                        let want: Vec<u32> = input
                            .chunks(block as usize)
                            .map(|cta| reduce_reference(cta, stay as usize))
                            .collect();
                        assert_eq!(dev.read::<u32>(&out).unwrap(), want, "{what}");
                    }
                }
            }
            if backend == Backend::Jit {
                assert_eq!(m.barriers_as_continuations("reduce_if"), Some(true));
            }
        }
    }
}

/// A store fault right after the k-th barrier, by one thread of one CTA, while other
/// warps and CTAs wait at barriers: both backends report that thread and block, the
/// instruction's line and the address.
#[test]
fn fault_after_resume_names_the_thread() {
    let src = load_root(FILE);
    // The faulting store's line (1-based), from the file's text.
    let line = src
        .lines()
        .position(|l| l.contains("st.global.u32 [%rd4], %r8;"))
        .expect("store line") as u32
        + 1;
    for threads in [1, 2] {
        let dev = device(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, FILE, backend);
            for (grid, block, bad_cta, bad_tid, k) in [
                (3u32, 96u32, 1u32, 77u32, 1u32),
                (3, 96, 1, 77, 4),
                (2, 256, 1, 0, 3),
                (4, 40, 3, 39, 2),
            ] {
                let n = (grid * block) as usize;
                let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                let c = cfg([grid, 1, 1], [block, 1, 1], backend);
                let what = format!("bar_fault {backend:?} {grid}x{block} k={k} t={threads}");
                let args = [
                    arg(&out),
                    KernelArg::U32(k),
                    KernelArg::U32(bad_cta),
                    KernelArg::U32(bad_tid),
                ];
                match dev.launch(&m, "bar_fault", &c, &args) {
                    Err(ptxjit::Error::Fault(f)) => {
                        let msg = f.to_string();
                        assert_eq!(f.kernel, "bar_fault", "{what}: {msg}");
                        assert_eq!(f.block, [bad_cta, 0, 0], "{what}: {msg}");
                        assert_eq!(f.thread, [bad_tid, 0, 0], "{what}: {msg}");
                        assert_eq!(f.line, line, "{what}: {msg}");
                        assert_eq!(f.addr, 16, "{what}: {msg}");
                        assert!(f.write, "{what}: {msg}");
                    }
                    Ok(_) => panic!("{what}: expected a fault"),
                    Err(e) => panic!("{what}: expected a fault, got {e}"),
                }
            }
            if backend == Backend::Jit {
                assert_eq!(m.barriers_as_continuations("bar_fault"), Some(true));
            }
        }
    }
}

/// `benches/ptx/bar_loop.ptx` in clusters of 2 and 4 CTAs (one scheduling unit runs
/// the warps of all of them), partial CTAs included.
#[test]
fn bar_loop_in_clusters() {
    for threads in [1, 2] {
        let dev = device(threads);
        for backend in [Backend::Jit, Backend::Interp] {
            let m = module_at(&dev, "benches/ptx/bar_loop.ptx", backend);
            for (grid, block, cluster) in [(4u32, 256u32, 2u32), (8, 40, 4), (4, 64, 4)] {
                for k in [0u32, 3, 20] {
                    let n = (grid * block) as usize;
                    let out = dev.alloc_from(&vec![FILL; n]).unwrap();
                    let c = config(grid, block, cluster, backend, Schedule::InOrder);
                    let what = format!("bar_loop {backend:?} {grid}x{block}/{cluster} k={k}");
                    launch(
                        &dev,
                        &m,
                        "bar_loop",
                        &c,
                        &[arg(&out), KernelArg::U32(k)],
                        &what,
                    );
                    let want = (0..k).fold(0u32, |s, i| s.wrapping_add(i));
                    let got: Vec<u32> = dev.read(&out).unwrap();
                    assert!(got.iter().all(|&v| v == want), "{what}: {got:?}");
                }
            }
            if backend == Backend::Jit {
                assert_eq!(m.barriers_as_continuations("bar_loop"), Some(true));
            }
        }
    }
}
