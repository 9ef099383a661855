//! The checked IR: what `check` produces from the AST and what both backends consume.
//!
//! Everything here is resolved and typed: registers are indices into
//! [`Function::regs`], labels are [`BlockId`]s, variables are [`VarRef`]s with their
//! final layout (shared-window offsets, local-frame offsets, param-buffer offsets, module
//! globals by id), immediates are bit patterns of the instruction's type.
//!
//! Invariants that `check` guarantees and backends rely on (naga's contract: if `check`
//! returns `Ok`, no backend panics on the module):
//! - `Function::blocks[0]` is the entry block; blocks are numbered in reverse post-order
//!   of the CFG (unreachable blocks are dropped), so a loop header has a lower number than
//!   its body and an if/else join has a higher number than both arms.
//! - every `RegId`, `BlockId`, `GlobalId`, `FuncId`, `InstId` is in range;
//! - each operand's register class fits the instruction (see `check` for the relaxed
//!   PTX operand-size rules); destinations are never immediates;
//! - a register's container always holds its value zero-extended beyond the register's
//!   declared width (see [`Type::bits`]); readers extend (sign or zero) to what the
//!   instruction type asks for, writers truncate/extend to the register width.

use std::fmt;

pub mod analysis;
mod asyncop;
mod codes;
pub use asyncop::AsyncOp;
mod cdp;
pub use cdp::CdpFn;
mod half;
pub use half::{HalfMode, HalfOp, OOB_NAN};
mod matrix;
pub use matrix::layout as matrix_layout;
pub use matrix::{ElemType, Frag, MatrixOp, MatrixSignature, MmaOp, MmaShape, PopcOp, WmmaFrag};
mod index;
pub use index::{Idx, IdxVec};
mod int;
pub use int::{BitOp, PrmtMode};
mod texture;
pub use texture::{
    SurfClamp, TexGeom, TexMip, TexOp, TexQuery, TexRefKind, TexSignature, TEX_QUERIES,
};
mod video;
pub use video::{VideoCmp, VideoKind, VideoOp, VideoOp2, VideoSel};
mod kinds;
pub use kinds::*;
mod family;
pub use family::Family;
mod operands;
pub use operands::{combine, Fit, Operands};

/// Index of a register in [`Function::regs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);
/// Index of a block in [`Function::blocks`]; also its reverse-post-order number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);
/// Index of a module variable in [`Module::globals`] (`.global` and `.const`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);
/// Index of a function in [`Module::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);
/// Index of an instruction's source information in [`Module::inst_info`]; unique per
/// instruction in the module. Faults name the instruction through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// A 1-based line and column in the PTX source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Loc {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Where an instruction came from, for error and fault messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstInfo {
    pub loc: Loc,
    /// The opcode with all its modifiers as written, e.g. `st.global.v2.f32`.
    pub text: String,
    /// The function the instruction belongs to.
    pub func: FuncId,
}

/// A checked module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// File name used in messages.
    pub file: String,
    /// `.version major.minor`.
    pub version: (u32, u32),
    /// `.target` entries, e.g. `["sm_70"]`.
    pub target: Vec<String>,
    /// `.address_size` (32 or 64; 64 when absent).
    pub address_size: u32,
    pub functions: Vec<Function>,
    /// `.global` and `.const` variables, in declaration order.
    pub globals: Vec<GlobalVar>,
    /// `.shared` variables (module scope and function scope), laid out per kernel:
    /// variables that no kernel reaches together may share offsets.
    pub shared_vars: Vec<SharedVar>,
    /// Bytes of statically declared shared memory of the largest kernel (end of the
    /// last static variable).
    pub shared_static_size: u32,
    /// Static shared bytes of each kernel, by name (the end of the last static
    /// variable it can reach); see [`Module::kernel_shared_size`].
    pub kernel_shared: std::collections::BTreeMap<String, u32>,
    /// Offset in the shared window where dynamic (`.extern .shared`) memory starts:
    /// `shared_static_size` rounded up to the largest extern alignment (at least 16).
    pub dyn_shared_offset: u32,
    /// Source information for every instruction, indexed by [`InstId`].
    pub inst_info: Vec<InstInfo>,
    /// NVVM's `.pragma "used_bytes_mask N"` before a load: bit i set when byte i of the
    /// access is used (memcheck checks the bounds of the used bytes only).
    pub used_bytes: std::collections::BTreeMap<InstId, u32>,
    /// Module-scope `.texref`/`.samplerref`/`.surfref` variables by name (each also in
    /// `globals`: 8 bytes whose address is its handle; see [`TexRefKind`]).
    pub tex_refs: std::collections::BTreeMap<String, TexRefKind>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<(FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (FuncId(i as u32), f))
    }
    /// Static shared bytes of kernel `name` (`shared_static_size` for a kernel not in
    /// [`Module::kernel_shared`], e.g. hand-built IR).
    pub fn kernel_shared_size(&self, name: &str) -> u32 {
        self.kernel_shared
            .get(name)
            .copied()
            .unwrap_or(self.shared_static_size)
    }
    pub fn info(&self, id: InstId) -> &InstInfo {
        &self.inst_info[id.0 as usize]
    }
}

