//! Tensor-map bulk copies (`cp.async.bulk.tensor` loads and stores,
//! `cp.reduce.async.bulk.tensor`) on both backends: the CUTLASS-style kernels of
//! `tests/kernels/tma/tma.cu` (NVRTC, compute_90, ptxas-validated) with tensor maps from
//! `Device::encode_tensor_map_tiled` (`cuTensorMapEncodeTiled`), against a plain Rust
//! reference written from the PTX ISA's text: the bounding box and traversal strides
//! (section 5.5, "Tensors"), the out-of-bound fill (zeros, or NaN when the map asks), and
//! the swizzle tables of "Tensor swizzling modes" (5.5.6 in PTX ISA 8.5: with swizzle
//! width W, the 16-byte chunk j of line r of W bytes goes to chunk j ^ ((r mod 8) / (8 /
//! (W / 16))), the pattern repeating after 8 lines).

#[allow(unused_macros)]
#[macro_use]
mod common;
use common::*;
use ptxjit::runtime::tensormap::TiledDesc;

const FILE: &str = "tma/tma.sm_90.ptx";
/// Hand-written kernels (ptxas-validated for sm_90a).
const HAND: &str = "tests/ptx/tma.ptx";

/// A tensor and its map's parameters.
#[derive(Clone)]
struct Case {
    dtype: u32,
    esize: usize,
    dims: Vec<u64>,
    /// Byte strides of dimensions 1.. .
    strides: Vec<u64>,
    boxd: Vec<u32>,
    estr: Vec<u32>,
    /// `CUtensorMapSwizzle`.
    swizzle: u32,
    nan: bool,
}

impl Case {
    fn bytes(&self) -> usize {
        let last = self.dims.len() - 1;
        if last == 0 {
            return self.dims[0] as usize * self.esize;
        }
        (self.strides[last - 1] * self.dims[last]) as usize
    }

    fn desc(&self, addr: u64) -> TiledDesc {
        TiledDesc {
            dtype: self.dtype,
            global_address: addr,
            global_dim: self.dims.clone(),
            global_strides: self.strides.clone(),
            box_dim: self.boxd.clone(),
            element_strides: self.estr.clone(),
            swizzle: self.swizzle,
            oob_fill: self.nan as u32,
            ..TiledDesc::default()
        }
    }

    /// Elements the box visits per dimension: ceil(boxDim / elementStride), dimension 0
    /// taking stride 1 (no interleave).
    fn counts(&self) -> Vec<usize> {
        (0..self.dims.len())
            .map(|i| match i {
                0 => self.boxd[0] as usize,
                _ => (self.boxd[i] as usize).div_ceil(self.estr[i] as usize),
            })
            .collect()
    }

    fn box_bytes(&self) -> usize {
        self.counts().iter().product::<usize>() * self.esize
    }

    /// For each element of the box in shared-memory (dense) order: its byte offset in
    /// the tensor, or None when out of bounds.
    fn elements(&self, coords: &[i32]) -> Vec<Option<usize>> {
        let n = self.counts();
        let total: usize = n.iter().product();
        (0..total)
            .map(|lin| {
                let mut rest = lin;
                let mut off = 0usize;
                let mut inside = true;
                for i in 0..n.len() {
                    let k = rest % n[i];
                    rest /= n[i];
                    let step = if i == 0 { 1 } else { self.estr[i] as i64 };
                    let g = coords[i] as i64 + k as i64 * step;
                    inside &= g >= 0 && g < self.dims[i] as i64;
                    if inside {
                        off += match i {
                            0 => g as usize * self.esize,
                            _ => g as usize * self.strides[i - 1] as usize,
                        };
                    }
                }
                inside.then_some(off)
            })
            .collect()
    }

    /// The swizzled shared-memory offset of dense offset `o` (the ISA's tables).
    fn swizzled(&self, o: usize) -> usize {
        let w = match self.swizzle {
            1 => 32,
            2 => 64,
            3 => 128,
            _ => return o,
        };
        let (r, j) = (o / w, o % w / 16);
        let j2 = j ^ ((r % 8) / (8 / (w / 16)));
        r * w + j2 * 16 + o % 16
    }

