//! Arbitrary launches of a fixed set of committed kernels (the `launch` target and
//! `tests/fuzz_replay.rs`): grid and block dimensions (zero, huge, ragged), dynamic shared
//! bytes, argument lists of the right or wrong length with values of the right or wrong
//! size (buffer pointers with offsets, null, wild and near-the-end addresses, scalars),
//! and buffer contents.
//!
//! Work is capped so that each run is fast: a configuration that would really run more
//! than [`MAX_THREADS`] threads has its grid reduced (configurations that the launch must
//! refuse are kept as they are), and every launch has a short time limit.

use super::harness::Outcome;
use arbitrary::{Arbitrary, Result, Unstructured};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::time::Duration;

/// Most threads one fuzzed launch may run.
pub const MAX_THREADS: u64 = 8192;
/// The time limit of each fuzzed launch.
pub const TIMEOUT: Duration = Duration::from_millis(300);

/// The kernels: (file name, text).
pub const KERNELS: [(&str, &str); 12] = [
    ("saxpy.ptx", include_str!("../../examples/saxpy.ptx")),
    (
        "reduce.nvrtc.ptx",
        include_str!("../../tests/kernels/reduce.nvrtc.ptx"),
    ),
    (
        "atomics.nvrtc.ptx",
        include_str!("../../tests/kernels/atomics.nvrtc.ptx"),
    ),
    (
        "spec_calls_indirect.ptx",
        include_str!("../../tests/kernels/spec_calls_indirect.ptx"),
    ),
    (
        "bytecode.nvrtc.ptx",
        include_str!("../../tests/kernels/bytecode.nvrtc.ptx"),
    ),
    (
        "oob.nvrtc.ptx",
        include_str!("../../tests/kernels/oob.nvrtc.ptx"),
    ),
    ("warp.ptx", include_str!("../../tests/ptx/warp.ptx")),
    (
        "barriers.clang.ptx",
        include_str!("../../tests/kernels/barriers.clang.ptx"),
    ),
    (
        "mandelbrot.nvrtc.ptx",
        include_str!("../../tests/kernels/mandelbrot.nvrtc.ptx"),
    ),
    (
        "localconst.nvrtc.ptx",
        include_str!("../../tests/kernels/localconst.nvrtc.ptx"),
    ),
    (
        "params.nvrtc.ptx",
        include_str!("../../tests/kernels/params.nvrtc.ptx"),
    ),
    (
        "grid2d.nvrtc.ptx",
        include_str!("../../tests/kernels/grid2d.nvrtc.ptx"),
    ),
];

/// The JIT-compiled module of `KERNELS[file]` on `dev`, compiled once per process.
fn cached_module(dev: &Device, file: usize) -> ptxjit::Module {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<usize, ptxjit::Module>>> = OnceLock::new();
    let mut c = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    c.entry(file)
        .or_insert_with(|| {
            let (name, src) = KERNELS[file];
            dev.load_ptx(src, name)
                .unwrap_or_else(|e| panic!("{name} must load: {e}"))
        })
        .clone()
}

/// One argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// Buffer `i`'s address plus a byte offset (possibly far outside it).
    Buf(u8, i64),
    /// An absolute address: null, wild, or near the ends of the device range.
    Abs(AbsPtr),
    /// A scalar of the parameter's size (or 4 bytes for extra arguments).
    Scalar(u64),
    /// Raw bytes of any length (usually the wrong size).
    Bytes(Vec<u8>),
}

#[derive(Clone, Copy, Debug)]
pub enum AbsPtr {
    Null,
    Wild(u64),
    /// The device range's start plus this.
    FromStart(u64),
    /// The device range's end minus this.
    FromEnd(u64),
}

/// One fuzzed launch.
#[derive(Clone, Debug)]
pub struct LaunchInput {
    pub file: usize,
    pub kernel: u8,
    /// 0: interpreter, 1: JIT, 2: both (compared when comparable).
    pub backends: u8,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// Fit the argument list to the kernel's parameter count (pad or cut) before use.
    pub fit_args: bool,
    pub args: Vec<Arg>,
    /// Contents of up to 4 buffers (their sizes are the lengths).
    pub buffers: Vec<Vec<u8>>,
}

fn dim(u: &mut Unstructured, block: bool) -> Result<u32> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => *u.choose(&[
            0,
            65535,
            65536,
            i32::MAX as u32,
            1 << 31,
            u32::MAX,
            1025,
            64,
            65,
        ])?,
        1..=3 if block => *u.choose(&[32, 64, 128, 256, 33, 96, 1024])?,
        _ => u.int_in_range(1..=4)?,
    })
}

