//! The Python wheel: python/build_wheel.py packs the built `libcuda.so` and `ptxjit`
//! into a wheel, pip installs it (offline, `--no-index`) into a venv holding the
//! numba-cuda stack (made once from PyPI like the numba test's, under the target
//! directory; the wheel is reinstalled on every run), and a numba kernel runs through
//! `python -m ptxjit exec --` and through `import ptxjit; ptxjit.activate()` with no
//! `LD_LIBRARY_PATH` from the caller. Also: `python -m ptxjit exec`'s settings, flags and
//! exit status, the bundled Rust CLI's `exec` finding the wheel's library, `activate()`
//! refusing when another libcuda is loaded, and the `ptxjit` console script reaching the
//! bundled CLI. Skipped, with a message, when Python or the packages cannot be had.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// `cmd` with none of the variables `ptxjit exec` sets inherited from the caller.
fn clean(mut cmd: Command, cache: &Path) -> Command {
    for v in [
        "LD_LIBRARY_PATH",
        "PTXJIT_LIBCUDA",
        "NUMBA_CUDA_DRIVER",
        "CUPY_COMPILE_WITH_PTX",
        "CUPY_ACCELERATORS",
    ] {
        cmd.env_remove(v);
    }
    cmd.current_dir(cache).env("NUMBA_CACHE_DIR", cache);
    cmd
}

/// The wheel, built once per test run into a scratch directory; returns its path.
fn wheel() -> &'static str {
    static WHEEL: OnceLock<String> = OnceLock::new();
    WHEEL.get_or_init(|| {
        let lib = common::lib_dir();
        let res = Command::new("python3")
            .arg(common::crate_dir().join("../../python/build_wheel.py"))
            .arg("--libcuda")
            .arg(lib.join("libcuda.so"))
            .arg("--cli")
            .arg(common::ptxjit_cli())
            .arg("--out")
            .arg(common::scratch("wheel-build"))
            .output()
            .expect("run python3 build_wheel.py");
        assert!(res.status.success(), "build_wheel: {}", common::show(&res));
        let stdout = String::from_utf8_lossy(&res.stdout);
        let wheel = stdout.lines().last().unwrap_or_default().trim().to_string();
        assert!(
            wheel.ends_with("-py3-none-manylinux_2_34_x86_64.whl")
                || wheel.ends_with("-py3-none-linux_x86_64.whl"),
            "{wheel}"
        );
        wheel
    })
}

/// `pip install`s the wheel, offline, into the venv of `py`.
fn install_wheel(py: &Path) {
    let res = Command::new(py)
        .args(["-m", "pip", "install", "-q", "--no-index", "--no-deps"])
        .args(["--force-reinstall", wheel()])
        .output()
        .expect("run pip");
    assert!(res.status.success(), "pip install: {}", common::show(&res));
}

