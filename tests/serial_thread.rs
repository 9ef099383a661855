//! Loops the JIT runs lane by lane with threaded dispatch and local accesses checked
//! once per lane (`src/jit/control/serial/thread.rs`, `serial/local.rs`), JIT (both
//! tiers) against the interpreter: a `brx.idx` over eight targets on random programs
//! (a target with its own loop, a target that continues into another target or not
//! (then the `brx.idx` block's address computations move into the targets), a target
//! that halts, nested divergence inside a target), full and partial warps; the same
//! kernel with a mask too wide for the window (the lane's start check fails, the
//! warp-wide form runs), where a thread that overruns its window faults naming the
//! same thread and instruction on both backends; latches that branch on an `and.pred`
//! or `or.pred` (`serial/branch.rs`).
#[allow(unused_macros)]
mod common;
use common::*;

/// The kernel: a stack machine over an 8-word local stack at `depot + ((sp<<2) & MASK)`.
/// `fall`: target 3 continues into target 4 (which then has two predecessors, and the
/// `brx.idx` block's address computations stay in it); else it has its own copy.
/// `latch`: how the loop's latch tests `pc < len && steps < max`: 0: `and.pred` into
/// one of its sources; 1: `and.pred` into another predicate; 2: `or.pred` of the
/// negations, under a negated guard (1 and 2 branch on each source: `serial/branch.rs`).
fn ptx(mask: u32, depot: u32, fall: bool, latch: u8) -> String {
    let latch = match latch {
        0 => {
            "setp.lt.u32 %p6, %r12, %r20;\n\tsetp.lt.u32 %p7, %r13, %r22;\n\t\
              and.pred %p6, %p6, %p7;\n\t@%p6 bra HEAD;"
        }
        1 => {
            "setp.lt.u32 %p6, %r12, %r20;\n\tsetp.lt.u32 %p7, %r13, %r22;\n\t\
              and.pred %p0, %p6, %p7;\n\t@%p0 bra HEAD;"
        }
        _ => {
            "setp.ge.u32 %p6, %r12, %r20;\n\tsetp.ge.u32 %p7, %r13, %r22;\n\t\
              or.pred %p0, %p6, %p7;\n\t@!%p0 bra HEAD;"
        }
    };
    let t3_end = if fall {
        "bra.uni T4;"
    } else {
        "add.s32 %r11, %r11, -1;\n\tbra.uni LATCH;"
    };
    format!(
        r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry thread_ops(
	.param .u64 p_code, .param .u32 p_len, .param .u64 p_in, .param .u64 p_out,
	.param .u32 p_n, .param .u32 p_steps)
{{
	.local .align 8 .b8 depot[{depot}];
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<30>;

	ld.param.u64 %rd20, [p_code];
	ld.param.u32 %r20, [p_len];
	ld.param.u64 %rd21, [p_in];
	ld.param.u64 %rd22, [p_out];
	ld.param.u32 %r21, [p_n];
	ld.param.u32 %r22, [p_steps];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	setp.ge.u32 %p1, %r4, %r21;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd23, %rd21;
	mul.wide.u32 %rd24, %r4, 4;
	add.s64 %rd25, %rd23, %rd24;
	ld.global.u32 %r10, [%rd25];
	mov.u64 %rd1, depot;
	mov.u32 %r5, 0;
	st.local.u32 [%rd1], %r5;
	st.local.u32 [%rd1+4], %r5;
	st.local.u32 [%rd1+8], %r5;
	st.local.u32 [%rd1+12], %r5;
	cvta.to.global.u64 %rd2, %rd20;
	mov.u32 %r11, 0;
	mov.u32 %r12, 0;
	mov.u32 %r13, 0;
	setp.eq.u32 %p2, %r20, 0;
	@%p2 bra OUT;
HEAD:
	mul.wide.u32 %rd3, %r12, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r14, [%rd4];
	add.s32 %r15, %r12, 1;
	shl.b32 %r16, %r11, 2;
	cvt.u64.u32 %rd5, %r16;
	and.b64 %rd6, %rd5, {mask};
	add.s64 %rd7, %rd1, %rd6;
	add.s32 %r17, %r16, -4;
	cvt.u64.u32 %rd8, %r17;
	and.b64 %rd9, %rd8, {mask};
	add.s64 %rd10, %rd1, %rd9;
	shr.u32 %r18, %r14, 8;
	and.b32 %r19, %r14, 7;
	ts: .branchtargets T0, T1, T2, T3, T4, T5, T6, T7;
	brx.idx %r19, ts;
T0:
	xor.b32 %r23, %r18, %r10;
	st.local.u32 [%rd7], %r23;
	add.s32 %r11, %r11, 1;
	bra.uni LATCH;
T1:
	ld.local.u32 %r24, [%rd10];
	add.s32 %r10, %r10, %r24;
	bra.uni LATCH;
T2:
	and.b32 %r25, %r18, 7;
	add.s32 %r25, %r25, 1;
INNER:
	mad.lo.s32 %r10, %r10, 3, 1;
	add.s32 %r25, %r25, -1;
	setp.ne.s32 %p3, %r25, 0;
	@%p3 bra INNER;
	bra.uni LATCH;
T3:
	xor.b32 %r10, %r10, 85;
	{t3_end}
T4:
	add.s32 %r11, %r11, -1;
	bra.uni LATCH;
T5:
	and.b32 %r26, %r10, 1;
	setp.ne.u32 %p4, %r26, 0;
	selp.b32 %r15, %r18, %r15, %p4;
	bra.uni LATCH;
T6:
	mov.u32 %r15, %r20;
	bra.uni LATCH;
T7:
	and.b32 %r27, %r10, 2;
	setp.eq.u32 %p5, %r27, 0;
	@%p5 bra M1;
	add.s32 %r10, %r10, %r18;
	bra.uni LATCH;
M1:
	sub.s32 %r10, %r10, %r18;
	bra.uni LATCH;
LATCH:
	mov.u32 %r12, %r15;
	add.s32 %r13, %r13, 1;
	{latch}
OUT:
	ld.local.u32 %r28, [%rd1];
	ld.local.u32 %r29, [%rd1+12];
	xor.b32 %r30, %r10, %r28;
	mad.lo.s32 %r30, %r13, -1640531527, %r30;
	mad.lo.s32 %r30, %r11, 65599, %r30;
	add.s32 %r30, %r30, %r29;
	cvta.to.global.u64 %rd26, %rd22;
	add.s64 %rd27, %rd26, %rd24;
	st.global.u32 [%rd27], %r30;
DONE:
	ret;
}}
"#
    )
}

