//! The driver's JIT linker: `cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`,
//! `cuLinkComplete`, `cuLinkDestroy` (and their `_v2` forms).
//!
//! Inputs are PTX text, or images holding PTX: fatbinaries, cubins/ELF objects (where
//! the producer embedded PTX), and `ar` libraries of those. A library member (one with
//! PTX; others are skipped) is linked only when it defines a symbol the other inputs
//! need, as linkers treat archives ([`ptxjit::link::needed_members`]). `cuLinkComplete` links the sources with
//! [`ptxjit::link`] (so link errors are found there and written to the
//! `CU_JIT_ERROR_LOG_BUFFER` given to `cuLinkCreate`) and returns a *linked image*: the
//! sources in this library's own container ([`LINKED_MAGIC`], then per source its name
//! and text), which `cuModuleLoadData(Ex)` and `cuLibraryLoadData` accept and link again
//! at load. The image stays valid until `cuLinkDestroy`, as the driver's cubin does.
//! Log sizes are not written back to the option arrays, which callers need not keep
//! alive after `cuLinkCreate`.

use crate::*;
use std::collections::HashMap;
use std::ffi::c_char;

/// First bytes of a linked image.
pub const LINKED_MAGIC: &[u8; 8] = b"PTXJITLK";

const CU_JIT_INFO_LOG_BUFFER: u32 = 3;
const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: u32 = 4;
const CU_JIT_ERROR_LOG_BUFFER: u32 = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: u32 = 6;

const CU_JIT_INPUT_CUBIN: u32 = 0;
const CU_JIT_INPUT_PTX: u32 = 1;
const CU_JIT_INPUT_FATBINARY: u32 = 2;
const CU_JIT_INPUT_OBJECT: u32 = 3;
const CU_JIT_INPUT_LIBRARY: u32 = 4;

/// A log buffer given as an option: address and capacity in bytes.
#[derive(Clone, Copy, Default)]
struct LogBuf {
    ptr: usize,
    cap: usize,
}

impl LogBuf {
    /// Writes `text`, truncated and NUL-terminated, into the buffer.
    unsafe fn write(&self, text: &str) {
        if self.ptr == 0 || self.cap == 0 {
            return;
        }
        let k = text.len().min(self.cap - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr(), self.ptr as *mut u8, k);
        *(self.ptr as *mut u8).add(k) = 0;
    }
}

#[derive(Default)]
struct LinkState {
    srcs: Vec<(String, String)>,
    /// Members of the libraries added, linked only when needed.
    members: Vec<(String, String)>,
    error_log: LogBuf,
    info_log: LogBuf,
    image: Vec<u8>,
}

fn states() -> MutexGuard<'static, (u64, HashMap<u64, LinkState>)> {
    static S: OnceLock<Mutex<(u64, HashMap<u64, LinkState>)>> = OnceLock::new();
    S.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The log buffers among `n` options.
