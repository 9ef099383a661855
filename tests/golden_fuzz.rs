//! Golden test of the differential generator's programs (`fuzz/src/gen`) and of the
//! benchmark kernels: outputs an NVIDIA GPU recorded (see `tests/golden/README.md`, section
//! "Generated programs and benchmark kernels") are compared with both backends' bytes.
//!
//! **Generated programs** (`tests/golden/fuzz/`): each case of `cases.txt` is one generated
//! kernel `k(in, out, atom)` after `canon.py` (every floating-point register write is
//! followed by a NaN canonicalization, so that NaN payloads, which differ by the documented
//! rule `NAN_BITS`, cannot flow into integer registers). Its `out` and `atom` buffers must
//! equal the GPU's (`out/NAME_out.bin`, `out/NAME_atom.bin`) byte for byte, except thread
//! rows that the documented rule `BFE64` explains: for a program with a 64-bit `bfe`/`bfi`,
//! a row that differs must equal, byte for byte, the row of the same program with that
//! rule applied ([`bfe64_model`]); such rows are counted and printed. Programs the GPU
//! cannot be compared on are not in the list, and [`not_comparable`] checks that none
//! crept in.
//!
//! The inputs are not committed: they are the generator's `input_bytes` of the case's
//! `seed` (`in`) and of `seed ^ 0xa70` (`atom`), as the fuzz harness fills them; each case
//! line carries the FNV-1a hash of both, so a change to the generator's input function
//! fails the test instead of comparing against other inputs. The PTX files are committed
//! (the generator may change; the recorded text is what the GPU ran).
//!
//! **Benchmark kernels** (`tests/golden/bench/`, written by its `gen.py`): saxpy, the block
//! reductions and the barrier loops of `benches/`, bit for bit with the GPU's bytes; the
//! other kernels of `benches/` (mandelbrot, bytecode, histograms, warp_reduce, sgemm,
//! n-body, block scan), which no GPU has recorded yet, bit for bit with `ref.py`'s exact
//! reference (a GPU recording in `out/` replaces it: see `bench/gpu_run.sh`).
//!
//! `export` (ignored) writes a new recording folder of generated programs:
//! `GOLDEN_FUZZ_DIR=/tmp/x GOLDEN_FUZZ_N=300 [GOLDEN_FUZZ_FROM=SEED] cargo test --release
//! --test golden_fuzz -- --ignored export`, then `canon.py` on each PTX file (see the README).

#[path = "../fuzz/src/gen/mod.rs"]
#[allow(dead_code)]
mod gen;

mod gpu_cases;

use arbitrary::{Arbitrary, Unstructured};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// FNV-1a, 64 bits.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn atom_bytes() -> usize {
    (gen::ATOM_SLOTS * 8) as usize
}

/// The `in` and `atom` buffers of a program whose input seed is `seed`.
fn inputs(seed: u64) -> (Vec<u8>, Vec<u8>) {
    (
        gen::input_bytes(seed, gen::IN_BYTES),
        gen::input_bytes(seed ^ 0xa70, atom_bytes()),
    )
}

/// What one launch left: its error, and the `out` and `atom` buffers.
struct Outcome {
    error: Option<String>,
    out: Vec<u8>,
    atom: Vec<u8>,
}

#[allow(clippy::too_many_arguments)]
fn launch(
    dev: &Device,
    m: &ptxjit::Module,
    grid: u32,
    block: u32,
    input: &[u8],
    atom: &[u8],
    out_bytes: usize,
    backend: Backend,
) -> Outcome {
    let bi = dev.alloc_zeroed(input.len()).expect("alloc in");
    let bo = dev.alloc_zeroed(out_bytes).expect("alloc out");
    let ba = dev.alloc_zeroed(atom.len()).expect("alloc atom");
    dev.write(&bi, input).expect("write in");
    dev.write(&ba, atom).expect("write atom");
    let cfg = LaunchConfig::new(grid, block)
        .backend(backend)
        .timeout(Some(Duration::from_secs(20)));
    let args = [
        KernelArg::from(&bi),
        KernelArg::from(&bo),
        KernelArg::from(&ba),
    ];
    let error = dev.launch(m, "k", &cfg, &args).err().map(|e| e.to_string());
    let out = dev.read::<u8>(&bo).expect("read out");
    let atom = dev.read::<u8>(&ba).expect("read atom");
    for b in [bi, bo, ba] {
        dev.free(b).expect("free");
    }
    Outcome { error, out, atom }
}

