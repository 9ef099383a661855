// archs: 52 61 70 80 90
// Prefix sums: Hillis-Steele, Blelloch work-efficient scan, warp-shuffle scan.
extern "C" __global__ void scan_naive(const float* in, float* out, int n) {
    extern __shared__ float tmp[];
    int t = threadIdx.x, pout = 0, pin = 1;
    tmp[t] = t > 0 && t < n ? in[t - 1] : 0.0f;
    __syncthreads();
    for (int off = 1; off < n; off *= 2) {
        pout = 1 - pout; pin = 1 - pout;
        if (t >= off) tmp[pout * n + t] = tmp[pin * n + t] + tmp[pin * n + t - off];
        else tmp[pout * n + t] = tmp[pin * n + t];
        __syncthreads();
    }
    if (t < n) out[t] = tmp[pout * n + t];
}
extern "C" __global__ void scan_blelloch(const int* in, int* out, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x, off = 1;
    s[2 * t] = in[2 * t];
    s[2 * t + 1] = in[2 * t + 1];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) { int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1; s[bi] += s[ai]; }
        off *= 2;
    }
    if (t == 0) s[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            int x = s[ai]; s[ai] = s[bi]; s[bi] += x;
        }
    }
    __syncthreads();
    out[2 * t] = s[2 * t];
    out[2 * t + 1] = s[2 * t + 1];
}
extern "C" __global__ void scan_warp(const unsigned* in, unsigned* out, unsigned* sums) {
    __shared__ unsigned w[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, v = in[i];
    for (int o = 1; o < 32; o <<= 1) {
        unsigned y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += y;
    }
    if (lane == 31) w[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        unsigned x = threadIdx.x < (blockDim.x >> 5) ? w[threadIdx.x] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x += y;
        }
        w[threadIdx.x] = x;
    }
    __syncthreads();
    if (threadIdx.x >= 32) v += w[(threadIdx.x >> 5) - 1];
    out[i] = v;
    if (threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = v;
}
extern "C" __global__ void scan_add_sums(unsigned* data, const unsigned* sums) {
    if (blockIdx.x > 0) data[blockIdx.x * blockDim.x + threadIdx.x] += sums[blockIdx.x - 1];
}