unsafe fn log_options(
    n: u32,
    options: *const u32,
    values: *mut *mut c_void,
) -> Res<(LogBuf, LogBuf)> {
    if n > 0 && (options.is_null() || values.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let (mut err, mut info) = (LogBuf::default(), LogBuf::default());
    for i in 0..n as usize {
        let v = *values.add(i) as usize;
        match *options.add(i) {
            CU_JIT_ERROR_LOG_BUFFER => err.ptr = v,
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => err.cap = v,
            CU_JIT_INFO_LOG_BUFFER => info.ptr = v,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES => info.cap = v,
            _ => {}
        }
    }
    Ok((err, info))
}

fn with_state<T>(h: *mut c_void, f: impl FnOnce(&mut LinkState) -> Res<T>) -> Res<T> {
    let id = handle_id(Kind::Link, h).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let mut s = states();
    let st = s.1.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    f(st)
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate_v2(
    n: u32,
    options: *mut u32,
    values: *mut *mut c_void,
    state: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        if state.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        driver()?;
        let (error_log, info_log) = log_options(n, options, values)?;
        let mut s = states();
        s.0 += 1;
        let id = s.0;
        s.1.insert(
            id,
            LinkState {
                error_log,
                info_log,
                ..Default::default()
            },
        );
        out(state, handle(Kind::Link, id))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate(
    n: u32,
    options: *mut u32,
    values: *mut *mut c_void,
    state: *mut *mut c_void,
) -> CUresult {
    cuLinkCreate_v2(n, options, values, state)
}

/// The PTX sources of one input of type `ty` (`bytes` is the whole input).
unsafe fn input_sources(ty: u32, bytes: &[u8], name: &str) -> Res<Vec<(String, String)>> {
    match ty {
        CU_JIT_INPUT_PTX => {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            Ok(vec![(
                String::from_utf8_lossy(&bytes[..end]).into_owned(),
                name.to_string(),
            )])
        }
        CU_JIT_INPUT_CUBIN | CU_JIT_INPUT_FATBINARY | CU_JIT_INPUT_OBJECT => {
            let mut owned = bytes.to_vec();
            owned.push(0);
            let ptx = module::image_ptx(owned.as_ptr())?;
            Ok(vec![(ptx, name.to_string())])
        }
        CU_JIT_INPUT_LIBRARY => archive_sources(bytes, name),
        _ => {
            log(&format!(
                "ptxjit-cuda: cuLinkAddData: input type {ty} of '{name}' is not supported (PTX, cubin, fatbinary, object and library only)"
            ));
            Err(CUDA_ERROR_NOT_SUPPORTED)
        }
    }
}

/// The PTX of every member of an `ar` archive that holds some.
unsafe fn archive_sources(bytes: &[u8], name: &str) -> Res<Vec<(String, String)>> {
    let Some(mut rest) = bytes.strip_prefix(b"!<arch>\n") else {
        return Err(CUDA_ERROR_INVALID_IMAGE);
    };
    let mut srcs = Vec::new();
    while rest.len() >= 60 {
        let (hdr, body) = rest.split_at(60);
        let member = String::from_utf8_lossy(&hdr[..16]).trim().to_string();
        let size: usize = String::from_utf8_lossy(&hdr[48..58])
            .trim()
            .parse()
            .map_err(|_| CUDA_ERROR_INVALID_IMAGE)?;
        let data = body.get(..size).ok_or(CUDA_ERROR_INVALID_IMAGE)?;
        let magic = data
            .get(..4)
            .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
        let is_image = matches!(magic, Some(0xBA55_ED50) | Some(0x464C_457F));
        if is_image {
            let mut owned = data.to_vec();
            owned.push(0);
            if let Ok(ptx) = module::image_ptx(owned.as_ptr()) {
                srcs.push((ptx, format!("{name}({member})")));
            }
        }
        rest = body.get(size + (size & 1)..).unwrap_or(&[]);
    }
    Ok(srcs)
}

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: *mut c_void,
    ty: u32,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _n: u32,
    _options: *mut u32,
    _values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        if data.is_null() || size == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = if name.is_null() {
            "input.ptx".to_string()
        } else {
            cstr(name)?
        };
        let bytes = std::slice::from_raw_parts(data as *const u8, size);
        let srcs = input_sources(ty, bytes, &name);
        with_state(state, |st| {
            match srcs {
                Ok(s) if ty == CU_JIT_INPUT_LIBRARY => st.members.extend(s),
                Ok(s) => st.srcs.extend(s),
                Err(e) => {
                    st.error_log.write(&format!(
                        "{name}: no PTX found in this input (ptxjit links PTX only)"
                    ));
                    return Err(e);
                }
            }
            Ok(())
        })
    })
}

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn cuLinkAddData(
    state: *mut c_void,
    ty: u32,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    n: u32,
    options: *mut u32,
    values: *mut *mut c_void,
) -> CUresult {
    cuLinkAddData_v2(state, ty, data, size, name, n, options, values)
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: *mut c_void,
    ty: u32,
    path: *const c_char,
    n: u32,
    options: *mut u32,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        let p = cstr(path)?;
        let bytes = std::fs::read(&p).map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)?;
        let r = cuLinkAddData_v2(
            state,
            ty,
            bytes.as_ptr() as *mut c_void,
            bytes.len(),
            path,
            n,
            options,
            values,
        );
        if r == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(r)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile(
    state: *mut c_void,
    ty: u32,
    path: *const c_char,
    n: u32,
    options: *mut u32,
    values: *mut *mut c_void,
) -> CUresult {
    cuLinkAddFile_v2(state, ty, path, n, options, values)
}

