//! `cuGetExportTable`: the private tables NVIDIA's CUDA runtime (`libcudart`, shared or
//! static) asks the driver for by UUID before its first API call. Which tables and
//! entries the runtime uses, and what they do, was learned from ZLUDA's documentation
//! of them (vosen/ZLUDA, `dark_api`); this is an independent implementation.
//!
//! A table is an array of pointers; most begin with their own size in bytes. Entries
//! the runtime is not known to call are NULL. Implemented:
//! - *cudart interface*: load a module from a registered fat binary (three variants),
//!   the primary context of a device, a no-op notification, "load compilers";
//! - *tools TLS* and *tools runtime callback hooks*: sized tables with two scratch
//!   buffers the runtime's tool hooks write into;
//! - *context-local storage*: per-context key → value slots (the runtime keeps its
//!   per-context state there; the destructor callback is not called when a context is
//!   destroyed, the slot is dropped);
//! - *context create bypass*: `cuCtxCreate_v2`;
//! - *integrity check*: the runtime sends a challenge (its version and the time) and
//!   checks the answer, an HMAC-MD2 ([`crate::md2`]) over the driver version, the
//!   challenge, process and thread ids, the table addresses and every device's UUID and
//!   PCI location;
//! - *context checks*: "nothing unusual" answers;
//! - *heap access* and *extended device attributes*: present, their functions return
//!   `CUDA_ERROR_NOT_SUPPORTED` (what they compute is not documented);
//! - the table CUDA 13 runtimes require, see [`crate::export13`].

use crate::*;

/// A table: pointers the runtime reads by index.
#[repr(transparent)]
pub struct Table<const N: usize>(pub [*const c_void; N]);

// SAFETY: the tables are immutable and hold only function addresses and sizes.
unsafe impl<const N: usize> Sync for Table<N> {}

/// A table's first entry: its size in bytes.
const fn size_of_table(n: usize) -> *const c_void {
    (n * std::mem::size_of::<usize>()) as *const c_void
}

const NULL: *const c_void = std::ptr::null();

type Uuid = [u8; 16];

const fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// Parses `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` into bytes in the order written.
const fn uuid(s: &str) -> Uuid {
    let b = s.as_bytes();
    let mut out = [0u8; 16];
    let (mut i, mut k) = (0, 0);
    while i < b.len() {
        if b[i] == b'-' {
            i += 1;
            continue;
        }
        out[k] = hex(b[i]) << 4 | hex(b[i + 1]);
        k += 1;
        i += 2;
    }
    out
}

const CUDART_INTERFACE: Uuid = uuid("6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9");
const TOOLS_TLS: Uuid = uuid("42D85A81-23F6-CB47-8298-F6E78A3AECDC");
const TOOLS_CALLBACK_HOOKS: Uuid = uuid("A094798C-2E74-2E74-93F2-0800200C0A66");
const CONTEXT_LOCAL_STORAGE: Uuid = uuid("C693336E-1121-DF11-A8C3-68F355D89593");
const CTX_CREATE_BYPASS: Uuid = uuid("0CA50B8C-1004-929A-89A7-D0DF10E77286");
const HEAP_ACCESS: Uuid = uuid("195BCBF4-D67D-024A-ACC5-1D29CEA631AE");
const DEVICE_EXTENDED: Uuid = uuid("B10541E1-F7C7-C74A-9F64-F223BE99F1E2");
const INTEGRITY_CHECK: Uuid = uuid("D4082055-BDE6-704B-8D34-BA123C66E1F2");
const CUDA13_RUNTIME: Uuid = uuid("21318C60-9714-3248-8CA6-41FF7324C8F2");
const CONTEXT_CHECKS: Uuid = uuid("263E8860-7CD2-6143-92F6-BBD5006DFA7E");

