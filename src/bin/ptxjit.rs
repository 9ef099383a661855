//! The `ptxjit` command: check, run and dump PTX kernels.
//!
//! ```text
//! ptxjit check FILE.ptx...
//! ptxjit run FILE.ptx... --kernel NAME [--grid X,Y,Z] [--block X,Y,Z] [--shared BYTES]
//!            [--backend jit|interp] [--threads N] [--check-uniform] [--timeout SECS]
//!            [--arg SPEC]... [--out I=PATH]...
//!            [--sanitize memcheck,racecheck,initcheck,synccheck[,report-only]]
//!            [--sanitize-json PATH] [--schedule random:SEED|explore:N]
//! ptxjit dump FILE.ptx [--kernel NAME] (--clif | --asm | --stats [--by-opcode])
//! ptxjit exec [--lib PATH] [--sanitize LIST] [--backend jit|interp] -- CMD ARGS...
//! ptxjit fuzz FILE.ptx --kernel NAME --input SPEC... [--grid R] [--block R] [--runs N]
//!            [--max-time SECS] [--corpus PATH]... [--artifacts DIR] [--reproduce FILE]
//! ```
//! SPEC is `TYPE:VALUE` (u8..u64 s8..s64 b8..b64 f32 f64; decimal, or `0x` hex — for
//! f32/f64 hex is the bit pattern), `buf:PATH` (a device buffer with PATH's bytes),
//! `zeros:N` (a device buffer of N zero bytes) or `uninit:N` (N bytes initcheck treats
//! as never written, as `cuMemAlloc`'s). `--sanitize` runs the launch under the
//! sanitizers (`report-only`: print every finding and go on); `--schedule random:SEED`
//! runs CTAs and warps in a seeded order, `explore:N` runs seeds 1..=N and reports the
//! first whose outputs differ from the in-order run or that fails. `--out I=PATH` writes the buffer passed
//! as argument I (0-based) to PATH after the launch. Several files are linked into one
//! module (`.extern` symbols resolve across them, see `ptxjit::link`). Exit code 0 on
//! success, 1 on error; `exec` replaces itself with CMD (exit code CMD's), with ptxjit's
//! `libcuda.so.1` first on `LD_LIBRARY_PATH` (see `exec.rs` for the search order).

use clap::{Parser, Subcommand, ValueEnum};
use ptxjit::{
    Backend, Buffer, Device, DeviceOptions, KernelArg, LaunchConfig, Module, SanitizeOptions,
    Schedule,
};
use std::path::PathBuf;
use std::process::ExitCode;

#[path = "ptxjit/exec.rs"]
mod exec;
#[cfg(feature = "fuzz")]
#[path = "ptxjit/fuzz.rs"]
mod fuzz;

#[derive(Parser)]
#[command(name = "ptxjit", version, about = "Run NVIDIA PTX kernels on the CPU")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Jit,
    Interp,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse, check and compile PTX files (several are linked into one module).
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Launch a kernel (several files are linked into one module).
    Run {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        kernel: String,
        /// Grid dimensions X[,Y[,Z]].
        #[arg(long, default_value = "1")]
        grid: String,
        /// Block dimensions X[,Y[,Z]].
        #[arg(long, default_value = "1")]
        block: String,
        /// Bytes of dynamic shared memory.
        #[arg(long, default_value_t = 0)]
        shared: u32,
        #[arg(long, value_enum, default_value = "jit")]
        backend: BackendArg,
        /// OS threads that run CTAs (default: one per core; 1 gives a deterministic order).
        #[arg(long)]
        threads: Option<usize>,
        /// Stop with an error when a `.uni` branch or call is in fact divergent.
        #[arg(long)]
        check_uniform: bool,
        /// Stop the launch with an error after this many seconds (0: no limit).
        #[arg(long, default_value_t = 600.0)]
        timeout: f64,
        /// Kernel argument: TYPE:VALUE, buf:PATH or zeros:N.
        #[arg(long = "arg")]
        args: Vec<String>,
        /// I=PATH: write buffer argument I to PATH after the launch.
        #[arg(long = "out")]
        outs: Vec<String>,
        /// Sanitizers: memcheck,racecheck,initcheck,synccheck (or all), and report-only.
        #[arg(long)]
        sanitize: Option<String>,
        /// Also write the sanitizer findings to PATH as JSON.
        #[arg(long)]
        sanitize_json: Option<PathBuf>,
        /// random:SEED (a seeded CTA and warp order) or explore:N (seeds 1..=N).
        #[arg(long)]
        schedule: Option<String>,
    },
    /// Fuzz a kernel: inputs from a coverage-guided mutation loop, each crashing input
    /// written with a reproducer command (see `ptxjit::fuzz`).
    #[cfg(feature = "fuzz")]
    Fuzz(fuzz::FuzzArgs),
    /// Run a program with ptxjit's libcuda.so.1 as its GPU (numba-cuda, CuPy, CUDA
    /// programs): LD_LIBRARY_PATH and numba/CuPy settings, then exec(2).
    Exec(exec::ExecArgs),
    /// Print the Cranelift IR or the machine code of kernels, or (`--stats`) what each
    /// kernel's first launch compiles: PTX and CLIF instructions and the quick tier's
    /// compile time.
    Dump {
        file: PathBuf,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Cranelift IR as built.
        #[arg(long, conflicts_with_all = ["asm", "stats"], required_unless_present_any = ["asm", "stats"])]
        clif: bool,
        /// Machine code.
        #[arg(long, conflicts_with = "stats")]
        asm: bool,
        /// Per kernel (with the functions it reaches): PTX and CLIF instructions and the
        /// quick tier's compile time, also per 1,000 PTX instructions.
        #[arg(long)]
        stats: bool,
        /// With `--stats`: then the CLIF instructions each PTX opcode (as written, with
        /// its modifiers) emitted, summed over the kernels, the costliest first.
        #[arg(long, requires = "stats")]
        by_opcode: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn read_ptx(file: &PathBuf) -> Result<(String, String), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let src = ptxjit::parse::decode_source(&bytes).into_owned();
    Ok((src, file.display().to_string()))
}

