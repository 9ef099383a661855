//! The case-list format shared by `tests/golden.rs` and `tests/corpus_runs.rs` (the lists
//! that `gpurun.c` ran on a GPU): kernel arguments (`in:FILE`, `out:FILE:BYTES`,
//! `io:INFILE:OUTFILE`, `u32:V`, `u64:V`) and one launch of a case on a ptxjit backend.

// Each test uses part of it.
#![allow(dead_code)]

use ptxjit::{Backend, Device, KernelArg, LaunchConfig};
use std::path::Path;

/// One argument of a case.
#[derive(Debug)]
pub enum Arg {
    In(String),
    Out(String, usize),
    Io(String, String),
    U32(u32),
    U64(u64),
}

/// A decimal or `0x` hexadecimal number.
pub fn num(s: &str) -> u64 {
    s.strip_prefix("0x")
        .map_or_else(|| s.parse(), |h| u64::from_str_radix(h, 16))
        .unwrap_or_else(|e| panic!("bad number {s}: {e}"))
}

pub fn parse_arg(t: &str) -> Arg {
    let (kind, rest) = t
        .split_once(':')
        .unwrap_or_else(|| panic!("bad argument {t}"));
    match kind {
        "in" => Arg::In(rest.to_string()),
        "io" => {
            let (a, b) = rest.split_once(':').expect("io:IN:OUT");
            Arg::Io(a.to_string(), b.to_string())
        }
        "out" => {
            let (a, b) = rest.rsplit_once(':').expect("out:FILE:BYTES");
            Arg::Out(a.to_string(), num(b) as usize)
        }
        "u32" => Arg::U32(num(rest) as u32),
        "u64" => Arg::U64(num(rest)),
        _ => panic!("bad argument {t}"),
    }
}

/// What one launch read and wrote: the input buffers in argument order, and the outputs
/// (`out:` and `io:` buffers) by file name.
pub struct Ran {
    pub inputs: Vec<Vec<u8>>,
    pub outputs: Vec<(String, Vec<u8>)>,
}

/// Launches `kernel` of `m` with `args` (input files read from `indir`) on `backend`.
pub fn launch(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    cfg: LaunchConfig,
    args: &[Arg],
    indir: &Path,
    backend: Backend,
) -> Result<Ran, String> {
    let mut bufs = Vec::new();
    let mut kargs = Vec::new();
    let mut inputs = Vec::new();
    for a in args {
        match a {
            Arg::U32(v) => kargs.push(KernelArg::from(*v)),
            Arg::U64(v) => kargs.push(KernelArg::from(*v)),
            Arg::In(f) | Arg::Io(f, _) => {
                let path = indir.join(f);
                let data = std::fs::read(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                let b = dev.alloc_from(&data).map_err(|e| e.to_string())?;
                kargs.push((&b).into());
                inputs.push(data);
                bufs.push(b);
            }
            Arg::Out(_, n) => {
                let b = dev.alloc_zeroed(*n).map_err(|e| e.to_string())?;
                kargs.push((&b).into());
                bufs.push(b);
            }
        }
    }
    let launched = dev
        .launch(m, kernel, &cfg.backend(backend), &kargs)
        .map_err(|e| format!("launch: {e}"));
    let mut outputs = Vec::new();
    let mut bi = 0;
    for a in args {
        match a {
            Arg::U32(_) | Arg::U64(_) => continue,
            Arg::In(_) => {}
            Arg::Io(_, f) | Arg::Out(f, _) if launched.is_ok() => outputs.push((
                f.clone(),
                dev.read::<u8>(&bufs[bi]).map_err(|e| e.to_string())?,
            )),
            _ => {}
        }
        bi += 1;
    }
    for b in bufs {
        let _ = dev.free(b);
    }
    launched.map(|_| Ran { inputs, outputs })
}
