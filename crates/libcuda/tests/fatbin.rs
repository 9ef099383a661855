//! Fat binaries: entries parsed, the highest-target PTX entry chosen, LZ4-compressed
//! entries decompressed (tests/fatbin/kernels_lz4.fatbin was compressed by the
//! reference LZ4 library, see make_lz4.py), Zstd-compressed ones too
//! (tests/fatbin/scale_nvcc13.fatbin is `nvcc -fatbin -arch=sm_75 scale.cu` of NVIDIA's
//! nvcc 13.5, default flags: an sm_75 cubin and Zstd-compressed PTX behind an 80-byte
//! entry header), PTX-less and corrupt ones refused with the driver's codes.

mod common;

use cuda::*;
use std::ffi::c_void;
use std::ptr::null_mut;

fn kernels_ptx() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/kernels.ptx"
    ))
    .unwrap()
}

#[test]
fn lz4_blocks_decompress() {
    // Token 0x35: 3 literals "abc", then a match of 5 + 4 = 9 bytes at offset 3 (it
    // overlaps its own output): "abc" + "abcabcabc".
    let block = [0x35, b'a', b'b', b'c', 3, 0];
    assert_eq!(fatbin::lz4_block(&block, 12).unwrap(), b"abcabcabcabc");
    // 15 literals take a length byte: 15 + 2 = 17 literals.
    let mut long = vec![0xF0, 2];
    long.extend_from_slice(b"0123456789abcdefg");
    assert_eq!(fatbin::lz4_block(&long, 17).unwrap(), b"0123456789abcdefg");
    // Corrupt blocks are errors, not panics.
    assert!(fatbin::lz4_block(&[0x35, b'a', b'b', b'c', 9, 0], 12).is_err());
    assert!(fatbin::lz4_block(&block, 11).is_err());
    assert!(fatbin::lz4_block(&[0xF0], 17).is_err());
}

/// A container of `(kind, sm, flags, payload)` entries, uncompressed sizes = payload.
fn container(entries: &[(u16, u32, u64, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for &(kind, sm, flags, payload) in entries {
        let mut h = [0u8; 64];
        h[0..2].copy_from_slice(&kind.to_le_bytes());
        h[4..8].copy_from_slice(&64u32.to_le_bytes());
        h[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        h[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        h[28..32].copy_from_slice(&sm.to_le_bytes());
        h[40..48].copy_from_slice(&flags.to_le_bytes());
        h[56..64].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        body.extend_from_slice(&h);
        body.extend_from_slice(payload);
    }
    let mut c = Vec::new();
    c.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&(body.len() as u64).to_le_bytes());
    c.extend_from_slice(&body);
    c
}

#[test]
fn ptx_entries_are_found_and_decompressed() {
    let image = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fatbin/kernels_lz4.fatbin"
    ))
    .unwrap();
    assert_eq!(fatbin::ptx(&image).unwrap(), kernels_ptx());
    // The highest target's PTX entry wins over older ones and over cubins.
    let good = format!("{}\0", kernels_ptx());
    let c = container(&[
        (1, 50, 0x11, b"not ptx\0"),
        (2, 90, 0x11, b"\x7fELF...."),
        (1, 70, 0x11, good.as_bytes()),
    ]);
    assert_eq!(fatbin::ptx(&c).unwrap(), kernels_ptx());
    assert_eq!(
        fatbin::ptx(&container(&[(2, 90, 0x11, b"\x7fELF....")])),
        Err(fatbin::NoPtx::NoEntry)
    );
    assert!(matches!(
        fatbin::ptx(&container(&[(1, 90, 0x8011, b"zstd....")])),
        Err(fatbin::NoPtx::Malformed(m)) if m.contains("Zstd")
    ));
    let nvcc13 = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fatbin/scale_nvcc13.fatbin"
    ))
    .unwrap();
    let ptx = fatbin::ptx(&nvcc13).unwrap();
    assert!(
        ptx.contains(".target sm_75") && ptx.contains(".visible .entry scale("),
        "{ptx}"
    );
    // A header that claims less than 64 bytes is malformed, not an endless loop.
    let mut bad = container(&[(1, 70, 0x11, good.as_bytes())]);
    bad[16 + 4..16 + 8].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        fatbin::ptx(&bad),
        Err(fatbin::NoPtx::Malformed(_))
    ));
}

#[test]
fn compressed_fatbins_load_and_run() {
    unsafe {
        assert_eq!(cuInit(0), 0);
        let mut ctx = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx, 0), 0);
        assert_eq!(cuCtxSetCurrent(ctx), 0);
        let image = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fatbin/kernels_lz4.fatbin"
        ))
        .unwrap();
        let mut m = null_mut();
        assert_eq!(cuModuleLoadData(&mut m, image.as_ptr() as *const c_void), 0);
        let mut f = null_mut();
        assert_eq!(cuModuleGetFunction(&mut f, m, c"saxpy".as_ptr()), 0);
        let (mut y, mut out) = common::launch_saxpy4(f, 3.0);
        // y = 3x + y = 4x, exact.
        assert_eq!(out, [4., 8., 12., 16.]);
        let zstd = container(&[(1, 90, 0x8011, b"zstd....")]);
        assert_eq!(
            cuModuleLoadData(&mut m, zstd.as_ptr() as *const c_void),
            CUDA_ERROR_INVALID_IMAGE
        );
        // nvcc 13's default output: x[i] *= k.
        let nvcc13 = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fatbin/scale_nvcc13.fatbin"
        ))
        .unwrap();
        assert_eq!(
            cuModuleLoadData(&mut m, nvcc13.as_ptr() as *const c_void),
            0
        );
        assert_eq!(cuModuleGetFunction(&mut f, m, c"scale".as_ptr()), 0);
        let (mut k, mut n) = (0.25f32, 4i32);
        let mut params = [
            &mut y as *mut u64 as *mut c_void,
            &mut k as *mut f32 as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let r = cuLaunchKernel(
            f,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, 0);
        assert_eq!(cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, y, 16), 0);
        // 4x / 4, exact.
        assert_eq!(out, [1., 2., 3., 4.]);
        let cubin_only = container(&[(2, 90, 0x11, b"\x7fELF....")]);
        assert_eq!(
            cuModuleLoadData(&mut m, cubin_only.as_ptr() as *const c_void),
            CUDA_ERROR_NO_BINARY_FOR_GPU
        );
    }
}
