//! The public device API: [`Device`] (memory, module loading, launches), [`Buffer`],
//! [`Module`], [`KernelArg`] and [`LaunchConfig`].

use crate::exec::region::RegionKind;
use crate::exec::ModuleLayout;
use crate::ir::{self, FuncKind, Space};
use crate::runtime::error::{Error, Result};
use crate::runtime::memory::DeviceMemory;
use std::sync::Arc;

/// Default size of the reserved device address range (committed lazily).
pub const DEFAULT_MEMORY_BYTES: u64 = 64 << 30;

/// Which backend runs a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Native code compiled by Cranelift (at a kernel's first launch, or at load time
    /// with [`DeviceOptions::jit_eager`]).
    #[default]
    Jit,
    /// The reference interpreter.
    Interp,
}

/// Device settings.
#[derive(Clone, Debug)]
pub struct DeviceOptions {
    /// OS threads that run CTAs (default: one per core).
    pub threads: usize,
    /// Bytes of address space reserved for device memory.
    pub memory_bytes: u64,
    /// Which JIT code modules get (default: `PTXJIT_JIT_TIER`, else tiered: quick code
    /// at load, optimized in the background for kernels that run a while).
    pub jit_tier: crate::jit::JitTier,
    /// Compile every kernel of a module when it loads (default: `PTXJIT_EAGER=1`, else
    /// false: a module load parses and checks the whole module, and each kernel is
    /// compiled, with the functions it reaches, at its first launch; a JIT error is then
    /// an [`Error::Compile`] of that launch).
    pub jit_eager: bool,
    /// The sanitizers every launch runs under unless its [`LaunchConfig::sanitize`]
    /// says otherwise (default: `PTXJIT_SANITIZE`). With memcheck, freed memory is
    /// kept from reuse and live allocations are reported as leaks when the device goes.
    pub sanitize: Option<crate::config::SanitizeOptions>,
    /// Where the findings left at the device's end go as JSON (besides stderr).
    pub sanitize_json: Option<std::path::PathBuf>,
    /// Check accesses against each allocation's requested size instead of the GPU's
    /// 256-byte granule (default false: as on a GPU, the padding of an allocation is
    /// addressable). The fuzzing harness sets it, so a read one byte past a buffer is a
    /// fault without the cost of a sanitizer.
    pub exact_bounds: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: DEFAULT_MEMORY_BYTES,
            jit_tier: crate::config::EnvConfig::read().jit_tier,
            jit_eager: crate::config::EnvConfig::read().jit_eager,
            sanitize: crate::config::EnvConfig::read().sanitize,
            sanitize_json: None,
            exact_bounds: false,
        }
    }
}

pub(crate) struct DeviceInner {
    pub(crate) mem: DeviceMemory,
    pub(crate) opts: DeviceOptions,
    /// Launches started so far (`%gridid` is this counter after the increment).
    pub(crate) launches: std::sync::atomic::AtomicU64,
    /// Kernel `printf` output kept for [`Device::take_output`] (`None`: to stdout).
    pub(crate) captured: std::sync::Mutex<Option<Vec<u8>>>,
    /// The worker threads of multi-worker launches.
    pub(crate) pool: super::pool::Pool,
    /// The device heap of kernels' `malloc`/`free`, made at the first launch that needs
    /// it (see [`Device::set_malloc_heap_size`]).
    pub(crate) heap: std::sync::Mutex<HeapSlot>,
    /// Findings of report-only sanitizer launches not yet taken.
    pub(crate) findings: std::sync::Mutex<super::sanitize::Report>,
    /// Sanitized launches run one at a time (they share the device's shadow state).
    pub(crate) san_lock: std::sync::Mutex<()>,
    /// Texture and surface objects (`super::texture`).
    pub(crate) textures: Arc<crate::exec::texture::TextureTable>,
    /// Dynamic parallelism: the pending-launch limit and device-runtime state.
    pub(crate) cdp: std::sync::Mutex<super::cdp::CdpSlot>,
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        let mut report = std::mem::take(self.findings.get_mut().unwrap_or_else(|e| e.into_inner()));
        if self.opts.sanitize.is_some_and(|o| o.memcheck) {
            for (a, len) in self.mem.live(RegionKind::Alloc) {
                report.add(super::sanitize::Finding::leak(a, len));
            }
            let slot = self.heap.get_mut().unwrap_or_else(|e| e.into_inner());
            for f in super::sanitize::heap_leaks(slot) {
                report.add(f);
            }
        }
        if let Some(p) = &self.opts.sanitize_json {
            if let Err(e) = std::fs::write(p, report.to_json()) {
                eprintln!(
                    "ptxjit: cannot write the sanitizer report to {}: {e}",
                    p.display()
                );
            }
        }
        if !report.is_empty() {
            eprint!("{report}");
        }
    }
}

