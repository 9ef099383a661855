//! CUDA arrays and texture/surface objects on a [`Device`] (what `cuArray3DCreate`,
//! `cuTexObjectCreate` and `cuSurfObjectCreate` do): an array is a device allocation of
//! its texels (x fastest, then y, then z or the layer); an object is a handle in the
//! device's [`crate::exec::texture::TextureTable`], which `tex`/`suld`/`sust` read.
//! A module's `.texref`/`.surfref` variable ([`Module::tex_ref`]) is bound with
//! [`Device::bind_tex_ref`] / [`Device::bind_surf_ref`] (what `cuTexRefSet*` and
//! `cuSurfRefSetArray` do): the binding is an object in the same table under the
//! variable's address, which is what instructions naming the reference use.

use super::device::{Device, Module};
use super::error::{Error, Result};
use crate::exec::region::RegionKind;
pub use crate::exec::sampler::Sampler;
use crate::exec::texture::TexObject;
pub use crate::exec::texture::{AddressMode, ArrayFormat, TexResource, TextureDesc};
pub use crate::ir::TexRefKind;

/// Registers a module's `.samplerref` variables: the sampler state of each initializer
/// (packed in the variable's bytes by the checker) under the variable's address.
pub(crate) fn register_samplers(dev: &Device, ir: &crate::ir::Module, addrs: &[u64]) {
    for (g, &a) in ir.globals.iter().zip(addrs) {
        if ir.tex_refs.get(&g.name) == Some(&TexRefKind::Sampler) {
            if let Some(s) = Sampler::from_bytes(&g.init) {
                dev.inner.textures.insert_sampler(Some(a), s);
            }
        }
    }
}

/// The shape and format of a CUDA array (`CUDA_ARRAY3D_DESCRIPTOR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    pub width: usize,
    /// 0 for a 1D (or 1D layered) array.
    pub height: usize,
    /// 0 for 1D and 2D arrays; the layer count of a layered array.
    pub depth: usize,
    pub format: ArrayFormat,
    /// 1, 2 or 4.
    pub channels: u32,
    /// `CUDA_ARRAY3D_LAYERED`.
    pub layered: bool,
    /// `CUDA_ARRAY3D_SURFACE_LDST`: may back a surface object.
    pub surface: bool,
    /// `CUDA_ARRAY3D_CUBEMAP`: `depth` is 6 faces (6 x the cubemap count with
    /// `layered`) of `width` x `width` texels, read by `tex.cube`/`tex.acube`.
    pub cubemap: bool,
}

/// A CUDA array: its descriptor and the device address of its texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaArray {
    pub desc: ArrayDesc,
    pub ptr: u64,
}

impl CudaArray {
    /// The array as a texture/surface resource.
    pub fn resource(&self) -> TexResource {
        let d = self.desc;
        TexResource {
            base: self.ptr,
            format: d.format,
            channels: d.channels,
            width: d.width,
            height: d.height,
            depth: d.depth,
            // A cubemap is a layered 2D array of its faces.
            layered: d.layered || d.cubemap,
            linear: false,
            pitch: 0,
        }
    }
    /// Bytes of all texels.
    pub fn bytes(&self) -> usize {
        self.resource().bytes()
    }
}

/// A module's `.texref`, `.samplerref` or `.surfref` variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexRef {
    pub kind: TexRefKind,
    /// The variable's device address: the handle its instructions use.
    pub addr: u64,
}

impl Module {
    /// The module-scope reference variable `name` (`cuModuleGetTexRef`,
    /// `cuModuleGetSurfRef`).
    pub fn tex_ref(&self, name: &str) -> Option<TexRef> {
        let kind = *self.ir().tex_refs.get(name)?;
        Some(TexRef {
            kind,
            addr: self.global(name)?.ptr(),
        })
    }
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Texture(msg.into())
}

impl Device {
    /// Creates a CUDA array (zero-filled).
    pub fn create_array(&self, desc: ArrayDesc) -> Result<CudaArray> {
        if desc.width == 0
            || !matches!(desc.channels, 1 | 2 | 4)
            || (desc.height == 0 && desc.depth != 0 && !desc.layered)
            || (desc.cubemap
                && (desc.width != desc.height
                    || desc.depth == 0
                    || !desc.depth.is_multiple_of(6)
                    || (!desc.layered && desc.depth != 6)))
        {
            return Err(bad(format!("invalid CUDA array descriptor {desc:?}")));
        }
        let mut a = CudaArray { desc, ptr: 0 };
        let len = a.bytes() as u64;
        a.ptr = self.inner.mem.alloc(len, 0, RegionKind::Alloc)?;
        self.inner.mem.fill(a.ptr, len, 0)?;
        Ok(a)
    }

