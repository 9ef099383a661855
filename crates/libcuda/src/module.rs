//! Modules and functions: loading PTX (text, a file, or the PTX embedded uncompressed in
//! a fatbinary or ELF image), kernels, module variables, function attributes.

use crate::*;
use std::ffi::{c_char, CString};

pub struct ModuleEntry {
    pub ctx: u64,
    pub module: ptxjit::Module,
}

pub struct FunctionEntry {
    pub module_id: u64,
    pub module: ptxjit::Module,
    pub name: CString,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
    pub max_dyn_shared: i32,
}

const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43B1;

/// Reads the PTX text of a module image: NUL-terminated PTX, a fatbinary (or its
/// wrapper, see [`fatbin`]: compressed PTX entries are decompressed) or an ELF image
/// (a host object's `.nv_fatbin` container, or PTX stored uncompressed).
///
/// # Safety
/// `image` must point to a valid image of the kind its first bytes say.
pub unsafe fn image_ptx(image: *const u8) -> Res<String> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let magic = (image as *const u32).read_unaligned();
    if magic == FATBIN_WRAPPER_MAGIC {
        let data = (image.add(8) as *const *const u8).read_unaligned();
        return image_ptx(data);
    }
    if magic == fatbin::MAGIC {
        let header = (image.add(6) as *const u16).read_unaligned() as usize;
        let size = (image.add(8) as *const u64).read_unaligned() as usize;
        let region = std::slice::from_raw_parts(image, header + size);
        return fatbin_ptx(region);
    }
    if magic != u32::from_le_bytes(*b"\x7fELF") {
        let text = std::ffi::CStr::from_ptr(image as *const c_char);
        return Ok(text.to_string_lossy().into_owned());
    }
    // ELF64: the section headers end the image.
    let shoff = (image.add(0x28) as *const u64).read_unaligned() as usize;
    let shentsize = (image.add(0x3a) as *const u16).read_unaligned() as usize;
    let shnum = (image.add(0x3c) as *const u16).read_unaligned() as usize;
    let region = std::slice::from_raw_parts(image, shoff + shentsize * shnum);
    let magic = fatbin::MAGIC.to_le_bytes();
    let mut at = 0;
    while let Some(p) = region[at..].windows(4).position(|w| w == magic) {
        let start = at + p;
        if start % 8 == 0 && fatbin::container_size(&region[start..]).is_some() {
            return fatbin_ptx(&region[start..]);
        }
        at = start + 1;
    }
    let needle = b".version";
    let Some(pos) = region.windows(needle.len()).position(|w| w == needle) else {
        log("ptxjit-cuda: the image holds no PTX (ptxjit runs PTX only)");
        return Err(CUDA_ERROR_NO_BINARY_FOR_GPU);
    };
    let end = region[pos..]
        .iter()
        .position(|&b| b == 0)
        .map_or(region.len(), |e| pos + e);
    Ok(String::from_utf8_lossy(&region[pos..end]).into_owned())
}

/// The PTX of a fat binary, or the error (logged) for one without usable PTX.
fn fatbin_ptx(region: &[u8]) -> Res<String> {
    fatbin::ptx(region).map_err(|e| {
        let (msg, code) = match e {
            fatbin::NoPtx::NoEntry => (
                "the fat binary holds no PTX, only cubins (ptxjit runs PTX only: build with a compute_XX target, e.g. -arch=sm_XX includes it)".to_string(),
                CUDA_ERROR_NO_BINARY_FOR_GPU,
            ),
            fatbin::NoPtx::Malformed(m) => (m, CUDA_ERROR_INVALID_IMAGE),
        };
        log(&format!("ptxjit-cuda: {msg}"));
        code
    })
}

/// The PTX sources of a module image, `(text, name)`: one, or several for a linked
/// image from `cuLinkComplete`.
///
/// # Safety
/// As [`image_ptx`].
pub unsafe fn image_sources(image: *const u8, name: &str) -> Res<Vec<(String, String)>> {
    if !image.is_null() && std::slice::from_raw_parts(image, 8) == link::LINKED_MAGIC {
        return link::decode(image);
    }
    Ok(vec![(image_ptx(image)?, name.to_string())])
}

