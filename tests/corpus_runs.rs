//! Corpus runs: kernels of the PTX corpus (`tests/corpus/`: Triton, NVRTC, clang,
//! numba-cuda and llc output) run on seeded inputs on both backends, and every output buffer
//! is compared with the bytes an NVIDIA H100 wrote for the same PTX and inputs
//! (`tests/corpus_runs/out/`) and with a numpy reference computed independently
//! (`tests/corpus_runs/ref/`, written by `tests/corpus_runs/gen.py`).
//!
//! Each output carries `check:FILE=DTYPE,GPU,REF` in `cases.txt`: `0` means bit-exact,
//! a number `t` means `|got - want| <= t * max|want|` over the buffer (NaN only where the
//! expected value is NaN), `-` means not compared. The case's `why=` token says why an
//! output is not bit-exact (approximate instructions, float atomics, sums in another order
//! than numpy's). See `tests/corpus_runs/README.md`.

mod gpu_cases;

use gpu_cases::{num, parse_arg, Arg};
use ptxjit::{Backend, Device, LaunchConfig};
use std::collections::HashMap;
use std::path::PathBuf;

/// How one output buffer is checked.
#[derive(Debug)]
struct Check {
    dtype: String,
    gpu: Option<f64>,
    reference: Option<f64>,
}

/// One line of cases.txt.
#[derive(Debug)]
struct Case {
    name: String,
    ptx: String,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: Vec<Arg>,
    checks: HashMap<String, Check>,
    why: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dir() -> PathBuf {
    root().join("tests/corpus_runs")
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parse_dim(s: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, p) in s.split('x').enumerate() {
        d[i] = num(p) as u32;
    }
    d
}

fn parse_tol(s: &str) -> Option<f64> {
    (s != "-").then(|| {
        s.parse()
            .unwrap_or_else(|e| panic!("bad tolerance {s}: {e}"))
    })
}

fn parse_cases() -> Vec<Case> {
    let text = String::from_utf8(read(dir().join("cases.txt"))).expect("cases.txt is UTF-8");
    let mut cases = Vec::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.first() != Some(&"case") {
            continue;
        }
        assert!(t.len() >= 6, "short case line: {line}");
        let (meta, args): (Vec<&str>, Vec<&str>) = t[6..].iter().partition(|a| a.contains('='));
        let mut c = Case {
            name: t[1].to_string(),
            ptx: t[2].to_string(),
            kernel: t[3].to_string(),
            grid: parse_dim(t[4]),
            block: parse_dim(t[5]),
            shared: 0,
            args: args.iter().map(|a| parse_arg(a)).collect(),
            checks: HashMap::new(),
            why: String::new(),
        };
        for m in meta {
            let (k, v) = m.split_once('=').expect("KEY=VALUE");
            if k == "shared" {
                c.shared = num(v) as u32;
            } else if k == "why" {
                c.why = v.to_string();
            } else if let Some(file) = k.strip_prefix("check:") {
                let p: Vec<&str> = v.split(',').collect();
                assert_eq!(p.len(), 3, "check:{file}={v}");
                let check = Check {
                    dtype: p[0].to_string(),
                    gpu: parse_tol(p[1]),
                    reference: parse_tol(p[2]),
                };
                c.checks.insert(file.to_string(), check);
            }
        }
        cases.push(c);
    }
    cases
}

fn run_case(
    dev: &Device,
    m: &ptxjit::Module,
    c: &Case,
    backend: Backend,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let cfg = LaunchConfig::new(c.grid, c.block).shared_bytes(c.shared);
    gpu_cases::launch(dev, m, &c.kernel, cfg, &c.args, &dir().join("in"), backend)
        .map(|ran| ran.outputs)
}

#[path = "corpus_runs/cmp.rs"]
mod cmp;
use cmp::compare;

fn corpus_runs(backend: Backend) {
    let cases = parse_cases();
    assert!(cases.len() >= 40, "cases.txt has {} cases", cases.len());
    let dev = Device::new().expect("Device::new");
    let mut modules: HashMap<String, Result<ptxjit::Module, String>> = HashMap::new();
    let mut failures = Vec::new();
    let mut generators: HashMap<String, usize> = HashMap::new();
    for c in &cases {
        let m = modules.entry(c.ptx.clone()).or_insert_with(|| {
            let src = String::from_utf8_lossy(&read(root().join(&c.ptx))).into_owned();
            dev.load_ptx_with(&src, &c.ptx, backend == Backend::Jit)
                .map_err(|e| e.to_string())
        });
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: module {} does not load: {e}", c.name, c.ptx));
                continue;
            }
        };
        let outs = match run_case(&dev, m, c, backend) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{}: {e}", c.name));
                continue;
            }
        };
        let mut ok = true;
        for (file, got) in outs {
            let check = c
                .checks
                .get(&file)
                .unwrap_or_else(|| panic!("{}: no check for {file}", c.name));
            let gpu = std::fs::read(dir().join("out").join(&file)).ok();
            let want = read(dir().join("ref").join(&file));
            for (what, expected, tol) in [
                ("GPU", gpu, check.gpu),
                ("numpy", Some(want), check.reference),
            ] {
                let Some(tol) = tol else { continue };
                let Some(expected) = expected else {
                    failures.push(format!("{} ({file}): no GPU output recorded", c.name));
                    ok = false;
                    continue;
                };
                match compare(&check.dtype, &expected, &got, tol) {
                    Ok(Some(err)) => println!("{backend:?} {} {file} vs {what}: max error {err:.3e} of max|want| (tolerance {tol:e}; {})", c.name, c.why),
                    Ok(None) => {}
                    Err(msg) => {
                        failures.push(format!("{} ({file}) vs {what}: {msg} [{}]", c.name, c.why));
                        ok = false;
                    }
                }
            }
        }
        if ok {
            let generator = c.ptx.split('/').nth(2).unwrap_or("?").to_string();
            *generators.entry(generator).or_default() += 1;
        }
    }
    let mut per_gen: Vec<_> = generators.into_iter().collect();
    per_gen.sort();
    println!(
        "{backend:?}: {} cases; passing per generator: {per_gen:?}",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{backend:?}: {} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(per_gen.len() >= 4 && per_gen.iter().map(|g| g.1).sum::<usize>() >= 40);
}

#[test]
fn corpus_runs_jit() {
    corpus_runs(Backend::Jit);
}

#[test]
fn corpus_runs_interp() {
    corpus_runs(Backend::Interp);
}
