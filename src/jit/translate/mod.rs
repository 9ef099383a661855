//! The per-kernel translator: builds one Cranelift function from one IR kernel.
//!
//! IR registers live in a register file in memory (`regfile`: 8 × i32x4, 16 × i64x2 or
//! 8 × i32x4 lane masks each); the active mask (8 × i32x4 and its i32 bit form) and the
//! per-lane next-block numbers of pending lanes (8 × i32x4, `u32::MAX` = not waiting)
//! are Cranelift `Variable`s. This module reads operands (with the relaxed
//! operand-size rules of `ir`), writes destinations under a mask and dispatches
//! instructions to the lowering modules (`lower/*`, `control/*`).
//!
//! Every IR block that can run while lanes wait elsewhere is translated twice (see
//! [`Mode`] and `ir::analysis::cfg::divergent_blocks`): a *convergent* variant, run
//! while no lane is pending (then every live lane is active, so unguarded writes need
//! no merging and uniform branches are plain jumps), and a *divergent* variant, run
//! while some lanes wait elsewhere (writes merge under the active mask and every block
//! end goes through the dispatcher).

pub(crate) mod affine;
mod blocks;
pub(crate) mod cont;
mod dispatch;
pub(crate) mod funcs;
mod grouped;
pub(crate) mod join;
pub(crate) mod lanes;
pub(crate) mod opcode_cost;
pub(crate) mod regfile;
pub(crate) mod scalar;
pub(crate) mod scratch;
pub(crate) mod serial;
pub(crate) mod serial_region;

use crate::exec::ctx::WarpCtx;
use crate::exec::ModuleLayout;
use crate::ir::analysis::cfg;
use crate::ir::analysis::liveness::RegSet;
use crate::ir::analysis::shape::{Divergence, LaunchShape, Shapes, State};
use crate::ir::{
    self, BlockId, FuncId, Guard, Idx, IdxVec, Inst, InstId, Operand, RegClass, RegId, SpecialReg,
    Type, VarRef,
};
use crate::jit::abi::{Helper, HelperIds};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2, I8};
use cranelift_codegen::ir::{
    Block, FuncRef, Function, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind,
    Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::Module as _;
use lanes::{WarpValue, N32, N64};
use std::collections::HashMap;
use std::mem::offset_of;

pub(crate) use scratch::{SCRATCH_BYTES, SCRATCH_DATA};

/// A lane mask: 8 × i32x4, with its 64-bit form and bit form computed on demand (the
/// vector form too, for the active mask of an unguarded instruction: [`FuncTranslator::m32`]).
///
/// The forms built later are cached with the Cranelift block they were built in, and a
/// cached form is reused only in that block or when it was built in the mask's home
/// block (where the instruction's lowering starts, which dominates the rest of it): a
/// form first built in one branch of a lowering must not reach another branch.
pub(crate) struct Mask {
    m32: Option<Vec<Value>>,
    m64: Option<(Option<Block>, Vec<Value>)>,
    bits: Option<Value>,
    /// The block `bits` was computed in by [`FuncTranslator::mbits`]; `None` when it
    /// came with the mask (valid everywhere in the lowering).
    bits_block: Option<Block>,
    /// The block the mask was made in.
    home: Option<Block>,
    /// Whether writes under this mask must keep the other lanes' values. False for an
    /// unguarded instruction in convergent mode: the lanes outside the mask have exited
    /// (or were never live) and their registers are dead.
    pub merge: bool,
    /// The mask of an unguarded instruction: the active lanes (see `regfile::merges`).
    pub unguarded: bool,
}

impl Mask {
    pub fn new(m32: Vec<Value>, bits: Option<Value>) -> Mask {
        Mask {
            m32: Some(m32),
            m64: None,
            bits,
            bits_block: None,
            home: None,
            merge: true,
            unguarded: false,
        }
    }
}

/// Which variant of the blocks is being translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// No lane is pending: the active lanes are all live lanes.
    Conv,
    /// Some lanes wait at other blocks.
    Div,
}

