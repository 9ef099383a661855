//! Shared test support for the JIT tests: a small builder for hand-made IR kernels and
//! a runner that executes a compiled kernel warp by warp without the launch runtime.
#![allow(dead_code)]

use ptxjit::exec::ctx::{FaultRecord, WarpCtx, WarpEnv, STATUS_OK, WARP_SIZE};
use ptxjit::exec::region::RegionKind;
use ptxjit::exec::ModuleLayout;
use ptxjit::ir::*;
use ptxjit::jit::{JitModule, JitTier, KernelFn};
use ptxjit::runtime::memory::DeviceMemory;
use std::sync::Arc;

/// Builds one kernel (and its module) instruction by instruction.
pub struct KB {
    pub m: Module,
    pub f: Function,
    cur: BlockId,
    line: u32,
}

impl KB {
    pub fn new(name: &str) -> KB {
        let f = Function {
            name: name.to_string(),
            kind: FuncKind::Entry,
            linkage: Linkage::Visible,
            params: vec![],
            rets: vec![],
            param_size: 0,
            regs: IdxVec::new(),
            blocks: IdxVec::from(vec![Block {
                label: None,
                insts: vec![],
                term: Terminator::Exit {
                    guard: None,
                    next: None,
                    inst: InstId(0),
                },
            }]),
            local_size: 0,
            local_align: 4,
            perf: PerfDirectives::default(),
            loc: Loc { line: 1, col: 1 },
        };
        let m = Module {
            file: "test.ptx".into(),
            version: (7, 0),
            target: vec!["sm_70".into()],
            address_size: 64,
            ..Default::default()
        };
        let mut kb = KB {
            m,
            f,
            cur: BlockId(0),
            line: 1,
        };
        // Fix the placeholder terminator's InstId.
        let id = kb.info("exit");
        kb.f.blocks[BlockId(0)].term = Terminator::Exit {
            guard: None,
            next: None,
            inst: id,
        };
        kb
    }

    fn info(&mut self, text: &str) -> InstId {
        self.line += 1;
        let id = InstId(self.m.inst_info.len() as u32);
        self.m.inst_info.push(InstInfo {
            loc: Loc {
                line: self.line,
                col: 5,
            },
            text: text.into(),
            func: FuncId(0),
        });
        id
    }

    /// Adds a kernel parameter of `size` bytes (aligned to its size) and returns its offset.
    pub fn param(&mut self, name: &str, ty: Type) -> u32 {
        let size = ty.bytes();
        let off = self.f.param_size.next_multiple_of(size);
        self.f.params.push(Param {
            name: name.into(),
            ty,
            count: 1,
            align: size,
            size,
            offset: off,
            regs: Vec::new(),
            ptr_space: None,
            unsized_array: false,
        });
        self.f.param_size = off + size;
        off
    }

    pub fn reg(&mut self, ty: Type) -> RegId {
        let id = RegId(self.f.regs.len() as u32);
        self.f.regs.push(RegInfo {
            name: format!("%r{}", id.0),
            ty,
        });
        id
    }

    /// Appends a new (empty, exiting) block and returns its id. Blocks must be created in
    /// reverse post-order.
    pub fn block(&mut self) -> BlockId {
        let id = self.info("exit");
        self.f.blocks.push_id(Block {
            label: None,
            insts: vec![],
            term: Terminator::Exit {
                guard: None,
                next: None,
                inst: id,
            },
        })
    }

    pub fn switch(&mut self, b: BlockId) {
        self.cur = b;
    }

    pub fn push(&mut self, kind: InstKind) -> InstId {
        self.push_g(None, kind)
    }

    pub fn push_g(&mut self, guard: Option<Guard>, kind: InstKind) -> InstId {
        let id = self.info(&format!("{:?}", std::mem::discriminant(&kind)));
        self.f.blocks[self.cur].insts.push(Inst { guard, kind, id });
        id
    }

    pub fn jump(&mut self, target: BlockId) {
        let id = self.info("bra");
        self.f.blocks[self.cur].term = Terminator::Jump {
            target,
            inst: Some(id),
        };
    }

    pub fn branch(&mut self, pred: RegId, negate: bool, taken: BlockId, not_taken: BlockId) {
        let id = self.info("bra");
        self.f.blocks[self.cur].term = Terminator::Branch {
            guard: Guard { pred, negate },
            taken,
            not_taken,
            uni: false,
            inst: id,
        };
    }

