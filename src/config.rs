//! Settings read from the environment, in one place: every `PTXJIT_*` variable the
//! library honours is read by [`EnvConfig::read`] and nowhere else (the CLI and
//! `libcuda.so` read their own). This module imports nothing from the crate, so every
//! stage may use it.
//!
//! | variable | field | values |
//! |---|---|---|
//! | `PTXJIT_JIT_TIER` | [`EnvConfig::jit_tier`] | `quick`, `optimized`, `tiered` (default) |
//! | `PTXJIT_EAGER` | [`EnvConfig::jit_eager`] | `1`: compile every kernel of a module at load (default: at its first launch) |
//! | `PTXJIT_VERIFY` | [`EnvConfig::jit_verify`] | set: run Cranelift's verifier (always on in debug builds) |
//! | `PTXJIT_CHECK_SHAPES` | [`EnvConfig::check_shapes`] | `1`: the interpreter checks every shape the analysis claims |
//! | `PTXJIT_SANITIZE` | [`EnvConfig::sanitize`] | `memcheck,racecheck,initcheck,synccheck[,report-only]` or `all` (see [`SanitizeOptions::parse`]) |
//! | `PTXJIT_CODE_DUMP` | [`EnvConfig::code_dump_dir`] | a directory: the JIT writes each finalized function's machine code there (`<symbol>.bin`, load address in `<symbol>.addr`) |

/// The settings of the environment (read afresh by each [`EnvConfig::read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvConfig {
    /// Which code the JIT produces for devices created with default options and for
    /// `JitModule::compile`.
    pub jit_tier: JitTier,
    /// Whether modules of devices created with default options compile all their
    /// kernels at load time (default: each kernel at its first launch).
    pub jit_eager: bool,
    /// Whether Cranelift's verifier checks every function the JIT builds.
    pub jit_verify: bool,
    /// Whether launches on the interpreter check, at every block entry and after every
    /// instruction, that each register the shape analysis (`ir::analysis::shape`) calls
    /// uniform or affine is so in the active lanes (the default of
    /// `LaunchConfig::check_shapes`).
    pub check_shapes: bool,
    /// The sanitizers devices created with default options run every launch under
    /// (`None`: none, or `PTXJIT_SANITIZE` does not parse).
    pub sanitize: Option<SanitizeOptions>,
}

impl EnvConfig {
    /// The settings the environment gives now.
    pub fn read() -> EnvConfig {
        EnvConfig {
            jit_tier: match std::env::var("PTXJIT_JIT_TIER").as_deref() {
                Ok("quick") => JitTier::Quick,
                Ok("optimized") => JitTier::Optimized,
                _ => JitTier::Tiered,
            },
            jit_eager: matches!(std::env::var("PTXJIT_EAGER").as_deref(), Ok("1")),
            jit_verify: cfg!(debug_assertions) || std::env::var_os("PTXJIT_VERIFY").is_some(),
            check_shapes: matches!(std::env::var("PTXJIT_CHECK_SHAPES").as_deref(), Ok("1")),
            sanitize: std::env::var("PTXJIT_SANITIZE")
                .ok()
                .and_then(|v| SanitizeOptions::parse(&v).ok())
                .filter(|o| o.any()),
        }
    }
}

impl EnvConfig {
    /// `PTXJIT_CODE_DUMP`: the directory the JIT writes each finalized function's machine
    /// code to, as loaded, for mapping `perf` samples to instructions (a path, so not a
    /// field of the `Copy` [`EnvConfig`]).
    pub fn code_dump_dir() -> Option<std::path::PathBuf> {
        std::env::var_os("PTXJIT_CODE_DUMP")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    }
}

/// Which code the JIT produces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum JitTier {
    /// Quick code at load time, optimized in the background once kernels have run for a
    /// while (the default).
    #[default]
    Tiered,
    /// Only the quick tier (single-pass register allocation).
    Quick,
    /// Only the optimized tier, compiled at load time.
    Optimized,
}

impl JitTier {
    /// The tier named by `PTXJIT_JIT_TIER` (`quick`, `optimized`, `tiered`), else
    /// [`JitTier::Tiered`].
    pub fn from_env() -> JitTier {
        EnvConfig::read().jit_tier
    }
}

/// Which sanitizers a launch runs under (see `crate::exec::sanitize`). Plain data, so
/// that every stage may hold it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SanitizeOptions {
    /// Byte-exact bounds, use-after-free, misaligned accesses, `.local` overflow, stores
    /// to `.const`, and leaks at device destruction.
    pub memcheck: bool,
    /// Data races on `.shared` memory and on `.global` memory within a CTA.
    pub racecheck: bool,
    /// Reads of memory never written (global since allocation, shared in this CTA,
    /// local by this thread).
    pub initcheck: bool,
    /// Misused barriers and warp-synchronous instructions.
    pub synccheck: bool,
    /// Collect every finding (deduplicated) and go on, instead of failing the launch at
    /// the first one.
    pub report_only: bool,
}

impl SanitizeOptions {
    /// Every checker, failing at the first finding.
    pub const ALL: SanitizeOptions = SanitizeOptions {
        memcheck: true,
        racecheck: true,
        initcheck: true,
        synccheck: true,
        report_only: false,
    };

    /// Parses a comma-separated list of `memcheck`, `racecheck`, `initcheck`,
    /// `synccheck`, `all`, `report-only` (also `none`, `off` or an empty string: no
    /// checker). Errors name the word that is not one of them.
    pub fn parse(s: &str) -> Result<SanitizeOptions, String> {
        let mut o = SanitizeOptions::default();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "memcheck" => o.memcheck = true,
                "racecheck" => o.racecheck = true,
                "initcheck" => o.initcheck = true,
                "synccheck" => o.synccheck = true,
                "all" => {
                    o = SanitizeOptions {
                        report_only: o.report_only,
                        ..SanitizeOptions::ALL
                    }
                }
                "report-only" => o.report_only = true,
                "none" | "off" => {}
                _ => {
                    return Err(format!(
                        "unknown sanitizer '{w}' (expected memcheck, racecheck, initcheck, \
                         synccheck, all or report-only)"
                    ))
                }
            }
        }
        Ok(o)
    }

    /// Whether any checker is on.
    pub fn any(&self) -> bool {
        self.memcheck || self.racecheck || self.initcheck || self.synccheck
    }
}

#[cfg(test)]
mod tests {
    use super::SanitizeOptions;

    #[test]
    fn sanitize_options_parse() {
        let o = SanitizeOptions::parse("memcheck, initcheck,report-only").unwrap();
        assert!(o.memcheck && o.initcheck && o.report_only && !o.racecheck && !o.synccheck);
        assert_eq!(SanitizeOptions::parse("all").unwrap(), SanitizeOptions::ALL);
        assert!(!SanitizeOptions::parse("").unwrap().any());
        let e = SanitizeOptions::parse("memchek").unwrap_err();
        assert!(e.contains("'memchek'"), "{e}");
    }
}
