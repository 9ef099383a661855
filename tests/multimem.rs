//! `multimem.ld_reduce`, `multimem.st` and `multimem.red` on a one-member multicast
//! object (README: a multimem address of a single device names one copy), the
//! hand-written `tests/kernels/multimem/multimem.ptx` (accepted by `ptxas -arch sm_90`),
//! outputs compared with a Rust reference on both backends; and the ISA's
//! operation/type table enforced at load time as ptxas enforces it.

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;

const PTX: &str = "multimem/multimem.ptx";

fn mm(backend: Backend) {
    let dev = device();
    let m = module(&dev, PTX, backend);
    let mut rng = Rng::new(21);
    let mut p = vec![0u32; 328];
    for w in p.iter_mut().take(32) {
        *w = rng.u32();
    }
    for w in &mut p[64..128] {
        *w = rng.u32();
    }
    p[321] = (-100i32) as u32;
    let s64 = -(rng.u64() as i64 >> 3);
    p[324] = s64 as u64 as u32;
    p[325] = (s64 as u64 >> 32) as u32;
    let buf = dev.alloc_from(&p).unwrap();
    launch(
        &dev,
        &m,
        "mm",
        &cfg([1, 1, 1], [32, 1, 1], backend),
        &[arg(&buf)],
        "mm",
    );
    let mut want = p.clone();
    // The reduction over one member is the loaded value itself.
    want.copy_within(0..32, 32);
    want.copy_within(64..128, 128);
    for t in 0..32u32 {
        for k in 0..4 {
            want[(192 + 4 * t + k) as usize] = ((4 * t + k) as f32).to_bits();
        }
    }
    want[320] = 32;
    want[321] = 15; // max(-100, t - 16) over t < 32
    want[322] = 0x5000_5000; // 32 x 1.0 in each f16 half: 32.0 = 0x5000
    want[326] = p[324];
    want[327] = p[325];
    assert_eq!(dev.read::<u32>(&buf).unwrap(), want);
}

/// Forms ptxas rejects are load-time errors naming the instruction and line.
fn invalid_forms(backend: Backend) {
    let dev = device();
    for (form, operands) in [
        ("multimem.ld_reduce.min.f32", "%f1, [%rd1]"),
        ("multimem.red.max.f64", "[%rd1], %fd1"),
        ("multimem.ld_reduce.add.s64", "%rd2, [%rd1]"),
        ("multimem.st.f16", "[%rd1], %h1"),
    ] {
        let src = format!(
            ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b64 %rd<3>;\n.reg .f32 %f1;\n.reg .f64 %fd1;\n.reg .b16 %h1;\n\
             {form} {operands};\nret;\n}}\n"
        );
        let e = match backend {
            Backend::Jit => dev.load_ptx(&src, "bad.ptx"),
            Backend::Interp => dev.load_ptx_with(&src, "bad.ptx", false),
        }
        .err()
        .unwrap_or_else(|| panic!("{form} loaded"))
        .to_string();
        assert!(e.contains("bad.ptx:10") && e.contains(form), "{e}");
    }
}

both_backends!(mm, invalid_forms);
