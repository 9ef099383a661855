//! The property-test harness of `tests/prop_ops.rs`: a list of instruction forms becomes
//! one PTX module (a few kernels, each applying many forms to per-lane inputs loaded from
//! one buffer and storing every result to another), which runs on both backends; each
//! result is compared bit for bit between the JIT, the interpreter, the public
//! `ptxjit::ops` function evaluated here, and (where a form has one) an independent
//! reference written in `oracle.rs`.
//!
//! Layout: every form gets `n` lanes; source `j` of form `k` is a `u64` per lane at
//! `in + (slot(k) + j) * n * 8 + lane * 8`, loaded with `ld.global.b16/b32/b64` (the
//! low bytes: little-endian), and destination `j` is stored the same way into `out` with
//! `st.global.bN` (predicates as 0/1 words through `selp`). The offsets are immediates of
//! the address operands, so a kernel computes its lane addresses once.
#![allow(dead_code)]

pub mod bits;
pub mod cvt;
pub mod exhaustive;
pub mod float;
pub mod gen;
pub mod half;
pub mod int;
pub mod oracle;

use crate::common::Rng;
use ptxjit::{Backend, Device, LaunchConfig};
use std::fmt::Write as _;
use std::sync::Arc;

/// The register that holds an operand or a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// `.b16`
    H,
    /// `.b32`
    R,
    /// `.b64`
    D,
    /// `.pred`, loaded as a word (`setp.ne.b32 p, w, 0`), stored as 0/1 (`selp.u32`).
    P,
}

impl Reg {
    pub fn bits(self) -> u32 {
        match self {
            Reg::H => 16,
            Reg::R => 32,
            Reg::D => 64,
            Reg::P => 1,
        }
    }
    /// All-ones mask of the register's bits (1 for a predicate).
    pub fn mask(self) -> u64 {
        mask(self.bits())
    }
    fn prefix(self) -> &'static str {
        match self {
            Reg::H => "%h",
            Reg::R => "%r",
            Reg::D => "%rd",
            Reg::P => "%p",
        }
    }
    fn ld(self) -> &'static str {
        match self {
            Reg::H => "b16",
            Reg::R | Reg::P => "b32",
            Reg::D => "b64",
        }
    }
}

/// All-ones mask of `bits` bits (1..=64).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sx(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// A per-lane input generator: `(rng, lane, earlier sources of this lane) -> bits` (the
/// harness masks the value to the register's width).
pub type Gen = Arc<dyn Fn(&mut Rng, usize, &[u64]) -> u64 + Send + Sync>;

/// Expected results (one per destination, pushed onto the cleared vector) from the
/// sources (masked to their registers).
pub type Oracle = Box<dyn Fn(&[u64], &mut Vec<u64>) + Send + Sync>;

/// A destination: the register and how the instruction's result of `bits` bits fills it
/// (PTX writes a narrower result into a wider register sign- or zero-extended per the
/// instruction type).
#[derive(Clone, Copy, Debug)]
pub struct Dst {
    pub reg: Reg,
    pub bits: u32,
    pub signed: bool,
}

impl Dst {
    pub fn of(reg: Reg) -> Dst {
        Dst {
            reg,
            bits: reg.bits(),
            signed: false,
        }
    }
    /// The register value for a result `v` of the instruction.
    fn fill(self, v: u64) -> u64 {
        let w = self.bits.min(self.reg.bits());
        let e = if self.signed {
            sx(v, w) as u64
        } else {
            v & mask(w)
        };
        e & self.reg.mask()
    }
}

/// One instruction form.
pub struct Form {
    /// What failures are reported as (usually the instruction text).
    pub name: String,
    /// PTX text with `{a} {b} {c} {e}` for the sources (in order) and `{d} {q}` for the
    /// destinations (in order); several instructions may be given.
    pub body: String,
    pub srcs: Vec<(Reg, Gen)>,
    /// Per source: whether it may share an input slot with the same generator of other
    /// forms (`src_shared`).
    pub shared: Vec<bool>,
    pub dsts: Vec<Dst>,
    /// The results as `ptxjit::ops` computes them.
    pub ops: Option<Oracle>,
    /// The results as an independent reference computes them.
    pub indep: Option<Oracle>,
}

