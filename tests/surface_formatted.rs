//! `sust.p` and `sured.p` (formatted surface stores and reductions: x counts texels) on
//! both backends (`tests/kernels/surf_formatted.ptx`, hand-written: ptxas accepts it for
//! sm_52 and sm_90). Expected values are computed by hand in the comments below from
//! the ISA's description: `sust.p` writes its values into the texel's first channels
//! (values past the channel count ignored); `sured.p.b32` treats the element as `u32`
//! or `s32` as the surface's format says.

use ptxjit::runtime::texture::{ArrayDesc, ArrayFormat, CudaArray};
use ptxjit::{Backend, Device, KernelArg, LaunchConfig};

const SRC: &str = include_str!("kernels/surf_formatted.ptx");

fn surface(dev: &Device, w: usize, h: usize, format: ArrayFormat, ch: u32) -> CudaArray {
    dev.create_array(ArrayDesc {
        width: w,
        height: h,
        depth: 0,
        format,
        channels: ch,
        layered: false,
        surface: true,
        cubemap: false,
    })
    .expect("array")
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_words(dev: &Device, a: &CudaArray) -> Vec<u32> {
    dev.read_array(a)
        .expect("read")
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn formatted_surface_stores_and_reductions_on_both_backends() {
    let dev = Device::new().expect("device");
    for b in [Backend::Interp, Backend::Jit] {
        let m = dev
            .load_ptx_with(SRC, "surf_formatted.ptx", b == Backend::Jit)
            .expect("load");
        let cfg = |x: u32, y: u32| LaunchConfig::new(1, (x, y, 1)).backend(b);
        // store2d on a 3x2 two-channel f32 surface: texel (x, y) = (x + 10y, x + 10y +
        // 0.5); the values 7 and 8 have no channel.
        let a = surface(&dev, 3, 2, ArrayFormat::F32, 2);
        let s = dev.create_surface_object(&a).expect("surface");
        dev.launch(&m, "store2d", &cfg(3, 2), &[KernelArg::U64(s)])
            .expect("store2d");
        let want: Vec<u32> = (0..2)
            .flat_map(|y| (0..3).flat_map(move |x| [x + 10 * y, x + 10 * y]))
            .enumerate()
            .map(|(k, v)| (v as f32 + if k % 2 == 1 { 0.5 } else { 0.0 }).to_bits())
            .collect();
        assert_eq!(read_words(&dev, &a), want, "{b:?} store2d");
        // store1d on 4 four-channel u32 texels holding 100 + word index: channel r of
        // texel x becomes 3x, g/b/a keep their values.
        let c = surface(&dev, 4, 0, ArrayFormat::U32, 4);
        dev.write_array(&c, &words(&(100..116).collect::<Vec<u32>>()))
            .expect("write");
        let cs = dev.create_surface_object(&c).expect("surface");
        dev.launch(&m, "store1d", &cfg(4, 1), &[KernelArg::U64(cs)])
            .expect("store1d");
        let mut want: Vec<u32> = (100..116).collect();
        for x in 0..4 {
            want[4 * x] = 3 * x as u32;
        }
        assert_eq!(read_words(&dev, &c), want, "{b:?} store1d");
        // clamped: x = 100 clamps to texel 3, whose r and g become 77 and 78; the .zero
        // store at x = -1 changes nothing.
        dev.launch(&m, "clamped", &cfg(1, 1), &[KernelArg::U64(cs)])
            .expect("clamped");
        want[12] = 77;
        want[13] = 78;
        assert_eq!(read_words(&dev, &c), want, "{b:?} clamped");
        // reduce: s32 [5, -7, 0, 2] + (-3) = [2, -10, -3, -1], min -2 (signed) =
        // [-2, -10, -3, -2]; u32 [0xfffffff0, 1, 7, 0x80000000] min 5 (unsigned) =
        // [5, 1, 5, 5] (a signed min would keep 0xfffffff0 and 0x80000000).
        let si = surface(&dev, 4, 0, ArrayFormat::S32, 1);
        dev.write_array(&si, &words(&[5, -7i32 as u32, 0, 2]))
            .expect("write");
        let su = surface(&dev, 4, 0, ArrayFormat::U32, 1);
        dev.write_array(&su, &words(&[0xffff_fff0, 1, 7, 0x8000_0000]))
            .expect("write");
        let (sis, sus) = (
            dev.create_surface_object(&si).expect("s"),
            dev.create_surface_object(&su).expect("s"),
        );
        dev.launch(
            &m,
            "reduce",
            &cfg(4, 1),
            &[KernelArg::U64(sis), KernelArg::U64(sus)],
        )
        .expect("reduce");
        let neg = |v: i32| v as u32;
        assert_eq!(
            read_words(&dev, &si),
            [neg(-2), neg(-10), neg(-3), neg(-2)],
            "{b:?} reduce s32"
        );
        assert_eq!(read_words(&dev, &su), [5, 1, 5, 5], "{b:?} reduce u32");
        // sured.p.b64: no CUDA array format has 64-bit integer channels (a located
        // run-time error). sust.p into narrower formats: tests/surface_channels.rs.
        let e = dev
            .launch(&m, "reduce64", &cfg(1, 1), &[KernelArg::U64(sus)])
            .expect_err("sured.p.b64");
        assert!(e.to_string().contains("sured.p.b64"), "{b:?}: {e}");
    }
}
