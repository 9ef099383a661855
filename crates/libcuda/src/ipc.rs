//! CUDA IPC: device memory and events shared with other processes
//! (`cuIpcGetMemHandle`, `cuIpcOpenMemHandle`, `cuIpcCloseMemHandle`,
//! `cuIpcGetEventHandle`, `cuIpcOpenEventHandle`).
//!
//! # Memory
//! Device memory is a private anonymous mapping of the process (see
//! `ptxjit::runtime::memory`), which no other process can reach. At the first
//! `cuIpcGetMemHandle` the process makes one `memfd` as large as its device range; each
//! exported allocation's pages are then backed by that file at the same offset as in
//! the range (contents copied first, then the file mapped `MAP_SHARED | MAP_FIXED` over
//! them), so the device pointer stays and every handle of the process names one file.
//! A page shared by two allocations is moved once: a page already in the file stays
//! there (the file offset of an address never changes, so handles given out earlier
//! keep seeing the same bytes). The handle holds the exporter's pid, the file's
//! descriptor and a random token (also in the file's name), the allocation's offset
//! and size, and a serial number (a new allocation at a freed address gets a new
//! handle, as the driver documents).
//!
//! `cuIpcOpenMemHandle` opens `/proc/PID/fd/N` (checking the name's token), maps the
//! allocation's pages `MAP_SHARED | MAP_FIXED` over a page-aligned block it allocates
//! from its own device range, and returns the address of the allocation in it: the
//! memory is device memory of the importer (copies, kernels and pointer queries take
//! it), shared byte for byte with the exporter. Opening the same handle again in the
//! process counts a reference (the driver's rule); `cuIpcCloseMemHandle` drops one and
//! at zero maps private memory back and frees the block.
//!
//! `cuMemFree` of an exported allocation ([`unshare`]) maps private anonymous memory
//! back over its pages that no other exported allocation touches (copying the bytes of
//! neighbours that share its first or last page) and punches them out of the file.
//!
//! Every operation completes when its call returns (see [`crate::stream`]), so an
//! exported event is complete whenever it is queried: an opened event handle is a new
//! event of this process with `CU_EVENT_DISABLE_TIMING`.
//!
//! Limits: a kernel of another thread of the exporting process that writes the pages of
//! an allocation while `cuIpcGetMemHandle` moves them may lose those writes; the
//! importer's block spans whole pages, so its kernels may touch the exporter's bytes
//! around the allocation in its first and last page without a fault.

use crate::*;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

pub const CUDA_ERROR_MAP_FAILED: CUresult = 205;
/// `CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS`: an exportable event has both.
const EVENT_IPC_FLAGS: u32 = 0x2 | 0x4;
/// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, the one flag of `cuIpcOpenMemHandle`.
const LAZY_ENABLE_PEER_ACCESS: u32 = 1;
const MEM_MAGIC: &[u8; 8] = b"ptxjIPCm";
const EVENT_MAGIC: &[u8; 8] = b"ptxjIPCe";
const PAGE: u64 = 4096;

/// `CUipcMemHandle`: 64 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUipcMemHandle {
    pub reserved: [u8; 64],
}

/// `CUipcEventHandle`: 64 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUipcEventHandle {
    pub reserved: [u8; 64],
}

/// Why an IPC call failed (logged under `PTXJIT_CUDA_TRACE`; the caller gets a code).
#[derive(Debug, thiserror::Error)]
pub enum IpcError {
    #[error("memfd_create/ftruncate for the IPC file of {size} bytes: {err}")]
    File { size: u64, err: std::io::Error },
    #[error("copying device bytes [{addr:#x}, +{len}) into the IPC file: {err}")]
    Copy {
        addr: u64,
        len: u64,
        err: std::io::Error,
    },
    #[error("mapping [{addr:#x}, +{len}) {what}: {err}")]
    Map {
        addr: u64,
        len: u64,
        what: &'static str,
        err: std::io::Error,
    },
    #[error("opening {path}: {err}")]
    Open { path: String, err: std::io::Error },
    #[error("{path} is not this handle's IPC file (it names {found:?})")]
    Stale { path: String, found: String },
}

impl IpcError {
    fn code(&self) -> CUresult {
        match self {
            IpcError::File { .. } => CUDA_ERROR_OUT_OF_MEMORY,
            IpcError::Open { .. } | IpcError::Stale { .. } => CUDA_ERROR_INVALID_HANDLE,
            IpcError::Copy { .. } | IpcError::Map { .. } => CUDA_ERROR_MAP_FAILED,
        }
    }
}

