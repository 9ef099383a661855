// A tiny stack-machine interpreter (benches/kernels.rs, "bytecode"): a dense `switch` on
// the opcode. NVRTC 12.9 (and clang 19) compile the switch to a tree of compares;
// spec_bytecode.ptx is NVRTC's output with the tree replaced by one `brx.idx`. Every
// thread runs the same program on its own input; the native Rust reference is the same
// loop with a `match`.
//
// Instruction: opcode in bits 0..3, immediate (push value or jump target) in bits 8..31.
// The stack has 8 slots and wraps around; a jump past the end of the program or running
// out of steps stops the thread. out[i] = top of stack + 0x9e3779b9 * steps taken.
enum {
    OP_PUSH, OP_DUP, OP_SWAP, OP_DROP, OP_ADD, OP_SUB, OP_MUL, OP_XOR,
    OP_AND, OP_SHL, OP_SHR, OP_JNZ, OP_JMP, OP_DEC, OP_IN, OP_HALT
};

extern "C" __global__ void bytecode(const unsigned* code, unsigned len, const unsigned* in,
                                    unsigned* out, unsigned count, unsigned max_steps) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    unsigned st[8];
    for (int k = 0; k < 8; ++k) st[k] = 0;
    unsigned sp = 0, pc = 0, steps = 0;
    unsigned input = in[i];
#define PUSH(v) (st[sp++ & 7] = (v))
#define POP() (st[--sp & 7])
#define TOP st[(sp - 1) & 7]
    while (steps < max_steps && pc < len) {
        unsigned ins = code[pc];
        unsigned imm = ins >> 8;
        ++pc;
        ++steps;
        unsigned a, b;
        switch (ins & 15) {
        case OP_PUSH: PUSH(imm); break;
        case OP_DUP: a = TOP; PUSH(a); break;
        case OP_SWAP: b = POP(); a = POP(); PUSH(b); PUSH(a); break;
        case OP_DROP: --sp; break;
        case OP_ADD: b = POP(); a = POP(); PUSH(a + b); break;
        case OP_SUB: b = POP(); a = POP(); PUSH(a - b); break;
        case OP_MUL: b = POP(); a = POP(); PUSH(a * b); break;
        case OP_XOR: b = POP(); a = POP(); PUSH(a ^ b); break;
        case OP_AND: b = POP(); a = POP(); PUSH(a & b); break;
        case OP_SHL: b = POP(); a = POP(); PUSH(a << (b & 31)); break;
        case OP_SHR: b = POP(); a = POP(); PUSH(a >> (b & 31)); break;
        case OP_JNZ: a = POP(); if (a != 0) pc = imm; break;
        case OP_JMP: pc = imm; break;
        case OP_DEC: TOP = TOP - 1; break;
        case OP_IN: PUSH(input); break;
        case OP_HALT: pc = len; break;
        }
    }
    out[i] = TOP + 0x9e3779b9u * steps;
}
