//! Every function of the driver API header (api/functions.txt, generated from NVIDIA's
//! cuda.h by api/gen.py) is exported by libcuda.so, and nothing else is; unimplemented
//! ones answer CUDA_ERROR_NOT_SUPPORTED. Also checks the generated tables in-process.

mod common;

use std::process::Command;

#[test]
fn exported_symbols_match_the_header() {
    let so = common::lib_dir().join("libcuda.so");
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .expect("run nm (binutils)");
    assert!(out.status.success());
    let mut exported: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(String::from))
        .collect();
    exported.sort();
    let list = std::fs::read_to_string(common::crate_dir().join("api/functions.txt")).unwrap();
    let mut want: Vec<String> = list.lines().map(String::from).collect();
    want.sort();
    // CUDA 12.9's and CUDA 13.5's cuda.h together, with the profiler functions.
    assert_eq!(want.len(), 688);
    let missing: Vec<_> = want.iter().filter(|w| !exported.contains(w)).collect();
    let extra: Vec<_> = exported.iter().filter(|e| !want.contains(e)).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    assert!(
        extra.is_empty(),
        "exported but not in the header: {extra:?}"
    );
}

#[test]
fn proc_address_table_resolves_versions() {
    use cuda::resolve;
    assert_eq!(resolve("cuMemAlloc", 12080, false), Ok("cuMemAlloc_v2"));
    assert_eq!(resolve("cuMemAlloc", 2000, false), Ok("cuMemAlloc"));
    assert_eq!(resolve("cuCtxCreate", 11040, false), Ok("cuCtxCreate_v3"));
    assert_eq!(resolve("cuCtxCreate", 11030, false), Ok("cuCtxCreate_v2"));
    assert_eq!(
        resolve("cuGetProcAddress", 12000, false),
        Ok("cuGetProcAddress_v2")
    );
    assert_eq!(
        resolve("cuStreamDestroy", 12000, false),
        Ok("cuStreamDestroy_v2")
    );
    // Per-thread variants: implemented ones are returned, otherwise the plain one.
    assert_eq!(
        resolve("cuLaunchKernel", 12000, true),
        Ok("cuLaunchKernel_ptsz")
    );
    assert_eq!(
        resolve("cuMemcpyHtoDAsync", 12000, true),
        Ok("cuMemcpyHtoDAsync_v2")
    );
    // Too old a version, unknown name.
    assert_eq!(resolve("cuLaunchKernelEx", 11000, false), Err(true));
    assert_eq!(resolve("cuNoSuchFunction", 12000, false), Err(false));
    // Every symbol of the table has an address.
    for e in cuda::PROCS {
        assert!(cuda::symbol_addr(e.3).is_some(), "{}", e.3);
    }
}

#[test]
fn stubs_say_not_supported_and_errors_have_names() {
    unsafe {
        assert_eq!(
            cuda::cuGraphAddBatchMemOpNode(),
            cuda::CUDA_ERROR_NOT_SUPPORTED
        );
        let mut p = std::ptr::null();
        assert_eq!(cuda::cuGetErrorName(700, &mut p), 0);
        assert_eq!(
            std::ffi::CStr::from_ptr(p).to_str().unwrap(),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
        );
        // The driver's short messages, which libcudart.so.12 also carries for these
        // numbers (`strings libcudart.so.12`) and CuPy's tests expect.
        for (code, text) in [
            (801, "operation not supported"),
            (500, "named symbol not found"),
            (1, "invalid argument"),
            (700, "an illegal memory access was encountered"),
        ] {
            assert_eq!(cuda::cuGetErrorString(code, &mut p), 0);
            assert_eq!(std::ffi::CStr::from_ptr(p).to_str().unwrap(), text);
        }
        // A code with no short message known keeps cuda.h's description.
        assert_eq!(cuda::cuGetErrorString(5, &mut p), 0);
        assert!(std::ffi::CStr::from_ptr(p)
            .to_str()
            .unwrap()
            .contains("profiler"));
        assert_eq!(
            cuda::cuGetErrorName(123456, &mut p),
            cuda::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuda::cuGetErrorName(0, std::ptr::null_mut()),
            cuda::CUDA_ERROR_INVALID_VALUE
        );
    }
}
