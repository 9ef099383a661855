//! Random control flow, differentially: a seeded generator writes random PTX kernels
//! (unstructured CFGs with forward and backward `bra`, counted loops with per-lane trip
//! counts, guarded branches, `brx.idx` with
//! in-range per-lane indices, guarded and unguarded `exit`/`ret` under divergence,
//! guarded u32 arithmetic, `setp` with BoolOps, `selp`), runs each on the JIT and on the
//! interpreter, and checks both against a per-thread Rust simulation of the same
//! program. Without barriers or warp operations each thread's final output does not
//! depend on the schedule, so simulating the threads one by one is an oracle.
//!
//! Termination: every block starts by decrementing a per-thread fuel register (initially
//! 8..23, from the thread's data) and jumps to `END` when it runs out, so every loop,
//! structured or not, is bounded.
//!
//! Each thread writes a row of 10 words: r0..r6, the path hash r7 (updated in every
//! block), and a marker (0xE0D at `END`, 0x100 + block at an `exit`/`ret` site; rows of
//! threads that never store stay 0).
#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use std::fmt::Write as _;

const ROW: usize = 10;
const NDATA: usize = 7;

#[derive(Clone, Copy, Debug)]
enum Src {
    Reg(usize),
    Imm(u32),
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug)]
enum Bop {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug)]
enum AOp {
    Add,
    Sub,
    Xor,
    And,
    Or,
    Mul,
    Shl,
    Shr,
}

#[derive(Clone, Copy, Debug)]
struct G {
    p: usize,
    neg: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Arith(AOp, usize, usize, Src),
    /// setp.cmp.(s32 if signed else u32) p, a, b {, bop {!}c}
    Setp(Cmp, bool, usize, usize, Src, Option<(Bop, G)>),
    Selp(usize, usize, usize, G),
    /// `d = mix(a, b)` through a call of the `.func mix` (divergent inside: see `MIX`).
    Call(usize, usize, usize),
}

/// A device function with a divergent branch, called under random guards:
/// mix(x, y) = (x + y) << 1 if x < y, else (x ^ y) * 3.
const MIX: &str = ".func (.param .b32 mix_r) mix(.param .b32 mix_x, .param .b32 mix_y)
{
\t.reg .pred %q;
\t.reg .b32 %x, %y, %z;
\tld.param.b32 %x, [mix_x];
\tld.param.b32 %y, [mix_y];
\tsetp.lt.u32 %q, %x, %y;
\t@%q bra MIX_LT;
\txor.b32 %z, %x, %y;
\tmul.lo.u32 %z, %z, 3;
\tbra.uni MIX_END;
MIX_LT:
\tadd.u32 %z, %x, %y;
\tshl.b32 %z, %z, 1;
MIX_END:
\tst.param.b32 [mix_r], %z;
\tret;
}

";

fn mix(x: u32, y: u32) -> u32 {
    if x < y {
        x.wrapping_add(y) << 1
    } else {
        (x ^ y).wrapping_mul(3)
    }
}

#[derive(Clone, Debug)]
enum Term {
    Fall,
    Bra(Option<G>, usize),
    Brx(Option<G>, usize, Vec<usize>),
    Exit(Option<G>, bool),
    /// A counted loop back to block `head` (<= this block): this block's own counter
    /// (never reset) runs 1..4 times per lane: the trip count is `((r1 >> shift) & 3) + 1`
    /// with r1 as it is at the end of the block.
    Back(usize, u32),
}

#[derive(Clone, Debug)]
struct Block {
    ops: Vec<(Option<G>, Op)>,
    term: Term,
}

struct Prog {
    blocks: Vec<Block>,
    consts: [u32; 4],
}

