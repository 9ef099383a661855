//! A CUDA runtime-API program built by clang (host and device code: `clang++-19 -x
//! cuda`) runs unmodified on the built library: tests/cuda/runtime_prog.cu (`<<<>>>`
//! launches, `__constant__`/`__device__` globals through `cudaMemcpyToSymbol`, atomics,
//! shared memory, device `printf`, streams, events), linked with NVIDIA's CUDA 12 static
//! runtime (`libcudart_static.a`) and with the shared one (`libcudart.so.12`).
//!
//! clang 19 knows CUDA up to 12.5 and NVIDIA ships no CUDA 12 `fatbinary` on PyPI, so
//! the test assembles a CUDA directory for `--cuda-path` from the PyPI packages the
//! other tests install: CUDA 12.9's headers and runtime (`nvidia-cuda-runtime-cu12`)
//! and `crt/` headers and `ptxas` (`nvidia-cuda-nvcc-cu12`) from the numba test's venv,
//! CUDA 13's `fatbinary` from the nvcc test's venv behind a two-line adapter for the
//! option spelling clang uses (`--image=profile=sm_90` → CUDA 13's
//! `--image3=kind=elf,sm=90`), and an empty `curand_mtgp32_kernel.h` that clang's CUDA
//! wrapper header includes. `-target-sdk-version=12.5` tells clang's device side that
//! the runtime launches through `__cudaPushCallConfiguration` (it passes the version to
//! the host side only). The fat binary holds sm_90 SASS and compute_90 PTX; ptxjit runs
//! the PTX. Skipped, with a message, when clang++-19 or the venvs are missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA directory described in the module documentation, made in `dir`.
fn cuda_dir(dir: &Path) -> Result<PathBuf, String> {
    use common::venv::site_packages;
    let cu12 = site_packages(&common::venv::dir("numbavenv"))
        .map(|s| s.join("nvidia"))
        .filter(|n| n.join("cuda_runtime/lib/libcudart_static.a").exists())
        .ok_or("the numba test's venv (CUDA 12 runtime and headers) is missing")?;
    let fatbinary = site_packages(&common::venv::dir("nvccvenv"))
        .map(|s| s.join("nvidia/cu13/bin/fatbinary"))
        .filter(|f| f.exists())
        .ok_or("the nvcc test's venv (CUDA 13 fatbinary) is missing")?;
    let cuda = dir.join("cuda");
    for sub in ["include", "bin", "lib64"] {
        std::fs::create_dir_all(cuda.join(sub)).map_err(|e| e.to_string())?;
    }
    let link_all = |from: &Path, to: &Path| -> Result<(), String> {
        for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
            let p = e.map_err(|e| e.to_string())?.path();
            let name = p.file_name().ok_or("file name")?;
            std::os::unix::fs::symlink(&p, to.join(name)).map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    link_all(&cu12.join("cuda_runtime/include"), &cuda.join("include"))?;
    link_all(&cu12.join("cuda_nvcc/include"), &cuda.join("include"))?;
    link_all(&cu12.join("cuda_runtime/lib"), &cuda.join("lib64"))?;
    std::os::unix::fs::symlink(cu12.join("cuda_nvcc/bin/ptxas"), cuda.join("bin/ptxas"))
        .map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink(
        cu12.join("cuda_runtime/lib/libcudart.so.12"),
        cuda.join("lib64/libcudart.so"),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(
        cuda.join("include/curand_mtgp32_kernel.h"),
        "/* Included by clang's CUDA wrapper; the program does not use cuRAND. */\n",
    )
    .map_err(|e| e.to_string())?;
    let shim = format!(
        "#!/bin/sh\n# clang 19 spells fatbinary's image option as CUDA 12 did.\n\
         for a in \"$@\"; do\n  shift\n  case \"$a\" in\n\
         \x20   --image=profile=sm_*) a=\"--image3=kind=elf,sm=${{a#--image=profile=sm_}}\";;\n\
         \x20   --image=profile=compute_*) a=\"--image3=kind=ptx,sm=${{a#--image=profile=compute_}}\";;\n\
         \x20 esac\n  set -- \"$@\" \"$a\"\ndone\nexec '{}' \"$@\"\n",
        fatbinary.display()
    );
    let bin = cuda.join("bin/fatbinary");
    std::fs::write(&bin, shim).map_err(|e| e.to_string())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())?;
    Ok(cuda)
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("{what} failed ({:?}):\n{text}", out.status.code()))
    }
}

#[test]
fn clang_built_runtime_programs_run_against_libcuda() {
    let lib = common::lib_dir();
    let dir = common::scratch("clang_client");
    let cuda = match Command::new("clang++-19").arg("--version").output() {
        Ok(o) if o.status.success() => cuda_dir(&dir),
        _ => Err("clang++-19 is not installed".into()),
    };
    let test = "clang_built_runtime_programs_run_against_libcuda";
    let Some(cuda) = common::venv::or_skip(test, cuda) else {
        return;
    };
    let obj = dir.join("prog.o");
    let compiled = run(
        Command::new("clang++-19")
            .args(["-x", "cuda", "--cuda-gpu-arch=sm_90", "-nocudalib", "-O2"])
            .arg(format!("--cuda-path={}", cuda.display()))
            .args([
                "-Wno-unknown-cuda-version",
                "-Xclang",
                "-target-sdk-version=12.5",
            ])
            .arg("-c")
            .arg(common::crate_dir().join("tests/cuda/runtime_prog.cu"))
            .arg("-o")
            .arg(&obj),
        "clang++-19 -x cuda",
    );
    compiled.unwrap_or_else(|e| panic!("{e}"));
    let libs = cuda.join("lib64");
    for (name, runtime) in [("static", "-lcudart_static"), ("shared", "-lcudart")] {
        let exe = dir.join(format!("prog_{name}"));
        run(
            Command::new("clang++-19")
                .arg(&obj)
                .arg("-o")
                .arg(&exe)
                .arg(format!("-L{}", libs.display()))
                .args([runtime, "-ldl", "-lpthread", "-lrt"]),
            "clang++-19 link",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out = run(
            Command::new(&exe).env(
                "LD_LIBRARY_PATH",
                format!("{}:{}", lib.display(), libs.display()),
            ),
            &format!("prog_{name}"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        println!("{name}: {out}");
        assert!(out.contains("nvcc program: PASS"), "{name}: {out}");
        assert!(out.contains("hello from block 0 thread 0"), "{name}: {out}");
    }
}
