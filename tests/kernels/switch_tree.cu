// NVRTC only (the test runs NVRTC's compare trees; clang's switch lowering differs).
// Switches that NVRTC compiles to trees of `setp` + `bra` (tests/serial_switch.rs): the
// JIT's lane-by-lane form turns a tree on an `and`-masked register into one jump table
// (src/jit/control/serial/switch.rs). Every thread runs the same program on its own
// input: `tree16` switches on `w & 15` (all 16 cases, the last one at the table's end),
// `tree8` on `w & 7` with cases missing (the default at both ends of the range),
// `tree_unmasked` on `w >> 4` with no mask (values past the last case take the default;
// the JIT keeps this loop warp-wide, so it checks the tree's own branches).
// The Rust reference in the test is the same loop with a `match`.

extern "C" __global__ void tree16(const unsigned* code, unsigned len, const unsigned* in,
                                  unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i], acc = x ^ 0x5bd1e995u;
#pragma unroll 1
    for (unsigned s = x & 3; s < len; ++s) {
        unsigned w = code[(s + i) % 64];
        unsigned imm = w >> 8;
        switch (w & 15) {
        case 0: acc += imm; break;
        case 1: acc ^= x; break;
        case 2: acc -= x; break;
        case 3: acc *= 3; break;
        case 4: acc = (acc << 3) ^ (acc >> 7); break;
        case 5: acc += x * imm; break;
        case 6: acc ^= imm << 4; break;
        case 7: acc = ~acc; break;
        case 8: acc += 0x9e3779b9u; break;
        case 9: acc ^= acc >> 7; break;
        case 10: x = x * 1103515245u + 12345u; break;
        case 11: acc -= imm; break;
        case 12: acc &= x | imm; break;
        case 13: acc |= imm; break;
        case 14: x ^= acc; break;
        case 15: acc = acc * 5 + 1; break;
        }
    }
    out[i] = acc ^ x;
}

extern "C" __global__ void tree8(const unsigned* code, unsigned len, const unsigned* in,
                                 unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i], acc = x ^ 0x5bd1e995u;
#pragma unroll 1
    for (unsigned s = x & 3; s < len; ++s) {
        unsigned w = code[(s * 3 + i) % 64];
        unsigned imm = w >> 8;
        switch (w & 7) {
        case 1: acc += imm; break;
        case 2: acc ^= x; break;
        case 3: acc *= 7; break;
        case 5: acc -= x; break;
        case 6: x = x * 69069u + 1u; break;
        default: acc = acc + 11; break;
        }
    }
    out[i] = acc ^ x;
}

extern "C" __global__ void tree_unmasked(const unsigned* code, unsigned len, const unsigned* in,
                                         unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i], acc = x ^ 0x5bd1e995u;
#pragma unroll 1
    for (unsigned s = x & 3; s < len; ++s) {
        unsigned w = code[(s + (in[i] >> 8)) % 64];
        switch (w >> 4) {
        case 0: acc += 1; break;
        case 1: acc ^= x; break;
        case 2: acc -= x; break;
        case 3: acc *= 3; break;
        case 4: acc ^= acc >> 5; break;
        case 5: acc += x; break;
        case 6: x = x * 1103515245u + 12345u; break;
        case 7: acc = ~acc; break;
        default: acc += w; break;
        }
    }
    out[i] = acc ^ x;
}