    /// The shared-memory box a load of `coords` leaves.
    fn load(&self, tensor: &[u8], coords: &[i32]) -> Vec<u8> {
        let fill: Vec<u8> = match (self.nan, self.esize) {
            (false, _) => vec![0; self.esize],
            (true, 2) => 0x7fffu16.to_le_bytes().to_vec(),
            (true, 4) => 0x7fff_ffffu32.to_le_bytes().to_vec(),
            (true, _) => 0x7fff_ffff_ffff_ffffu64.to_le_bytes().to_vec(),
        };
        let mut out = vec![0u8; self.box_bytes()];
        for (k, e) in self.elements(coords).iter().enumerate() {
            let at = self.swizzled(k * self.esize);
            let src = match e {
                Some(off) => &tensor[*off..*off + self.esize],
                None => &fill[..],
            };
            out[at..at + self.esize].copy_from_slice(src);
        }
        out
    }

    /// The tensor after a store (or a `.add.u32` reduction) of shared-memory box `smem`.
    fn store(&self, tensor: &[u8], smem: &[u8], coords: &[i32], add: bool) -> Vec<u8> {
        let mut t = tensor.to_vec();
        for (k, e) in self.elements(coords).iter().enumerate() {
            let Some(off) = e else { continue };
            let at = self.swizzled(k * self.esize);
            let v = &smem[at..at + self.esize];
            if add {
                let old = u32::from_le_bytes(t[*off..*off + 4].try_into().unwrap());
                let new = old.wrapping_add(u32::from_le_bytes(v.try_into().unwrap()));
                t[*off..*off + 4].copy_from_slice(&new.to_le_bytes());
            } else {
                t[*off..*off + self.esize].copy_from_slice(v);
            }
        }
        t
    }
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// f32, 37 x 20 (rows padded to 40 elements), 3-d cases add a depth of 6.
fn f32_2d(boxd: [u32; 2], swizzle: u32) -> Case {
    Case {
        dtype: 7,
        esize: 4,
        dims: vec![37, 20],
        strides: vec![160],
        boxd: boxd.to_vec(),
        estr: vec![1, 1],
        swizzle,
        nan: false,
    }
}

/// Loads `coords` of `case` on `backend` and compares with the reference.
fn check_load(backend: Backend, case: &Case, coords: &[i32], seed: u64) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let tensor = bytes_of(&Rng::new(seed).vec_u32(case.bytes() / 4));
    let t = dev.alloc_from(&tensor).unwrap();
    let map = dev.encode_tensor_map_tiled(&case.desc(t.ptr())).unwrap();
    let n = case.box_bytes();
    let out = zeroed(&dev, n);
    let c = cfg([1, 1, 1], [64, 1, 1], backend);
    let mut args = vec![KernelArg::from(map), arg(&out)];
    args.extend(coords.iter().map(|&v| KernelArg::from(v)));
    args.push(KernelArg::from(n as u32));
    let kernel = format!("tma_load_{}d", coords.len());
    launch(&dev, &m, &kernel, &c, &args, &kernel);
    let want = words_of(&case.load(&tensor, coords));
    let what = format!("{kernel} {coords:?} swizzle {}", case.swizzle);
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, &what);
}

fn load_2d(backend: Backend) {
    let c = f32_2d([8, 4], 0);
    // Inside; across the right and bottom edges; across the left and top edges.
    for coords in [[3, 5], [33, 18], [-4, -2], [40, 0]] {
        check_load(backend, &c, &coords, 1);
    }
}

fn load_swizzled(backend: Backend) {
    // Inner box = the swizzle width: 8, 16, 32 f32 for 32B, 64B, 128B.
    for (sw, inner, rows) in [(1, 8, 16), (2, 16, 12), (3, 32, 9)] {
        let c = f32_2d([inner, rows], sw);
        for coords in [[2, 1], [20, 15]] {
            check_load(backend, &c, &coords, 2 + sw as u64);
        }
    }
}