/// The size of the device heap and, once made, the heap.
pub(crate) struct HeapSlot {
    pub(crate) limit: u64,
    pub(crate) heap: Option<Arc<crate::exec::heap::DeviceHeap>>,
    /// memcheck: the located `malloc` of each block a sanitized launch left live (a
    /// leak unless freed before the device goes).
    pub(crate) leak_sites: std::collections::HashMap<u64, super::sanitize::Finding>,
}

/// The default device heap size (`CU_LIMIT_MALLOC_HEAP_SIZE`), as on a GPU: 8 MiB.
pub const DEFAULT_MALLOC_HEAP_BYTES: u64 = 8 << 20;

/// A CPU device: owns device memory and runs kernels. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

/// A device allocation: a device address and a length in bytes. Kernel arguments take
/// its address; it stays valid until [`Device::free`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    ptr: u64,
    len: usize,
}

impl Buffer {
    /// The device address (also a host address inside the device range).
    pub fn ptr(&self) -> u64 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Plain-data element types that can be copied to and from device memory.
///
/// # Safety
/// Implementors must be plain old data: every bit pattern valid, no padding.
pub unsafe trait DeviceCopy: Copy + Default + 'static {}
macro_rules! device_copy {
    ($($t:ty)*) => { $(unsafe impl DeviceCopy for $t {})* };
}
device_copy!(u8 u16 u32 u64 i8 i16 i32 i64 f32 f64);

fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: DeviceCopy types are plain data without padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

impl Device {
    /// A device with default options (one worker thread per core, 64 GiB of address
    /// space reserved for device memory).
    pub fn new() -> Result<Device> {
        Device::with_options(DeviceOptions::default())
    }

    pub fn with_options(opts: DeviceOptions) -> Result<Device> {
        // Reserve the requested address space; where the host refuses (a virtual-memory
        // limit, strict overcommit), fall back to smaller reservations down to 256 MiB.
        let mut size = opts.memory_bytes;
        let mut mem = loop {
            match DeviceMemory::new(size) {
                Ok(m) => break m,
                Err(e) if size <= 256 << 20 => return Err(e.into()),
                Err(_) => size /= 4,
            }
        };
        let opts = DeviceOptions {
            memory_bytes: mem.size(),
            ..opts
        };
        let opts = DeviceOptions {
            threads: opts.threads.max(1),
            ..opts
        };
        mem.set_quarantine(opts.sanitize.is_some_and(|o| o.memcheck));
        Ok(Device {
            inner: Arc::new(DeviceInner {
                mem,
                opts,
                launches: std::sync::atomic::AtomicU64::new(0),
                captured: std::sync::Mutex::new(None),
                pool: super::pool::Pool::default(),
                heap: std::sync::Mutex::new(HeapSlot {
                    limit: DEFAULT_MALLOC_HEAP_BYTES,
                    heap: None,
                    leak_sites: Default::default(),
                }),
                findings: Default::default(),
                san_lock: Default::default(),
                textures: Default::default(),
                cdp: Default::default(),
            }),
        })
    }

