//! `ptxjit exec -- CMD ARGS…`: runs a program with ptxjit's drop-in `libcuda.so.1` as its
//! GPU. It finds the library, puts its directory first on `LD_LIBRARY_PATH`, sets what
//! the Python GPU stack needs to run on it, and replaces itself with the program
//! (`exec(2)`), so the program's exit status is the command's.
//!
//! The library, first found wins:
//! 1. `--lib PATH` (the file, or a directory holding `libcuda.so.1` or `libcuda.so`);
//! 2. `$PTXJIT_LIBCUDA` (the same forms; empty counts as unset);
//! 3. next to the `ptxjit` executable (`libcuda.so.1`, then `libcuda.so`: a cargo
//!    `target/release` directory);
//! 4. `../lib/ptxjit/` and `../lib/` relative to the executable (an install prefix).
//!
//! A library found under another name than `libcuda.so.1` is reached through a
//! `libcuda.so.1` link in a per-user directory under the temporary directory.
//!
//! Environment set for the program (a variable the caller already set is kept, except
//! `LD_LIBRARY_PATH`, which is prepended to, and the ones given by flags):
//! - `LD_LIBRARY_PATH=<library dir>:…`, `PTXJIT_LIBCUDA=<library>`;
//! - numba-cuda: `NUMBA_CUDA_DRIVER=<library>` (read by numba's older built-in
//!   `numba.cuda`; numba-cuda finds it through `LD_LIBRARY_PATH`) and
//!   `NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0` (its warning is about GPU occupancy);
//! - CuPy: `CUPY_COMPILE_WITH_PTX=1` (ptxjit runs PTX, not SASS) and
//!   `CUPY_ACCELERATORS=` (CuPy's precompiled CUB kernels are 22 MB of sm_100 PTX that
//!   each process loads on its first CUB call; they run, set `CUPY_ACCELERATORS=cub`);
//! - `--sanitize LIST` → `PTXJIT_SANITIZE`, `--sanitize-json PATH` →
//!   `PTXJIT_SANITIZE_JSON`, `--backend interp` → `PTXJIT_CUDA_BACKEND` (read by the
//!   library at each launch; set by hand they pass through unchanged).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExecArgs {
    /// libcuda.so.1 to use: the file or its directory (default: $PTXJIT_LIBCUDA, then
    /// next to this executable, then ../lib/ptxjit and ../lib).
    #[arg(long)]
    lib: Option<PathBuf>,
    /// Sanitizers for every launch: memcheck,racecheck,initcheck,synccheck (or all),
    /// and report-only (sets PTXJIT_SANITIZE).
    #[arg(long)]
    sanitize: Option<String>,
    /// Also write the sanitizer findings to PATH as JSON (sets PTXJIT_SANITIZE_JSON).
    #[arg(long)]
    sanitize_json: Option<PathBuf>,
    /// Run launches on the JIT (default) or the reference interpreter.
    #[arg(long, value_enum)]
    backend: Option<super::BackendArg>,
    /// Print the library and the environment set to stderr before running.
    #[arg(long, short)]
    verbose: bool,
    /// The program and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true,
          value_parser = clap::value_parser!(OsString))]
    command: Vec<OsString>,
}

/// Runs the command; returns only when it could not be started.
pub fn run(a: ExecArgs) -> Result<(), String> {
    let lib = find_libcuda(a.lib.as_deref())?;
    let dir = loader_dir(&lib)?;
    let mut vars: Vec<(&str, OsString)> = Vec::new();
    let mut ld = dir.clone().into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        ld.push(":");
        ld.push(old);
    }
    vars.push(("LD_LIBRARY_PATH", ld));
    vars.push(("PTXJIT_LIBCUDA", lib.clone().into_os_string()));
    let defaults: [(&str, &OsStr); 4] = [
        ("NUMBA_CUDA_DRIVER", lib.as_os_str()),
        ("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", OsStr::new("0")),
        ("CUPY_COMPILE_WITH_PTX", OsStr::new("1")),
        ("CUPY_ACCELERATORS", OsStr::new("")),
    ];
    for (k, v) in defaults {
        if std::env::var_os(k).is_none() {
            vars.push((k, v.to_owned()));
        }
    }
    if let Some(b) = a.backend {
        let name = match b {
            super::BackendArg::Jit => "jit",
            super::BackendArg::Interp => "interp",
        };
        vars.push(("PTXJIT_CUDA_BACKEND", name.into()));
    }
    if let Some(s) = a.sanitize {
        vars.push(("PTXJIT_SANITIZE", s.into()));
    }
    if let Some(p) = a.sanitize_json {
        vars.push(("PTXJIT_SANITIZE_JSON", p.into_os_string()));
    }
    if a.verbose {
        eprintln!("ptxjit exec: libcuda {}", lib.display());
        for (k, v) in &vars {
            eprintln!("ptxjit exec: {k}={}", v.to_string_lossy());
        }
    }
    let (prog, args) = a
        .command
        .split_first()
        .ok_or("ptxjit exec: no command given")?;
    let mut cmd = std::process::Command::new(prog);
    cmd.args(args).envs(vars);
    start(cmd, prog)
}

