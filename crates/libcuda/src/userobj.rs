//! User objects (`cuUserObjectCreate`, `cuUserObjectRetain/Release`,
//! `cuGraphRetainUserObject/ReleaseUserObject`), which `cuda.core` attaches to the
//! graphs it builds to keep Python objects alive: a reference count and a destructor
//! called when it reaches zero. A graph's references pass to each executable graph
//! instantiated from it (retained again) and are released when the graph or the
//! executable graph is destroyed.

use crate::*;
use std::collections::HashMap;
use std::sync::Mutex;

type HostFn = unsafe extern "C" fn(*mut c_void);

struct UserObj {
    ptr: usize,
    destroy: HostFn,
    refs: u64,
}

#[derive(Default)]
struct State {
    next: u64,
    objs: HashMap<u64, UserObj>,
    /// References held by graphs and executable graphs (by handle value).
    owners: HashMap<u64, HashMap<u64, u64>>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// A destructor to call (outside every lock) and its argument.
pub struct Pending(HostFn, usize);

impl Pending {
    pub fn run(self) {
        // SAFETY: the destructor and argument the client registered.
        unsafe { (self.0)(self.1 as *mut c_void) }
    }
}

fn with<T>(f: impl FnOnce(&mut State) -> Res<T>) -> Res<T> {
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(State::default))
}

/// Drops `n` references of object `id`; its destructor when none remain.
fn release(s: &mut State, id: u64, n: u64) -> Res<Option<Pending>> {
    let o = s.objs.get_mut(&id).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    if n == 0 || n > o.refs {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    o.refs -= n;
    if o.refs > 0 {
        return Ok(None);
    }
    let o = s.objs.remove(&id).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    Ok(Some(Pending(o.destroy, o.ptr)))
}

fn obj_id(s: &State, h: *mut c_void) -> Res<u64> {
    match handle_id(Kind::UserObject, h) {
        Some(id) if s.objs.contains_key(&id) => Ok(id),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

fn run_all(p: Vec<Pending>) {
    p.into_iter().for_each(Pending::run);
}

/// Releases every reference `owner` (a graph or executable graph handle) holds.
pub fn release_owner(owner: u64) {
    let pending = with(|s| {
        let held = s.owners.remove(&owner).unwrap_or_default();
        Ok(held
            .into_iter()
            .filter_map(|(id, n)| release(s, id, n).ok().flatten())
            .collect())
    })
    .unwrap_or_default();
    run_all(pending);
}

/// Gives `to` (an executable graph) the references `from` (its graph) holds.
pub fn copy_owner(from: u64, to: u64) {
    let _ = with(|s| {
        let held = s.owners.get(&from).cloned().unwrap_or_default();
        for (&id, &n) in &held {
            if let Some(o) = s.objs.get_mut(&id) {
                o.refs += n;
            }
        }
        s.owners.insert(to, held);
        Ok(())
    });
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectCreate(
    po: *mut *mut c_void,
    ptr: *mut c_void,
    destroy: Option<HostFn>,
    refs: u32,
    flags: u32,
) -> CUresult {
    guard(|| {
        // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC is required.
        let destroy = destroy.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if po.is_null() || refs == 0 || flags != 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with_ctx(|_, _, _| Ok(()))?;
        let id = with(|s| {
            s.next += 1;
            let id = s.next;
            s.objs.insert(
                id,
                UserObj {
                    ptr: ptr as usize,
                    destroy,
                    refs: refs as u64,
                },
            );
            Ok(id)
        })?;
        out(po, handle(Kind::UserObject, id))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectRetain(o: *mut c_void, n: u32) -> CUresult {
    guard(|| {
        with(|s| {
            let id = obj_id(s, o)?;
            if n == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if let Some(o) = s.objs.get_mut(&id) {
                o.refs += n as u64;
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectRelease(o: *mut c_void, n: u32) -> CUresult {
    guard(|| {
        let p = with(|s| {
            let id = obj_id(s, o)?;
            release(s, id, n as u64)
        })?;
        p.into_iter().for_each(Pending::run);
        Ok(())
    })
}

/// `cuGraphRetainUserObject`: the graph takes `n` references (moved from the caller
/// with `CU_GRAPH_USER_OBJECT_MOVE`, else new ones).
#[no_mangle]
pub unsafe extern "C" fn cuGraphRetainUserObject(
    g: graph::CUgraph,
    o: *mut c_void,
    n: u32,
    flags: u32,
) -> CUresult {
    guard(|| {
        graph::check_graph(g)?;
        if n == 0 || flags > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        with(|s| {
            let id = obj_id(s, o)?;
            if flags == 0 {
                if let Some(o) = s.objs.get_mut(&id) {
                    o.refs += n as u64;
                }
            }
            *s.owners.entry(g as u64).or_default().entry(id).or_default() += n as u64;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphReleaseUserObject(
    g: graph::CUgraph,
    o: *mut c_void,
    n: u32,
) -> CUresult {
    guard(|| {
        graph::check_graph(g)?;
        let p = with(|s| {
            let id = obj_id(s, o)?;
            let held = s
                .owners
                .get_mut(&(g as u64))
                .and_then(|m| m.get_mut(&id))
                .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            if n == 0 || n as u64 > *held {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            *held -= n as u64;
            release(s, id, n as u64)
        })?;
        p.into_iter().for_each(Pending::run);
        Ok(())
    })
}