    /// Keeps kernel `printf` output (from launches that end after this call) for
    /// [`Device::take_output`] instead of writing it to the process's stdout (the
    /// default); `false` goes back to stdout.
    pub fn capture_output(&self, on: bool) {
        let mut c = self
            .inner
            .captured
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match (on, c.is_some()) {
            (true, false) => *c = Some(Vec::new()),
            (false, _) => *c = None,
            _ => {}
        }
    }

    /// The kernel `printf` output captured since the last call (see
    /// [`Device::capture_output`]); empty when not capturing.
    pub fn take_output(&self) -> String {
        let mut c = self
            .inner
            .captured
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let bytes = c.as_mut().map(std::mem::take).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Delivers one launch's `printf` output: to the capture buffer, else to stdout.
    pub(crate) fn emit_output(&self, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        let mut c = self
            .inner
            .captured
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match c.as_mut() {
            Some(buf) => buf.extend_from_slice(text),
            None => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text);
                let _ = out.flush();
            }
        }
    }

    /// The size of the device heap kernels' `malloc` allocates from
    /// (`CU_LIMIT_MALLOC_HEAP_SIZE`; 8 MiB unless set).
    pub fn malloc_heap_size(&self) -> u64 {
        self.heap_slot().limit
    }

    /// Sets the device heap size. As on a GPU, this is only possible before the first
    /// launch of a kernel that uses `malloc`/`free`; afterwards it is an error.
    pub fn set_malloc_heap_size(&self, bytes: u64) -> Result<()> {
        let mut slot = self.heap_slot();
        if slot.heap.is_some() {
            return Err(Error::Host(
                "the device heap size cannot change after a kernel has used malloc/free".into(),
            ));
        }
        slot.limit = bytes;
        Ok(())
    }

    fn heap_slot(&self) -> std::sync::MutexGuard<'_, HeapSlot> {
        self.inner.heap.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device heap if made.
    pub(crate) fn heap_slot_heap(&self) -> Option<Arc<crate::exec::heap::DeviceHeap>> {
        self.heap_slot().heap.clone()
    }

    /// The located `malloc` sites of blocks sanitized launches left live.
    pub(crate) fn with_heap_slot<R>(&self, f: impl FnOnce(&mut HeapSlot) -> R) -> R {
        f(&mut self.heap_slot())
    }

    /// The device heap, made (one device allocation of the heap size) on first use.
    pub(crate) fn device_heap(&self) -> Result<Arc<crate::exec::heap::DeviceHeap>> {
        let mut slot = self.heap_slot();
        if let Some(h) = &slot.heap {
            return Ok(h.clone());
        }
        let base = self.inner.mem.alloc(slot.limit, 256, RegionKind::Global)?;
        let h = Arc::new(crate::exec::heap::DeviceHeap::new(base, slot.limit));
        slot.heap = Some(h.clone());
        Ok(h)
    }

    pub fn options(&self) -> &DeviceOptions {
        &self.inner.opts
    }