/// A `.global` or `.const` module variable. The runtime allocates it in device memory
/// at load time, copies `init` into it and patches `relocs`.
#[derive(Clone, Debug)]
pub struct GlobalVar {
    pub name: String,
    /// `Space::Global` or `Space::Const`.
    pub space: Space,
    pub size: u64,
    pub align: u32,
    /// Initial bytes (`size` bytes; zeros where no initializer was given).
    pub init: Vec<u8>,
    /// Addresses to patch into `init` once every variable and function has an address.
    pub relocs: Vec<Reloc>,
    /// `.extern` declaration without definition (an error to launch a kernel using it).
    pub external: bool,
    pub loc: Loc,
}

/// An address stored in a variable's initializer, e.g. `.global .u64 p = {a, f+4};`.
#[derive(Clone, Debug)]
pub struct Reloc {
    /// Byte offset inside the variable.
    pub offset: u64,
    /// 4 or 8 bytes.
    pub size: u8,
    pub target: RelocTarget,
    pub addend: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocTarget {
    /// Generic address of a module variable.
    Global(GlobalId),
    /// Address (as the runtime maps them) of a function, for indirect calls.
    Func(FuncId),
}

/// A `.shared` variable: a range of the per-CTA shared window.
#[derive(Clone, Debug)]
pub struct SharedVar {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    /// `.extern .shared` dynamic array: `offset == Module::dyn_shared_offset`, size 0.
    pub dynamic: bool,
    /// The kernels that can reach it (over-approximated), in kernel order.
    pub kernels: Vec<FuncId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Linkage {
    #[default]
    Internal,
    Visible,
    Extern,
    Weak,
    Common,
}

/// A parameter (or return value) of an `.entry` or `.func`.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    /// Element type; arrays are `B8` etc. with `count` elements.
    pub ty: Type,
    /// Number of elements (1 for scalars; N for `.param .b8 p[N]`).
    pub count: u32,
    pub align: u32,
    /// Total bytes (`ty.bytes() * count`).
    pub size: u32,
    /// Byte offset in the parameter buffer (kernels: the launch's param buffer; `.func`:
    /// the function's `.local` frame, see [`Terminator::Call`], also for `.reg` params).
    pub offset: u32,
    /// `.reg` parameter of a `.func`: the callee's register (one per element of a
    /// `.reg .v2`/`.v4` parameter, at `offset + k * ty.bytes()`), loaded from its frame
    /// slot at the function's entry (input) or stored there at every `ret` (return
    /// value) by instructions `check` inserts. Empty for `.param` parameters.
    pub regs: Vec<RegId>,
    /// `.ptr` attribute state space and alignment, informational.
    pub ptr_space: Option<Space>,
}

/// A declared register (every `%r<N>` range is expanded into N registers).
#[derive(Clone, Debug)]
pub struct RegInfo {
    pub name: String,
    pub ty: Type,
}

/// `.maxntid .reqntid .minnctapersm .maxnreg`: checked at launch where they constrain it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerfDirectives {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    /// `.reqnctapercluster x, y, z`: the kernel runs in clusters of this shape.
    pub reqnctapercluster: Option<[u32; 3]>,
    /// `.explicitcluster`: the kernel must be launched with clusters.
    pub explicitcluster: bool,
    /// `.maxclusterrank n`: the most CTAs a cluster of the kernel may have.
    pub maxclusterrank: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    pub linkage: Linkage,
    /// Input parameters, in order.
    pub params: Vec<Param>,
    /// Return parameters of a `.func`, in order.
    pub rets: Vec<Param>,
    /// Bytes of the kernel parameter buffer (entry) or of the parameters and return
    /// values at the start of the `.local` frame (func).
    pub param_size: u32,
    pub regs: Vec<RegInfo>,
    /// Empty for a declaration without body (prototype or `.extern`).
    pub blocks: Vec<Block>,
    /// Bytes of this function's `.local` frame: a `.func`'s parameters and return values
    /// (`param_size` bytes), then its `.local` variables and call-site `.param`
    /// variables.
    pub local_size: u32,
    pub local_align: u32,
    pub perf: PerfDirectives,
    pub loc: Loc,
}

