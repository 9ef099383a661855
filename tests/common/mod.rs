//! Shared helpers for the oracle tests: loading the committed PTX of `tests/kernels/`,
//! running a test on both backends, deterministic inputs, bit-exact comparisons and the
//! PTX rounding rules that plain Rust does not have (round-toward-zero conversions,
//! PTX `min`/`max`).
//!
//! Every test compares ptxjit's output with a reference computed here in plain Rust.
//! Floats are compared by their bits. The only relaxation is for results that the PTX
//! ISA leaves as "an unspecified NaN" (NaN payloads of arithmetic, abs/neg, cvt between
//! float types): there any NaN matches a NaN expectation, and only where a helper says
//! so (`assert_f32_bits_nan_any`).
#![allow(dead_code)]

use std::fmt::Debug;

#[allow(unused_imports)]
pub use ptxjit::{Backend, Buffer, Device, Error, KernelArg, LaunchConfig};

/// Generates `#[test] fn jit()` and `#[test] fn interp()` in a module named after each
/// function, which takes the backend: `both_backends!(vecadd)` gives the tests
/// `vecadd::jit` and `vecadd::interp`.
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn jit() {
                super::$name(ptxjit::Backend::Jit)
            }
            #[test]
            fn interp() {
                super::$name(ptxjit::Backend::Interp)
            }
        }
    )*};
}

/// Generates `#[test] fn interp()`, `fn jit_quick()` and `fn jit_optimized()`, which call
/// `$run(&device, backend, what)` on the interpreter and on devices whose JIT compiles
/// only the quick or only the optimized tier (some lowerings differ between them);
/// `what` is `$name` and the backend or tier, for messages.
#[allow(unused_macros)]
macro_rules! interp_and_tiers {
    ($run:ident, $name:literal) => {
        #[test]
        fn interp() {
            $run(
                &device(),
                ptxjit::Backend::Interp,
                concat!($name, " interp"),
            );
        }
        #[test]
        fn jit_quick() {
            $run(
                &device_tier(ptxjit::jit::JitTier::Quick),
                ptxjit::Backend::Jit,
                concat!($name, " quick"),
            );
        }
        #[test]
        fn jit_optimized() {
            $run(
                &device_tier(ptxjit::jit::JitTier::Optimized),
                ptxjit::Backend::Jit,
                concat!($name, " optimized"),
            );
        }
    };
}

/// The compilers whose output is committed for every `tests/kernels/<stem>.cu`.
pub const COMPILERS: [&str; 2] = ["clang", "nvrtc"];

