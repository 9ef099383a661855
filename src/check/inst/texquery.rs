//! Lowering of `txq{.level}.query.b32 d, [t]{, lod}` and `suq.query.b32 d, [s]` into
//! [`InstKind::Texture`] with [`TexOp::Query`] (values in `crate::exec::texquery`). The
//! object is a `.u64` handle or a module `.texref`/`.surfref` name (or kernel parameter);
//! the sampler queries (`.force_unnormalized_coords .filter_mode .addr_mode_N`) also take
//! a `.samplerref`. The `.channel_data_type`/`.channel_order` queries (whose values are a
//! source language's enumeration, which CUDA's texture objects do not define) are
//! located errors.

use super::Mods;
use crate::check::func::Fx;
use crate::ir::{Fit, InstKind, TexOp, TexQuery, TexRefKind, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// `txq` or `suq` (by opcode name).
    pub(super) fn tex_query(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let surface = i.opcode.name == "suq";
        let level = !surface && m.has("level");
        let names: &[&str] = match (surface, level) {
            (true, _) => &["width", "height", "depth", "array_size", "memory_layout"],
            (false, true) => &["width", "height", "depth"],
            (false, false) => &[
                "width",
                "height",
                "depth",
                "normalized_coords",
                "array_size",
                "num_mipmap_levels",
                "num_samples",
                "force_unnormalized_coords",
                "filter_mode",
                "addr_mode_0",
                "addr_mode_1",
                "addr_mode_2",
            ],
        };
        if m.any(|x| matches!(x, "channel_data_type" | "channel_order")) {
            return Err(self.err(
                m.loc,
                format!(
                    "instruction '{}' is not supported (the channel queries answer with a source language's enumeration, which CUDA texture and surface objects do not define)",
                    m.text
                ),
            ));
        }
        let query = match m.one_of(names) {
            Some("width") => TexQuery::Width,
            Some("height") => TexQuery::Height,
            Some("depth") => TexQuery::Depth,
            Some("normalized_coords") => TexQuery::NormalizedCoords,
            Some("array_size") => TexQuery::ArraySize,
            Some("num_mipmap_levels") => TexQuery::NumMipmapLevels,
            Some("num_samples") => TexQuery::NumSamples,
            Some("force_unnormalized_coords") => TexQuery::ForceUnnormalizedCoords,
            Some("filter_mode") => TexQuery::FilterMode,
            Some("addr_mode_0") => TexQuery::AddrMode(0),
            Some("addr_mode_1") => TexQuery::AddrMode(1),
            Some("addr_mode_2") => TexQuery::AddrMode(2),
            Some(_) => TexQuery::MemoryLayout,
            None => return Err(self.err(m.loc, format!("'{}' needs a query", m.text))),
        };
        if !m.has("b32") {
            return Err(self.err(m.loc, format!("'{}' needs '.b32'", m.text)));
        }
        self.nops(i, m, 2 + level as usize)?;
        // A 32-bit destination: ptxas rejects a `.b64` one ("Arguments mismatch").
        let dst = self.dst(&i.operands[0], Type::B32, Fit::Strict)?;
        let obj = match &i.operands[1] {
            ast::Operand::Bracket(v, _) if v.len() == 1 => &v[0],
            o => return Err(self.err(o.loc(), format!("'{}' needs an operand '[object]'", m.text))),
        };
        let want = if surface {
            TexRefKind::Surface
        } else {
            TexRefKind::Texture
        };
        let sampler_query = matches!(
            query,
            TexQuery::ForceUnnormalizedCoords | TexQuery::FilterMode | TexQuery::AddrMode(_)
        );
        let h = match self.tex_handle(obj, m, want) {
            Ok(h) => h,
            // The sampler queries also take a `.samplerref` (independent mode).
            Err(e) if sampler_query && !surface => self
                .tex_handle(obj, m, TexRefKind::Sampler)
                .map_err(|_| e)?,
            Err(e) => return Err(e),
        };
        let mut srcs = vec![h];
        if level {
            srcs.push(self.src(&i.operands[2], Type::S32, Fit::Relaxed)?);
        }
        Ok(InstKind::Texture {
            op: TexOp::Query {
                query,
                surface,
                level,
            },
            dsts: vec![Some(dst)],
            srcs,
        })
    }
}
