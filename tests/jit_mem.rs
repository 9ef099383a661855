//! Memory on the JIT: coalesced fast paths (checked with the helper-call counters),
//! strided / partial / vector / local accesses through the helper, shared memory, uniform
//! parameter and variable loads, `cvta`, and faults (misaligned, out of bounds, read-only,
//! outside the shared window). Every kernel also runs on the interpreter.

mod jit_util;

use jit_util::*;
use ptxjit::exec::ctx::FaultKind;
use ptxjit::ir::*;
use ptxjit::jit::helper_calls;
use Operand::{Imm, Reg};

fn container(ty: Type) -> Type {
    match ty {
        Type::S8 | Type::S16 => Type::S32,
        Type::U8 | Type::U16 => Type::U32,
        t => t,
    }
}

/// `for k in 0..4 { out[k*n+t] = in[k*n+t] + 1 }` with element type `ty`.
fn copy_loop(ty: Type) -> Module {
    let size = ty.bytes() as u64;
    let mut k = KB::new("k");
    let pin = k.param("in", Type::U64);
    let pout = k.param("out", Type::U64);
    let bin = k.reg(Type::U64);
    let bout = k.reg(Type::U64);
    k.ld_param(Type::U64, bin, pin);
    k.ld_param(Type::U64, bout, pout);
    let t = k.tid();
    let ntid = k.reg(Type::U32);
    k.mov(Type::U32, ntid, Operand::Special(SpecialReg::Ntid(Dim::X)));
    let i = k.reg(Type::U32);
    k.mov(Type::U32, i, Imm(0));
    let body = k.block();
    let done = k.block();
    k.jump(body);
    k.switch(body);
    let idx = k.reg(Type::U32);
    k.push(InstKind::Arith {
        op: ArithOp::Mad(MulMode::Lo),
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: idx,
        srcs: vec![Reg(i), Reg(ntid), Reg(t)],
    });
    let off = k.reg(Type::U64);
    k.push(InstKind::Arith {
        op: ArithOp::Mul(MulMode::Wide),
        ty: Type::U32,
        fmode: FloatMode::default(),
        dst: off,
        srcs: vec![Reg(idx), Imm(size)],
    });
    let ain = k.reg(Type::U64);
    let aout = k.reg(Type::U64);
    k.op(ArithOp::Add, Type::U64, ain, &[Reg(bin), Reg(off)]);
    k.op(ArithOp::Add, Type::U64, aout, &[Reg(bout), Reg(off)]);
    let v = k.reg(container(ty));
    k.ld(Space::Global, ty, v, ain, 0);
    if ty.is_float() {
        k.opf(
            ArithOp::Add,
            ty,
            FloatMode::default(),
            v,
            &[
                Reg(v),
                Imm(if ty == Type::F32 {
                    0x3f80_0000
                } else {
                    0x3ff0_0000_0000_0000
                }),
            ],
        );
    } else {
        k.op(ArithOp::Add, container(ty), v, &[Reg(v), Imm(1)]);
    }
    k.st(Space::Global, ty, aout, 0, Reg(v));
    k.op(ArithOp::Add, Type::U32, i, &[Reg(i), Imm(1)]);
    let p = k.reg(Type::Pred);
    k.setp(CmpOp::Lt, Type::U32, p, Reg(i), Imm(4));
    k.branch(p, false, body, done);
    k.switch(done);
    k.exit();
    k.finish()
}

fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