fn load_nan_fill(backend: Backend) {
    let mut c = f32_2d([8, 4], 0);
    c.nan = true;
    check_load(backend, &c, &[34, -1], 7);
    // A 16-bit type: 10 x 6 f16 elements, rows of 32 bytes.
    let h = Case {
        dtype: 6,
        esize: 2,
        dims: vec![10, 6],
        strides: vec![32],
        boxd: vec![8, 4],
        estr: vec![1, 1],
        swizzle: 0,
        nan: true,
    };
    check_load(backend, &h, &[5, 4], 8);
}

fn load_3d_strided(backend: Backend) {
    // u16 elements, 24 x 7 x 6, traversal strides 2 and 3 in dimensions 1 and 2
    // (dimension 0's is ignored without interleave).
    let c = Case {
        dtype: 1,
        esize: 2,
        dims: vec![24, 7, 6],
        strides: vec![48, 48 * 7],
        boxd: vec![16, 5, 4],
        estr: vec![4, 2, 3],
        swizzle: 0,
        nan: false,
    };
    for coords in [[0, 0, 0], [12, 3, 4], [-8, -1, -2]] {
        check_load(backend, &c, &coords, 11);
    }
}

/// Stores (or adds, `red`) a box of `case` at `coords` and compares the whole tensor.
fn check_store(backend: Backend, case: &Case, coords: &[i32; 2], red: bool, seed: u64) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let mut rng = Rng::new(seed);
    let tensor = bytes_of(&rng.vec_u32(case.bytes() / 4));
    let t = dev.alloc_from(&tensor).unwrap();
    let map = dev.encode_tensor_map_tiled(&case.desc(t.ptr())).unwrap();
    let n = case.box_bytes();
    let smem = rng.vec_u32(n / 4);
    let inb = dev.alloc_from(&smem).unwrap();
    let c = cfg([1, 1, 1], [64, 1, 1], backend);
    let args = [
        KernelArg::from(map),
        arg(&inb),
        KernelArg::from(coords[0]),
        KernelArg::from(coords[1]),
        KernelArg::from(n as u32),
        KernelArg::from(red as i32),
    ];
    launch(&dev, &m, "tma_store_2d", &c, &args, "tma_store_2d");
    let want = words_of(&case.store(&tensor, &bytes_of(&smem), coords, red));
    let what = format!("tma_store_2d {coords:?} red {red} swizzle {}", case.swizzle);
    assert_slice_eq(&dev.read::<u32>(&t).unwrap(), &want, &what);
}

fn store_2d(backend: Backend) {
    for coords in [[3, 5], [33, 18], [-4, -2]] {
        check_store(backend, &f32_2d([8, 4], 0), &coords, false, 21);
    }
    check_store(backend, &f32_2d([32, 6], 3), &[9, 16], false, 22);
}

fn reduce_add_2d(backend: Backend) {
    let mut c = f32_2d([16, 5], 2);
    c.dtype = 2; // u32
    for coords in [[0, 0], [30, 17]] {
        check_store(backend, &c, &coords, true, 31);
    }
}

/// A map of another rank than the instruction's, and bytes that are no map, are
/// located errors.
fn bad_maps(backend: Backend) {
    let dev = device();
    let m = module(&dev, FILE, backend);
    let t = zeroed(&dev, 4096);
    let mut c3 = f32_2d([8, 4], 0);
    c3.dims.push(2);
    c3.strides.push(160 * 20);
    c3.boxd.push(1);
    c3.estr.push(1);
    let map = dev.encode_tensor_map_tiled(&c3.desc(t.ptr())).unwrap();
    let out = zeroed(&dev, 256);
    let c = cfg([1, 1, 1], [32, 1, 1], backend);
    for (bytes, needle) in [(map, "has rank 3, not 2"), ([0u8; 128], "is invalid")] {
        let args = [
            KernelArg::from(bytes),
            arg(&out),
            KernelArg::from(0i32),
            KernelArg::from(0i32),
            KernelArg::from(128u32),
        ];
        let e = dev
            .launch(&m, "tma_load_2d", &c, &args)
            .expect_err("a bad tensor map must fail");
        let msg = e.to_string();
        assert!(msg.contains(needle), "{msg}");
        assert!(msg.contains("cp.async.bulk.tensor"), "{msg}");
    }
}