/// Logs an IPC failure under `PTXJIT_CUDA_TRACE` and gives its code.
fn fail(e: IpcError) -> CUresult {
    if tracing() {
        log(&format!("ptxjit-cuda: IPC: {e}"));
    }
    e.code()
}

/// The exporting side's file.
struct SharedFile {
    fd: OwnedFd,
    token: u64,
    /// The device range's start: file offset 0.
    base: u64,
}

/// A mapping made by `cuIpcOpenMemHandle`.
struct Import {
    /// The block of this process's device memory the pages are mapped over.
    block: ptxjit::Buffer,
    /// The mapped pages: `[pages, pages + len)`.
    pages: u64,
    len: u64,
    /// The allocation's size (as exported).
    size: u64,
    refs: u32,
    key: HandleKey,
}

/// What identifies an exported allocation across processes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct HandleKey {
    pid: u32,
    token: u64,
    offset: u64,
    serial: u64,
}

/// The process's IPC state.
#[derive(Default)]
pub struct IpcTables {
    file: Option<SharedFile>,
    /// Exported allocations: start -> (serial, first page, end of the last page).
    exported: BTreeMap<u64, (u64, u64, u64)>,
    next_serial: u64,
    /// Opened handles: device pointer returned -> mapping.
    imports: BTreeMap<u64, Import>,
}

/// The page range `[lo, hi)` holding `[p, p + n)` (`n` rounded up to 256 bytes, the
/// granule kernels may address).
fn pages_of(p: u64, n: u64) -> (u64, u64) {
    let end = p + n.max(1).next_multiple_of(256);
    (p / PAGE * PAGE, end.next_multiple_of(PAGE))
}

/// The runs of pages in `[lo, hi)` that no exported allocation's pages cover.
fn uncovered(exported: &BTreeMap<u64, (u64, u64, u64)>, lo: u64, hi: u64) -> Vec<(u64, u64)> {
    let mut covered: Vec<(u64, u64)> = exported
        .values()
        .map(|&(_, a, b)| (a.max(lo), b.min(hi)))
        .filter(|(a, b)| a < b)
        .collect();
    covered.sort_unstable();
    let mut runs = Vec::new();
    let mut at = lo;
    for (a, b) in covered {
        if a > at {
            runs.push((at, a));
        }
        at = at.max(b);
    }
    if at < hi {
        runs.push((at, hi));
    }
    runs
}

fn last_os_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Maps `[addr, addr + len)` (page-aligned) over whatever is there: the file `fd` at
/// `offset`, shared, or (`fd` None) fresh private zero pages.
///
/// # Safety
/// The range must be device memory this process owns and no live data of which the
/// caller still needs (it is replaced).
unsafe fn map_fixed(addr: u64, len: u64, fd: Option<(i32, u64)>) -> Result<(), IpcError> {
    let prot = libc::PROT_READ | libc::PROT_WRITE;
    let (flags, fd, off, what) = match fd {
        Some((fd, off)) => (
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            off,
            "over the IPC file",
        ),
        None => (
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
            -1,
            0,
            "back to private memory",
        ),
    };
    let r = libc::mmap(
        addr as *mut libc::c_void,
        len as usize,
        prot,
        flags,
        fd,
        off as libc::off_t,
    );
    if r == libc::MAP_FAILED {
        return Err(IpcError::Map {
            addr,
            len,
            what,
            err: last_os_error(),
        });
    }
    Ok(())
}

/// The memfd's name for `token`.
fn file_name(token: u64) -> String {
    format!("ptxjit-ipc-{token:016x}")
}

fn random_token() -> u64 {
    let mut v = [0u8; 8];
    // SAFETY: writes at most 8 bytes into `v`.
    let n = unsafe { libc::getrandom(v.as_mut_ptr() as *mut libc::c_void, 8, 0) };
    let mut t = u64::from_le_bytes(v);
    if n != 8 {
        // No entropy source: the pid and the clock still tell files apart.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        t = now ^ (u64::from(std::process::id()) << 32);
    }
    t
}

