//! The CUDA device runtime's entry points (dynamic parallelism, CDP2) that ptxjit
//! provides as built-ins ([`crate::ir::Builtin::Cdp`]): NVRTC/nvcc with `-rdc=true`
//! compile a `<<<>>>` launch in device code into calls of `__cudaCDP2GetParameterBufferV2`
//! and `__cudaCDP2LaunchDeviceV2`, which on a GPU come from `libcudadevrt`. Each function
//! is recognised by name (the `__cudaCDP2` names of CUDA 12 and the plain `cuda` names of
//! older toolkits) and by its parameter and return sizes, exactly as
//! `cuda_device_runtime_api.h` declares them. Semantics: `crate::exec::cdp`.
//!
//! A `dim3` parameter (12 bytes, passed by value in a `.param .b8 [12]` array) becomes
//! the state-space address of the call-site `.param` variable (a `.local` address; the
//! built-in reads the three words there); every other parameter is a scalar operand.

use super::Type;

/// A device-runtime function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CdpFn {
    /// `void *cudaGetParameterBuffer(size_t alignment, size_t size)`.
    GetParameterBuffer,
    /// `void *cudaGetParameterBufferV2(void *func, dim3 grid, dim3 block, unsigned smem)`.
    GetParameterBufferV2,
    /// `cudaError_t cudaLaunchDevice(void *func, void *params, dim3 grid, dim3 block,
    /// unsigned smem, cudaStream_t stream)` (and its `_ptsz` form).
    LaunchDevice,
    /// `cudaError_t cudaLaunchDeviceV2(void *params, cudaStream_t stream)` (and `_ptsz`).
    LaunchDeviceV2,
    /// `cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)`.
    StreamCreateWithFlags,
    /// `cudaError_t cudaStreamDestroy(cudaStream_t stream)`.
    StreamDestroy,
    /// `cudaError_t cudaGetDevice(int *device)`.
    GetDevice,
    /// `cudaError_t cudaGetDeviceCount(int *count)`.
    GetDeviceCount,
    /// `cudaError_t cudaGetLastError(void)`.
    GetLastError,
    /// `cudaError_t cudaPeekAtLastError(void)`.
    PeekAtLastError,
    /// `cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)`.
    DeviceGetLimit,
    /// `cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)`.
    EventCreateWithFlags,
    /// `cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)` (`_ptsz`).
    EventRecord,
    /// `cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t, unsigned)` (`_ptsz`).
    EventRecordWithFlags,
    /// `cudaError_t cudaEventDestroy(cudaEvent_t event)`.
    EventDestroy,
    /// `cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned)` (`_ptsz`).
    StreamWaitEvent,
}

use CdpFn::*;

/// Entry points by name (without the `__cudaCDP2` or `cuda` prefix).
const NAMES: [(&str, CdpFn); 21] = [
    ("GetParameterBuffer", GetParameterBuffer),
    ("GetParameterBufferV2", GetParameterBufferV2),
    ("LaunchDevice", LaunchDevice),
    ("LaunchDevice_ptsz", LaunchDevice),
    ("LaunchDeviceV2", LaunchDeviceV2),
    ("LaunchDeviceV2_ptsz", LaunchDeviceV2),
    ("StreamCreateWithFlags", StreamCreateWithFlags),
    ("StreamDestroy", StreamDestroy),
    ("GetDevice", GetDevice),
    ("GetDeviceCount", GetDeviceCount),
    ("GetLastError", GetLastError),
    ("PeekAtLastError", PeekAtLastError),
    ("DeviceGetLimit", DeviceGetLimit),
    ("EventCreateWithFlags", EventCreateWithFlags),
    ("EventRecord", EventRecord),
    ("EventRecord_ptsz", EventRecord),
    ("EventRecordWithFlags", EventRecordWithFlags),
    ("EventRecordWithFlags_ptsz", EventRecordWithFlags),
    ("EventDestroy", EventDestroy),
    ("StreamWaitEvent", StreamWaitEvent),
    ("StreamWaitEvent_ptsz", StreamWaitEvent),
];

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

/// The name without the device runtime's prefix, if it has one.
fn stem(name: &str) -> Option<&str> {
    name.strip_prefix("__cudaCDP2")
        .or_else(|| name.strip_prefix("cuda"))
}

impl CdpFn {
    /// The entry point `name` stands for.
    pub fn from_name(name: &str) -> Option<CdpFn> {
        let s = stem(name)?;
        NAMES.iter().find(|(n, _)| *n == s).map(|&(_, f)| f)
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
        match self {
            GetParameterBuffer => &[8, 8],
            GetParameterBufferV2 => &[8, 12, 12, 4],
            LaunchDevice => &[8, 8, 12, 12, 4, 8],
            LaunchDeviceV2 => &[8, 8],
            StreamCreateWithFlags | EventCreateWithFlags => &[8, 4],
            StreamDestroy | GetDevice | GetDeviceCount | EventDestroy => &[8],
            GetLastError | PeekAtLastError => &[],
            DeviceGetLimit => &[8, 4],
            EventRecord => &[8, 8],
            EventRecordWithFlags | StreamWaitEvent => &[8, 8, 4],
        }
    }

    /// The operand types: `U32` for 4-byte parameters, `U64` for 8-byte ones and for
    /// `dim3` (its address, see the module doc).
    pub fn params(self) -> &'static [Type] {
        use Type::{U32, U64};
        match self {
            GetParameterBuffer | LaunchDeviceV2 | EventRecord => &[U64, U64],
            GetParameterBufferV2 => &[U64, U64, U64, U32],
            LaunchDevice => &[U64, U64, U64, U64, U32, U64],
            StreamCreateWithFlags | EventCreateWithFlags | DeviceGetLimit => &[U64, U32],
            StreamDestroy | GetDevice | GetDeviceCount | EventDestroy => &[U64],
            GetLastError | PeekAtLastError => &[],
            EventRecordWithFlags | StreamWaitEvent => &[U64, U64, U32],
        }
    }

    /// The return type: a pointer for the parameter buffers, `cudaError_t` otherwise.
    pub fn result(self) -> Type {
        match self {
            GetParameterBuffer | GetParameterBufferV2 => Type::U64,
            _ => Type::U32,
        }
    }

    /// Whether parameter `k` is a `dim3` passed by value (its operand is an address).
    pub fn is_dim3(self, k: usize) -> bool {
        self.param_sizes().get(k) == Some(&12)
    }

    /// A number for the JIT's helper call (index into the list of entry points).
    pub fn code(self) -> u32 {
        ALL.iter().position(|&f| f == self).unwrap_or(0) as u32
    }

    /// Inverse of [`CdpFn::code`].
    pub fn from_code(c: u32) -> Option<CdpFn> {
        ALL.get(c as usize).copied()
    }
}

/// Every entry point, in [`CdpFn::code`] order.
const ALL: [CdpFn; 16] = [
    GetParameterBuffer,
    GetParameterBufferV2,
    LaunchDevice,
    LaunchDeviceV2,
    StreamCreateWithFlags,
    StreamDestroy,
    GetDevice,
    GetDeviceCount,
    GetLastError,
    PeekAtLastError,
    DeviceGetLimit,
    EventCreateWithFlags,
    EventRecord,
    EventRecordWithFlags,
    EventDestroy,
    StreamWaitEvent,
];
