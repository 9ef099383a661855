//! The CUDA device runtime's entry points (dynamic parallelism, CDP2) that ptxjit
//! provides as built-ins ([`crate::ir::Builtin::Cdp`]): NVRTC/nvcc with `-rdc=true`
//! compile a `<<<>>>` launch in device code into calls of `__cudaCDP2GetParameterBufferV2`
//! and `__cudaCDP2LaunchDeviceV2`, which on a GPU come from `libcudadevrt`. Each function
//! is recognised by name (the `__cudaCDP2` names of CUDA 12 and the plain `cuda` names of
//! older toolkits) and by its parameter and return sizes, exactly as
//! `cuda_device_runtime_api.h` declares them. Semantics: `crate::exec::cdp`. The grid
//! group's system calls (`__cuda_syscall_CGS_*`, which `libcudadevrt`'s PTX calls for
//! `cudaCGGetIntrinsicHandle` and `cudaCGSynchronize`, as `libcudadevrt`'s PTX of
//! CUDA 12.9 declares them) are rows of the same table: `crate::exec::gridsync`.
//!
//! A `dim3` parameter (12 bytes, passed by value in a `.param .b8 [12]` array) becomes
//! the state-space address of the call-site `.param` variable (a `.local` address; the
//! built-in reads the three words there); every other parameter is a scalar operand.

use super::Type;