fn gen(rng: &mut Rng) -> Prog {
    let n = rng.range(2, 9) as usize;
    let guard = |rng: &mut Rng| G {
        p: rng.range(0, 4) as usize,
        neg: rng.range(0, 2) == 1,
    };
    let opt_guard = |rng: &mut Rng, pct: u32| (rng.range(0, 100) < pct).then(|| guard(rng));
    let src = |rng: &mut Rng| {
        if rng.range(0, 3) == 0 {
            Src::Imm(match rng.range(0, 3) {
                0 => rng.range(0, 16),
                1 => rng.u32(),
                _ => rng.range(0, 64),
            })
        } else {
            Src::Reg(rng.range(0, NDATA as u32) as usize)
        }
    };
    let mut blocks = Vec::new();
    for _ in 0..n {
        let mut ops = Vec::new();
        for _ in 0..rng.range(0, 5) {
            let g = opt_guard(rng, 30);
            let d = rng.range(0, NDATA as u32) as usize;
            let a = rng.range(0, NDATA as u32) as usize;
            let op = match rng.range(0, 10) {
                0..=5 => {
                    let aop = [
                        AOp::Add,
                        AOp::Sub,
                        AOp::Xor,
                        AOp::And,
                        AOp::Or,
                        AOp::Mul,
                        AOp::Shl,
                        AOp::Shr,
                    ][rng.range(0, 8) as usize];
                    let b = match aop {
                        AOp::Shl | AOp::Shr => Src::Imm(rng.range(0, 32)),
                        _ => src(rng),
                    };
                    Op::Arith(aop, d, a, b)
                }
                6..=8 => {
                    let cmp = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]
                        [rng.range(0, 6) as usize];
                    let signed = rng.range(0, 2) == 1;
                    // Immediates only for unsigned compares (any u32 is a valid .u32 immediate).
                    let b = if signed {
                        Src::Reg(rng.range(0, NDATA as u32) as usize)
                    } else {
                        src(rng)
                    };
                    let comb = (rng.range(0, 3) == 0).then(|| {
                        (
                            [Bop::And, Bop::Or, Bop::Xor][rng.range(0, 3) as usize],
                            guard(rng),
                        )
                    });
                    Op::Setp(cmp, signed, rng.range(0, 4) as usize, a, b, comb)
                }
                9 if rng.range(0, 2) == 0 => Op::Call(d, a, rng.range(0, NDATA as u32) as usize),
                _ => Op::Selp(d, a, rng.range(0, NDATA as u32) as usize, guard(rng)),
            };
            ops.push((g, op));
        }
        // Targets: any block or END (= n).
        let tgt = |rng: &mut Rng| rng.range(0, n as u32 + 1) as usize;
        let i = blocks.len();
        let term = match rng.range(0, 14) {
            12 | 13 => Term::Back(rng.range(0, i as u32 + 1) as usize, rng.range(0, 30)),
            0..=2 => Term::Fall,
            3 => Term::Bra(None, tgt(rng)),
            4..=6 => Term::Bra(Some(guard(rng)), tgt(rng)),
            7..=9 => {
                // Power-of-two lengths: the index is `and`ed into range.
                let len = [1, 2, 4][rng.range(0, 3) as usize];
                let list = (0..len).map(|_| tgt(rng)).collect();
                Term::Brx(
                    opt_guard(rng, 40),
                    rng.range(0, NDATA as u32) as usize,
                    list,
                )
            }
            _ => Term::Exit(opt_guard(rng, 80), rng.range(0, 2) == 1),
        };
        blocks.push(Block { ops, term });
    }
    Prog {
        blocks,
        consts: [rng.u32(), rng.range(0, 100), rng.u32(), rng.range(0, 8)],
    }
}

fn label(n: usize, t: usize) -> String {
    if t == n {
        "END".into()
    } else {
        format!("B{t}")
    }
}

fn gtext(g: Option<G>) -> String {
    match g {
        None => "\t".into(),
        Some(G { p, neg }) => format!("@{}%p{p} ", if neg { "!" } else { "" }),
    }
}

fn stext(s: Src) -> String {
    match s {
        Src::Reg(r) => format!("%r{r}"),
        Src::Imm(x) => format!("{x}"),
    }
}

/// Stores r0..r7 and `marker` to the thread's row (under `g`).
fn store_row(out: &mut String, g: Option<G>, marker: u32) {
    let gt = gtext(g);
    for r in 0..8 {
        let _ = writeln!(out, "{gt}st.global.u32 [%rd3+{}], %r{r};", 4 * r);
    }
    let _ = writeln!(out, "{gt}mov.u32 %r21, {marker};");
    let _ = writeln!(out, "{gt}st.global.u32 [%rd3+36], %r21;");
}

