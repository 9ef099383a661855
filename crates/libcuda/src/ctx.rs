//! Contexts: the primary context (retain/release/state), created contexts, and the
//! per-host-thread stack of current contexts (`cuCtxSetCurrent`, push/pop).

use crate::*;
use std::cell::RefCell;

/// A context. All contexts share the one device and its memory.
pub struct Context {
    pub flags: u32,
    pub primary: bool,
}

thread_local! {
    /// This thread's context stack; the top is the current context.
    static STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The current context's id, if the thread has one (it may have been destroyed). A
/// thread whose thread-locals are being torn down (the CUDA runtime's exit handlers
/// call in then) has none.
pub fn current() -> Option<u64> {
    STACK
        .try_with(|s| s.borrow().last().copied())
        .ok()
        .flatten()
}

/// The current context's id: `CUDA_ERROR_INVALID_CONTEXT` if there is none or it was
/// destroyed.
pub fn current_checked(t: &Tables) -> Res<u64> {
    match current() {
        Some(c) if t.contexts.contains_key(&c) => Ok(c),
        _ => Err(CUDA_ERROR_INVALID_CONTEXT),
    }
}

fn set_top(c: Option<u64>) {
    let _ = STACK.try_with(|s| {
        let mut s = s.borrow_mut();
        s.pop();
        if let Some(c) = c {
            s.push(c);
        }
    });
}

/// A context handle's id, checked to be alive.
pub fn ctx_id(t: &Tables, h: CUcontext) -> Res<u64> {
    match handle_id(Kind::Context, h) {
        Some(id) if t.contexts.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_CONTEXT),
    }
}

fn check_dev(dev: CUdevice) -> Res {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

/// Removes a context: its modules, functions, streams and events go with it.
fn destroy(t: &mut Tables, id: u64) {
    t.contexts.remove(&id);
    t.context_storage.retain(|k, _| k.0 != id);
    t.modules.retain(|_, m| m.ctx != id);
    let modules = &t.modules;
    t.functions
        .retain(|_, f| modules.contains_key(&f.module_id));
    t.streams.retain(|_, s| s.ctx != id);
    t.events.retain(|_, e| e.ctx != id);
    if t.primary == Some(id) {
        t.primary = None;
        t.primary_refs = 0;
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut t = d.lock();
        let id = match t.primary {
            Some(id) => id,
            None => {
                let id = t.new_id();
                let flags = t.primary_flags;
                t.contexts.insert(
                    id,
                    Context {
                        flags,
                        primary: true,
                    },
                );
                t.primary = Some(id);
                id
            }
        };
        t.primary_refs += 1;
        out(pctx, handle(Kind::Context, id))
    })
}

/// The primary context of `dev`, created (not retained: its retain count stays) if it
/// does not exist; the CUDA runtime's private interface asks for it this way.
pub fn primary_unretained(dev: CUdevice) -> Res<CUcontext> {
    let d = driver()?;
    check_dev(dev)?;
    let mut t = d.lock();
    let id = match t.primary {
        Some(id) => id,
        None => {
            let id = t.new_id();
            let flags = t.primary_flags;
            t.contexts.insert(
                id,
                Context {
                    flags,
                    primary: true,
                },
            );
            t.primary = Some(id);
            id
        }
    };
    Ok(handle(Kind::Context, id))
}

unsafe fn primary_release(dev: CUdevice) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        let mut t = d.lock();
        let Some(id) = t.primary else {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        };
        t.primary_refs = t.primary_refs.saturating_sub(1);
        if t.primary_refs == 0 {
            destroy(&mut t, id);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    primary_release(dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    primary_release(dev)
}

unsafe fn primary_reset(dev: CUdevice) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        let mut t = d.lock();
        if let Some(id) = t.primary {
            destroy(&mut t, id);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    primary_reset(dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    primary_reset(dev)
}

unsafe fn primary_set_flags(dev: CUdevice, flags: u32) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        if flags & !0x1f != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut t = d.lock();
        t.primary_flags = flags;
        if let Some(id) = t.primary {
            if let Some(c) = t.contexts.get_mut(&id) {
                c.flags = flags;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: u32) -> CUresult {
    primary_set_flags(dev, flags)
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: u32) -> CUresult {
    primary_set_flags(dev, flags)
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut u32,
    active: *mut i32,
) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        if flags.is_null() || active.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let t = d.lock();
        out(flags, t.primary_flags)?;
        out(active, (t.primary.is_some() && t.primary_refs > 0) as i32)
    })
}