impl Function {
    pub fn reg(&self, r: RegId) -> &RegInfo {
        &self.regs[r.0 as usize]
    }
    pub fn has_body(&self) -> bool {
        !self.blocks.is_empty()
    }
    /// Offset, in this function's `.local` frame, where the frame of a function it calls
    /// starts: `local_size` rounded up to 16.
    pub fn call_frame(&self) -> u32 {
        self.local_size.next_multiple_of(16)
    }
    /// Offset in this `.func`'s frame of the first return value (or the end of the
    /// parameters without one): the callee frame is zeroed from here on at each call.
    pub fn rets_start(&self) -> u32 {
        self.rets
            .iter()
            .map(|p| p.offset)
            .min()
            .unwrap_or(self.param_size)
    }
}

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

/// `@p` (negate = false) or `@!p` (negate = true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub pred: RegId,
    pub negate: bool,
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub guard: Option<Guard>,
    pub kind: InstKind,
    pub id: InstId,
}

/// PTX types. Registers store 8/16/32-bit types in 32-bit containers, 64-bit types in
/// 64-bit containers and predicates as lane masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
}

/// How a type is held in a register container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// `.pred`: one bit per lane (JIT: lane masks).
    Pred,
    /// 8-, 16- and 32-bit types: a 32-bit container, value zero-extended.
    R32,
    /// 64-bit types.
    R64,
    /// 128-bit (`.b128`): not executable yet; `check` rejects instructions using it.
    R128,
}

impl Type {
    /// Width in bits (1 for `.pred`).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | BF16 => 16,
            B32 | U32 | S32 | F32 | F16x2 | BF16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }
    /// Size in memory in bytes (`.pred` counts as 1 for layout purposes).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
    pub fn class(self) -> RegClass {
        match self.bits() {
            1 => RegClass::Pred,
            8 | 16 | 32 => RegClass::R32,
            64 => RegClass::R64,
            _ => RegClass::R128,
        }
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64)
    }
    pub fn is_unsigned(self) -> bool {
        matches!(self, Type::U8 | Type::U16 | Type::U32 | Type::U64)
    }
    pub fn is_bits(self) -> bool {
        matches!(
            self,
            Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128
        )
    }
    pub fn is_int(self) -> bool {
        self.is_signed() || self.is_unsigned()
    }
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 | Type::F32 | Type::F64
        )
    }
    pub fn name(self) -> &'static str {
        use Type::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            BF16 => "bf16",
            BF16x2 => "bf16x2",
            F32 => "f32",
            F64 => "f64",
        }
    }
    pub fn from_name(s: &str) -> Option<Type> {
        use Type::*;
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => BF16,
            "bf16x2" => BF16x2,
            "f32" => F32,
            "f64" => F64,
            _ => return None,
        })
    }
    /// The unsigned integer type of the same width (bit pattern type).
    pub fn to_unsigned(self) -> Type {
        match self.bits() {
            8 => Type::U8,
            16 => Type::U16,
            32 => Type::U32,
            64 => Type::U64,
            _ => self,
        }
    }
    /// The signed integer type of the same width.
    pub fn to_signed(self) -> Type {
        match self.bits() {
            8 => Type::S8,
            16 => Type::S16,
            32 => Type::S32,
            64 => Type::S64,
            _ => self,
        }
    }
    /// The type twice as wide (for `.wide` results): s16 -> s32, u32 -> u64, ...
    pub fn widened(self) -> Option<Type> {
        use Type::*;
        Some(match self {
            U8 => U16,
            U16 => U32,
            U32 => U64,
            S8 => S16,
            S16 => S32,
            S32 => S64,
            B8 => B16,
            B16 => B32,
            B32 => B64,
            _ => return None,
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// PTX state spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Const,
    Param,
    /// No state space: the address is a generic address.
    Generic,
    /// `.shared::cluster`: the shared memory of every CTA of the cluster
    /// (`crate::exec::cluster` gives the address encoding; an address of the CTA's own
    /// `.shared` window is one of its own `.shared::cluster` addresses).
    SharedCluster,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
            Space::Generic => "generic",
            Space::SharedCluster => "shared::cluster",
        }
    }
}

