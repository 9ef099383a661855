//! Control flow in the IR: [`Block`]s and how they end ([`Terminator`]: jumps, branches,
//! `brx.idx`, calls and their arguments, returns, exits and barriers).

use super::*;

/// Base of the values `mov.u64 %rd, func;` produces: `FUNC_ADDR_BASE + FuncId`. No host
/// (and so no device) address is in this range.
pub const FUNC_ADDR_BASE: u64 = 0xffff_f000_0000_0000;

/// A basic block: straight-line instructions and one terminator.
#[derive(Clone, Debug)]
pub struct Block {
    /// The first label that named this block, if any (for dumps and messages).
    pub label: Option<String>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// How a block ends. A guard that is false for some active lanes makes the warp diverge.
#[derive(Clone, Debug)]
pub enum Terminator {
    /// Unconditional `bra` or falling into the next block.
    Jump {
        target: BlockId,
        inst: Option<InstId>,
    },
    /// `@p bra{.uni} L`: lanes where the guard holds go to `taken`, the others to
    /// `not_taken` (the next block in source order). `uni` is the `.uni` assertion.
    Branch {
        guard: Guard,
        taken: BlockId,
        not_taken: BlockId,
        uni: bool,
        inst: InstId,
    },
    /// `{@p} ret`: in a kernel the same as `exit`; in a `.func` the lanes return to the
    /// caller (which goes on once every called lane has returned or exited, see
    /// [`Terminator::Call`]). With a guard, the other lanes continue at `next`.
    Ret {
        guard: Option<Guard>,
        next: Option<BlockId>,
        inst: InstId,
    },
    /// `{@p} exit`: the lanes end for good. With a guard, the other lanes continue at
    /// `next`.
    Exit {
        guard: Option<Guard>,
        next: Option<BlockId>,
        inst: InstId,
    },
    /// `{@p} bar.sync a{, b}` / `barrier.sync{.aligned} a{, b}`: the active lanes for
    /// which the guard holds arrive at barrier `barrier` (a u32 operand, 0..15) and wait
    /// there until `count` threads (all live threads of the CTA when `None`) have
    /// arrived; then they continue at `next`. Lanes whose guard is false continue at
    /// `next` at once. While some lanes of a warp wait, the warp runs its other pending
    /// lanes (sm_70 per-thread arrival: lanes still on their way to an `exit` or to the
    /// barrier are not stuck behind it). `check` ends a block after every barrier.
    Barrier {
        guard: Option<Guard>,
        barrier: Operand,
        count: Option<Operand>,
        /// `bar.red`: the predicate `{!}c` each arriving thread contributes; the result
        /// is read by the [`InstKind::BarRedResult`] that starts `next`.
        red: Option<PredSrc>,
        next: BlockId,
        inst: InstId,
    },
    /// `{@p} brx.idx{.uni} index, tlist`: each active lane whose guard holds continues at
    /// `targets[index]` (its own `index`, a `.u32` operand, so lanes may diverge); lanes
    /// whose guard is false continue at `next` (the next block in source order). An
    /// index `>= targets.len()` is a fault (`FaultKind::BadBranchIndex`) reported for the
    /// lowest such lane before any lane moves. `targets` is never empty; `uni` is the
    /// `.uni` assertion.
    BrxIdx {
        guard: Option<Guard>,
        index: Operand,
        targets: Vec<BlockId>,
        uni: bool,
        next: BlockId,
        inst: InstId,
    },
    /// `{@p} call{.uni} (rets), func, (args);` (direct call). The active lanes for which
    /// the guard holds run `func` together, each with its own arguments; the other active
    /// lanes continue at `next` at once. Calling convention: the callee's frame starts at
    /// [`Function::call_frame`] of the caller inside the caller's `.local` frame (each
    /// lane's local base moves up by that much for the duration of the call, and the
    /// window shrinks by as much); the callee's parameters and return values (`.param`
    /// and `.reg` alike) live at their [`Param::offset`] in the callee's frame, which the
    /// backends fill from `args` before the call (after the callee frame's bytes from
    /// the first return value on are zeroed) and read into `rets` after it. Lanes that
    /// `ret` from the callee continue at `next` once every called lane has returned or
    /// exited; lanes that `exit` inside it are gone for good. Calls deeper than
    /// [`MAX_CALL_DEPTH`] frames, or past the thread's call stack, stop the launch with an
    /// error naming the callee.
    ///
    /// `resume` (set by `check` when the callee can reach a barrier) is the
    /// [`Terminator::Resume`] block right after this one: when only some lanes of the
    /// warp make the call, the callee may run on a stack of its own, and lanes that
    /// wait at a barrier inside it let the warp's other lanes go on; they continue the
    /// call there.
    Call {
        guard: Option<Guard>,
        func: FuncId,
        args: Vec<CallArg>,
        rets: Vec<CallRet>,
        next: BlockId,
        uni: bool,
        inst: InstId,
        resume: Option<BlockId>,
    },
    /// `{@p} call (rets), %rd, (args), proto_or_targets;`: an indirect call. Each called
    /// lane's `addr` (a 64-bit register) holds a function address (`FUNC_ADDR_BASE +
    /// FuncId`, from `mov.u64 %rd, f;` or an initializer); the lanes are grouped by
    /// address and each group calls its target once, lowest lane's group first, as
    /// [`Terminator::Call`] does; the lanes continue at `next` once every group is done.
    /// `targets` are the functions the call may reach (the `.calltargets` list, or every
    /// defined function matching the `.callprototype`), all with the parameter layout
    /// `args`/`rets` use; an address that is not one of them stops the launch with an
    /// error naming the instruction, the thread and the address.
    CallIndirect {
        guard: Option<Guard>,
        addr: RegId,
        targets: Vec<FuncId>,
        args: Vec<CallArg>,
        rets: Vec<CallRet>,
        next: BlockId,
        inst: InstId,
        /// As for [`Terminator::Call`] (set when some target can reach a barrier).
        resume: Option<BlockId>,
    },
    /// The empty block right after a call with a `resume` block (`call`, the block it
    /// ends): the lanes waiting here were suspended at a barrier inside that call
    /// (sm_70 per-thread arrival); they continue the callee, and those that return load
    /// its return values as the call does and continue at `next` (the call's `next`).
    /// No edge of the CFG reaches it other than the call's.
    Resume {
        call: BlockId,
        next: BlockId,
        inst: InstId,
    },
}

/// Most nested calls (frames below the kernel) one thread may have.
pub const MAX_CALL_DEPTH: u32 = 1000;

/// Where a call argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallSrc {
    /// A call-site `.param` variable: `size` bytes at this offset of the caller's local
    /// frame.
    Local(u32),
    /// A register or immediate, stored as a value of the type (its `bytes()`).
    Value(Operand, Type),
}

