//! Registering kernel coverage counters with libFuzzer, when it is linked in.
//!
//! libFuzzer (and any SanitizerCoverage runtime) defines
//! `__sanitizer_cov_8bit_counters_init(start, end)`: each call adds a region of 8-bit
//! counters that libFuzzer clears before every input and reads after it. ptxjit must not
//! require the symbol (tests, the CLI and normal programs do not link libFuzzer), and
//! stable Rust has no weak `extern` declarations, so a few lines of assembly declare it
//! weak and store its address in a data word: zero when nothing defines it, the
//! function otherwise (cargo-fuzz links libFuzzer statically into the fuzz target).
//!
//! `__sanitizer_cov_pcs_init` (the PC table) is not registered: libFuzzer symbolizes the
//! PCs with the host's symbolizer, which knows nothing of PTX lines, and a table whose
//! size differs from the counters' stops libFuzzer at start-up. The harness's own
//! [`crate::CoverageMap::describe`] maps a counter to its function and block instead.

use crate::CoverageMap;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
std::arch::global_asm!(
    ".weak __sanitizer_cov_8bit_counters_init",
    ".pushsection .data.rel.ro.ptxjit_fuzz_hook,\"aw\",@progbits",
    ".balign 8",
    ".globl ptxjit_fuzz_counters_init_hook",
    ".hidden ptxjit_fuzz_counters_init_hook",
    "ptxjit_fuzz_counters_init_hook:",
    ".quad __sanitizer_cov_8bit_counters_init",
    ".popsection",
);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
extern "C" {
    static ptxjit_fuzz_counters_init_hook: usize;
}

/// The address of `__sanitizer_cov_8bit_counters_init` (0: not linked in).
fn init_hook() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    // SAFETY: a word written by the linker and never modified.
    unsafe {
        std::ptr::read_volatile(&raw const ptxjit_fuzz_counters_init_hook)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    0
}

/// Whether libFuzzer's counter registration is linked into this process.
pub fn linked() -> bool {
    init_hook() != 0
}

/// Registers the module's counters with libFuzzer (nothing when it is not linked in).
pub(crate) fn register(c: &CoverageMap) {
    let hook = init_hook();
    if hook == 0 {
        return;
    }
    let counters = c.counters();
    let start = counters.as_ptr() as *mut u8;
    // SAFETY: `hook` is `__sanitizer_cov_8bit_counters_init`, whose C signature is
    // `void(uint8_t *start, uint8_t *stop)`; the counters are leaked, so they stay valid
    // for as long as libFuzzer reads them.
    unsafe {
        let f: extern "C" fn(*mut u8, *mut u8) = std::mem::transmute(hook);
        f(start, start.add(counters.len()));
    }
}
