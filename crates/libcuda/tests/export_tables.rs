//! `cuGetExportTable` in-process: the tables NVIDIA's runtime asks for exist with their
//! sizes, unknown ones are refused, context-local storage keeps values per context,
//! and MD2 (under the integrity answer) matches RFC 1319's test vectors.

mod common;

use cuda::*;
use std::ffi::c_void;
use std::ptr::null_mut;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn md2_matches_rfc_1319() {
    // RFC 1319, appendix A.5.
    let cases = [
        ("", "8350e5a3e24c153df2275c9f80692773"),
        ("a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"),
        ("abc", "da853b0d3f88d99b30283a69e6ded6bb"),
        ("message digest", "ab4f496bfb2a530b219ff33031fe06b0"),
        (
            "abcdefghijklmnopqrstuvwxyz",
            "4e8ddff3650292ab5a4108c3aa47940b",
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(hex(&md2::md2(msg.as_bytes())), want, "{msg:?}");
    }
    // HMAC with a 16-byte key is MD2(key^ipad || m) then MD2(key^opad || inner).
    let key = [7u8; 16];
    let mut inner = key.map(|k| k ^ 0x36).to_vec();
    inner.extend_from_slice(b"msg");
    let mut outer = key.map(|k| k ^ 0x5c).to_vec();
    outer.extend_from_slice(&md2::md2(&inner));
    assert_eq!(md2::hmac_md2(&key, b"msg"), md2::md2(&outer));
}

/// `{6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9}` etc. as bytes in written order.
fn uuid(s: &str) -> [u8; 16] {
    let h: String = s.chars().filter(|c| *c != '-').collect();
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

#[test]
fn tables_and_context_local_storage() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut t: *const c_void = std::ptr::null();
        // Sized tables: the first entry is the table's size in bytes.
        for (id, entries) in [
            ("6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9", 13),
            ("A094798C-2E74-2E74-93F2-0800200C0A66", 7),
            ("D4082055-BDE6-704B-8D34-BA123C66E1F2", 3),
            ("263E8860-7CD2-6143-92F6-BBD5006DFA7E", 4),
        ] {
            let id = uuid(id);
            assert_eq!(cuGetExportTable(&mut t, &id), 0);
            assert_eq!(*(t as *const usize), entries * 8);
        }
        let unknown = [0u8; 16];
        assert_eq!(cuGetExportTable(&mut t, &unknown), CUDA_ERROR_INVALID_VALUE);
        assert!(t.is_null());
        // Context-local storage: put, get, delete on the current context.
        let cls = uuid("C693336E-1121-DF11-A8C3-68F355D89593");
        assert_eq!(cuGetExportTable(&mut t, &cls), 0);
        let f = t as *const *const c_void;
        type Put =
            unsafe extern "C" fn(CUcontext, *mut c_void, *mut c_void, *const c_void) -> CUresult;
        type Del = unsafe extern "C" fn(CUcontext, *mut c_void) -> CUresult;
        type Get = unsafe extern "C" fn(*mut *mut c_void, CUcontext, *mut c_void) -> CUresult;
        let put: Put = std::mem::transmute(*f);
        let del: Del = std::mem::transmute(*f.add(1));
        let get: Get = std::mem::transmute(*f.add(2));
        let mut ctx = null_mut();
        assert_eq!(cuCtxCreate_v2(&mut ctx, 0, 0), 0);
        let key = 0x1234 as *mut c_void;
        assert_eq!(
            put(null_mut(), key, 0xbeef as *mut c_void, std::ptr::null()),
            0
        );
        let mut v = null_mut();
        assert_eq!(get(&mut v, ctx, key), 0, "NULL is the current context");
        assert_eq!(v as usize, 0xbeef);
        assert_eq!(del(ctx, key), 0);
        assert_eq!(get(&mut v, ctx, key), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(put(ctx, key, key, std::ptr::null()), 0);
        assert_eq!(cuCtxDestroy_v2(ctx), 0);
        assert_eq!(get(&mut v, ctx, key), CUDA_ERROR_INVALID_CONTEXT);
        // The integrity answer to a challenge ending in 0 is fixed.
        let ic = uuid("D4082055-BDE6-704B-8D34-BA123C66E1F2");
        assert_eq!(cuGetExportTable(&mut t, &ic), 0);
        type Check = unsafe extern "C" fn(u32, u64, *mut [u8; 16]) -> CUresult;
        let check: Check = std::mem::transmute(*(t as *const *const c_void).add(1));
        let mut a = [0u8; 16];
        assert_eq!(check(12090, 1, &mut a), 0);
        // The answer the CUDA 12.9 runtime accepts (tests/cudart_client.rs).
        assert_eq!(hex(&a), "5c67cb031c184133e8d14c1faa83d38e");
    }
}

/// The CUDA runtime loads its fat binaries with `cuLibraryLoadData` before any context
/// is current: libraries load and hand out kernels on a thread without a context, and
/// survive the destruction of a created context.
#[test]
fn libraries_load_without_a_current_context() {
    let ptx = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/kernels.ptx"
    ))
    .unwrap();
    let mut image = ptx.clone();
    image.push(0);
    let lib = std::thread::spawn(move || unsafe {
        assert_eq!(cuInit(0), 0);
        let mut cur = 1 as CUcontext;
        assert_eq!(cuCtxGetCurrent(&mut cur), 0);
        assert!(cur.is_null());
        let mut lib = null_mut();
        let r = cuLibraryLoadData(
            &mut lib,
            image.as_ptr() as *const c_void,
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, 0);
        let mut k = null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, c"saxpy".as_ptr()), 0);
        assert_eq!(cuCtxGetCurrent(&mut cur), 0);
        assert!(cur.is_null(), "no context is left current");
        lib as usize
    })
    .join()
    .unwrap() as CUlibraryHandle;
    unsafe {
        let mut ctx = null_mut();
        assert_eq!(cuCtxCreate_v2(&mut ctx, 0, 0), 0);
        assert_eq!(cuCtxDestroy_v2(ctx), 0);
        let mut primary = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut primary, 0), 0);
        assert_eq!(cuCtxSetCurrent(primary), 0);
        let mut k = null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, c"saxpy".as_ptr()), 0);
        let (_, out) = common::launch_saxpy4(k, 10.0);
        // y = 10 * x + y, exact in binary32.
        assert_eq!(out, [11., 22., 33., 44.]);
        assert_eq!(cuLibraryUnload(lib), 0);
    }
}

