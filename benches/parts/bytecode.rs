//! The stack-machine interpreter of tests/kernels/bytecode.cu in Rust: its opcodes and
//! a native run, the reference both the `bytecode` benchmark (`kernels.rs`) and
//! tests/serial.rs compare the kernels with.
//!
//! Included by `benches/kernels.rs` and `tests/serial.rs` (`#[path]` modules).
#![allow(dead_code)]

// Opcodes of the stack machine in tests/kernels/bytecode.cu.
pub const OP_PUSH: u32 = 0;
pub const OP_DUP: u32 = 1;
pub const OP_SWAP: u32 = 2;
pub const OP_DROP: u32 = 3;
pub const OP_ADD: u32 = 4;
pub const OP_SUB: u32 = 5;
pub const OP_MUL: u32 = 6;
pub const OP_XOR: u32 = 7;
pub const OP_AND: u32 = 8;
pub const OP_SHL: u32 = 9;
pub const OP_SHR: u32 = 10;
pub const OP_JNZ: u32 = 11;
pub const OP_JMP: u32 = 12;
pub const OP_DEC: u32 = 13;
pub const OP_IN: u32 = 14;
pub const OP_HALT: u32 = 15;

/// The native equivalent of `bytecode` in tests/kernels/bytecode.cu: (output, steps).
pub fn run(code: &[u32], input: u32, max_steps: u32) -> (u32, u32) {
    let mut st = [0u32; 8];
    let (mut sp, mut pc, mut steps) = (0u32, 0u32, 0u32);
    let len = code.len() as u32;
    macro_rules! push {
        ($v:expr) => {{
            let v = $v;
            st[(sp & 7) as usize] = v;
            sp = sp.wrapping_add(1);
        }};
    }
    macro_rules! pop {
        () => {{
            sp = sp.wrapping_sub(1);
            st[(sp & 7) as usize]
        }};
    }
    macro_rules! binop {
        ($f:expr) => {{
            let b = pop!();
            let a = pop!();
            push!($f(a, b));
        }};
    }
    while steps < max_steps && pc < len {
        let ins = code[pc as usize];
        let imm = ins >> 8;
        pc += 1;
        steps += 1;
        match ins & 15 {
            OP_PUSH => push!(imm),
            OP_DUP => push!(st[(sp.wrapping_sub(1) & 7) as usize]),
            OP_SWAP => {
                let b = pop!();
                let a = pop!();
                push!(b);
                push!(a);
            }
            OP_DROP => sp = sp.wrapping_sub(1),
            OP_ADD => binop!(u32::wrapping_add),
            OP_SUB => binop!(u32::wrapping_sub),
            OP_MUL => binop!(u32::wrapping_mul),
            OP_XOR => binop!(|a, b| a ^ b),
            OP_AND => binop!(|a, b| a & b),
            OP_SHL => binop!(|a: u32, b: u32| a << (b & 31)),
            OP_SHR => binop!(|a: u32, b: u32| a >> (b & 31)),
            OP_JNZ => {
                if pop!() != 0 {
                    pc = imm;
                }
            }
            OP_JMP => pc = imm,
            OP_DEC => {
                let t = &mut st[(sp.wrapping_sub(1) & 7) as usize];
                *t = t.wrapping_sub(1);
            }
            OP_IN => push!(input),
            _ => pc = len, // OP_HALT
        }
    }
    let top = st[(sp.wrapping_sub(1) & 7) as usize];
    (top.wrapping_add(0x9e37_79b9u32.wrapping_mul(steps)), steps)
}