static CUDART_TABLE: Table<13> = Table([
    size_of_table(13),
    load_fatbin_wrapper as *const c_void,
    primary_context as *const c_void,
    NULL,
    NULL,
    NULL,
    load_fatbin_wrapper_ext as *const c_void,
    notify as *const c_void,
    load_fatbin_ext as *const c_void,
    NULL,
    NULL,
    NULL,
    load_compilers as *const c_void,
]);
static TOOLS_TLS_TABLE: Table<4> = Table([size_of_table(4), NULL, NULL, NULL]);
static HOOKS_TABLE: Table<7> = Table([
    size_of_table(7),
    NULL,
    hook_buffer_1 as *const c_void,
    NULL,
    NULL,
    NULL,
    hook_buffer_2 as *const c_void,
]);
static CLS_TABLE: Table<4> = Table([
    cls_put as *const c_void,
    cls_delete as *const c_void,
    cls_get as *const c_void,
    NULL,
]);
static BYPASS_TABLE: Table<2> = Table([size_of_table(2), ctx_create_bypass as *const c_void]);
static HEAP_TABLE: Table<3> = Table([
    size_of_table(3),
    unknown_3 as *const c_void,
    unknown_2 as *const c_void,
]);
static DEVICE_EXT_TABLE: Table<26> = {
    let mut t = [NULL; 26];
    t[0] = size_of_table(26);
    t[5] = unknown_4 as *const c_void;
    t[13] = unknown_2 as *const c_void;
    Table(t)
};
static INTEGRITY_TABLE: Table<3> =
    Table([size_of_table(3), integrity_check as *const c_void, NULL]);
static CHECKS_TABLE: Table<4> = Table([
    size_of_table(4),
    NULL,
    context_check as *const c_void,
    check_flags as *const c_void,
]);

/// Logs a call of a table entry when `PTXJIT_CUDA_TRACE` is set.
fn trace(what: &str) {
    if std::env::var_os("PTXJIT_CUDA_TRACE").is_some() {
        log(&format!("ptxjit-cuda: export table: {what}"));
    }
}

/// The table for `id`.
fn table_for(id: &Uuid) -> Option<*const c_void> {
    let t = match *id {
        CUDART_INTERFACE => CUDART_TABLE.0.as_ptr(),
        TOOLS_TLS => TOOLS_TLS_TABLE.0.as_ptr(),
        TOOLS_CALLBACK_HOOKS => HOOKS_TABLE.0.as_ptr(),
        CONTEXT_LOCAL_STORAGE => CLS_TABLE.0.as_ptr(),
        CTX_CREATE_BYPASS => BYPASS_TABLE.0.as_ptr(),
        HEAP_ACCESS => HEAP_TABLE.0.as_ptr(),
        DEVICE_EXTENDED => DEVICE_EXT_TABLE.0.as_ptr(),
        INTEGRITY_CHECK => INTEGRITY_TABLE.0.as_ptr(),
        CONTEXT_CHECKS => CHECKS_TABLE.0.as_ptr(),
        CUDA13_RUNTIME => export13::TABLE.0.as_ptr(),
        _ => return None,
    };
    Some(t as *const c_void)
}

#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const Uuid) -> CUresult {
    guard(|| {
        if table.is_null() || id.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let id = id.read_unaligned();
        match table_for(&id) {
            Some(t) => out(table, t),
            None => {
                if std::env::var_os("PTXJIT_CUDA_TRACE").is_some() {
                    let hex: String = id.iter().map(|b| format!("{b:02X}")).collect();
                    log(&format!(
                        "ptxjit-cuda: cuGetExportTable: unknown table {hex}"
                    ));
                }
                out(table, std::ptr::null())?;
                Err(CUDA_ERROR_INVALID_VALUE)
            }
        }
    })
}

/// Loads a module from a `__fatBinC_Wrapper_t` (or a fat binary: both are images
/// `cuModuleLoadData` reads).
unsafe extern "C" fn load_fatbin_wrapper(module: *mut CUmodule, image: *const c_void) -> CUresult {
    trace("load_fatbin_wrapper");
    cuModuleLoadData(module, image)
}

