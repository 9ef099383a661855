//! Golden test: every case of `tests/golden/cases.txt` (written by `tests/golden/gen.py`)
//! runs on both backends and its output buffers are compared with the bytes a real GPU
//! (NVIDIA H100, see `tests/golden/README.md`) wrote for the same inputs (`tests/golden/out/`).
//!
//! Exact forms must match bit for bit, except lanes that a documented known difference
//! (`golden_rules::known`) excuses: each such difference is counted and printed, and every
//! other lane of the case is still compared. Approximate forms (`check=approx`) must be
//! within the ISA's bound of the GPU's result (`golden_rules::approx`); the worst error
//! is printed. Floating-point `mma` results are compared bit for bit, with statistics
//! (`golden_rules::mma`). A module that ptxjit cannot load fails the test unless
//! its cases are listed in `golden_rules::UNSUPPORTED`.
//!
//! The cases of `tests/golden/cases_future.txt` (GPU oracles recorded for features ptxjit
//! lacks, outputs in `tests/golden/out_future/`) whose PTX file is in [`FUTURE_RUNS`] run
//! too: the forms of that list that ptxjit implements today (the warp-level matrix
//! files kernel by kernel, [`PER_KERNEL`]; a case listed in [`FUTURE_LATER`] must fail
//! at load time with "not supported yet").

mod golden_rules;

use golden_rules::{Report, Verdict};
mod gpu_cases;

use gpu_cases::{parse_arg, Arg};
use ptxjit::{Backend, Device, LaunchConfig};
use std::collections::HashMap;
use std::path::PathBuf;

/// The PTX files of `cases_future.txt` whose cases ptxjit runs today.
const FUTURE_RUNS: [&str; 19] = [
    "future_mma_k16k32.ptx",
    "future_ldmatrix.ptx",
    "future_mulhi.ptx",
    "future_video.ptx",
    "future_mma.ptx",
    "future_mma87.ptx",
    "future_wmma.ptx",
    "future_stmatrix.ptx",
    "future_cp_async.ptx",
    "future_mbarrier.ptx",
    "future_atom128.ptx",
    "future_tex.ptx",
    "future_suld_1d.ptx",
    "future_suld_2d.ptx",
    "future_suld_3d.ptx",
    "future_suld_a1d.ptx",
    "future_suld_a2d.ptx",
    "future_sust.ptx",
    "future_sured.ptx",
];

/// Files of [`FUTURE_RUNS`] whose kernels load one by one (the file's header and the
/// case's `.entry`), so that a form ptxjit lacks fails only its own cases.
const PER_KERNEL: [&str; 4] = [
    "future_mma.ptx",
    "future_mma87.ptx",
    "future_wmma.ptx",
    "future_stmatrix.ptx",
];

/// Cases of [`PER_KERNEL`] files (by name prefix) that ptxjit does not run yet: their
/// kernels must fail at load time with a "not supported yet" error.
const FUTURE_LATER: &[(&str, &str)] = &[];

/// The text of `kernel` from a PTX file: everything before the first `.entry` (the
/// header) and that entry up to its closing brace at the start of a line.
fn one_kernel(src: &str, kernel: &str) -> Option<String> {
    let first = src.find(".visible .entry")?;
    let start = src.find(&format!(".visible .entry {kernel}("))?;
    let end = start + src[start..].find("\n}\n")? + 3;
    Some(format!("{}{}", &src[..first], &src[start..end]))
}

/// Cases whose launch failed on the GPU (`out_future/retry_surf.log`: `FAIL NAME: launch
/// of NAME: CUDA_ERROR_...`), with the error: ptxjit's launch must fail the same way.
fn gpu_launch_errors() -> HashMap<String, String> {
    let log = String::from_utf8(read(dir().join("out_future/retry_surf.log"))).expect("UTF-8");
    log.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("FAIL ")?;
            let (name, rest) = rest.split_once(": launch of ")?;
            Some((name.to_string(), rest.rsplit(": ").next()?.to_string()))
        })
        .collect()
}