/// Dimension of a vector special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X = 0,
    Y = 1,
    Z = 2,
}

/// Special registers (`WARP_SZ` is lowered to the immediate 32 by `check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    LaneId,
    WarpId,
    NWarpId,
    /// `%clock` (low 32 bits of `%clock64`), `%clock_hi` (high 32 bits), `%clock64`.
    Clock,
    ClockHi,
    Clock64,
    /// `%globaltimer` (u64 nanoseconds) and its low/high halves.
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    SmId,
    NSmId,
    /// `%gridid` (u64).
    GridId,
    LaneMask(LaneMask),
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    ClusterId(Dim),
    NClusterId(Dim),
    ClusterCtaId(Dim),
    ClusterNCtaId(Dim),
    ClusterCtaRank,
    ClusterNCtaRank,
    /// `%is_explicit_cluster` (`.pred`).
    IsExplicitCluster,
    /// `%current_graph_exec` (u64; always 0: no CUDA graphs).
    CurrentGraphExec,
    /// `%envreg0..31` (always 0).
    EnvReg(u8),
    /// `%pm0..7` (u32) and `%pm0_64..%pm7_64` (u64): always 0.
    Pm {
        n: u8,
        wide: bool,
    },
    /// `%reserved_smem_offset_{begin,end,cap,0,1}`: always 0 (no reserved shared memory).
    ReservedSmem(ReservedSmem),
}

/// `%lanemask_{eq,le,lt,ge,gt}`: bits of the lanes equal to, at or below, below, at or
/// above, above the reading lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneMask {
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
}

/// Which `%reserved_smem_offset_*` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReservedSmem {
    Begin,
    End,
    Cap,
    Offset0,
    Offset1,
}

impl SpecialReg {
    /// The register's width: 32, 64 (`%clock64 %globaltimer %gridid %pmN_64
    /// %current_graph_exec`) or 1 (`%is_explicit_cluster`, a predicate).
    pub fn bits(self) -> u32 {
        match self {
            SpecialReg::Clock64
            | SpecialReg::GlobalTimer
            | SpecialReg::GridId
            | SpecialReg::CurrentGraphExec
            | SpecialReg::Pm { wide: true, .. } => 64,
            SpecialReg::IsExplicitCluster => 1,
            _ => 32,
        }
    }

    /// The `mov` types other than the register's own width that PTX still accepts for
    /// legacy code: 16 bits for `%tid %ntid %ctaid %nctaid`, 16 or 32 for `%gridid`.
    pub fn legacy_bits(self) -> &'static [u32] {
        match self {
            SpecialReg::Tid(_)
            | SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_) => &[16],
            SpecialReg::GridId => &[16, 32],
            _ => &[],
        }
    }

    /// The value of registers that are the same constant everywhere on a CPU.
    pub fn constant(self) -> Option<u64> {
        match self {
            SpecialReg::CurrentGraphExec
            | SpecialReg::EnvReg(_)
            | SpecialReg::Pm { .. }
            | SpecialReg::ReservedSmem(_) => Some(0),
            _ => None,
        }
    }
}

/// A variable whose address an instruction uses, with its layout resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRef {
    /// A module `.global`/`.const` variable; its address is the host address the
    /// runtime allocated for it (state-space address == generic address).
    Global(GlobalId),
    /// Offset in the CTA's shared window (state-space address = the offset).
    Shared(u32),
    /// Offset in the thread's local frame (state-space address = the offset).
    Local(u32),
    /// Offset in the kernel's parameter buffer (state-space address = host address of
    /// the launch's param buffer + offset).
    KernelParam(u32),
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(RegId),
    /// Bit pattern in the instruction's type (floats as their IEEE bits; integers
    /// truncated to the type's width).
    Imm(u64),
    Special(SpecialReg),
    /// The state-space address of a variable plus a byte offset (`mov.u64 %rd, var;`).
    VarAddr(VarRef, i64),
    /// The runtime address of a function (`mov.u64 %rd, func;`).
    FuncAddr(FuncId),
}