pub(crate) struct FuncTranslator<'a> {
    /// Registers known to hold one constant (see `warp::entry_constants`).
    pub consts: HashMap<RegId, (u64, InstId, usize)>,
    /// Index of the IR block being translated.
    pub cur_block: usize,
    pub m: &'a ir::Module,
    pub layout: &'a ModuleLayout,
    pub f: &'a ir::Function,
    pub b: FunctionBuilder<'a>,
    cm: &'a mut JITModule,
    helpers: &'a HelperIds,
    helper_refs: HashMap<Helper, FuncRef>,
    /// The `*mut WarpCtx` parameter (defined in the entry block, so usable everywhere;
    /// in a continuation kernel, the parameter of the chain's head block, which every
    /// block but the entry follows: `translate::cont::ContLive`).
    pub ctx: Value,
    /// The PTX registers (see `regfile`).
    pub rf: crate::jit::translate::regfile::RegFile,
    pub active: Vec<Variable>,
    pub active_bits: Variable,
    pub next: Vec<Variable>,
    /// Convergent variant of each IR block.
    pub blocks_c: Vec<Block>,
    /// Divergent variant of each IR block that lanes can wait at.
    pub blocks_d: Vec<Option<Block>>,
    /// The variant being translated.
    pub mode: Mode,
    pub dispatch: Block,
    /// Returns `ctx.status`.
    pub ret_status: Block,
    pub scratch: StackSlot,
    /// The instruction being translated (for messages).
    pub cur: Option<InstId>,
    /// The module's callable functions.
    pub calls: &'a crate::jit::translate::funcs::CallEnv,
    callee_refs: HashMap<cranelift_module::FuncId, FuncRef>,
    /// In a `.func`: the lanes that returned so far (i32 bits); `None` in a kernel.
    pub ret_bits: Option<Variable>,
    /// The shape analysis of `f`: `.0` holds for every launch, `.1` for launches whose
    /// `%ntid.x` is a multiple of 32 (see [`Self::rows_launch`]).
    pub shapes: (Shapes, Shapes),
    /// The facts of `shapes` right before the instruction being translated.
    pub shape_now: (State, State),
    /// The shape analysis for each half-warp of launches whose `%ntid.x` is 16
    /// (`LaunchShape::HALF_ROWS`, tested at run time: `mem_halves::halves_first`), and
    /// its facts right before the instruction being translated; only in the optimized
    /// tier's general code.
    pub shapes_half: Option<(Shapes, State)>,
    /// The sanitizer variant (see [`BuildEnv::instrument`]).
    pub instrument: bool,
    /// Registers kept as scalars (see `scalar`).
    pub sregs: scalar::ScalarRegs,
    /// The resume block of a kernel whose barriers are continuations (`control::cont`).
    pub cont: Option<Block>,
    /// Its registers' liveness at the barriers (`control::cont`).
    pub cont_live: Option<cont::ContLive>,
    /// Registers kept as their affine base (see `affine`).
    pub affine: affine::AffineRegs,
    /// Loops run lane by lane (`control::serial`).
    pub serial: serial::Serial,
    /// Registers whose NaN bits no read observes (`ir::analysis::nan`).
    pub nan_blind: crate::ir::analysis::liveness::RegSet,
    /// Float registers written without the canonical-NaN select and canonicalised where
    /// a store reads them (`ir::analysis::nan::nan_lazy`; not scalar or affine ones).
    pub nan_lazy: crate::ir::analysis::liveness::RegSet,
    /// Set while a lowering reads operands whose NaN payload it ignores (the float
    /// arithmetic of `lower::float`): reads of `nan_lazy` registers keep their bits.
    pub blind_read: bool,
    /// Registers an unguarded write need not merge (`regfile::block_local_regs`).
    pub local_regs: crate::ir::analysis::liveness::RegSet,
    /// Address registers whose half-warp shape a load found (`lower::mem_halves`): per
    /// register, the variables of its state (i8) and its halves' first addresses (i64),
    /// and whether a load from it was translated since the IR block's start or its last
    /// write (only then can the state be set), and whether that first load tested the
    /// window of the register's whole run of loads. Forgotten at each IR block's start
    /// and after each write of the register.
    pub halves_memo: HashMap<RegId, ([Variable; 3], bool, bool)>,
    /// Stores whose range an earlier load of this IR block tested (`lower::mem`,
    /// `store_memo`): per store, the load and an i8 variable, non-zero where that load
    /// found the range in place for the store. Forgotten at each IR block's end and
    /// when the load is translated again.
    pub store_memo: HashMap<InstId, (InstId, Variable)>,
    /// Predicate registers whose lane bits (an i32 variable, bit `l` = lane `l`, valid
    /// in the lanes active when it was set) an unguarded `setp` of this IR block
    /// computed from scalars (`lower::affine::affine_cmp_bits`): branches and guards
    /// use them instead of the vector form. Forgotten when the register is written
    /// again and at every block's start.
    pub pred_bits: HashMap<RegId, Variable>,
    /// The function's register liveness, computed at the first lowering that asks
    /// (`lower::atomic`: an `atom` whose old value no thread reads).
    pub liveness: Option<crate::ir::analysis::liveness::Liveness>,
    /// An i8 zero made in the entry block (dominates every use; defining a variable
    /// with it inserts no instruction).
    pub zero8: Value,
    /// Built for the quick tier ([`BuildEnv::quick`]).
    pub quick: bool,
    /// The IR block being translated is a loop header (`cfg::loop_headers`).
    pub in_header: bool,
    /// Per global load in a loop header: lane 0's host address at its last run
    /// (`lower::mem_ahead`).
    pub ahead: HashMap<InstId, Variable>,
    /// If-then bodies run under the branch's mask without the dispatcher
    /// (`control::join`).
    pub joins: join::Joins,
}

