//! Fuzzing users' kernels (cargo feature `fuzz`): describe a kernel's inputs, get a
//! [`Harness`] that maps fuzzer bytes to a launch, runs it with a time limit and turns
//! every finding into a panic carrying the located report, so libFuzzer (cargo-fuzz)
//! keeps the input as a crash.
//!
//! ```no_run
//! use ptxjit::fuzz::{Harness, Len};
//! let ptx = include_str!("../../examples/fuzz-kernel/records.ptx");
//! let h = Harness::builder(ptx, "records.ptx", "parse_records")
//!     .block(32, 32)
//!     .input_buffer::<u8>(Len::Rest { max: 4096 })   // the bytes to parse
//!     .len_of::<u32>(0)                              // their count
//!     .output::<u32>(Len::Fixed(64))                 // the parsed values
//!     .coverage(true)
//!     .build()
//!     .expect("harness");
//! // In `fuzz_target!(|data: &[u8]| h.fuzz(data));`
//! h.fuzz(b"\x03abc");
//! ```
//!
//! Findings ([`FindingKind`]): a memory fault, a failed device `assert`, a deadlock at a
//! barrier, a launch past its time limit, any other error the kernel stops with, an
//! oracle mismatch (an optional closure comparing the outputs with a Rust model), and
//! invalid launches from an input spec the kernel rejects. The launch options are the
//! runtime's [`LaunchConfig`] ([`Builder::launch`]): backend, `check_uniform`, and every
//! option the runtime adds (the sanitizers pass through unchanged; their findings become
//! `Kernel` findings with their reports).
//!
//! The device, the module and its compiled code live as long as the harness; each input
//! allocates its buffers exactly and frees them, on a device with byte-exact bounds
//! (`DeviceOptions::exact_bounds`: an access one byte past a buffer faults). With [`Builder::coverage`], the module is loaded with kernel coverage counters
//! (`crate::CoverageMap`: every block of the kernel and its callees, full and partial
//! warp) and, when libFuzzer is linked into the process, they are registered with
//! `__sanitizer_cov_8bit_counters_init` (see `libfuzzer`).
//!
//! Without libFuzzer, [`Fuzzer`] is a small coverage-guided mutation loop over the same
//! harness (the `ptxjit fuzz` command), and [`text`] parses input specs written as text.

pub mod libfuzzer;
pub mod mutate;
mod spec;
pub mod text;

pub use mutate::{Fuzzer, LoopOptions, LoopStats};
pub use spec::{Elem, Fill, FuzzElem, Input, Launch, Len, Value};
pub use text::{parse_dims, parse_input};

use crate::{Buffer, CoverageMap, Device, DeviceOptions, Error, KernelArg, LaunchConfig, Module};
use std::time::Duration;

/// The harness's default time limit per input.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(1);

/// An oracle: sees the launch and its outputs, returns `Err(why)` on a mismatch.
pub type Oracle = Box<dyn Fn(&Outcome) -> Result<(), String> + Send + Sync>;

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// An out-of-bounds, misaligned or read-only access, or a bad branch index.
    Fault,
    /// A device-side `assert` failed.
    Assert,
    /// The warps of a CTA wait at barriers that can never complete.
    Deadlock,
    /// The launch ran past the harness's time limit.
    Timeout,
    /// The oracle rejected the outputs.
    Oracle,
    /// The runtime rejected the launch (the input spec allows dimensions or arguments
    /// the kernel does not accept: fix the spec).
    InvalidLaunch,
    /// Any other error the kernel or the runtime stopped with (a sanitizer finding,
    /// a non-uniform `.uni` branch under `check_uniform`, a bad call target, ...).
    Kernel,
}

/// A finding: its kind, the located report and the launch that produced it.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: FindingKind,
    /// The runtime's report (kernel, file:line:col, instruction, block and thread, and
    /// the address for faults), or the oracle's message.
    pub report: String,
    /// The decoded launch (dimensions, scalars, buffer lengths).
    pub launch: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ptxjit fuzz: {:?}: {}\n  launch: {}",
            self.kind, self.report, self.launch
        )
    }
}