/// `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// A 32- or 64-bit register holding an address in the instruction's state space.
    Reg(RegId),
    /// A variable of the instruction's state space (or, for generic, any variable: its
    /// generic address).
    Var(VarRef),
    /// `[imm]`: an absolute address.
    Abs,
}

/// Rounding modifiers. `Rn..Rp` round floating-point results; `Rni..Rpi` round to an
/// integral value (float -> int conversions and float -> float `cvt.rni` etc.).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// Floating-point modifiers of an arithmetic instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FloatMode {
    /// Explicit rounding mode (`None`: the default, round to nearest even).
    pub rnd: Option<Rnd>,
    /// `.ftz`: subnormal inputs and results flush to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: results clamp to [0.0, 1.0] (NaN -> +0.0).
    pub sat: bool,
}

/// `mul`/`mad` result selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// Low half (also the float multiply).
    Lo,
    Hi,
    /// Full double-width result; the destination is twice as wide as the type.
    Wide,
}

/// Division flavour for floats (integers ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivMode {
    /// IEEE, correctly rounded per `FloatMode::rnd` (`div.rn`, `div.rz`, ... and f64).
    Ieee,
    /// `div.full.f32`: max 2 ulp error; ptxjit computes it correctly rounded.
    Full,
    /// `div.approx.f32`: ptxjit computes it correctly rounded (error 0 ≤ the 2-ulp bound),
    /// except for 2^126 < |b| < 2^128, where the ISA defines the result as 0 (NaN for an
    /// infinite `a`): see `crate::ops::approx_div_huge_divisor`.
    Approx,
}

/// Arithmetic and logic operations (all operands and the result have the instruction
/// type, except `Mul(Wide)`/`Mad(Wide)` whose result is twice as wide, and the shift
/// amount of `Shl`/`Shr`, which is always `.u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul(MulMode),
    /// `mad`: a * b + c (integers: wrapping per mode; floats: fused, as `fma`).
    Mad(MulMode),
    /// `fma.rn` (floats).
    Fma,
    Div(DivMode),
    Rem,
    Min,
    Max,
    Neg,
    Abs,
    And,
    Or,
    Xor,
    Not,
    Shl,
    /// Arithmetic for signed types, logical otherwise.
    Shr,
}

/// `setp` comparison operators (lo/ls/hi/hs are mapped to lt/le/gt/ge with an unsigned
/// type by `check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unordered float comparisons: true if either operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands are numbers.
    Num,
    /// Either operand is NaN.
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// A predicate source that may be negated (`!p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredSrc {
    pub reg: RegId,
    pub negate: bool,
}

