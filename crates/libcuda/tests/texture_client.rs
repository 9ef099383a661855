//! The golden runner `tests/golden/gpurun.c` (the program that recorded the H100's
//! texture and surface outputs) linked against the built library: it creates CUDA arrays
//! with `cuArray3DCreate_v2`, fills and reads them back with `cuMemcpy3D_v2`, makes
//! texture and surface objects with `cuTexObjectCreate`/`cuSurfObjectCreate` and launches
//! the recorded kernels. Surface arrays written back must equal the GPU's bytes; texture
//! cases whose fetches ptxjit reproduces bit for bit (point sampling with unnormalised
//! coordinates) must equal the GPU's outputs.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn golden() -> PathBuf {
    common::crate_dir().join("../../tests/golden")
}

#[test]
fn gpurun_textures_and_surfaces_match_the_h100() {
    let lib = common::lib_dir();
    let dir = common::scratch("texture_client");
    let exe = dir.join("gpurun");
    let out = Command::new("gcc")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(golden().join("gpurun.c"))
        .arg(format!("-L{}", lib.display()))
        .args(["-lcuda", "-ldl"])
        .output()
        .expect("run gcc (install it: apt-get install gcc)");
    assert!(
        out.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outdir = dir.join("out");
    std::fs::create_dir_all(&outdir).expect("out dir");
    for (ptx, failed) in [
        ("future_tex.ptx", 0),
        ("future_sust.ptx", 0),
        ("future_suld_a2d.ptx", 0),
        // The 15 misaligned forms fail as they did on the GPU.
        ("future_suld_2d.ptx", 15),
    ] {
        let run = Command::new(&exe)
            .arg(golden().join("cases_future.txt"))
            .arg(golden())
            .arg(&outdir)
            .arg(ptx)
            .env("LD_LIBRARY_PATH", lib)
            .output()
            .expect("run gpurun");
        let text = String::from_utf8_lossy(&run.stdout).to_string()
            + &String::from_utf8_lossy(&run.stderr);
        let n = text
            .lines()
            .filter(|l| l.starts_with("FAIL") && l.contains("CUDA_ERROR_MISALIGNED_ADDRESS"))
            .count();
        assert!(
            text.contains(&format!("cases, {failed} failed")) && n == failed,
            "{ptx}:\n{text}"
        );
    }
    let mut compared = 0;
    for e in std::fs::read_dir(&outdir).expect("outputs") {
        let name = e.expect("entry").file_name().to_string_lossy().to_string();
        let exact_tex =
            name.starts_with("tex_") && name.contains("_point_") && name.contains("_n0_");
        let surf = name.ends_with("_array.bin");
        if !(exact_tex || surf) {
            continue;
        }
        let got = std::fs::read(outdir.join(&name)).expect("output");
        let want = std::fs::read(golden().join("out_future").join(&name)).expect("GPU output");
        assert!(got == want, "{name} differs from the H100's");
        compared += 1;
    }
    assert!(compared >= 60, "only {compared} outputs compared");
}