/// As [`load_fatbin_wrapper`]; the further arguments (NULL, NULL, 0 from the runtime)
/// are not used.
unsafe extern "C" fn load_fatbin_wrapper_ext(
    module: *mut CUmodule,
    image: *const c_void,
    _a: *mut c_void,
    _b: *mut c_void,
    _c: u32,
) -> CUresult {
    trace("load_fatbin_wrapper_ext");
    cuModuleLoadData(module, image)
}

/// As [`load_fatbin_wrapper_ext`], with the image first.
unsafe extern "C" fn load_fatbin_ext(
    image: *const c_void,
    module: *mut CUmodule,
    _a: *mut c_void,
    _b: *mut c_void,
    _c: u32,
) -> CUresult {
    trace("load_fatbin_ext");
    cuModuleLoadData(module, image)
}

/// The primary context of `dev`, created if needed, not retained.
unsafe extern "C" fn primary_context(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    trace("primary_context");
    guard(|| {
        let c = ctx::primary_unretained(dev)?;
        out(pctx, c)
    })
}

/// A notification the runtime sends; nothing to do.
unsafe extern "C" fn notify(_arg: usize) {}

/// The driver would load its PTX compiler here; ptxjit's is built in.
unsafe extern "C" fn load_compilers() -> CUresult {
    CUDA_SUCCESS
}

/// Zeroed scratch buffers the runtime's tool hooks own.
struct HookBuffer<const N: usize>(std::cell::UnsafeCell<[u32; N]>);
// SAFETY: only the runtime writes the buffers, through the pointer it is given.
unsafe impl<const N: usize> Sync for HookBuffer<N> {}
static HOOK_BUFFER_1: HookBuffer<1024> = HookBuffer(std::cell::UnsafeCell::new([0; 1024]));
static HOOK_BUFFER_2: HookBuffer<14> = HookBuffer(std::cell::UnsafeCell::new([0; 14]));

unsafe extern "C" fn hook_buffer_1(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        *ptr = HOOK_BUFFER_1.0.get() as *mut c_void;
        *size = 1024;
    }
}

unsafe extern "C" fn hook_buffer_2(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        *ptr = HOOK_BUFFER_2.0.get() as *mut c_void;
        *size = 14;
    }
}

/// The id of `ctx`, or of the current context when it is NULL.
fn ctx_or_current(t: &Tables, ctx: CUcontext) -> Res<u64> {
    if ctx.is_null() {
        ctx::current_checked(t)
    } else {
        ctx::ctx_id(t, ctx)
    }
}

unsafe extern "C" fn cls_put(
    ctx: CUcontext,
    key: *mut c_void,
    value: *mut c_void,
    _dtor: *const c_void,
) -> CUresult {
    trace("cls_put");
    guard(|| {
        let mut t = driver()?.lock();
        let c = ctx_or_current(&t, ctx)?;
        t.context_storage.insert((c, key as usize), value as usize);
        Ok(())
    })
}

unsafe extern "C" fn cls_delete(ctx: CUcontext, key: *mut c_void) -> CUresult {
    trace("cls_delete");
    guard(|| {
        let mut t = driver()?.lock();
        let c = ctx_or_current(&t, ctx)?;
        t.context_storage.remove(&(c, key as usize));
        Ok(())
    })
}

unsafe extern "C" fn cls_get(
    value: *mut *mut c_void,
    ctx: CUcontext,
    key: *mut c_void,
) -> CUresult {
    trace("cls_get");
    guard(|| {
        let t = driver()?.lock();
        let c = ctx_or_current(&t, ctx)?;
        let v = *t
            .context_storage
            .get(&(c, key as usize))
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        drop(t);
        out(value, v as *mut c_void)
    })
}