#[test]
fn coalesced_loops_use_vector_fast_path() {
    for ty in [
        Type::U8,
        Type::S8,
        Type::U16,
        Type::S16,
        Type::U32,
        Type::S32,
        Type::U64,
        Type::F32,
        Type::F64,
    ] {
        let m = copy_loop(ty);
        let dev = Dev::new();
        let layout = dev.layout(&m);
        let n = 4 * 64 * ty.bytes() as usize;
        let a = dev.alloc(&bytes(n, 3));
        let o = dev.alloc(&bytes(n, 5));
        let l = Launch::threads(64, params_u64(&[a, o]));
        // JIT alone, counting helper calls: no lane-by-lane access at all; the load and
        // the store each look their region up once (the cache is shared by the warps).
        let jit = compile(&m, &layout);
        let before = helper_calls();
        let out = run(&dev, &jit, &m, "k", &l);
        let after = helper_calls();
        assert_eq!(out.statuses, vec![0, 0]);
        assert_eq!(after.access - before.access, 0, "{ty:?}: slow-path calls");
        assert_eq!(after.region - before.region, 2, "{ty:?}: region lookups");
        // Then both backends from the same input.
        dev.mem.write(o, &bytes(n, 5)).unwrap();
        let (_, mem) = run_both(&dev, &m, &layout, "k", &l, &[(o, n)]);
        // Spot-check against a host computation for u32.
        if ty == Type::U32 {
            let inp = bytes(n, 3);
            for e in 0..n / 4 {
                let x =
                    u32::from_le_bytes(inp[4 * e..4 * e + 4].try_into().unwrap()).wrapping_add(1);
                assert_eq!(&mem[0][4 * e..4 * e + 4], &x.to_le_bytes());
            }
        }
    }
}

/// `out[t*stride] = in[t*stride]` under `@(t % guard_mod != 0)` (guard_mod 0: no guard).
fn strided(ty: Type, stride: u64, guard_mod: u64, offset: i64) -> Module {
    let size = ty.bytes() as u64;
    let mut k = KB::new("k");
    let pin = k.param("in", Type::U64);
    let pout = k.param("out", Type::U64);
    let ain = k.elem_addr(pin, size * stride);
    let aout = k.elem_addr(pout, size * stride);
    let v = k.reg(container(ty));
    let t = k.tid();
    let guard = if guard_mod > 0 {
        let r = k.reg(Type::U32);
        k.op(ArithOp::Rem, Type::U32, r, &[Reg(t), Imm(guard_mod)]);
        let p = k.reg(Type::Pred);
        k.setp(CmpOp::Ne, Type::U32, p, Reg(r), Imm(0));
        Some(Guard {
            pred: p,
            negate: false,
        })
    } else {
        None
    };
    k.push_g(
        guard,
        InstKind::Ld {
            space: Space::Global,
            ty,
            dsts: vec![Some(v)],
            addr: Address {
                base: AddrBase::Reg(ain),
                offset,
            },
        },
    );
    k.push_g(
        guard,
        InstKind::St {
            space: Space::Global,
            ty,
            srcs: vec![Reg(v)],
            addr: Address {
                base: AddrBase::Reg(aout),
                offset,
            },
        },
    );
    k.exit();
    k.finish()
}

#[test]
fn strided_and_partial_accesses() {
    for ty in [Type::U8, Type::S16, Type::U32, Type::S32, Type::F64] {
        for (stride, gm) in [(1, 0), (2, 0), (3, 0), (1, 3), (1, 2), (0, 0)] {
            let m = strided(ty, stride, gm, 0);
            let dev = Dev::new();
            let layout = dev.layout(&m);
            let n = 64 * 3 * 8;
            let a = dev.alloc(&bytes(n, 1));
            let o = dev.alloc(&bytes(n, 2));
            let (out, _) = run_both(
                &dev,
                &m,
                &layout,
                "k",
                &Launch::threads(50, params_u64(&[a, o])),
                &[(o, n)],
            );
            assert!(
                out.statuses.iter().all(|&s| s == 0),
                "{ty:?} stride {stride}: {:?}",
                out.statuses
            );
        }
    }
}

