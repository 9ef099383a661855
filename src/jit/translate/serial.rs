//! The translator's state for loops run lane by lane: which loops qualify
//! ([`super::serial_region`]) and the running lane while a scalar form is translated
//! (`control::serial` emits the code).

use super::serial_region::Region;
use crate::ir::{BlockId, RegId};
use cranelift_frontend::Variable;
use std::collections::HashSet;

/// A function's serial regions and the translator's state for them.
pub(crate) struct Serial {
    /// Per block: the region it heads.
    pub regions: crate::ir::IdxVec<BlockId, Option<Region>>,
    /// The running lane's variable (an i64) while a scalar form is translated.
    pub lane: Option<Variable>,
    /// Its local window's host base and size (i64s, set at the lane's start).
    pub local: Option<(Variable, Variable)>,
    /// The registers that the loop reads but never writes, while a scalar form is
    /// translated (the region lookup's call keeps them live instead of storing and
    /// reloading them: see `control::serial`'s `Lanes::mem`).
    pub invariant: HashSet<RegId>,
}

impl Serial {
    pub(crate) fn new(regions: crate::ir::IdxVec<BlockId, Option<Region>>) -> Serial {
        Serial {
            regions,
            lane: None,
            local: None,
            invariant: HashSet::new(),
        }
    }
}