fn emit(p: &Prog) -> String {
    let n = p.blocks.len();
    let mut s = String::new();
    s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    s.push_str(MIX);
    s.push_str(".visible .entry rnd(.param .u64 rnd_in, .param .u64 rnd_out)\n{\n");
    s.push_str("\t.reg .pred %p<8>;\n\t.reg .b32 %r<48>;\n\t.reg .b64 %rd<6>;\n");
    let c = p.consts;
    let _ = write!(
        s,
        "\tmov.u32 %r10, %ctaid.x;\n\tmov.u32 %r11, %ntid.x;\n\tmov.u32 %r0, %tid.x;\n\
         \tmad.lo.s32 %r10, %r10, %r11, %r0;\n\
         \tld.param.u64 %rd1, [rnd_in];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmul.wide.u32 %rd2, %r10, 4;\n\tadd.s64 %rd2, %rd1, %rd2;\n\
         \tld.global.u32 %r1, [%rd2];\n\
         \tld.param.u64 %rd1, [rnd_out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmul.wide.u32 %rd2, %r10, {};\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, {};\n\tmov.u32 %r4, {};\n\
         \txor.b32 %r5, %r0, %r1;\n\tmov.u32 %r6, {};\n\tmov.u32 %r7, 0;\n\
         \tand.b32 %r20, %r1, 15;\n\tadd.u32 %r20, %r20, 8;\n\
         \tand.b32 %r12, %r0, 1;\n\tsetp.ne.u32 %p0, %r12, 0;\n\
         \tsetp.lt.u32 %p1, %r1, {};\n\
         \tsetp.lt.u32 %p2, %r0, 16;\n\
         \tand.b32 %r12, %r1, 7;\n\tsetp.lt.u32 %p3, %r12, {};\n\
         \tmov.u32 %r30, 0;\n\tmov.u32 %r31, 0;\n\tmov.u32 %r32, 0;\n\tmov.u32 %r33, 0;\n\
         \tmov.u32 %r34, 0;\n\tmov.u32 %r35, 0;\n\tmov.u32 %r36, 0;\n\tmov.u32 %r37, 0;\n\
         \tmov.u32 %r38, 0;\n",
        ROW * 4,
        c[0],
        c[1],
        c[2],
        c[0],
        c[3]
    );
    for (i, b) in p.blocks.iter().enumerate() {
        let _ = writeln!(s, "B{i}:");
        let _ = writeln!(s, "\tmad.lo.u32 %r7, %r7, 31, {};", i + 1);
        s.push_str("\tsub.u32 %r20, %r20, 1;\n\tsetp.eq.u32 %p7, %r20, 0;\n\t@%p7 bra END;\n");
        for (g, op) in &b.ops {
            let gt = gtext(*g);
            match op {
                Op::Arith(aop, d, a, bs) => {
                    let name = match aop {
                        AOp::Add => "add.u32",
                        AOp::Sub => "sub.u32",
                        AOp::Xor => "xor.b32",
                        AOp::And => "and.b32",
                        AOp::Or => "or.b32",
                        AOp::Mul => "mul.lo.u32",
                        AOp::Shl => "shl.b32",
                        AOp::Shr => "shr.u32",
                    };
                    let _ = writeln!(s, "{gt}{name} %r{d}, %r{a}, {};", stext(*bs));
                }
                Op::Setp(cmp, signed, pd, a, bs, comb) => {
                    let c = match cmp {
                        Cmp::Lt => "lt",
                        Cmp::Le => "le",
                        Cmp::Gt => "gt",
                        Cmp::Ge => "ge",
                        Cmp::Eq => "eq",
                        Cmp::Ne => "ne",
                    };
                    let ty = if *signed { "s32" } else { "u32" };
                    match comb {
                        None => {
                            let _ = writeln!(s, "{gt}setp.{c}.{ty} %p{pd}, %r{a}, {};", stext(*bs));
                        }
                        Some((bop, cg)) => {
                            let bo = match bop {
                                Bop::And => "and",
                                Bop::Or => "or",
                                Bop::Xor => "xor",
                            };
                            let _ = writeln!(
                                s,
                                "{gt}setp.{c}.{bo}.{ty} %p{pd}, %r{a}, {}, {}%p{};",
                                stext(*bs),
                                if cg.neg { "!" } else { "" },
                                cg.p
                            );
                        }
                    }
                }
                Op::Call(d, a, b2) => {
                    let _ = writeln!(
                        s,
                        "\t{{\n\t.param .b32 pa;\n\t.param .b32 pb;\n\t.param .b32 pr;\n\
                         \tst.param.b32 [pa], %r{a};\n\tst.param.b32 [pb], %r{b2};\n\
                         {gt}call (pr), mix, (pa, pb);\n\tld.param.b32 %r14, [pr];\n\
                         {gt}mov.u32 %r{d}, %r14;\n\t}}"
                    );
                }
                Op::Selp(d, a, b2, cg) => {
                    // selp takes a plain predicate: negate by swapping the operands.
                    let (x, y) = if cg.neg { (b2, a) } else { (a, b2) };
                    let _ = writeln!(s, "{gt}selp.b32 %r{d}, %r{x}, %r{y}, %p{};", cg.p);
                }
            }
        }
        match &b.term {
            Term::Fall => {}
            Term::Bra(g, t) => {
                let _ = writeln!(s, "{}bra {};", gtext(*g), label(n, *t));
            }
            Term::Brx(g, r, list) => {
                let names: Vec<String> = list.iter().map(|&t| label(n, t)).collect();
                let _ = writeln!(s, "\tand.b32 %r13, %r{r}, {};", list.len() - 1);
                let _ = writeln!(s, "\tts{i}: .branchtargets {};", names.join(", "));
                let _ = writeln!(s, "{}brx.idx %r13, ts{i};", gtext(*g));
            }
            Term::Back(head, shift) => {
                let _ = writeln!(s, "\tshr.u32 %r22, %r1, {shift};");
                s.push_str("\tand.b32 %r22, %r22, 3;\n\tadd.u32 %r22, %r22, 1;\n");
                let _ = writeln!(s, "\tadd.u32 %r{}, %r{}, 1;", 30 + i, 30 + i);
                let _ = writeln!(s, "\tsetp.lt.u32 %p6, %r{}, %r22;", 30 + i);
                let _ = writeln!(s, "\t@%p6 bra B{head};");
            }
            Term::Exit(g, ret) => {
                store_row(&mut s, *g, 0x100 + i as u32);
                let _ = writeln!(s, "{}{};", gtext(*g), if *ret { "ret" } else { "exit" });
            }
        }
    }
    s.push_str("END:\n");
    store_row(&mut s, None, 0xE0D);
    s.push_str("\tret;\n}\n");
    s
}