#[test]
fn misaligned_access_faults() {
    for ty in [Type::U16, Type::U32, Type::F64] {
        let m = strided(ty, 1, 0, 1);
        let dev = Dev::new();
        let layout = dev.layout(&m);
        let a = dev.alloc(&bytes(1024, 1));
        let o = dev.alloc(&bytes(1024, 2));
        let (out, mem) = run_both(
            &dev,
            &m,
            &layout,
            "k",
            &Launch::threads(32, params_u64(&[a, o])),
            &[(o, 1024)],
        );
        assert_eq!(out.statuses, vec![1]);
        let f = out.fault.expect("fault record");
        assert_eq!(f.kind, FaultKind::Misaligned);
        assert_eq!(f.lane, 0);
        assert_eq!(f.addr, a + 1);
        assert_eq!(mem[0], bytes(1024, 2), "nothing written");
    }
}

#[test]
fn out_of_bounds_store_writes_nothing() {
    // 40 elements (160 bytes), 96 threads. As on a GPU, the allocation is addressable up
    // to its 256-byte granule: threads 40..63 store into its padding; warp 2 faults at
    // lane 0 (thread 64, byte 256), and writes nothing.
    let m = strided(Type::U32, 1, 0, 0);
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let a = dev.alloc(&bytes(96 * 4, 1));
    let o = dev.alloc(&bytes(40 * 4, 2));
    let (out, mem) = run_both(
        &dev,
        &m,
        &layout,
        "k",
        &Launch::threads(96, params_u64(&[a, o])),
        &[(o, 160)],
    );
    assert_eq!(out.statuses, vec![0, 0, 1]);
    let f = out.fault.expect("fault");
    assert_eq!((f.kind, f.lane, f.write), (FaultKind::OutOfBounds, 0, true));
    assert_eq!(f.addr, o + 256);
    assert_eq!(&mem[0][..], &bytes(96 * 4, 1)[..160]);
}

#[test]
fn fault_stops_the_warp() {
    // A faulting load, then a store that must not happen.
    let mut k = KB::new("k");
    let pout = k.param("out", Type::U64);
    let aout = k.elem_addr(pout, 4);
    let v = k.reg(Type::U32);
    let z = k.reg(Type::U64);
    k.mov(Type::U64, z, Imm(8));
    k.ld(Space::Global, Type::U32, v, z, 0);
    k.st(Space::Global, Type::U32, aout, 0, Imm(1));
    k.exit();
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let o = dev.alloc_u32(&[0; 32]);
    let (out, mem) = run_both(
        &dev,
        &m,
        &layout,
        "k",
        &Launch::threads(32, params_u64(&[o])),
        &[(o, 128)],
    );
    assert_eq!(out.statuses, vec![1]);
    assert_eq!(out.fault.unwrap().kind, FaultKind::OutOfBounds);
    assert_eq!(mem[0], vec![0; 128]);
    assert_eq!(out.live, vec![u32::MAX], "a fault does not exit lanes");
}

fn global_var(m: &mut Module, name: &str, space: Space, init: Vec<u8>) -> GlobalId {
    let id = GlobalId(m.globals.len() as u32);
    m.globals.push(GlobalVar {
        name: name.into(),
        space,
        size: init.len() as u64,
        align: 16,
        init,
        relocs: vec![],
        external: false,
        loc: Loc::default(),
    });
    id
}