#[cfg(unix)]
fn start(mut cmd: std::process::Command, prog: &OsStr) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let e = cmd.exec();
    Err(format!(
        "ptxjit exec: cannot run '{}': {e}",
        prog.to_string_lossy()
    ))
}

#[cfg(not(unix))]
fn start(mut cmd: std::process::Command, prog: &OsStr) -> Result<(), String> {
    let st = cmd
        .status()
        .map_err(|e| format!("ptxjit exec: cannot run '{}': {e}", prog.to_string_lossy()))?;
    std::process::exit(st.code().unwrap_or(1))
}

/// The library in `p`: `p` itself if it is a file, else its `libcuda.so.1` or `libcuda.so`.
fn lib_in(p: &Path) -> Option<PathBuf> {
    if p.is_file() {
        return Some(p.to_path_buf());
    }
    ["libcuda.so.1", "libcuda.so"]
        .iter()
        .map(|n| p.join(n))
        .find(|f| f.is_file())
}

/// The library, by the search order of the module documentation.
fn find_libcuda(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let given = explicit.map(|p| (p.to_path_buf(), "--lib")).or_else(|| {
        std::env::var_os("PTXJIT_LIBCUDA")
            .filter(|p| !p.is_empty())
            .map(|p| (p.into(), "PTXJIT_LIBCUDA"))
    });
    if let Some((p, what)) = given {
        let f = lib_in(&p).ok_or_else(|| {
            format!(
                "ptxjit exec: {what} {}: no libcuda.so.1 or libcuda.so there",
                p.display()
            )
        })?;
        return std::fs::canonicalize(&f).map_err(|e| format!("{}: {e}", f.display()));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("ptxjit exec: where is this executable? {e}"))?;
    let bin = exe.parent().unwrap_or(Path::new("/"));
    let dirs = [
        bin.to_path_buf(),
        bin.join("../lib/ptxjit"),
        bin.join("../lib"),
    ];
    for d in &dirs {
        if let Some(f) = lib_in(d).filter(|_| d.is_dir()) {
            return std::fs::canonicalize(&f).map_err(|e| format!("{}: {e}", f.display()));
        }
    }
    Err(format!(
        "ptxjit exec: libcuda.so.1 not found: give --lib PATH or set PTXJIT_LIBCUDA \
         (searched {}; build it with `cargo build --release -p ptxjit-cuda`)",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// A directory in which `libcuda.so.1` is `lib` (a symlink target resolved): the
/// library's own directory when its name or a sibling link allows, else a per-user link
/// directory under the temporary directory.
fn loader_dir(lib: &Path) -> Result<PathBuf, String> {
    let parent = lib.parent().unwrap_or(Path::new("/")).to_path_buf();
    let same = |p: &Path| std::fs::canonicalize(p).is_ok_and(|c| c == lib);
    if same(&parent.join("libcuda.so.1")) {
        return Ok(parent);
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let tag = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        lib.hash(&mut h);
        h.finish()
    };
    let dir = std::env::temp_dir().join(format!("ptxjit-{uid}-libcuda-{tag:016x}"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for name in ["libcuda.so.1", "libcuda.so"] {
        let link = dir.join(name);
        if !same(&link) {
            let _ = std::fs::remove_file(&link);
            #[cfg(unix)]
            std::os::unix::fs::symlink(lib, &link)
                .map_err(|e| format!("{}: {e}", link.display()))?;
        }
    }
    Ok(dir)
}
