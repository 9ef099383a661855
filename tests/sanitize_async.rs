//! The sanitizers on asynchronous copies and mbarriers (issue 18), on both backends:
//! initcheck counts shared bytes written by `cp.async` / `cp.async.bulk` as written
//! (libcu++ pipelines and `memcpy_async`, the CUTLASS-style GEMM's `ldmatrix` reads);
//! racecheck orders accesses by mbarrier phases (release at arrive, acquire at a wait
//! that saw the phase complete) and still reports an access the phase does not order;
//! memcheck on the device heap's linked list of `tests/kernels/heap.cu`.

use ptxjit::{Backend, Device, KernelArg, LaunchConfig, Module, SanitizeOptions};

const BACKENDS: [Backend; 2] = [Backend::Interp, Backend::Jit];

fn load(dev: &Device, path: &str) -> Module {
    let full = format!("{}/tests/{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    dev.load_ptx(&src, path)
        .unwrap_or_else(|e| panic!("load_ptx({path}): {e}"))
}

/// Runs `kernel` with `grid` blocks of `block` threads on the input `x` (u32 words), an
/// output of `out` words and `ints`, under `opts`; returns the output or the error.
#[allow(clippy::too_many_arguments)]
fn run(
    dev: &Device,
    m: &Module,
    kernel: &str,
    grid: [u32; 3],
    block: u32,
    inputs: &[Vec<u8>],
    out: usize,
    ints: &[i32],
    backend: Backend,
    opts: SanitizeOptions,
) -> Result<Vec<u8>, String> {
    let ins: Vec<_> = inputs.iter().map(|v| dev.alloc_from(v).unwrap()).collect();
    let o = dev.alloc_zeroed(out).unwrap();
    let mut args: Vec<KernelArg> = ins.iter().map(KernelArg::from).collect();
    args.push((&o).into());
    args.extend(ints.iter().map(|&i| KernelArg::from(i)));
    let cfg = LaunchConfig::new(grid, [block, 1, 1])
        .backend(backend)
        .sanitize(opts);
    let r = dev.launch(m, kernel, &cfg, &args);
    let got = dev.read::<u8>(&o).unwrap();
    for b in ins.into_iter().chain([o]) {
        dev.free(b).unwrap();
    }
    r.map(|_| got).map_err(|e| e.to_string())
}

/// memcheck on the device heap: `list` of tests/kernels/heap.cu (thread 0 builds a
/// linked list of 50 malloc'd nodes, thread 1 walks and frees it after a barrier) runs
/// clean and sums i*i for i < 50 = 49*50*99/6 = 40425 in each of 3 blocks, whatever
/// the compiler and backend.
#[test]
fn heap_list_is_clean_under_memcheck() {
    let dev = Device::new().unwrap();
    let opts = SanitizeOptions::parse("memcheck").unwrap();
    for file in ["heap.nvrtc.ptx", "heap.clang.ptx"] {
        let m = load(&dev, &format!("kernels/{file}"));
        for backend in BACKENDS {
            for _ in 0..2 {
                let got = run(
                    &dev,
                    &m,
                    "list",
                    [3, 1, 1],
                    32,
                    &[],
                    12,
                    &[50],
                    backend,
                    opts,
                )
                .unwrap_or_else(|e| panic!("{file} list on {backend:?}: {e}"));
                let want: Vec<u8> = [40425u32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
                assert_eq!(got, want, "{file} list on {backend:?}");
            }
            let rep = dev.take_sanitizer_report();
            assert!(rep.is_empty(), "{file} list on {backend:?}: {rep}");
        }
    }
}