    /// Allocates `bytes` zero bytes.
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<Buffer> {
        let ptr = self.inner.mem.alloc(bytes as u64, 0, RegionKind::Alloc)?;
        Ok(Buffer { ptr, len: bytes })
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn alloc_from<T: DeviceCopy>(&self, data: &[T]) -> Result<Buffer> {
        let b = self.alloc_zeroed(std::mem::size_of_val(data))?;
        self.inner.mem.write(b.ptr, as_bytes(data))?;
        Ok(b)
    }

    /// Copies `data` to the start of `buf`.
    pub fn write<T: DeviceCopy>(&self, buf: &Buffer, data: &[T]) -> Result<()> {
        Ok(self.inner.mem.write(buf.ptr, as_bytes(data))?)
    }

    /// Reads the whole buffer as elements of `T` (a trailing partial element is dropped).
    pub fn read<T: DeviceCopy>(&self, buf: &Buffer) -> Result<Vec<T>> {
        let n = buf.len / std::mem::size_of::<T>().max(1);
        let mut out = vec![T::default(); n];
        // SAFETY: DeviceCopy types accept any bit pattern.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr() as *mut u8,
                n * std::mem::size_of::<T>(),
            )
        };
        self.inner.mem.read(buf.ptr, bytes)?;
        Ok(out)
    }

    /// Reads raw bytes at any device address range inside one allocation.
    pub fn read_bytes(&self, ptr: u64, out: &mut [u8]) -> Result<()> {
        Ok(self.inner.mem.read(ptr, out)?)
    }

    /// Checks that `[ptr, ptr+len)` lies inside one live allocation or module variable
    /// (then the range may be accessed directly through host pointers: a device address
    /// is a host address).
    pub fn check_range(&self, ptr: u64, len: u64) -> Result<()> {
        Ok(self.inner.mem.check_range(ptr, len)?)
    }

    /// Makes the host memory `[ptr, ptr+len)` reachable by kernels at its own address
    /// (`cuMemHostRegister`): launches and copies accept it as device memory until
    /// [`Device::unregister_host`]. Ranges overlapping device memory or another
    /// registered range are refused.
    ///
    /// # Safety
    /// The memory must stay valid (mapped, readable and writable) until it is
    /// unregistered.
    pub unsafe fn register_host(&self, ptr: *mut u8, len: usize) -> Result<()> {
        Ok(self.inner.mem.register_host(ptr as u64, len as u64)?)
    }

    /// Ends the registration of the host range starting at `ptr`.
    pub fn unregister_host(&self, ptr: *mut u8) -> Result<()> {
        self.inner.mem.unregister_host(ptr as u64)?;
        Ok(())
    }

    /// The registered host range holding `ptr`: (start, length).
    pub fn registered_range(&self, ptr: u64) -> Option<(u64, usize)> {
        let (s, l) = self.inner.mem.registered_range(ptr)?;
        Some((s, l as usize))
    }

    /// The reserved device address range `[lo, hi)`: every device pointer lies inside it.
    pub fn address_range(&self) -> (u64, u64) {
        let m = &self.inner.mem;
        (m.base(), m.base() + m.size())
    }

    /// Allocates `bytes` that initcheck treats as never written (`cuMemAlloc`: a GPU
    /// leaves new memory uninitialised; ptxjit zero-fills it all the same).
    pub fn alloc_uninit(&self, bytes: usize) -> Result<Buffer> {
        let ptr = self.inner.mem.alloc_uninit(bytes as u64, 0)?;
        Ok(Buffer { ptr, len: bytes })
    }

    /// Tells initcheck that `[ptr, ptr+len)` was written by the host (copies and
    /// fills that bypass [`Device::write`]).
    pub fn mark_written(&self, ptr: u64, len: u64) {
        self.inner
            .mem
            .init
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .mark(ptr, len);
    }

    /// The findings report-only sanitizer launches collected since the last call
    /// (deduplicated by kind and instruction pair); what is not taken is printed to
    /// stderr when the device goes.
    pub fn take_sanitizer_report(&self) -> super::sanitize::Report {
        std::mem::take(
            &mut *self
                .inner
                .findings
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        )
    }

    /// memcheck's leak report: the device allocations live now.
    pub fn leaks(&self) -> super::sanitize::Report {
        let mut r = super::sanitize::Report::default();
        for (a, len) in self.inner.mem.live(RegionKind::Alloc) {
            r.add(super::sanitize::Finding::leak(a, len));
        }
        for f in super::sanitize::heap_leaks(&self.heap_slot()) {
            r.add(f);
        }
        r
    }

    /// Frees a buffer.
    pub fn free(&self, buf: Buffer) -> Result<()> {
        Ok(self.inner.mem.free(buf.ptr)?)
    }

    /// Parses and checks PTX text, and JIT-compiles it (each kernel at its first launch,
    /// or all now with [`DeviceOptions::jit_eager`]). `file` names the source in messages.
    pub fn load_ptx(&self, src: &str, file: &str) -> Result<Module> {
        self.load_ptx_with(src, file, true)
    }

    /// Like [`Device::load_ptx`]; with `jit == false` the module is not compiled and
    /// can only run on [`Backend::Interp`].
    pub fn load_ptx_with(&self, src: &str, file: &str, jit: bool) -> Result<Module> {
        let ir = crate::check::parse_and_check(src, file)?;
        Module::new(self.clone(), ir, jit, false)
    }

    /// Like [`Device::load_ptx_with`], with kernel coverage counters
    /// ([`Module::coverage`]): both backends count every block entry of the module's
    /// functions (the JIT code of this module only; others pay nothing).
    pub fn load_ptx_with_coverage(&self, src: &str, file: &str, jit: bool) -> Result<Module> {
        let ir = crate::check::parse_and_check(src, file)?;
        Module::new(self.clone(), ir, jit, true)
    }

    /// Links PTX sources, `(text, file name)` pairs, into one module (see [`crate::link`]:
    /// `.extern` functions and variables resolve across them) and loads it.
    pub fn load_ptx_linked(&self, srcs: &[(&str, &str)], jit: bool) -> Result<Module> {
        let ir = crate::link::link(srcs, "linked.ptx")?;
        Module::new(self.clone(), ir, jit, false)
    }
}

