//! Stand-in for ptxjit's public API (see Cargo.toml): `launch` calls `host_launch` in
//! libhostkernels.so, which runs the host-compiled CUDA sources.
#![allow(dead_code)]
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::fmt;

#[link(name = "hostkernels")]
extern "C" {
    fn host_launch(
        name: *const c_char,
        grid: *const c_uint,
        block: *const c_uint,
        shared: c_uint,
        args: *mut *mut c_void,
    ) -> c_int;
}

pub struct Device;
pub struct Module;
pub struct Buffer {
    mem: Box<[u128]>,
    len: usize,
}
impl Buffer {
    pub fn ptr(&self) -> u64 {
        self.mem.as_ptr() as u64
    }
    pub fn len(&self) -> usize {
        self.len
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    #[default]
    Jit,
    Interp,
}

pub struct Dim3(pub [u32; 3]);
impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3([x, 1, 1])
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3([x, y, 1])
    }
}
impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Dim3 {
        Dim3(d)
    }
}

pub struct LaunchConfig {
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
}
impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig {
            grid: grid.into().0,
            block: block.into().0,
            shared: 0,
        }
    }
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.shared = bytes;
        self
    }
    pub fn backend(self, _: Backend) -> Self {
        self
    }
}

/// The bytes of one kernel argument (pointers as their 8-byte value).
pub enum KernelArg {
    Bytes(Vec<u8>),
}
impl KernelArg {
    fn bytes(&self) -> &[u8] {
        let KernelArg::Bytes(b) = self;
        b
    }
}
macro_rules! karg {
    ($($t:ty),*) => {$(impl From<$t> for KernelArg { fn from(x: $t) -> Self { KernelArg::Bytes(x.to_le_bytes().to_vec()) } })*};
}
karg!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);
impl From<&Buffer> for KernelArg {
    fn from(b: &Buffer) -> Self {
        KernelArg::Bytes(b.ptr().to_le_bytes().to_vec())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kernel: String,
    pub file: String,
    pub line: u32,
    pub inst: String,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub addr: u64,
}
#[derive(Debug)]
pub enum Error {
    Fault(Fault),
    Host(String),
}
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

pub trait DeviceCopy: Copy + 'static {}
macro_rules! dc {
    ($($t:ty),*) => {$(impl DeviceCopy for $t {})*};
}
dc!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

impl Device {
    pub fn new() -> Result<Device, Error> {
        Ok(Device)
    }
    pub fn load_ptx(&self, _src: &str, _file: &str) -> Result<Module, Error> {
        Ok(Module)
    }
    pub fn load_ptx_with(&self, _src: &str, _file: &str, _jit: bool) -> Result<Module, Error> {
        Ok(Module)
    }
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<Buffer, Error> {
        Ok(Buffer {
            mem: vec![0u128; bytes.div_ceil(16).max(1)].into_boxed_slice(),
            len: bytes,
        })
    }
    pub fn alloc_from<T: DeviceCopy>(&self, data: &[T]) -> Result<Buffer, Error> {
        let b = self.alloc_zeroed(std::mem::size_of_val(data))?;
        self.write(&b, data)?;
        Ok(b)
    }
    pub fn write<T: DeviceCopy>(&self, b: &Buffer, data: &[T]) -> Result<(), Error> {
        let n = std::mem::size_of_val(data);
        assert!(n <= b.len);
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr() as *const u8, b.mem.as_ptr() as *mut u8, n)
        };
        Ok(())
    }
    pub fn read<T: DeviceCopy>(&self, b: &Buffer) -> Result<Vec<T>, Error> {
        let n = b.len / std::mem::size_of::<T>();
        let mut v = Vec::<T>::with_capacity(n);
        unsafe {
            std::ptr::copy_nonoverlapping(
                b.mem.as_ptr() as *const u8,
                v.as_mut_ptr() as *mut u8,
                n * std::mem::size_of::<T>(),
            );
            v.set_len(n);
        }
        Ok(v)
    }
    pub fn launch(
        &self,
        _m: &Module,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[KernelArg],
    ) -> Result<(), Error> {
        let name = CString::new(kernel).unwrap();
        let mut bufs: Vec<Vec<u64>> = args
            .iter()
            .map(|a| {
                let a = a.bytes();
                let mut v = vec![0u64; a.len().div_ceil(8) + 1];
                unsafe {
                    std::ptr::copy_nonoverlapping(a.as_ptr(), v.as_mut_ptr() as *mut u8, a.len())
                };
                v
            })
            .collect();
        let mut ptrs: Vec<*mut c_void> = bufs
            .iter_mut()
            .map(|b| b.as_mut_ptr() as *mut c_void)
            .collect();
        let rc = unsafe {
            host_launch(
                name.as_ptr(),
                cfg.grid.as_ptr(),
                cfg.block.as_ptr(),
                cfg.shared,
                ptrs.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(Error::Host(format!("no host kernel {kernel}")));
        }
        Ok(())
    }
}