/// Loads PTX sources (linked, if several) into the current context;
/// `Err((code, message))`.
fn load(pmod: *mut CUmodule, srcs: &[(String, String)]) -> Result<(), (CUresult, String)> {
    load_into(pmod, srcs, true)
}

/// Loads PTX sources as a module of the current context (`in_context`), or as a
/// context-independent library module, which no context's destruction unloads and
/// which loads without a current context (the CUDA runtime loads its registered fat
/// binaries this way before it makes a context current).
pub(crate) fn load_into(
    pmod: *mut CUmodule,
    srcs: &[(String, String)],
    in_context: bool,
) -> Result<(), (CUresult, String)> {
    if pmod.is_null() {
        return Err((CUDA_ERROR_INVALID_VALUE, String::new()));
    }
    let d = if in_context {
        with_ctx(|d, _, _| Ok(d))
    } else {
        driver()
    }
    .map_err(|e| (e, String::new()))?;
    let loaded = match srcs {
        [(ptx, file)] => d.device.load_ptx(ptx, file),
        _ => {
            let pairs: Vec<(&str, &str)> =
                srcs.iter().map(|(t, n)| (t.as_str(), n.as_str())).collect();
            d.device.load_ptx_linked(&pairs, true)
        }
    };
    let module = loaded.map_err(|e| {
        let msg = e.to_string();
        log(&format!("ptxjit-cuda: cannot load module: {msg}"));
        (CUDA_ERROR_INVALID_PTX, msg)
    })?;
    let insert = |t: &mut Tables, c: u64| {
        let id = t.new_id();
        t.modules.insert(id, ModuleEntry { ctx: c, module });
        // SAFETY: checked non-null.
        unsafe { out(pmod, handle(Kind::Module, id)) }
    };
    if in_context {
        with_ctx(|_, t, c| insert(t, c))
    } else {
        insert(&mut d.lock(), LIBRARY_CTX)
    }
    .map_err(|e| (e, String::new()))
}