/// A loaded module: checked IR, its variables in device memory and its compiled code.
#[derive(Clone)]
pub struct Module {
    pub(crate) inner: Arc<ModuleInner>,
}

pub(crate) struct ModuleInner {
    pub(crate) device: Device,
    pub(crate) ir: ir::Module,
    pub(crate) layout: ModuleLayout,
    pub(crate) jit: Option<crate::jit::JitModule>,
    /// Some function calls device-side `malloc` or `free`.
    /// Whether a function of the module uses `alloca`/`stacksave`/`stackrestore`
    /// (launches then keep `exec::stack::ALLOCA_BYTES` per thread for them).
    pub(crate) uses_stack: bool,
    pub(crate) uses_heap: bool,
    /// The kernels' parameter shapes when some function calls the device runtime
    /// (dynamic parallelism, `super::cdp`).
    pub(crate) cdp_kernels: Option<Arc<crate::exec::cdp::KernelSigs>>,
    /// The sanitizer variant of the JIT code, compiled for the first sanitized launch.
    pub(crate) jit_san: std::sync::OnceLock<std::result::Result<crate::jit::JitModule, String>>,
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        for &a in &self.layout.global_addrs {
            // A `.texref`/`.surfref` binding is keyed by its variable's address.
            self.device.inner.textures.remove(a);
            let _ = self.device.inner.mem.free(a);
        }
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("file", &self.inner.ir.file)
            .field("kernels", &self.kernels())
            .finish()
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("threads", &self.inner.opts.threads)
            .finish()
    }
}

