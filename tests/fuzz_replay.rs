//! Replays the fuzz targets' committed inputs without a fuzzer: every file under
//! `fuzz/regressions/<target>/` and `fuzz/seeds/<target>/` goes through the same check
//! as in `fuzz/` (the check code and the generators are the fuzz crate's own files,
//! included here), and a fixed set of generated programs and launches run too.

#[path = "../fuzz/src/gen/mod.rs"]
#[allow(dead_code)]
mod gen;
#[path = "../fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../fuzz/src/launch.rs"]
#[allow(dead_code)]
mod launch;

use arbitrary::{Arbitrary, Unstructured};
use std::path::{Path, PathBuf};

/// The committed inputs of `target`, sorted.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut out = Vec::new();
    for dir in ["regressions", "seeds"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            out.push((f, data));
        }
    }
    out
}

#[test]
fn parse_check_regressions() {
    for (f, data) in inputs("parse_check") {
        eprintln!("{}", f.display());
        harness::parse_check(&data);
    }
}

#[test]
fn compile_regressions() {
    for (f, data) in inputs("compile") {
        eprintln!("{}", f.display());
        harness::compile(&data);
    }
}

#[test]
fn differential_corpus() {
    for (f, data) in inputs("differential") {
        eprintln!("{}", f.display());
        if let Ok(p) = gen::Program::arbitrary(&mut Unstructured::new(&data)) {
            harness::differential(&p);
        }
    }
}

/// Generated programs kept as PTX text (`fuzz/regressions/differential_ptx/*.ptx`, the
/// generator may change): each file's first line is `// grid G block B seed 0xS out N`,
/// N the bytes of `out` it is replayed with (at least what it was generated for). The
/// buffers are sized by today's generator (`Program::out_bytes`); were its layout to
/// shrink, a kept program would write past its `out` into other tests' buffers, so a
/// changed size fails here, naming the file to check or generate again.
#[test]
fn differential_committed_ptx() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/differential_ptx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        eprintln!("{}", f.display());
        let src = std::fs::read_to_string(&f).unwrap();
        let head: Vec<&str> = src.lines().next().unwrap().split_whitespace().collect();
        let [_, "grid", grid, "block", block, "seed", seed, "out", out] = head[..] else {
            panic!(
                "{}: first line is not `// grid G block B seed 0xS out N`",
                f.display()
            );
        };
        let out: usize = out.parse().unwrap();
        let p = gen::Program {
            shared_atoms: src.contains("@%q0 ld.shared.u64"),
            grid: grid.parse().unwrap(),
            block: block.parse().unwrap(),
            seed: u64::from_str_radix(seed.trim_start_matches("0x"), 16).unwrap(),
            src,
        };
        assert_eq!(
            p.out_bytes(),
            out,
            "{}: kept for an `out` of {out} bytes, the generator's layout now gives {}: \
             generate the program again (fuzz/README.md)",
            f.display(),
            p.out_bytes()
        );
        harness::differential(&p);
    }
}

