//! Load-time and launch costs (issue 7): `cargo bench --bench load` (`-- --quick` for
//! fewer repetitions).
//!
//! - JIT compile cost in ms per 1,000 PTX instructions (IR instructions, terminators
//!   included) on generated kernels: straight-line integer and float arithmetic, the same
//!   with a third of the instructions guarded, and the same after an early `@p exit`;
//!   and on the corpus of committed kernels (`tests/kernels/*.ptx`, `tests/ptx/*.ptx`).
//!   Parse + check is reported separately; "JIT" is building the CLIF plus Cranelift's
//!   compilation and finalization ([`ptxjit::jit::CompileStats`]).
//! - Empty-kernel launch overhead (1 CTA × 32 threads and 1 CTA × 1 thread) on the JIT
//!   and the interpreter, with the default time limit (watchdog armed) and without one:
//!   best and median of many launches.
//! - Peak memory (VmHWM from /proc/self/status) of a 1,024 × 256 launch of a small
//!   kernel, measured in a child process (this executable run again) so that nothing
//!   else this benchmark did counts.
//! - `cycle`: a test harness's whole step on fresh data (allocate and copy in two
//!   buffers, launch saxpy, copy the result back, free them), best and median.
//! - `live`: an empty launch while the device holds 0, 1,000 and 10,000 allocations
//!   (every launch's region table covers them), best and median.

use ptxjit::jit::JitTier;
use ptxjit::{Backend, Device, KernelArg, LaunchConfig, Module};
use std::time::{Duration, Instant};

/// A generated kernel of about `n` arithmetic instructions over 38 `.b32` and 38 `.f32`
/// registers; every third one guarded by `@%p1` if `guarded`; after an `@%p2 exit`
/// (taken by lanes 7..) if `early_exit`.
fn gen_kernel(n: usize, guarded: bool, early_exit: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry big(.param .u64 out, .param .u32 n)\n{\n\
         .reg .pred %p<3>;\n.reg .b32 %r<40>;\n.reg .f32 %f<40>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u32 %r0, [n];\nmov.u32 %r1, %tid.x;\n\
         setp.lt.u32 %p1, %r1, %r0;\n",
    );
    if early_exit {
        s.push_str("setp.ge.u32 %p2, %r1, 7;\n@%p2 exit;\n");
    }
    for i in 2..40 {
        let _ = writeln!(s, "add.s32 %r{i}, %r1, {i};\ncvt.rn.f32.u32 %f{i}, %r{i};");
    }
    for k in 0..n {
        let d = (k * 7 + 3) % 38 + 2;
        let a = (k * 5 + 1) % 38 + 2;
        let b = (k * 3 + 2) % 38 + 2;
        let c = (k * 11 + 5) % 38 + 2;
        if guarded && k % 3 == 0 {
            s.push_str("@%p1 ");
        }
        let _ = match k % 8 {
            0 => writeln!(s, "add.s32 %r{d}, %r{a}, %r{b};"),
            1 => writeln!(s, "mul.lo.s32 %r{d}, %r{a}, %r{b};"),
            2 => writeln!(s, "xor.b32 %r{d}, %r{a}, %r{b};"),
            3 => writeln!(s, "shl.b32 %r{d}, %r{a}, 3;"),
            4 => writeln!(s, "fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{c};"),
            5 => writeln!(s, "add.f32 %f{d}, %f{a}, %f{b};"),
            6 => writeln!(s, "mul.f32 %f{d}, %f{a}, %f{b};"),
            _ => writeln!(s, "min.s32 %r{d}, %r{a}, %r{b};"),
        };
    }
    for i in 3..40 {
        let _ = writeln!(s, "xor.b32 %r2, %r2, %r{i};\nadd.f32 %f2, %f2, %f{i};");
    }
    s.push_str(
        "cvt.rzi.u32.f32 %r3, %f2;\nxor.b32 %r2, %r2, %r3;\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
         st.global.u32 [%rd3], %r2;\nret;\n}\n",
    );
    s
}