impl Module {
    fn new(device: Device, ir: ir::Module, jit: bool, coverage: bool) -> Result<Module> {
        let mem = &device.inner.mem;
        let mut layout = ModuleLayout::default();
        // Allocate every variable first, then write initializers with relocations.
        let mut inner = ModuleInner {
            device: device.clone(),
            ir,
            layout: ModuleLayout::default(),
            jit: None,
            uses_heap: false,
            cdp_kernels: None,
            uses_stack: false,
            jit_san: std::sync::OnceLock::new(),
        };
        inner.uses_heap = inner.ir.functions.iter().any(|f| {
            f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
                matches!(
                    i.kind,
                    ir::InstKind::Builtin {
                        op: ir::Builtin::Malloc | ir::Builtin::Free,
                        ..
                    }
                )
            })
        });
        inner.cdp_kernels = super::cdp::kernel_sigs(&inner.ir);
        inner.uses_stack = inner.ir.functions.iter().any(|f| {
            f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
                matches!(
                    i.kind,
                    ir::InstKind::Builtin {
                        op: ir::Builtin::Alloca { .. }
                            | ir::Builtin::StackSave { .. }
                            | ir::Builtin::StackRestore { .. },
                        ..
                    }
                )
            })
        });
        for g in &inner.ir.globals {
            let kind = if g.space == Space::Const {
                RegionKind::Const
            } else {
                RegionKind::Global
            };
            let addr = mem.alloc(g.size, g.align as u64, kind)?;
            layout.global_addrs.push(addr);
        }
        if coverage {
            layout.coverage = Some(Arc::new(crate::exec::coverage::CoverageMap::new(&inner.ir)));
        }
        inner.layout = layout;
        for (i, g) in inner.ir.globals.iter_enumerated() {
            let mut bytes = g.init.clone();
            bytes.resize(g.size as usize, 0);
            for r in &g.relocs {
                let target = match r.target {
                    ir::RelocTarget::Global(id) => {
                        inner.layout.global_addrs.get(id).copied().unwrap_or(0)
                    }
                    ir::RelocTarget::Func(f) => crate::exec::call::FUNC_ADDR_BASE + f.0 as u64,
                };
                let v = target.wrapping_add(r.addend as u64).to_le_bytes();
                let (o, n) = (r.offset as usize, r.size as usize);
                if let Some(dst) = bytes.get_mut(o..o + n) {
                    dst.copy_from_slice(&v[..n]);
                }
            }
            if !bytes.is_empty() {
                mem.write(inner.layout.global_addrs[i], &bytes)?;
            }
        }
        super::texture::register_samplers(&device, &inner.ir, &inner.layout.global_addrs);
        if jit {
            let tier = device.inner.opts.jit_tier;
            inner.jit = Some(match device.inner.opts.jit_eager {
                true => crate::jit::JitModule::compile_tier(&inner.ir, &inner.layout, tier)?,
                false => crate::jit::JitModule::lazy(tier),
            });
        }
        Ok(Module {
            inner: Arc::new(inner),
        })
    }

    /// The checked IR.
    pub fn ir(&self) -> &ir::Module {
        &self.inner.ir
    }

    /// Where the JIT compile time went so far: at load with
    /// [`DeviceOptions::jit_eager`], else at first launches (`None`: loaded without JIT
    /// code). Background compiles of the optimized tier are not counted.
    pub fn compile_stats(&self) -> Option<crate::jit::CompileStats> {
        self.inner.jit.as_ref().map(|j| j.stats())
    }

    /// How many kernels have JIT code now (each is compiled at its first launch unless
    /// the module was loaded with [`DeviceOptions::jit_eager`]).
    pub fn compiled_kernels(&self) -> usize {
        self.inner.jit.as_ref().map_or(0, |j| j.compiled_kernels())
    }

    /// Whether every compiled kernel now has the optimized JIT tier (see
    /// [`crate::jit::JitTier`]).
    pub fn jit_optimized(&self) -> bool {
        self.inner.jit.as_ref().is_some_and(|j| j.is_optimized())
    }

    /// The kernel coverage counters (modules loaded with
    /// [`Device::load_ptx_with_coverage`]; `None` otherwise).
    pub fn coverage(&self) -> Option<&crate::exec::coverage::CoverageMap> {
        self.inner.layout.coverage.as_deref()
    }

    /// The address layout of the module's variables.
    pub fn layout(&self) -> &ModuleLayout {
        &self.inner.layout
    }

    /// Names of the kernels (`.entry` functions with a body).
    pub fn kernels(&self) -> Vec<&str> {
        self.inner
            .ir
            .functions
            .iter()
            .filter(|f| f.kind == FuncKind::Entry && f.has_body())
            .map(|f| f.name.as_str())
            .collect()
    }

    /// Whether kernel `name`'s JIT code runs its barriers as continuations
    /// (`jit::control::cont`; `None`: no such kernel, or no JIT code for it yet).
    pub fn barriers_as_continuations(&self, name: &str) -> Option<bool> {
        let (id, _) = self.kernel(name).ok()?;
        let jit = self.inner.jit.as_ref()?;
        jit.code(id)?;
        Some(jit.continuations(id))
    }

    /// The parameters of kernel `name`.
    pub fn kernel_params(&self, name: &str) -> Result<&[ir::Param]> {
        let (_, f) = self.kernel(name)?;
        Ok(&f.params)
    }

    /// A module `.global`/`.const` variable as a buffer (e.g. to read or set it).
    pub fn global(&self, name: &str) -> Option<Buffer> {
        let (i, g) = (self.inner.ir.globals.iter_enumerated()).find(|(_, g)| g.name == name)?;
        Some(Buffer {
            ptr: self.inner.layout.global_addrs[i],
            len: g.size as usize,
        })
    }

    pub(crate) fn kernel(&self, name: &str) -> Result<(ir::FuncId, &ir::Function)> {
        match self.inner.ir.function(name) {
            Some((id, f)) if f.kind == FuncKind::Entry && f.has_body() => Ok((id, f)),
            _ => Err(Error::NoKernel {
                name: name.to_string(),
                file: self.inner.ir.file.clone(),
                available: self.kernels().join(", "),
            }),
        }
    }
}