/// One line of cases.txt.
#[derive(Debug)]
pub struct Case {
    pub name: String,
    /// The folder of the GPU's outputs (`out` or `out_future`).
    outdir: &'static str,
    ptx: String,
    kernel: String,
    grid: u32,
    block: u32,
    args: Vec<Arg>,
    pub meta: HashMap<String, String>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The cases of `list` whose PTX file `keep` accepts.
fn parse_cases(list: &str, outdir: &'static str, keep: impl Fn(&str) -> bool) -> Vec<Case> {
    let text = String::from_utf8(read(dir().join(list))).expect("case list is UTF-8");
    let mut cases = Vec::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.first() != Some(&"case") {
            continue;
        }
        assert!(t.len() >= 6, "short case line: {line}");
        if !keep(t[2]) {
            continue;
        }
        let (meta, args): (Vec<&str>, Vec<&str>) = t[6..].iter().partition(|a| a.contains('='));
        cases.push(Case {
            name: t[1].to_string(),
            outdir,
            ptx: t[2].to_string(),
            kernel: t[3].to_string(),
            grid: t[4].parse().expect("grid"),
            block: t[5].parse().expect("block"),
            args: args.iter().map(|a| parse_arg(a)).collect(),
            meta: meta
                .iter()
                .filter_map(|m| m.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        });
    }
    cases
}

/// A case's input buffers (in argument order) and its outputs by file name.
type Ran = (Vec<Vec<u8>>, Vec<(String, Vec<u8>)>);

fn run_case(dev: &Device, m: &ptxjit::Module, c: &Case, backend: Backend) -> Result<Ran, String> {
    let cfg = LaunchConfig::new(c.grid, c.block);
    let ran = gpu_cases::launch(dev, m, &c.kernel, cfg, &c.args, &dir().join("in"), backend)?;
    Ok((ran.inputs, ran.outputs))
}

fn golden(backend: Backend) {
    let mut cases = parse_cases("cases.txt", "out", |_| true);
    assert!(cases.len() > 300, "cases.txt has {} cases", cases.len());
    let future = parse_cases("cases_future.txt", "out_future", |p| {
        FUTURE_RUNS.contains(&p)
    });
    assert!(
        future.len() >= 69,
        "cases_future.txt: {} runnable cases",
        future.len()
    );
    cases.extend(future);
    let dev = Device::new().expect("Device::new");
    let mut modules: HashMap<String, Result<ptxjit::Module, String>> = HashMap::new();
    let mut failures = Vec::new();
    let mut report = Report::default();
    let gpu_errors = gpu_launch_errors();
    let only = std::env::var("PTXJIT_GOLDEN_ONLY").unwrap_or_default();
    let mut later = 0;
    for c in cases.iter().filter(|c| c.name.starts_with(&only)) {
        let per_kernel = PER_KERNEL.contains(&c.ptx.as_str());
        let key = if per_kernel {
            format!("{}:{}", c.ptx, c.kernel)
        } else {
            c.ptx.clone()
        };
        let m = modules.entry(key).or_insert_with(|| {
            let mut src = String::from_utf8(read(dir().join("ptx").join(&c.ptx))).expect("UTF-8");
            if per_kernel {
                src = one_kernel(&src, &c.kernel).expect("the case's kernel is in its file");
            }
            dev.load_ptx_with(&src, &c.ptx, backend == Backend::Jit)
                .map_err(|e| e.to_string())
        });
        let is_later = FUTURE_LATER.iter().any(|(p, _)| c.name.starts_with(p));
        if is_later {
            match m {
                Err(e) if e.contains("not supported yet") => later += 1,
                Err(e) => failures.push(format!("{}: unexpected load error: {e}", c.name)),
                Ok(_) => failures.push(format!("{}: listed in FUTURE_LATER but loads", c.name)),
            }
            continue;
        }
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                if golden_rules::UNSUPPORTED.iter().any(|(n, _)| *n == c.name) {
                    report.unsupported.push(c.name.clone());
                } else {
                    failures.push(format!("{}: module {} does not load: {e}", c.name, c.ptx));
                }
                continue;
            }
        };
        let ran = run_case(&dev, m, c, backend);
        if let Some(want) = gpu_errors.get(&c.name) {
            // Only misaligned surface accesses are expected failures today.
            match &ran {
                Err(e) if want == "CUDA_ERROR_MISALIGNED_ADDRESS" && e.contains("misaligned") => {}
                _ => failures.push(format!(
                    "{}: the GPU failed with {want}, ptxjit: {:?}",
                    c.name,
                    ran.as_ref().err()
                )),
            }
            continue;
        }
        let (inputs, outs) = match ran {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: {e}", c.name));
                continue;
            }
        };
        for (file, got) in outs {
            let want = read(dir().join(c.outdir).join(&file));
            match golden_rules::compare(c, &inputs, &file, &want, &got, &mut report) {
                Verdict::Ok => {}
                Verdict::Bad(msg) => failures.push(format!("{} ({file}): {msg}", c.name)),
            }
        }
    }
    report.print(backend);
    for (p, why) in FUTURE_LATER {
        println!("not run yet: {p}*: {why}");
    }
    println!("{later} future cases are load-time errors as expected");
    assert!(
        failures.is_empty(),
        "{backend:?}: {} of {} cases differ from the GPU:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn golden_jit() {
    golden(Backend::Jit);
}

#[test]
fn golden_interp() {
    golden(Backend::Interp);
}
