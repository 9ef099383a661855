//! A device's worker threads: started when a launch first needs them and kept until the
//! device is dropped, so a launch over several workers costs a wake-up instead of
//! thread creation. [`Pool::run`] runs `f(0)` on the calling thread and `f(1..n)` on
//! pool threads and returns when all are done. One launch uses the pool at a time; a
//! launch that finds it busy (launches from several host threads at once) runs on
//! threads of its own, as every launch did before.
//!
//! Waking a sleeping thread costs tens of microseconds on a virtual machine (a futex
//! wake, then the idle vCPU's wake-up), which a launch of a millisecond pays twice: the
//! pool thread starting late and the launching thread waking late when the pool thread
//! finishes last. So a pool thread that finished a job spins for [`SPIN`] on the job
//! generation before it sleeps (back-to-back launches find it awake), and `run` spins
//! for as long on the count of running pool threads before it sleeps.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a pool thread waits for the next job, and `run` for the pool threads to
/// finish, spinning before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

/// Spins until `done()` or [`SPIN`] has passed; returns `done()`. Never spins on a
/// host with one CPU (the thread it waits for would not run meanwhile).
fn spin_until(done: impl Fn() -> bool) -> bool {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cpus = *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if cpus < 2 {
        return done();
    }
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            return done();
        }
    }
}

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
    /// Bumped when a job is posted (pool threads spin on it before they sleep).
    gen: AtomicU64,
    /// `State::running`, readable without the lock (`run` spins on it).
    running: AtomicUsize,
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
                gen: AtomicU64::new(0),
                running: AtomicUsize::new(0),
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
            self.shared.gen.fetch_add(1, Ordering::Release);
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
        if st.running > 0 {
            drop(st);
            spin_until(|| self.shared.running.load(Ordering::Acquire) == 0);
            st = self.lock();
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
    // Whether to spin before sleeping: after a job (the next may follow at once).
    let mut spin = false;
    loop {
        if st.shutdown {
            return;
        }
        match st.job {
            Some(job) if st.next < st.n => {
                let i = st.next;
                st.next += 1;
                st.running += 1;
                sh.running.store(st.running, Ordering::Release);
                drop(st);
                // SAFETY: `run` keeps the closure alive until `running` drops to 0.
                let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(i) }));
                st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
                st.running -= 1;
                sh.running.store(st.running, Ordering::Release);
                spin = true;
                if let Err(p) = r {
                    st.panic.get_or_insert_with(|| panic_text(&*p));
                }
                if st.running == 0 && st.next >= st.n {
                    sh.done.notify_all();
                }
            }
            _ if spin => {
                spin = false;
                let gen = sh.gen.load(Ordering::Acquire);
                drop(st);
                spin_until(|| sh.gen.load(Ordering::Acquire) != gen);
                st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Back-to-back jobs (pool threads still spinning) and jobs after a pause longer
    /// than [`SPIN`] (pool threads asleep) each run every index exactly once.
    #[test]
    fn every_index_once_whether_threads_spin_or_sleep() {
        let pool = Pool::default();
        for round in 0..300u32 {
            let hits: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
            let f = |i: usize| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            };
            assert_eq!(pool.run(4, &f), Ok(()));
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                "round {round}"
            );
            if round % 50 == 0 {
                std::thread::sleep(SPIN * 5);
            }
        }
    }

    /// A panic in a pool thread's index is reported, and the pool runs the next job.
    #[test]
    fn a_panic_is_reported_and_the_pool_goes_on() {
        let pool = Pool::default();
        let r = pool.run(2, &|i| {
            if i == 1 {
                panic!("index one");
            }
        });
        assert_eq!(r, Err("index one".to_string()));
        let n = AtomicU32::new(0);
        let f = |_: usize| {
            n.fetch_add(1, Ordering::Relaxed);
        };
        assert_eq!(pool.run(3, &f), Ok(()));
        assert_eq!(n.load(Ordering::Relaxed), 3);
    }

    /// Dropping the pool right after a job (its threads spinning) joins them.
    #[test]
    fn drop_while_threads_spin() {
        let start = Instant::now();
        for _ in 0..20 {
            let pool = Pool::default();
            assert_eq!(pool.run(3, &|_| {}), Ok(()));
            drop(pool);
        }
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