/// Compile cost of one PTX text: (IR instructions, parse+check, JIT, stats).
struct Cost {
    insts: usize,
    check: Duration,
    jit: Duration,
    build: Duration,
    define: Duration,
    clif: usize,
}

/// CPU time of the calling thread (less disturbed than wall time when other processes
/// share the cores).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Compile cost in thread CPU time: parse + check alone, then a full load; "JIT" is the
/// difference, split into building and Cranelift in the proportions of the wall-clock
/// [`ptxjit::jit::CompileStats`].
fn compile_cost(dev: &Device, src: &str, file: &str, reps: usize) -> Option<Cost> {
    let mut best: Option<Cost> = None;
    for _ in 0..reps {
        let t = thread_cpu();
        dev.load_ptx_with(src, file, false).ok()?;
        let check = thread_cpu() - t;
        let t = thread_cpu();
        let m = dev.load_ptx(src, file).ok()?;
        let total = thread_cpu() - t;
        let st = m.compile_stats()?;
        let jit = total.saturating_sub(check);
        let wall = st.total().as_secs_f64().max(1e-9);
        let c = Cost {
            insts: st.ir_insts,
            check,
            jit,
            build: jit.mul_f64(st.build.as_secs_f64() / wall),
            define: jit.mul_f64(st.define.as_secs_f64() / wall),
            clif: st.clif_insts,
        };
        if best.as_ref().is_none_or(|b| c.jit < b.jit) {
            best = Some(c);
        }
    }
    best
}

fn ms_per_k(d: Duration, insts: usize) -> f64 {
    d.as_secs_f64() * 1e3 * 1000.0 / insts.max(1) as f64
}

fn cost_row(name: &str, c: &Cost) {
    println!(
        "  {name:<28} {:>7} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>7.1}",
        c.insts,
        ms_per_k(c.check, c.insts),
        ms_per_k(c.jit, c.insts),
        ms_per_k(c.build, c.insts),
        ms_per_k(c.define, c.insts),
        c.clif as f64 / c.insts.max(1) as f64,
    );
}