    /// Frees a CUDA array (objects made from it must be destroyed first).
    pub fn destroy_array(&self, a: CudaArray) -> Result<()> {
        Ok(self.inner.mem.free(a.ptr)?)
    }

    /// Copies `data` (all texels, in array order) into the array.
    pub fn write_array(&self, a: &CudaArray, data: &[u8]) -> Result<()> {
        if data.len() != a.bytes() {
            return Err(bad(format!(
                "array copy of {} bytes into an array of {} bytes",
                data.len(),
                a.bytes()
            )));
        }
        Ok(self.inner.mem.write(a.ptr, data)?)
    }

    /// Reads all texels of the array.
    pub fn read_array(&self, a: &CudaArray) -> Result<Vec<u8>> {
        let mut out = vec![0u8; a.bytes()];
        self.inner.mem.read(a.ptr, &mut out)?;
        Ok(out)
    }

    /// Creates a texture object over `res` (an array's [`CudaArray::resource`], or a
    /// linear buffer) with sampler state `desc`; returns its handle.
    pub fn create_texture_object(&self, res: TexResource, desc: TextureDesc) -> Result<u64> {
        self.check_resource(&res)?;
        Ok(self.inner.textures.insert(TexObject {
            res,
            tex: Some(desc),
        }))
    }

    /// Creates a surface object over an array made with `surface` set.
    pub fn create_surface_object(&self, a: &CudaArray) -> Result<u64> {
        if !a.desc.surface {
            return Err(bad("surface object over an array without SURFACE_LDST"));
        }
        let res = a.resource();
        self.check_resource(&res)?;
        Ok(self.inner.textures.insert(TexObject { res, tex: None }))
    }

    /// Binds a `.texref` to texels `res` with sampler state `desc` (replacing any
    /// binding); instructions naming it sample them from the next launch on.
    pub fn bind_tex_ref(&self, r: &TexRef, res: TexResource, desc: TextureDesc) -> Result<()> {
        if r.kind != TexRefKind::Texture {
            return Err(bad(format!("bind_tex_ref on a .{}", r.kind.name())));
        }
        self.check_resource(&res)?;
        self.inner.textures.insert_at(
            r.addr,
            TexObject {
                res,
                tex: Some(desc),
            },
        );
        Ok(())
    }

    /// Binds a `.surfref` to an array made with `surface` set.
    pub fn bind_surf_ref(&self, r: &TexRef, a: &CudaArray) -> Result<()> {
        if r.kind != TexRefKind::Surface {
            return Err(bad(format!("bind_surf_ref on a .{}", r.kind.name())));
        }
        if !a.desc.surface {
            return Err(bad(
                "surface reference bound to an array without SURFACE_LDST",
            ));
        }
        let res = a.resource();
        self.check_resource(&res)?;
        self.inner
            .textures
            .insert_at(r.addr, TexObject { res, tex: None });
        Ok(())
    }

    /// Removes a reference's binding (a fetch through it is then an error).
    pub fn unbind_ref(&self, r: &TexRef) {
        self.inner.textures.remove(r.addr);
    }

    /// Creates a sampler for the independent texturing mode: its handle is what a
    /// `.samplerref` kernel parameter takes (a texture object's handle serves too, with
    /// that object's address and filter modes). [`Device::destroy_tex_object`] frees it.
    pub fn create_sampler(&self, s: Sampler) -> u64 {
        self.inner.textures.insert_sampler(None, s)
    }

    /// Destroys a texture or surface object (or a sampler).
    pub fn destroy_tex_object(&self, handle: u64) -> Result<()> {
        if self.inner.textures.remove(handle) {
            Ok(())
        } else {
            Err(bad(format!(
                "{handle:#x} is not a live texture or surface object"
            )))
        }
    }

    /// The object of a handle.
    pub fn tex_object(&self, handle: u64) -> Option<TexObject> {
        self.inner.textures.get(handle)
    }

    pub(crate) fn check_resource(&self, res: &TexResource) -> Result<()> {
        if res.width == 0 || !matches!(res.channels, 1 | 2 | 4) {
            return Err(bad(format!("invalid texture resource {res:?}")));
        }
        self.check_range(res.base, res.bytes() as u64)
    }
}