impl std::error::Error for Finding {}

/// A finished launch for the oracle: the inputs as decoded and every buffer after it.
pub struct Outcome<'a> {
    pub launch: &'a Launch,
    /// Each input's buffer contents after the launch (empty for scalars).
    after: Vec<Vec<u8>>,
}

fn elems<T: FuzzElem>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / std::mem::size_of::<T>();
    let mut out = vec![T::default(); n];
    // SAFETY: FuzzElem types are plain data (DeviceCopy) and `out` holds n elements.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            out.as_mut_ptr() as *mut u8,
            n * std::mem::size_of::<T>(),
        )
    };
    out
}

impl Outcome<'_> {
    /// Input `i`'s buffer before the launch, as elements of `T`.
    pub fn input<T: FuzzElem>(&self, i: usize) -> Vec<T> {
        match self.launch.values.get(i) {
            Some(Value::Buffer { bytes, .. }) => elems(bytes),
            _ => Vec::new(),
        }
    }
    /// Input `i`'s buffer after the launch, as elements of `T`.
    pub fn output<T: FuzzElem>(&self, i: usize) -> Vec<T> {
        self.after.get(i).map(|b| elems(b)).unwrap_or_default()
    }
    /// Scalar input `i` (its raw bits, zero-extended; `None` for a buffer).
    pub fn scalar(&self, i: usize) -> Option<u64> {
        match self.launch.values.get(i) {
            Some(Value::Scalar(a)) => {
                let mut b = [0u8; 8];
                let v = a.to_bytes();
                let n = v.len().min(8);
                b[..n].copy_from_slice(&v[..n]);
                Some(u64::from_le_bytes(b))
            }
            _ => None,
        }
    }
}

/// Builds a [`Harness`] (see [`Harness::builder`]).
pub struct Builder {
    src: String,
    file: String,
    kernel: String,
    device: Option<Device>,
    cfg: LaunchConfig,
    grid: [(u32, u32); 3],
    block: [(u32, u32); 3],
    inputs: Vec<Input>,
    oracle: Option<Oracle>,
    coverage: bool,
}

