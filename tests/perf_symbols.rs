//! Profiles name the generated code: under `perf record` (which sets `PERF_BUILDID_DIR`
//! in the profiled process) cranelift-jit appends every function it finalizes to
//! `/tmp/perf-<pid>.map`, and ptxjit's symbols carry the PTX name, so `perf report`
//! shows `ptxjit_kernel_<index>_saxpy` for the bundled example's kernel. Its own test
//! binary: it sets an environment variable of the process.

use ptxjit::{Backend, Device, LaunchConfig};

#[test]
fn the_perf_map_names_the_kernel() {
    // (The only test of this binary: no other thread reads the environment meanwhile;
    // set before the device exists.)
    std::env::set_var("PERF_BUILDID_DIR", std::env::temp_dir());
    let map = format!("/tmp/perf-{}.map", std::process::id());
    let _ = std::fs::remove_file(&map);
    let dev = Device::new().expect("device");
    let src = std::fs::read_to_string("examples/saxpy.ptx").expect("example");
    let m = dev.load_ptx(&src, "saxpy.ptx").expect("load");
    let x = dev.alloc_from(&[1.0f32; 64]).expect("x");
    let y = dev.alloc_from(&[2.0f32; 64]).expect("y");
    let cfg = LaunchConfig::new(1, 64).backend(Backend::Jit);
    let args = [64u32.into(), 2.0f32.into(), (&x).into(), (&y).into()];
    dev.launch(&m, "saxpy", &cfg, &args).expect("launch");
    // y = 2 * 1 + 2 = 4 in every element (the launch ran the code the map names).
    assert_eq!(dev.read::<f32>(&y).expect("read"), vec![4.0f32; 64]);
    let text = std::fs::read_to_string(&map).expect("cranelift-jit wrote the perf map");
    let _ = std::fs::remove_file(&map);
    let line = text
        .lines()
        .find(|l| l.ends_with("_saxpy"))
        .unwrap_or_else(|| panic!("no saxpy symbol in the map:\n{text}"));
    // `START SIZE NAME`, start and size in hex, a non-empty function.
    let f: Vec<&str> = line.split(' ').collect();
    assert_eq!(f.len(), 3, "{line}");
    assert!(u64::from_str_radix(f[0], 16).expect("start") > 0, "{line}");
    assert!(u64::from_str_radix(f[1], 16).expect("size") > 0, "{line}");
    assert!(f[2].starts_with("ptxjit_kernel_"), "{line}");
}
