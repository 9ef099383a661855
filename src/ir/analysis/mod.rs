//! Facts about the checked IR that the front end, both backends and the launch runtime
//! use: [`cfg`] (branch targets, loop headers in the reverse post-order numbering, blocks
//! that can run divergently), [`callgraph`] (reachable functions, barriers, call-stack
//! bytes), [`consts`] (registers holding one constant), [`liveness`] (registers live
//! per block and after each barrier), [`nan`] (registers whose NaN bits no read
//! observes), [`postdom`] (immediate
//! post-dominators) and [`shape`] (uniform / affine / varying values, divergent
//! terminators). Computed from the IR alone; nothing here depends on a backend.

pub mod callgraph;
pub mod cfg;
pub mod consts;
pub mod liveness;
pub mod nan;
pub mod postdom;
pub mod shape;