    pub fn exit(&mut self) {
        let id = self.info("exit");
        self.f.blocks[self.cur].term = Terminator::Exit {
            guard: None,
            next: None,
            inst: id,
        };
    }

    pub fn exit_if(&mut self, pred: RegId, negate: bool, next: BlockId) {
        let id = self.info("exit");
        self.f.blocks[self.cur].term = Terminator::Exit {
            guard: Some(Guard { pred, negate }),
            next: Some(next),
            inst: id,
        };
    }

    // Convenience instruction builders.
    pub fn mov(&mut self, ty: Type, dst: RegId, src: Operand) {
        self.push(InstKind::Mov { ty, dst, src });
    }
    pub fn op(&mut self, op: ArithOp, ty: Type, dst: RegId, srcs: &[Operand]) {
        self.push(InstKind::Arith {
            op,
            ty,
            fmode: FloatMode::default(),
            dst,
            srcs: srcs.to_vec(),
        });
    }
    pub fn opf(&mut self, op: ArithOp, ty: Type, fmode: FloatMode, dst: RegId, srcs: &[Operand]) {
        self.push(InstKind::Arith {
            op,
            ty,
            fmode,
            dst,
            srcs: srcs.to_vec(),
        });
    }
    pub fn setp(&mut self, cmp: CmpOp, ty: Type, dst: RegId, a: Operand, b: Operand) {
        self.push(InstKind::Setp {
            cmp,
            ty,
            ftz: false,
            dst: Some(dst),
            dst_neg: None,
            a,
            b,
            combine: None,
        });
    }
    pub fn ld_param(&mut self, ty: Type, dst: RegId, off: u32) {
        self.push(InstKind::Ld {
            space: Space::Param,
            ty,
            dsts: vec![Some(dst)],
            addr: Address {
                base: AddrBase::Var(VarRef::KernelParam(off)),
                offset: 0,
            },
        });
    }
    pub fn ld(&mut self, space: Space, ty: Type, dst: RegId, base: RegId, offset: i64) {
        self.push(InstKind::Ld {
            space,
            ty,
            dsts: vec![Some(dst)],
            addr: Address {
                base: AddrBase::Reg(base),
                offset,
            },
        });
    }
    pub fn st(&mut self, space: Space, ty: Type, base: RegId, offset: i64, src: Operand) {
        self.push(InstKind::St {
            space,
            ty,
            srcs: vec![src],
            addr: Address {
                base: AddrBase::Reg(base),
                offset,
            },
        });
    }

    /// `%rd = param_u64 + tid.x * scale` (an element address for thread tid.x).
    pub fn elem_addr(&mut self, param_off: u32, scale: u64) -> RegId {
        let base = self.reg(Type::U64);
        self.ld_param(Type::U64, base, param_off);
        let tid = self.reg(Type::U32);
        self.mov(Type::U32, tid, Operand::Special(SpecialReg::Tid(Dim::X)));
        let t64 = self.reg(Type::U64);
        self.push(InstKind::Cvt {
            dst_ty: Type::U64,
            src_ty: Type::U32,
            rnd: None,
            ftz: false,
            sat: false,
            dst: t64,
            src: Operand::Reg(tid),
        });
        let off = self.reg(Type::U64);
        self.op(
            ArithOp::Mul(MulMode::Lo),
            Type::U64,
            off,
            &[Operand::Reg(t64), Operand::Imm(scale)],
        );
        let a = self.reg(Type::U64);
        self.op(
            ArithOp::Add,
            Type::U64,
            a,
            &[Operand::Reg(base), Operand::Reg(off)],
        );
        a
    }

    pub fn tid(&mut self) -> RegId {
        let tid = self.reg(Type::U32);
        self.mov(Type::U32, tid, Operand::Special(SpecialReg::Tid(Dim::X)));
        tid
    }

    pub fn finish(mut self) -> Module {
        self.m.functions.push(self.f);
        self.m
    }
}

/// Device memory plus the module's global variables.
pub struct Dev {
    pub mem: DeviceMemory,
}