#[test]
fn uniform_param_and_variable_loads() {
    let mut k = KB::new("k");
    let pout = k.param("out", Type::U64);
    let px = k.param("x", Type::U32);
    let py = k.param("y", Type::F64);
    let g = global_var(&mut k.m, "g", Space::Global, (0..64u8).collect());
    let c = global_var(&mut k.m, "c", Space::Const, (100..164u8).collect());
    let aout = k.elem_addr(pout, 64);
    let x = k.reg(Type::U32);
    k.ld_param(Type::U32, x, px);
    let y = k.reg(Type::F64);
    k.ld_param(Type::F64, y, py);
    let gv = k.reg(Type::U32);
    k.push(InstKind::Ld {
        space: Space::Global,
        ty: Type::U32,
        dsts: vec![Some(gv)],
        addr: Address {
            base: AddrBase::Var(VarRef::Global(g)),
            offset: 8,
        },
    });
    let (c0, c1, c2, c3) = (
        k.reg(Type::U16),
        k.reg(Type::U16),
        k.reg(Type::U16),
        k.reg(Type::U16),
    );
    k.push(InstKind::Ld {
        space: Space::Const,
        ty: Type::U16,
        dsts: vec![Some(c0), Some(c1), None, Some(c3)],
        addr: Address {
            base: AddrBase::Var(VarRef::Global(c)),
            offset: 16,
        },
    });
    let _ = c2;
    let s8 = k.reg(Type::S32);
    k.push(InstKind::Ld {
        space: Space::Const,
        ty: Type::S8,
        dsts: vec![Some(s8)],
        addr: Address {
            base: AddrBase::Var(VarRef::Global(c)),
            offset: 60,
        },
    });
    // Out of the variable: must take the checked path (and fault identically).
    k.st(Space::Global, Type::U32, aout, 0, Reg(x));
    k.st(Space::Global, Type::F64, aout, 8, Reg(y));
    k.st(Space::Global, Type::U32, aout, 16, Reg(gv));
    k.st(Space::Global, Type::U16, aout, 20, Reg(c0));
    k.st(Space::Global, Type::U16, aout, 22, Reg(c1));
    k.st(Space::Global, Type::U16, aout, 24, Reg(c3));
    k.st(Space::Global, Type::U32, aout, 28, Reg(s8));
    k.exit();
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let o = dev.alloc(&[0; 64 * 40]);
    let mut params = params_u64(&[o]);
    params.extend_from_slice(&77u32.to_le_bytes());
    params.extend_from_slice(&[0; 4]);
    params.extend_from_slice(&2.5f64.to_le_bytes());
    let (out, mem) = run_both(
        &dev,
        &m,
        &layout,
        "k",
        &Launch::threads(40, params),
        &[(o, 64 * 40)],
    );
    assert_eq!(out.statuses, vec![0, 0]);
    let r = &mem[0][64 * 7..64 * 7 + 32];
    assert_eq!(u32::from_le_bytes(r[0..4].try_into().unwrap()), 77);
    assert_eq!(f64::from_le_bytes(r[8..16].try_into().unwrap()), 2.5);
    assert_eq!(&r[16..20], &[8, 9, 10, 11]);
    assert_eq!(&r[20..26], &[116, 117, 118, 119, 122, 123]);
    assert_eq!(
        i32::from_le_bytes(r[28..32].try_into().unwrap()),
        (160u8 as i8) as i32
    );
}

#[test]
fn stores_to_read_only_memory_fault() {
    for space in [Space::Global, Space::Param] {
        let mut k = KB::new("k");
        let _ = k.param("x", Type::U64);
        let c = global_var(&mut k.m, "c", Space::Const, vec![0; 16]);
        let base = match space {
            Space::Global => AddrBase::Var(VarRef::Global(c)),
            _ => AddrBase::Var(VarRef::KernelParam(0)),
        };
        k.push(InstKind::St {
            space,
            ty: Type::U32,
            srcs: vec![Imm(1)],
            addr: Address { base, offset: 4 },
        });
        k.exit();
        let m = k.finish();
        let dev = Dev::new();
        let layout = dev.layout(&m);
        let (out, _) = run_both(
            &dev,
            &m,
            &layout,
            "k",
            &Launch::threads(32, params_u64(&[0])),
            &[],
        );
        assert_eq!(out.statuses, vec![1]);
        assert_eq!(out.fault.unwrap().kind, FaultKind::ReadOnly);
    }
}

