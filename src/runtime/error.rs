//! The library's error type and the description of a kernel fault.

use crate::exec::ctx::FaultKind;
use crate::ir::Space;
use crate::parse::PtxError;
use crate::runtime::memory::MemoryError;
use std::fmt;

/// Everything that can go wrong in ptxjit.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A parse or check error in PTX text (`file:line:col: error: message`).
    #[error("{0}")]
    Ptx(#[from] PtxError),
    /// The JIT could not compile the module.
    #[error("{0}")]
    Jit(#[from] crate::jit::JitError),
    /// Host-side memory management (allocation, copies).
    #[error("{0}")]
    Memory(#[from] MemoryError),
    /// A kernel accessed memory it may not access.
    #[error("{0}")]
    Fault(Fault),
    /// No kernel of that name in the module.
    #[error("no kernel named '{name}' in {file} (kernels: {available})")]
    NoKernel {
        name: String,
        file: String,
        available: String,
    },
    /// The JIT could not compile a kernel at its first launch (see
    /// [`crate::DeviceOptions::jit_eager`]).
    #[error("cannot compile kernel '{kernel}': {msg}")]
    Compile { kernel: String, msg: String },
    /// Invalid launch configuration or arguments.
    #[error("invalid launch of kernel '{kernel}': {msg}")]
    Launch { kernel: String, msg: String },
    /// The warps of a CTA wait at barriers that can never complete.
    #[error("{0}")]
    Deadlock(String),
    /// Any other error a kernel raised while running (e.g. an invalid barrier operand).
    #[error("kernel '{kernel}' stopped at {file}:{line} (`{inst}`) in block ({},{},{}), thread ({},{},{}): {msg}",
        block[0], block[1], block[2], thread[0], thread[1], thread[2])]
    Kernel {
        kernel: String,
        file: String,
        line: u32,
        inst: String,
        block: [u32; 3],
        thread: [u32; 3],
        msg: String,
    },
    /// A sanitizer finding stopped the launch (see `crate::exec::sanitize`).
    #[error("{0}")]
    Sanitizer(Box<crate::runtime::sanitize::Finding>),
    /// The host could not provide a resource (threads, stacks).
    #[error("{0}")]
    Host(String),
    /// An invalid CUDA array, texture or surface object or descriptor.
    #[error("{0}")]
    Texture(String),
    /// A tensor map the driver API's rules refuse (`cuTensorMapEncode*`).
    #[error(transparent)]
    TensorMap(#[from] crate::exec::tensormap::TensorMapError),
}

/// A memory fault: which kernel, instruction, block, thread and address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kernel: String,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// The instruction's opcode with modifiers, e.g. `st.global.f32`.
    pub inst: String,
    /// `%ctaid` of the faulting thread.
    pub block: [u32; 3],
    /// `%tid` of the faulting thread.
    pub thread: [u32; 3],
    /// The address as the instruction computed it (for `.shared`/`.local`, the offset
    /// in the window).
    pub addr: u64,
    pub kind: FaultKind,
    pub space: Space,
    /// Bytes accessed by the thread.
    pub size: u32,
    pub write: bool,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind == FaultKind::BadBranchIndex {
            return write!(
                f,
                "kernel '{}' faulted at {}:{}:{} (`{}`): branch index {} is out of range for a target list of {} labels in block ({},{},{}), thread ({},{},{})",
                self.kernel,
                self.file,
                self.line,
                self.col,
                self.inst,
                self.addr,
                self.size,
                self.block[0],
                self.block[1],
                self.block[2],
                self.thread[0],
                self.thread[1],
                self.thread[2]
            );
        }
        let what = match self.kind {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::ReadOnly => "read-only-memory",
            FaultKind::OutsideWindow => "outside-window",
            FaultKind::BadBranchIndex => "bad-branch-index",
        };
        let access = if self.write { "store" } else { "load" };
        write!(
            f,
            "kernel '{}' faulted at {}:{}:{} (`{}`): {} {}-byte {} at {} address {:#x} in block ({},{},{}), thread ({},{},{})",
            self.kernel,
            self.file,
            self.line,
            self.col,
            self.inst,
            what,
            self.size,
            access,
            self.space.name(),
            self.addr,
            self.block[0],
            self.block[1],
            self.block[2],
            self.thread[0],
            self.thread[1],
            self.thread[2]
        )
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the launch stopped because a kernel's `assert` failed (`__assertfail`,
    /// see `crate::exec::printf`); CUDA reports that as `CUDA_ERROR_ASSERT`.
    pub fn is_assertion(&self) -> bool {
        matches!(self, Error::Kernel { msg, .. } if msg.starts_with(crate::exec::printf::ASSERT_PREFIX))
    }
}
