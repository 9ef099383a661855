//! Which kernels run their barriers as continuations (`control::cont` generates the
//! code): the test on the IR, and the size of the per-warp register file such a kernel
//! needs (the layout of `regfile`), and the liveness facts its barriers use ([`ContLive`]).

use crate::ir::analysis::liveness::{Liveness, Writes};
use crate::ir::{self, InstKind, RegClass, Terminator};
use cranelift_codegen::ir::types::I8;
use cranelift_frontend::{FunctionBuilder, Variable};

/// Whether kernel `f` runs its barriers as continuations, given which blocks can run
/// while lanes wait elsewhere (`div`). Never for the sanitizers' instrumented code.
pub(crate) fn eligible(f: &ir::Function, div: &[bool], instrument: bool) -> bool {
    if instrument || f.kind != ir::FuncKind::Entry {
        return false;
    }
    let mut barriers = 0;
    for (b, blk) in f.blocks.iter().enumerate() {
        let suspends = blk.insts.iter().any(|i| match i.kind {
            InstKind::BarArrive { .. } => true,
            InstKind::Async { op, .. } => op.polls(),
            ref k => k.waits_for_grid(),
        });
        if suspends {
            return false;
        }
        match blk.term {
            Terminator::Call { .. }
            | Terminator::CallIndirect { .. }
            | Terminator::Resume { .. } => return false,
            Terminator::Barrier { guard, .. } => {
                if guard.is_some() || div.get(b).copied().unwrap_or(true) {
                    return false;
                }
                barriers += 1;
            }
            _ => {}
        }
    }
    barriers > 0
}

/// Bytes of the per-warp register file of a continuation kernel `f` (the layout of
/// `translate::regfile`: 128 bytes per 32-bit register or predicate, 256 per 64-bit one).
pub fn regfile_bytes(f: &ir::Function) -> u64 {
    f.regs
        .iter()
        .map(|r| match r.ty.class() {
            RegClass::Pred | RegClass::R32 => 128,
            RegClass::R64 => 256,
            RegClass::R128 => 0,
        })
        .sum::<u64>()
        .max(16)
}

/// What a continuation kernel's barriers and resume block need to know about its
/// registers.
pub(crate) struct ContLive {
    pub live: Liveness,
    pub writes: Writes,
    /// An `i8`: 0 on the paths from the kernel's start, 1 on the paths from a resume.
    pub resumed: Variable,
}

impl ContLive {
    pub(crate) fn new(b: &mut FunctionBuilder, f: &ir::Function) -> ContLive {
        ContLive {
            live: Liveness::of(f),
            writes: Writes::of(f),
            resumed: b.declare_var(I8),
        }
    }
}