/// `tensormap.replace` of the address and box of a map in global memory, then a
/// `.L2::cache_hint` load with it (after `prefetch.tensormap` and a tensor prefetch).
fn replace_then_load(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, HAND, backend);
    let mut rng = Rng::new(41);
    let (a, b) = (rng.vec_u32(100), rng.vec_u32(100));
    let (ab, bb) = (dev.alloc_from(&a).unwrap(), dev.alloc_from(&b).unwrap());
    let case = Case {
        dtype: 2,
        esize: 4,
        dims: vec![100],
        strides: vec![],
        boxd: vec![8],
        estr: vec![1],
        swizzle: 0,
        nan: false,
    };
    let map = dev.encode_tensor_map_tiled(&case.desc(ab.ptr())).unwrap();
    let mb = dev.alloc_from(&map).unwrap();
    let out = zeroed(&dev, 64);
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    let args = [
        arg(&mb),
        KernelArg::from(bb.ptr()),
        arg(&out),
        KernelArg::from(90u32),
    ];
    launch(&dev, &m, "replace_1d", &c, &args, "replace_1d");
    // Elements 90..99 of b, then 6 out-of-bound zeros.
    let want: Vec<u32> = (90..106).map(|i| b.get(i).copied().unwrap_or(0)).collect();
    assert_slice_eq(&dev.read::<u32>(&out).unwrap(), &want, "replace_1d");
    let mut moved = case.clone();
    moved.boxd = vec![16];
    let want_map = dev.encode_tensor_map_tiled(&moved.desc(bb.ptr())).unwrap();
    assert_slice_eq(&dev.read::<u8>(&mb).unwrap(), &want_map, "the replaced map");
}

/// A 5-d load through the parameter's address (no cvta), traversal stride 2 in the
/// outermost dimension, partly out of bounds in four dimensions, then a store of the box
/// back at another dimension-0 coordinate.
fn load_store_5d(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, HAND, backend);
    let case = Case {
        dtype: 2,
        esize: 4,
        dims: vec![8, 3, 2, 2, 3],
        strides: vec![32, 96, 192, 384],
        boxd: vec![4, 2, 2, 1, 3],
        estr: vec![1, 1, 1, 1, 2],
        swizzle: 0,
        nan: false,
    };
    let tensor = bytes_of(&Rng::new(51).vec_u32(case.bytes() / 4));
    let t = dev.alloc_from(&tensor).unwrap();
    let map = dev.encode_tensor_map_tiled(&case.desc(t.ptr())).unwrap();
    let n = case.box_bytes();
    let out = zeroed(&dev, n);
    let coords = [6, 2, 1, 1, 1];
    let mut args = vec![KernelArg::from(map), arg(&out)];
    args.extend(coords.iter().map(|&v| KernelArg::from(v as u32)));
    args.push(KernelArg::from(n as u32));
    args.push(KernelArg::from(0u32));
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    launch(&dev, &m, "load_store_5d", &c, &args, "load_store_5d");
    let boxed = case.load(&tensor, &coords);
    assert_slice_eq(&dev.read::<u8>(&out).unwrap(), &boxed, "5-d load");
    let stored = case.store(&tensor, &boxed, &[0, 2, 1, 1, 1], false);
    assert_slice_eq(&dev.read::<u8>(&t).unwrap(), &stored, "5-d store");
}

/// A `.shared::cta` destination (PTX 8.6), the map in global memory, a generic mbarrier
/// address for the waits, the 128B swizzle, a box across the left and bottom edges.
fn load_shared_cta(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, HAND, backend);
    let case = f32_2d([32, 8], 3);
    let tensor = bytes_of(&Rng::new(61).vec_u32(case.bytes() / 4));
    let t = dev.alloc_from(&tensor).unwrap();
    let map = dev.encode_tensor_map_tiled(&case.desc(t.ptr())).unwrap();
    let mb = dev.alloc_from(&map).unwrap();
    let n = case.box_bytes();
    let out = zeroed(&dev, n);
    let coords = [-8, 15];
    let args = [
        arg(&mb),
        arg(&out),
        KernelArg::from(coords[0]),
        KernelArg::from(coords[1]),
        KernelArg::from(n as u32),
    ];
    let c = cfg([1, 1, 1], [1, 1, 1], backend);
    launch(&dev, &m, "load_cta_2d", &c, &args, "load_cta_2d");
    let want = case.load(&tensor, &coords);
    assert_slice_eq(&dev.read::<u8>(&out).unwrap(), &want, "load_cta_2d");
}

