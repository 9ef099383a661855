// Loops that the JIT runs lane by lane (src/jit/control/serial.rs): an interpreter-style
// `switch` in a loop, so that the lanes of a warp spread over many case blocks.
// tests/serial.rs compares every output with a Rust reference of the same code.
//
// `lanes_nested`: each thread steps through `code` from its own start; cases with a
// nested divergent `if`, a nested loop, local-memory stores and loads, and a
// data-dependent jump. After the loop, warp-level operations (ballot, shuffle) that
// need the whole warp reconverged.
//
// `lanes_fault`: the same kind of loop with a global load whose index comes from
// `bad[t]`: a thread with a huge `bad[t]` faults inside the loop. Each thread starts at
// `t % len`, so that the lanes diverge.

extern "C" __global__ void lanes_nested(const unsigned* code, unsigned len, const unsigned* in,
                                        unsigned* out, unsigned max_steps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[t], acc = t, pc = t % len;
    unsigned st[4] = {0, 0, 0, 0};
    for (unsigned s = 0; s < max_steps && pc < len; ++s) {
        unsigned ins = code[pc];
        ++pc;
        switch (ins & 7) {
        case 0: acc += x; break;
        case 1:
            if (x & 1) {
                acc ^= x * 3u;
            } else {
                acc -= 7u;
            }
            break;
        case 2:
            for (unsigned k = 0; k < (x & 7); ++k) acc = acc * 5u + k;
            break;
        case 3: st[acc & 3] = x; break;
        case 4: x = x * 1103515245u + 12345u; break;
        case 5: acc += st[x & 3]; break;
        case 6: pc += (ins >> 3) & 3; break;
        default: x ^= acc >> 3; break;
        }
    }
    unsigned b = __ballot_sync(0xffffffffu, acc & 1);
    unsigned o = __shfl_sync(0xffffffffu, acc, (threadIdx.x + 1) & 31, 32);
    out[t] = acc + b * 3u + (o << 1);
}

extern "C" __global__ void lanes_fault(const unsigned* code, unsigned len, const unsigned* in,
                                       unsigned* out, const unsigned* table,
                                       const unsigned* bad, unsigned max_steps) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[t], acc = 0, pc = t % len;
    for (unsigned s = 0; s < max_steps && pc < len; ++s) {
        unsigned ins = code[pc];
        ++pc;
        switch (ins & 3) {
        case 0: acc += x; break;
        case 1: acc = acc * 3u + table[(x & 15) + bad[t]]; break;
        case 2: x = x * 1103515245u + 12345u; break;
        default: acc ^= x >> 5; break;
        }
    }
    out[t] = acc;
}
