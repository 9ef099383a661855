//! `membar` / `fence` in every form (tests/ptx/fence.ptx, ptxas-validated): message
//! passing between two CTAs on 1 and 2 worker threads, on both backends.
#[macro_use]
mod common;
use common::*;
use ptxjit::DeviceOptions;

fn message_passing(backend: Backend) {
    for threads in [1, 2] {
        let dev = Device::with_options(DeviceOptions {
            threads,
            ..DeviceOptions::default()
        })
        .unwrap();
        let m = module_at(&dev, "tests/ptx/fence.ptx", backend);
        for round in 0..20 {
            let data = zeroed(&dev, 64 * 4);
            let flag = zeroed(&dev, 4);
            let out = dev.alloc_from(&[0xffff_ffffu32; 64]).unwrap();
            let what = format!("fence mp threads={threads} round={round} {backend:?}");
            let c = cfg([2, 1, 1], [64, 1, 1], backend);
            launch(
                &dev,
                &m,
                "mp",
                &c,
                &[arg(&data), arg(&flag), arg(&out)],
                &what,
            );
            let want: Vec<u32> = (0..64).map(|t| t * 7 + 1).collect();
            assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
        }
    }
}

both_backends!(message_passing);

#[test]
fn membar_needs_a_level() {
    let dev = device();
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n\tmembar;\n}\n";
    let e = dev
        .load_ptx_with(src, "m.ptx", false)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m.ptx:6:2: error: 'membar' needs '.cta', '.gl' or '.sys'"
    );
}