/// What building any function of a module reads: the module, its layout, and the
/// helpers and functions declared in the Cranelift module.
#[derive(Clone, Copy)]
pub(crate) struct BuildEnv<'a> {
    pub m: &'a ir::Module,
    pub layout: &'a ModuleLayout,
    pub helpers: &'a HelperIds,
    pub calls: &'a crate::jit::translate::funcs::CallEnv,
    /// Build the sanitizer variant: every access through `exec::ctx::access`, and
    /// warp-synchronous instructions checked (see `lower::sanitize`).
    pub instrument: bool,
    /// Build code for launches whose `%ntid.x` is a multiple of 32 only: affine
    /// registers follow the shape facts of such launches (`%tid.x` affine).
    pub rows: bool,
    /// Build for the quick tier: a lowering that trades compile time for run time (code
    /// unrolled over the 32 lanes) takes its smaller form.
    pub quick: bool,
}

/// Builds the Cranelift function of kernel or `.func` `fid` into `func`.
pub(crate) fn build(
    env: BuildEnv,
    fid: FuncId,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    cm: &mut JITModule,
) -> Result<bool, JitError> {
    let BuildEnv {
        m,
        layout,
        helpers,
        calls,
        instrument,
        rows,
        quick,
    } = env;
    let f = m
        .functions
        .get(fid)
        .ok_or_else(|| JitError::Codegen(format!("no function {}", fid.0)))?;
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let ctx = b.block_params(entry)[0];
    let zero8 = b.ins().iconst(I8, 0);
    let is_func = f.kind == ir::FuncKind::Func;
    let entry_mask = if is_func {
        b.block_params(entry).get(1).copied()
    } else {
        None
    };
    let ret_bits = is_func.then(|| b.declare_var(I32));
    let active = (0..N32).map(|_| b.declare_var(I32X4)).collect();
    let active_bits = b.declare_var(I32);
    let next = (0..N32).map(|_| b.declare_var(I32X4)).collect();
    let targets = cfg::branch_targets(f);
    // Loop headers check the watchdog's stop flag.
    let loop_header = cfg::loop_headers(f);
    let blocks_c = f.blocks.iter().map(|_| b.create_block()).collect();
    // Shapes that hold for every launch (no assumption on the block's dimensions).
    let shapes = Shapes::analyze(f, LaunchShape::default());
    let shapes_rows = Shapes::analyze(f, LaunchShape::of_block([32, 1, 1]));
    let shapes_half = (!quick && !rows && !instrument)
        .then(|| (Shapes::analyze(f, LaunchShape::HALF_ROWS), State::default()));
    // (The code for whole-row launches follows their analysis: `%tid.x < 32` is uniform.)
    let term_shapes = if rows { &shapes_rows } else { &shapes };
    let uniform_term = (f.blocks.ids())
        .map(|i| term_shapes.terminator(i) == Divergence::Uniform)
        .collect();
    let div = cfg::divergent_blocks_given(f, &uniform_term);
    let blocks_d = targets
        .iter()
        .zip(&div)
        .map(|(&t, &d)| (t && d).then(|| b.create_block()))
        .collect();
    let waits = cfg::waiting_ranges_given(f, &uniform_term);
    let sregs = scalar::ScalarRegs::new(&mut b, f, &div, &waits, term_shapes);
    let cont = cont::eligible(f, &div, instrument);
    // (A continuation kernel's warp context: its chain head's parameter, `ContLive`.)
    let cont_live = cont.then(|| cont::ContLive::new(&mut b, f, ctx));
    let ctx = cont_live.as_ref().map_or(ctx, |cl| cl.ctx(&b));
    let rf = crate::jit::translate::regfile::RegFile::new(&mut b, f, cont.then_some(ctx));
    let cont = cont.then(|| b.create_block());
    let affine = affine::AffineRegs::new(
        &mut b,
        f,
        if rows { &shapes_rows } else { &shapes },
        &div,
        &sregs.vars,
        rows,
    );
    let serial = serial::Serial::new(
        if instrument || layout.coverage.is_some() || !serial_region::enabled() {
            IdxVec::from_elem(None, f.blocks.len())
        } else {
            serial_region::serial_regions(
                f,
                &shapes,
                &|r| sregs.vars.get(r).is_some_and(|v| v.is_some()),
                &|r| affine.vars.get(r).is_some_and(|v| v.is_some()),
            )
        },
    );
    let (nan_blind, nan_lazy) = nan_sets(f, &sregs, &affine, &serial);
    let dispatch = b.create_block();
    let ret_status = b.create_block();
    let scratch = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        SCRATCH_BYTES,
        4,
    ));
    let consts = crate::ir::analysis::consts::entry_constants(f);
    let tx = FuncTranslator {
        consts,
        cur_block: 0,
        in_header: false,
        ahead: HashMap::new(),
        m,
        layout,
        f,
        b,
        cm,
        helpers,
        helper_refs: HashMap::new(),
        ctx,
        rf,
        active,
        active_bits,
        next,
        blocks_c,
        blocks_d,
        mode: Mode::Conv,
        dispatch,
        ret_status,
        scratch,
        cur: None,
        calls,
        callee_refs: HashMap::new(),
        ret_bits,
        shapes: (shapes, shapes_rows),
        shape_now: (State::default(), State::default()),
        shapes_half,
        instrument,
        sregs,
        cont,
        cont_live,
        affine,
        serial,
        nan_blind,
        nan_lazy,
        blind_read: false,
        local_regs: crate::jit::translate::regfile::block_local_regs(f),
        halves_memo: HashMap::new(),
        store_memo: HashMap::new(),
        pred_bits: HashMap::new(),
        liveness: None,
        zero8,
        quick,
        joins: join::Joins::new(f, instrument || quick),
    };
    let cov = layout.coverage.as_ref().and_then(|c| c.func_base_addr(fid));
    tx.translate_function(entry_mask, cov, &loop_header, (&targets, &div), is_func)
}