/// `.min` (u32), `.max` (s32), `.xor` and `.and` (u32) reductions across the right and
/// bottom edges: each in-bound element becomes op(tensor, box), the others stay.
fn reduce_ops(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, HAND, backend);
    type Op = fn(u32, u32) -> u32;
    let ops: [(u32, u32, Op); 4] = [
        (0, 2, |a, b| a.min(b)),
        (1, 3, |a, b| (a as i32).max(b as i32) as u32),
        (2, 2, |a, b| a ^ b),
        (3, 2, |a, b| a & b),
    ];
    for (op, dtype, f) in ops {
        let mut case = f32_2d([8, 4], 0);
        case.dtype = dtype;
        let mut rng = Rng::new(70 + op as u64);
        let tensor = rng.vec_u32(case.bytes() / 4);
        let t = dev.alloc_from(&tensor).unwrap();
        let map = dev.encode_tensor_map_tiled(&case.desc(t.ptr())).unwrap();
        let n = case.box_bytes();
        let smem = rng.vec_u32(n / 4);
        let inb = dev.alloc_from(&smem).unwrap();
        let coords = [32, 17];
        let args = [
            KernelArg::from(map),
            arg(&inb),
            KernelArg::from(coords[0]),
            KernelArg::from(coords[1]),
            KernelArg::from(n as u32),
            KernelArg::from(op),
        ];
        let c = cfg([1, 1, 1], [1, 1, 1], backend);
        launch(&dev, &m, "reduce_2d", &c, &args, "reduce_2d");
        let mut want = tensor.clone();
        for (k, e) in case.elements(&coords).iter().enumerate() {
            if let Some(off) = e {
                want[off / 4] = f(tensor[off / 4], smem[k]);
            }
        }
        let what = format!("reduce_2d op {op}");
        assert_slice_eq(&dev.read::<u32>(&t).unwrap(), &want, &what);
    }
}

both_backends!(
    reduce_ops,
    load_shared_cta,
    replace_then_load,
    load_store_5d,
    load_2d,
    load_swizzled,
    load_nan_fill,
    load_3d_strided,
    store_2d,
    reduce_add_2d,
    bad_maps
);

/// The encoder refuses what the driver documentation refuses.
#[test]
fn encode_validation() {
    let dev = device();
    let ok = f32_2d([8, 4], 0).desc(0x1000);
    assert!(dev.encode_tensor_map_tiled(&ok).is_ok());
    let mut bad = ok.clone();
    bad.global_address = 0x1004;
    let e = dev.encode_tensor_map_tiled(&bad).unwrap_err().to_string();
    assert!(e.contains("16-byte aligned"), "{e}");
    let mut bad = ok.clone();
    bad.box_dim = vec![8, 300];
    assert!(dev.encode_tensor_map_tiled(&bad).is_err());
    let mut bad = ok;
    bad.global_strides = vec![150];
    assert!(dev.encode_tensor_map_tiled(&bad).is_err());
}

/// An `.im2col` copy (ptxas accepts this module for sm_90) is a load-time error naming
/// the mode and the line.
#[test]
fn im2col_is_a_load_time_error() {
    let src = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 map)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .b16 %h<2>;
    .shared .align 128 .b8 box[256];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [map];
    mov.u32 %r1, 0;
    mov.u16 %h1, 0;
    cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [box], [%rd1, {%r1, %r1, %r1}], [bar], {%h1};
    ret;
}
"#;
    let Err(e) = device().load_ptx(src, "im2col.ptx") else {
        panic!("an .im2col copy must be refused");
    };
    let msg = e.to_string();
    assert!(
        msg.contains(".im2col mode") && msg.contains(":14:"),
        "{msg}"
    );
}