/// Text of `tests/kernels/<file>`.
pub fn load(file: &str) -> String {
    let path = format!("{}/tests/kernels/{}", env!("CARGO_MANIFEST_DIR"), file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Text of a file relative to the crate root (e.g. `examples/saxpy.ptx`).
pub fn load_root(path: &str) -> String {
    let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The compiled variants of a CUDA kernel source: `<stem>.clang.ptx`, `<stem>.nvrtc.ptx`.
pub fn variants(stem: &str) -> Vec<String> {
    COMPILERS
        .iter()
        .map(|c| format!("{stem}.{c}.ptx"))
        .collect()
}

pub fn device() -> Device {
    Device::new().unwrap_or_else(|e| panic!("Device::new: {e}"))
}

/// A device with `threads` worker threads.
#[allow(dead_code)]
pub fn device_threads(threads: usize) -> Device {
    Device::with_options(ptxjit::DeviceOptions {
        threads,
        ..ptxjit::DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("Device::with_options: {e}"))
}

/// A device whose JIT compiles `tier` only (`Quick`: the first launch's code;
/// `Optimized`: the code a hot kernel tiers up to; some lowerings differ between them).
#[allow(dead_code)]
pub fn device_tier(tier: ptxjit::jit::JitTier) -> Device {
    Device::with_options(ptxjit::DeviceOptions {
        jit_tier: tier,
        ..ptxjit::DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("Device::with_options: {e}"))
}

/// The interpreter and both JIT tiers, as (backend, tier) pairs (the interpreter's tier
/// is unused).
#[allow(dead_code)]
pub fn backends_and_tiers() -> [(Backend, ptxjit::jit::JitTier); 3] {
    use ptxjit::jit::JitTier;
    [
        (Backend::Interp, JitTier::Optimized),
        (Backend::Jit, JitTier::Quick),
        (Backend::Jit, JitTier::Optimized),
    ]
}

/// For each JIT tier, one device (both backends then see the same addresses), module
/// `file` loaded for the interpreter and for the JIT: the fault reports `faults` gets on
/// each must be equal, report for report.
#[allow(dead_code)]
pub fn faults_alike(
    file: &str,
    mut faults: impl FnMut(&Device, &ptxjit::Module, Backend) -> Vec<String>,
) {
    for tier in [ptxjit::jit::JitTier::Quick, ptxjit::jit::JitTier::Optimized] {
        let dev = device_tier(tier);
        let [interp, jit] = [Backend::Interp, Backend::Jit].map(|backend| {
            let m = module_at(&dev, file, backend);
            faults(&dev, &m, backend)
        });
        assert_eq!(interp, jit, "{tier:?}: interpreter and JIT differ");
    }
}

/// A device with `threads` worker threads whose JIT compiles `tier` only.
#[allow(dead_code)]
pub fn device_threads_tier(threads: usize, tier: ptxjit::jit::JitTier) -> Device {
    Device::with_options(ptxjit::DeviceOptions {
        threads,
        jit_tier: tier,
        ..ptxjit::DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("Device::with_options: {e}"))
}

/// A device with one worker thread (the launching thread runs every CTA, so per-thread
/// helper-call counts and the first fault are its own) whose JIT compiles `tier` only.
#[allow(dead_code)]
pub fn device_one_worker(tier: ptxjit::jit::JitTier) -> Device {
    device_threads_tier(1, tier)
}

/// How many times this thread called the JIT's checked access helper while `f` ran.
#[allow(dead_code)]
pub fn access_calls(f: impl FnOnce()) -> u64 {
    let before = ptxjit::jit::helper_calls().access;
    f();
    ptxjit::jit::helper_calls().access - before
}

/// `n` values in [-15, 16) with 1/64 steps, varied by `seed`: exact in f32, and the
/// products and sums of a few of them stay exact and finite.
#[allow(dead_code)]
pub fn sixty_fourths(n: usize, seed: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|i| ((i ^ seed).wrapping_mul(2654435761) >> 21) as f32 / 64.0 - 15.0)
        .collect()
}

/// The bit patterns of `v`.
#[allow(dead_code)]
pub fn f32_bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The JIT tiers a kernel test runs under: both for the JIT, one for the interpreter.
#[allow(dead_code)]
pub fn tiers(backend: Backend) -> &'static [ptxjit::jit::JitTier] {
    match backend {
        Backend::Jit => &[ptxjit::jit::JitTier::Quick, ptxjit::jit::JitTier::Optimized],
        Backend::Interp => &[ptxjit::jit::JitTier::Quick],
    }
}

/// Loads `tests/kernels/<file>` for `backend`, panicking with the error: parse + check +
/// JIT compile for the JIT; parse + check only for the interpreter (`load_ptx_with(..,
/// false)`), so that each backend is tested on its own.
pub fn module(dev: &Device, file: &str, backend: Backend) -> ptxjit::Module {
    let r = match backend {
        Backend::Jit => dev.load_ptx(&load(file), file),
        Backend::Interp => dev.load_ptx_with(&load(file), file, false),
    };
    r.unwrap_or_else(|e| panic!("load_ptx({file}) for {backend:?}: {e}"))
}

/// Loads `path` (relative to the crate root, e.g. `tests/ptx/warp.ptx`) for `backend`,
/// as [`module`] does for `tests/kernels/`.
pub fn module_at(dev: &Device, path: &str, backend: Backend) -> ptxjit::Module {
    let src = load_root(path);
    let r = match backend {
        Backend::Jit => dev.load_ptx(&src, path),
        Backend::Interp => dev.load_ptx_with(&src, path, false),
    };
    r.unwrap_or_else(|e| panic!("load_ptx({path}) for {backend:?}: {e}"))
}

/// A 1-D, 2-D or 3-D launch configuration on `backend`.
pub fn cfg(grid: [u32; 3], block: [u32; 3], backend: Backend) -> LaunchConfig {
    LaunchConfig::new(grid, block).backend(backend)
}

/// Launches and panics with the error (and where) if the launch fails.
pub fn launch(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    what: &str,
) {
    if let Err(e) = dev.launch(m, kernel, cfg, args) {
        panic!("{what}: launch of {kernel} failed: {e}");
    }
}

pub fn zeroed(dev: &Device, bytes: usize) -> Buffer {
    dev.alloc_zeroed(bytes)
        .unwrap_or_else(|e| panic!("alloc_zeroed({bytes}): {e}"))
}

pub fn arg(b: &Buffer) -> KernelArg {
    KernelArg::from(b)
}

/// `ceil(n / d)`.
pub fn blocks(n: usize, d: u32) -> u32 {
    n.div_ceil(d as usize) as u32
}

// ---------------------------------------------------------------------------------------
// Deterministic inputs.

/// SplitMix64: a small deterministic generator, so that failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.u64() % (hi - lo) as u64) as u32
    }
    /// A "nice" finite float in about [-1000, 1000] with few significant bits, plus
    /// occasional values of very different magnitudes (so sums round).
    pub fn f32(&mut self) -> f32 {
        let r = self.u32();
        let mant = (r & 0xFFFF) as f32 / 64.0 - 512.0;
        match r >> 29 {
            0 => mant * 1.0e-3,
            1 => mant * 1.0e3,
            2 => f32::from_bits(0x3F80_0000 | (self.u32() >> 9)) - 1.5,
            _ => mant,
        }
    }
    pub fn f64(&mut self) -> f64 {
        let r = self.u64();
        let mant = (r & 0xFF_FFFF) as f64 / 4096.0 - 2048.0;
        match r >> 61 {
            0 => mant * 1.0e-7,
            1 => mant * 1.0e9,
            2 => f64::from_bits(0x3FF0_0000_0000_0000 | (self.u64() >> 12)) - 1.5,
            _ => mant,
        }
    }
    pub fn vec_u32(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.u32()).collect()
    }
    pub fn vec_f32(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
    pub fn vec_f64(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f64()).collect()
    }
}

// ---------------------------------------------------------------------------------------
// Comparisons. Each reports the first mismatches with their index and both values.

const SHOW: usize = 12;

pub fn assert_slice_eq<T: PartialEq + Debug>(got: &[T], want: &[T], what: &str) {
    if let Some(msg) = diff_slice(got, want, what) {
        panic!("{msg}");
    }
}

/// `None` if equal, else a report of the first mismatches.
pub fn diff_slice<T: PartialEq + Debug>(got: &[T], want: &[T], what: &str) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    if bad.is_empty() {
        return None;
    }
    let lines: Vec<String> = bad
        .iter()
        .take(SHOW)
        .map(|&i| format!("  [{i}] got {:?}, want {:?}", got[i], want[i]))
        .collect();
    Some(format!(
        "{what}: {} of {} elements differ:\n{}",
        bad.len(),
        got.len(),
        lines.join("\n")
    ))
}