/// Runs one thread of `p` and returns its row.
fn simulate(p: &Prog, tid: u32, ctaid: u32, data: u32) -> [u32; ROW] {
    let n = p.blocks.len();
    let c = p.consts;
    let mut r = [0u32; 8];
    r[0] = tid;
    r[1] = data;
    r[2] = ctaid;
    r[3] = c[0];
    r[4] = c[1];
    r[5] = tid ^ data;
    r[6] = c[2];
    let mut pr = [tid & 1 != 0, data < c[0], tid < 16, (data & 7) < c[3]];
    let mut fuel = (data & 15) + 8;
    let mut counters = [0u32; 9];
    let row = |r: &[u32; 8], marker: u32| {
        let mut o = [0u32; ROW];
        o[..8].copy_from_slice(r);
        o[9] = marker;
        o
    };
    let gv = |pr: &[bool; 4], g: Option<G>| g.is_none_or(|g| pr[g.p] != g.neg);
    let mut pc = 0usize;
    loop {
        if pc == n {
            return row(&r, 0xE0D);
        }
        let b = &p.blocks[pc];
        r[7] = r[7].wrapping_mul(31).wrapping_add(pc as u32 + 1);
        fuel -= 1;
        if fuel == 0 {
            pc = n;
            continue;
        }
        for (g, op) in &b.ops {
            if !gv(&pr, *g) {
                continue;
            }
            let val = |s: Src, r: &[u32; 8]| match s {
                Src::Reg(i) => r[i],
                Src::Imm(x) => x,
            };
            match *op {
                Op::Arith(aop, d, a, bs) => {
                    let (x, y) = (r[a], val(bs, &r));
                    r[d] = match aop {
                        AOp::Add => x.wrapping_add(y),
                        AOp::Sub => x.wrapping_sub(y),
                        AOp::Xor => x ^ y,
                        AOp::And => x & y,
                        AOp::Or => x | y,
                        AOp::Mul => x.wrapping_mul(y),
                        AOp::Shl => x << y,
                        AOp::Shr => x >> y,
                    };
                }
                Op::Setp(cmp, signed, pd, a, bs, comb) => {
                    let (x, y) = (r[a], val(bs, &r));
                    let o = if signed {
                        (x as i32).cmp(&(y as i32))
                    } else {
                        x.cmp(&y)
                    };
                    use std::cmp::Ordering::*;
                    let t = match cmp {
                        Cmp::Lt => o == Less,
                        Cmp::Le => o != Greater,
                        Cmp::Gt => o == Greater,
                        Cmp::Ge => o != Less,
                        Cmp::Eq => o == Equal,
                        Cmp::Ne => o != Equal,
                    };
                    pr[pd] = match comb {
                        None => t,
                        Some((bop, cg)) => {
                            let cv = pr[cg.p] != cg.neg;
                            match bop {
                                Bop::And => t && cv,
                                Bop::Or => t || cv,
                                Bop::Xor => t != cv,
                            }
                        }
                    };
                }
                Op::Selp(d, a, b2, cg) => {
                    r[d] = if pr[cg.p] != cg.neg { r[a] } else { r[b2] };
                }
                Op::Call(d, a, b2) => r[d] = mix(r[a], r[b2]),
            }
        }
        pc = match &b.term {
            Term::Fall => pc + 1,
            Term::Bra(g, t) => {
                if gv(&pr, *g) {
                    *t
                } else {
                    pc + 1
                }
            }
            Term::Brx(g, reg, list) => {
                if gv(&pr, *g) {
                    list[(r[*reg] % list.len() as u32) as usize]
                } else {
                    pc + 1
                }
            }
            Term::Back(head, shift) => {
                counters[pc] += 1;
                if counters[pc] < ((r[1] >> shift) & 3) + 1 {
                    *head
                } else {
                    pc + 1
                }
            }
            Term::Exit(g, _) => {
                if gv(&pr, *g) {
                    return row(&r, 0x100 + pc as u32);
                }
                pc + 1
            }
        };
    }
}