type CUlibraryHandle = *mut c_void;

/// The CUDA runtime unloads its libraries from exit handlers, when the thread's locals
/// (ptxjit's context stack among them) may already be gone: `cuLibraryUnload` needs no
/// context. Here the unload runs in a thread-local destructor registered before
/// ptxjit's first use on that thread (glibc runs them in reverse order, so after the
/// context stack's), and the library is gone afterwards.
#[test]
fn libraries_unload_from_thread_exit() {
    use std::sync::atomic::{AtomicU32, Ordering};
    static RESULT: AtomicU32 = AtomicU32::new(u32::MAX);
    struct UnloadOnExit(std::cell::Cell<usize>);
    impl Drop for UnloadOnExit {
        fn drop(&mut self) {
            // SAFETY: a library handle (or null, which the driver rejects).
            let r = unsafe { cuLibraryUnload(self.0.get() as CUlibraryHandle) };
            RESULT.store(r, Ordering::SeqCst);
        }
    }
    thread_local!(static LIB: UnloadOnExit = const { UnloadOnExit(std::cell::Cell::new(0)) });
    let mut image = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/kernels.ptx"
    ))
    .unwrap();
    image.push(0);
    let lib = std::thread::spawn(move || unsafe {
        LIB.with(|l| l.0.set(0));
        assert_eq!(cuInit(0), 0);
        let mut lib = null_mut();
        let r = cuLibraryLoadData(
            &mut lib,
            image.as_ptr() as *const c_void,
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, 0);
        let mut k = null_mut();
        assert_eq!(cuLibraryGetKernel(&mut k, lib, c"saxpy".as_ptr()), 0);
        LIB.with(|l| l.0.set(lib as usize));
        lib as usize
    })
    .join()
    .unwrap() as CUlibraryHandle;
    assert_eq!(RESULT.load(Ordering::SeqCst), 0, "unload at thread exit");
    unsafe {
        assert_eq!(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
    }
}