/// The process's IPC file, made at the first export.
fn shared_file(d: &Driver, ipc: &mut IpcTables) -> Result<(i32, u64, u64), IpcError> {
    if ipc.file.is_none() {
        let (lo, hi) = d.device.address_range();
        let token = random_token();
        let size = hi - lo;
        let name = std::ffi::CString::new(file_name(token)).map_err(|_| IpcError::File {
            size,
            err: std::io::ErrorKind::InvalidInput.into(),
        })?;
        // SAFETY: a valid C string; the descriptor is owned below.
        let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(IpcError::File {
                size,
                err: last_os_error(),
            });
        }
        // SAFETY: a descriptor just made and owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: a valid descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), size as libc::off_t) } != 0 {
            return Err(IpcError::File {
                size,
                err: last_os_error(),
            });
        }
        ipc.file = Some(SharedFile {
            fd,
            token,
            base: lo,
        });
    }
    let f = ipc.file.as_ref().ok_or(IpcError::File {
        size: 0,
        err: std::io::ErrorKind::NotFound.into(),
    })?;
    Ok((f.fd.as_raw_fd(), f.token, f.base))
}

/// Moves the pages `[lo, hi)` of device memory into the file (contents kept).
fn share_pages(fd: i32, base: u64, lo: u64, hi: u64) -> Result<(), IpcError> {
    let len = hi - lo;
    let mut done = 0u64;
    while done < len {
        // SAFETY: `[lo, hi)` is mapped device memory of this process.
        let n = unsafe {
            libc::pwrite(
                fd,
                (lo + done) as *const libc::c_void,
                (len - done) as usize,
                (lo + done - base) as libc::off_t,
            )
        };
        if n <= 0 {
            return Err(IpcError::Copy {
                addr: lo,
                len,
                err: last_os_error(),
            });
        }
        done += n as u64;
    }
    // SAFETY: the file holds the pages' bytes now; the mapping replaces them in place.
    unsafe { map_fixed(lo, len, Some((fd, lo - base))) }
}

/// Puts pages `[lo, hi)` back into private memory, keeping the bytes of the first and
/// last page (the only ones other allocations may share), and drops them from the file.
fn unshare_pages(fd: i32, base: u64, lo: u64, hi: u64) -> Result<(), IpcError> {
    let keep: Vec<(u64, Vec<u8>)> = [lo, hi - PAGE]
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|p| {
            // SAFETY: a mapped page of device memory.
            let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, PAGE as usize) };
            (p, bytes.to_vec())
        })
        .collect();
    // SAFETY: the pages' needed bytes were saved just above.
    unsafe { map_fixed(lo, hi - lo, None)? };
    for (p, bytes) in keep {
        // SAFETY: a page just mapped, private and writable.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len()) };
    }
    // Frees the file's copy (best effort: the pages are private again either way).
    // SAFETY: a valid descriptor.
    unsafe {
        libc::fallocate(
            fd,
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            (lo - base) as libc::off_t,
            (hi - lo) as libc::off_t,
        )
    };
    Ok(())
}

/// Called by `cuMemFree` before the allocation `b` goes back to the device: ends its
/// export, if any.
pub fn unshare(t: &mut Tables, b: &ptxjit::Buffer) -> Res {
    let ipc = &mut t.ipc;
    let Some((_, lo, hi)) = ipc.exported.remove(&b.ptr()) else {
        return Ok(());
    };
    let Some(f) = &ipc.file else {
        return Ok(());
    };
    let (fd, base) = (f.fd.as_raw_fd(), f.base);
    for (a, z) in uncovered(&ipc.exported, lo, hi) {
        unshare_pages(fd, base, a, z).map_err(fail)?;
    }
    Ok(())
}

fn put(dst: &mut [u8; 64], at: usize, v: &[u8]) {
    dst[at..at + v.len()].copy_from_slice(v);
}

fn get_u64(src: &[u8; 64], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&src[at..at + 8]);
    u64::from_le_bytes(v)
}

fn get_u32(src: &[u8; 64], at: usize) -> u32 {
    let mut v = [0u8; 4];
    v.copy_from_slice(&src[at..at + 4]);
    u32::from_le_bytes(v)
}

/// The memory handle's bytes: magic, pid, descriptor, token, offset, size, serial.
fn encode_mem(key: HandleKey, fd: i32, size: u64) -> [u8; 64] {
    let mut h = [0u8; 64];
    put(&mut h, 0, MEM_MAGIC);
    put(&mut h, 8, &key.pid.to_le_bytes());
    put(&mut h, 12, &fd.to_le_bytes());
    put(&mut h, 16, &key.token.to_le_bytes());
    put(&mut h, 24, &key.offset.to_le_bytes());
    put(&mut h, 32, &size.to_le_bytes());
    put(&mut h, 40, &key.serial.to_le_bytes());
    h
}

