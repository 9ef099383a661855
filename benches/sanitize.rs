//! The sanitizers' slowdown on the benchmark kernels: each kernel runs on the JIT
//! without a sanitizer and under each mode, and the table gives the time under a mode
//! divided by the time without. Sanitized launches run their CTAs on one worker thread,
//! so the baseline here is one worker too (`DeviceOptions::threads = 1`), and these
//! times are the process's CPU time (`getrusage`), which other jobs on the machine
//! disturb far less than the wall-clock time; the column "off, all cores" is the
//! default multi-worker run for scale (wall-clock time). The normal code is the
//! optimized tier, compiled at load (`JitTier::Optimized`: the default tiered JIT would
//! recompile in the background during the timed launches); the sanitizers' variant is
//! the quick tier, as always. A launch without a
//! sanitizer runs the normal JIT code: the instrumented variant is a separate compile
//! made only for the first sanitized launch, so the sanitizers cost nothing when off.
//!
//! `cargo bench --bench sanitize` (`-- --quick`: fewer repetitions; `-- --only=NAME`:
//! the kernels whose name contains NAME).

use ptxjit::jit::JitTier;
use ptxjit::{Backend, Buffer, Device, DeviceOptions, KernelArg, LaunchConfig, SanitizeOptions};
use std::time::{Duration, Instant};

struct Kernel {
    name: &'static str,
    src: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: fn(&Device) -> (Vec<KernelArg>, Vec<Buffer>),
}