#[test]
fn shared_memory_fast_and_slow_paths() {
    // s[t] = t*t (32-bit shared address, coalesced); r = s[(n-1-t)] (reversed: helper);
    // out[t] = r; then a store past the window faults.
    let mut k = KB::new("k");
    let pout = k.param("out", Type::U64);
    let aout = k.elem_addr(pout, 4);
    let t = k.tid();
    let sa = k.reg(Type::U32);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, sa, &[Reg(t), Imm(4)]);
    let sq = k.reg(Type::U32);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, sq, &[Reg(t), Reg(t)]);
    k.push(InstKind::St {
        space: Space::Shared,
        ty: Type::U32,
        srcs: vec![Reg(sq)],
        addr: Address {
            base: AddrBase::Reg(sa),
            offset: 16,
        },
    });
    let ra = k.reg(Type::U32);
    k.op(ArithOp::Sub, Type::U32, ra, &[Imm(31 * 4), Reg(sa)]);
    let r = k.reg(Type::U32);
    k.push(InstKind::Ld {
        space: Space::Shared,
        ty: Type::U32,
        dsts: vec![Some(r)],
        addr: Address {
            base: AddrBase::Reg(ra),
            offset: 16,
        },
    });
    k.st(Space::Global, Type::U32, aout, 0, Reg(r));
    // Generic access to the same shared word through cvta.
    let g = k.reg(Type::U64);
    k.push(InstKind::Cvta {
        to_generic: true,
        space: Space::Shared,
        ty: Type::U64,
        dst: g,
        src: Operand::VarAddr(VarRef::Shared(16), 0),
    });
    let w = k.reg(Type::U32);
    k.push(InstKind::Ld {
        space: Space::Generic,
        ty: Type::U32,
        dsts: vec![Some(w)],
        addr: Address {
            base: AddrBase::Reg(g),
            offset: 8,
        },
    });
    k.st(Space::Global, Type::U32, aout, 128, Reg(w));
    let back = k.reg(Type::U32);
    k.push(InstKind::Cvta {
        to_generic: false,
        space: Space::Shared,
        ty: Type::U32,
        dst: back,
        src: Reg(g),
    });
    k.st(Space::Global, Type::U32, aout, 256, Reg(back));
    k.push(InstKind::St {
        space: Space::Shared,
        ty: Type::U32,
        srcs: vec![Imm(5)],
        addr: Address {
            base: AddrBase::Reg(sa),
            offset: 4096 - 64,
        },
    });
    k.exit();
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let o = dev.alloc(&[0; 512]);
    let mut l = Launch::threads(32, params_u64(&[o]));
    l.shared = 4096;
    let (out, mem) = run_both(&dev, &m, &layout, "k", &l, &[(o, 512)]);
    assert_eq!(out.statuses, vec![1]);
    let f = out.fault.unwrap();
    assert_eq!(
        (f.kind, f.lane, f.addr),
        (FaultKind::OutsideWindow, 16, 4096)
    );
    let word = |i: usize| u32::from_le_bytes(mem[0][4 * i..4 * i + 4].try_into().unwrap());
    for t in 0..32u32 {
        assert_eq!(word(t as usize), (31 - t) * (31 - t));
        assert_eq!(word(32 + t as usize), 4);
        assert_eq!(word(64 + t as usize), 16);
    }
}