fn decode_mem(h: &[u8; 64]) -> Option<(HandleKey, i32, u64)> {
    if &h[..8] != MEM_MAGIC {
        return None;
    }
    let key = HandleKey {
        pid: get_u32(h, 8),
        token: get_u64(h, 16),
        offset: get_u64(h, 24),
        serial: get_u64(h, 40),
    };
    Some((key, get_u32(h, 12) as i32, get_u64(h, 32)))
}

fn get_mem_handle(ph: *mut CUipcMemHandle, p: CUdeviceptr) -> Res {
    if ph.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let h = with_ctx(|d, t, _| {
        // The base of a live `cuMemAlloc` allocation, as the driver requires.
        let size = t.allocs.get(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?.len() as u64;
        let (fd, token, base) = shared_file(d, &mut t.ipc).map_err(fail)?;
        let ipc = &mut t.ipc;
        let serial = match ipc.exported.get(&p) {
            Some(&(s, _, _)) => s,
            None => {
                let (lo, hi) = pages_of(p, size);
                let runs = uncovered(&ipc.exported, lo, hi);
                for (k, &(a, z)) in runs.iter().enumerate() {
                    if let Err(e) = share_pages(fd, base, a, z) {
                        // Back to private memory for the runs already moved.
                        for &(a, z) in &runs[..k] {
                            let _ = unshare_pages(fd, base, a, z);
                        }
                        return Err(fail(e));
                    }
                }
                ipc.next_serial += 1;
                ipc.exported.insert(p, (ipc.next_serial, lo, hi));
                ipc.next_serial
            }
        };
        let key = HandleKey {
            pid: std::process::id(),
            token,
            offset: p - base,
            serial,
        };
        Ok(encode_mem(key, fd, size))
    })?;
    // SAFETY: checked non-null.
    unsafe { out(ph, CUipcMemHandle { reserved: h }) }
}

/// Opens the exporter's file named by a handle, checking that it is the file.
fn open_file(key: HandleKey, fd: i32) -> Result<OwnedFd, IpcError> {
    let path = format!("/proc/{}/fd/{fd}", key.pid);
    let found = std::fs::read_link(&path)
        .map_err(|err| IpcError::Open {
            path: path.clone(),
            err,
        })?
        .to_string_lossy()
        .into_owned();
    // A memfd's link reads "/memfd:NAME (deleted)".
    if found != format!("/memfd:{} (deleted)", file_name(key.token)) {
        return Err(IpcError::Stale { path, found });
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|err| IpcError::Open {
            path: path.clone(),
            err,
        })?;
    Ok(OwnedFd::from(file))
}

fn open_mem_handle(pp: *mut CUdeviceptr, h: CUipcMemHandle, flags: u32) -> Res {
    if pp.is_null() || flags & !LAZY_ENABLE_PEER_ACCESS != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let (key, fd, size) = decode_mem(&h.reserved).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    if key.pid == std::process::id() {
        // The driver's answer to opening a handle in the process that made it.
        return Err(CUDA_ERROR_INVALID_CONTEXT);
    }
    let ptr = with_ctx(|d, t, _| {
        if let Some((&p, imp)) = t.ipc.imports.iter_mut().find(|(_, i)| i.key == key) {
            imp.refs += 1;
            return Ok(p);
        }
        let file = open_file(key, fd).map_err(fail)?;
        let first = key.offset / PAGE * PAGE;
        let delta = key.offset - first;
        let len = (delta + size.max(1).next_multiple_of(256)).next_multiple_of(PAGE);
        // A block with a whole page-aligned run of `len` bytes inside it.
        let block = d
            .device
            .alloc_zeroed((len + PAGE) as usize)
            .map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
        let pages = block.ptr().next_multiple_of(PAGE);
        // SAFETY: `[pages, pages + len)` lies inside the fresh block.
        if let Err(e) = unsafe { map_fixed(pages, len, Some((file.as_raw_fd(), first))) } {
            let _ = d.device.free(block);
            return Err(fail(e));
        }
        let p = pages + delta;
        t.ipc.imports.insert(
            p,
            Import {
                block,
                pages,
                len,
                size,
                refs: 1,
                key,
            },
        );
        Ok(p)
    })?;
    // SAFETY: checked non-null.
    unsafe { out(pp, ptr) }
}

fn close_mem_handle(p: CUdeviceptr) -> Res {
    with_ctx(|d, t, _| {
        let imp = t.ipc.imports.get_mut(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        imp.refs -= 1;
        if imp.refs > 0 {
            return Ok(());
        }
        let imp = t.ipc.imports.remove(&p).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: the block's pages belong to this import, which ends here.
        unsafe { map_fixed(imp.pages, imp.len, None) }.map_err(fail)?;
        d.device
            .free(imp.block)
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)
    })
}

/// The opened allocation holding `p`: (device pointer, size), for pointer queries.
pub fn imported_range(t: &Tables, p: u64) -> Option<(u64, usize)> {
    let (&s, imp) = t.ipc.imports.range(..=p).next_back()?;
    (p < s + imp.size.max(1)).then_some((s, imp.size as usize))
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcGetMemHandle(ph: *mut CUipcMemHandle, p: CUdeviceptr) -> CUresult {
    guard(|| get_mem_handle(ph, p))
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle_v2(
    pp: *mut CUdeviceptr,
    h: CUipcMemHandle,
    flags: u32,
) -> CUresult {
    guard(|| open_mem_handle(pp, h, flags))
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle(
    pp: *mut CUdeviceptr,
    h: CUipcMemHandle,
    flags: u32,
) -> CUresult {
    guard(|| open_mem_handle(pp, h, flags))
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcCloseMemHandle(p: CUdeviceptr) -> CUresult {
    guard(|| close_mem_handle(p))
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcGetEventHandle(ph: *mut CUipcEventHandle, e: CUevent) -> CUresult {
    guard(|| {
        if ph.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let id = with_ctx(|_, t, _| {
            let id = handle_id(Kind::Event, e)
                .filter(|id| t.events.contains_key(id))
                .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            match t.events.get(&id) {
                Some(ev) if ev.flags & EVENT_IPC_FLAGS == EVENT_IPC_FLAGS => Ok(id),
                _ => Err(CUDA_ERROR_INVALID_VALUE),
            }
        })?;
        let mut h = [0u8; 64];
        put(&mut h, 0, EVENT_MAGIC);
        put(&mut h, 8, &std::process::id().to_le_bytes());
        put(&mut h, 16, &id.to_le_bytes());
        // SAFETY: checked non-null.
        unsafe { out(ph, CUipcEventHandle { reserved: h }) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenEventHandle(pe: *mut CUevent, h: CUipcEventHandle) -> CUresult {
    guard(|| {
        if pe.is_null() || &h.reserved[..8] != EVENT_MAGIC {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let pid = get_u32(&h.reserved, 8);
        if pid == std::process::id() {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        // The exporter must be alive (its event is undefined once it is gone).
        // SAFETY: signal 0 only checks that the process exists.
        let alive = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
            || last_os_error().raw_os_error() == Some(libc::EPERM);
        if !alive {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let ev = with_ctx(|_, t, c| {
            let id = t.new_id();
            t.events.insert(
                id,
                stream::EventEntry {
                    ctx: c,
                    flags: EVENT_IPC_FLAGS,
                    recorded: None,
                },
            );
            Ok(handle(Kind::Event, id))
        })?;
        // SAFETY: checked non-null.
        unsafe { out(pe, ev) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncovered_runs_skip_pages_of_other_exports() {
        let mut e = BTreeMap::new();
        e.insert(0x1000, (1, 0x1000, 0x3000));
        e.insert(0x5100, (2, 0x5000, 0x6000));
        assert_eq!(
            uncovered(&e, 0x2000, 0x7000),
            vec![(0x3000, 0x5000), (0x6000, 0x7000)]
        );
        assert_eq!(uncovered(&e, 0x1000, 0x3000), vec![]);
        assert_eq!(uncovered(&BTreeMap::new(), 0, 0x2000), vec![(0, 0x2000)]);
    }

    #[test]
    fn pages_cover_the_addressable_granule() {
        // 80 bytes at 0x10f00 round to 256 and end at 0x11000: one page.
        assert_eq!(pages_of(0x10f00, 80), (0x10000, 0x11000));
        // 300 bytes at 0x10f00 round to 512 bytes and cross into the next page.
        assert_eq!(pages_of(0x10f00, 300), (0x10000, 0x12000));
    }

    #[test]
    fn mem_handle_round_trips() {
        let key = HandleKey {
            pid: 42,
            token: 0xdead_beef_0123_4567,
            offset: 0x1234_5600,
            serial: 7,
        };
        let h = encode_mem(key, 9, 80);
        assert_eq!(decode_mem(&h), Some((key, 9, 80)));
        let mut bad = h;
        bad[0] ^= 1;
        assert_eq!(decode_mem(&bad), None);
    }
}