impl Builder {
    /// Grid x from `lo..=hi` (y and z: [`Builder::grid3`]). Default 1.
    pub fn grid(mut self, lo: u32, hi: u32) -> Self {
        self.grid[0] = (lo, hi);
        self
    }
    /// Block x from `lo..=hi` (y and z: [`Builder::block3`]). Default 32.
    pub fn block(mut self, lo: u32, hi: u32) -> Self {
        self.block[0] = (lo, hi);
        self
    }
    /// Each grid dimension from its range.
    pub fn grid3(mut self, r: [(u32, u32); 3]) -> Self {
        self.grid = r;
        self
    }
    /// Each block dimension from its range.
    pub fn block3(mut self, r: [(u32, u32); 3]) -> Self {
        self.block = r;
        self
    }
    /// The next parameter.
    pub fn input(mut self, input: Input) -> Self {
        self.inputs.push(input);
        self
    }
    /// The next parameter: a buffer of `T` with fuzzed contents.
    pub fn input_buffer<T: FuzzElem>(self, len: Len) -> Self {
        self.input(Input::Buffer {
            elem: T::ELEM,
            len,
            fill: Fill::Fuzz,
        })
    }
    /// The next parameter: a zero-filled buffer of `T` (an output).
    pub fn output<T: FuzzElem>(self, len: Len) -> Self {
        self.input(Input::Buffer {
            elem: T::ELEM,
            len,
            fill: Fill::Zero,
        })
    }
    /// The next parameter: a scalar of type `T` in `lo..=hi` (signed types: as signed
    /// numbers; floats: any bit pattern, the bounds are ignored).
    pub fn scalar<T: FuzzElem>(self, lo: i128, hi: i128) -> Self {
        let (lo, hi) = match T::ELEM {
            Elem::F32 => (0, u32::MAX as i128),
            Elem::F64 => (0, u64::MAX as i128),
            _ => (lo, hi),
        };
        self.input(Input::Scalar {
            elem: T::ELEM,
            lo,
            hi,
        })
    }
    /// The next parameter: the element count of buffer input `buffer`, as a `T`.
    pub fn len_of<T: FuzzElem>(self, buffer: usize) -> Self {
        self.input(Input::LenOf {
            elem: T::ELEM,
            buffer,
        })
    }
    /// The next parameter: always `arg`.
    pub fn fixed(self, arg: impl Into<KernelArg>) -> Self {
        self.input(Input::Fixed(arg.into()))
    }
    /// The launch options (backend, `check_uniform`, the sanitizers once merged; the
    /// grid, block and timeout are the harness's). Default: `LaunchConfig`'s defaults.
    pub fn launch(mut self, cfg: LaunchConfig) -> Self {
        let timeout = self.cfg.timeout;
        self.cfg = cfg.timeout(timeout);
        self
    }
    /// The time limit per input (default [`DEFAULT_TIME_LIMIT`]).
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.cfg.timeout = Some(limit);
        self
    }
    /// Checks the outputs with a Rust model.
    pub fn oracle(
        mut self,
        f: impl Fn(&Outcome) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.oracle = Some(Box::new(f));
        self
    }
    /// Kernel coverage counters (see the module doc). Default off.
    pub fn coverage(mut self, on: bool) -> Self {
        self.coverage = on;
        self
    }
    /// The device to run on (default: one worker thread, 1 GiB of address space, the
    /// optimized JIT tier compiled at load).
    pub fn device(mut self, device: Device) -> Self {
        self.device = Some(device);
        self
    }

    /// Loads and compiles the module and checks the input spec against the kernel's
    /// parameters.
    pub fn build(self) -> crate::Result<Harness> {
        let device = match self.device {
            Some(d) => d,
            // One worker (fuzzers run one process per core), the optimized JIT tier
            // compiled at load (no background compilation while fuzzing, whose host code
            // coverage would be noise to libFuzzer), and byte-exact bounds: a read one
            // byte past a buffer is a fault here, though a GPU's 256-byte granules hide it.
            None => Device::with_options(DeviceOptions {
                threads: 1,
                memory_bytes: 1 << 30,
                jit_tier: crate::config::JitTier::Optimized,
                exact_bounds: true,
                ..DeviceOptions::default()
            })?,
        };
        let jit = self.cfg.backend == crate::Backend::Jit;
        let module = if self.coverage {
            device.load_ptx_with_coverage(&self.src, &self.file, jit)?
        } else {
            device.load_ptx_with(&self.src, &self.file, jit)?
        };
        let bad = |msg: String| Error::Launch {
            kernel: self.kernel.clone(),
            msg,
        };
        let params = module.kernel_params(&self.kernel)?;
        if params.len() != self.inputs.len() {
            return Err(bad(format!(
                "the kernel takes {} parameters but the harness describes {} inputs",
                params.len(),
                self.inputs.len()
            )));
        }
        spec::validate(&self.inputs).map_err(bad)?;
        for (k, (inp, p)) in self.inputs.iter().zip(params).enumerate() {
            let size = match inp {
                Input::Buffer { .. } => 8,
                Input::Scalar { elem, .. } | Input::LenOf { elem, .. } => elem.size(),
                Input::Fixed(a) => a.to_bytes().len(),
            };
            if size != p.size as usize {
                return Err(bad(format!(
                    "input {k} is {size} bytes but parameter '{}' is {} bytes",
                    p.name, p.size
                )));
            }
        }
        if let Some(c) = module.coverage() {
            libfuzzer::register(c);
        }
        Ok(Harness {
            device,
            module,
            kernel: self.kernel,
            cfg: self.cfg,
            grid: self.grid,
            block: self.block,
            inputs: self.inputs,
            oracle: self.oracle,
        })
    }
}

/// A kernel ready to be fuzzed: see the module doc.
pub struct Harness {
    device: Device,
    module: Module,
    kernel: String,
    cfg: LaunchConfig,
    grid: [(u32, u32); 3],
    block: [(u32, u32); 3],
    inputs: Vec<Input>,
    oracle: Option<Oracle>,
}