#[test]
fn random_control_flow_agrees_with_a_per_thread_simulation() {
    let dev = device();
    let seeds: u64 = std::env::var("CFLOW_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    // How threads ended, over all seeds: at END, at an exit/ret site.
    let (mut ends, mut exits) = (0usize, 0usize);
    for seed in 0..seeds {
        let mut rng = Rng::new(0xcf10_0000 + seed);
        let prog = gen(&mut rng);
        let src = emit(&prog);
        let (grid, block) = (rng.range(1, 3), rng.range(1, 97));
        let nthreads = (grid * block) as usize;
        let data: Vec<u32> = (0..nthreads)
            .map(|_| match rng.range(0, 3) {
                0 => rng.range(0, 64),
                _ => rng.u32(),
            })
            .collect();
        let want: Vec<u32> = (0..nthreads as u32)
            .flat_map(|g| simulate(&prog, g % block, g / block, data[g as usize]))
            .collect();
        for row in want.chunks(ROW) {
            match row[ROW - 1] {
                0xE0D => ends += 1,
                _ => exits += 1,
            }
        }
        let inb = dev.alloc_from(&data).unwrap();
        for (backend, jit) in [(Backend::Interp, false), (Backend::Jit, true)] {
            let m = dev
                .load_ptx_with(&src, "rnd.ptx", jit)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
            let out = zeroed(&dev, nthreads * ROW * 4);
            dev.launch(
                &m,
                "rnd",
                &cfg([grid, 1, 1], [block, 1, 1], backend),
                &[arg(&inb), arg(&out)],
            )
            .unwrap_or_else(|e| panic!("seed {seed} {backend:?}: {e}\n{src}"));
            let got = dev.read::<u32>(&out).unwrap();
            if let Some(d) = diff_slice(&got, &want, &format!("seed {seed} {backend:?}")) {
                panic!("{d}\n(rows of {ROW} words: r0..r7, 0, marker)\n{src}");
            }
        }
    }
    if seeds >= 100 {
        assert!(ends > 1000 && exits > 1000, "ends {ends}, exits {exits}");
    }
}

/// The generator's output is valid PTX for NVIDIA's assembler (run with
/// `CFLOW_PTXAS=/path/to/ptxas cargo test --test cflow_random -- --ignored`).
#[test]
#[ignore = "needs ptxas (CFLOW_PTXAS)"]
fn generated_kernels_pass_ptxas() {
    let ptxas = std::env::var("CFLOW_PTXAS").expect("CFLOW_PTXAS");
    let dir = std::env::temp_dir().join("ptxjit_cflow_random");
    std::fs::create_dir_all(&dir).unwrap();
    for seed in 0..40u64 {
        let mut rng = Rng::new(0xcf10_0000 + seed);
        let src = emit(&gen(&mut rng));
        let f = dir.join(format!("rnd{seed}.ptx"));
        std::fs::write(&f, &src).unwrap();
        let o = std::process::Command::new(&ptxas)
            .args(["--gpu-name", "sm_70", "-o", "/dev/null"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "seed {seed}: {}\n{src}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
