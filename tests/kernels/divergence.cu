// Divergent control flow: early returns, if/else whose branches store to different
// arrays (so compilers keep real branches), loops whose trip counts differ per lane,
// break/continue, and a bounded Collatz walk.
//
// out[4*i + 0]: hash loop, trip count (threadIdx.x & 15)
// out[4*i + 1]: Collatz steps (bounded) and whether 1 was reached
// out[4*i + 2]: nested loop with break/continue
// out[4*i + 3]: written by exactly one of the if/else arms (the other arm writes odd_out)
extern "C" __global__ void diverge(const unsigned* in, unsigned* out, unsigned* odd_out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];

    // if/else with side effects in both arms.
    if (v & 1) {
        odd_out[i] = v * 3u + 1u;
    } else {
        out[4 * i + 3] = v >> 1;
    }

    // Loop with a per-lane trip count.
    unsigned acc = v;
    for (unsigned k = 0; k < (threadIdx.x & 15); k++) {
        acc = (acc * 1664525u + 1013904223u) ^ k;
    }
    out[4 * i + 0] = acc;

    // Nested loops, break and continue.
    unsigned w = 0;
    for (unsigned a = 0; a < (v & 7); a++) {
        for (unsigned b = 0; b < 8; b++) {
            if (((v >> b) & 1) == 0) continue;
            w += a * 16 + b;
            if (w > 100) break;
        }
        if (w > 200) break;
    }
    out[4 * i + 2] = w;

    // Bounded Collatz walk (u32 wrap-around on 3x+1).
    unsigned x = v, steps = 0;
    while (x != 1 && steps < 300) {
        if (x & 1) x = 3 * x + 1;
        else x >>= 1;
        steps++;
    }
    if (x == 0) {               // v == 0 (or a walk that wrapped to 0): second early return
        out[4 * i + 1] = 0xdeadbeefu;
        return;
    }
    out[4 * i + 1] = steps | (x == 1 ? 0x80000000u : 0u);
}