/// Grid or block dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3([x, 1, 1])
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3([x, y, 1])
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3([x, y, z])
    }
}
impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Self {
        Dim3(d)
    }
}

/// How to launch a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (`.extern .shared` arrays).
    pub shared_bytes: u32,
    pub backend: Backend,
    /// Check `.uni` assertions: a `bra.uni`, `brx.idx.uni` or `call.uni` whose active
    /// lanes disagree (divergent predicate, index or target) stops the launch with an
    /// error. Off by default: then `.uni` is a hint that ptxjit does not rely on, and a
    /// divergent `.uni` instruction behaves like its non-`.uni` form (on a GPU it is
    /// undefined).
    pub check_uniform: bool,
    /// Check shapes (interpreter only): each register the shape analysis calls uniform
    /// or affine is checked at every block entry and after every instruction, and a
    /// wrong claim stops the launch with an error naming the instruction and the
    /// register. Default: `PTXJIT_CHECK_SHAPES=1` ([`crate::config::EnvConfig`]).
    pub check_shapes: bool,
    /// The watchdog's time limit: a launch still running after it is stopped with an
    /// error naming, for each stopped warp, where it was (`None`: no limit). Default 600 s.
    pub timeout: Option<std::time::Duration>,
    /// The sanitizers this launch runs under (`None`: the device's
    /// [`DeviceOptions::sanitize`]). See `crate::exec::sanitize`.
    pub sanitize: Option<crate::config::SanitizeOptions>,
    /// The order CTAs and warps run in (see [`Schedule`]).
    pub schedule: Schedule,
    /// Thread block cluster dimensions (sm_90; `cudaLaunchAttributeClusterDimension`):
    /// the CTAs of a cluster run together and share their shared memory
    /// (`.shared::cluster`, `mapa`, `barrier.cluster`). `None`: the kernel's
    /// `.reqnctapercluster`, else clusters of one CTA. Each dimension must divide the
    /// grid's, and a cluster holds at most 16 CTAs.
    pub cluster: Option<[u32; 3]>,
    /// The conditional handles of the executable graph this launch is a node of, which
    /// `cudaGraphSetConditional` sets (`None`: not launched from a graph; see
    /// `crate::exec::graphcond`).
    pub conditions: Option<crate::exec::graphcond::ConditionsRef>,
    /// A cooperative launch (`cuLaunchCooperativeKernel`,
    /// `cudaLaunchAttributeCooperative`): every CTA of the grid runs at once (one
    /// scheduling unit on one worker), and the grid group has a handle whose
    /// `cudaCGSynchronize` is a barrier over the whole grid (`crate::exec::gridsync`).
    /// Clusters of more than one CTA cannot be combined with it.
    pub cooperative: bool,
}

