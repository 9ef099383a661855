//! The shape checker over a broad subset of the repository's kernels: every case of the
//! corpus runs (`tests/corpus_runs/cases.txt`: Triton, NVRTC, clang, numba-cuda and llc
//! output) and of the golden instruction tests (`tests/golden/cases.txt`) runs on the
//! interpreter with `LaunchConfig::check_shapes`, which verifies at every block entry and
//! after every instruction each uniform or affine claim of `ir::analysis::shape` over
//! the active lanes. Each case that runs without the checker must run with it (the
//! checker only reads registers; the golden and corpus tests compare the outputs).

mod gpu_cases;

use gpu_cases::{num, parse_arg, Arg};
use ptxjit::{Backend, Device, LaunchConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

struct Case {
    name: String,
    ptx: PathBuf,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: Vec<Arg>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse_dim(s: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, p) in s.split('x').enumerate() {
        d[i] = num(p) as u32;
    }
    d
}

/// The cases of a case list; PTX paths are relative to `ptx_dir`.
fn parse_cases(list: &Path, ptx_dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(list)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", list.display()));
    let mut cases = Vec::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.first() != Some(&"case") {
            continue;
        }
        assert!(t.len() >= 6, "short case line: {line}");
        let (meta, args): (Vec<&str>, Vec<&str>) = t[6..].iter().partition(|a| a.contains('='));
        let shared = meta
            .iter()
            .find_map(|m| m.strip_prefix("shared="))
            .map_or(0, |v| num(v) as u32);
        cases.push(Case {
            name: t[1].to_string(),
            ptx: ptx_dir.join(t[2]),
            kernel: t[3].to_string(),
            grid: parse_dim(t[4]),
            block: parse_dim(t[5]),
            shared,
            args: args.iter().map(|a| parse_arg(a)).collect(),
        });
    }
    cases
}

/// Runs every case on the interpreter with and without the checker; returns the
/// failures and the number of cases that ran.
fn check_all(cases: &[Case], indir: &Path) -> (Vec<String>, usize) {
    let dev = Device::new().expect("Device::new");
    let mut modules: HashMap<PathBuf, Option<ptxjit::Module>> = HashMap::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for c in cases {
        let m = modules.entry(c.ptx.clone()).or_insert_with(|| {
            let src = std::fs::read_to_string(&c.ptx).ok()?;
            let name = c.ptx.file_name()?.to_string_lossy().into_owned();
            dev.load_ptx_with(&src, &name, false).ok()
        });
        // Modules ptxjit cannot load are the golden and corpus tests' business.
        let Some(m) = m else { continue };
        let run = |check: bool| {
            let cfg = LaunchConfig::new(c.grid, c.block)
                .shared_bytes(c.shared)
                .check_shapes(check);
            gpu_cases::launch(&dev, m, &c.kernel, cfg, &c.args, indir, Backend::Interp)
                .map(|r| r.outputs)
        };
        let plain = run(false);
        let checked = run(true);
        ran += 1;
        if let (Ok(_), Err(e)) = (plain, checked) {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    (failures, ran)
}

#[test]
fn corpus_runs_under_the_shape_checker() {
    let dir = root().join("tests/corpus_runs");
    let cases = parse_cases(&dir.join("cases.txt"), &root());
    assert!(cases.len() >= 100, "{} corpus cases", cases.len());
    let (failures, ran) = check_all(&cases, &dir.join("in"));
    assert!(ran >= 100, "only {ran} corpus cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_cases_under_the_shape_checker() {
    let dir = root().join("tests/golden");
    let cases = parse_cases(&dir.join("cases.txt"), &dir.join("ptx"));
    assert!(cases.len() >= 300, "{} golden cases", cases.len());
    let (failures, ran) = check_all(&cases, &dir.join("in"));
    assert!(ran >= 300, "only {ran} golden cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
