//! The PTX linker (`ptxjit::link`, `Device::load_ptx_linked`, `ptxjit check/run` with
//! several files): hand-written modules in tests/ptx_link/ (each passes `ptxas -c`)
//! calling each other's `.extern .func`, sharing an `.extern .global`, a `.weak`
//! function overridden by a `.visible` one, a `.common` array, internal functions of
//! the same name in two modules, `malloc`/`free` left to the device heap; and the link
//! errors, located in the right file.
#[allow(unused_macros)]
mod common;
use common::*;
use ptxjit::{Backend, Device};
use std::process::Command;

fn src(name: &str) -> (String, String) {
    let path = format!("tests/ptx_link/{name}");
    (load_root(&path), path)
}

fn link(dev: &Device, names: &[&str], backend: Backend) -> Result<ptxjit::Module, String> {
    let srcs: Vec<(String, String)> = names.iter().map(|n| src(n)).collect();
    let pairs: Vec<(&str, &str)> = srcs.iter().map(|(s, n)| (s.as_str(), n.as_str())).collect();
    dev.load_ptx_linked(&pairs, backend == Backend::Jit)
        .map_err(|e| e.to_string())
}

/// out[i] = square(i) [lib's helper: i*i] + main's helper (i + 1) + bias (lib's
/// .visible 7, not main's .weak 1000) + table[i & 3] (table.ptx: 10, 20, 30, 40).
fn expected(i: u32) -> u32 {
    let table = [10, 20, 30, 40];
    i * i + (i + 1) + 7 + table[(i & 3) as usize]
}

#[test]
fn linked_modules_resolve_functions_variables_weak_and_common() {
    let n = 300u32;
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        // The order of the modules does not matter.
        for names in [
            ["main.ptx", "lib.ptx", "table.ptx"],
            ["table.ptx", "lib.ptx", "main.ptx"],
        ] {
            let m = link(&dev, &names, backend).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.kernels(), vec!["apply"]);
            let out = zeroed(&dev, 4 * n as usize);
            launch(
                &dev,
                &m,
                "apply",
                &cfg([blocks(n as usize, 128), 1, 1], [128, 1, 1], backend),
                &[arg(&out), n.into()],
                "apply",
            );
            let got: Vec<u32> = dev.read(&out).expect("read");
            let want: Vec<u32> = (0..n).map(expected).collect();
            assert_eq!(got, want, "{backend:?} {names:?}");
            // lib.ptx's counter starts at 5; each thread adds 1.
            let counter: Vec<u32> = dev
                .read(&m.global("counter").expect("counter"))
                .expect("read");
            assert_eq!(counter, vec![5 + n], "{backend:?}");
            assert_eq!(m.global("table").expect("table").len(), 16);
        }
    }
}

#[test]
fn link_errors_name_the_symbol_and_the_file() {
    let dev = device();
    let cases: [(&[&str], &str); 5] = [
        (
            &["main.ptx"],
            "tests/ptx_link/main.ptx:7:31: error: link error: undefined symbol 'square'",
        ),
        (
            &["main.ptx", "lib.ptx", "table.ptx", "dup.ptx"],
            "tests/ptx_link/dup.ptx:6:32: error: link error: duplicate definition of symbol 'bias'",
        ),
        (
            &["main.ptx", "lib.ptx", "table.ptx", "kind.ptx"],
            "tests/ptx_link/kind.ptx:6:23: error: link error: 'square' is a function in one module and a variable in another",
        ),
        (
            &["main.ptx", "lib.ptx", "table.ptx", "common_big.ptx"],
            "tests/ptx_link/table.ptx:6:22: error: link error: the initialized definition of .common symbol 'table' is not the largest",
        ),
        (
            &["main.ptx", "lib.ptx", "table.ptx", "sig.ptx"],
            "tests/ptx_link/sig.ptx:6:31: error: link error: declaration of 'square' does not match its definition",
        ),
    ];
    for (names, want) in cases {
        let e = link(&dev, names, Backend::Jit).expect_err("link must fail");
        assert!(e.starts_with(want), "{names:?}:\n{e}\nwant: {want}");
    }
    // A parse error in a later source keeps its own line numbers.
    let bad =
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n  bogus;\n}\n";
    let (lib, lib_name) = src("lib.ptx");
    let e = dev
        .load_ptx_linked(&[(&lib, &lib_name), (bad, "bad.ptx")], true)
        .expect_err("must fail")
        .to_string();
    assert!(e.starts_with("bad.ptx:6:3: error:"), "{e}");
}