#[derive(Clone, Debug)]
pub enum InstKind {
    /// `mov.type d, a`: register, immediate, special register, variable or function
    /// address.
    Mov { ty: Type, dst: RegId, src: Operand },
    /// Arithmetic, logic and shifts; `srcs.len() == op.arity()`. On `.pred` only
    /// And/Or/Xor/Not exist.
    Arith {
        op: ArithOp,
        ty: Type,
        fmode: FloatMode,
        dst: RegId,
        srcs: Vec<Operand>,
    },
    /// `setp.cmp{.bool}.type p{|q}, a, b{, {!}c}`. `dst` is `None` for the `_` sink.
    Setp {
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst: Option<RegId>,
        /// The `q` of `p|q`: receives the negated comparison (combined with `c`).
        dst_neg: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredSrc)>,
    },
    /// `selp.type d, a, b, c`: d = c ? a : b.
    Selp {
        ty: Type,
        dst: RegId,
        a: Operand,
        b: Operand,
        cond: PredSrc,
    },
    /// `ld{.space}{.vN}.type`: `dsts.len()` is 1, 2, 4 or 8; `None` is the `_` sink.
    /// Integer loads into wider registers extend per `ty`'s signedness.
    Ld {
        space: Space,
        ty: Type,
        dsts: Vec<Option<RegId>>,
        addr: Address,
    },
    /// `st{.space}{.vN}.type`.
    St {
        space: Space,
        ty: Type,
        srcs: Vec<Operand>,
        addr: Address,
    },
    /// `cvta{.to}.space.size d, a`: `to_generic` for `cvta.space`, false for
    /// `cvta.to.space`. `ty` is `U32` or `U64`.
    Cvta {
        to_generic: bool,
        space: Space,
        ty: Type,
        dst: RegId,
        src: Operand,
    },
    /// `cvt{.rnd}{.ftz}{.sat}.dty.sty d, a` between the integer types and `.f16`,
    /// `.bf16`, `.f32`, `.f64` (semantics: `crate::ops::cvt`).
    Cvt {
        dst_ty: Type,
        src_ty: Type,
        rnd: Option<Rnd>,
        ftz: bool,
        sat: bool,
        dst: RegId,
        src: Operand,
    },
    /// Bit manipulation and packed-integer operations (`popc clz brev bfind bfe bfi prmt
    /// lop3 shf cnot mul24 mad24 sad dp4a dp2a fns bmsk szext add.sat sub.sat`); operand
    /// and result types are given by [`BitOp::signature`].
    Bits {
        op: BitOp,
        ty: Type,
        dst: RegId,
        srcs: Vec<Operand>,
    },
    /// `set.cmp{.bool}{.ftz}.dty.ty d, a, b{, {!}c}`: the comparison as in
    /// [`InstKind::Setp`] (`ty` is the source type), combined with `c`, written to `dst`
    /// as 1.0f (`dty` = `.f32`) or 0xffffffff (`.u32`/`.s32`/`.b32`) when true, else 0.
    Set {
        cmp: CmpOp,
        dty: Type,
        ty: Type,
        ftz: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredSrc)>,
    },
    /// `nanosleep.u32 t`: the warp sleeps once for the smallest `t` of the lanes that run
    /// it, capped at 1 ms (within PTX's `[0, 2t]` for every lane; they wake together).
    Nanosleep { t: Operand },
    /// `setp.cmp{.bool}{.ftz}.f16x2 p|q, a, b{, {!}c}` (`ty` = `F16x2`): `p` gets the
    /// comparison of the low halves, `q` that of the high halves (each combined with
    /// `c`); `None` for a `_` sink or a missing `q`.
    SetpPacked {
        cmp: CmpOp,
        ty: Type,
        ftz: bool,
        dst_lo: Option<RegId>,
        dst_hi: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredSrc)>,
    },
    /// `sqrt rcp rsqrt sin cos lg2 ex2 tanh`: `approx` for the `.approx` forms (see
    /// `crate::ops::float` for their documented error), else correctly rounded per
    /// `rnd` (`sqrt`, `rcp`). `ty` is `.f32` or `.f64`.
    Sfu {
        op: SfuOp,
        ty: Type,
        approx: bool,
        rnd: Option<Rnd>,
        ftz: bool,
        dst: RegId,
        src: Operand,
    },
    /// Warp-wide operations (`shfl vote match redux activemask elect bar.warp.sync`), over
    /// the lanes that run the instruction (active and guard true) that are also in each
    /// lane's `membermask`; see `crate::ops::warp` for the rules. `srcs` per op: shfl
    /// `[a, b, c, membermask]`, vote/ballot `[membermask]` (the predicate is `vote_src`),
    /// match/redux `[a, membermask]`, elect and bar.warp.sync `[membermask]`, activemask
    /// `[]`. `dst` is the value result, `pred` the predicate result.
    Warp {
        op: WarpOp,
        ty: Type,
        dst: Option<RegId>,
        pred: Option<RegId>,
        srcs: Vec<Operand>,
        vote_src: Option<PredSrc>,
    },
    /// `membar.{cta,gl,sys}`, `fence.sc.scope`: a sequentially consistent fence (a
    /// host `mfence`). The weaker `fence.{acq_rel,acquire,release}` and `fence.proxy.*`
    /// lower to [`InstKind::OrderPoint`].
    Fence,
    /// `bar.arrive a, b`: the lanes arrive at barrier `a` (of `b` threads) and go on.
    BarArrive { barrier: Operand, count: Operand },
    /// The result of the `bar.red` on barrier `barrier` that ended the previous block
    /// (same guard): `.u32` for `Popc`, a predicate for `And`/`Or`.
    BarRedResult {
        op: BarRedOp,
        barrier: Operand,
        dst: RegId,
    },
    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}` and `red` (`dst` = `None`):
    /// one host atomic read-modify-write per lane, lanes in ascending order; `srcs` is
    /// `[b]`, or `[b, c]` for `cas`. See `crate::ops::atomic` for the operations.
    Atom {
        op: AtomOp,
        ty: Type,
        space: Space,
        dst: Option<RegId>,
        addr: Address,
        srcs: Vec<Operand>,
    },
    /// Half-precision arithmetic (`add sub mul fma neg abs min max`, `ex2.approx`,
    /// `tanh.approx`) on `ty` = `.f16`, `.bf16` or the packed `.f16x2`, `.bf16x2` (each
    /// half independently); semantics in `crate::ops::half`. Every operand and the result
    /// have type `ty`; `srcs.len() == op.arity()`.
    Half {
        op: HalfOp,
        ty: Type,
        mode: HalfMode,
        dst: RegId,
        srcs: Vec<Operand>,
    },
    /// `isspacep.space p, a{+offset}`: `p` = whether generic address `a + offset` (a
    /// 32- or 64-bit register, zero-extended, or an immediate) lies in the reading
    /// thread's window of `space` (see `crate::exec::sreg::in_window`).
    Isspacep {
        space: Space,
        dst: RegId,
        src: Operand,
        offset: i64,
    },
    /// An ordering point that `check` puts after strong loads and around strong stores
    /// (`.volatile .relaxed .acquire .release .mmio`) to global or generic memory: no
    /// memory access moves across it and no load is answered from an access on the other
    /// side. On x86-64 (TSO: loads are acquire, stores release) that is all these
    /// orderings need; the JIT emits a `sequence_point` (no machine code), the
    /// interpreter an acquire-release fence.
    OrderPoint,
    /// The carry chain: `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`,
    /// `madc{.lo,.hi}{.cc}` on `.u32 .s32 .u64 .s64` (`crate::ops::carry`). `srcs` are
    /// `a, b` (add/sub) or `a, b, c` (mad), all of type `ty`. The condition code's carry
    /// flag `CC.CF` is a hidden predicate register of the function (one per function,
    /// created by `check` on first use): `cc_in` (addc/subc/madc) reads it, `cc_out`
    /// (`.cc`) receives the new flag (the carry out; for sub, "no borrow", as the
    /// hardware keeps it). As ordinary predicate registers they follow guards and
    /// divergence like any other.
    Carry {
        op: CarryOp,
        ty: Type,
        dst: RegId,
        srcs: Vec<Operand>,
        cc_in: Option<RegId>,
        cc_out: Option<RegId>,
    },
    /// The `min`/`max` forms with extra modifiers (`crate::ops::float`): `.NaN`,
    /// `.xorsign.abs` and `.ftz` on `.f32`; `.relu` on `.s32`; the packed `.u16x2` and
    /// `{.relu}.s16x2` forms (operands are `.b32` registers, `ty` the element type
    /// `U16`/`S16` with `op.packed`). Plain forms are [`InstKind::Arith`].
    MinMax {
        op: MinMaxOp,
        ty: Type,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `copysign.type d, a, b` (`.f32`/`.f64`): `b` with the sign bit of `a`.
    Copysign {
        ty: Type,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `testp.op.type p, a` (`.f32`/`.f64`): the floating-point class test
    /// (`crate::ops::float::testp`).
    Testp {
        op: TestpOp,
        ty: Type,
        dst: RegId,
        src: Operand,
    },
    /// The `cvt` forms with narrow float formats and `cvt.pack.sat` (see [`CvtXOp`]):
    /// operand and result types are given by [`CvtXOp::signature`].
    CvtX {
        op: CvtXOp,
        dst: RegId,
        srcs: Vec<Operand>,
    },
    /// Warp-level matrix instructions (`ldmatrix`, `mma.sync`, `movmatrix`): every
    /// lane's result depends on the other lanes' operands, so all 32 lanes of the warp
    /// must run it (else the warp stops with an error). Operand and result counts and
    /// types come from [`MatrixOp::signature`]: `srcs` are `mma`'s `a`, `b`,
    /// `c` fragments in order, `movmatrix`'s `a`, nothing for `ldmatrix`; `dsts` are the
    /// result fragments (`None`: the `_` sink). `addr` is `ldmatrix`'s `[p]` in `space`
    /// (`Shared` or `Generic`; a generic address must point into the CTA's shared
    /// window).
    Matrix {
        op: MatrixOp,
        dsts: Vec<Option<RegId>>,
        srcs: Vec<Operand>,
        addr: Option<(Space, Address)>,
    },
    /// A call of a runtime built-in declared `.extern` without a body (CUDA's device
    /// `vprintf` and `__assertfail`, see [`Builtin`]): each lane's operands (`u64`
    /// except `__assertfail`'s line, `u32`) in the declared parameter order, and the
    /// `.b32` return value (`vprintf`'s) when the call has one.
    Builtin {
        op: Builtin,
        args: Vec<Operand>,
        dst: Option<RegId>,
    },
    /// A scalar or SIMD video instruction (`vadd`, `vmad`, `vset4`, ...): `d = op(a, b,
    /// c)` on 32-bit values, `c` present when [`VideoOp::has_c`] (else `srcs` has two
    /// operands).
    Video {
        op: VideoOp,
        dst: RegId,
        srcs: Vec<Operand>,
    },
    /// Asynchronous copies and mbarrier operations ([`AsyncOp`]: `cp.async`,
    /// `cp.async.bulk`, `mbarrier.*`): `addrs` are [`AsyncOp::naddrs`] addresses, each
    /// with its state space (`Shared`, `Global` or `Generic`), `srcs` have the types
    /// [`AsyncOp::src_types`] lists, `dsts` the types [`AsyncOp::dst_types`] (`None`: the
    /// `_` sink). Semantics in `crate::exec::asyncop`.
    Async {
        op: AsyncOp,
        dsts: Vec<Option<RegId>>,
        addrs: Vec<(Space, Address)>,
        srcs: Vec<Operand>,
    },
    /// A texture or surface instruction (`tex`, `tld4`, `suld`, `sust`): operand types
    /// from [`TexOp::signature`] (`srcs[0]` is the object handle); `None` results are `_`.
    Texture {
        op: TexOp,
        dsts: Vec<Option<RegId>>,
        srcs: Vec<Operand>,
    },
}

