//! Scalar semantics of every PTX operation, shared by the interpreter, JIT helper calls
//! and tests.