/// The registers whose reads need no canonical NaN (`nan_blind`) and those written
/// without it and made canonical where read (`nan_lazy`): a register that is scalar,
/// affine, NaN-blind or read by a loop run lane by lane (which reads the file
/// directly) is never lazy.
fn nan_sets(
    f: &ir::Function,
    sregs: &scalar::ScalarRegs,
    affine: &affine::AffineRegs,
    serial: &serial::Serial,
) -> (RegSet, RegSet) {
    let nan_blind = crate::ir::analysis::nan::nan_blind(f);
    let mut nan_lazy = crate::ir::analysis::nan::nan_lazy(f);
    for r in f.regs.ids() {
        let scalar = sregs.vars.get(r).is_some_and(|v| v.is_some());
        if nan_blind.contains(r) || scalar || affine.vars.get(r).is_some_and(|v| v.is_some()) {
            nan_lazy.remove(r);
        }
    }
    for region in serial.regions.iter().flatten() {
        for &r in &region.regs {
            nan_lazy.remove(r);
        }
    }
    (nan_blind, nan_lazy)
}

impl FuncTranslator<'_> {
    /// The head of a kernel's warp chain: the loop over the warps chained by
    /// `WarpCtx::next`, run in one call (see [`build`]). Returns the head block and the
    /// next warp's context, loaded at the head.
    fn chain_head(&mut self) -> (Block, Value) {
        let head = self.b.create_block();
        let p = self.b.append_block_param(head, I64);
        self.b.ins().jump(head, &[self.ctx.into()]);
        self.b.switch_to_block(head);
        self.ctx = p;
        (head, self.load_ctx(I64, offset_of!(WarpCtx, next), false))
    }

    /// The return block: the warp's status (a function's return bits), and in a
    /// chained kernel the jump to the next warp while the status is 0 and one is left.
    fn build_return(&mut self, chain: Option<(Block, Value)>) {
        self.b.switch_to_block(self.ret_status);
        self.cont_refresh();
        let st = match self.ret_bits {
            Some(rb) => self.b.use_var(rb),
            None => self.load_ctx(I32, offset_of!(WarpCtx, status), false),
        };
        if let Some((head, next)) = chain {
            let (done, go) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(st, done, &[], go, &[]);
            self.b.switch_to_block(go);
            self.b.ins().brif(next, head, &[next.into()], done, &[]);
            self.b.switch_to_block(done);
        }
        self.b.ins().return_(&[st]);
        self.b.seal_all_blocks();
    }
}

impl<'a> FuncTranslator<'a> {
    /// Entry block: registers zero, active = `ctx.live` (a `.func`: its `mask`
    /// parameter), nothing pending.
    fn entry(&mut self, mask: Option<Value>) -> Result<(), JitError> {
        if let Some(r) = self.cont {
            let start = self.b.create_block();
            self.cont_entry(start, r);
            self.b.switch_to_block(start);
            self.cont_refresh();
        }
        let live = match mask {
            Some(m) => m,
            None => self.load_ctx(I32, offset_of!(WarpCtx, live), false),
        };
        if let Some(cl) = &self.cont_live {
            self.b.def_var(cl.step_live, live);
        }
        if let Some(rb) = self.ret_bits {
            let z = lanes::iconst32(&mut self.b, 0);
            self.b.def_var(rb, z);
        }
        let act = lanes::mask_from_bits(&mut self.b, live);
        for k in 0..N32 {
            self.b.def_var(self.active[k], act[k]);
        }
        self.b.def_var(self.active_bits, live);
        self.scalar_init();
        self.affine_init();
        let none = lanes::splat32(&mut self.b, u32::MAX);
        for k in 0..N32 {
            self.b.def_var(self.next[k], none);
        }
        self.b
            .ins()
            .brif(live, self.rf.init, &[], self.ret_status, &[]);
        Ok(())
    }

