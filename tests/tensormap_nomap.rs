//! `tensormap.replace` on memory that holds no tensor map, on both backends
//! (`tests/kernels/tma/replace_nomap.ptx`, hand-written: ptxas accepts it for sm_90a).
//! The ISA (data movement, `tensormap.replace`): it "replaces the field ... of the
//! tensor-map object at the location specified by the address operand", an object of
//! 1024 bits (`.b1024`). numba-cuda's `test_device_arch_specific` applies it to a 4-byte
//! shared array (`numba_like`): ptxjit checks the whole 128-byte object against the CTA's
//! shared window, and a map is ptxjit's own encoding, so 128 zero bytes are no map.

use ptxjit::{Backend, Device, LaunchConfig};

const SRC: &str = include_str!("kernels/tma/replace_nomap.ptx");

#[test]
fn replace_on_memory_without_a_map_is_a_located_error_on_both_backends() {
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "replace_nomap.ptx", b == Backend::Jit)
            .expect("load");
        let out = dev.alloc_zeroed(4).expect("out");
        let cfg = LaunchConfig::new(1, 1).backend(b);
        for (k, why) in [
            (
                "numba_like",
                "outside-window 128-byte store at shared address",
            ),
            ("zeros", "the 128 bytes are not a tensor map"),
        ] {
            let e = dev
                .launch(&m, k, &cfg, &[(&out).into()])
                .expect_err("no tensor map");
            let msg = e.to_string();
            assert!(msg.contains("replace_nomap.ptx:"), "{b:?} {k}: {msg}");
            assert!(msg.contains("tensormap.replace"), "{b:?} {k}: {msg}");
            assert!(msg.contains(why), "{b:?} {k}: {msg}");
        }
    }
}