#[test]
fn differential_generated() {
    let n: u64 = std::env::var("FUZZ_REPLAY_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    // FUZZ_REPLAY_FROM: the first seed (for long runs past the default ones).
    let from: u64 = std::env::var("FUZZ_REPLAY_FROM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for seed in from..from + n {
        if std::env::var("FUZZ_REPLAY_VERBOSE").is_ok() {
            eprintln!("seed {seed}");
        }
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
        harness::differential(&p);
        if std::env::var("FUZZ_REPLAY_STATS").is_ok() {
            let m = harness::device().load_ptx(&p.src, "gen.ptx").unwrap();
            let bufs = harness::ProgramBuffers::new(&p);
            let o = bufs.run(&m, &p, ptxjit::Backend::Jit);
            bufs.free();
            let ends = o.buffers[0]
                .chunks(gen::OUT_ROW as usize)
                .take((p.grid * p.block) as usize)
                .filter(|r| r[156..160] == 0xE0Du32.to_le_bytes())
                .count();
            eprintln!(
                "STAT seed {seed} threads {} ends {ends} error {:?}",
                p.grid * p.block,
                o.error
            );
        }
    }
}

/// The generator's batch programs stay batchable (`src/runtime/launch.rs`, `batch_size`:
/// no calls, no barriers, at least 128 CTAs on the one-worker device) and small, and
/// shifting accesses (`fuzz/src/gen/shape.rs`) occur in batch programs and others.
#[test]
fn generator_batch_programs() {
    let (mut batch, mut shifting, mut batch_shifting) = (0, 0, 0);
    for seed in 0..200u64 {
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
        let shifts = p.src.contains("ld.shared.u32 %s5") || p.src.contains("[%sd1");
        shifting += usize::from(shifts);
        if p.grid >= gen::BATCH_GRID[0] {
            batch += 1;
            batch_shifting += usize::from(shifts);
            assert!(p.grid <= gen::BATCH_GRID[1] && p.block <= gen::BATCH_MAX_BLOCK);
            for word in ["bar.sync", "barrier.sync", "bar.red", "call"] {
                let used = p.src.contains(word);
                assert!(!used, "seed {seed}: a batch program uses {word}\n{p:?}");
            }
        } else {
            assert!(p.grid <= gen::MAX_GRID);
        }
    }
    eprintln!("{batch} batch programs, {shifting} with shifting accesses ({batch_shifting} both)");
    assert!((10..=50).contains(&batch), "{batch} batch programs of 200");
    assert!(
        shifting >= 10 && batch_shifting >= 2,
        "{shifting}, {batch_shifting}"
    );
}

/// The generator's 16-bit, half-precision, sub-word and vector forms (`fuzz/src/gen/
/// half.rs`, `vmem.rs`) occur in a share of the programs, and sm_90-only bf16 forms only
/// in modules that target sm_90.
#[test]
fn generator_half_and_vector_forms() {
    let forms = [
        ".u16 ",
        ".s16 ",
        ".f16 ",
        ".bf16 ",
        ".f16x2 ",
        ".bf16x2 ",
        "mov.b64 {%h",
        "mov.b64 {%r",
        "f16x2.f32",
        "bf16x2.f32",
        ".s8 ",
        "ld.global.nc.v4",
        "st.global.u8",
        "st.shared.u8",
        "st.local.v",
        ".v2.f64",
        ".v4.b16",
        "[%td6+",
        "mad.lo.u16 %th",
    ];
    let mut seen = vec![0u32; forms.len()];
    for seed in 0..200u64 {
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
        // The generated part (after the fixed start, which has some of these forms).
        let body = p.src.split("add.s64 %vb, %vb").nth(1).unwrap();
        for (n, f) in seen.iter_mut().zip(forms) {
            *n += u32::from(body.contains(f));
        }
        if p.src.contains(".target sm_90") {
            continue;
        }
        // sm_90 only: add/sub/mul/setp/set on bf16, cvt between bf16 and not-f32.
        for l in p.src.lines() {
            let op = l.split_whitespace().find(|w| !w.starts_with('@'));
            let Some(op) = op.filter(|o| o.contains("bf16")) else {
                continue;
            };
            let sm90 = ["add.", "sub.", "mul.", "setp.", "set."]
                .iter()
                .any(|x| op.starts_with(x))
                || (op.starts_with("cvt.") && !op.contains("f32"));
            assert!(!sm90, "seed {seed}: an sm_80 module has {l}\n{p:?}");
        }
    }
    eprintln!("{:?}", forms.iter().zip(&seen).collect::<Vec<_>>());
    for (f, n) in forms.iter().zip(&seen) {
        assert!(*n >= 2, "{f:?} in {n} of 200 programs");
    }
}

/// The generator's warp-and-lane sections (`fuzz/src/gen/shape.rs` `warp_lane`: values
/// such as `tid >> 5`, `tid & 31`, `pid << 10 | tid` that the shape analysis calls
/// uniform or affine) occur in a share of the programs, with each kind of operation.
#[test]
fn generator_warp_lane_sections() {
    let forms = [
        " W",
        "shr.u32 %c5",
        "shr.s32 %c5",
        "and.b32 %c5",
        "or.b32 %c5",
        "xor.b32 %c5",
        "rem.u32 %c5",
        "div.u32 %c5",
        ", %c5, %c7;",
    ];
    let mut seen = vec![0u32; forms.len()];
    for seed in 0..400u64 {
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
        for (n, f) in seen.iter_mut().zip(forms) {
            *n += u32::from(p.src.contains(f));
        }
    }
    eprintln!("{:?}", forms.iter().zip(&seen).collect::<Vec<_>>());
    for (f, n) in forms.iter().zip(&seen) {
        assert!(*n >= 2, "{f:?} in {n} of 400 programs");
    }
}

#[test]
fn launch_corpus() {
    for (f, data) in inputs("launch") {
        eprintln!("{}", f.display());
        if let Ok(i) = launch::LaunchInput::arbitrary(&mut Unstructured::new(&data)) {
            harness::launch(&i);
        }
    }
}

#[test]
fn launch_generated() {
    let n: u64 = std::env::var("FUZZ_REPLAY_LAUNCHES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    for seed in 0..n {
        let data = gen::seed_bytes(seed ^ 0x1a, 200 + (seed as usize * 31) % 300);
        let i = launch::LaunchInput::arbitrary(&mut Unstructured::new(&data)).unwrap();
        harness::launch(&i);
    }
}

/// The generator's programs are valid PTX for NVIDIA's assembler (run with
/// `FUZZ_PTXAS=/path/to/ptxas cargo test --test fuzz_replay -- --ignored`).
#[test]
#[ignore = "needs ptxas (FUZZ_PTXAS)"]
fn generated_programs_pass_ptxas() {
    let ptxas = std::env::var("FUZZ_PTXAS").expect("FUZZ_PTXAS");
    let dir = std::env::temp_dir().join("ptxjit_fuzz_gen");
    std::fs::create_dir_all(&dir).unwrap();
    let n: u64 = std::env::var("FUZZ_PTXAS_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    for seed in 0..n {
        let data = gen::seed_bytes(seed, 600 + (seed as usize * 97) % 2000);
        let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
        let f = dir.join(format!("gen{seed}.ptx"));
        std::fs::write(&f, &p.src).unwrap();
        // The module's own target (sm_80, or sm_90 for bf16 arithmetic).
        let sm = if p.src.contains(".target sm_90") {
            "sm_90"
        } else {
            "sm_80"
        };
        let o = std::process::Command::new(&ptxas)
            .args(["--gpu-name", sm, "-o", "/dev/null"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "seed {seed}: {}\n{}",
            String::from_utf8_lossy(&o.stderr),
            f.display()
        );
    }
}

/// Runs one generated program saved as text (the `differential` target prints them):
/// `FUZZ_PTX=file.ptx FUZZ_GRID=2 FUZZ_BLOCK=64 FUZZ_SEED=0x.. cargo test --release
/// --test fuzz_replay -- --ignored replay_ptx`. For minimizing a finding by hand.
#[test]
#[ignore = "needs FUZZ_PTX"]
fn replay_ptx() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k}"));
    let num = |s: String| {
        s.strip_prefix("0x").map_or_else(
            || s.parse().unwrap(),
            |h| u64::from_str_radix(h, 16).unwrap(),
        )
    };
    let src = std::fs::read_to_string(var("FUZZ_PTX")).unwrap();
    let p = gen::Program {
        shared_atoms: src.contains("@%q0 ld.shared.u64"),
        src,
        grid: num(var("FUZZ_GRID")) as u32,
        block: num(var("FUZZ_BLOCK")) as u32,
        seed: num(var("FUZZ_SEED")),
    };
    harness::differential(&p);
}