/// Writes a recording folder for the device run: `ptx/`, `in/`, `cases.txt` in
/// `gpurun.c`'s format. Programs whose run faults on ptxjit (the generator's deliberate
/// out-of-bounds loads) or whose backends disagree are skipped; seeds are taken in order
/// until `GOLDEN_FUZZ_N` programs are kept.
#[test]
#[ignore = "writes a recording folder (GOLDEN_FUZZ_DIR)"]
fn export() {
    let root = PathBuf::from(std::env::var("GOLDEN_FUZZ_DIR").expect("GOLDEN_FUZZ_DIR"));
    let want: usize = std::env::var("GOLDEN_FUZZ_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    for d in ["ptx", "in"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    let dev = Device::new().expect("device");
    let mut lines =
        vec!["# Generated programs of fuzz/src/gen (tests/golden_fuzz.rs, `export`).".to_string()];
    let (mut kept, mut faulted) = (0, 0);
    // GOLDEN_FUZZ_FROM: the first seed (a later recording takes seeds no earlier one took).
    let from: u64 = std::env::var("GOLDEN_FUZZ_FROM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut seed = from;
    while kept < want {
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        seed += 1;
        let Ok(p) = gen::Program::arbitrary(&mut Unstructured::new(&data)) else {
            continue;
        };
        let name = format!("fz{}", seed - 1);
        let m = dev
            .load_ptx(&p.src, "gen.ptx")
            .expect("generated program loads");
        let (input, atom) = inputs(p.seed);
        let runs: Vec<Outcome> = [Backend::Interp, Backend::Jit]
            .into_iter()
            .map(|b| launch(&dev, &m, p.grid, p.block, &input, &atom, p.out_bytes(), b))
            .collect();
        if runs.iter().any(|o| o.error.is_some()) {
            faulted += 1;
            continue;
        }
        assert!(
            runs[0].out == runs[1].out && runs[0].atom == runs[1].atom,
            "{name}: the backends differ"
        );
        std::fs::write(root.join("ptx").join(format!("{name}.ptx")), &p.src).expect("write");
        std::fs::write(root.join("in").join(format!("{name}_in.bin")), &input).expect("write");
        std::fs::write(root.join("in").join(format!("{name}_atom.bin")), &atom).expect("write");
        lines.push(format!(
            "case {name} {name}.ptx k {} {} in:{name}_in.bin out:{name}_out.bin:{} \
             io:{name}_atom.bin:{name}_atom.bin seed={:#x} in_fnv={:#x} atom_fnv={:#x}",
            p.grid,
            p.block,
            p.out_bytes(),
            p.seed,
            fnv(&input),
            fnv(&atom)
        ));
        kept += 1;
    }
    lines.push(String::new());
    std::fs::write(root.join("cases.txt"), lines.join("\n")).expect("write cases");
    println!("kept {kept} programs of seeds {from}..{seed}, {faulted} faulted");
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Why a generated program cannot be compared with a GPU, if it cannot:
/// - `setp` naming one predicate as both `p` and `q` (`setp.. %p1|%p1`): which write wins
///   is not defined (ptxjit writes `q` last; the GPU's values differ);
/// - a guarded `testp`: NVIDIA's compiler drops the guard (ptxas 12.9 and the 580 driver
///   compile `@%p2 testp.notanumber.f32 %p0, %f0` to an unconditional `ISETP`; `setp` and
///   `mov.pred` keep theirs), so the GPU runs a different program;
/// - `activemask`: the generator places it in converged code after a divergent region, but
///   a GPU need not reconverge there (independent thread scheduling): the H200 returned
///   partial masks.
fn not_comparable(src: &str) -> Option<&'static str> {
    // Each instruction as (opcode, first operand), guard dropped.
    let insts = || {
        src.lines().filter_map(|l| {
            let l = l.trim();
            let l = match l.strip_prefix('@') {
                Some(r) => r.split_once(char::is_whitespace)?.1.trim_start(),
                None => l,
            };
            let mut w = l.split_whitespace();
            Some((w.next()?, w.next().unwrap_or("")))
        })
    };
    let same_pq = insts().any(|(op, d)| {
        op.starts_with("setp")
            && d.trim_end_matches(',')
                .split_once('|')
                .is_some_and(|(p, q)| p == q)
    });
    if same_pq {
        return Some("setp with p = q");
    }
    let guarded_testp = src.lines().map(str::trim).any(|l| {
        l.starts_with('@')
            && l.split_whitespace()
                .nth(1)
                .is_some_and(|op| op.starts_with("testp"))
    });
    if guarded_testp {
        return Some("guarded testp");
    }
    // `activemask` depends on whether the GPU reconverged after divergent code, except
    // right after a `bar.warp.sync -1` (which the generator now puts before it).
    let ops: Vec<_> = insts().collect();
    ops.iter()
        .enumerate()
        .any(|(i, (op, _))| {
            op.starts_with("activemask") && (i == 0 || ops[i - 1] != ("bar.warp.sync", "-1;"))
        })
        .then_some("activemask without bar.warp.sync -1 before it")
}

/// The program with the documented rule `BFE64` of `tests/golden_rules` applied: the GPU
/// takes a 64-bit `bfe`/`bfi`'s position and length as whole 32-bit values where the ISA
/// takes them modulo 256. Clamping both to 64 first (`min.u32`) gives the GPU's result
/// under the ISA's semantics: a position of 64 or more selects no source bit (`bfe`: the
/// sign fill; `bfi`: nothing inserted), a length of 64 or more takes every bit there is.
fn bfe64_model(src: &str) -> String {
    let mut out = String::new();
    for line in src.lines() {
        let t = line.trim_start();
        let (guard, rest) = match t.strip_prefix('@') {
            Some(r) => {
                let (g, r) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
                (format!("@{g} "), r.trim_start())
            }
            None => (String::new(), t),
        };
        let op = rest.split_whitespace().next().unwrap_or("");
        let (pos, len) = match op {
            "bfe.u64" | "bfe.s64" => (2, 3),
            "bfi.b64" => (3, 4),
            _ => {
                out.push_str(line);
                out.push('\n');
                if t.starts_with(".reg .pred %q<4>;") {
                    out.push_str("\t.reg .b32 %bfe64_pos, %bfe64_len;\n");
                }
                continue;
            }
        };
        let body = rest[op.len()..].trim().trim_end_matches(';');
        let mut ops: Vec<String> = body.split(',').map(|o| o.trim().to_string()).collect();
        for (i, tmp) in [(pos, "%bfe64_pos"), (len, "%bfe64_len")] {
            if ops[i].starts_with('%') {
                out.push_str(&format!("\tmin.u32 {tmp}, {}, 64;\n", ops[i]));
                ops[i] = tmp.to_string();
            } else {
                let v = gpu_cases::num(&ops[i]).min(64);
                ops[i] = v.to_string();
            }
        }
        out.push_str(&format!("\t{guard}{op} {};\n", ops.join(", ")));
    }
    out
}

/// A case of `tests/golden/fuzz/cases.txt`.
struct FuzzCase {
    name: String,
    grid: u32,
    block: u32,
    out_bytes: usize,
    meta: BTreeMap<String, u64>,
}

fn fuzz_cases() -> Vec<FuzzCase> {
    let text = String::from_utf8(read(dir().join("fuzz/cases.txt"))).expect("UTF-8");
    let mut cases = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let out_bytes = t
            .iter()
            .find_map(|a| a.strip_prefix("out:"))
            .and_then(|a| a.rsplit_once(':'))
            .map(|(_, n)| gpu_cases::num(n) as usize)
            .expect("out:FILE:BYTES");
        cases.push(FuzzCase {
            name: t[1].to_string(),
            grid: t[4].parse().expect("grid"),
            block: t[5].parse().expect("block"),
            out_bytes,
            meta: t[6..]
                .iter()
                .filter_map(|a| a.split_once('='))
                .map(|(k, v)| (k.to_string(), gpu_cases::num(v)))
                .collect(),
        });
    }
    cases
}

/// Which thread and field of a generated program's output byte `at` is.
fn describe(c: &FuzzCase, at: usize) -> String {
    let rows = (c.grid * c.block * gen::OUT_ROW) as usize;
    if at >= rows {
        return format!("shared atomic slot {} (byte {at})", (at - rows) / 8);
    }
    let (t, o) = (at / gen::OUT_ROW as usize, at % gen::OUT_ROW as usize);
    let field = gen::out_row_field(o);
    format!("thread {t}, {field}")
}

/// Compares one buffer in units of `unit` bytes (a thread's row, or 8-byte slots):
/// a unit that differs is excused when the BFE64 model gives the GPU's bytes there.
#[allow(clippy::too_many_arguments)]
fn compare(
    c: &FuzzCase,
    what: &str,
    unit: usize,
    gpu: &[u8],
    got: &[u8],
    model: Option<&[u8]>,
    excused: &mut usize,
    failures: &mut Vec<String>,
) {
    if gpu.len() != got.len() {
        failures.push(format!(
            "{} {what}: {} bytes, GPU {}",
            c.name,
            got.len(),
            gpu.len()
        ));
        return;
    }
    for (i, (g, p)) in gpu.chunks(unit).zip(got.chunks(unit)).enumerate() {
        if g == p {
            continue;
        }
        if model.is_some_and(|m| m.chunks(unit).nth(i) == Some(g)) {
            *excused += 1;
            continue;
        }
        let k = g.iter().zip(p).position(|(x, y)| x != y).unwrap_or(0);
        let at = i * unit + k;
        let w = at & !3;
        failures.push(format!(
            "{} {what}: {}: GPU {:02x?}, ptxjit {:02x?}",
            c.name,
            if what == "out" {
                describe(c, at)
            } else {
                format!("atom slot {}", at / 8)
            },
            &gpu[w..w + 4],
            &got[w..w + 4],
        ));
    }
}

fn golden_fuzz(backend: Backend) {
    let cases = fuzz_cases();
    assert!(cases.len() >= 100, "{} generated cases", cases.len());
    let dev = Device::new().expect("device");
    let mut failures = Vec::new();
    let mut excused_total = 0;
    for c in &cases {
        let src =
            String::from_utf8(read(dir().join(format!("fuzz/ptx/{}.ptx", c.name)))).expect("UTF-8");
        if let Some(why) = not_comparable(&src) {
            failures.push(format!("{}: not comparable with a GPU ({why})", c.name));
            continue;
        }
        let (input, atom) = inputs(c.meta["seed"]);
        assert_eq!(fnv(&input), c.meta["in_fnv"], "{}: in differs", c.name);
        assert_eq!(fnv(&atom), c.meta["atom_fnv"], "{}: atom differs", c.name);
        let run = |src: &str| {
            let m = dev
                .load_ptx_with(src, &format!("{}.ptx", c.name), backend == Backend::Jit)
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            launch(
                &dev,
                &m,
                c.grid,
                c.block,
                &input,
                &atom,
                c.out_bytes,
                backend,
            )
        };
        let o = run(&src);
        if let Some(e) = o.error {
            failures.push(format!("{}: {e}", c.name));
            continue;
        }
        let gpu_out = read(dir().join(format!("fuzz/out/{}_out.bin", c.name)));
        let gpu_atom = read(dir().join(format!("fuzz/out/{}_atom.bin", c.name)));
        let model = (o.out != gpu_out || o.atom != gpu_atom)
            .then(|| {
                let m = bfe64_model(&src);
                (m != src).then(|| run(&m))
            })
            .flatten();
        let mut excused = 0;
        let rows = (c.grid * c.block * gen::OUT_ROW) as usize;
        let row = gen::OUT_ROW as usize;
        let (g_rows, g_tail) = gpu_out.split_at(rows.min(gpu_out.len()));
        let (p_rows, p_tail) = o.out.split_at(rows.min(o.out.len()));
        let m_out = model
            .as_ref()
            .map(|m| m.out.split_at(rows.min(m.out.len())));
        let (m_rows, m_tail) = (m_out.map(|m| m.0), m_out.map(|m| m.1));
        compare(
            c,
            "out",
            row,
            g_rows,
            p_rows,
            m_rows,
            &mut excused,
            &mut failures,
        );
        let m_atom = model.as_ref().map(|m| &m.atom[..]);
        compare(
            c,
            "out",
            8,
            g_tail,
            p_tail,
            m_tail,
            &mut excused,
            &mut failures,
        );
        compare(
            c,
            "atom",
            8,
            &gpu_atom,
            &o.atom,
            m_atom,
            &mut excused,
            &mut failures,
        );
        if excused > 0 {
            println!(
                "golden_fuzz ({backend:?}): {}: {excused} rows or slots excused by BFE64 \
                 (they equal the rule's model)",
                c.name
            );
            excused_total += excused;
        }
    }
    println!(
        "golden_fuzz ({backend:?}): {} programs, {excused_total} rows or slots excused by BFE64",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{backend:?}: {} differences from the GPU:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `N`, `XxY` or `XxYxZ` of a case line's grid or block.
fn dims(s: &str) -> (u32, u32, u32) {
    let mut d = s
        .split('x')
        .map(|v| v.parse::<u32>().expect("grid/block size"));
    let x = d.next().expect("size");
    (x, d.next().unwrap_or(1), d.next().unwrap_or(1))
}

fn golden_bench(backend: Backend) {
    let base = dir().join("bench");
    let text = String::from_utf8(read(base.join("cases.txt"))).expect("UTF-8");
    let dev = Device::new().expect("device");
    let (mut gpu, mut reference) = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let src = String::from_utf8(read(base.join("ptx").join(t[2]))).expect("UTF-8");
        let m = dev
            .load_ptx_with(&src, t[2], backend == Backend::Jit)
            .expect("load");
        let args: Vec<gpu_cases::Arg> = t[6..].iter().map(|a| gpu_cases::parse_arg(a)).collect();
        let cfg = LaunchConfig::new(dims(t[4]), dims(t[5]));
        let ran = gpu_cases::launch(&dev, &m, t[3], cfg, &args, &base.join("in"), backend)
            .unwrap_or_else(|e| panic!("{}: {e}", t[1]));
        for (file, got) in ran.outputs {
            // The GPU's bytes where a GPU recorded this output, else ref.py's exact reference.
            let (want, from, n) = match std::fs::read(base.join("out").join(&file)) {
                Ok(b) => (b, "the GPU", &mut gpu),
                Err(_) => (read(base.join("ref").join(&file)), "ref.py", &mut reference),
            };
            assert_eq!(want.len(), got.len(), "{}: {file} size", t[1]);
            let first = want
                .chunks(4)
                .zip(got.chunks(4))
                .position(|(w, g)| w != g)
                .map(|i| {
                    format!(
                        "word {i}: {:02x?} (want) vs {:02x?}",
                        &want[4 * i..][..4],
                        &got[4 * i..][..4]
                    )
                });
            assert!(
                first.is_none(),
                "{backend:?}: {} ({file}) differs from {from}: first at {}",
                t[1],
                first.unwrap_or_default()
            );
            *n += 1;
        }
    }
    println!("golden_bench ({backend:?}): {gpu} outputs equal the GPU's, {reference} ref.py's");
    assert_eq!((gpu, reference), (5, 14), "benchmark outputs compared");
}

#[test]
fn golden_fuzz_jit() {
    golden_fuzz(Backend::Jit);
}

#[test]
fn golden_fuzz_interp() {
    golden_fuzz(Backend::Interp);
}

#[test]
fn golden_bench_jit() {
    golden_bench(Backend::Jit);
}

#[test]
fn golden_bench_interp() {
    golden_bench(Backend::Interp);
}