/// The order a launch runs its CTAs and warps in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// CTAs in order over the device's workers, warps in order.
    #[default]
    InOrder,
    /// One worker; CTAs, and the warps of a CTA at every barrier, in an order drawn
    /// from this seed (the same seed gives the same order).
    Random(u64),
}

/// The default [`LaunchConfig::timeout`].
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig {
            grid: grid.into().0,
            block: block.into().0,
            shared_bytes: 0,
            backend: Backend::Jit,
            check_uniform: false,
            check_shapes: crate::config::EnvConfig::read().check_shapes,
            timeout: Some(DEFAULT_TIMEOUT),
            sanitize: None,
            schedule: Schedule::InOrder,
            cluster: None,
            conditions: None,
            cooperative: false,
        }
    }
    /// See [`LaunchConfig::cooperative`].
    pub fn cooperative(mut self, on: bool) -> Self {
        self.cooperative = on;
        self
    }
    /// See [`LaunchConfig::cluster`].
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Self {
        self.cluster = Some(dims.into().0);
        self
    }
    /// See [`LaunchConfig::sanitize`]; `SanitizeOptions::default()` turns the device's
    /// sanitizers off for this launch.
    pub fn sanitize(mut self, opts: crate::config::SanitizeOptions) -> Self {
        self.sanitize = Some(opts);
        self
    }
    /// See [`LaunchConfig::schedule`].
    pub fn schedule(mut self, s: Schedule) -> Self {
        self.schedule = s;
        self
    }
    /// See [`LaunchConfig::timeout`].
    pub fn timeout(mut self, limit: Option<std::time::Duration>) -> Self {
        self.timeout = limit;
        self
    }
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }
    /// See [`LaunchConfig::check_uniform`].
    pub fn check_uniform(mut self, on: bool) -> Self {
        self.check_uniform = on;
        self
    }
    /// See [`LaunchConfig::check_shapes`].
    pub fn check_shapes(mut self, on: bool) -> Self {
        self.check_shapes = on;
        self
    }
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }
}

/// A kernel argument: a scalar, a device pointer, or raw bytes (for `.param` arrays and
/// structs).
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    /// A device address (8 bytes).
    Ptr(u64),
    Bytes(Vec<u8>),
}

impl KernelArg {
    /// The bytes placed in the parameter buffer.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            KernelArg::U8(v) => v.to_le_bytes().to_vec(),
            KernelArg::U16(v) => v.to_le_bytes().to_vec(),
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) | KernelArg::Ptr(v) => v.to_le_bytes().to_vec(),
            KernelArg::I8(v) => v.to_le_bytes().to_vec(),
            KernelArg::I16(v) => v.to_le_bytes().to_vec(),
            KernelArg::I32(v) => v.to_le_bytes().to_vec(),
            KernelArg::I64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
            KernelArg::Bytes(b) => b.clone(),
        }
    }
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),*) => { $(impl From<$t> for KernelArg { fn from(x: $t) -> Self { KernelArg::$v(x) } })* };
}
arg_from!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64);

impl From<&Buffer> for KernelArg {
    fn from(b: &Buffer) -> Self {
        KernelArg::Ptr(b.ptr)
    }
}
impl From<Buffer> for KernelArg {
    fn from(b: Buffer) -> Self {
        KernelArg::Ptr(b.ptr)
    }
}