unsafe fn ctx_create(pctx: *mut CUcontext, flags: u32, dev: CUdevice) -> CUresult {
    guard(|| {
        let d = driver()?;
        check_dev(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut t = d.lock();
        let id = t.new_id();
        t.contexts.insert(
            id,
            Context {
                flags,
                primary: false,
            },
        );
        let _ = STACK.try_with(|s| s.borrow_mut().push(id));
        out(pctx, handle(Kind::Context, id))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut CUcontext,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    ctx_create(pctx, flags, dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate(pctx: *mut CUcontext, flags: u32, dev: CUdevice) -> CUresult {
    ctx_create(pctx, flags, dev)
}

/// `cuCtxCreate_v3` (with execution-affinity parameters, which are ignored).
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut CUcontext,
    _params: *mut c_void,
    _n: i32,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    ctx_create(pctx, flags, dev)
}

/// `CUctxCreateParams` (CUDA 12.5 and 13.x).
#[repr(C)]
pub struct CUctxCreateParams {
    pub exec_affinity_params: *mut c_void,
    pub num_exec_affinity_params: i32,
    pub cig_params: *mut c_void,
}

/// `cuCtxCreate_v4` (CUDA 13's `cuCtxCreate`): a NULL or all-empty
/// `CUctxCreateParams` is a plain context; execution-affinity parameters are ignored
/// as by `cuCtxCreate_v3`; CIG (graphics-interop) parameters are not supported.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut CUcontext,
    params: *mut CUctxCreateParams,
    flags: u32,
    dev: CUdevice,
) -> CUresult {
    if let Some(p) = params.as_ref() {
        if p.num_exec_affinity_params < 0
            || (p.exec_affinity_params.is_null() && p.num_exec_affinity_params != 0)
        {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if !p.exec_affinity_params.is_null() && !p.cig_params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if !p.cig_params.is_null() {
            return not_supported("cuCtxCreate_v4 with CIG parameters");
        }
    }
    ctx_create(pctx, flags, dev)
}

/// The context `ctx` names (NULL: the current one) exists.
fn ctx_given_or_current(ctx: CUcontext) -> Res {
    if ctx.is_null() {
        with_ctx(|_, _, _| Ok(()))
    } else {
        ctx_id(&driver()?.lock(), ctx).map(|_| ())
    }
}

/// `cuCtxGetDevice_v2` (CUDA 13): the device of `ctx`, or of the current context.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: CUcontext) -> CUresult {
    guard(|| {
        ctx_given_or_current(ctx)?;
        out(dev, 0)
    })
}

/// `cuCtxSynchronize_v2` (CUDA 13): every operation has completed when it returns.
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: CUcontext) -> CUresult {
    guard(|| ctx_given_or_current(ctx))
}

unsafe fn ctx_destroy(ctx: CUcontext) -> CUresult {
    guard(|| {
        let d = driver()?;
        let mut t = d.lock();
        let id = ctx_id(&t, ctx)?;
        if t.contexts.get(&id).is_some_and(|c| c.primary) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        destroy(&mut t, id);
        if current() == Some(id) {
            set_top(None);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    ctx_destroy(ctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy(ctx: CUcontext) -> CUresult {
    ctx_destroy(ctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    guard(|| {
        let d = driver()?;
        if ctx.is_null() {
            set_top(None);
            return Ok(());
        }
        let t = d.lock();
        let id = ctx_id(&t, ctx)?;
        set_top(Some(id));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        driver()?;
        let h = current().map_or(std::ptr::null_mut(), |c| handle(Kind::Context, c));
        out(pctx, h)
    })
}

unsafe fn ctx_push(ctx: CUcontext) -> CUresult {
    guard(|| {
        let d = driver()?;
        let t = d.lock();
        let id = ctx_id(&t, ctx)?;
        let _ = STACK.try_with(|s| s.borrow_mut().push(id));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult {
    ctx_push(ctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPushCurrent(ctx: CUcontext) -> CUresult {
    ctx_push(ctx)
}

unsafe fn ctx_pop(pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        driver()?;
        let Some(id) = STACK.try_with(|s| s.borrow_mut().pop()).ok().flatten() else {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        };
        if !pctx.is_null() {
            out(pctx, handle(Kind::Context, id))?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult {
    ctx_pop(pctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent(pctx: *mut CUcontext) -> CUresult {
    ctx_pop(pctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    guard(|| {
        with_ctx(|_, _, _| Ok(()))?;
        out(dev, 0)
    })
}

/// Every operation has completed when it returns, so there is nothing to wait for.
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    guard(|| with_ctx(|_, _, _| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut u32) -> CUresult {
    guard(|| {
        let f = with_ctx(|_, t, c| Ok(t.contexts.get(&c).map_or(0, |c| c.flags)))?;
        out(flags, f)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut u32) -> CUresult {
    guard(|| {
        let d = driver()?;
        if !ctx.is_null() {
            ctx_id(&d.lock(), ctx)?;
        } else {
            with_ctx(|_, _, _| Ok(()))?;
        }
        out(version, 3020)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetId(ctx: CUcontext, id: *mut u64) -> CUresult {
    guard(|| {
        let d = driver()?;
        let c = if ctx.is_null() {
            with_ctx(|_, _, c| Ok(c))?
        } else {
            ctx_id(&d.lock(), ctx)?
        };
        out(id, c)
    })
}

/// Stream priorities: 0 (least) to -5 (greatest), as on recent GPUs. All streams run
/// their work at once, so priorities change nothing.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut i32,
    greatest: *mut i32,
) -> CUresult {
    guard(|| {
        with_ctx(|_, _, _| Ok(()))?;
        if !least.is_null() {
            out(least, 0)?;
        }
        if !greatest.is_null() {
            out(greatest, -5)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: u32) -> CUresult {
    guard(|| {
        let d = with_ctx(|d, _, _| Ok(d))?;
        let v = match limit {
            0 => 1024,                                     // CU_LIMIT_STACK_SIZE
            1 => 1 << 20,                                  // CU_LIMIT_PRINTF_FIFO_SIZE
            2 => d.device.malloc_heap_size() as usize,     // CU_LIMIT_MALLOC_HEAP_SIZE
            3 => 2,                                        // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH
            4 => d.device.pending_launch_limit() as usize, // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
            5 => 32,                                       // CU_LIMIT_MAX_L2_FETCH_GRANULARITY
            6 => 0,                                        // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        out(value, v)
    })
}

/// `CU_LIMIT_MALLOC_HEAP_SIZE` sizes the device heap of kernels' `malloc` and
/// `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT` bounds device-side launches (like a GPU,
/// only before a kernel has used them: `CUDA_ERROR_INVALID_VALUE` afterwards); the other
/// limits are accepted and ignored (ptxjit sizes call stacks itself; the sync depth only
/// concerns CDP1's device-side `cudaDeviceSynchronize`, which ptxjit does not provide).
#[no_mangle]
pub unsafe extern "C" fn cuCtxSetLimit(limit: u32, value: usize) -> CUresult {
    guard(|| {
        let d = with_ctx(|d, _, _| Ok(d))?;
        match limit {
            2 => d
                .device
                .set_malloc_heap_size(value as u64)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE),
            4 => d
                .device
                .set_pending_launch_limit(value as u64)
                .map_err(|_| CUDA_ERROR_INVALID_VALUE),
            0..=6 => Ok(()),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut u32) -> CUresult {
    guard(|| {
        with_ctx(|_, _, _| Ok(()))?;
        out(config, 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: u32) -> CUresult {
    guard(|| {
        with_ctx(|_, _, _| Ok(()))?;
        if config > 3 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(())
    })
}