fn f32s(d: &Device, n: usize) -> Buffer {
    d.alloc_from(&(0..n).map(|i| (i % 97) as f32 * 0.25).collect::<Vec<f32>>())
        .unwrap()
}
fn u32s(d: &Device, n: usize) -> Buffer {
    d.alloc_from(
        &(0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect::<Vec<u32>>(),
    )
    .unwrap()
}

fn kernels() -> Vec<Kernel> {
    vec![
        Kernel {
            name: "saxpy 2^20",
            src: include_str!("../examples/saxpy.ptx"),
            kernel: "saxpy",
            grid: [4096, 1, 1],
            block: [256, 1, 1],
            shared: 0,
            args: |d| {
                let b = vec![f32s(d, 1 << 20), f32s(d, 1 << 20)];
                let a = vec![
                    KernelArg::U32(1 << 20),
                    KernelArg::F32(2.0),
                    (&b[0]).into(),
                    (&b[1]).into(),
                ];
                (a, b)
            },
        },
        Kernel {
            name: "block sum 2^20 (shared, bar.sync)",
            src: include_str!("../tests/kernels/reduce.nvrtc.ptx"),
            kernel: "block_sum_u32",
            grid: [4096, 1, 1],
            block: [256, 1, 1],
            shared: 0,
            args: |d| {
                let b = vec![u32s(d, 1 << 20), d.alloc_zeroed(4 * 4096).unwrap()];
                let a = vec![(&b[0]).into(), (&b[1]).into(), KernelArg::U32(1 << 20)];
                (a, b)
            },
        },
        Kernel {
            name: "tiled sgemm 128",
            src: include_str!("../tests/kernels/sgemm.nvrtc.ptx"),
            kernel: "sgemm_tiled",
            grid: [8, 8, 1],
            block: [16, 16, 1],
            shared: 0,
            args: |d| {
                let b = vec![
                    f32s(d, 128 * 128),
                    f32s(d, 128 * 128),
                    d.alloc_zeroed(4 * 128 * 128).unwrap(),
                ];
                let a = vec![
                    (&b[0]).into(),
                    (&b[1]).into(),
                    (&b[2]).into(),
                    KernelArg::I32(128),
                ];
                (a, b)
            },
        },
        Kernel {
            name: "block scan 2^18 (shfl)",
            src: include_str!("../tests/kernels/scan.nvrtc.ptx"),
            kernel: "block_scan",
            grid: [1024, 1, 1],
            block: [256, 1, 1],
            shared: 0,
            args: |d| {
                let b = vec![u32s(d, 1 << 18), d.alloc_zeroed(4 << 18).unwrap()];
                let a = vec![(&b[0]).into(), (&b[1]).into(), KernelArg::U32(1 << 18)];
                (a, b)
            },
        },
        Kernel {
            name: "n-body 1024",
            src: include_str!("../tests/kernels/nbody.nvrtc.ptx"),
            kernel: "nbody_acc",
            grid: [8, 1, 1],
            block: [128, 1, 1],
            shared: 0,
            args: |d| {
                let b = vec![f32s(d, 4 * 1024), d.alloc_zeroed(16 * 1024).unwrap()];
                let a = vec![
                    (&b[0]).into(),
                    (&b[1]).into(),
                    KernelArg::I32(1024),
                    KernelArg::F32(0.01),
                ];
                (a, b)
            },
        },
    ]
}

/// CPU time of the process so far (user and system, all threads).
fn cpu_time() -> Duration {
    // SAFETY: an all-zero `rusage` is a valid value, and getrusage only writes it.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid `rusage` to fill.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv =
        |t: libc::timeval| Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Best of `reps` launches (after one warm-up launch that also compiles the variant):
/// (wall-clock time, CPU time).
fn time(
    dev: &Device,
    m: &ptxjit::Module,
    k: &Kernel,
    opts: SanitizeOptions,
    reps: usize,
) -> (Duration, Duration) {
    let (args, bufs) = (k.args)(dev);
    let cfg = LaunchConfig::new(k.grid, k.block)
        .shared_bytes(k.shared)
        .backend(Backend::Jit)
        .sanitize(opts);
    let (mut wall, mut cpu) = (Duration::MAX, Duration::MAX);
    for i in 0..=reps {
        let (t0, c0) = (Instant::now(), cpu_time());
        dev.launch(m, k.kernel, &cfg, &args)
            .unwrap_or_else(|e| panic!("{}: {e}", k.name));
        if i > 0 {
            wall = wall.min(t0.elapsed());
            cpu = cpu.min(cpu_time().saturating_sub(c0));
        }
    }
    for b in bufs {
        dev.free(b).unwrap();
    }
    (wall, cpu)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 2 } else { 5 };
    let only = std::env::args().find_map(|a| a.strip_prefix("--only=").map(str::to_owned));
    let modes = [
        "memcheck",
        "initcheck",
        "memcheck,initcheck",
        "racecheck",
        "synccheck",
        "all",
    ];
    let one = Device::with_options(DeviceOptions {
        threads: 1,
        sanitize: None,
        jit_tier: JitTier::Optimized,
        ..Default::default()
    })
    .unwrap();
    let many = Device::with_options(DeviceOptions {
        sanitize: None,
        jit_tier: JitTier::Optimized,
        ..Default::default()
    })
    .unwrap();
    println!(
        "| kernel | off, 1 worker (CPU) | off, all cores (wall) | {} |",
        modes.join(" | ")
    );
    println!("|---|---|---|{}", "---|".repeat(modes.len()));
    for k in kernels() {
        if only.as_ref().is_some_and(|o| !k.name.contains(o.as_str())) {
            continue;
        }
        let m1 = one.load_ptx(k.src, k.name).unwrap();
        let mm = many.load_ptx(k.src, k.name).unwrap();
        let (base_wall, base) = time(&one, &m1, &k, SanitizeOptions::default(), reps);
        let (all_cores, _) = time(&many, &mm, &k, SanitizeOptions::default(), reps);
        let mut row = format!(
            "| {} | {:.2} ms | {:.2}x |",
            k.name,
            base.as_secs_f64() * 1e3,
            all_cores.as_secs_f64() / base_wall.as_secs_f64()
        );
        for mode in modes {
            let (_, t) = time(
                &one,
                &m1,
                &k,
                SanitizeOptions::parse(mode).unwrap(),
                reps.min(2),
            );
            row += &format!(" {:.1}x |", t.as_secs_f64() / base.as_secs_f64());
        }
        println!("{row}");
    }
}