/// Loads one PTX file, or links several into one module.
fn load_files(dev: &Device, files: &[PathBuf], jit: bool) -> Result<(Module, String), String> {
    let srcs = files.iter().map(read_ptx).collect::<Result<Vec<_>, _>>()?;
    let m = if let [(src, name)] = srcs.as_slice() {
        dev.load_ptx_with(src, name, jit)
    } else {
        let pairs: Vec<(&str, &str)> = srcs.iter().map(|(s, n)| (s.as_str(), n.as_str())).collect();
        dev.load_ptx_linked(&pairs, jit)
    };
    let names: Vec<&str> = srcs.iter().map(|(_, n)| n.as_str()).collect();
    Ok((m.map_err(|e| e.to_string())?, names.join(" + ")))
}

fn parse_dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} takes X[,Y[,Z]], got '{s}'"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .map_err(|_| format!("--{what}: '{p}' is not a number"))?;
    }
    Ok(d)
}

fn parse_uint(v: &str) -> Result<u64, String> {
    let r = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        v.parse::<u64>()
    };
    r.map_err(|_| format!("'{v}' is not an unsigned number"))
}

fn parse_int(v: &str) -> Result<i64, String> {
    if let Some(rest) = v.strip_prefix('-') {
        let u = parse_uint(rest)?;
        if u > i64::MAX as u64 + 1 {
            return Err(format!("'{v}' is out of range"));
        }
        Ok((u as i64).wrapping_neg())
    } else {
        let u = parse_uint(v)?;
        i64::try_from(u).map_err(|_| format!("'{v}' is out of range"))
    }
}