#[test]
fn wheel_runs_numba_through_exec_and_activate() {
    let lib = common::lib_dir();
    let venv = common::venv::dir("wheelvenv");
    let test = "wheel_runs_numba_through_exec_and_activate";
    let Some(py) = common::venv::or_skip(test, common::venv::numba(&venv)) else {
        return;
    };
    let dir = common::scratch("wheel");
    install_wheel(&py);

    // python -m ptxjit exec -- python -c KERNEL
    let mut cmd = Command::new(&py);
    cmd.args(["-m", "ptxjit", "exec", "--"])
        .arg(&py)
        .args(["-c", common::NUMBA_SNIPPET]);
    let out = clean(cmd, &dir).output().expect("run");
    let s = common::show(&out);
    println!("exec: {s}");
    assert!(out.status.success(), "{s}");
    assert!(
        s.contains("ptxjit CPU device") && s.contains("numba kernel ok"),
        "{s}"
    );

    // ptxjit.activate() in the running interpreter, before numba is imported; then the
    // only libcuda mapped into the process is the wheel's.
    let script = format!(
        "import ptxjit, os\nlib = ptxjit.activate()\n{}\n\
         maps = {{p for p in (l.split()[-1] for l in open('/proc/self/maps'))\n\
         \x20        if os.path.basename(p).startswith('libcuda.so')}}\n\
         print('libcuda mapped:', sorted(maps))\n\
         print('activated from package:', lib.startswith(os.path.dirname(ptxjit.__file__)))\n",
        common::NUMBA_SNIPPET
    );
    let mut cmd = Command::new(&py);
    cmd.args(["-c", &script]);
    let out = clean(cmd, &dir).output().expect("run");
    let s = common::show(&out);
    println!("activate: {s}");
    assert!(out.status.success(), "{s}");
    assert!(
        s.contains("ptxjit CPU device") && s.contains("numba kernel ok"),
        "{s}"
    );
    assert!(s.contains("activated from package: True"), "{s}");
    let mapped = s
        .lines()
        .find_map(|l| l.strip_prefix("libcuda mapped: "))
        .unwrap_or_default();
    assert!(
        mapped.contains("/ptxjit/lib/libcuda.so.1") && !mapped.contains("', '"),
        "{s}"
    );

    // The settings, flags and exit status of `python -m ptxjit exec`, and the bundled
    // Rust CLI's own `exec`, which finds the library at ../lib from its bin/.
    let script = "echo LIB=$PTXJIT_LIBCUDA; echo SAN=$PTXJIT_SANITIZE; \
                  echo PTX=$CUPY_COMPILE_WITH_PTX; exit 5";
    let mut cmd = Command::new(&py);
    cmd.args(["-m", "ptxjit", "exec", "--sanitize", "memcheck", "--"])
        .args(["sh", "-c", script]);
    let out = clean(cmd, &dir).output().expect("run");
    let s = common::show(&out);
    assert_eq!(out.status.code(), Some(5), "{s}");
    assert!(
        s.contains("/ptxjit/lib/libcuda.so.1\nSAN=memcheck\nPTX=1\n"),
        "{s}"
    );
    let site_cli = Path::new(
        s.lines()
            .find_map(|l| l.strip_prefix("LIB="))
            .unwrap_or("/"),
    )
    .parent()
    .and_then(Path::parent)
    .map(|p| p.join("bin/ptxjit"))
    .expect("package dir");
    let mut cmd = Command::new(&site_cli);
    cmd.args(["exec", "--", "sh", "-c", "echo LIB=$PTXJIT_LIBCUDA"]);
    let out = clean(cmd, &dir).output().expect("run the bundled CLI");
    let s = common::show(&out);
    assert!(out.status.success(), "{s}");
    assert!(s.contains("/ptxjit/lib/libcuda.so.1\n"), "{s}");

    // activate() refuses to run when another libcuda is already loaded.
    let script = format!(
        "import ctypes, ptxjit\nctypes.CDLL('{}')\ntry:\n    ptxjit.activate()\n\
         except RuntimeError as e:\n    print('refused:', e)\n",
        lib.join("libcuda.so").display()
    );
    let mut cmd = Command::new(&py);
    cmd.args(["-c", &script]);
    let out = clean(cmd, &dir).output().expect("run");
    let s = common::show(&out);
    assert!(
        s.contains("refused: ptxjit.activate(): another CUDA driver is already loaded"),
        "{s}"
    );

    // The console script forwards the other commands to the bundled CLI.
    let out = Command::new(venv.join("bin/ptxjit"))
        .arg("check")
        .arg(common::kernels_ptx())
        .output()
        .expect("run the ptxjit script");
    let s = common::show(&out);
    assert!(out.status.success(), "{s}");
    assert!(s.contains("kernels.ptx: ok ("), "{s}");
}

/// CuPy after `ptxjit.activate()`, in the CuPy test's venv (the wheel installed into it):
/// a reduction, an elementwise kernel and a `RawKernel`.
#[test]
fn wheel_activate_runs_cupy() {
    let Some(py) = common::venv::or_skip("wheel_activate_runs_cupy", common::venv::cupy()) else {
        return;
    };
    let dir = common::scratch("wheel-cupy");
    install_wheel(&py);
    let script = r#"
import ptxjit
ptxjit.activate()
import cupy as cp
print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
a = cp.arange(1000, dtype=cp.int64)
print("sums:", int(a.sum()), int((a * 3 + 1).sum()))
twice = cp.RawKernel(r"""
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}""", "twice")
xs = cp.arange(1000, dtype=cp.float32)
ys = cp.empty_like(xs)
twice((4,), (256,), (xs, ys, cp.int32(1000)))
print("RawKernel twice:", bool((ys == 2 * xs).all()))
"#;
    let mut cmd = Command::new(&py);
    cmd.args(["-c", script]).env("CUPY_CACHE_DIR", &dir);
    let out = clean(cmd, &dir).output().expect("run");
    let s = common::show(&out);
    println!("{s}");
    assert!(out.status.success(), "{s}");
    assert!(s.contains("device: ptxjit CPU device"), "{s}");
    // sum of 0..999 = 999 * 1000 / 2 = 499500; sum of 3i + 1 = 3 * 499500 + 1000.
    assert!(s.contains("sums: 499500 1499500\n"), "{s}");
    assert!(s.contains("RawKernel twice: True"), "{s}");
}
