//! Settings read from the environment, in one place: every `PTXJIT_*` variable the
//! library honours is read by [`EnvConfig::read`] and nowhere else (the CLI and
//! `libcuda.so` read their own). This module imports nothing from the crate, so every
//! stage may use it.
//!
//! | variable | field | values |
//! |---|---|---|
//! | `PTXJIT_JIT_TIER` | [`EnvConfig::jit_tier`] | `quick`, `optimized`, `tiered` (default) |
//! | `PTXJIT_VERIFY` | [`EnvConfig::jit_verify`] | set: run Cranelift's verifier (always on in debug builds) |
//! | `PTXJIT_CHECK_SHAPES` | [`EnvConfig::check_shapes`] | `1`: the interpreter checks every shape the analysis claims |

/// The settings of the environment (read afresh by each [`EnvConfig::read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvConfig {
    /// Which code the JIT produces for devices created with default options and for
    /// `JitModule::compile`.
    pub jit_tier: JitTier,
    /// Whether Cranelift's verifier checks every function the JIT builds.
    pub jit_verify: bool,
    /// Whether launches on the interpreter check, at every block entry and after every
    /// instruction, that each register the shape analysis (`ir::analysis::shape`) calls
    /// uniform or affine is so in the active lanes (the default of
    /// `LaunchConfig::check_shapes`).
    pub check_shapes: bool,
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
            jit_verify: cfg!(debug_assertions) || std::env::var_os("PTXJIT_VERIFY").is_some(),
            check_shapes: matches!(std::env::var("PTXJIT_CHECK_SHAPES").as_deref(), Ok("1")),
        }
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