/// A parsed `--arg`: the kernel argument and, for buffers, the buffer.
fn parse_arg(dev: &Device, spec: &str) -> Result<(KernelArg, Option<Buffer>), String> {
    let (ty, val) = spec
        .split_once(':')
        .ok_or_else(|| format!("--arg '{spec}': expected TYPE:VALUE, buf:PATH or zeros:N"))?;
    let bad = |e: String| format!("--arg '{spec}': {e}");
    let range = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(bad("value out of range for the type".into()))
        }
    };
    let arg = match ty {
        "buf" => {
            let bytes = std::fs::read(val).map_err(|e| bad(format!("{val}: {e}")))?;
            let b = dev.alloc_from(&bytes).map_err(|e| bad(e.to_string()))?;
            return Ok((KernelArg::from(&b), Some(b)));
        }
        "zeros" => {
            let n = parse_uint(val).map_err(bad)? as usize;
            let b = dev.alloc_zeroed(n).map_err(|e| bad(e.to_string()))?;
            return Ok((KernelArg::from(&b), Some(b)));
        }
        "uninit" => {
            let n = parse_uint(val).map_err(bad)? as usize;
            let b = dev.alloc_uninit(n).map_err(|e| bad(e.to_string()))?;
            return Ok((KernelArg::from(&b), Some(b)));
        }
        "u8" | "b8" => {
            let v = parse_uint(val).map_err(bad)?;
            range(v <= u8::MAX as u64)?;
            KernelArg::U8(v as u8)
        }
        "u16" | "b16" => {
            let v = parse_uint(val).map_err(bad)?;
            range(v <= u16::MAX as u64)?;
            KernelArg::U16(v as u16)
        }
        "u32" | "b32" => {
            let v = parse_uint(val).map_err(bad)?;
            range(v <= u32::MAX as u64)?;
            KernelArg::U32(v as u32)
        }
        "u64" | "b64" => KernelArg::U64(parse_uint(val).map_err(bad)?),
        "s8" => {
            let v = parse_int(val).map_err(bad)?;
            range(i8::try_from(v).is_ok())?;
            KernelArg::I8(v as i8)
        }
        "s16" => {
            let v = parse_int(val).map_err(bad)?;
            range(i16::try_from(v).is_ok())?;
            KernelArg::I16(v as i16)
        }
        "s32" => {
            let v = parse_int(val).map_err(bad)?;
            range(i32::try_from(v).is_ok())?;
            KernelArg::I32(v as i32)
        }
        "s64" => KernelArg::I64(parse_int(val).map_err(bad)?),
        "f32" => {
            if val.starts_with("0x") || val.starts_with("0X") {
                let v = parse_uint(val).map_err(bad)?;
                range(v <= u32::MAX as u64)?;
                KernelArg::F32(f32::from_bits(v as u32))
            } else {
                KernelArg::F32(
                    val.parse()
                        .map_err(|_| bad(format!("'{val}' is not a number")))?,
                )
            }
        }
        "f64" => {
            if val.starts_with("0x") || val.starts_with("0X") {
                KernelArg::F64(f64::from_bits(parse_uint(val).map_err(bad)?))
            } else {
                KernelArg::F64(
                    val.parse()
                        .map_err(|_| bad(format!("'{val}' is not a number")))?,
                )
            }
        }
        _ => {
            return Err(bad(format!(
                "unknown type '{ty}' (u8..u64, s8..s64, b8..b64, f32, f64, buf, zeros)"
            )))
        }
    };
    Ok((arg, None))
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.cmd {
        #[cfg(feature = "fuzz")]
        Cmd::Fuzz(a) => fuzz::run(a),
        Cmd::Exec(a) => exec::run(a),
        Cmd::Check { files } => {
            // Every kernel is compiled now, so that JIT errors show.
            let dev = Device::with_options(DeviceOptions {
                jit_eager: true,
                ..DeviceOptions::default()
            })
            .map_err(|e| e.to_string())?;
            let (m, name) = load_files(&dev, &files, true)?;
            let k = m.kernels();
            println!(
                "{name}: ok ({} kernel{}: {})",
                k.len(),
                if k.len() == 1 { "" } else { "s" },
                k.join(", ")
            );
            Ok(())
        }
        Cmd::Run {
            files,
            kernel,
            grid,
            block,
            shared,
            backend,
            threads,
            check_uniform,
            timeout,
            args,
            outs,
            sanitize,
            sanitize_json,
            schedule,
        } => {
            let san = match &sanitize {
                Some(s) => Some(SanitizeOptions::parse(s).map_err(|e| format!("--sanitize: {e}"))?),
                None => None,
            };
            let run = RunArgs {
                files,
                kernel,
                grid: parse_dims(&grid, "grid")?,
                block: parse_dims(&block, "block")?,
                shared,
                backend: match backend {
                    BackendArg::Jit => Backend::Jit,
                    BackendArg::Interp => Backend::Interp,
                },
                threads,
                check_uniform,
                timeout,
                args,
                outs,
                san,
                sanitize_json,
            };
            match schedule.as_deref().map(|s| s.split_once(':')) {
                None => run.once(Schedule::InOrder).map(|_| ()),
                Some(Some(("random", seed))) => {
                    let seed = parse_uint(seed).map_err(|e| format!("--schedule: {e}"))?;
                    run.once(Schedule::Random(seed)).map(|_| ())
                }
                Some(Some(("explore", n))) => {
                    let n = parse_uint(n).map_err(|e| format!("--schedule: {e}"))?;
                    run.explore(n)
                }
                _ => Err(format!(
                    "--schedule '{}': expected random:SEED or explore:N",
                    schedule.unwrap_or_default()
                )),
            }
        }
        Cmd::Dump {
            file,
            kernel,
            clif,
            asm: _,
            stats,
            by_opcode,
        } => {
            let (src, name) = read_ptx(&file)?;
            // Variables get real addresses so that the dump shows the code a launch runs.
            let dev = Device::new().map_err(|e| e.to_string())?;
            let m = dev
                .load_ptx_with(&src, &name, false)
                .map_err(|e| e.to_string())?;
            if let Some(k) = &kernel {
                m.kernel_params(k).map_err(|e| e.to_string())?;
            }
            if stats {
                let ks = ptxjit::jit::kernel_stats(m.ir(), m.layout(), kernel.as_deref())
                    .map_err(|e| e.to_string())?;
                print!("{}", stats_table(&ks));
                if by_opcode {
                    print!("{}", opcode_table(&ks));
                }
                return Ok(());
            }
            let kind = if clif {
                ptxjit::jit::DumpKind::Clif
            } else {
                ptxjit::jit::DumpKind::Asm
            };
            let text = ptxjit::jit::dump(m.ir(), m.layout(), kernel.as_deref(), kind)
                .map_err(|e| e.to_string())?;
            use std::io::Write;
            match std::io::stdout().write_all(text.as_bytes()) {
                // A reader that stops early (`| head`) is not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("writing the dump: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// The `dump --stats` table: per kernel (with the functions it reaches), PTX (IR)
/// instructions, CLIF instructions as built, their ratio, and the quick tier's compile
/// time (wall clock, split into building the CLIF and Cranelift; and thread CPU time);
/// CPU time per 1,000 PTX instructions (CPU time: wall-clock time counts other
/// processes' use of the cores); then the totals.
fn stats_table(ks: &[ptxjit::jit::KernelStats]) -> String {
    use std::fmt::Write as _;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<40} {:>5} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>10}",
        "kernel",
        "funcs",
        "PTX",
        "CLIF",
        "CLIF/PTX",
        "build ms",
        "clift ms",
        "compile ms",
        "cpu ms",
        "cpu ms/1k"
    );
    let mut tot = ptxjit::jit::CompileStats::default();
    let mut cpu = std::time::Duration::ZERO;
    let row = |s: &mut String, name: &str, funcs: String, st: &ptxjit::jit::CompileStats, c| {
        let n = st.ir_insts.max(1) as f64;
        let _ = writeln!(
            s,
            "{:<40} {:>5} {:>8} {:>9} {:>9.1} {:>9.2} {:>9.2} {:>11.2} {:>9.2} {:>10.2}",
            name,
            funcs,
            st.ir_insts,
            st.clif_insts,
            st.clif_insts as f64 / n,
            ms(st.build),
            ms(st.define + st.finalize),
            ms(st.total()),
            ms(c),
            ms(c) * 1000.0 / n
        );
    };
    for k in ks {
        row(&mut s, &k.name, k.funcs.to_string(), &k.stats, k.cpu);
        tot.functions += k.stats.functions;
        tot.ir_insts += k.stats.ir_insts;
        tot.clif_insts += k.stats.clif_insts;
        tot.build += k.stats.build;
        tot.define += k.stats.define;
        tot.finalize += k.stats.finalize;
        cpu += k.cpu;
    }
    if ks.len() > 1 {
        let name = format!("total ({} kernels)", ks.len());
        row(&mut s, &name, String::new(), &tot, cpu);
    }
    s
}