/// The owner of library modules: no context has this id.
pub const LIBRARY_CTX: u64 = 0;

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(pmod: *mut CUmodule, image: *const c_void) -> CUresult {
    guard(|| {
        let srcs = image_sources(image as *const u8, "module.ptx")?;
        load(pmod, &srcs).map_err(|e| e.0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    pmod: *mut CUmodule,
    image: *const c_void,
) -> CUresult {
    cuModuleLoadData(pmod, image)
}

const CU_JIT_INFO_LOG_BUFFER: u32 = 3;
const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: u32 = 4;
const CU_JIT_ERROR_LOG_BUFFER: u32 = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: u32 = 6;

/// Like `cuModuleLoadData`; a load error's message goes to the `CU_JIT_ERROR_LOG_BUFFER`
/// option's buffer (and its size option is set to the bytes written). Other options are
/// accepted and ignored.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    pmod: *mut CUmodule,
    image: *const c_void,
    n: u32,
    options: *const u32,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        if n > 0 && (options.is_null() || values.is_null()) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let opts: Vec<(u32, *mut *mut c_void)> = (0..n as usize)
            .map(|i| (*options.add(i), values.add(i)))
            .collect();
        let find = |o: u32| opts.iter().find(|x| x.0 == o).map(|x| x.1);
        let srcs = image_sources(image as *const u8, "module.ptx")?;
        let r = load(pmod, &srcs);
        let msg = match &r {
            Err((_, m)) => m.clone(),
            Ok(()) => String::new(),
        };
        for (buf, size) in [
            (CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES),
            (CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES),
        ] {
            if let (Some(b), Some(s)) = (find(buf), find(size)) {
                let cap = *s as usize;
                let dst = *b as *mut u8;
                let text = if buf == CU_JIT_ERROR_LOG_BUFFER {
                    msg.as_bytes()
                } else {
                    b""
                };
                if !dst.is_null() && cap > 0 {
                    let k = text.len().min(cap - 1);
                    std::ptr::copy_nonoverlapping(text.as_ptr(), dst, k);
                    *dst.add(k) = 0;
                    *s = k as *mut c_void;
                }
            }
        }
        r.map_err(|e| e.0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(pmod: *mut CUmodule, fname: *const c_char) -> CUresult {
    guard(|| {
        let path = cstr(fname)?;
        with_ctx(|_, _, _| Ok(()))?;
        let mut bytes = std::fs::read(&path).map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)?;
        bytes.push(0);
        let srcs = image_sources(bytes.as_ptr(), &path)?;
        load(pmod, &srcs).map_err(|e| e.0)
    })
}

pub(crate) fn module_id(t: &Tables, h: CUmodule) -> Res<u64> {
    match handle_id(Kind::Module, h) {
        Some(id) if t.modules.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_HANDLE),
    }
}

pub(crate) fn function_id(t: &Tables, h: CUfunction) -> Res<u64> {
    match handle_id(Kind::Function, h) {
        Some(id) if t.functions.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_HANDLE),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleUnload(h: CUmodule) -> CUresult {
    guard(|| with_ctx(|_, t, _| unload(t, h)))
}

/// Removes module `h` and its functions from the tables.
pub(crate) fn unload(t: &mut Tables, h: CUmodule) -> Res {
    let id = module_id(t, h)?;
    if let Some(m) = t.modules.remove(&id) {
        // A later module may reuse the addresses of its reference variables.
        crate::texref::forget(&m.module);
    }
    t.functions.retain(|_, f| f.module_id != id);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    pf: *mut CUfunction,
    h: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        if pf.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = cstr(name)?;
        with_ctx(|_, t, _| get_function(t, pf, h, name))
    })
}

/// `cuModuleGetFunction` on the tables.
pub(crate) unsafe fn get_function(
    t: &mut Tables,
    pf: *mut CUfunction,
    h: CUmodule,
    name: String,
) -> Res {
    let mid = module_id(t, h)?;
    let module = t.modules[&mid].module.clone();
    if !module.kernels().contains(&name.as_str()) {
        return Err(CUDA_ERROR_NOT_FOUND);
    }
    // One handle per (module, kernel).
    let existing = t
        .functions
        .iter()
        .find(|(_, f)| f.module_id == mid && f.name.to_bytes() == name.as_bytes())
        .map(|(&id, _)| id);
    let id = match existing {
        Some(id) => id,
        None => {
            let id = t.new_id();
            let cname = CString::new(name).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            t.functions.insert(
                id,
                FunctionEntry {
                    module_id: mid,
                    module,
                    name: cname,
                    max_dyn_shared: 48 * 1024,
                },
            );
            id
        }
    };
    out(pf, handle(Kind::Function, id))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    h: CUmodule,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        let name = cstr(name)?;
        let b = with_ctx(|_, t, _| {
            let mid = module_id(t, h)?;
            t.modules[&mid]
                .module
                .global(&name)
                .ok_or(CUDA_ERROR_NOT_FOUND)
        })?;
        if !dptr.is_null() {
            out(dptr, b.ptr())?;
        }
        if !bytes.is_null() {
            out(bytes, b.len())?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunctionCount(count: *mut u32, h: CUmodule) -> CUresult {
    guard(|| {
        let n = with_ctx(|_, t, _| Ok(t.modules[&module_id(t, h)?].module.kernels().len()))?;
        out(count, n as u32)
    })
}

/// Reads a function's entry and its kernel description.
pub(crate) fn with_function<T>(
    h: CUfunction,
    f: impl FnOnce(&mut FunctionEntry, &ptxjit::ir::Function) -> Res<T>,
) -> Res<T> {
    with_ctx(|_, t, _| {
        let id = function_id(t, h)?;
        let e = t.functions.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let module = e.module.clone();
        let name = e.name.to_string_lossy().into_owned();
        let (_, func) = module
            .ir()
            .function(&name)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        f(e, func)
    })
}

/// `CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES`: the module's defined `.const` variables laid
/// out in declaration order, each at its alignment (the user constant bank).
fn const_bytes(ir: &ptxjit::ir::Module) -> i32 {
    let end = ir
        .globals
        .iter()
        .filter(|g| g.space == ptxjit::ir::Space::Const && !g.external)
        .fold(0u64, |off, g| {
            off.next_multiple_of(u64::from(g.align.max(1))) + g.size
        });
    i32::try_from(end).unwrap_or(i32::MAX)
}

/// `CU_FUNC_ATTRIBUTE_PTX_VERSION`: the virtual architecture the function's PTX was
/// written for, major × 10 + minor, from the module's `.target` (`sm_100` → 100,
/// `sm_90a` → 90), as a driver reports it (`compute_90` PTX → 90), not the PTX ISA
/// version of `.version`. CUB (thrust, CuPy's sort) multiplies it by 10 to pick the
/// tuning policy its kernels were compiled with (`__CUDA_ARCH__`), and fails with
/// `cudaErrorInvalidDeviceFunction` when it matches none of the compiled architectures.
/// A module without an `sm_` target reports the device's compute capability.
pub fn ptx_arch(ir: &ptxjit::ir::Module) -> i32 {
    ir.target
        .iter()
        .find_map(|t| {
            let digits: String = t
                .strip_prefix("sm_")?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .unwrap_or(device::CC.0 * 10 + device::CC.1)
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(pi: *mut i32, attr: u32, h: CUfunction) -> CUresult {
    guard(|| {
        if pi.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let v = with_function(h, |e, f| {
            let ir = e.module.ir();
            Ok(match attr {
                0 => f.perf.maxntid.map_or(1024, |m| {
                    (m[0].max(1) * m[1].max(1) * m[2].max(1)).min(1024) as i32
                }),
                1 => ir.kernel_shared_size(&f.name) as i32,
                2 => const_bytes(ir),
                3 => f.local_size as i32,
                4 => 32,
                5 => ptx_arch(ir),
                6 => device::CC.0 * 10 + device::CC.1,
                7 => 0,
                8 => e.max_dyn_shared,
                9 => -1,
                10..=15 => 0,
                _ => return Err(CUDA_ERROR_INVALID_VALUE),
            })
        })?;
        out(pi, v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetAttribute(h: CUfunction, attr: u32, value: i32) -> CUresult {
    guard(|| {
        with_function(h, |e, f| match attr {
            8 => {
                let max = 227 * 1024 - e.module.ir().kernel_shared_size(&f.name) as i32;
                if !(0..=max).contains(&value) {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                e.max_dyn_shared = value;
                Ok(())
            }
            9 if (-1..=100).contains(&value) => Ok(()),
            10..=15 => Ok(()),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetCacheConfig(h: CUfunction, _config: u32) -> CUresult {
    guard(|| with_function(h, |_, _| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetSharedMemConfig(h: CUfunction, _config: u32) -> CUresult {
    guard(|| with_function(h, |_, _| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, h: CUfunction) -> CUresult {
    guard(|| {
        let p = with_function(h, |e, _| Ok(e.name.as_ptr()))?;
        out(name, p)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetModule(pmod: *mut CUmodule, h: CUfunction) -> CUresult {
    guard(|| {
        let m = with_function(h, |e, _| Ok(e.module_id))?;
        out(pmod, handle(Kind::Module, m))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetParamInfo(
    h: CUfunction,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    guard(|| {
        let (o, s) = with_function(h, |_, f| {
            let p = f.params.get(index).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            Ok((p.offset as usize, p.size as usize))
        })?;
        if !offset.is_null() {
            out(offset, o)?;
        }
        if !size.is_null() {
            out(size, s)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncIsLoaded(state: *mut u32, h: CUfunction) -> CUresult {
    guard(|| {
        with_function(h, |_, _| Ok(()))?;
        out(state, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncLoad(h: CUfunction) -> CUresult {
    guard(|| with_function(h, |_, _| Ok(())))
}

/// `cuModuleGetLoadingMode`: modules are loaded (parsed, checked, compiled) eagerly,
/// `CU_MODULE_EAGER_LOADING`.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut u32) -> CUresult {
    guard(|| {
        driver()?;
        out(mode, 1)
    })
}