/// The runtime built-ins of [`InstKind::Builtin`] (`crate::exec::printf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `vprintf(.b64 format, .b64 args) -> .b32`: one line per lane, see
    /// `crate::exec::printf`.
    Vprintf,
    /// `__assertfail(.b64 message, .b64 file, .b32 line, .b64 function, .b64 charSize)`:
    /// stops the launch with an error.
    AssertFail,
    /// The `trap` instruction: stops the launch with an error (a GPU reports
    /// `CUDA_ERROR_LAUNCH_FAILED`).
    Trap,
    /// The `brkpt` instruction: without a debugger a GPU stops the launch with
    /// `CUDA_ERROR_LAUNCH_FAILED`, as for `trap`.
    Brkpt,
    /// `malloc(.b64 size) -> .b64`: a block of the device heap (16-byte aligned), or NULL
    /// when the heap (`CU_LIMIT_MALLOC_HEAP_SIZE`) has no room.
    Malloc,
    /// `free(.b64 ptr)`: returns a `malloc` block to the heap; NULL is a no-op, anything
    /// else that is not a live block is a fault.
    Free,
    /// An entry point of the CUDA device runtime (dynamic parallelism), see [`CdpFn`]
    /// and `crate::exec::cdp`.
    Cdp(CdpFn),
    /// `alloca.type ptr, size{, align}` (`wide`: `.u64`): `size` bytes of the thread's
    /// stack, aligned to `align` (at least 8); `ptr` is a `.local` address. See
    /// `crate::exec::stack`.
    Alloca { wide: bool, align: u32 },
    /// `stacksave.type d`: the thread's stack pointer, a `.local` address.
    StackSave { wide: bool },
    /// `stackrestore.type a`: sets the thread's stack pointer (a value `stacksave` gave).
    StackRestore { wide: bool },
}

/// The operations of [`InstKind::Sfu`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SfuOp {
    Sqrt,
    Rcp,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}