/// `(text, name)` pairs borrowed from owned ones.
fn pairs(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(t, n)| (t.as_str(), n.as_str())).collect()
}

/// Encodes sources as a linked image.
pub fn encode(srcs: &[(String, String)]) -> Vec<u8> {
    let mut v = LINKED_MAGIC.to_vec();
    v.extend_from_slice(&0u64.to_le_bytes()); // total size, patched below
    v.extend_from_slice(&(srcs.len() as u64).to_le_bytes());
    for (text, name) in srcs {
        for s in [name, text] {
            v.extend_from_slice(&(s.len() as u64).to_le_bytes());
            v.extend_from_slice(s.as_bytes());
        }
    }
    let total = v.len() as u64;
    v[8..16].copy_from_slice(&total.to_le_bytes());
    v
}

/// Decodes a linked image at `image` (its first bytes are [`LINKED_MAGIC`]).
///
/// # Safety
/// `image` must point to a whole linked image.
pub unsafe fn decode(image: *const u8) -> Res<Vec<(String, String)>> {
    let total = (image.add(8) as *const u64).read_unaligned() as usize;
    if total < 24 {
        return Err(CUDA_ERROR_INVALID_IMAGE);
    }
    let bytes = std::slice::from_raw_parts(image, total);
    let mut at = 16usize;
    let word = |at: &mut usize| -> Res<usize> {
        let b = bytes.get(*at..*at + 8).ok_or(CUDA_ERROR_INVALID_IMAGE)?;
        *at += 8;
        Ok(u64::from_le_bytes(b.try_into().map_err(|_| CUDA_ERROR_INVALID_IMAGE)?) as usize)
    };
    let n = word(&mut at)?;
    let mut srcs = Vec::new();
    for _ in 0..n {
        let mut s = [String::new(), String::new()];
        for part in &mut s {
            let len = word(&mut at)?;
            let b = bytes
                .get(at..at.checked_add(len).ok_or(CUDA_ERROR_INVALID_IMAGE)?)
                .ok_or(CUDA_ERROR_INVALID_IMAGE)?;
            *part = String::from_utf8_lossy(b).into_owned();
            at += len;
        }
        let [name, text] = s;
        srcs.push((text, name));
    }
    Ok(srcs)
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkComplete(
    state: *mut c_void,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    guard(|| {
        if image.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_state(state, |st| {
            let (objects, members) = (st.srcs.clone(), st.members.clone());
            let result = ptxjit::link::needed_members(&pairs(&objects), &pairs(&members)).and_then(
                |taken| {
                    let mut all = objects.clone();
                    all.extend(taken.iter().map(|&i| members[i].clone()));
                    ptxjit::link::link(&pairs(&all), "linked.ptx").map(|_| (all, taken.len()))
                },
            );
            let (all, from_libs) = match result {
                Ok(r) => r,
                Err(e) => {
                    let msg = e.to_string();
                    log(&format!("ptxjit-cuda: cuLinkComplete: {msg}"));
                    st.error_log.write(&msg);
                    return Err(CUDA_ERROR_INVALID_PTX);
                }
            };
            st.info_log.write(&format!(
                "ptxjit: linked {} PTX module(s), {from_libs} of them from libraries",
                all.len()
            ));
            st.image = encode(&all);
            out(image, st.image.as_ptr() as *mut c_void)?;
            if !size.is_null() {
                out(size, st.image.len())?;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkDestroy(state: *mut c_void) -> CUresult {
    guard(|| {
        let id = handle_id(Kind::Link, state).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        states()
            .1
            .remove(&id)
            .map(|_| ())
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })
}
