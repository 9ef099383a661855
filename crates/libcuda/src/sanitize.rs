//! The sanitizers under `libcuda.so`: `PTXJIT_SANITIZE=memcheck,initcheck,...` (read by
//! the library's `EnvConfig`) runs every launch under them; a finding fails the launch
//! with `CUDA_ERROR_LAUNCH_FAILED` and is logged. With `report-only`, and for leaks
//! (memcheck), the findings are printed when the process exits, and written as JSON to
//! `PTXJIT_SANITIZE_JSON` if set.

use crate::Driver;

/// Whether cuMemAlloc'd memory is tracked as uninitialised (initcheck is on).
pub fn initcheck(d: &Driver) -> bool {
    d.device.options().sanitize.is_some_and(|o| o.initcheck)
}

/// Registers the end-of-process report once, if a sanitizer is on.
pub fn register(d: &Driver) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if d.device.options().sanitize.is_none() {
        return;
    }
    ONCE.call_once(|| {
        // SAFETY: `at_exit` is a plain extern "C" function without arguments.
        unsafe { libc::atexit(at_exit) };
    });
}

extern "C" fn at_exit() {
    let Ok(d) = crate::driver() else { return };
    let mut report = d.device.take_sanitizer_report();
    if d.device.options().sanitize.is_some_and(|o| o.memcheck) {
        for f in d.device.leaks().findings {
            report.add(f);
        }
    }
    if let Some(p) = std::env::var_os("PTXJIT_SANITIZE_JSON") {
        if let Err(e) = std::fs::write(&p, report.to_json()) {
            crate::log(&format!(
                "ptxjit-cuda: cannot write {}: {e}",
                p.to_string_lossy()
            ));
        }
    }
    if !report.is_empty() {
        crate::log(&report.to_string());
    }
}