/// A random program of `len` words: opcodes 0..7 (`weights`: how often a push, which
/// grows the stack), jump targets anywhere (past the end too).
fn program(rng: &mut Rng, len: u32, pushes: u32) -> Vec<u32> {
    (0..len)
        .map(|_| {
            let op = if rng.range(0, 16) < pushes {
                0
            } else {
                rng.range(1, 8)
            };
            let imm = if op == 5 {
                rng.range(0, len + 2)
            } else {
                rng.range(0, 40)
            };
            op | (imm << 8)
        })
        .collect()
}

/// Runs `thread_ops` built with `mask`/`depot` on `backend` (`tier` for the JIT).
fn run(
    src: &str,
    backend: Backend,
    tier: ptxjit::jit::JitTier,
    code: &[u32],
    input: &[u32],
    block: u32,
    steps: u32,
) -> (Result<(), ptxjit::Error>, Vec<u32>) {
    let dev = device_tier(tier);
    let m = match backend {
        Backend::Jit => dev.load_ptx(src, "serial_thread.ptx"),
        Backend::Interp => dev.load_ptx_with(src, "serial_thread.ptx", false),
    }
    .unwrap_or_else(|e| panic!("load {backend:?}: {e}"));
    let n = input.len() as u32;
    let bcode = dev.alloc_from(code).unwrap();
    let bin = dev.alloc_from(input).unwrap();
    let out = zeroed(&dev, n as usize * 4);
    let r = dev.launch(
        &m,
        "thread_ops",
        &cfg([n.div_ceil(block), 1, 1], [block, 1, 1], backend),
        &[
            arg(&bcode),
            KernelArg::U32(code.len() as u32),
            arg(&bin),
            arg(&out),
            KernelArg::U32(n),
            KernelArg::U32(steps),
        ],
    );
    (r, dev.read::<u32>(&out).unwrap())
}

