//! The case-list format shared by `tests/golden.rs` and `tests/corpus_runs.rs` (the lists
//! that `gpurun.c` ran on a GPU): kernel arguments (`in:FILE`, `out:FILE:BYTES`,
//! `io:INFILE:OUTFILE`, `u32:V`, `u64:V`, and the texture and surface objects `tex:...` and
//! `surf:...` that `tests/golden/gpurun.c` documents) and one launch of a case on a
//! ptxjit backend.

// Each test uses part of it.
#![allow(dead_code)]

use ptxjit::runtime::texture::{
    AddressMode, ArrayDesc, ArrayFormat, CudaArray, TexResource, TextureDesc,
};
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
    /// `tex:DIM:W:H:D:FMT:NCH:FILTER:ADDR:NORM:READ:FILE` or
    /// `surf:DIM:W:H:D:FMT:NCH:FILE:OUTFILE` (the fields, split at `:`).
    Tex(Vec<String>),
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
        "tex" | "surf" => Arg::Tex(t.split(':').map(str::to_string).collect()),
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
    let mut texs = Vec::new();
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
            Arg::Tex(f) => {
                let o = make_tex(dev, f, indir)?;
                kargs.push(KernelArg::from(o.handle));
                texs.push(o);
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
            Arg::U32(_) | Arg::U64(_) | Arg::Tex(_) => continue,
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
    for t in texs {
        if let (Some(f), Some(a), true) = (&t.outfile, &t.array, launched.is_ok()) {
            outputs.push((f.clone(), dev.read_array(a).map_err(|e| e.to_string())?));
        }
        let _ = dev.destroy_tex_object(t.handle);
        if let Some(a) = t.array {
            let _ = dev.destroy_array(a);
        }
        if let Some(b) = t.buf {
            let _ = dev.free(b);
        }
    }
    launched.map(|_| Ran { inputs, outputs })
}

/// A texture or surface argument's object and what backs it.
struct TexArg {
    handle: u64,
    array: Option<CudaArray>,
    buf: Option<ptxjit::Buffer>,
    /// A surface's array is written to this output file after the launch.
    outfile: Option<String>,
}

/// Creates the array (or linear buffer) and the texture/surface object of a `tex:` or
/// `surf:` argument, as `gpurun.c`'s `make_tex` does through the driver API.
fn make_tex(dev: &Device, f: &[String], indir: &Path) -> Result<TexArg, String> {
    let surf = f[0] == "surf";
    if f.len() != if surf { 9 } else { 12 } {
        return Err(format!("bad texture argument {}", f.join(":")));
    }
    let n = |s: &str| num(s) as usize;
    let (w, h, d) = (n(&f[2]), n(&f[3]), n(&f[4]));
    let fmt = match f[5].as_str() {
        "u8" => ArrayFormat::U8,
        "s8" => ArrayFormat::S8,
        "u16" => ArrayFormat::U16,
        "s16" => ArrayFormat::S16,
        "u32" => ArrayFormat::U32,
        "s32" => ArrayFormat::S32,
        "f16" => ArrayFormat::F16,
        "f32" => ArrayFormat::F32,
        x => return Err(format!("bad format {x}")),
    };
    let channels = num(&f[6]) as u32;
    let file = if surf { &f[7] } else { &f[11] };
    let data = std::fs::read(indir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    let e = |e: ptxjit::Error| e.to_string();
    let (res, array, buf) = if f[1] == "buf" {
        let b = dev.alloc_from(&data).map_err(e)?;
        let res = TexResource {
            base: b.ptr(),
            format: fmt,
            channels,
            width: w,
            height: 0,
            depth: 0,
            layered: false,
            linear: true,
            pitch: 0,
        };
        (res, None, Some(b))
    } else {
        let a = dev
            .create_array(ArrayDesc {
                width: w,
                height: h,
                depth: d,
                format: fmt,
                channels,
                layered: f[1].starts_with('a'),
                surface: surf,
                cubemap: false,
            })
            .map_err(e)?;
        dev.write_array(&a, &data).map_err(e)?;
        (a.resource(), Some(a), None)
    };
    let handle = if surf {
        let a = array.as_ref().ok_or("a surface needs an array")?;
        dev.create_surface_object(a).map_err(e)?
    } else {
        let mode = match f[8].as_str() {
            "wrap" => AddressMode::Wrap,
            "clamp" => AddressMode::Clamp,
            "mirror" => AddressMode::Mirror,
            _ => AddressMode::Border,
        };
        let desc = TextureDesc {
            address: [mode; 3],
            linear: f[7] == "linear",
            normalized: f[9] == "1",
            read_as_integer: f[10] == "elem",
            border: [0.25, 0.5, 0.75, 1.0],
        };
        dev.create_texture_object(res, desc).map_err(e)?
    };
    Ok(TexArg {
        handle,
        array,
        buf,
        outfile: surf.then(|| f[8].clone()),
    })
}