impl Dev {
    pub fn new() -> Dev {
        Dev {
            mem: DeviceMemory::new(1 << 28).expect("device memory"),
        }
    }
    pub fn alloc(&self, bytes: &[u8]) -> u64 {
        let a = self
            .mem
            .alloc(bytes.len() as u64, 256, RegionKind::Alloc)
            .expect("alloc");
        self.mem.write(a, bytes).expect("write");
        a
    }
    pub fn alloc_u32(&self, v: &[u32]) -> u64 {
        self.alloc(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn alloc_u64(&self, v: &[u64]) -> u64 {
        self.alloc(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        self.mem.read(addr, &mut out).expect("read");
        out
    }
    pub fn read_u32(&self, addr: u64, n: usize) -> Vec<u32> {
        self.read(addr, 4 * n)
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    pub fn read_u64(&self, addr: u64, n: usize) -> Vec<u64> {
        self.read(addr, 8 * n)
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    /// Allocates the module's variables and returns the layout.
    pub fn layout(&self, m: &Module) -> ModuleLayout {
        let mut global_addrs = IdxVec::new();
        for g in &m.globals {
            let kind = if g.space == Space::Const {
                RegionKind::Const
            } else {
                RegionKind::Global
            };
            let a = self
                .mem
                .alloc(g.size.max(1), g.align as u64, kind)
                .expect("alloc global");
            self.mem.write(a, &g.init).expect("init global");
            global_addrs.push(a);
        }
        ModuleLayout {
            global_addrs,
            ..Default::default()
        }
    }
}

/// How to run a kernel.
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub params: Vec<u8>,
    pub shared: u64,
    pub local: u64,
}

impl Launch {
    pub fn threads(n: u32, params: Vec<u8>) -> Launch {
        Launch {
            grid: [1, 1, 1],
            block: [n, 1, 1],
            params,
            shared: 0,
            local: 0,
        }
    }
}

/// The outcome of a run: the first fault (if any) and the status of each warp.
#[derive(Debug)]
pub struct Outcome {
    pub statuses: Vec<u32>,
    pub fault: Option<FaultRecord>,
    /// `ctx.live` of each warp after it returned.
    pub live: Vec<u32>,
}

pub fn params_u64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Which backend runs a kernel.
pub enum Backend<'a> {
    Jit(&'a JitModule),
    Interp(&'a ModuleLayout),
}

/// Runs every warp of every CTA of a launch one after the other (no barriers) on the JIT.
pub fn run(dev: &Dev, jit: &JitModule, m: &Module, kernel: &str, l: &Launch) -> Outcome {
    run_on(dev, Backend::Jit(jit), m, kernel, l)
}

/// Runs every warp of every CTA of a launch one after the other (no barriers).
pub fn run_on(dev: &Dev, be: Backend, m: &Module, kernel: &str, l: &Launch) -> Outcome {
    let pbuf = param_buffer(dev, l);
    run_with_params(dev, be, m, kernel, l, pbuf)
}

/// Allocates and fills a launch's parameter buffer.
pub fn param_buffer(dev: &Dev, l: &Launch) -> u64 {
    let pbuf = dev
        .mem
        .alloc(l.params.len().max(1) as u64, 256, RegionKind::Param)
        .expect("params");
    if !l.params.is_empty() {
        dev.mem.write(pbuf, &l.params).expect("params");
    }
    pbuf
}

/// Runs a launch with an existing parameter buffer.
pub fn run_with_params(
    dev: &Dev,
    be: Backend,
    m: &Module,
    kernel: &str,
    l: &Launch,
    pbuf: u64,
) -> Outcome {
    let (fid, _) = m.function(kernel).expect("kernel");
    let kf: Option<KernelFn> = match &be {
        Backend::Jit(jit) => Some(jit.kernel(fid).expect("compiled kernel")),
        Backend::Interp(_) => None,
    };
    let nthreads = l.block[0] * l.block[1] * l.block[2];
    let nwarps = nthreads.div_ceil(32);
    let mut out = Outcome {
        statuses: vec![],
        fault: None,
        live: vec![],
    };
    let mut shared = vec![];
    let mut locals = vec![];
    for _ in 0..l.grid[0] * l.grid[1] * l.grid[2] {
        shared.push(if l.shared > 0 {
            dev.mem
                .alloc(l.shared, 256, RegionKind::Shared)
                .expect("shared")
        } else {
            0
        });
        let mut lw = vec![];
        for _ in 0..nwarps {
            lw.push(if l.local > 0 {
                dev.mem
                    .alloc(l.local * 32, 256, RegionKind::Local)
                    .expect("local")
            } else {
                0
            });
        }
        locals.push(lw);
    }
    let regions = Arc::new(dev.mem.region_table(false));
    // The per-instruction region cache, shared by the warps of this (one-thread) run.
    let mut inst_cache = vec![[0u64; 2]; m.inst_info.len()];
    let mut cta = 0;
    for z in 0..l.grid[2] {
        for y in 0..l.grid[1] {
            for x in 0..l.grid[0] {
                for w in 0..nwarps {
                    let mut env = WarpEnv::new(regions.clone());
                    let mut ctx = WarpCtx::new(l.block, [x, y, z], l.grid, w);
                    ctx.param_base = pbuf;
                    ctx.shared_base = shared[cta];
                    ctx.shared_size = l.shared;
                    for lane in 0..WARP_SIZE {
                        ctx.local_base[lane] = locals[cta][w as usize] + lane as u64 * l.local;
                    }
                    ctx.local_size = l.local;
                    ctx.inst_cache = inst_cache.as_mut_ptr();
                    ctx.inst_cache_len = inst_cache.len() as u64;
                    ctx.env = &mut env;
                    let st = match (&be, kf) {
                        (_, Some(kf)) => unsafe { kf(&mut ctx) },
                        (Backend::Interp(layout), None) => {
                            ptxjit::interp::run_warp(m, layout, fid, &mut ctx)
                        }
                        _ => unreachable!(),
                    };
                    assert_eq!(st, ctx.status, "returned status is ctx.status");
                    out.statuses.push(st);
                    out.live.push(ctx.live);
                    if st != STATUS_OK && out.fault.is_none() {
                        out.fault = env.fault.clone();
                    }
                }
                cta += 1;
            }
        }
    }
    out
}

/// Compiles a module, panicking with the error text on failure.
pub fn compile(m: &Module, layout: &ModuleLayout) -> JitModule {
    match JitModule::compile(m, layout) {
        Ok(j) => j,
        Err(e) => panic!("{e}"),
    }
}

/// Runs a kernel on the interpreter and on the JIT, in each tier (the quick tier's
/// lowerings differ from the optimized tier's: helper calls instead of inline memory
/// paths and atomics), from the same initial contents of `bufs` (address, length);
/// asserts that statuses, faults, live masks and the final contents agree, and returns
/// the optimized JIT's outcome and final buffer contents.
pub fn run_both(
    dev: &Dev,
    m: &Module,
    layout: &ModuleLayout,
    kernel: &str,
    l: &Launch,
    bufs: &[(u64, usize)],
) -> (Outcome, Vec<Vec<u8>>) {
    let init: Vec<Vec<u8>> = bufs.iter().map(|&(a, n)| dev.read(a, n)).collect();
    let pbuf = param_buffer(dev, l);
    let oi = run_with_params(dev, Backend::Interp(layout), m, kernel, l, pbuf);
    let mi: Vec<Vec<u8>> = bufs.iter().map(|&(a, n)| dev.read(a, n)).collect();
    let mut last = None;
    for tier in [JitTier::Quick, JitTier::Optimized] {
        for (&(a, _), b) in bufs.iter().zip(&init) {
            dev.mem.write(a, b).expect("restore");
        }
        let jit = match JitModule::compile_tier(m, layout, tier) {
            Ok(j) => j,
            Err(e) => panic!("{tier:?}: {e}"),
        };
        let oj = run_with_params(dev, Backend::Jit(&jit), m, kernel, l, pbuf);
        let mj: Vec<Vec<u8>> = bufs.iter().map(|&(a, n)| dev.read(a, n)).collect();
        assert_eq!(
            oj.statuses, oi.statuses,
            "{kernel}: statuses differ (jit {tier:?} vs interp)"
        );
        assert_eq!(
            oj.fault, oi.fault,
            "{kernel}: faults differ (jit {tier:?} vs interp)"
        );
        assert_eq!(
            oj.live, oi.live,
            "{kernel}: live masks differ (jit {tier:?} vs interp)"
        );
        for (i, (x, y)) in mj.iter().zip(&mi).enumerate() {
            if x != y {
                let at = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
                panic!(
                    "{kernel}: buffer {i} differs first at byte {at}: jit {tier:?} {:02x?} interp {:02x?}",
                    &x[at & !7..(at & !7) + 8],
                    &y[at & !7..(at & !7) + 8]
                );
            }
        }
        last = Some((oj, mj));
    }
    match last {
        Some(r) => r,
        None => panic!("{kernel}: no tier ran"),
    }
}