fn same_as_interp(mask: u32, depot: u32, fall: bool, latch: u8, seed: u64) {
    let src = ptx(mask, depot, fall, latch);
    let mut rng = Rng::new(seed);
    for (round, (n, block, steps)) in [(64u32, 32u32, 300u32), (100, 64, 200), (33, 32, 500)]
        .into_iter()
        .enumerate()
    {
        let len = rng.range(4, 40);
        let code = program(&mut rng, len, 4);
        let input = rng.vec_u32(n as usize);
        let (ri, want) = run(
            &src,
            Backend::Interp,
            JitTier::Quick,
            &code,
            &input,
            block,
            steps,
        );
        ri.unwrap_or_else(|e| panic!("interp round {round}: {e}"));
        for &tier in tiers(Backend::Jit) {
            let (r, got) = run(&src, Backend::Jit, tier, &code, &input, block, steps);
            r.unwrap_or_else(|e| panic!("jit {tier:?} round {round}: {e}"));
            assert_slice_eq(
                &got,
                &want,
                &format!("mask {mask} fall {fall} latch {latch} round {round} n={n} {tier:?}"),
            );
        }
    }
}

use ptxjit::jit::JitTier;

#[test]
fn threaded_in_window() {
    // The stack's 8 words fit the 32-byte depot: no lane-start check fails.
    for seed in [1, 2, 3] {
        same_as_interp(28, 32, true, 0, seed);
        same_as_interp(28, 32, false, 0, seed);
    }
}

#[test]
fn threaded_latch_branch_per_predicate() {
    // The latch's `and.pred`/`or.pred` into a predicate of its own: one branch per
    // source (`serial/branch.rs`); steps and lengths end the loops either way.
    for seed in [4, 5] {
        for latch in [1, 2] {
            same_as_interp(28, 32, true, latch, seed);
            same_as_interp(28, 32, false, latch, seed);
        }
    }
}

#[test]
fn window_too_small_for_mask() {
    // `(sp << 2) & 60` can reach byte 60 of a 16-byte depot: programs that keep the
    // stack within 4 words run (warp-wide) like the interpreter; one that grows it
    // faults alike on both backends.
    let src = ptx(60, 16, false, 1);
    // push 5, push 9, add, drop, loop 4 times, add/sub 1, drop: the stack stays at words
    // 0 and 1 (bytes 0..8; the address of the word below, not accessed, is masked too).
    let code = [5 << 8, 9 << 8, 1, 4, 3 << 8 | 2, 1 << 8 | 7, 4];
    let input: Vec<u32> = (0..64).map(|k| k * 77 + 5).collect();
    let (ri, want) = run(
        &src,
        Backend::Interp,
        JitTier::Quick,
        &code,
        &input,
        32,
        100,
    );
    ri.unwrap_or_else(|e| panic!("interp: {e}"));
    for &tier in tiers(Backend::Jit) {
        let (r, got) = run(&src, Backend::Jit, tier, &code, &input, 32, 100);
        r.unwrap_or_else(|e| panic!("jit {tier:?}: {e}"));
        assert_slice_eq(&got, &want, &format!("small window {tier:?}"));
    }
    // Pushes only: the stack overruns the depot.
    let code = [5 << 8; 15];
    let (ri, _) = run(
        &src,
        Backend::Interp,
        JitTier::Quick,
        &code,
        &input,
        32,
        100,
    );
    for &tier in tiers(Backend::Jit) {
        let (r, _) = run(&src, Backend::Jit, tier, &code, &input, 32, 100);
        match (&r, &ri) {
            (Err(ptxjit::Error::Fault(f)), Err(ptxjit::Error::Fault(fi))) => {
                let key = |f: &ptxjit::Fault| (f.line, f.inst.clone(), f.block, f.thread, f.kind);
                assert_eq!(key(f), key(fi), "{tier:?}: {f} / {fi}");
            }
            _ => panic!("{tier:?}: expected faults, got {r:?} / {ri:?}"),
        }
    }
}
