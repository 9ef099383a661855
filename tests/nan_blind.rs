//! Registers whose NaN bits no instruction observes (`ir::analysis::nan`): the set on
//! hand-built IR, and a kernel (`tests/ptx/nan_blind.ptx`, ptxas-validated for sm_70)
//! whose NaN temporaries feed float operations, a merge under a divergent branch and
//! stores, on both backends, bit for bit against a Rust reference of the GPU rules:
//! an f32/f64 arithmetic NaN result is the canonical NaN `0x7fffffff`
//! (`0x7fffffffffffffff`), `min` returns the non-NaN operand, f32 `neg` of a NaN is the
//! canonical NaN, f64 `neg` of a NaN sets its quiet bit and keeps its sign.

#[macro_use]
mod common;
use common::*;

use ptxjit::ir::analysis::nan::nan_blind;
use ptxjit::ir::{
    ArithOp, Block, CmpOp, FloatMode, FuncKind, Function, Guard, Inst, InstId, InstKind, Operand,
    PerfDirectives, RegId, RegInfo, Terminator, Type,
};

fn inst(kind: InstKind) -> Inst {
    Inst {
        guard: None,
        kind,
        id: InstId(0),
    }
}

fn func(tys: &[Type], insts: Vec<Inst>) -> Function {
    Function {
        name: "k".into(),
        kind: FuncKind::Entry,
        linkage: Default::default(),
        params: vec![],
        rets: vec![],
        param_size: 0,
        regs: tys
            .iter()
            .enumerate()
            .map(|(k, t)| RegInfo {
                name: format!("%r{k}"),
                ty: *t,
            })
            .collect(),
        blocks: vec![Block {
            label: None,
            insts,
            term: Terminator::Exit {
                guard: None,
                next: None,
                inst: InstId(0),
            },
        }]
        .into(),
        local_size: 0,
        local_align: 1,
        perf: PerfDirectives::default(),
        loc: Default::default(),
    }
}

fn arith(op: ArithOp, ty: Type, dst: u32, srcs: &[u32]) -> Inst {
    inst(InstKind::Arith {
        op,
        ty,
        fmode: FloatMode::default(),
        dst: RegId(dst),
        srcs: srcs.iter().map(|&r| Operand::Reg(RegId(r))).collect(),
    })
}

#[test]
fn float_operands_are_blind_and_other_reads_observe() {
    use Type::*;
    // r0..r3 f32, r4 f64, r5 pred, r6 b32.
    let tys = [F32, F32, F32, F32, F64, Pred, B32];
    let mut setp = inst(InstKind::Setp {
        cmp: CmpOp::Lt,
        ty: F32,
        ftz: false,
        dst: Some(RegId(5)),
        dst_neg: None,
        a: Operand::Reg(RegId(2)),
        b: Operand::Reg(RegId(0)),
        combine: None,
    });
    setp.guard = Some(Guard {
        pred: RegId(5),
        negate: false,
    });
    let f = func(
        &tys,
        vec![
            // r2 = r0 + r1; r3 = fma(r2, r2, r1); r0 = -r3 (f32 neg reads blind).
            arith(ArithOp::Add, F32, 2, &[0, 1]),
            arith(ArithOp::Fma, F32, 3, &[2, 2, 1]),
            arith(ArithOp::Neg, F32, 0, &[3]),
            setp,
            // f64 neg passes the NaN through: it observes r4.
            arith(ArithOp::Neg, F64, 4, &[4]),
            // A move observes r1.
            inst(InstKind::Mov {
                ty: B32,
                dst: RegId(6),
                src: Operand::Reg(RegId(1)),
            }),
        ],
    );
    let s = nan_blind(&f);
    let got: Vec<bool> = (0..tys.len())
        .map(|r| s.contains(RegId(r as u32)))
        .collect();
    // r0, r2, r3: read by float operations only; r1 moved; r4 read by f64 neg; r5 a
    // guard; r6 never read (blind, trivially).
    assert_eq!(got, [true, false, true, true, false, false, true]);
}

const SRC: &str = include_str!("ptx/nan_blind.ptx");
const CANON32: u32 = 0x7fff_ffff;
const CANON64: u64 = 0x7fff_ffff_ffff_ffff;

const IN32: [u32; 8] = [
    0x3fc0_0000, // 1.5
    0x8000_0000, // -0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0001, // quiet NaN with a payload
    0xff80_0001, // negative signalling NaN
    0x7f7f_ffff, // largest finite
    0x0000_0001, // smallest subnormal
];
const IN64: [u64; 8] = [
    0x3ff8_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0001,
    0xfff0_0000_0000_0001,
    0x7fef_ffff_ffff_ffff,
    0x0000_0000_0000_0001,
];

