//! The instruction kinds ([`InstKind`]): one variant per instruction family, with the
//! built-in functions ([`Builtin`]) and special-function unit operations ([`SfuOp`]).

use super::*;

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