    /// Whether this launch's `%ntid.x` is a multiple of 32, so that the facts of
    /// `shapes.1` hold (an i8).
    pub fn rows_launch(&mut self) -> Value {
        let x = self.load_ctx(I32, offset_of!(WarpCtx, ntid), true);
        let low = self.b.ins().band_imm_u(x, 31);
        self.b.ins().icmp_imm_u(IntCC::Equal, low, 0)
    }

    /// An [`JitError::Internal`] error for the current instruction: IR that `check`
    /// and `validate` never let through (see the rule named at each use).
    pub fn internal(&self, what: impl Into<String>) -> JitError {
        let (line, col) = match self.cur.and_then(|i| self.m.inst_info.get(i)) {
            Some(info) => (info.loc.line, info.loc.col),
            None => (self.f.loc.line, self.f.loc.col),
        };
        JitError::Internal {
            file: self.m.file.clone(),
            line,
            col,
            what: what.into(),
        }
    }

    /// The opcode text of the current instruction (for messages).
    pub fn cur_text(&self) -> String {
        self.cur
            .and_then(|i| self.m.inst_info.get(i))
            .map(|i| format!("`{}`", i.text))
            .unwrap_or_else(|| "this instruction".into())
    }

    /// Loads a field of the warp context.
    pub fn load_ctx(
        &mut self,
        ty: cranelift_codegen::ir::Type,
        off: usize,
        readonly: bool,
    ) -> Value {
        let mut fl = MemFlagsData::new().with_notrap();
        if readonly {
            fl = fl.with_readonly();
        }
        self.b.ins().load(ty, fl, self.ctx, off as i32)
    }

    /// Stores a field of the warp context.
    pub fn store_ctx(&mut self, v: Value, off: usize) {
        self.b
            .ins()
            .store(MemFlagsData::new().with_notrap(), v, self.ctx, off as i32);
    }

    /// A `FuncRef` for a helper, declared in this function on first use.
    pub fn helper(&mut self, h: Helper) -> Result<FuncRef, JitError> {
        if let Some(&r) = self.helper_refs.get(&h) {
            return Ok(r);
        }
        let id = self
            .helpers
            .get(h)
            .ok_or_else(|| JitError::Codegen(format!("helper {h:?} not declared")))?;
        let r = self.cm.declare_func_in_func(id, self.b.func);
        self.helper_refs.insert(h, r);
        Ok(r)
    }

    /// A `FuncRef` for a callee, declared in this function on first use.
    pub fn callee_ref(&mut self, id: cranelift_module::FuncId) -> FuncRef {
        if let Some(&r) = self.callee_refs.get(&id) {
            return r;
        }
        let r = self.cm.declare_func_in_func(id, self.b.func);
        // Code of different functions may lie more than 2 GiB apart: call through an
        // absolute address.
        self.b.func.dfg.ext_funcs[r].colocated = false;
        self.callee_refs.insert(id, r);
        r
    }

    /// Translates an instruction built by another lowering (call arguments and return
    /// values).
    pub(crate) fn inst_at(&mut self, i: &Inst) -> Result<(), JitError> {
        self.inst(i)
    }

    /// Address of a byte offset in the scratch slot.
    pub fn scratch_addr(&mut self, off: i32) -> Value {
        self.b.ins().stack_addr(I64, self.scratch, off)
    }

    /// Stores a warp value to the scratch slot at `off` (4 or 8 bytes per lane).
    pub fn spill(&mut self, w: &WarpValue, off: i32) {
        let a = self.scratch_addr(off);
        let fl = MemFlagsData::new().with_notrap();
        for (k, &v) in w.v.iter().enumerate() {
            self.b.ins().store(fl, v, a, 16 * k as i32);
        }
    }

    /// Loads a warp value from the scratch slot at `off`.
    pub fn unspill(&mut self, wide: bool, off: i32) -> WarpValue {
        let (n, ty) = if wide { (N64, I64X2) } else { (N32, I32X4) };
        let a = self.scratch_addr(off);
        let fl = MemFlagsData::new().with_notrap();
        let v = (0..n)
            .map(|k| self.b.ins().load(ty, fl, a, 16 * k as i32))
            .collect();
        WarpValue { wide, v }
    }

