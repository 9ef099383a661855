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
pub use asyncop::{AsyncOp, TENSORMAP_FIELDS};
mod cdp;
pub use cdp::CdpFn;
mod half;
pub use half::{HalfMode, HalfOp, OOB_NAN};
mod matrix;
pub use matrix::layout as matrix_layout;
pub use matrix::{
    ElemType, Frag, MatrixOp, MatrixSignature, MmaOp, MmaShape, PopcOp, WgmmaOp, WmmaFrag,
};
mod index;
pub use index::{Idx, IdxVec};
mod int;
pub use int::{BitOp, PrmtMode};
pub mod sampler;
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
mod cflow;
pub use cflow::*;
mod inst;
pub use inst::*;
mod sreg;
pub use sreg::*;
mod types;
pub use types::*;

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
    pub functions: IdxVec<FuncId, Function>,
    /// `.global` and `.const` variables, in declaration order.
    pub globals: IdxVec<GlobalId, GlobalVar>,
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
    pub inst_info: IdxVec<InstId, InstInfo>,
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
            .iter_enumerated()
            .find(|(_, f)| f.name == name)
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
        &self.inst_info[id]
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
    /// An unsized `.param` array (`.param .b8 args[]`, the last input of a `.func`):
    /// `size` is the largest array a call in the module passes (`check/open_array.rs`);
    /// a call passes one of at most that size, or none.
    pub unsized_array: bool,
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
    pub regs: IdxVec<RegId, RegInfo>,
    /// Empty for a declaration without body (prototype or `.extern`).
    pub blocks: IdxVec<BlockId, Block>,
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
        &self.regs[r]
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
