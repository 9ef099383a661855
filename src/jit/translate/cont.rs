//! Which kernels run their barriers as continuations (`control::cont` generates the
//! code): the test on the IR, and the size of the per-warp register file such a kernel
//! needs (the layout of `regfile`), and the liveness facts its barriers use ([`ContLive`]).

use crate::exec::ctx::WarpCtx;
use crate::ir::analysis::liveness::{Liveness, Writes};
use crate::ir::{self, InstKind, RegClass, Terminator};
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{
    Block, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::mem::offset_of;

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
    /// Warps chained in one call (`WarpCtx::chain_*`, `control::cont`): the context
    /// the kernel was called with, ...
    pub ctx0: Value,
    /// ... the block every warp of the chain starts at (its parameter: the warp's
    /// context, `FuncTranslator::ctx`), ...
    pub head: Block,
    /// ... the warps it may still chain, the threads the barrier still waits for and
    /// the warps chained so far (`i32`s), ...
    pub left: Variable,
    pub need: Variable,
    pub ran: Variable,
    /// ... and the warp's live lanes when its step began (`i32`).
    pub step_live: Variable,
    /// `WarpCtx::resume` as the chain's head read it (`control::cont::cont_entry`),
    /// which the resume block it dominates dispatches on without reading it again.
    pub resume_at: Option<Value>,
    /// The running warp's context (an `i64` stack slot the head stores its parameter
    /// to), loaded again, with the register file's address, where the translator
    /// starts a block (`FuncTranslator::cont_refresh`): short-lived values instead of
    /// the head's, which every block read and the register allocator kept spilled
    /// across the kernel.
    pub ctx_slot: StackSlot,
}

impl ContLive {
    /// In the entry block (the current one) of continuation kernel `f` called with
    /// context `ctx0`: reads the chain's fields, jumps to the chain's head block and
    /// makes it the current block. Its parameter is the warp context from there on.
    pub(crate) fn new(b: &mut FunctionBuilder, f: &ir::Function, ctx0: Value) -> ContLive {
        let fl = MemFlagsData::new().with_notrap();
        let (left, need, ran) = (b.declare_var(I32), b.declare_var(I32), b.declare_var(I32));
        let l = b
            .ins()
            .load(I32, fl, ctx0, offset_of!(WarpCtx, chain_left) as i32);
        let nd = b
            .ins()
            .load(I32, fl, ctx0, offset_of!(WarpCtx, chain_need) as i32);
        let zero = b.ins().iconst(I32, 0);
        b.def_var(left, l);
        b.def_var(need, nd);
        b.def_var(ran, zero);
        let head = b.create_block();
        b.append_block_param(head, I64);
        b.ins().jump(head, &[ctx0.into()]);
        b.switch_to_block(head);
        let ctx_slot =
            b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let ctx = b.block_params(head)[0];
        b.ins().stack_store(I64, ctx, ctx_slot, 0);
        ContLive {
            live: Liveness::of(f),
            writes: Writes::of(f),
            resumed: b.declare_var(I8),
            ctx0,
            head,
            left,
            need,
            ran,
            step_live: b.declare_var(I32),
            resume_at: None,
            ctx_slot,
        }
    }

    /// The warp context (the chain head's parameter).
    pub(crate) fn ctx(&self, b: &FunctionBuilder) -> Value {
        b.func.dfg.block_params(self.head)[0]
    }
}