impl<'a> Arbitrary<'a> for LaunchInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let file = u.choose_index(KERNELS.len())?;
        let kernel = u.arbitrary()?;
        let backends = u.int_in_range(0..=2)?;
        let grid = [dim(u, false)?, dim(u, false)?, dim(u, false)?];
        let mut block = [dim(u, true)?, 1, 1];
        if u.ratio(1, 4)? {
            block[1] = dim(u, true)?;
            block[2] = dim(u, true)?;
        }
        let shared_bytes = match u.int_in_range(0..=5u8)? {
            0 => *u.choose(&[227 * 1024, 227 * 1024 + 1, u32::MAX, 1 << 20])?,
            1 => u.arbitrary()?,
            2 => u.int_in_range(0..=4096)?,
            _ => 0,
        };
        let nbuf = u.int_in_range(0..=4usize)?;
        let mut buffers = Vec::new();
        for _ in 0..nbuf {
            let len = *u.choose(&[0usize, 1, 4, 16, 64, 256, 1024, 4096, 16384])?;
            let seed: Vec<u8> = u.arbitrary()?;
            let fill = u.arbitrary::<u8>()?;
            let data = (0..len)
                .map(|i| {
                    seed.get(i % seed.len().max(1)).copied().unwrap_or(fill) ^ (i as u8 & fill)
                })
                .collect();
            buffers.push(data);
        }
        // Arguments: the caller fits these to the kernel's parameters.
        let nargs = u.int_in_range(0..=12usize)?;
        let mut args = Vec::new();
        for _ in 0..nargs {
            args.push(match u.int_in_range(0..=9u8)? {
                0..=3 => Arg::Buf(
                    u.int_in_range(0..=3)?,
                    match u.int_in_range(0..=3u8)? {
                        0 => u.arbitrary()?,
                        1 => u.int_in_range(-64..=64)?,
                        _ => 0,
                    },
                ),
                4 => Arg::Abs(match u.int_in_range(0..=3u8)? {
                    0 => AbsPtr::Null,
                    1 => AbsPtr::Wild(u.arbitrary()?),
                    2 => AbsPtr::FromStart(u.int_in_range(0..=1 << 20)?),
                    _ => AbsPtr::FromEnd(u.int_in_range(0..=4096)?),
                }),
                5..=8 => Arg::Scalar(match u.int_in_range(0..=2u8)? {
                    0 => u.int_in_range(0..=300)?,
                    1 => *u.choose(&[0, 1, u64::MAX, u32::MAX as u64, 1 << 31, 0x7fc0_0000])?,
                    _ => u.arbitrary()?,
                }),
                _ => Arg::Bytes(u.arbitrary()?),
            });
        }
        let fit_args = !u.ratio(1, 8)?;
        Ok(LaunchInput {
            file,
            kernel,
            backends,
            grid,
            block,
            shared_bytes,
            fit_args,
            args,
            buffers,
        })
    }
}