/// Runs one input file of a target, as the fuzzer would (for triage):
/// `FUZZ_TARGET=launch FUZZ_INPUT=fuzz/artifacts/launch/crash-.. cargo test --release
/// --test fuzz_replay -- --ignored replay_input --nocapture`.
#[test]
#[ignore = "needs FUZZ_TARGET and FUZZ_INPUT"]
fn replay_input() {
    let target = std::env::var("FUZZ_TARGET").expect("FUZZ_TARGET");
    let data = std::fs::read(std::env::var("FUZZ_INPUT").expect("FUZZ_INPUT")).unwrap();
    let t = std::time::Instant::now();
    match target.as_str() {
        "parse_check" => harness::parse_check(&data),
        "compile" => harness::compile(&data),
        "differential" => {
            let p = gen::Program::arbitrary(&mut Unstructured::new(&data)).unwrap();
            eprintln!("{p:?}");
            harness::differential(&p);
        }
        "launch" => {
            let i = launch::LaunchInput::arbitrary(&mut Unstructured::new(&data)).unwrap();
            eprintln!("{i:?}");
            for o in i.run(harness::launch_device()) {
                eprintln!("{:?}", o.error);
            }
            harness::launch(&i);
        }
        t => panic!("unknown target {t}"),
    }
    eprintln!("took {:?}", t.elapsed());
}
