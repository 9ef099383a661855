//! The POCL column of the benchmark table: runs the OpenCL C versions of the kernels
//! (`benches/opencl/kernels.cl`) through the `opencl3` crate on the first OpenCL CPU
//! device (POCL's `pthread` device, which uses every core). Only with
//! `cargo bench --features pocl` (POCL itself: `scripts/install-pocl.sh`); without the
//! feature [`Pocl::new`] returns `None` and the column says `-`.
//!
//! A run writes the argument buffers once, launches once and reads every buffer back
//! (for the caller to check against its native reference), then times `reps` launches
//! (enqueue + `clFinish`), best of. Buffers keep what the previous launch left, as for
//! ptxjit's launches.

use std::time::Duration;

/// A kernel argument (only read by the OpenCL launch).
#[cfg_attr(not(feature = "pocl"), allow(dead_code))]
pub enum Arg<'a> {
    /// A global buffer holding these bytes before the first launch.
    Buf(&'a [u8]),
    /// A zero-filled global buffer of this many bytes.
    Zeroed(usize),
    U32(u32),
    I32(i32),
    F32(f32),
}

/// The bytes of a slice of plain numbers (`u32`, `f32`), little-endian as in memory.
pub fn bytes<T: Copy + Into<NumBytes>>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|&x| x.into().0).collect()
}

/// Four little-endian bytes of one number.
pub struct NumBytes([u8; 4]);
impl From<u32> for NumBytes {
    fn from(x: u32) -> Self {
        NumBytes(x.to_le_bytes())
    }
}
impl From<f32> for NumBytes {
    fn from(x: f32) -> Self {
        NumBytes(x.to_le_bytes())
    }
}

pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn f32s(b: &[u8]) -> Vec<f32> {
    u32s(b).into_iter().map(f32::from_bits).collect()
}

/// What one kernel run gave: the best time of the timed launches, and the contents of
/// every buffer argument (in argument order) after the first launch.
pub struct Run {
    pub best: Duration,
    pub buffers: Vec<Vec<u8>>,
}

#[cfg(feature = "pocl")]
pub use imp::Pocl;

#[cfg(not(feature = "pocl"))]
pub enum Pocl {}

#[cfg(not(feature = "pocl"))]
impl Pocl {
    pub fn new() -> Option<Pocl> {
        None
    }
    pub fn name(&self) -> &str {
        match *self {}
    }
    pub fn run(&self, _: &str, _: &[usize], _: &[usize], _: &[Arg], _: usize) -> Run {
        match *self {}
    }
}

#[cfg(feature = "pocl")]
mod imp {
    use super::{Arg, Run};
    use opencl3::command_queue::CommandQueue;
    use opencl3::context::Context;
    use opencl3::device::{get_all_devices, Device, CL_DEVICE_TYPE_CPU};
    use opencl3::kernel::{ExecuteKernel, Kernel};
    use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
    use opencl3::program::Program;
    use opencl3::types::CL_BLOCKING;
    use std::time::{Duration, Instant};

    const SOURCE: &str = include_str!("../opencl/kernels.cl");
    const OPTIONS: &str = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";

    pub struct Pocl {
        name: String,
        context: Context,
        queue: CommandQueue,
        program: Program,
    }

    impl Pocl {
        /// The first OpenCL CPU device, with the kernels built; `None` (and why, on
        /// stderr) when there is none or the build fails.
        pub fn new() -> Option<Pocl> {
            let r = (|| -> Result<Pocl, String> {
                let id = *get_all_devices(CL_DEVICE_TYPE_CPU)
                    .map_err(|e| format!("no OpenCL platform: {e}"))?
                    .first()
                    .ok_or("no OpenCL CPU device")?;
                let device = Device::new(id);
                let name = format!(
                    "{} ({} compute units, {})",
                    device.name().unwrap_or_default(),
                    device.max_compute_units().unwrap_or(0),
                    device.version().unwrap_or_default()
                );
                let context = Context::from_device(&device).map_err(|e| e.to_string())?;
                let queue = CommandQueue::create_default(&context, 0).map_err(|e| e.to_string())?;
                let program = Program::create_and_build_from_source(&context, SOURCE, OPTIONS)
                    .map_err(|e| format!("kernels.cl: {e}"))?;
                Ok(Pocl {
                    name,
                    context,
                    queue,
                    program,
                })
            })();
            r.map_err(|e| eprintln!("POCL column disabled: {e}")).ok()
        }

        pub fn name(&self) -> &str {
            &self.name
        }

        /// Runs `kernel` with global size `global` (work-items, not groups) and local
        /// size `local`, as the module doc says. Panics on any OpenCL error.
        pub fn run(
            &self,
            kernel: &str,
            global: &[usize],
            local: &[usize],
            args: &[Arg],
            reps: usize,
        ) -> Run {
            let k = Kernel::create(&self.program, kernel).expect("clCreateKernel");
            let mut bufs: Vec<(Buffer<u8>, usize)> = Vec::new();
            for a in args {
                let init: Vec<u8>;
                let data = match a {
                    Arg::Buf(b) => *b,
                    Arg::Zeroed(n) => {
                        init = vec![0; *n];
                        &init
                    }
                    _ => continue,
                };
                // SAFETY: a fresh buffer of data.len() bytes, no host pointer.
                let mut b = unsafe {
                    Buffer::<u8>::create(
                        &self.context,
                        CL_MEM_READ_WRITE,
                        data.len().max(1),
                        std::ptr::null_mut(),
                    )
                }
                .expect("clCreateBuffer");
                if !data.is_empty() {
                    // SAFETY: blocking write of data.len() <= buffer size bytes.
                    unsafe {
                        self.queue
                            .enqueue_write_buffer(&mut b, CL_BLOCKING, 0, data, &[])
                            .expect("clEnqueueWriteBuffer");
                    }
                }
                bufs.push((b, data.len()));
            }
            let launch = || {
                let mut e = ExecuteKernel::new(&k);
                let mut next = bufs.iter();
                for a in args {
                    // SAFETY: each argument has the type the kernel declares (the
                    // callers mirror kernels.cl's signatures).
                    unsafe {
                        match a {
                            Arg::Buf(_) | Arg::Zeroed(_) => {
                                e.set_arg(&next.next().expect("buffer").0);
                            }
                            Arg::U32(v) => {
                                e.set_arg(v);
                            }
                            Arg::I32(v) => {
                                e.set_arg(v);
                            }
                            Arg::F32(v) => {
                                e.set_arg(v);
                            }
                        }
                    }
                }
                e.set_global_work_sizes(global).set_local_work_sizes(local);
                // SAFETY: arguments set above; the buffers outlive the launch (finish).
                unsafe { e.enqueue_nd_range(&self.queue) }.expect("clEnqueueNDRangeKernel");
                self.queue.finish().expect("clFinish");
            };
            launch();
            let buffers = bufs
                .iter()
                .map(|(b, n)| {
                    let mut v = vec![0u8; *n];
                    if *n > 0 {
                        // SAFETY: blocking read of n <= buffer size bytes.
                        unsafe {
                            self.queue
                                .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut v, &[])
                                .expect("clEnqueueReadBuffer");
                        }
                    }
                    v
                })
                .collect();
            let mut best = Duration::MAX;
            for _ in 0..reps {
                let t = Instant::now();
                launch();
                best = best.min(t.elapsed());
            }
            Run { best, buffers }
        }
    }
}