impl LaunchInput {
    pub fn backends(&self) -> &'static [Backend] {
        match self.backends % 3 {
            0 => &[Backend::Interp],
            1 => &[Backend::Jit],
            _ => &[Backend::Interp, Backend::Jit],
        }
    }

    /// Whether two runs must agree: only when every pointer is null or near a buffer.
    /// Elsewhere a store may reach the other run's module variables (each run has its
    /// own module, at its own addresses), or memory of other threads of the host.
    pub fn comparable(&self) -> bool {
        self.args.iter().all(|a| match a {
            Arg::Abs(AbsPtr::Null) | Arg::Scalar(_) | Arg::Bytes(_) => true,
            Arg::Buf(_, off) => (-256..=256).contains(off),
            Arg::Abs(_) => false,
        })
    }

    /// The launch configuration, with the work capped (see [`MAX_THREADS`]).
    pub fn config(&self, backend: Backend) -> LaunchConfig {
        let mut grid = self.grid;
        let bt = self
            .block
            .iter()
            .fold(1u64, |t, &x| t.saturating_mul(x as u64));
        let runs = bt > 0
            && bt <= 1024
            && self.block[2] <= 64
            && grid.iter().all(|&g| g > 0)
            && grid[0] <= i32::MAX as u32
            && grid[1] <= 65535
            && grid[2] <= 65535;
        let total = grid.iter().fold(bt, |t, &x| t.saturating_mul(x as u64));
        if runs && total > MAX_THREADS {
            let per = (MAX_THREADS / bt).max(1);
            grid = [(grid[0] as u64).min(per) as u32, 1, 1];
        }
        LaunchConfig::new(grid, self.block)
            .shared_bytes(self.shared_bytes)
            .backend(backend)
            .timeout(Some(TIMEOUT))
    }

    /// Loads the kernel's module (afresh for each backend where the file has module
    /// variables, so that wild stores of earlier runs cannot leak into this one; a
    /// module without variables holds no device state and is compiled once per
    /// process), allocates the buffers once (so that both runs see the same addresses),
    /// and launches on each backend of [`LaunchInput::backends`] with the buffers
    /// refilled.
    pub fn run(&self, dev: &Device) -> Vec<Outcome> {
        let file = self.file % KERNELS.len();
        let (name, src) = KERNELS[file];
        let stateless = !src
            .lines()
            .any(|l| l.trim_start().starts_with(".global") || l.trim_start().starts_with(".const"));
        let modules: Vec<(Backend, ptxjit::Module)> = self
            .backends()
            .iter()
            .map(|&b| {
                let m = if stateless {
                    cached_module(dev, file)
                } else {
                    dev.load_ptx_with(src, name, b == Backend::Jit)
                        .unwrap_or_else(|e| panic!("{name} must load: {e}"))
                };
                (b, m)
            })
            .collect();
        let bufs: Vec<ptxjit::Buffer> = self
            .buffers
            .iter()
            .map(|b| dev.alloc_zeroed(b.len()).expect("alloc"))
            .collect();
        let mut outcomes = Vec::new();
        for (backend, m) in &modules {
            for (b, data) in bufs.iter().zip(&self.buffers) {
                dev.write(b, data).expect("write");
            }
            outcomes.push(self.launch(dev, m, &bufs, *backend));
        }
        for b in bufs {
            dev.free(b).expect("free");
        }
        outcomes
    }

    fn launch(
        &self,
        dev: &Device,
        m: &ptxjit::Module,
        bufs: &[ptxjit::Buffer],
        backend: Backend,
    ) -> Outcome {
        let kernels = m.kernels();
        let kernel = kernels[self.kernel as usize % kernels.len()];
        let params = m.kernel_params(kernel).expect("params").to_vec();
        let (lo, hi) = dev.address_range();
        let mut given = self.args.clone();
        if self.fit_args {
            given.truncate(params.len());
            while given.len() < params.len() {
                given.push(Arg::Buf(given.len() as u8 % 4, 0));
            }
        }
        // Argument i goes to parameter i; extra arguments are 4 bytes wide.
        let args: Vec<KernelArg> = given
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let size = params.get(i).map_or(4, |p| p.size as usize);
                let ptr = |p: u64| match size {
                    8 => KernelArg::Ptr(p),
                    n => {
                        KernelArg::Bytes(p.to_le_bytes().iter().copied().cycle().take(n).collect())
                    }
                };
                match a {
                    Arg::Buf(b, off) => {
                        let base = bufs.get(*b as usize).map_or(0, |x| x.ptr());
                        ptr(base.wrapping_add(*off as u64))
                    }
                    Arg::Abs(AbsPtr::Null) => ptr(0),
                    Arg::Abs(AbsPtr::Wild(x)) => ptr(*x),
                    Arg::Abs(AbsPtr::FromStart(x)) => ptr(lo.wrapping_add(*x)),
                    Arg::Abs(AbsPtr::FromEnd(x)) => ptr(hi.wrapping_sub(*x)),
                    Arg::Scalar(v) => match size {
                        1 => KernelArg::U8(*v as u8),
                        2 => KernelArg::U16(*v as u16),
                        4 => KernelArg::U32(*v as u32),
                        8 => KernelArg::U64(*v),
                        n => KernelArg::Bytes(
                            v.to_le_bytes().iter().copied().cycle().take(n).collect(),
                        ),
                    },
                    Arg::Bytes(b) => KernelArg::Bytes(b.clone()),
                }
            })
            .collect();
        let error = dev
            .launch(m, kernel, &self.config(backend), &args)
            .err()
            .map(|e| e.to_string());
        let buffers = bufs
            .iter()
            .map(|b| dev.read::<u8>(b).expect("read"))
            .collect();
        Outcome { error, buffers }
    }
}
