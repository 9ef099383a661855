//! A device's worker threads: started when a launch first needs them and kept until the
//! device is dropped, so a launch over several workers costs a wake-up instead of
//! thread creation. [`Pool::run`] runs `f(0)` on the calling thread and `f(1..n)` on
//! pool threads and returns when all are done. One launch uses the pool at a time; a
//! launch that finds it busy (launches from several host threads at once) runs on
//! threads of its own, as every launch did before.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A job: `f(i)` for the indices handed out.
type JobFn = dyn Fn(usize) + Sync;

#[derive(Default)]
struct State {
    /// The job being run (its closure lives on the stack of the `run` call, which does
    /// not return before every index was run).
    job: Option<*const JobFn>,
    /// Indices `1..n` are handed out to pool threads in order.
    next: usize,
    n: usize,
    /// Pool threads inside `f`.
    running: usize,
    /// A panic message of `f`, if it panicked.
    panic: Option<String>,
    shutdown: bool,
}

// SAFETY: the job pointer is only dereferenced while `run` waits for it (see `State`),
// and the closure is `Sync`.
unsafe impl Send for State {}

struct Shared {
    state: Mutex<State>,
    /// Pool threads wait here for work.
    work: Condvar,
    /// `run` waits here for the pool threads to finish.
    done: Condvar,
}

/// The worker threads of one device.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    /// Held by the launch that uses the pool threads.
    busy: Mutex<Vec<JoinHandle<()>>>,
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                done: Condvar::new(),
            }),
            busy: Mutex::new(Vec::new()),
        }
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a worker thread panicked".into())
}

impl Pool {
    /// Runs `f(i)` for `i` in `0..n`, `f(0)` on this thread, and waits for all of them.
    /// Returns the message of a panic in `f`, if any.
    pub(crate) fn run(&self, n: usize, f: &(dyn Fn(usize) + Sync)) -> Result<(), String> {
        let mut threads = match self.busy.try_lock() {
            Ok(t) => t,
            Err(_) => return run_scoped(n, f),
        };
        while threads.len() + 1 < n {
            let shared = self.shared.clone();
            let t = std::thread::Builder::new()
                .name("ptxjit-worker".into())
                .spawn(move || pool_thread(&shared));
            match t {
                Ok(t) => threads.push(t),
                Err(_) => return run_scoped(n, f),
            }
        }
        // SAFETY: the pointer's lifetime is erased; `run` returns only after every pool
        // thread has finished with it (`next == n` and `running == 0`, then `job` is
        // cleared under the lock).
        let job: *const JobFn =
            unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static JobFn>(f) };
        {
            let mut st = self.lock();
            st.job = Some(job);
            st.next = 1;
            st.n = n;
            st.running = 0;
            st.panic = None;
        }
        self.shared.work.notify_all();
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        let mut st = self.lock();
        // Indices no pool thread has taken yet run here.
        while st.next < st.n {
            let i = st.next;
            st.next += 1;
            drop(st);
            let r = catch_unwind(AssertUnwindSafe(|| f(i)));
            st = self.lock();
            if let Err(p) = r {
                st.panic.get_or_insert_with(|| panic_text(&*p));
            }
        }
        while st.running > 0 {
            st = self.shared.done.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.job = None;
        let panic = st.panic.take();
        drop(st);
        match (mine, panic) {
            (Err(p), _) => Err(panic_text(&*p)),
            (Ok(()), Some(p)) => Err(p),
            (Ok(()), None) => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.lock().shutdown = true;
        self.shared.work.notify_all();
        let threads = std::mem::take(self.busy.get_mut().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }
}

fn pool_thread(sh: &Shared) {
    let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if st.shutdown {
            return;
        }
        match st.job {
            Some(job) if st.next < st.n => {
                let i = st.next;
                st.next += 1;
                st.running += 1;
                drop(st);
                // SAFETY: `run` keeps the closure alive until `running` drops to 0.
                let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(i) }));
                st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
                st.running -= 1;
                if let Err(p) = r {
                    st.panic.get_or_insert_with(|| panic_text(&*p));
                }
                if st.running == 0 && st.next >= st.n {
                    sh.done.notify_all();
                }
            }
            _ => st = sh.work.wait(st).unwrap_or_else(|e| e.into_inner()),
        }
    }
}

/// `f(0..n)` on threads created for this call (the pool is in use).
fn run_scoped(n: usize, f: &(dyn Fn(usize) + Sync)) -> Result<(), String> {
    std::thread::scope(|s| {
        let hs: Vec<_> = (1..n).map(|i| s.spawn(move || f(i))).collect();
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        let mut out = mine.map_err(|p| panic_text(&*p));
        for h in hs {
            if let Err(p) = h.join() {
                if out.is_ok() {
                    out = Err(panic_text(&*p));
                }
            }
        }
        out
    })
}