    // -----------------------------------------------------------------------------------
    // Masks.

    /// The mask an instruction with guard `g` runs under: `active & p` / `active & !p`.
    pub fn exec_mask(&mut self, g: Option<Guard>) -> Mask {
        match g {
            // The vector form is built where an instruction needs it (most unguarded
            // instructions of convergent code need none).
            None => Mask {
                m32: None,
                m64: None,
                bits: Some(self.b.use_var(self.active_bits)),
                bits_block: None,
                home: self.b.current_block(),
                merge: self.mode == Mode::Div,
                unguarded: true,
            },
            Some(g) => {
                if let Some(pb) = self.pred_bits_of(g.pred) {
                    let ab = self.b.use_var(self.active_bits);
                    let bits = match g.negate {
                        true => self.b.ins().band_not(ab, pb),
                        false => self.b.ins().band(ab, pb),
                    };
                    return Mask {
                        m32: None,
                        m64: None,
                        bits: Some(bits),
                        bits_block: None,
                        home: self.b.current_block(),
                        merge: true,
                        unguarded: false,
                    };
                }
                let act = self.active_vals();
                let p = self.pred_vals(g.pred, false);
                let m = if g.negate {
                    lanes::andnot_masks(&mut self.b, &act, &p)
                } else {
                    lanes::and_masks(&mut self.b, &act, &p)
                };
                let mut m = Mask::new(m, None);
                m.home = self.b.current_block();
                m
            }
        }
    }

    /// The vector form of a mask (8 × i32x4). Built from the bit form where it is not
    /// kept (the bit form is defined where the instruction starts, so this may be
    /// called on any of its paths).
    pub fn m32(&mut self, m: &Mask) -> Vec<Value> {
        match (&m.m32, m.bits) {
            (Some(v), _) => v.clone(),
            (None, _) if m.unguarded => self.active_vals(),
            (None, Some(bits)) => self.mask_of_bits(bits),
            (None, None) => self.active_vals(),
        }
    }

    /// The 64-bit form of a mask.
    pub fn m64(&mut self, m: &mut Mask) -> Vec<Value> {
        let cur = self.b.current_block();
        if let Some((blk, v)) = &m.m64 {
            if *blk == m.home || *blk == cur {
                return v.clone();
            }
        }
        let v = match (&m.m32, m.bits) {
            (None, _) if m.unguarded => self.active_mask64(),
            (None, Some(bits)) => self.mask64_of_bits(bits),
            _ => {
                let m32 = self.m32(m);
                lanes::mask64(&mut self.b, &m32)
            }
        };
        m.m64 = Some((cur, v.clone()));
        v
    }

    /// Remembers `bits` as the lane bits of predicate `r` (see `pred_bits`).
    pub fn pred_bits_set(&mut self, r: RegId, bits: Value) {
        let v = self.b.declare_var(I32);
        self.b.def_var(v, bits);
        self.pred_bits.insert(r, v);
    }

    /// The remembered lane bits of predicate `r` (see `pred_bits`).
    pub fn pred_bits_of(&mut self, r: RegId) -> Option<Value> {
        let v = *self.pred_bits.get(&r)?;
        Some(self.b.use_var(v))
    }

    /// The i32 bit form of a mask.
    pub fn mbits(&mut self, m: &mut Mask) -> Value {
        let cur = self.b.current_block();
        if let Some(b) = m.bits {
            if m.bits_block.is_none() || m.bits_block == m.home || m.bits_block == cur {
                return b;
            }
        }
        // `m32` is set whenever `bits` was not given with the mask.
        let m32 = self.m32(m);
        let b = lanes::bits_from_mask(&mut self.b, &m32);
        m.bits = Some(b);
        m.bits_block = cur;
        b
    }

    // -----------------------------------------------------------------------------------
    // Registers and operands.