/// Bit-exact f32 comparison (NaN payloads included, -0.0 != +0.0).
pub fn assert_f32_bits(got: &[f32], want: &[f32], what: &str) {
    if let Some(msg) = diff_f32(got, want, what, false) {
        panic!("{msg}");
    }
}

/// Bit-exact f32 comparison, except that a NaN expectation accepts any NaN: for results
/// whose NaN the PTX ISA leaves unspecified.
pub fn assert_f32_bits_nan_any(got: &[f32], want: &[f32], what: &str) {
    if let Some(msg) = diff_f32(got, want, what, true) {
        panic!("{msg}");
    }
}

pub fn diff_f32(got: &[f32], want: &[f32], what: &str, nan_any: bool) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    let same = |g: f32, w: f32| g.to_bits() == w.to_bits() || (nan_any && g.is_nan() && w.is_nan());
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !same(got[i], want[i])).collect();
    if bad.is_empty() {
        return None;
    }
    let lines: Vec<String> = bad
        .iter()
        .take(SHOW)
        .map(|&i| {
            format!(
                "  [{i}] got {:?} ({:#010x}), want {:?} ({:#010x})",
                got[i],
                got[i].to_bits(),
                want[i],
                want[i].to_bits()
            )
        })
        .collect();
    Some(format!(
        "{what}: {} of {} f32 elements differ:\n{}",
        bad.len(),
        got.len(),
        lines.join("\n")
    ))
}