unsafe extern "C" fn ctx_create_bypass(
    pctx: *mut CUcontext,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    trace("ctx_create_bypass");
    cuCtxCreate_v2(pctx, flags, dev)
}

/// Entries whose computation is not documented.
unsafe extern "C" fn unknown_2(_a: *mut c_void, _b: *mut c_void) -> CUresult {
    not_supported("a cuGetExportTable entry")
}
unsafe extern "C" fn unknown_3(_a: *mut c_void, _b: usize, _c: usize) -> CUresult {
    not_supported("a cuGetExportTable entry")
}
unsafe extern "C" fn unknown_4(_a: CUdevice, _b: u32, _c: i32, _d: *mut c_void) -> CUresult {
    not_supported("a cuGetExportTable entry")
}

unsafe extern "C" fn context_check(
    _ctx: CUcontext,
    result: *mut u32,
    _extra: *mut *const c_void,
) -> CUresult {
    trace("context_check");
    guard(|| out(result, 0))
}

unsafe extern "C" fn check_flags() -> u32 {
    0
}

/// The HMAC key of the integrity check.
const INTEGRITY_KEY: [u8; 16] = [
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
];

extern "C" {
    fn pthread_self() -> usize;
}

/// The message the integrity answer authenticates, for challenge `(version, time)`.
pub fn integrity_message(version: u32, unix_seconds: u64) -> Res<Vec<u8>> {
    let mut m = Vec::with_capacity(48 + 28);
    m.extend_from_slice(&(DRIVER_VERSION as u32).to_le_bytes());
    m.extend_from_slice(&version.to_le_bytes());
    m.extend_from_slice(&std::process::id().to_le_bytes());
    // SAFETY: pthread_self has no preconditions.
    m.extend_from_slice(&(unsafe { pthread_self() } as u32).to_le_bytes());
    for p in [
        CUDART_TABLE.0.as_ptr() as usize,
        INTEGRITY_TABLE.0.as_ptr() as usize,
        INTEGRITY_TABLE.0[1] as usize,
    ] {
        m.extend_from_slice(&(p as u64).to_le_bytes());
    }
    m.extend_from_slice(&unix_seconds.to_le_bytes());
    // One device: its UUID and PCI domain, bus and device numbers.
    let mut uuid = [0u8; 16];
    let mut pci = [0i32; 3];
    // SAFETY: valid out-pointers.
    unsafe {
        let r = cuDeviceGetUuid_v2(&mut uuid, 0);
        if r != CUDA_SUCCESS {
            return Err(r);
        }
        // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, _PCI_BUS_ID, _PCI_DEVICE_ID.
        for (v, attr) in pci.iter_mut().zip([50, 33, 34]) {
            let r = cuDeviceGetAttribute(v, attr, 0);
            if r != CUDA_SUCCESS {
                return Err(r);
            }
        }
    }
    m.extend_from_slice(&uuid);
    for v in pci {
        m.extend_from_slice(&v.to_le_bytes());
    }
    Ok(m)
}

unsafe extern "C" fn integrity_check(
    version: u32,
    unix_seconds: u64,
    result: *mut [u8; 16],
) -> CUresult {
    guard(|| {
        if std::env::var_os("PTXJIT_CUDA_TRACE").is_some() {
            log(&format!(
                "ptxjit-cuda: integrity check, challenge version {version} time {unix_seconds}"
            ));
        }
        // Challenges whose version ends in 0 or 1 have fixed answers.
        let answer = match version % 10 {
            0 => fixed_answer(0x3341_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8),
            1 => fixed_answer(0x1841_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8),
            _ => md2::hmac_md2(&INTEGRITY_KEY, &integrity_message(version, unix_seconds)?),
        };
        out(result, answer)
    })
}

fn fixed_answer(lo: u64, hi: u64) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[..8].copy_from_slice(&lo.to_le_bytes());
    a[8..].copy_from_slice(&hi.to_le_bytes());
    a
}