fn compile_table(tier: JitTier, quick: bool, sizes: &[usize]) {
    // Every kernel compiled at load: the load is the compile being measured.
    let dev = &Device::with_options(ptxjit::DeviceOptions {
        jit_tier: tier,
        jit_eager: true,
        ..Default::default()
    })
    .expect("device");
    let what = match tier {
        JitTier::Optimized => "optimized tier (background tier-up, or PTXJIT_JIT_TIER=optimized)",
        _ => "quick tier (what loading costs)",
    };
    println!("compile cost, ms per 1,000 PTX instructions (best of reps), {what}:");
    println!(
        "  {:<28} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "kernel", "insts", "check", "JIT", "build", "cranelift", "clif/i"
    );
    let reps = if quick { 1 } else { 3 };
    for &n in sizes {
        for (name, g, e) in [
            ("straight", false, false),
            ("guarded 1/3", true, false),
            ("early @p exit", false, true),
            ("early exit + guarded", true, true),
        ] {
            let src = gen_kernel(n, g, e);
            match compile_cost(dev, &src, "gen.ptx", reps) {
                Some(c) => cost_row(&format!("gen {n} {name}"), &c),
                None => println!("  gen {n} {name}: failed to load"),
            }
        }
    }
    // The corpus: every committed kernel that loads.
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files = Vec::new();
    for dir in ["tests/kernels", "tests/ptx"] {
        if let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "ptx") {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    let mut tot = Cost {
        insts: 0,
        check: Duration::ZERO,
        jit: Duration::ZERO,
        build: Duration::ZERO,
        define: Duration::ZERO,
        clif: 0,
    };
    let (mut loaded, mut failed) = (0, 0);
    let mut worst: Option<(f64, String, usize)> = None;
    for p in &files {
        let Ok(src) = std::fs::read_to_string(p) else {
            continue;
        };
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        match compile_cost(dev, &src, &name, reps) {
            Some(c) => {
                if std::env::var_os("PTXJIT_LOAD_VERBOSE").is_some() {
                    cost_row(&name, &c);
                }
                loaded += 1;
                let r = ms_per_k(c.jit, c.insts);
                if worst.as_ref().is_none_or(|w| r > w.0) && c.insts >= 50 {
                    worst = Some((r, name, c.insts));
                }
                tot.insts += c.insts;
                tot.check += c.check;
                tot.jit += c.jit;
                tot.build += c.build;
                tot.define += c.define;
                tot.clif += c.clif;
            }
            None => failed += 1,
        }
    }
    cost_row(&format!("corpus ({loaded} files)"), &tot);
    if std::env::var_os("PTXJIT_LOAD_PASSES").is_some() {
        // Cranelift's own pass timings (this thread, everything compiled so far).
        println!("{}", cranelift_codegen::timing::take_current());
    }
    if failed > 0 {
        println!("  ({failed} corpus files do not load on their own and are left out)");
    }
    if let Some((r, name, n)) = worst {
        println!("  slowest corpus file (>= 50 insts): {name}, {n} insts, {r:.2} ms/1k");
    }
}

const EMPTY: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
                     .visible .entry empty()\n{\nret;\n}\n";

fn launch_table(quick: bool) {
    let dev = Device::new().expect("device");
    let m = dev.load_ptx(EMPTY, "empty.ptx").expect("load");
    let reps = if quick { 2_000 } else { 20_000 };
    println!(
        "empty-kernel launch, us (best / median of {reps}; {} worker threads):",
        dev.options().threads
    );
    println!(
        "  {:<12} {:>10} {:>16} {:>16}",
        "backend", "block", "timeout 600 s", "no timeout"
    );
    for backend in [Backend::Jit, Backend::Interp] {
        for (grid, threads) in [(1u32, 32u32), (1, 1), (64, 32)] {
            let mut cells = Vec::new();
            for timeout in [Some(Duration::from_secs(600)), None] {
                let cfg = LaunchConfig::new(grid, threads)
                    .backend(backend)
                    .timeout(timeout);
                let (best, med) = launch_times(&dev, &m, &cfg, reps);
                cells.push(format!("{best:>6.2} / {med:>6.2}"));
            }
            println!(
                "  {:<12} {:>10} {:>16} {:>16}",
                format!("{backend:?}"),
                format!("{grid} x {threads}"),
                cells[0],
                cells[1]
            );
        }
    }
}

/// A test's whole step, as a harness runs one kernel on fresh data: allocate two
/// inputs (copied in; saxpy's `y` is also its output), launch saxpy over `n` floats,
/// copy the output back, free both buffers. Microseconds per step (best / median), JIT,
/// default workers.
fn cycle_table(quick: bool) {
    let dev = Device::new().expect("device");
    let m = dev
        .load_ptx(include_str!("../examples/saxpy.ptx"), "saxpy.ptx")
        .expect("load");
    let reps = if quick { 1_000 } else { 10_000 };
    println!(
        "alloc + copy in + launch + copy out + free, us (best / median of {reps}; {} worker \
         threads):",
        dev.options().threads
    );
    for n in [1024usize, 4096, 16384] {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let step = || {
            let bx = dev.alloc_from(&x).expect("alloc");
            let by = dev.alloc_from(&x).expect("alloc");
            let cfg = LaunchConfig::new((n as u32).div_ceil(256), 256);
            let args = [
                KernelArg::U32(n as u32),
                KernelArg::F32(2.0),
                KernelArg::from(&bx),
                KernelArg::from(&by),
            ];
            dev.launch(&m, "saxpy", &cfg, &args).expect("saxpy");
            let y: Vec<f32> = dev.read(&by).expect("read");
            assert_eq!(y[n - 1], 3.0 * (n - 1) as f32);
            dev.free(bx).expect("free");
            dev.free(by).expect("free");
        };
        for _ in 0..reps / 10 {
            step();
        }
        let mut t: Vec<f64> = (0..reps)
            .map(|_| {
                let s = Instant::now();
                step();
                s.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        t.sort_by(f64::total_cmp);
        println!(
            "  saxpy {:>6} floats ({:>3} KiB buffers) {:>8.2} / {:>8.2}",
            n,
            n * 4 / 1024,
            t[0],
            t[t.len() / 2]
        );
    }
}

/// An empty launch (1 x 32, JIT) while the device holds `live` allocations of 256
/// bytes (a harness's memory pool, a test suite's arrays kept alive): each launch's
/// region table covers them. Microseconds per launch (best / median).
fn live_table(quick: bool) {
    let dev = Device::new().expect("device");
    let m = dev.load_ptx(EMPTY, "empty.ptx").expect("load");
    let reps = if quick { 2_000 } else { 20_000 };
    println!("empty-kernel launch with live allocations, us (best / median of {reps}):");
    let mut held = Vec::new();
    for live in [0usize, 1_000, 10_000] {
        while held.len() < live {
            held.push(dev.alloc_zeroed(256).expect("alloc"));
        }
        let cfg = LaunchConfig::new(1, 32);
        let (best, med) = launch_times(&dev, &m, &cfg, reps);
        println!("  {live:>6} live allocations {best:>8.2} / {med:>8.2}");
    }
    for b in held {
        dev.free(b).expect("free");
    }
}

fn launch_times(dev: &Device, m: &Module, cfg: &LaunchConfig, reps: usize) -> (f64, f64) {
    for _ in 0..reps / 10 {
        dev.launch(m, "empty", cfg, &[]).expect("launch");
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            dev.launch(m, "empty", cfg, &[]).expect("launch");
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

const SMALL: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
.visible .entry small(.param .u64 out)\n{\n\
.reg .b32 %r<6>;\n.reg .b64 %rd<4>;\n\
ld.param.u64 %rd1, [out];\nmov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\n\
mov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\nmul.lo.s32 %r5, %r4, 3;\n\
mul.wide.u32 %rd2, %r4, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r5;\nret;\n}\n";

fn vm_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// In the child: one 1,024 × 256 launch; prints `VmHWM` before and after, in KiB.
fn rss_child(backend: Backend) {
    let dev = Device::new().expect("device");
    let m = dev.load_ptx(SMALL, "small.ptx").expect("load");
    let n = 1024 * 256;
    let out = dev.alloc_zeroed(n * 4).expect("alloc");
    let before = vm_kib("VmHWM:");
    let cfg = LaunchConfig::new(1024, 256).backend(backend);
    dev.launch(&m, "small", &cfg, &[KernelArg::from(&out)])
        .expect("launch");
    let after = vm_kib("VmHWM:");
    let v: Vec<u32> = dev.read(&out).expect("read");
    assert!(v.iter().enumerate().all(|(i, &x)| x == 3 * i as u32));
    println!("{before} {after}");
}

fn rss_table() {
    println!("peak RSS (VmHWM) of a 1,024 x 256 launch of a small kernel (1 MiB output):");
    let exe = std::env::current_exe().expect("exe");
    for backend in ["jit", "interp"] {
        let out = std::process::Command::new(&exe)
            .env("PTXJIT_LOAD_RSS_CHILD", backend)
            .output()
            .expect("child");
        let text = String::from_utf8_lossy(&out.stdout);
        let v: Vec<u64> = text
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if v.len() == 2 {
            println!(
                "  {backend:<8} before launch {:>7.1} MiB, peak {:>7.1} MiB (+{:.1} MiB)",
                v[0] as f64 / 1024.0,
                v[1] as f64 / 1024.0,
                (v[1] as f64 - v[0] as f64) / 1024.0
            );
        } else {
            println!(
                "  {backend}: child failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Run time of the generated code, to catch compile-speed changes that slow it down:
/// thread CPU time of launches on one worker thread (which then runs on the calling
/// thread), small L2-resident problems, best of many. Reported in ns per element.
fn runtime_table(tier: JitTier, quick: bool) {
    let dev = Device::with_options(ptxjit::DeviceOptions {
        threads: 1,
        jit_tier: tier,
        ..Default::default()
    })
    .expect("device");
    let reps = if quick { 5 } else { 15 };
    let root = env!("CARGO_MANIFEST_DIR");
    let load = |path: &str| {
        let src = std::fs::read_to_string(format!("{root}/{path}")).expect("read");
        dev.load_ptx(&src, path).expect("load")
    };
    let time = |f: &mut dyn FnMut()| {
        f();
        (0..reps)
            .map(|_| {
                let t = thread_cpu();
                f();
                thread_cpu() - t
            })
            .min()
            .unwrap_or_default()
    };
    println!(
        "run time of generated code ({tier:?} tier), 1 worker thread, CPU ns per element \
         (best of {reps}):"
    );
    // saxpy, 2^16 elements.
    let m = load("examples/saxpy.ptx");
    let n = 1usize << 16;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let bx = dev.alloc_from(&x).expect("alloc");
    let by = dev.alloc_from(&x).expect("alloc");
    let cfg = LaunchConfig::new((n as u32).div_ceil(256), 256);
    let args = [
        KernelArg::U32(n as u32),
        KernelArg::F32(2.0),
        KernelArg::from(&bx),
        KernelArg::from(&by),
    ];
    let t = time(&mut || {
        for _ in 0..10 {
            dev.launch(&m, "saxpy", &cfg, &args).expect("saxpy");
        }
    });
    println!(
        "  saxpy 2^16 x 10        {:>8.3}",
        t.as_secs_f64() * 1e9 / (10 * n) as f64
    );
    // mandelbrot, 128 x 128, maxit 256.
    let m = load("tests/kernels/mandelbrot.nvrtc.ptx");
    let (w, h) = (128u32, 128u32);
    let out = dev.alloc_zeroed((w * h) as usize * 4).expect("alloc");
    let cfg = LaunchConfig::new((w / 32, h / 4), (32, 4));
    let args = [
        KernelArg::from(&out),
        KernelArg::U32(w),
        KernelArg::U32(h),
        KernelArg::U32(256),
    ];
    let t = time(&mut || dev.launch(&m, "mandel", &cfg, &args).expect("mandel"));
    println!(
        "  mandelbrot 128x128     {:>8.3}",
        t.as_secs_f64() * 1e9 / (w * h) as f64
    );
    // Block reduction with barriers, 2^16 values.
    let m = load("tests/kernels/reduce.nvrtc.ptx");
    let n = 1usize << 16;
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let bin = dev.alloc_from(&input).expect("alloc");
    let bout = dev.alloc_zeroed(n / 256 * 4).expect("alloc");
    let cfg = LaunchConfig::new((n / 256) as u32, 256);
    let args = [
        KernelArg::from(&bin),
        KernelArg::from(&bout),
        KernelArg::U32(n as u32),
    ];
    let t = time(&mut || {
        dev.launch(&m, "block_sum_u32", &cfg, &args)
            .expect("reduce")
    });
    println!(
        "  block_sum 2^16         {:>8.3}",
        t.as_secs_f64() * 1e9 / n as f64
    );
}

fn main() {
    if let Ok(b) = std::env::var("PTXJIT_LOAD_RSS_CHILD") {
        rss_child(if b == "interp" {
            Backend::Interp
        } else {
            Backend::Jit
        });
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(|s| s.as_str())
        .collect();
    let want = |k: &str| only.is_empty() || only.contains(&k);
    let sizes: Vec<usize> = std::env::var("PTXJIT_LOAD_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![500, 2000]);
    if want("compile") {
        compile_table(JitTier::Quick, quick, &sizes);
        compile_table(JitTier::Optimized, quick, &sizes);
    }
    if want("runtime") {
        runtime_table(JitTier::Quick, quick);
        runtime_table(JitTier::Optimized, quick);
    }
    if want("launch") {
        launch_table(quick);
    }
    if want("rss") {
        rss_table();
    }
    if want("cycle") {
        cycle_table(quick);
    }
    if want("live") {
        live_table(quick);
    }
}