/// The `dump --stats --by-opcode` table: per PTX opcode, summed over the kernels,
/// instructions, CLIF instructions their lowerings emitted (the quick tier), per
/// instruction and as a share of the column's sum; the costliest first.
fn opcode_table(ks: &[ptxjit::jit::KernelStats]) -> String {
    use std::fmt::Write as _;
    let mut by: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for o in ks.iter().flat_map(|k| &k.opcodes) {
        let e = by.entry(o.opcode.as_str()).or_default();
        e.0 += o.count;
        e.1 += o.clif;
    }
    let sum: usize = by.values().map(|v| v.1).sum();
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n{:<40} {:>8} {:>9} {:>9} {:>7}",
        "opcode", "count", "CLIF", "CLIF/inst", "share"
    );
    for (op, (n, c)) in rows {
        let _ = writeln!(
            s,
            "{:<40} {:>8} {:>9} {:>9.1} {:>6.1}%",
            op,
            n,
            c,
            c as f64 / n.max(1) as f64,
            100.0 * c as f64 / sum.max(1) as f64
        );
    }
    s
}

/// The settings of one `ptxjit run`.
struct RunArgs {
    files: Vec<PathBuf>,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    backend: Backend,
    threads: Option<usize>,
    check_uniform: bool,
    timeout: f64,
    args: Vec<String>,
    outs: Vec<String>,
    san: Option<SanitizeOptions>,
    sanitize_json: Option<PathBuf>,
}

