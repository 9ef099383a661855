//! `.samplerref` initializers (`{ addr_mode_0 = clamp_to_border, filter_mode = linear,
//! force_unnormalized_coords = 1 }`): the sampler state, packed into the variable's 8
//! bytes (`crate::ir::sampler::Sampler::to_bytes`), which the runtime registers at
//! module load.

use super::Cx;
use crate::ir::sampler::Sampler;
use crate::parse::ast::{ExprKind, Init};
use crate::parse::PtxError;

impl Cx<'_> {
    /// The bytes of a `.samplerref` with initializer `init` (a list of `field = value`).
    pub(super) fn sampler_init(&self, init: &Init) -> Result<[u8; 8], PtxError> {
        let Init::List(items, _) = init else {
            return Err(self.err(
                init.loc(),
                "a '.samplerref' initializer is a list '{ field = value, ... }'",
            ));
        };
        let mut s = Sampler::default();
        for item in items {
            let Init::Field(name, value) = item else {
                return Err(self.err(item.loc(), "expected 'field = value'"));
            };
            let v = match &value.kind {
                ExprKind::Sym { name, comp: None } => name.clone(),
                ExprKind::Num(_) => self.eval_int(value)?.to_string(),
                _ => return Err(self.err(value.loc, "expected a field value")),
            };
            s.set_field(&name.name, &v)
                .map_err(|msg| self.err(value.loc, msg))?;
        }
        Ok(s.to_bytes())
    }
}
