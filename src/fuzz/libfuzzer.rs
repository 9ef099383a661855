//! Registering kernel coverage counters with libFuzzer, when it is linked in.
//!
//! libFuzzer (and any SanitizerCoverage runtime) defines
//! `__sanitizer_cov_8bit_counters_init(start, end)`: each call adds a region of 8-bit
//! counters that libFuzzer clears before every input and reads after it, and
//! `__sanitizer_cov_pcs_init(start, end)`, the matching table of `(PC, flags)` pairs, one
//! per counter. libFuzzer stops at start-up when the PC tables and the counters differ in
//! size, so both are registered: the "PC" of counter i is the counter's own address (a
//! unique, stable address that [`crate::CoverageMap::describe`] turns into function,
//! block and warp fullness: `describe((pc - counters_start))`), flagged as a function
//! entry for block 0 of each function (libFuzzer prints `NEW_FUNC` when an input first
//! reaches a PTX function). libFuzzer's own symbolizer cannot name PTX lines for them.
//!
//! ptxjit must not require the symbols (tests, the CLI and normal programs do not link
//! libFuzzer), and stable Rust has no weak `extern` declarations, so a few lines of
//! assembly declare them weak and store their addresses in data words: zero when nothing
//! defines them, the functions otherwise (cargo-fuzz links libFuzzer statically into the
//! fuzz target).

use crate::CoverageMap;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
std::arch::global_asm!(
    ".weak __sanitizer_cov_8bit_counters_init",
    ".weak __sanitizer_cov_pcs_init",
    ".pushsection .data.rel.ro.ptxjit_fuzz_hook,\"aw\",@progbits",
    ".balign 8",
    ".globl ptxjit_fuzz_counters_init_hook",
    ".hidden ptxjit_fuzz_counters_init_hook",
    "ptxjit_fuzz_counters_init_hook:",
    ".quad __sanitizer_cov_8bit_counters_init",
    ".quad __sanitizer_cov_pcs_init",
    ".popsection",
);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
extern "C" {
    static ptxjit_fuzz_counters_init_hook: [usize; 2];
}

/// The addresses of `__sanitizer_cov_8bit_counters_init` and `__sanitizer_cov_pcs_init`
/// (0: not linked in).
fn hooks() -> [usize; 2] {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    // SAFETY: words written by the linker and never modified.
    unsafe {
        std::ptr::read_volatile(&raw const ptxjit_fuzz_counters_init_hook)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    [0, 0]
}

/// Whether libFuzzer's counter registration is linked into this process.
pub fn linked() -> bool {
    hooks()[0] != 0
}

/// Registers the module's counters and their PC table with libFuzzer (nothing when it
/// is not linked in).
pub(crate) fn register(c: &CoverageMap) {
    let [counters_init, pcs_init] = hooks();
    if counters_init == 0 {
        return;
    }
    let counters = c.counters();
    let start = counters.as_ptr() as *mut u8;
    // SAFETY: `counters_init` is `__sanitizer_cov_8bit_counters_init`, whose C signature
    // is `void(uint8_t *start, uint8_t *stop)`; the counters are leaked, so they stay
    // valid for as long as libFuzzer reads them.
    unsafe {
        let f: extern "C" fn(*mut u8, *mut u8) = std::mem::transmute(counters_init);
        f(start, start.add(counters.len()));
    }
    if pcs_init == 0 {
        return;
    }
    let mut table = Vec::with_capacity(2 * counters.len());
    for (i, ctr) in counters.iter().enumerate() {
        let entry = matches!(c.describe(i), Some((_, 0, false)));
        table.push(ctr.as_ptr() as usize);
        table.push(entry as usize);
    }
    let table: &'static [usize] = Box::leak(table.into_boxed_slice());
    let p = table.as_ptr();
    // SAFETY: `pcs_init` is `__sanitizer_cov_pcs_init`, `void(const uintptr_t *beg,
    // const uintptr_t *end)`; the table is leaked, one (PC, flags) pair per counter.
    unsafe {
        let f: extern "C" fn(*const usize, *const usize) = std::mem::transmute(pcs_init);
        f(p, p.add(table.len()));
    }
}