#[test]
fn local_memory_and_vectors() {
    // st.local.v2.u32 [8], {t, t+1}; ld.local.v2 back; cvta.local to generic and read
    // again; st.global.v4 / ld.global.v4 of consecutive 16-byte chunks.
    let mut k = KB::new("k");
    let pout = k.param("out", Type::U64);
    let aout = k.elem_addr(pout, 16);
    let t = k.tid();
    let t1 = k.reg(Type::U32);
    k.op(ArithOp::Add, Type::U32, t1, &[Reg(t), Imm(1)]);
    k.push(InstKind::St {
        space: Space::Local,
        ty: Type::U32,
        srcs: vec![Reg(t), Reg(t1)],
        addr: Address {
            base: AddrBase::Var(VarRef::Local(8)),
            offset: 0,
        },
    });
    let (x, y) = (k.reg(Type::U32), k.reg(Type::U32));
    k.push(InstKind::Ld {
        space: Space::Local,
        ty: Type::U32,
        dsts: vec![Some(x), Some(y)],
        addr: Address {
            base: AddrBase::Var(VarRef::Local(8)),
            offset: 0,
        },
    });
    let g = k.reg(Type::U64);
    k.push(InstKind::Cvta {
        to_generic: true,
        space: Space::Local,
        ty: Type::U64,
        dst: g,
        src: Operand::VarAddr(VarRef::Local(8), 4),
    });
    let z = k.reg(Type::U32);
    k.push(InstKind::Ld {
        space: Space::Generic,
        ty: Type::U32,
        dsts: vec![Some(z)],
        addr: Address {
            base: AddrBase::Reg(g),
            offset: 0,
        },
    });
    let w = k.reg(Type::U32);
    k.op(ArithOp::Mul(MulMode::Lo), Type::U32, w, &[Reg(z), Imm(3)]);
    k.push(InstKind::St {
        space: Space::Global,
        ty: Type::U32,
        srcs: vec![Reg(x), Reg(y), Reg(z), Reg(w)],
        addr: Address {
            base: AddrBase::Reg(aout),
            offset: 0,
        },
    });
    let v: Vec<RegId> = (0..4).map(|_| k.reg(Type::U32)).collect();
    k.push(InstKind::Ld {
        space: Space::Global,
        ty: Type::U32,
        dsts: v.iter().map(|&r| Some(r)).collect(),
        addr: Address {
            base: AddrBase::Reg(aout),
            offset: 0,
        },
    });
    k.push(InstKind::St {
        space: Space::Global,
        ty: Type::U16,
        srcs: v.iter().map(|&r| Reg(r)).collect(),
        addr: Address {
            base: AddrBase::Reg(aout),
            offset: 16 * 32,
        },
    });
    k.exit();
    let m = k.finish();
    let dev = Dev::new();
    let layout = dev.layout(&m);
    let o = dev.alloc(&[0; 2048]);
    let mut l = Launch::threads(32, params_u64(&[o]));
    l.local = 64;
    let (out, mem) = run_both(&dev, &m, &layout, "k", &l, &[(o, 2048)]);
    assert_eq!(out.statuses, vec![0]);
    for t in 0..32u32 {
        let q: Vec<u32> = mem[0][16 * t as usize..16 * t as usize + 16]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(q, vec![t, t + 1, t + 1, 3 * (t + 1)]);
    }
}

#[test]
fn loads_extend_per_type_into_wider_registers() {
    for (ty, reg) in [
        (Type::S8, Type::S32),
        (Type::S16, Type::S64),
        (Type::U8, Type::U16),
        (Type::S8, Type::B16),
        (Type::U32, Type::U64),
        (Type::S32, Type::S64),
        (Type::B8, Type::B32),
    ] {
        let mut k = KB::new("k");
        let pin = k.param("in", Type::U64);
        let pout = k.param("out", Type::U64);
        let ain = k.elem_addr(pin, ty.bytes() as u64);
        let aout = k.elem_addr(pout, 8);
        let v = k.reg(reg);
        k.ld(Space::Global, ty, v, ain, 0);
        let wide = k.reg(Type::B64);
        k.push(InstKind::Cvt {
            dst_ty: Type::U64,
            src_ty: if reg.bits() == 64 {
                Type::U64
            } else {
                Type::U32
            },
            rnd: None,
            ftz: false,
            sat: false,
            dst: wide,
            src: Reg(v),
        });
        k.st(Space::Global, Type::B64, aout, 0, Reg(wide));
        k.exit();
        let m = k.finish();
        let dev = Dev::new();
        let layout = dev.layout(&m);
        let a = dev.alloc(&bytes(256, 0x7b));
        let o = dev.alloc(&[0; 512]);
        run_both(
            &dev,
            &m,
            &layout,
            "k",
            &Launch::threads(64, params_u64(&[a, o])),
            &[(o, 512)],
        );
    }
}