impl RunArgs {
    /// Loads the module on a fresh device, launches the kernel once with schedule `s`,
    /// prints the report-only sanitizer findings, and writes the `--out` buffers;
    /// returns their contents.
    fn once(&self, s: Schedule) -> Result<Vec<Vec<u8>>, String> {
        let mut opts = DeviceOptions::default();
        if let Some(t) = self.threads {
            if t == 0 {
                return Err("--threads must be at least 1".into());
            }
            opts.threads = t;
        }
        if self.san.is_some() {
            opts.sanitize = self.san.filter(|o| o.any());
        }
        let dev = Device::with_options(opts).map_err(|e| e.to_string())?;
        let (m, _) = load_files(&dev, &self.files, self.backend == Backend::Jit)?;
        let kernel = &self.kernel;
        let params = m.kernel_params(kernel).map_err(|e| e.to_string())?;
        if params.len() != self.args.len() {
            return Err(format!(
                "kernel '{kernel}' takes {} parameters ({}) but {} --arg were given",
                params.len(),
                params
                    .iter()
                    .map(|p| format!("{}: {} bytes", p.name, p.size))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.args.len()
            ));
        }
        let mut kargs = Vec::new();
        let mut bufs = Vec::new();
        for a in &self.args {
            let (k, b) = parse_arg(&dev, a)?;
            kargs.push(k);
            bufs.push(b);
        }
        let mut writes = Vec::new();
        for o in &self.outs {
            let (i, path) = o
                .split_once('=')
                .ok_or_else(|| format!("--out '{o}': expected I=PATH"))?;
            let i: usize = i
                .parse()
                .map_err(|_| format!("--out '{o}': '{i}' is not an argument index"))?;
            let b = bufs.get(i).copied().flatten().ok_or_else(|| {
                format!("--out '{o}': argument {i} is not a buf: or zeros: buffer (nor uninit:)")
            })?;
            writes.push((b, PathBuf::from(path)));
        }
        let timeout = self.timeout;
        let mut cfg = LaunchConfig::new(self.grid, self.block)
            .shared_bytes(self.shared)
            .backend(self.backend)
            .check_uniform(self.check_uniform)
            .schedule(s)
            .timeout(if timeout > 0.0 {
                Some(
                    std::time::Duration::try_from_secs_f64(timeout)
                        .map_err(|_| format!("invalid --timeout {timeout}"))?,
                )
            } else {
                None
            });
        if let Some(o) = self.san {
            cfg = cfg.sanitize(o);
        }
        let launched = dev.launch(&m, kernel, &cfg, &kargs);
        // Buffers the kernel got are freed before the leak check at the device's end.
        let mut outputs = Vec::new();
        for (b, path) in writes {
            let bytes: Vec<u8> = dev.read(&b).map_err(|e| e.to_string())?;
            std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            outputs.push(bytes);
        }
        for b in bufs.into_iter().flatten() {
            let _ = dev.free(b);
        }
        let report = dev.take_sanitizer_report();
        let json = match (&launched, &self.sanitize_json) {
            (Err(ptxjit::Error::Sanitizer(f)), Some(_)) => {
                let mut r = report.clone();
                r.add((**f).clone());
                Some(r.to_json())
            }
            (_, Some(_)) => Some(report.to_json()),
            _ => None,
        };
        if let (Some(j), Some(p)) = (json, &self.sanitize_json) {
            std::fs::write(p, j).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        if !report.is_empty() {
            eprint!("{report}");
        }
        launched.map_err(|e| e.to_string())?;
        Ok(outputs)
    }

    /// `--schedule explore:N`: the in-order run, then seeds 1..=N; the first seed whose
    /// outputs differ or whose launch fails is an error naming it.
    fn explore(&self, n: u64) -> Result<(), String> {
        let base = self.once(Schedule::InOrder)?;
        for seed in 1..=n {
            match self.once(Schedule::Random(seed)) {
                Err(e) => return Err(format!("--schedule random:{seed} fails: {e}")),
                Ok(out) if out != base => {
                    let which = out.iter().zip(&base).position(|(a, b)| a != b).unwrap_or(0);
                    return Err(format!(
                        "--schedule random:{seed} changes the output (--out #{which} differs \
                         from the in-order run); replay it with --schedule random:{seed}"
                    ));
                }
                Ok(_) => {}
            }
        }
        eprintln!("explored {n} schedules: the outputs are the same as in order");
        Ok(())
    }
}