    pub fn reg_info(&self, r: RegId) -> Result<&'a ir::RegInfo, JitError> {
        self.f
            .regs
            .get(r)
            .ok_or_else(|| JitError::Codegen(format!("register {} out of range", r.0)))
    }

    /// Raw container values of a register.
    fn reg_vals(&mut self, r: RegId) -> Vec<Value> {
        if let Some(v) = self.scalar_vals(r) {
            return v;
        }
        if let Some(v) = self.affine_vals(r) {
            return v;
        }
        self.reg_load(r, true)
    }

    /// The lane masks of a predicate register (negated if asked).
    pub fn pred_vals(&mut self, r: RegId, negate: bool) -> Vec<Value> {
        let v = self.reg_vals(r);
        if negate {
            v.iter().map(|&x| self.b.ins().bnot(x)).collect()
        } else {
            v
        }
    }

    /// A predicate operand (register or immediate) as lane masks.
    pub fn read_pred(&mut self, op: &Operand, negate: bool) -> Result<Vec<Value>, JitError> {
        match *op {
            Operand::Reg(r) => {
                if self.reg_info(r)?.ty.class() != RegClass::Pred {
                    return Err(self.internal(format!(
                        "non-predicate register as predicate operand of {}",
                        self.cur_text()
                    )));
                }
                Ok(self.pred_vals(r, negate))
            }
            Operand::Imm(x) => {
                let on = (x & 1 != 0) != negate;
                let c = lanes::splat32(&mut self.b, if on { u32::MAX } else { 0 });
                Ok(vec![c; N32])
            }
            Operand::Special(s) => self.special_pred(s, negate),
            _ => Err(self.internal(format!("this predicate operand of {}", self.cur_text()))),
        }
    }

    /// Reads a source operand as a value of type `ty` in `ty`'s container class. With
    /// `canon`, bits above `ty`'s width are sign-extended (signed types) or zero;
    /// otherwise they are unspecified.
    pub fn read(&mut self, op: &Operand, ty: Type, canon: bool) -> Result<WarpValue, JitError> {
        let wide = match ty.class() {
            RegClass::R32 => false,
            RegClass::R64 => true,
            _ => return Err(self.internal(format!("operands of type {ty} in {}", self.cur_text()))),
        };
        let tw = ty.bits();
        let cw = if wide { 64 } else { 32 };
        let signed = ty.is_signed();
        match *op {
            Operand::Reg(r) => {
                let rty = self.reg_info(r)?.ty;
                let rw = rty.bits();
                let raw = self.reg_vals(r);
                match rty.class() {
                    RegClass::R32 => {
                        let w = WarpValue::narrow(raw);
                        if wide {
                            // A 32-bit register read as a 64-bit type: the container,
                            // zero-extended (as the interpreter reads it).
                            Ok(lanes::widen_w(&mut self.b, &w, false))
                        } else if canon && tw < cw && (signed || rw > tw) {
                            Ok(lanes::ext_w(&mut self.b, &w, tw, signed))
                        } else {
                            Ok(w)
                        }
                    }
                    RegClass::R64 => {
                        let w = WarpValue::wide(raw);
                        if wide {
                            Ok(w)
                        } else {
                            let n = lanes::narrow_w(&mut self.b, &w);
                            if canon && tw < 32 {
                                Ok(lanes::ext_w(&mut self.b, &n, tw, signed))
                            } else {
                                Ok(n)
                            }
                        }
                    }
                    _ => Err(self.internal(format!(
                        "register of type {rty} as a {ty} operand of {}",
                        self.cur_text()
                    ))),
                }
            }
            Operand::Imm(x) => {
                let v = if canon && signed && tw < 64 {
                    (x << (64 - tw)) as i64 >> (64 - tw)
                } else {
                    x as i64
                };
                Ok(lanes::splat_w(&mut self.b, wide, v as u64))
            }
            Operand::Special(s) => {
                let w = self.special(s)?;
                let w = match (w.wide, wide) {
                    (false, true) => lanes::widen_w(&mut self.b, &w, false),
                    (true, false) => lanes::narrow_w(&mut self.b, &w),
                    _ => w,
                };
                Ok(if canon && tw < cw {
                    lanes::ext_w(&mut self.b, &w, tw, signed)
                } else {
                    w
                })
            }
            Operand::VarAddr(v, off) => {
                let a = self.var_addr(v, off)?;
                let a = if wide {
                    a
                } else {
                    self.b.ins().ireduce(I32, a)
                };
                Ok(lanes::splat_scalar(&mut self.b, a))
            }
            Operand::FuncAddr(f) => {
                let a = crate::exec::call::FUNC_ADDR_BASE + f.0 as u64;
                let a = if wide {
                    lanes::iconst64(&mut self.b, a)
                } else {
                    lanes::iconst32(&mut self.b, a as u32)
                };
                Ok(lanes::splat_scalar(&mut self.b, a))
            }
        }
    }

    /// The state-space address (i64 scalar) of a variable plus an offset.
    pub fn var_addr(&mut self, v: VarRef, off: i64) -> Result<Value, JitError> {
        Ok(match v {
            VarRef::Global(g) => {
                let base = *self.layout.global_addrs.get(g).ok_or_else(|| {
                    JitError::Codegen(format!(
                        "the module layout has no address for global variable {}",
                        g.0
                    ))
                })?;
                lanes::iconst64(&mut self.b, base.wrapping_add(off as u64))
            }
            VarRef::Shared(o) | VarRef::Local(o) => {
                lanes::iconst64(&mut self.b, (o as u64).wrapping_add(off as u64))
            }
            VarRef::KernelParam(o) => {
                let base = self.load_ctx(I64, offset_of!(WarpCtx, param_base), true);
                self.b.ins().iadd_imm_s(base, (o as i64).wrapping_add(off))
            }
        })
    }

    /// A special register's value (see `sreg.rs`).
    pub fn special(&mut self, s: SpecialReg) -> Result<WarpValue, JitError> {
        self.special_reg(s)
    }

    /// Writes `val` (a value of type `ty` in `ty`'s container class, bits above `ty`'s
    /// width unspecified) to register `dst` under `mask`, truncating or extending it to
    /// the register's width per the container invariant.
    pub fn write(
        &mut self,
        dst: RegId,
        ty: Type,
        val: WarpValue,
        mask: &mut Mask,
    ) -> Result<(), JitError> {
        let Some(val) = self.write_float(dst, ty, val, mask)? else {
            return Ok(());
        };
        let rty = self.reg_info(dst)?.ty;
        let rwide = match rty.class() {
            RegClass::R32 => false,
            RegClass::R64 => true,
            _ => {
                return Err(self.internal(format!(
                    "destination register of type {rty} in {}",
                    self.cur_text()
                )))
            }
        };
        if self.svar(dst).is_some() {
            if let Some(x) = self.scalar_of(&val.v) {
                return self.scalar_write(dst, ty, x);
            }
        }
        let rw = rty.bits();
        let tw = ty.bits().min(64);
        let signed = ty.is_signed();
        let mut v = val;
        if tw < rw {
            v = lanes::ext_w(&mut self.b, &v, tw, signed);
            if rwide && !v.wide {
                v = lanes::widen_w(&mut self.b, &v, signed);
            } else if !rwide && v.wide {
                v = lanes::narrow_w(&mut self.b, &v);
            }
            if signed && rw < if rwide { 64 } else { 32 } {
                v = lanes::ext_w(&mut self.b, &v, rw, false);
            }
        } else {
            if !rwide && v.wide {
                v = lanes::narrow_w(&mut self.b, &v);
            } else if rwide && !v.wide {
                v = lanes::widen_w(&mut self.b, &v, signed);
            }
            if rw < 32 {
                v = lanes::ext_w(&mut self.b, &v, rw, false);
            }
        }
        if self.svar(dst).is_some() {
            return self.scalar_write_vec(dst, &v);
        }
        if self.avar(dst).is_some() {
            return self.affine_write_vec(dst, &v);
        }
        if !self.merges(dst, mask) {
            self.reg_store(dst, &v.v, true);
            return Ok(());
        }
        let m = if rwide {
            self.m64(mask)
        } else {
            self.m32(mask)
        };
        let old = self.reg_load(dst, false);
        let new: Vec<Value> = (0..old.len())
            .map(|k| self.b.ins().bitselect(m[k], v.v[k], old[k]))
            .collect();
        self.reg_store(dst, &new, false);
        Ok(())
    }

    /// Writes lane masks to a predicate register under `mask`.
    pub fn write_pred(&mut self, dst: RegId, val: &[Value], mask: &Mask) -> Result<(), JitError> {
        if self.reg_info(dst)?.ty.class() != RegClass::Pred {
            return Err(self.internal(format!("non-predicate destination of {}", self.cur_text())));
        }
        if self.svar(dst).is_some() {
            return self.scalar_write_pred(dst, val);
        }
        if !self.merges(dst, mask) {
            self.reg_store(dst, val, true);
            return Ok(());
        }
        let m32 = self.m32(mask);
        let old = self.reg_load(dst, false);
        let new: Vec<Value> = (0..old.len())
            .map(|k| self.b.ins().bitselect(m32[k], val[k], old[k]))
            .collect();
        self.reg_store(dst, &new, false);
        Ok(())
    }

    /// The convergent variant of an IR block.
    pub fn block(&self, id: BlockId) -> Result<Block, JitError> {
        // `blocks_c` is numbered like the IR blocks (see `translate_blocks`).
        self.blocks_c
            .get(id.index())
            .copied()
            .ok_or_else(|| JitError::Codegen(format!("block {} out of range", id.0)))
    }

    /// Reads a uniform scalar (i32) from the first lane of `mask` (`bits` != 0).
    pub fn first_lane(&mut self, w: &WarpValue, bits: Value) -> Value {
        let w = lanes::narrow_w(&mut self.b, w);
        self.spill(&w, SCRATCH_DATA);
        let lane = self.b.ins().ctz(bits);
        let lane = self.b.ins().uextend(I64, lane);
        let off = self.b.ins().ishl_imm_u(lane, 2);
        let base = self.scratch_addr(SCRATCH_DATA);
        let p = self.b.ins().iadd(base, off);
        self.b
            .ins()
            .load(I32, MemFlagsData::new().with_notrap(), p, 0)
    }
}