/// Declares the device runtime's entry points once: each row is a [`CdpFn`] variant (its
/// doc is the C declaration), the names it goes by (without the `__cudaCDP2` or `cuda`
/// prefix), its parameter sizes in bytes as the PTX declares them (a `dim3` is 12) and its
/// result size. The enum, the name lookup, the sizes and the operand types come from it.
macro_rules! cdp_functions {
    ($($(#[doc = $doc:literal])* $f:ident [$($name:literal),+] ($($size:tt),*) -> $ret:tt;)*) => {
        /// A device-runtime function.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CdpFn {
            $($(#[doc = $doc])* $f,)*
        }

        /// Every entry point's declaration, in [`CdpFn`] order.
        const DECLS: &[Decl] = &[$(Decl {
            f: CdpFn::$f,
            names: &[$($name),+],
            sizes: &[$($size),*],
            params: &[$(operand_type!($size)),*],
            result: result_type!($ret),
        },)*];
    };
}

/// The operand type of a parameter (or result) of that many bytes: `U32` for 4, `U64`
/// for 8 and for a `dim3` (its address, see the module doc).
macro_rules! operand_type {
    (4) => {
        Type::U32
    };
    (8) => {
        Type::U64
    };
    (12) => {
        Type::U64
    };
}

/// The result type of a function returning that many bytes (`None`: `void`).
macro_rules! result_type {
    (0) => {
        None
    };
    ($n:tt) => {
        Some(operand_type!($n))
    };
}

/// One entry point, as [`cdp_functions!`] declares it.
struct Decl {
    f: CdpFn,
    names: &'static [&'static str],
    sizes: &'static [u32],
    params: &'static [Type],
    result: Option<Type>,
}

cdp_functions! {
    /// `void *cudaGetParameterBuffer(size_t alignment, size_t size)`.
    GetParameterBuffer ["GetParameterBuffer"] (8, 8) -> 8;
    /// `void *cudaGetParameterBufferV2(void *func, dim3 grid, dim3 block, unsigned smem)`.
    GetParameterBufferV2 ["GetParameterBufferV2"] (8, 12, 12, 4) -> 8;
    /// `cudaError_t cudaLaunchDevice(void *func, void *params, dim3 grid, dim3 block,
    /// unsigned smem, cudaStream_t stream)` (and its `_ptsz` form).
    LaunchDevice ["LaunchDevice", "LaunchDevice_ptsz"] (8, 8, 12, 12, 4, 8) -> 4;
    /// `cudaError_t cudaLaunchDeviceV2(void *params, cudaStream_t stream)` (and `_ptsz`).
    LaunchDeviceV2 ["LaunchDeviceV2", "LaunchDeviceV2_ptsz"] (8, 8) -> 4;
    /// `cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)`.
    StreamCreateWithFlags ["StreamCreateWithFlags"] (8, 4) -> 4;
    /// `cudaError_t cudaStreamDestroy(cudaStream_t stream)`.
    StreamDestroy ["StreamDestroy"] (8) -> 4;
    /// `cudaError_t cudaGetDevice(int *device)`.
    GetDevice ["GetDevice"] (8) -> 4;
    /// `cudaError_t cudaGetDeviceCount(int *count)`.
    GetDeviceCount ["GetDeviceCount"] (8) -> 4;
    /// `cudaError_t cudaGetLastError(void)`.
    GetLastError ["GetLastError"] () -> 4;
    /// `cudaError_t cudaPeekAtLastError(void)`.
    PeekAtLastError ["PeekAtLastError"] () -> 4;
    /// `cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)`.
    DeviceGetLimit ["DeviceGetLimit"] (8, 4) -> 4;
    /// `cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)`.
    EventCreateWithFlags ["EventCreateWithFlags"] (8, 4) -> 4;
    /// `cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)` (`_ptsz`).
    EventRecord ["EventRecord", "EventRecord_ptsz"] (8, 8) -> 4;
    /// `cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t, unsigned)` (`_ptsz`).
    EventRecordWithFlags ["EventRecordWithFlags", "EventRecordWithFlags_ptsz"] (8, 8, 4) -> 4;
    /// `cudaError_t cudaEventDestroy(cudaEvent_t event)`.
    EventDestroy ["EventDestroy"] (8) -> 4;
    /// `cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned)` (`_ptsz`).
    StreamWaitEvent ["StreamWaitEvent", "StreamWaitEvent_ptsz"] (8, 8, 4) -> 4;
    /// `void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned value)`
    /// (CUDA 12.3; nvcc 13.5 emits `.extern .func cudaGraphSetConditional
    /// (.param .b64, .param .b32)`), see `crate::exec::graphcond`.
    GraphSetConditional ["GraphSetConditional"] (8, 4) -> 0;
    /// `unsigned long long __cuda_syscall_CGS_get_intrinsic_handle(unsigned scope)`: the
    /// driver's system call behind `cudaCGGetIntrinsicHandle` in `libcudadevrt`'s PTX
    /// (scope 1: the grid, 2: the multi-device grid), see `crate::exec::gridsync`.
    CgsGetIntrinsicHandle ["CGS_get_intrinsic_handle"] (4) -> 8;
    /// `int __cuda_syscall_CGS_sync(unsigned long long handle, unsigned flags)`: the
    /// grid barrier behind `cudaCGSynchronize` (0 on success), see `crate::exec::gridsync`.
    CgsSync ["CGS_sync"] (8, 4) -> 4;
}

/// Every function of the device runtime (`cuda_device_runtime_api.h`) ptxjit does not
/// provide; a call of one is a load-time error naming it.
const UNSUPPORTED: [&str; 15] = [
    "RuntimeGetVersion",
    "DeviceSynchronize",
    "Malloc",
    "Free",
    "MemcpyAsync",
    "Memcpy2DAsync",
    "Memcpy3DAsync",
    "MemsetAsync",
    "Memset2DAsync",
    "Memset3DAsync",
    "DeviceGetAttribute",
    "FuncGetAttributes",
    "GetErrorString",
    "GetErrorName",
    "GraphLaunch",
];

/// The name without the device runtime's prefix (`__cudaCDP2`, `cuda`, or the
/// `__cuda_syscall_` of the driver's system calls `libcudadevrt` calls), if it has one.
fn stem(name: &str) -> Option<&str> {
    name.strip_prefix("__cudaCDP2")
        .or_else(|| name.strip_prefix("__cuda_syscall_"))
        .or_else(|| name.strip_prefix("cuda"))
}

impl CdpFn {
    /// This entry point's row of [`cdp_functions!`].
    fn decl(self) -> &'static Decl {
        &DECLS[self as usize]
    }

    /// The entry point `name` stands for.
    pub fn from_name(name: &str) -> Option<CdpFn> {
        let s = stem(name)?;
        DECLS.iter().find(|d| d.names.contains(&s)).map(|d| d.f)
    }

    /// Whether `name` is a device-runtime function ptxjit does not provide.
    pub fn is_unsupported(name: &str) -> bool {
        stem(name).is_some_and(|s| {
            UNSUPPORTED
                .iter()
                .any(|u| s == *u || s.strip_suffix("_ptsz") == Some(u))
        })
    }

    /// The declared parameter sizes in bytes (a `dim3` is 12), as the PTX declares them.
    pub fn param_sizes(self) -> &'static [u32] {
        self.decl().sizes
    }

    /// The operand types: `U32` for 4-byte parameters, `U64` for 8-byte ones and for
    /// `dim3` (its address, see the module doc).
    pub fn params(self) -> &'static [Type] {
        self.decl().params
    }

    /// The return type: a pointer for the parameter buffers, none for
    /// `cudaGraphSetConditional`, `cudaError_t` otherwise.
    pub fn result(self) -> Option<Type> {
        self.decl().result
    }

    /// Whether parameter `k` is a `dim3` passed by value (its operand is an address).
    pub fn is_dim3(self, k: usize) -> bool {
        self.param_sizes().get(k) == Some(&12)
    }

    /// A number for the JIT's helper call (the entry point's place in the declaration).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Inverse of [`CdpFn::code`].
    pub fn from_code(c: u32) -> Option<CdpFn> {
        DECLS.get(c as usize).map(|d| d.f)
    }
}
