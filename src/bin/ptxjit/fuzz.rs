//! `ptxjit fuzz`: fuzzes a kernel without writing Rust, through the same harness as
//! `ptxjit::fuzz` with the library's own coverage-guided mutation loop
//! (`ptxjit::fuzz::Fuzzer`). libFuzzer is not linked into the CLI: it would need a C++
//! toolchain to build, and it owns the process (its own `main`, deadly-signal handlers,
//! exit at the first crash), where this command keeps going, writes every distinct
//! crashing input and prints a one-line reproducer for each.

use ptxjit::fuzz::{parse_dims, parse_input, Fuzzer, Harness, LoopOptions};
use ptxjit::{Backend, LaunchConfig};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct FuzzArgs {
    file: PathBuf,
    #[arg(long)]
    kernel: String,
    /// One per kernel parameter, in order: TYPE[LEN] (buffer; LEN = N, LO..HI, rest,
    /// rest:MAX or =I), out:TYPE[LEN] (zero-filled), TYPE=LO..HI, TYPE=VALUE,
    /// TYPE=len(I).
    #[arg(long = "input")]
    inputs: Vec<String>,
    /// Grid X[,Y[,Z]], each N or LO..HI.
    #[arg(long, default_value = "1")]
    grid: String,
    /// Block X[,Y[,Z]], each N or LO..HI.
    #[arg(long, default_value = "32")]
    block: String,
    #[arg(long, value_enum, default_value = "jit")]
    backend: super::BackendArg,
    /// Time limit per input in milliseconds.
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
    /// Turn the kernel coverage counters off (blind mutation).
    #[arg(long)]
    no_coverage: bool,
    /// Stop after this many inputs.
    #[arg(long)]
    runs: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    max_time: Option<f64>,
    /// Stop at the first finding.
    #[arg(long)]
    stop_at_first: bool,
    /// Longest generated input in bytes.
    #[arg(long, default_value_t = 4096)]
    max_len: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Files whose contents seed the corpus (a folder: every file in it).
    #[arg(long)]
    corpus: Vec<PathBuf>,
    /// Where crashing inputs are written.
    #[arg(long, default_value = ".")]
    artifacts: PathBuf,
    /// Run this one input and report its finding (what the reproducer lines do).
    #[arg(long)]
    reproduce: Option<PathBuf>,
}

fn seeds(paths: &[PathBuf]) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for p in paths {
        let files: Vec<PathBuf> = if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            v.sort();
            v
        } else {
            vec![p.clone()]
        };
        for f in files {
            out.push(std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?);
        }
    }
    Ok(out)
}

/// FNV-1a, for crash file names.
fn hash(d: &[u8]) -> u64 {
    d.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// The command line that replays `crash` (shell-quoted).
fn reproducer(a: &FuzzArgs, crash: &std::path::Path) -> String {
    let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut cmd = format!(
        "ptxjit fuzz {} --kernel {} --grid {} --block {}",
        q(&a.file.display().to_string()),
        q(&a.kernel),
        q(&a.grid),
        q(&a.block)
    );
    for i in &a.inputs {
        cmd += &format!(" --input {}", q(i));
    }
    if matches!(a.backend, super::BackendArg::Interp) {
        cmd += " --backend interp";
    }
    cmd += &format!(" --timeout-ms {}", a.timeout_ms);
    cmd += &format!(" --reproduce {}", q(&crash.display().to_string()));
    cmd
}

pub fn run(a: FuzzArgs) -> Result<(), String> {
    let (src, name) = super::read_ptx(&a.file)?;
    let backend = match a.backend {
        super::BackendArg::Jit => Backend::Jit,
        super::BackendArg::Interp => Backend::Interp,
    };
    let mut b = Harness::builder(&src, &name, &a.kernel)
        .launch(LaunchConfig::new(1, 1).backend(backend))
        .time_limit(Duration::from_millis(a.timeout_ms))
        .grid3(parse_dims(&a.grid).map_err(|e| format!("--grid: {e}"))?)
        .block3(parse_dims(&a.block).map_err(|e| format!("--block: {e}"))?)
        .coverage(!a.no_coverage && a.reproduce.is_none());
    for s in &a.inputs {
        b = b.input(parse_input(s).map_err(|e| format!("--input: {e}"))?);
    }
    let h = b.build().map_err(|e| e.to_string())?;
    if let Some(path) = &a.reproduce {
        let d = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}", h.decode(&d).describe());
        return match h.run(&d) {
            Ok(()) => {
                println!("no finding");
                Ok(())
            }
            Err(f) => Err(f.to_string()),
        };
    }
    let opts = LoopOptions {
        runs: a.runs,
        max_time: a.max_time.map(Duration::from_secs_f64),
        max_len: a.max_len,
        stop_at_first: a.stop_at_first,
    };
    std::fs::create_dir_all(&a.artifacts).map_err(|e| format!("{}: {e}", a.artifacts.display()))?;
    let mut fz = Fuzzer::new(&h, seeds(&a.corpus)?, a.seed);
    let started = std::time::Instant::now();
    let mut errors = Vec::new();
    let stats = fz.run(&opts, |d, f| {
        let path = a.artifacts.join(format!("crash-{:016x}", hash(d)));
        if let Err(e) = std::fs::write(&path, d) {
            errors.push(format!("{}: {e}", path.display()));
        }
        println!(
            "{f}\n  input: {}\n  reproduce: {}",
            path.display(),
            reproducer(&a, &path)
        );
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} inputs in {:.1} s ({:.0}/s), corpus {}, {} coverage features, {} finding{}",
        stats.execs,
        secs,
        stats.execs as f64 / secs.max(1e-9),
        stats.corpus,
        stats.features,
        stats.findings,
        if stats.findings == 1 { "" } else { "s" }
    );
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if stats.findings > 0 {
        return Err(format!("{} finding(s)", stats.findings));
    }
    Ok(())
}
