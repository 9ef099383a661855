//! Split calls (both backends): a call that only some lanes of a warp make, to a
//! function that can reach a barrier, runs the callee in a child coroutine with a host
//! stack of its own. When the callee's lanes all wait at a barrier the child suspends
//! and the call returns to the caller with those lanes *suspended*: the caller parks
//! them at the call's resume block (`ir::Terminator::Resume`) behind the barrier flag
//! and runs the warp's other lanes, which may arrive at the same barrier from
//! elsewhere (sm_70 per-thread arrival). When the caller's dispatcher reaches the resume
//! block, [`call_resume`] continues the children there.
//!
//! Each coroutine of a warp (the warp's own, or a child) *owns* a set of lanes: all
//! lanes for the warp's, the called lanes for a child. A call whose lanes are all the
//! live lanes its coroutine owns needs no split and is a plain call. Children are kept
//! in the warp's [`WarpEnv`] with the lanes of the coroutine that made them; the lane
//! sets of coroutines alive at one time are distinct (a child's lanes are a strict
//! subset of its maker's live lanes), which identifies them. Switching coroutines swaps
//! the per-warp call state (local windows, call depth, host-stack limit, yielder).
//!
//! Barrier arrivals stay in `WarpEnv::arrivals` until the warp's own coroutine yields to
//! the scheduler; a child's `bar.arrive` is forwarded to the scheduler at once.

use super::barrier::WarpYield;
use super::call::HOST_STACK_MARGIN;
use super::ctx::{stop_with_error, WarpCtx, WarpEnv, STATUS_OK, WARP_SIZE};
use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};

type Co = Coroutine<(), WarpYield, u32, DefaultStack>;

/// The per-coroutine part of a warp's state.
#[derive(Clone, Copy)]
struct Saved {
    local_base: [u64; WARP_SIZE],
    local_size: u64,
    call_depth: u32,
    stack_limit: usize,
    owned: u32,
    yielder: Option<*const Yielder<(), WarpYield>>,
}

impl Saved {
    fn take(ctx: &WarpCtx, env: &WarpEnv) -> Saved {
        Saved {
            local_base: ctx.local_base,
            local_size: ctx.local_size,
            call_depth: ctx.call_depth,
            stack_limit: env.stack_limit,
            owned: env.split.owned,
            yielder: env.yielder,
        }
    }

    fn restore(&self, ctx: &mut WarpCtx, env: &mut WarpEnv) {
        ctx.local_base = self.local_base;
        ctx.local_size = self.local_size;
        ctx.call_depth = self.call_depth;
        env.stack_limit = self.stack_limit;
        env.split.owned = self.owned;
        env.yielder = self.yielder;
    }
}

/// A suspended child coroutine.
struct Child {
    co: Co,
    /// The lanes it runs (it owns).
    lanes: u32,
    /// The lanes owned by the coroutine that made it.
    maker: u32,
    saved: Saved,
}

/// The split-call state of a warp (in its [`WarpEnv`]).
pub struct SplitState {
    /// Lanes owned by the running coroutine.
    pub owned: u32,
    /// Host stack bytes of a child coroutine.
    pub stack_bytes: usize,
    children: Vec<Child>,
    spare: Vec<DefaultStack>,
}