#[test]
fn cli_links_several_files() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ptxjit"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .expect("run ptxjit")
    };
    let o = run(&[
        "check",
        "tests/ptx_link/main.ptx",
        "tests/ptx_link/lib.ptx",
        "tests/ptx_link/table.ptx",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "tests/ptx_link/main.ptx + tests/ptx_link/lib.ptx + tests/ptx_link/table.ptx: ok (1 kernel: apply)\n"
    );
    let dir = std::env::temp_dir().join(format!("ptxjit-link-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let out = dir.join("out.bin");
    let o = run(&[
        "run",
        "tests/ptx_link/main.ptx",
        "tests/ptx_link/lib.ptx",
        "tests/ptx_link/table.ptx",
        "--kernel",
        "apply",
        "--block",
        "8",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:8",
        "--out",
        &format!("0={}", out.display()),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(&out).expect("out");
    let got: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, (0..8).map(expected).collect::<Vec<_>>());
    let o = run(&["check", "tests/ptx_link/main.ptx", "tests/ptx_link/dup.ptx"]);
    assert_eq!(o.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn library_members_are_taken_only_when_needed() {
    let srcs: Vec<(String, String)> = ["main.ptx", "table.ptx", "lib.ptx", "dup.ptx", "kind.ptx"]
        .iter()
        .map(|n| src(n))
        .collect();
    let p: Vec<(&str, &str)> = srcs.iter().map(|(s, n)| (s.as_str(), n.as_str())).collect();
    // main.ptx declares `square` and `counter`: lib.ptx defines both. table.ptx's
    // `table` and dup.ptx's `bias` are defined by main.ptx already (.common, .weak), and
    // kind.ptx's `square` comes after lib.ptx's: none of them is taken.
    assert_eq!(ptxjit::link::needed_members(&p[..1], &p[1..4]), Ok(vec![1]));
    // The first member defining a wanted name is taken, as in an archive.
    assert_eq!(
        ptxjit::link::needed_members(&p[..1], &[p[4], p[2]]),
        Ok(vec![0, 1])
    );
    // Nothing wanted, nothing taken.
    assert_eq!(ptxjit::link::needed_members(&p[2..3], &p[..1]), Ok(vec![]));
}

/// `malloc` and `free` declared in a linked module and defined in none are the
/// device heap's (numba-cuda's NRT links that way): heap_lib.ptx's triple(x) stores x
/// and 2x in a malloc'd buffer and returns their sum, so out[i] = 3 * i.
#[test]
fn malloc_and_free_declared_in_a_linked_module_use_the_device_heap() {
    let n = 200u32;
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = link(&dev, &["heap_main.ptx", "heap_lib.ptx"], backend)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = zeroed(&dev, 4 * n as usize);
        launch(
            &dev,
            &m,
            "heap_apply",
            &cfg([blocks(n as usize, 64), 1, 1], [64, 1, 1], backend),
            &[arg(&out), n.into()],
            "heap_apply",
        );
        let got: Vec<u32> = dev.read(&out).expect("read");
        let want: Vec<u32> = (0..n).map(|i| 3 * i).collect();
        assert_eq!(got, want, "{backend:?}");
    }
}

/// Functions no kernel reaches are dropped before the undefined-reference check, as
/// NVIDIA's linker does (nvJitLink 12.9 links dce_main.ptx + dce_lib.ptx, and reports
/// "Undefined reference to 'missing'" when dce_table.ptx or dce_addr.ptx is added:
/// `src/link/reach.rs`). out[i] = twice(i) = 2 * i. The error is located at the first
/// declaration of the undefined name (dce_lib.ptx's).
#[test]
fn functions_no_kernel_reaches_may_call_undefined_functions() {
    let n = 100u32;
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m =
            link(&dev, &["dce_main.ptx", "dce_lib.ptx"], backend).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.kernels(), vec!["fill"]);
        let out = zeroed(&dev, 4 * n as usize);
        launch(
            &dev,
            &m,
            "fill",
            &cfg([1, 1, 1], [128, 1, 1], backend),
            &[arg(&out), n.into()],
            "fill",
        );
        let got: Vec<u32> = dev.read(&out).expect("read");
        assert_eq!(
            got,
            (0..n).map(|i| 2 * i).collect::<Vec<_>>(),
            "{backend:?}"
        );
    }
    let dev = device();
    for (extra, want) in [
        (
            "dce_table.ptx",
            "tests/ptx_link/dce_lib.ptx:8:31: error: link error: undefined symbol 'missing'",
        ),
        (
            "dce_addr.ptx",
            "tests/ptx_link/dce_lib.ptx:8:31: error: link error: undefined symbol 'missing'",
        ),
    ] {
        let e = link(&dev, &["dce_main.ptx", "dce_lib.ptx", extra], Backend::Jit)
            .expect_err("link must fail");
        assert!(e.starts_with(want), "{extra}:\n{e}\nwant: {want}");
    }
}

/// A declaration with a return value its definition lacks (numba-cuda's C-ABI
/// `declare_device` of a `void` function): nvJitLink 12.9 links proto_use.ptx with
/// proto_def.ptx by name ("Prototype doesn't match" in its log, and a cubin); ptxjit
/// links them and the extra return value reads 0 (`src/link/adapt.rs`). store_twice
/// writes out[i] = 2 * i for i < n; ret[i] = the return variable after the call, 0
/// (it held 12345 before the call); threads i >= n skip the call and store nothing.
#[test]
fn a_declared_return_value_the_definition_lacks_reads_zero() {
    let (n, threads) = (100u32, 128u32);
    for backend in [Backend::Interp, Backend::Jit] {
        let dev = device();
        let m = link(&dev, &["proto_use.ptx", "proto_def.ptx"], backend)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = zeroed(&dev, 4 * threads as usize);
        let ret = zeroed(&dev, 8 * threads as usize);
        launch(
            &dev,
            &m,
            "twice_and_ret",
            &cfg([1, 1, 1], [threads, 1, 1], backend),
            &[arg(&out), arg(&ret), n.into()],
            "twice_and_ret",
        );
        let got: Vec<u32> = dev.read(&out).expect("read");
        let want: Vec<u32> = (0..threads)
            .map(|i| if i < n { 2 * i } else { 0 })
            .collect();
        assert_eq!(got, want, "{backend:?}");
        let got: Vec<u64> = dev.read(&ret).expect("read");
        assert_eq!(got, vec![0u64; threads as usize], "{backend:?}");
    }
}
