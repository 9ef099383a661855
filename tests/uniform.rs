//! `--check-uniform` (`LaunchConfig::check_uniform`): a `.uni` branch, `brx.idx` or call
//! whose active lanes disagree stops the launch with a located error; without the check
//! (and whenever the lanes agree) it runs like the plain instruction. Both backends.
//! Kernels: `tests/ptx/uniform.ptx` (ptxas-validated).

use ptxjit::{Backend, Device, Error, LaunchConfig};

const N: u32 = 64;

#[allow(clippy::result_large_err)]
fn run(
    dev: &Device,
    m: &ptxjit::Module,
    kernel: &str,
    k: u32,
    check: bool,
    b: Backend,
) -> Result<Vec<u32>, Error> {
    let out = dev.alloc_zeroed(N as usize * 4).unwrap();
    let cfg = LaunchConfig::new(1, N).backend(b).check_uniform(check);
    dev.launch(m, kernel, &cfg, &[(&out).into(), k.into()])?;
    Ok(dev.read(&out).unwrap())
}

#[test]
fn uniform_uni_instructions_pass_the_check() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/uniform.ptx"), "uniform.ptx")
        .unwrap();
    for b in [Backend::Jit, Backend::Interp] {
        for check in [false, true] {
            assert_eq!(
                run(&dev, &m, "bra_uni", 0, check, b).unwrap(),
                vec![1; N as usize],
                "{b:?}"
            );
            assert_eq!(
                run(&dev, &m, "brx_uni", 0, check, b).unwrap(),
                vec![10; N as usize],
                "{b:?}"
            );
            let want: Vec<u32> = (0..N).map(|t| 2 * t).collect();
            assert_eq!(
                run(&dev, &m, "call_uni", 0, check, b).unwrap(),
                want,
                "{b:?}"
            );
        }
    }
}

#[test]
fn divergent_uni_instructions_run_as_plain_ones_without_the_check() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/uniform.ptx"), "uniform.ptx")
        .unwrap();
    for b in [Backend::Jit, Backend::Interp] {
        // k = 1: odd threads diverge.
        let v = run(&dev, &m, "bra_uni", 1, false, b).unwrap();
        assert_eq!(
            v,
            (0..N)
                .map(|t| if t & 1 == 0 { 1 } else { 2 })
                .collect::<Vec<_>>(),
            "{b:?}"
        );
        let v = run(&dev, &m, "brx_uni", 1, false, b).unwrap();
        assert_eq!(v, (0..N).map(|t| 10 + (t & 1)).collect::<Vec<_>>(), "{b:?}");
        let v = run(&dev, &m, "call_uni", 1, false, b).unwrap();
        for t in (0..N).step_by(2) {
            assert_eq!(v[t as usize], 2 * t, "{b:?} calling lane {t}");
        }
    }
}

#[test]
fn divergent_uni_instructions_fail_the_check_with_a_location() {
    let dev = Device::new().unwrap();
    let m = dev
        .load_ptx(include_str!("ptx/uniform.ptx"), "uniform.ptx")
        .unwrap();
    // (kernel, line of the .uni instruction, its opcode text)
    let cases = [
        ("bra_uni", 29, "bra.uni"),
        ("brx_uni", 49, "brx.idx.uni"),
        ("call_uni", 75, "call.uni"),
    ];
    for b in [Backend::Jit, Backend::Interp] {
        for (kernel, line, text) in cases {
            // k = 2: lanes 2, 3, 6, 7, ... disagree with lane 0; lane 2 is the first.
            let err = run(&dev, &m, kernel, 2, true, b).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, Error::Kernel { .. }), "{b:?} {kernel}: {msg}");
            assert!(
                msg.contains(&format!("uniform.ptx:{line}")) && msg.contains(text),
                "{b:?} {kernel}: {msg}"
            );
            assert!(
                msg.contains("thread (2,0,0)") && msg.contains("divergent"),
                "{b:?} {kernel}: {msg}"
            );
        }
    }
}
