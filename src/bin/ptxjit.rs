//! The `ptxjit` command: check, run and dump PTX kernels.
//!
//! ```text
//! ptxjit check FILE.ptx...
//! ptxjit run FILE.ptx... --kernel NAME [--grid X,Y,Z] [--block X,Y,Z] [--shared BYTES]
//!            [--backend jit|interp] [--threads N] [--check-uniform] [--timeout SECS]
//!            [--arg SPEC]... [--out I=PATH]...
//! ptxjit dump FILE.ptx [--kernel NAME] (--clif | --asm)
//! ptxjit fuzz FILE.ptx --kernel NAME --input SPEC... [--grid R] [--block R] [--runs N]
//!            [--max-time SECS] [--corpus PATH]... [--artifacts DIR] [--reproduce FILE]
//! ```
//! SPEC is `TYPE:VALUE` (u8..u64 s8..s64 b8..b64 f32 f64; decimal, or `0x` hex — for
//! f32/f64 hex is the bit pattern), `buf:PATH` (a device buffer with PATH's bytes) or
//! `zeros:N` (a device buffer of N zero bytes). `--out I=PATH` writes the buffer passed
//! as argument I (0-based) to PATH after the launch. Several files are linked into one
//! module (`.extern` symbols resolve across them, see `ptxjit::link`). Exit code 0 on
//! success, 1 on error.

use clap::{Parser, Subcommand, ValueEnum};
use ptxjit::{Backend, Buffer, Device, DeviceOptions, KernelArg, LaunchConfig, Module};
use std::path::PathBuf;
use std::process::ExitCode;

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
    },
    /// Fuzz a kernel: inputs from a coverage-guided mutation loop, each crashing input
    /// written with a reproducer command (see `ptxjit::fuzz`).
    #[cfg(feature = "fuzz")]
    Fuzz(fuzz::FuzzArgs),
    /// Print the Cranelift IR or the machine code of kernels.
    Dump {
        file: PathBuf,
        #[arg(long)]
        kernel: Option<String>,
        #[arg(long, conflicts_with = "asm", required_unless_present = "asm")]
        clif: bool,
        #[arg(long)]
        asm: bool,
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
        Cmd::Check { files } => {
            let dev = Device::new().map_err(|e| e.to_string())?;
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
        } => {
            let grid = parse_dims(&grid, "grid")?;
            let block = parse_dims(&block, "block")?;
            let mut opts = DeviceOptions::default();
            if let Some(t) = threads {
                if t == 0 {
                    return Err("--threads must be at least 1".into());
                }
                opts.threads = t;
            }
            let dev = Device::with_options(opts).map_err(|e| e.to_string())?;
            let backend = match backend {
                BackendArg::Jit => Backend::Jit,
                BackendArg::Interp => Backend::Interp,
            };
            let (m, _) = load_files(&dev, &files, backend == Backend::Jit)?;
            let params = m.kernel_params(&kernel).map_err(|e| e.to_string())?;
            if params.len() != args.len() {
                return Err(format!(
                    "kernel '{kernel}' takes {} parameters ({}) but {} --arg were given",
                    params.len(),
                    params
                        .iter()
                        .map(|p| format!("{}: {} bytes", p.name, p.size))
                        .collect::<Vec<_>>()
                        .join(", "),
                    args.len()
                ));
            }
            let mut kargs = Vec::new();
            let mut bufs = Vec::new();
            for a in &args {
                let (k, b) = parse_arg(&dev, a)?;
                kargs.push(k);
                bufs.push(b);
            }
            let mut writes = Vec::new();
            for o in &outs {
                let (i, path) = o
                    .split_once('=')
                    .ok_or_else(|| format!("--out '{o}': expected I=PATH"))?;
                let i: usize = i
                    .parse()
                    .map_err(|_| format!("--out '{o}': '{i}' is not an argument index"))?;
                let b = bufs.get(i).copied().flatten().ok_or_else(|| {
                    format!("--out '{o}': argument {i} is not a buf: or zeros: buffer")
                })?;
                writes.push((b, PathBuf::from(path)));
            }
            let cfg = LaunchConfig::new(grid, block)
                .shared_bytes(shared)
                .backend(backend)
                .check_uniform(check_uniform)
                .timeout(if timeout > 0.0 {
                    Some(
                        std::time::Duration::try_from_secs_f64(timeout)
                            .map_err(|_| format!("invalid --timeout {timeout}"))?,
                    )
                } else {
                    None
                });
            dev.launch(&m, &kernel, &cfg, &kargs)
                .map_err(|e| e.to_string())?;
            for (b, path) in writes {
                let bytes: Vec<u8> = dev.read(&b).map_err(|e| e.to_string())?;
                std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            Ok(())
        }
        Cmd::Dump {
            file,
            kernel,
            clif,
            asm: _,
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