impl Form {
    pub fn new(name: impl Into<String>, body: impl Into<String>) -> Form {
        Form {
            name: name.into(),
            body: body.into(),
            srcs: Vec::new(),
            shared: Vec::new(),
            dsts: Vec::new(),
            ops: None,
            indep: None,
        }
    }
    pub fn src(mut self, r: Reg, g: Gen) -> Form {
        self.srcs.push((r, g));
        self.shared.push(false);
        self
    }
    /// A source whose input slot (and register, within a kernel) is shared by every form
    /// that passes the same generator (`Arc::ptr_eq`) here: the generator must depend on
    /// the lane only.
    pub fn src_shared(mut self, r: Reg, g: Gen) -> Form {
        self.srcs.push((r, g));
        self.shared.push(true);
        self
    }
    pub fn dst(mut self, r: Reg) -> Form {
        self.dsts.push(Dst::of(r));
        self
    }
    /// A destination register filled from a `bits`-bit result of signedness `signed`.
    pub fn dst_ext(mut self, r: Reg, bits: u32, signed: bool) -> Form {
        self.dsts.push(Dst {
            reg: r,
            bits,
            signed,
        });
        self
    }
    /// The `ptxjit::ops` results.
    pub fn ops(mut self, f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static) -> Form {
        self.ops = Some(Box::new(move |s, out| out.extend(f(s))));
        self
    }
    /// Single-result `ops` oracle.
    pub fn ops1(mut self, f: impl Fn(&[u64]) -> u64 + Send + Sync + 'static) -> Form {
        self.ops = Some(Box::new(move |s, out| out.push(f(s))));
        self
    }
    /// The independent reference's results (none: no opinion on these inputs).
    pub fn indep(mut self, f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static) -> Form {
        self.indep = Some(Box::new(move |s, out| out.extend(f(s))));
        self
    }
    /// Single-result independent oracle.
    pub fn indep1(mut self, f: impl Fn(&[u64]) -> u64 + Send + Sync + 'static) -> Form {
        self.indep = Some(Box::new(move |s, out| out.push(f(s))));
        self
    }
}

/// How a suite runs: lanes per form, forms per kernel (JIT compile units), the seed, and
/// whether every single-instruction form also runs under a per-lane guard.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub lanes: usize,
    pub per_kernel: usize,
    pub seed: u64,
    pub guarded: bool,
}

impl Plan {
    pub fn new(seed: u64) -> Plan {
        Plan {
            lanes: 2000,
            per_kernel: 48,
            seed,
            guarded: false,
        }
    }
    pub fn lanes(self, lanes: usize) -> Plan {
        Plan { lanes, ..self }
    }
    pub fn per_kernel(self, per_kernel: usize) -> Plan {
        Plan { per_kernel, ..self }
    }
    /// Runs each single-instruction form as `@g op` with `g` random per lane and the
    /// destinations set beforehand to random values, which must survive where `g` is
    /// false (masked writes of the JIT's vector code and of its helper calls).
    pub fn guarded(self) -> Plan {
        Plan {
            guarded: true,
            ..self
        }
    }
}

/// Bytes per lane of a stored destination.
fn out_size(r: Reg) -> usize {
    match r {
        Reg::H => 2,
        Reg::R | Reg::P => 4,
        Reg::D => 8,
    }
}

/// Where each form's sources and destinations live.
struct Layout {
    /// Input slot (of `lanes` u64 words) of each source of each form (shared sources of
    /// the same generator and register kind share one).
    src_slot: Vec<Vec<usize>>,
    /// The form and source that generate each slot.
    slot_owner: Vec<(usize, usize)>,
    /// Byte offset of each destination's region (`lanes * out_size` bytes) in the output.
    dst_off: Vec<Vec<usize>>,
    out_bytes: usize,
}

fn layout(forms: &[Form], lanes: usize) -> Layout {
    let mut src_slot = Vec::new();
    let mut slot_owner: Vec<(usize, usize)> = Vec::new();
    let mut dst_off = Vec::new();
    let mut o = 0;
    for (fi, f) in forms.iter().enumerate() {
        let mut ss = Vec::new();
        for (j, (r, g)) in f.srcs.iter().enumerate() {
            let shared = slot_owner.iter().position(|&(ofi, oj)| {
                let (or, og) = &forms[ofi].srcs[oj];
                f.shared[j] && forms[ofi].shared[oj] && or == r && Arc::ptr_eq(og, g)
            });
            ss.push(shared.unwrap_or_else(|| {
                slot_owner.push((fi, j));
                slot_owner.len() - 1
            }));
        }
        src_slot.push(ss);
        let mut ds = Vec::new();
        for d in &f.dsts {
            ds.push(o);
            o += lanes * out_size(d.reg);
        }
        dst_off.push(ds);
    }
    Layout {
        src_slot,
        slot_owner,
        dst_off,
        out_bytes: o,
    }
}