impl Harness {
    /// A builder for kernel `kernel` of the PTX text `src` (`file` names it in reports).
    pub fn builder(src: &str, file: &str, kernel: &str) -> Builder {
        Builder {
            src: src.to_string(),
            file: file.to_string(),
            kernel: kernel.to_string(),
            device: None,
            cfg: LaunchConfig::new(1, 32).timeout(Some(DEFAULT_TIME_LIMIT)),
            grid: [(1, 1); 3],
            block: [(32, 32), (1, 1), (1, 1)],
            inputs: Vec::new(),
            oracle: None,
            coverage: false,
        }
    }

    /// The decoded launch for fuzzer bytes `data`.
    pub fn decode(&self, data: &[u8]) -> Launch {
        spec::decode(data, &self.grid, &self.block, &self.inputs)
    }

    /// The kernel coverage counters (`None` without [`Builder::coverage`]).
    pub fn coverage(&self) -> Option<&CoverageMap> {
        self.module.coverage()
    }

    /// The device and module (e.g. to read module variables).
    pub fn module(&self) -> (&Device, &Module) {
        (&self.device, &self.module)
    }

    /// Runs one input; `Err` is a finding. Host-side failures to allocate the input's
    /// buffers are findings of kind `InvalidLaunch` too (the spec allows too much).
    pub fn run(&self, data: &[u8]) -> Result<(), Finding> {
        let launch = self.decode(data);
        let finding = |kind, report: String| Finding {
            kind,
            report,
            launch: launch.describe(),
        };
        let mut bufs: Vec<Option<Buffer>> = Vec::with_capacity(launch.values.len());
        let result = (|| {
            let mut args = Vec::with_capacity(launch.values.len());
            for v in &launch.values {
                match v {
                    Value::Buffer { bytes, .. } => {
                        let b = self
                            .device
                            .alloc_from(bytes)
                            .map_err(|e| finding(FindingKind::InvalidLaunch, e.to_string()))?;
                        bufs.push(Some(b));
                        args.push(KernelArg::Ptr(b.ptr()));
                    }
                    Value::Scalar(a) => {
                        bufs.push(None);
                        args.push(a.clone());
                    }
                }
            }
            let mut cfg = self.cfg.clone();
            cfg.grid = launch.grid;
            cfg.block = launch.block;
            if let Err(e) = self.device.launch(&self.module, &self.kernel, &cfg, &args) {
                return Err(finding(classify(&e), e.to_string()));
            }
            if let Some(oracle) = &self.oracle {
                let mut after = Vec::with_capacity(bufs.len());
                for b in &bufs {
                    after.push(match b {
                        Some(b) => self
                            .device
                            .read::<u8>(b)
                            .map_err(|e| finding(FindingKind::InvalidLaunch, e.to_string()))?,
                        None => Vec::new(),
                    });
                }
                let out = Outcome {
                    launch: &launch,
                    after,
                };
                oracle(&out).map_err(|msg| finding(FindingKind::Oracle, msg))?;
            }
            Ok(())
        })();
        for b in bufs.into_iter().flatten() {
            let _ = self.device.free(b);
        }
        result
    }

    /// Runs one input and panics with the finding's report if there is one: the body
    /// of a `fuzz_target!` (libFuzzer keeps a panicking input as a crash).
    pub fn fuzz(&self, data: &[u8]) {
        if let Err(f) = self.run(data) {
            panic!("{f}");
        }
    }
}

/// The finding kind of a launch error.
fn classify(e: &Error) -> FindingKind {
    match e {
        Error::Fault(_) => FindingKind::Fault,
        Error::Deadlock(_) => FindingKind::Deadlock,
        Error::Launch { .. } | Error::Memory(_) => FindingKind::InvalidLaunch,
        _ if e.is_assertion() => FindingKind::Assert,
        Error::Kernel { msg, .. } if msg.contains("ran past its time limit") => {
            FindingKind::Timeout
        }
        _ => FindingKind::Kernel,
    }
}
