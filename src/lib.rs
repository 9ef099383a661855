//! ptxjit: run NVIDIA PTX kernels on an x86-64 CPU, with GPU semantics.
//!
//! # Pipeline
//!
//! ```text
//! PTX text ─ parse ─▶ AST ─ check ─▶ IR (+ ir::analysis) ─┬─ jit ───▶ native code ─┐
//!                                                        └─ interp (reference) ───┤
//!         exec: WarpCtx · checked access · barriers · services, called by both ◀─┤
//!                            runtime: Device · memory · Module · launch ◀─────────┘
//! ```
//!
//! Stages import only downwards (DESIGN.md's matrix, kept by `tests/architecture.rs`):
//! `ir` ← `parse`, `ops`; `check` ← `parse`, `ir`, `ops`; `exec` ← `ir`, `ops`;
//! `interp` and `jit` ← `ir`, `ops`, `exec` (never each other); `runtime` ← all;
//! `config` (settings from the environment) imports nothing and every stage may use it.
//!
//! - [`parse`]: lexer and parser; every error is `file:line:col: error: message`.
//! - [`check`]: name resolution, types, layout of variables and parameters, the CFG in
//!   reverse post-order ([`ir`]). Instructions the backends cannot run yet are rejected
//!   here, at load time, with their line; `check::validate` then re-checks the module
//!   against the IR's invariants and operand signatures ([`ir::InstKind::operands`]),
//!   so a module `check` accepts never meets "unsupported" in a backend.
//! - [`jit`]: Cranelift code in which a warp's 32 lanes live in SIMD vectors and
//!   predicates are lane masks; divergent branches reconverge at the earliest point.
//! - [`interp`]: the reference interpreter, lane by lane, using [`ops`] for every scalar
//!   result. Both backends agree bit for bit.
//! - [`exec`]: the warp ABI both backends run against: [`exec::ctx::WarpCtx`], checked
//!   memory access and faults, barriers, special registers, atomics, `printf`, matrix
//!   operations, call frames and split calls.
//! - [`config`]: the `PTXJIT_*` environment variables, read in one place.
//! - [`runtime`]: device memory in one reserved address range (a device pointer is a
//!   host address, every access is checked), modules, launches over a pool of OS
//!   threads (a CTA per thread at a time), barriers via per-warp coroutines.
//!
//! # Adding an instruction
//!
//! Every stage names an instruction family the same way (the PTX ISA's chapters:
//! [`ir::Family`]): `check/inst/<family>.rs` lowers it, `ops/<family>.rs` holds its
//! scalar semantics, `interp/<family>.rs` runs it, `jit/lower/<family>.rs` compiles it.
//! For an operation of an existing shape (say a new integer bit operation, an
//! [`ir::BitOp`]):
//!
//! 1. `src/ir/<family>.rs` (here `ir/int.rs`): the variant and its operand types, in the
//!    operation's `signature` — the only place they are written; `check`, `validate`,
//!    the interpreter and the JIT all read them from there.
//! 2. `src/check/inst/<family>.rs`: the opcode name (`BIT_OPCODES`) and its modifiers
//!    and type suffixes; anything the backends cannot run is a located "not supported
//!    yet" error here, never later (`check::validate`, which runs after every `check`,
//!    re-checks each operand against the signature).
//! 3. `src/ops/<family>.rs`: the semantics (and its arm in `eval` and in the helper
//!    descriptor `encode`/`decode`), with a unit test against the ISA's pseudocode
//!    in `ops/<family>_tests.rs`.
//! 4. `tests/`: hand-checked or compiler-made PTX (passing `ptxas`) run on both
//!    backends.
//!
//! The interpreter (`interp/int.rs`) and the JIT (`jit/lower/int.rs`, through the
//! `ptxjit_bits` helper) need no change; an inline vector lowering is an optional fifth
//! file. A new *kind* of instruction also adds an [`ir::InstKind`] variant with its arms
//! in `InstKind::operands`, `InstKind::family` and `InstKind::defs` (`src/ir`), and a
//! lowering in `interp/<family>.rs` and `jit/lower/<family>.rs` dispatched from
//! `jit::translate`.
//!
//! # Example
//!
//! ```
//! use ptxjit::{Device, KernelArg, LaunchConfig};
//!
//! let ptx = r#"
//! .version 7.0
//! .target sm_70
//! .address_size 64
//! .visible .entry scale(.param .u64 data, .param .f32 k, .param .u32 n)
//! {
//!     .reg .pred %p;
//!     .reg .b32 %r<4>;
//!     .reg .f32 %f<3>;
//!     .reg .b64 %rd<4>;
//!     ld.param.u64 %rd1, [data];
//!     ld.param.f32 %f1, [k];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %ctaid.x;
//!     mov.u32 %r3, %ntid.x;
//!     mov.u32 %r0, %tid.x;
//!     mad.lo.s32 %r2, %r2, %r3, %r0;
//!     setp.ge.u32 %p, %r2, %r1;
//!     @%p bra DONE;
//!     cvta.to.global.u64 %rd1, %rd1;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     ld.global.f32 %f2, [%rd3];
//!     mul.f32 %f2, %f2, %f1;
//!     st.global.f32 [%rd3], %f2;
//! DONE:
//!     ret;
//! }
//! "#;
//!
//! let dev = Device::new()?;
//! let module = dev.load_ptx(ptx, "scale.ptx")?;
//! let data: Vec<f32> = (0..1000).map(|i| i as f32).collect();
//! let buf = dev.alloc_from(&data)?;
//! let cfg = LaunchConfig::new(4, 256); // 4 blocks of 256 threads
//! dev.launch(&module, "scale", &cfg, &[KernelArg::from(&buf), 0.5f32.into(), 1000u32.into()])?;
//! let out: Vec<f32> = dev.read(&buf)?;
//! assert_eq!(out[10], 5.0);
//! assert_eq!(out[999], 499.5);
//! # Ok::<(), ptxjit::Error>(())
//! ```

pub mod check;
pub mod config;
pub mod exec;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod link;
pub mod ops;
pub mod parse;
pub mod runtime;

pub use config::SanitizeOptions;
pub use exec::coverage::CoverageMap;
pub use exec::ctx::FaultKind;
pub use exec::graphcond::{ConditionsRef, GraphConditions};
pub use exec::sanitize::FindingKind;
pub use parse::PtxError;
pub use runtime::device::{
    Backend, Buffer, Device, DeviceCopy, DeviceOptions, Dim3, KernelArg, LaunchConfig, Module,
    Schedule,
};
pub use runtime::error::{Error, Fault, Result};
pub use runtime::sanitize::{Finding, Report};