/// Whether a form can run under a guard: one instruction (no scopes, no second line).
fn guardable(f: &Form) -> bool {
    let t = f.body.trim();
    let mut u = t.to_string();
    for p in ["{a}", "{b}", "{c}", "{e}", "{d}", "{q}"] {
        u = u.replace(p, "");
    }
    !t.contains('\n') && !u.contains('{')
}

/// Adds the guard and the initial destination values as extra sources (after the
/// form's own) to each guardable form; returns which forms are guarded.
fn add_guards(forms: &mut [Form]) -> Vec<bool> {
    forms
        .iter_mut()
        .map(|f| {
            if !guardable(f) || f.srcs.len() > 4 {
                return false;
            }
            f.srcs.push((Reg::P, gen::pred()));
            f.shared.push(false);
            for d in f.dsts.clone() {
                f.srcs.push((d.reg, gen::any()));
                f.shared.push(false);
            }
            true
        })
        .collect()
}

/// The PTX of the suite: kernels `k0, k1, ...` of `per_kernel` forms each.
fn ptx(suite: &str, forms: &[Form], guarded: &[bool], lay: &Layout, plan: Plan) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by tests/prop_ops.rs (suite {suite}).\n.version 8.2\n.target sm_90\n.address_size 64\n"
    );
    let stride = plan.lanes * 8;
    for (k, chunk) in forms.chunks(plan.per_kernel).enumerate() {
        let first = k * plan.per_kernel;
        let mut body = String::new();
        let mut next = [0usize; 4]; // H R D P
        let mut fresh = |r: Reg| {
            let i = match r {
                Reg::H => 0,
                Reg::R => 1,
                Reg::D => 2,
                Reg::P => 3,
            };
            next[i] += 1;
            format!("{}{}", r.prefix(), next[i])
        };
        // Slots already loaded in this kernel.
        let mut loaded: Vec<(usize, String)> = Vec::new();
        for (j, f) in chunk.iter().enumerate() {
            let fi = first + j;
            let _ = writeln!(body, "    // {}", f.name);
            let mut text = f.body.clone();
            let mut names = Vec::new();
            for (n, (r, _)) in f.srcs.iter().enumerate() {
                let slot = lay.src_slot[fi][n];
                if let Some((_, name)) = loaded.iter().find(|(s, _)| *s == slot) {
                    names.push(name.clone());
                    continue;
                }
                let off = slot * stride;
                let name = fresh(*r);
                if *r == Reg::P {
                    let w = fresh(Reg::R);
                    let _ = writeln!(body, "    ld.global.b32 {w}, [%in+{off}];");
                    let _ = writeln!(body, "    setp.ne.b32 {name}, {w}, 0;");
                } else {
                    let _ = writeln!(body, "    ld.global.{} {name}, [%in+{off}];", r.ld());
                }
                loaded.push((slot, name.clone()));
                names.push(name);
            }
            for (n, name) in names.iter().enumerate().take(4) {
                text = text.replace(["{a}", "{b}", "{c}", "{e}"][n], name);
            }
            let nd = f.dsts.len();
            let own = f.srcs.len() - if guarded[fi] { 1 + nd } else { 0 };
            let mut stores = Vec::new();
            let mut prefix = String::new();
            for (n, d) in f.dsts.iter().enumerate() {
                let off = lay.dst_off[fi][n];
                let name = fresh(d.reg);
                text = text.replace(["{d}", "{q}"][n], &name);
                if guarded[fi] {
                    let init = &names[own + 1 + n];
                    let ty = if d.reg == Reg::P { "pred" } else { d.reg.ld() };
                    let _ = writeln!(body, "    mov.{ty} {name}, {init};");
                    prefix = format!("@{} ", names[own]);
                }
                let ptr = format!("%out{}", out_size(d.reg));
                if d.reg == Reg::P {
                    let w = fresh(Reg::R);
                    stores.push(format!("    selp.u32 {w}, 1, 0, {name};"));
                    stores.push(format!("    st.global.b32 [{ptr}+{off}], {w};"));
                } else {
                    stores.push(format!(
                        "    st.global.{} [{ptr}+{off}], {name};",
                        d.reg.ld()
                    ));
                }
            }
            for line in text.lines() {
                let _ = writeln!(body, "    {prefix}{}", line.trim());
            }
            for line in stores {
                let _ = writeln!(body, "{line}");
            }
        }
        let _ = writeln!(
            s,
            ".visible .entry k{k}(.param .u64 pin, .param .u64 pout)\n{{\n    .reg .b16 %h<{}>;\n    .reg .b32 %r<{}>;\n    .reg .b64 %rd<{}>;\n    .reg .pred %p<{}>;\n    .reg .b32 %t0, %t1, %t2;\n    .reg .pred %past;\n    .reg .b64 %in, %out, %off, %out2, %out4, %out8;\n    mov.u32 %t0, %tid.x;\n    mov.u32 %t1, %ctaid.x;\n    mov.u32 %t2, %ntid.x;\n    mad.lo.u32 %t0, %t1, %t2, %t0;\n        mul.wide.u32 %off, %t0, 8;\n    ld.param.u64 %in, [pin];\n    ld.param.u64 %out, [pout];\n    add.u64 %in, %in, %off;\n    add.u64 %out8, %out, %off;\n    mul.wide.u32 %off, %t0, 4;\n    add.u64 %out4, %out, %off;\n    mul.wide.u32 %off, %t0, 2;\n    add.u64 %out2, %out, %off;\n{body}    ret;\n}}\n",
            next[0] + 1,
            next[1] + 1,
            next[2] + 1,
            next[3] + 1,
        );
    }
    s
}