/// The reference of one thread: 5 words, the f32 of `%f10`, then 2 f64.
fn want(lane: usize) -> (Vec<u32>, Vec<u64>) {
    let x = f32::from_bits(IN32[lane % 8]);
    let nan = !x.is_finite(); // x - x is a NaN
    let w = if nan {
        // add: canonical; min: the number 2.0; neg: canonical; setp.nan: 1;
        // fma of NaNs: canonical.
        vec![CANON32, 0x4000_0000, CANON32, CANON32, 1]
    } else {
        // x - x = +0: 0 + 1 = 1, min(+0, 2) = +0, -(+0) = -0, sqrt(0*0)^2 + 0 = +0.
        vec![0x3f80_0000, 0, 0x8000_0000, 0, 0]
    };
    let mut w = w;
    // %f10: 1.0 in lanes < 16, else (x - x) * 3 + 0.
    w.push(if lane < 16 {
        0x3f80_0000
    } else if nan {
        CANON32
    } else {
        0
    });
    let y = f64::from_bits(IN64[lane % 8]);
    let d = if !y.is_finite() {
        // (y - y) + 1 is the canonical NaN; neg.f64 keeps it (quiet bit already set).
        vec![CANON64, CANON64]
    } else {
        vec![1.0f64.to_bits(), (-1.0f64).to_bits()]
    };
    (w, d)
}

fn nan_chain(backend: Backend) {
    let dev = device();
    let m = match backend {
        Backend::Jit => dev.load_ptx(SRC, "nan_blind.ptx"),
        Backend::Interp => dev.load_ptx_with(SRC, "nan_blind.ptx", false),
    }
    .unwrap_or_else(|e| panic!("{backend:?}: {e}"));
    let a: Vec<u32> = (0..32).map(|l| IN32[l % 8]).collect();
    let b: Vec<u64> = (0..32).map(|l| IN64[l % 8]).collect();
    let ba = dev.alloc_from(&a).unwrap();
    let bb = dev.alloc_from(&b).unwrap();
    let o = zeroed(&dev, 32 * 48);
    launch(
        &dev,
        &m,
        "nan_chain",
        &cfg([1, 1, 1], [32, 1, 1], backend),
        &[arg(&ba), arg(&bb), arg(&o)],
        "nan_chain",
    );
    let got: Vec<u32> = dev.read(&o).unwrap();
    for lane in 0..32 {
        let g = &got[12 * lane..12 * lane + 12];
        let (w32, w64) = want(lane);
        let g64 = [
            g[6] as u64 | (g[7] as u64) << 32,
            g[8] as u64 | (g[9] as u64) << 32,
        ];
        assert_eq!(&g[..6], &w32[..], "{backend:?} lane {lane}: f32 words");
        assert_eq!(&g64[..], &w64[..], "{backend:?} lane {lane}: f64 words");
    }
}

both_backends!(nan_chain);

/// `nan_acc` (tests/ptx/nan_blind.ptx): the accumulator and its copy are in the lazy
/// set, and the stored bits are the GPU's (Rust reference: `mul_add` per step, a NaN
/// stored as the canonical NaN) for a = +inf (thread 0: NaN), 2.5 and -0.0.
fn nan_acc(backend: Backend) {
    let dev = device();
    let m = dev.load_ptx(SRC, "nan_blind.ptx").unwrap();
    let ir = ptxjit::check::parse_and_check(SRC, "nan_blind.ptx").unwrap();
    let k = ir.functions.iter().find(|f| f.name == "nan_acc").unwrap();
    let lazy = ptxjit::ir::analysis::nan::nan_lazy(k);
    let mut got: Vec<String> = (k.regs.ids())
        .filter(|&r| lazy.contains(r))
        .map(|r| k.regs[r].name.clone())
        .collect();
    got.sort();
    // %f1 (a parameter load) and %f2 (a conversion) are not canonical-valued; %f0 and
    // %f5 are declared and never used.
    assert_eq!(got, ["%f0", "%f3", "%f4", "%f5"]);
    for (a, n) in [(f32::INFINITY, 3u32), (2.5, 4), (-0.0, 1), (1.0, 0)] {
        let out = zeroed(&dev, 64 * 8);
        let cfg = LaunchConfig::new(1, 64).backend(backend);
        dev.launch(&m, "nan_acc", &cfg, &[arg(&out), a.into(), n.into()])
            .unwrap();
        let got: Vec<u32> = dev.read(&out).unwrap();
        for t in 0..64usize {
            let x = t as f32;
            let mut acc = 0.0f32;
            for _ in 0..n {
                acc = x.mul_add(a, acc);
            }
            let w = if acc.is_nan() { CANON32 } else { acc.to_bits() };
            assert_eq!(
                got[2 * t..2 * t + 2],
                [w, w],
                "{backend:?} a={a} n={n} thread {t}"
            );
        }
    }
}

both_backends!(nan_acc);
