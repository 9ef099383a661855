//! Texture and surface instructions ([`InstKind::Texture`]): every source operand of all
//! 32 lanes goes to the scratch slot's data area (`helpers::texture::layout`), and one
//! `ptxjit_texture` helper call runs `crate::exec::texture::exec` (the function the
//! interpreter uses); the results come back at the start of the data area.
//!
//! [`InstKind::Texture`]: crate::ir::InstKind::Texture

use crate::ir::{InstId, Operand, RegId, SurfClamp, TexGeom, TexOp, Type};
use crate::jit::abi::Helper;
use crate::jit::helpers::texture::layout;
use crate::jit::translate::lanes;
use crate::jit::translate::{FuncTranslator, Mask, SCRATCH_DATA};
use crate::jit::JitError;
use cranelift_codegen::ir::InstBuilder;

/// Bytes of the scratch data area.
const DATA_BYTES: i32 = 2048;

const GEOMS: [TexGeom; 5] = [
    TexGeom::D1,
    TexGeom::D2,
    TexGeom::D3,
    TexGeom::A1d,
    TexGeom::A2d,
];
const TYPES: [Type; 3] = [Type::F32, Type::S32, Type::U32];
const CLAMPS: [SurfClamp; 3] = [SurfClamp::Trap, SurfClamp::Clamp, SurfClamp::Zero];

fn idx<T: PartialEq>(list: &[T], v: &T) -> u64 {
    list.iter().position(|x| x == v).unwrap_or(0) as u64
}

/// Packs a `TexOp` into the helper's 64-bit descriptor.
pub(crate) fn encode(op: TexOp) -> u64 {
    match op {
        TexOp::Tex { geom, dtype, ctype } => {
            idx(&GEOMS, &geom) << 4 | idx(&TYPES, &dtype) << 8 | idx(&TYPES, &ctype) << 12
        }
        TexOp::Tld4 { comp, dtype } => 1 | (comp as u64) << 16 | idx(&TYPES, &dtype) << 8,
        TexOp::Suld {
            geom,
            bytes,
            vec,
            clamp,
        } => 2 | idx(&GEOMS, &geom) << 4 | surf_bits(bytes, vec, clamp),
        TexOp::Sust {
            geom,
            bytes,
            vec,
            clamp,
            formatted,
        } => 3 | idx(&GEOMS, &geom) << 4 | surf_bits(bytes, vec, clamp) | (formatted as u64) << 40,
    }
}

fn surf_bits(bytes: u8, vec: u8, clamp: SurfClamp) -> u64 {
    (bytes as u64) << 20 | (vec as u64) << 28 | idx(&CLAMPS, &clamp) << 36
}

/// The inverse of [`encode`].
pub(crate) fn decode(c: u64) -> Option<TexOp> {
    let geom = *GEOMS.get((c >> 4 & 15) as usize)?;
    let ty = |s: u32| TYPES.get((c >> s & 15) as usize).copied();
    let bytes = (c >> 20 & 255) as u8;
    let vec = (c >> 28 & 255) as u8;
    let clamp = CLAMPS.get((c >> 36 & 15) as usize).copied();
    Some(match c & 15 {
        0 => TexOp::Tex {
            geom,
            dtype: ty(8)?,
            ctype: ty(12)?,
        },
        1 => TexOp::Tld4 {
            comp: (c >> 16 & 3) as u8,
            dtype: ty(8)?,
        },
        2 => TexOp::Suld {
            geom,
            bytes,
            vec,
            clamp: clamp?,
        },
        3 => TexOp::Sust {
            geom,
            bytes,
            vec,
            clamp: clamp?,
            formatted: c >> 40 & 1 != 0,
        },
        _ => return None,
    })
}

impl FuncTranslator<'_> {
    pub(crate) fn texture(
        &mut self,
        op: TexOp,
        dsts: &[Option<RegId>],
        srcs: &[Operand],
        mask: &mut Mask,
        inst: InstId,
    ) -> Result<(), JitError> {
        let sig = op.signature();
        let (offs, total) = layout(&sig.srcs);
        if srcs.len() != sig.srcs.len() || dsts.len() != sig.dsts.len() || total > DATA_BYTES {
            return Err(self.unsupported(self.cur_text()));
        }
        for ((s, t), off) in srcs.iter().zip(&sig.srcs).zip(&offs) {
            let w = self.read(s, *t, false)?;
            self.spill(&w, SCRATCH_DATA + off);
        }
        let desc = lanes::iconst64(&mut self.b, encode(op));
        let bits = self.mbits(mask);
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let pd = self.scratch_addr(SCRATCH_DATA);
        let h = self.helper(Helper::Texture)?;
        let call = self.b.ins().call(h, &[self.ctx, desc, bits, instv, pd]);
        let res = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.ins().brif(res, self.ret_status, &[], cont, &[]);
        self.b.switch_to_block(cont);
        let (offs, _) = layout(&sig.dsts);
        for ((d, t), off) in dsts.iter().zip(&sig.dsts).zip(&offs) {
            if let Some(d) = d {
                let r = self.unspill(t.bits() == 64, SCRATCH_DATA + off);
                self.write(*d, *t, r, mask)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip() {
        let ops = [
            TexOp::Tex {
                geom: TexGeom::A2d,
                dtype: Type::U32,
                ctype: Type::S32,
            },
            TexOp::Tld4 {
                comp: 3,
                dtype: Type::F32,
            },
            TexOp::Suld {
                geom: TexGeom::D3,
                bytes: 8,
                vec: 2,
                clamp: SurfClamp::Zero,
            },
            TexOp::Sust {
                geom: TexGeom::A1d,
                bytes: 2,
                vec: 4,
                clamp: SurfClamp::Clamp,
                formatted: false,
            },
        ];
        for op in ops {
            assert_eq!(decode(encode(op)), Some(op));
        }
    }
}
