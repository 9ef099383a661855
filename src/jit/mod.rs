//! IR -> Cranelift -> native code. A warp's 32 lanes live in SIMD vectors
//! (8 x i32x4 for 32-bit registers, 16 x i64x2 for 64-bit ones, 8 x i32x4 lane masks for
//! predicates); divergence is handled with per-lane next-block numbers (DESIGN.md).