/// One argument: `size` bytes copied to `dst` (an offset in the callee's frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallArg {
    pub src: CallSrc,
    pub dst: u32,
    pub size: u32,
}

/// Where a return value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallDst {
    /// A call-site `.param` variable at this offset of the caller's local frame.
    Local(u32),
    /// A register: the value is read as the type (`bytes()` bytes) and written as a load
    /// of that type would write it.
    Reg(RegId, Type),
}

/// One return value: `size` bytes from `src` (an offset in the callee's frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallRet {
    pub src: u32,
    pub dst: CallDst,
    pub size: u32,
}

impl Terminator {
    /// The instruction this terminator came from (`None` for an implicit jump).
    pub fn inst(&self) -> Option<InstId> {
        match *self {
            Terminator::Jump { inst, .. } => inst,
            Terminator::Branch { inst, .. }
            | Terminator::Ret { inst, .. }
            | Terminator::Exit { inst, .. }
            | Terminator::Barrier { inst, .. }
            | Terminator::BrxIdx { inst, .. }
            | Terminator::Call { inst, .. }
            | Terminator::CallIndirect { inst, .. }
            | Terminator::Resume { inst, .. } => Some(inst),
        }
    }

    /// For a terminator that asserts `.uni` (`bra.uni`, `brx.idx.uni`, `call.uni`): the
    /// values its active lanes must agree on (its guard, its `brx.idx` index) and its
    /// instruction; `None` for any other terminator.
    pub fn uni_operands(&self) -> Option<(Option<Guard>, Option<Operand>, InstId)> {
        match *self {
            Terminator::Branch {
                guard,
                uni: true,
                inst,
                ..
            } => Some((Some(guard), None, inst)),
            Terminator::BrxIdx {
                guard,
                index,
                uni: true,
                inst,
                ..
            } => Some((guard, Some(index), inst)),
            Terminator::Call {
                guard,
                uni: true,
                inst,
                ..
            } => Some((guard, None, inst)),
            _ => None,
        }
    }

    /// Blocks this terminator can transfer control to.
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump { target, .. } => vec![*target],
            Terminator::Branch {
                taken, not_taken, ..
            } => vec![*taken, *not_taken],
            Terminator::Barrier { next, .. } | Terminator::Resume { next, .. } => vec![*next],
            Terminator::Call { next, resume, .. }
            | Terminator::CallIndirect { next, resume, .. } => {
                let mut v = vec![*next];
                v.extend(*resume);
                v
            }
            Terminator::Ret { next, .. } | Terminator::Exit { next, .. } => {
                next.iter().copied().collect()
            }
            Terminator::BrxIdx { targets, next, .. } => {
                let mut v = targets.clone();
                v.push(*next);
                v
            }
        }
    }
}
