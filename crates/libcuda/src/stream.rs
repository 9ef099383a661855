//! Streams and events. Every operation runs to completion when it is enqueued, in
//! order, so a stream is always idle: synchronize and query return at once, and
//! `cuStreamWaitEvent` has nothing to wait for. An event records the host time at which
//! it was recorded; `cuEventElapsedTime` is the difference in milliseconds.

use crate::*;
use std::time::Instant;

pub struct StreamEntry {
    pub ctx: u64,
    pub flags: u32,
    pub priority: i32,
}

pub struct EventEntry {
    pub ctx: u64,
    pub flags: u32,
    pub recorded: Option<Instant>,
}

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`, the special stream handles.
const LEGACY: u64 = 1;
const PER_THREAD: u64 = 2;
const CU_EVENT_DISABLE_TIMING: u32 = 2;

/// Checks a stream handle (the NULL, legacy and per-thread streams are always valid)
/// with a current context.
pub fn check(s: CUstream) -> Res {
    with_ctx(|_, t, _| stream_id(t, s).map(|_| ()))
}

/// The table id of a created stream, `None` for the special streams.
fn stream_id(t: &Tables, s: CUstream) -> Res<Option<u64>> {
    if matches!(s as u64, 0 | LEGACY | PER_THREAD) {
        return Ok(None);
    }
    match handle_id(Kind::Stream, s) {
        Some(id) if t.streams.contains_key(&id) => Ok(Some(id)),
        _ => Err(CUDA_ERROR_INVALID_HANDLE),
    }
}

fn event_id(t: &Tables, e: CUevent) -> Res<u64> {
    match handle_id(Kind::Event, e) {
        Some(id) if t.events.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_HANDLE),
    }
}

fn create(ph: *mut CUstream, flags: u32, priority: i32) -> Res {
    if ph.is_null() || flags > 1 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    with_ctx(|_, t, c| {
        let id = t.new_id();
        t.streams.insert(
            id,
            StreamEntry {
                ctx: c,
                flags,
                priority: priority.clamp(-5, 0),
            },
        );
        // SAFETY: checked non-null.
        unsafe { out(ph, handle(Kind::Stream, id)) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(ph: *mut CUstream, flags: u32) -> CUresult {
    guard(|| create(ph, flags, 0))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    ph: *mut CUstream,
    flags: u32,
    priority: i32,
) -> CUresult {
    guard(|| create(ph, flags, priority))
}

fn destroy(s: CUstream) -> Res {
    with_ctx(|_, t, _| match stream_id(t, s)? {
        Some(id) => {
            t.streams.remove(&id);
            Ok(())
        }
        None => Err(CUDA_ERROR_INVALID_HANDLE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamDestroy_v2(s: CUstream) -> CUresult {
    guard(|| destroy(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamDestroy(s: CUstream) -> CUresult {
    guard(|| destroy(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(s: CUstream) -> CUresult {
    guard(|| check(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize_ptsz(s: CUstream) -> CUresult {
    guard(|| check(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery(s: CUstream) -> CUresult {
    guard(|| check(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery_ptsz(s: CUstream) -> CUresult {
    guard(|| check(s))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent(s: CUstream, e: CUevent, _flags: u32) -> CUresult {
    guard(|| {
        with_ctx(|_, t, _| {
            stream_id(t, s)?;
            event_id(t, e).map(|_| ())
        })?;
        // Waiting on an event of a capture joins it (cross-stream capture).
        graph::join(s, e)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent_ptsz(s: CUstream, e: CUevent, flags: u32) -> CUresult {
    cuStreamWaitEvent(s, e, flags)
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetPriority(s: CUstream, p: *mut i32) -> CUresult {
    guard(|| {
        let prio = with_ctx(|_, t, _| {
            Ok(stream_id(t, s)?
                .and_then(|id| t.streams.get(&id))
                .map_or(0, |e| e.priority))
        })?;
        out(p, prio)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetFlags(s: CUstream, f: *mut u32) -> CUresult {
    guard(|| {
        let flags = with_ctx(|_, t, _| {
            Ok(stream_id(t, s)?
                .and_then(|id| t.streams.get(&id))
                .map_or(0, |e| e.flags))
        })?;
        out(f, flags)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(s: CUstream, pctx: *mut CUcontext) -> CUresult {
    guard(|| {
        let c = with_ctx(|_, t, c| {
            Ok(stream_id(t, s)?
                .and_then(|id| t.streams.get(&id))
                .map_or(c, |e| e.ctx))
        })?;
        out(pctx, handle(Kind::Context, c))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetId(s: CUstream, pid: *mut u64) -> CUresult {
    guard(|| {
        let id = with_ctx(|_, t, _| Ok(stream_id(t, s)?.unwrap_or(s as u64)))?;
        out(pid, id)
    })
}

/// Runs a host function at once (all earlier work on the stream is complete), or
/// records it when the stream is capturing.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    s: CUstream,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CUresult {
    let r = guard(|| check(s));
    if r != CUDA_SUCCESS {
        return r;
    }
    let Some(f) = f else {
        return CUDA_ERROR_INVALID_VALUE;
    };
    guard(|| match graph::capturing(s)? {
        Some(g) => graph::record(g, graph::NODE_HOST, graph::host_op(f, data)),
        None => {
            f(data);
            Ok(())
        }
    })
}

/// Calls a stream callback at once with `CUDA_SUCCESS`.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(
    s: CUstream,
    f: Option<unsafe extern "C" fn(CUstream, CUresult, *mut c_void)>,
    data: *mut c_void,
    flags: u32,
) -> CUresult {
    let r = guard(|| check(s));
    if r != CUDA_SUCCESS {
        return r;
    }
    match f {
        Some(f) if flags == 0 => {
            f(s, CUDA_SUCCESS, data);
            CUDA_SUCCESS
        }
        _ => CUDA_ERROR_INVALID_VALUE,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(ph: *mut CUevent, flags: u32) -> CUresult {
    guard(|| {
        if ph.is_null() || flags & !0xf != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_ctx(|_, t, c| {
            let id = t.new_id();
            t.events.insert(
                id,
                EventEntry {
                    ctx: c,
                    flags,
                    recorded: None,
                },
            );
            out(ph, handle(Kind::Event, id))
        })
    })
}

fn event_destroy(e: CUevent) -> Res {
    with_ctx(|_, t, _| {
        let id = event_id(t, e)?;
        t.events.remove(&id);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy_v2(e: CUevent) -> CUresult {
    guard(|| event_destroy(e))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy(e: CUevent) -> CUresult {
    guard(|| event_destroy(e))
}

fn record(e: CUevent, s: CUstream) -> Res {
    with_ctx(|_, t, _| {
        stream_id(t, s)?;
        let id = event_id(t, e)?;
        if let Some(ev) = t.events.get_mut(&id) {
            ev.recorded = Some(Instant::now());
        }
        Ok(())
    })?;
    graph::note_event(e, s)
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecord(e: CUevent, s: CUstream) -> CUresult {
    guard(|| record(e, s))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecord_ptsz(e: CUevent, s: CUstream) -> CUresult {
    guard(|| record(e, s))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecordWithFlags(e: CUevent, s: CUstream, _flags: u32) -> CUresult {
    guard(|| record(e, s))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(e: CUevent) -> CUresult {
    guard(|| with_ctx(|_, t, _| event_id(t, e).map(|_| ())))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventQuery(e: CUevent) -> CUresult {
    guard(|| with_ctx(|_, t, _| event_id(t, e).map(|_| ())))
}

fn elapsed(ms: *mut f32, a: CUevent, b: CUevent) -> Res {
    if ms.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let v = with_ctx(|_, t, _| {
        let (ea, eb) = (&t.events[&event_id(t, a)?], &t.events[&event_id(t, b)?]);
        if (ea.flags | eb.flags) & CU_EVENT_DISABLE_TIMING != 0 {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        match (ea.recorded, eb.recorded) {
            (Some(x), Some(y)) => Ok(if y >= x {
                (y - x).as_secs_f64() * 1e3
            } else {
                -((x - y).as_secs_f64() * 1e3)
            }),
            _ => Err(CUDA_ERROR_INVALID_HANDLE),
        }
    })?;
    // SAFETY: checked non-null.
    unsafe { out(ms, v as f32) }
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, a: CUevent, b: CUevent) -> CUresult {
    guard(|| elapsed(ms, a, b))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, a: CUevent, b: CUevent) -> CUresult {
    guard(|| elapsed(ms, a, b))
}

/// `cuLaunchHostFunc_v2` (CUDA 13.1): as `cuLaunchHostFunc`; every sync mode is the
/// same here, since the function runs when it is enqueued.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc_v2(
    s: CUstream,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
    _sync_mode: u32,
) -> CUresult {
    cuLaunchHostFunc(s, f, data)
}

/// `cuProfilerStart`: there is no profiler to start; succeeds as with no tool attached.
#[no_mangle]
pub unsafe extern "C" fn cuProfilerStart() -> CUresult {
    guard(|| with_ctx(|_, _, _| Ok(())))
}

/// `cuProfilerStop`: as `cuProfilerStart`.
#[no_mangle]
pub unsafe extern "C" fn cuProfilerStop() -> CUresult {
    guard(|| with_ctx(|_, _, _| Ok(())))
}