impl Default for SplitState {
    fn default() -> SplitState {
        SplitState {
            owned: u32::MAX,
            stack_bytes: super::call::CALL_STACK_HOST_BYTES,
            children: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl SplitState {
    /// Drops every suspended child without running it further (at the end of a CTA,
    /// or when the launch stops), and makes the warp's coroutine own every lane again.
    #[inline]
    pub fn reset(&mut self) {
        if !self.children.is_empty() {
            self.drop_children();
        }
        self.owned = u32::MAX;
    }

    /// [`SplitState::reset`]'s work when children are suspended (kept out of line: the
    /// CTA loop resets every warp of every CTA, which almost never has any).
    #[inline(never)]
    fn drop_children(&mut self) {
        for mut c in self.children.drain(..) {
            if !c.co.done() {
                // SAFETY: nothing on a child's stack needs dropping for correctness
                // (interpreter frames leak their heap data; JIT frames own nothing).
                unsafe { c.co.force_reset() };
            }
            self.spare.push(c.co.into_stack());
        }
    }
}

/// What a split call or a resume reports: lanes that returned, lanes suspended.
pub type Outcome = (u32, u32);

/// Calls `body` (the callee, run for lanes `group`) as a split call when `group` is not
/// every live lane the running coroutine owns (see the module docs), else directly.
/// Returns the lanes that returned and the lanes suspended at a barrier inside the
/// callee (parked by the caller at the call's resume block). On a host error the warp
/// is stopped (`ctx.status`).
///
/// # Safety
/// `ctx` must be the running warp's context with a valid `env`, with the callee's frame
/// pushed; `body` must stay valid until the child finishes or the warp's CTA ends.
pub unsafe fn call_split(
    ctx: *mut WarpCtx,
    group: u32,
    body: impl FnOnce(*mut WarpCtx) -> u32,
) -> Outcome {
    // SAFETY (all derefs of `ctx` and its env below): as documented; each reference
    // is dropped before code that makes its own runs.
    let direct = unsafe {
        let env = &*(*ctx).env;
        env.yielder.is_none() || group == env.split.owned & (*ctx).live
    };
    if direct {
        return (body(ctx), 0);
    }
    let (c, env) = unsafe { (&mut *ctx, &mut *(*ctx).env) };
    let stack = match env.split.spare.pop() {
        Some(s) if s.base().get() - s.limit().get() >= env.split.stack_bytes => s,
        _ => match DefaultStack::new(env.split.stack_bytes) {
            Ok(s) => s,
            Err(e) => {
                // SAFETY: as documented.
                unsafe { stop_with_error(c, format!("cannot allocate a call stack: {e}")) };
                return (0, 0);
            }
        },
    };
    let parent = Saved::take(c, env);
    let limit = stack.limit().get() + HOST_STACK_MARGIN;
    // SAFETY: the coroutine is run to completion or reset (`SplitState::reset`) before
    // the warp's context and env go away; `body` is valid as long (documented).
    let co = unsafe {
        Co::with_stack_unchecked(stack, move |y, ()| {
            (*(*ctx).env).yielder = Some(y as *const _);
            body(ctx)
        })
    };
    let mut child = Child {
        co,
        lanes: group,
        maker: parent.owned,
        saved: Saved {
            stack_limit: limit,
            owned: group,
            yielder: None,
            ..parent
        },
    };
    // SAFETY: as documented.
    let out = match unsafe { run_child(ctx, &parent, &mut child) } {
        Some(returned) => (returned, 0),
        None => (0, group),
    };
    // SAFETY: as documented (no other reference to the env is live here).
    unsafe { keep(ctx, child) };
    out
}

/// The resume block of a call with the callee's frame of `frame` bytes: continues the
/// children (of the running coroutine) whose lanes wait at it (`lanes`). Leaves the
/// callee's frame pushed (as after the call itself) so that the caller loads the return
/// values and pops it. Returns the lanes that returned and those suspended again.
///
/// # Safety
/// As [`call_split`], at the resume block of the call whose children these are.
pub unsafe fn call_resume(ctx: *mut WarpCtx, frame: u32, lanes: u32) -> Outcome {
    // SAFETY (all derefs of `ctx` and its env below): as documented; each reference
    // is dropped before `run_child` makes its own.
    let parent = unsafe { Saved::take(&*ctx, &*(*ctx).env) };
    let mine: Vec<Child> = {
        let children = unsafe { &mut (*(*ctx).env).split.children };
        let (mine, rest) = std::mem::take(children)
            .into_iter()
            .partition(|ch| ch.maker == parent.owned && ch.lanes & lanes != 0);
        *children = rest;
        mine
    };
    let (mut returned, mut suspended) = (0, 0);
    for mut child in mine {
        if unsafe { (*ctx).status } == STATUS_OK {
            match unsafe { run_child(ctx, &parent, &mut child) } {
                Some(r) => returned |= r,
                None => suspended |= child.lanes,
            }
        }
        unsafe { keep(ctx, child) };
    }
    let (c, env) = unsafe { (&mut *ctx, &mut *(*ctx).env) };
    parent.restore(c, env);
    for b in c.local_base.iter_mut() {
        *b += frame as u64;
    }
    c.local_size -= frame as u64;
    c.call_depth += 1;
    (returned, suspended)
}

/// Runs `child` until it returns (`Some(lanes that returned)`; its stack goes back to
/// the spare ones) or waits at a barrier (`None`, its state saved in it), forwarding
/// its `bar.arrive`s to the scheduler. Restores the `parent` state afterwards.
unsafe fn run_child(ctx: *mut WarpCtx, parent: &Saved, child: &mut Child) -> Option<u32> {
    // SAFETY: the caller guarantees ctx and env; the references end before the child
    // runs (it uses the same context).
    unsafe { child.saved.restore(&mut *ctx, &mut *(*ctx).env) };
    loop {
        match child.co.resume(()) {
            CoroutineResult::Yield(k @ (WarpYield::Arrive | WarpYield::Poll)) => {
                if let Some(y) = parent.yielder {
                    // SAFETY: the parent's yielder lives while the parent runs (this
                    // code runs on the parent's stack).
                    unsafe { (*y).suspend(k) };
                }
            }
            CoroutineResult::Yield(WarpYield::Wait) => {
                // SAFETY: as above (the child is suspended).
                let (c, env) = unsafe { (&mut *ctx, &mut *(*ctx).env) };
                child.saved = Saved::take(c, env);
                parent.restore(c, env);
                return None;
            }
            CoroutineResult::Return(returned) => {
                // SAFETY: as above (the child is done).
                let (c, env) = unsafe { (&mut *ctx, &mut *(*ctx).env) };
                parent.restore(c, env);
                return Some(returned);
            }
        }
    }
}

/// Keeps a suspended child, or recycles the stack of a finished one.
///
/// # Safety
/// `ctx` must be the running warp's context with a valid env, not otherwise borrowed.
unsafe fn keep(ctx: *mut WarpCtx, child: Child) {
    // SAFETY: as documented.
    let split = unsafe { &mut (*(*ctx).env).split };
    if child.co.done() {
        split.spare.push(child.co.into_stack());
    } else {
        split.children.push(child);
    }
}