pub fn assert_f64_bits(got: &[f64], want: &[f64], what: &str) {
    if let Some(msg) = diff_f64(got, want, what, false) {
        panic!("{msg}");
    }
}

pub fn assert_f64_bits_nan_any(got: &[f64], want: &[f64], what: &str) {
    if let Some(msg) = diff_f64(got, want, what, true) {
        panic!("{msg}");
    }
}

pub fn diff_f64(got: &[f64], want: &[f64], what: &str, nan_any: bool) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    let same = |g: f64, w: f64| g.to_bits() == w.to_bits() || (nan_any && g.is_nan() && w.is_nan());
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !same(got[i], want[i])).collect();
    if bad.is_empty() {
        return None;
    }
    let lines: Vec<String> = bad
        .iter()
        .take(SHOW)
        .map(|&i| {
            format!(
                "  [{i}] got {:?} ({:#018x}), want {:?} ({:#018x})",
                got[i],
                got[i].to_bits(),
                want[i],
                want[i].to_bits()
            )
        })
        .collect();
    Some(format!(
        "{what}: {} of {} f64 elements differ:\n{}",
        bad.len(),
        got.len(),
        lines.join("\n")
    ))
}

/// Collects mismatch reports and panics once with all of them, so that one run shows
/// every failing operation of a kernel.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    pub fn add(&mut self, report: Option<String>) {
        self.0.extend(report);
    }
    pub fn finish(self, what: &str) {
        if !self.0.is_empty() {
            panic!(
                "{what}: {} failing checks:\n{}",
                self.0.len(),
                self.0.join("\n")
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// PTX semantics that Rust's operators do not spell directly.

/// PTX `min`/`max` on floats (no `.NaN`): a NaN operand yields the other operand, two NaNs
/// a NaN, and -0.0 < +0.0. `$cmp` picks `a` over `b`; `$zero_a` says whether `a` wins
/// between two zeros.
macro_rules! ptx_float_minmax {
    ($(#[$doc:meta] $name:ident: $t:ty, $cmp:tt, $zero_a:ident;)*) => {$(
        #[$doc]
        pub fn $name(a: $t, b: $t) -> $t {
            match (a.is_nan(), b.is_nan()) {
                (true, true) => <$t>::NAN,
                (true, false) => b,
                (false, true) => a,
                _ if a == 0.0 && b == 0.0 => {
                    if a.$zero_a() {
                        a
                    } else {
                        b
                    }
                }
                _ => {
                    if a $cmp b {
                        a
                    } else {
                        b
                    }
                }
            }
        }
    )*};
}

ptx_float_minmax! {
    /// PTX `min.f32`.
    ptx_min_f32: f32, <, is_sign_negative;
    /// PTX `max.f32` (+0.0 > -0.0).
    ptx_max_f32: f32, >, is_sign_positive;
    /// PTX `min.f64`.
    ptx_min_f64: f64, <, is_sign_negative;
    /// PTX `max.f64`.
    ptx_max_f64: f64, >, is_sign_positive;
}

/// `cvt.rz.f32.f64`: f64 to f32 rounding toward zero. Rust's `as f32` rounds to
/// nearest-even; when that result is farther from zero than `v` (it rounded up in
/// magnitude), step one ulp back toward zero. Toward zero never overflows: a finite `v`
/// beyond f32::MAX gives +-f32::MAX.
pub fn f32_from_f64_rz(v: f64) -> f32 {
    if v.is_nan() {
        return f32::NAN;
    }
    let r = v as f32;
    if r.is_infinite() && v.is_finite() {
        return f32::MAX.copysign(v as f32);
    }
    if (r as f64).abs() > v.abs() {
        // r != 0 here; decrementing the bits of a nonzero float moves it one ulp toward
        // zero for either sign (and from the smallest subnormal to a same-signed zero).
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// `cvt.rz.f32.s32`: every i32 is exact in f64, so this is `f32_from_f64_rz`.
pub fn f32_from_i32_rz(i: i32) -> f32 {
    f32_from_f64_rz(i as f64)
}

// ---------------------------------------------------------------------------------------
// Fault checks.

/// 1-based line of the first line containing `needle` after the line that declares
/// `.entry <kernel>(` in `ptx`.
pub fn line_of(ptx: &str, kernel: &str, needle: &str) -> u32 {
    let decl = format!(".entry {kernel}(");
    let mut seen = false;
    for (i, line) in ptx.lines().enumerate() {
        if !seen {
            seen = line.contains(&decl);
            continue;
        }
        if line.contains(needle) {
            return i as u32 + 1;
        }
    }
    panic!("no `{needle}` after `{decl}`");
}

/// The decimal integers in `s`, in order: maximal runs of ASCII alphanumerics and `_`
/// that are all digits (so `u32` in an opcode or `0x1f` are not integers).
pub fn integers_in(s: &str) -> Vec<u64> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// Asserts that `seq` occurs in `hay` as consecutive elements.
pub fn contains_run(hay: &[u64], seq: &[u64]) -> bool {
    hay.windows(seq.len()).any(|w| w == seq)
}

/// Checks the Display of a fault: it must name the kernel, the file, the instruction and
/// its line, the block and thread coordinates (as three consecutive numbers each,
/// whatever the punctuation), and the address (hex or decimal).
#[allow(clippy::too_many_arguments)]
pub fn assert_fault_message(
    msg: &str,
    kernel: &str,
    file: &str,
    inst: &str,
    line: u32,
    block: [u32; 3],
    thread: [u32; 3],
    addr: u64,
) {
    assert!(
        msg.contains(kernel),
        "fault message does not name the kernel `{kernel}`: {msg}"
    );
    assert!(
        msg.contains(file),
        "fault message does not name the file `{file}`: {msg}"
    );
    assert!(
        msg.contains(inst),
        "fault message does not name the instruction `{inst}`: {msg}"
    );
    let lower = msg.to_lowercase();
    assert!(
        lower.contains("block"),
        "fault message does not say `block`: {msg}"
    );
    assert!(
        lower.contains("thread"),
        "fault message does not say `thread`: {msg}"
    );
    let ints = integers_in(msg);
    assert!(
        ints.contains(&(line as u64)),
        "fault message does not give line {line}: {msg}"
    );
    let b: Vec<u64> = block.iter().map(|&v| v as u64).collect();
    let t: Vec<u64> = thread.iter().map(|&v| v as u64).collect();
    assert!(
        contains_run(&ints, &b),
        "fault message does not give block {block:?}: {msg}"
    );
    assert!(
        contains_run(&ints, &t),
        "fault message does not give thread {thread:?}: {msg}"
    );
    let hex = format!("{addr:x}");
    assert!(
        lower.contains(&hex) || ints.contains(&addr),
        "fault message does not give the address {addr:#x}: {msg}"
    );
}

// ---------------------------------------------------------------------------------------
// Mutation-differential findings (tests/frontend_mutations_seed*.rs): one-thread kernels
// `k(.param .u64 p)` made of a test file's `head` (declarations, `%rd1` = `p`) and a body.

/// `body` in the kernel `head` opens, closed with `ret;`.
pub fn finding_module(head: &str, body: &str) -> String {
    format!("{head}{body}\n\tret;\n}}\n")
}

/// `body` in `head`'s kernel must fail to load with `m.ptx:<want>`.
pub fn finding_rejects(head: &str, body: &str, want: &str) {
    match ptxjit::check::parse_and_check(&finding_module(head, body), "m.ptx") {
        Ok(_) => panic!("'{body}' must be rejected"),
        Err(e) => assert_eq!(e.to_string(), format!("m.ptx:{want}"), "{body}"),
    }
}

/// Runs `body` in `head`'s kernel with one thread on both backends with `init` at `p`;
/// the backends must agree; returns the words at `p` afterwards.
pub fn finding_run_both<T: ptxjit::DeviceCopy + PartialEq + Debug>(
    head: &str,
    body: &str,
    init: &[T],
) -> Vec<T> {
    let src = finding_module(head, body);
    let mut got = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = dev
            .load_ptx_with(&src, "m.ptx", backend == Backend::Jit)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
        let buf = dev.alloc_from(init).expect("alloc");
        launch(
            &dev,
            &m,
            "k",
            &cfg([1, 1, 1], [1, 1, 1], backend),
            &[arg(&buf)],
            "k",
        );
        got.push(dev.read::<T>(&buf).expect("read"));
    }
    assert_eq!(got[0], got[1], "interpreter vs JIT");
    got.swap_remove(0)
}

/// Launches `kernel` of the PTX file `path` (the serial-loop tests over two buffers)
/// with arguments `a, b, a.len(), out, extra...` over `threads` threads in blocks of
/// `block`; the launch's result and `out`, one u32 per thread.
#[allow(clippy::result_large_err)]
pub fn run_two_bufs(
    (path, kernel): (&str, &str),
    backend: Backend,
    (a, b): (&[u32], &[u32]),
    (threads, block): (u32, u32),
    extra: &[u32],
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let dev = device();
    let m = module_at(&dev, path, backend);
    let ba = dev.alloc_from(a).unwrap();
    let bb = dev.alloc_from(b).unwrap();
    let out = zeroed(&dev, threads as usize * 4);
    let mut args = vec![
        arg(&ba),
        arg(&bb),
        KernelArg::U32(a.len() as u32),
        arg(&out),
    ];
    args.extend(extra.iter().map(|&x| KernelArg::U32(x)));
    let r = dev.launch(
        &m,
        kernel,
        &cfg([threads.div_ceil(block), 1, 1], [block, 1, 1], backend),
        &args,
    );
    (r, dev.read::<u32>(&out).unwrap())
}

/// The serial-loop tests over two buffers without faults: for each `(threads, block,
/// steps, n)` two random buffers of `n` words from `seed`, [`run_two_bufs`] of `kernel`
/// with extra arguments `steps` then `clean` (no thread faults), and every thread's
/// output against `model(a, b, thread, steps)`.
pub fn two_bufs_against_model(
    (path, kernel): (&str, &str),
    backend: Backend,
    seed: u64,
    cases: &[(u32, u32, u32, usize)],
    clean: &[u32],
    model: impl Fn(&[u32], &[u32], u32, u32) -> u32,
) {
    let mut rng = Rng::new(seed);
    for &(threads, block, steps, n) in cases {
        let a = rng.vec_u32(n);
        let b = rng.vec_u32(n);
        let extra: Vec<u32> = std::iter::once(steps)
            .chain(clean.iter().copied())
            .collect();
        let (r, got) = run_two_bufs((path, kernel), backend, (&a, &b), (threads, block), &extra);
        r.unwrap_or_else(|e| panic!("{kernel} {backend:?}: {e}"));
        let want: Vec<u32> = (0..threads).map(|t| model(&a, &b, t, steps)).collect();
        assert_slice_eq(&got, &want, &format!("{kernel} {threads} {backend:?}"));
    }
}

/// Asserts that `r` (a backend's launch) and `ri` (the interpreter's) are faults of
/// thread `[t, 0, 0]` at the same line, column, instruction, block and kind.
#[allow(clippy::result_large_err)]
pub fn assert_same_fault(
    r: Result<(), ptxjit::Error>,
    ri: Result<(), ptxjit::Error>,
    t: u32,
    what: &str,
) {
    match (r, ri) {
        (Err(ptxjit::Error::Fault(f)), Err(ptxjit::Error::Fault(fi))) => {
            assert_eq!(f.thread, [t, 0, 0], "thread {t}: {f}");
            let key =
                |f: &ptxjit::Fault| (f.line, f.col, f.inst.clone(), f.block, f.thread, f.kind);
            assert_eq!(key(&f), key(&fi), "thread {t}: {f} / {fi}");
        }
        (r, ri) => panic!("thread {t} {what}: expected faults, got {r:?} / {ri:?}"),
    }
}

/// One step of the serial-loop tests' little bytecode (tests/ptx/serial_global.ptx,
/// serial_indexed.ptx): word `w` updates the accumulator or the index `x`, then `x`
/// advances by 7.
pub fn serial_step(w: u32, acc: &mut u32, x: &mut u32) {
    match w & 3 {
        0 => *acc = acc.wrapping_mul(31).wrapping_add(w),
        1 => *acc ^= w >> 3,
        2 => *acc = acc.wrapping_add(w << 1),
        _ => *x = x.wrapping_mul(1103515245).wrapping_add(12345),
    }
    *x = x.wrapping_add(7);
}
