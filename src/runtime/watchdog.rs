//! The launch watchdog (`LaunchConfig::timeout`): one thread for the whole process,
//! started by the first launch with a time limit, that sets a launch's stop flag when
//! its deadline passes (generated code and the interpreter then stop the launch's warps
//! with an error, see `WarpCtx::stop`).
//!
//! A launch registers its flag and deadline ([`arm`]) and removes them when it ends
//! (dropping the [`Armed`] guard), both under the queue's lock, so the watchdog never
//! touches a flag after its launch has ended. Registering costs a lock and a push: the
//! watchdog thread is only woken when the new deadline is earlier than the time it
//! sleeps until, and removing an entry never wakes it (it may wake once for nothing).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Entry {
    id: u64,
    deadline: Instant,
    /// The launch's stop flag (valid while the entry is queued).
    flag: *const AtomicU32,
}

// SAFETY: the flag is only dereferenced under the queue's lock while its launch is
// running (the launch removes the entry under the same lock before the flag is freed).
unsafe impl Send for Entry {}

#[derive(Default)]
struct Queue {
    entries: Vec<Entry>,
    next_id: u64,
    /// When the watchdog thread wakes next (`None`: it waits for a notification, or
    /// has not been started).
    wake: Option<Instant>,
    started: bool,
}

struct Watchdog {
    queue: Mutex<Queue>,
    cv: Condvar,
}

fn watchdog() -> &'static Watchdog {
    static W: OnceLock<Watchdog> = OnceLock::new();
    W.get_or_init(|| Watchdog {
        queue: Mutex::new(Queue::default()),
        cv: Condvar::new(),
    })
}

/// A launch's registration with the watchdog; dropping it removes the registration.
pub(crate) struct Armed<'a> {
    id: Option<u64>,
    _flag: std::marker::PhantomData<&'a AtomicU32>,
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut q = watchdog().queue.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = q.entries.iter().position(|e| e.id == id) {
                q.entries.swap_remove(i);
            }
        }
    }
}

/// Sets `flag` to 1 once `limit` has passed (unless the returned guard is dropped
/// first); `None`: no limit.
pub(crate) fn arm(flag: &AtomicU32, limit: Option<Duration>) -> Armed<'_> {
    let Some(limit) = limit else {
        return Armed {
            id: None,
            _flag: std::marker::PhantomData,
        };
    };
    // A limit too large for `Instant` never passes.
    let Some(deadline) = Instant::now().checked_add(limit) else {
        return Armed {
            id: None,
            _flag: std::marker::PhantomData,
        };
    };
    let w = watchdog();
    let mut q = w.queue.lock().unwrap_or_else(|e| e.into_inner());
    let id = q.next_id;
    q.next_id += 1;
    q.entries.push(Entry { id, deadline, flag });
    if !q.started {
        let spawned = std::thread::Builder::new()
            .name("ptxjit-watchdog".into())
            .spawn(run);
        if spawned.is_ok() {
            q.started = true;
        }
    } else if q.wake.is_none_or(|t| deadline < t) {
        w.cv.notify_one();
    }
    Armed {
        id: Some(id),
        _flag: std::marker::PhantomData,
    }
}

/// The watchdog thread.
fn run() {
    let w = watchdog();
    let mut q = w.queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        q.entries.retain(|e| {
            if e.deadline <= now {
                // SAFETY: queued entries point to the flags of running launches.
                unsafe { (*e.flag).store(1, Ordering::Relaxed) };
                false
            } else {
                true
            }
        });
        let next = q.entries.iter().map(|e| e.deadline).min();
        q.wake = next;
        q = match next {
            None => w.cv.wait(q).unwrap_or_else(|e| e.into_inner()),
            Some(t) => {
                w.cv.wait_timeout(q, t.saturating_duration_since(now))
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
}