/// FNV-1a, to derive a per-form seed from its name (so that adding a form does not change
/// the inputs of the others).
fn hash(s: &str, seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Runs `forms` on both backends and checks every result; panics with a report of every
/// mismatch (or if the module does not load). Set `PROP_DUMP=dir` to write the generated
/// PTX to `dir/<suite>.ptx` (for `ptxas`), `PROP_TIME=1` to print the time of each phase.
pub fn run(suite: &str, forms: Vec<Form>, plan: Plan) {
    if let Err(e) = try_run(suite, forms, plan) {
        panic!("{suite}: load_ptx: {e}\n(set PROP_DUMP=dir to see the PTX)");
    }
}

fn load_out(bytes: &[u8], off: usize, size: usize, lane: usize) -> u64 {
    let at = off + lane * size;
    let mut w = [0u8; 8];
    w[..size].copy_from_slice(&bytes[at..at + size]);
    u64::from_le_bytes(w)
}

/// As [`run`], but a module that does not load is returned as the error's text.
pub fn try_run(suite: &str, mut forms: Vec<Form>, plan: Plan) -> Result<(), String> {
    let n = plan.lanes;
    let t0 = std::time::Instant::now();
    let guarded = if plan.guarded {
        add_guards(&mut forms)
    } else {
        vec![false; forms.len()]
    };
    let lay = layout(&forms, n);
    let src = ptx(suite, &forms, &guarded, &lay, plan);
    if let Ok(dir) = std::env::var("PROP_DUMP") {
        let _ = std::fs::write(format!("{dir}/{suite}.ptx"), &src);
    }
    // Inputs: each form generates its own slots, lane by lane (a generator sees the
    // earlier sources of its lane).
    let mut input = vec![0u64; lay.slot_owner.len() * n];
    for (fi, f) in forms.iter().enumerate() {
        let own: Vec<usize> = (0..f.srcs.len())
            .filter(|&j| lay.slot_owner[lay.src_slot[fi][j]] == (fi, j))
            .collect();
        if own.is_empty() {
            continue;
        }
        let mut rng = Rng::new(hash(&f.name, plan.seed));
        let mut lane_srcs = Vec::with_capacity(f.srcs.len());
        for lane in 0..n {
            lane_srcs.clear();
            for (j, (r, g)) in f.srcs.iter().enumerate() {
                let slot = lay.src_slot[fi][j];
                let v = if own.contains(&j) {
                    let v = g(&mut rng, lane, &lane_srcs);
                    let v = if *r == Reg::P {
                        (v & 1 != 0) as u64
                    } else {
                        v & r.mask()
                    };
                    input[slot * n + lane] = v;
                    v
                } else {
                    input[slot * n + lane]
                };
                lane_srcs.push(v);
            }
        }
    }
    let t_gen = t0.elapsed();
    let dev = Device::new().unwrap_or_else(|e| panic!("Device::new: {e}"));
    let file = format!("prop_{suite}.ptx");
    let m = dev.load_ptx(&src, &file).map_err(|e| e.to_string())?;
    let t_load = t0.elapsed();
    let kernels = forms.len().div_ceil(plan.per_kernel);
    // Blocks of 100 threads where the lanes allow: each block ends in a partial warp (4
    // live lanes), so the JIT's masked paths run too.
    let block = if n.is_multiple_of(100) { 100u32 } else { 128 };
    let grid = n.div_ceil(block as usize) as u32;
    assert_eq!(
        grid as usize * block as usize,
        n,
        "lanes must be a multiple of 100 or 128"
    );
    let bin = dev.alloc_from(&input).expect("alloc input");
    let mut outs = Vec::new();
    let mut t_run = Vec::new();
    for backend in [Backend::Jit, Backend::Interp] {
        let bout = dev.alloc_zeroed(lay.out_bytes).expect("alloc output");
        let cfg = LaunchConfig::new(grid, block).backend(backend);
        for k in 0..kernels {
            dev.launch(&m, &format!("k{k}"), &cfg, &[(&bin).into(), (&bout).into()])
                .unwrap_or_else(|e| panic!("{suite}: {backend:?} launch of k{k}: {e}"));
        }
        outs.push(dev.read::<u8>(&bout).expect("read output"));
        t_run.push(t0.elapsed());
    }
    let (jit, interp) = (&outs[0], &outs[1]);
    let mut failures = Vec::new();
    let mut srcs = Vec::new();
    let (mut want_ops, mut want_ind) = (Vec::new(), Vec::new());
    for (fi, f) in forms.iter().enumerate() {
        let mut shown = 0;
        let mut bad = 0usize;
        let nd = f.dsts.len();
        let own = f.srcs.len() - if guarded[fi] { 1 + nd } else { 0 };
        for lane in 0..n {
            srcs.clear();
            for j in 0..f.srcs.len() {
                srcs.push(input[lay.src_slot[fi][j] * n + lane]);
            }
            let on = !guarded[fi] || srcs[own] != 0;
            want_ops.clear();
            want_ind.clear();
            if on {
                if let Some(o) = &f.ops {
                    o(&srcs[..own], &mut want_ops);
                }
                if let Some(o) = &f.indep {
                    o(&srcs[..own], &mut want_ind);
                }
            }
            for (j, d) in f.dsts.iter().enumerate() {
                let size = out_size(d.reg);
                let off = lay.dst_off[fi][j];
                let (gj, gi) = (
                    load_out(jit, off, size, lane),
                    load_out(interp, off, size, lane),
                );
                let (wo, wi) = if on {
                    // An empty result means "no opinion" for these inputs.
                    (
                        want_ops.get(j).map(|&x| d.fill(x)),
                        want_ind.get(j).map(|&x| d.fill(x)),
                    )
                } else {
                    // Guarded off: the destination keeps its initial value.
                    (Some(srcs[own + 1 + j]), None)
                };
                let ok = gj == gi && wo.is_none_or(|w| w == gj) && wi.is_none_or(|w| w == gj);
                if !ok {
                    bad += 1;
                    if shown < 6 {
                        shown += 1;
                        let hex = |v: &u64| format!("{v:#x}");
                        let ins: Vec<String> = srcs.iter().map(hex).collect();
                        failures.push(format!(
                            "  {} [lane {lane}] dst {j}: srcs [{}]: jit {gj:#x} interp {gi:#x} ops {} indep {}",
                            f.name,
                            ins.join(", "),
                            wo.map_or("-".into(), |w| format!("{w:#x}")),
                            wi.map_or("-".into(), |w| format!("{w:#x}")),
                        ));
                    }
                }
            }
        }
        if bad > shown {
            failures.push(format!("  {}: {bad} mismatches in all", f.name));
        }
    }
    if std::env::var("PROP_TIME").is_ok() {
        eprintln!(
            "{suite}: {} forms x {n} lanes: inputs {:?}, load+jit {:?}, jit run {:?}, interp run {:?}, check {:?}",
            forms.len(),
            t_gen,
            t_load - t_gen,
            t_run[0] - t_load,
            t_run[1] - t_run[0],
            t0.elapsed() - t_run[1]
        );
    }
    if !failures.is_empty() {
        panic!(
            "{suite}: {} forms on {n} lanes, mismatches:\n{}",
            forms.len(),
            failures.join("\n")
        );
    }
    Ok(())
}
