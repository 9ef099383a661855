//! Facts about the checked IR that the front end, both backends and the launch runtime
//! use: [`cfg`] (branch targets, loop headers in the reverse post-order numbering) and
//! [`callgraph`] (reachable functions, barriers, call-stack bytes). Computed from the IR
//! alone; nothing here depends on a backend.

pub mod callgraph;
pub mod cfg;
