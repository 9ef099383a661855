// Control flow: nested loops, break/continue, switch, early return.
// clang: yes
extern "C" __global__ void control(const int *in, int *out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    int acc = 0;
    for (int i = 0; i < n; i++) {
        int v = in[i];
        if (v < 0) continue;
        if (v > 1000) break;
        switch (v & 7) {
        case 0: acc += 1; break;
        case 1: acc ^= v; break;
        case 2: acc -= v; break;
        case 3: acc *= 3; break;
        case 4: acc += v << 2; break;
        case 5: acc |= v; break;
        default: acc += 7;
        }
        for (int j = 0; j < (v & 3); j++) acc += j * t;
    }
    out[t] = acc;
}
