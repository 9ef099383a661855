// archs: 52 61 70 80 90
// Sorting networks: bitonic sort in shared memory (sortingNetworks sample), odd-even
// transposition, and a warp bitonic sort with shuffles.
extern "C" __global__ void bitonic_shared(unsigned* keys, unsigned* vals, unsigned len, unsigned dir) {
    extern __shared__ unsigned s[];
    unsigned* sk = s; unsigned* sv = s + len;
    unsigned t = threadIdx.x;
    sk[t] = keys[t]; sv[t] = vals[t];
    sk[t + len / 2] = keys[t + len / 2]; sv[t + len / 2] = vals[t + len / 2];
    for (unsigned size = 2; size <= len; size <<= 1) {
        unsigned ddd = dir ^ ((t & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            if ((sk[pos] > sk[pos + stride]) == ddd) {
                unsigned k = sk[pos]; sk[pos] = sk[pos + stride]; sk[pos + stride] = k;
                unsigned v = sv[pos]; sv[pos] = sv[pos + stride]; sv[pos + stride] = v;
            }
        }
    }
    __syncthreads();
    keys[t] = sk[t]; vals[t] = sv[t];
    keys[t + len / 2] = sk[t + len / 2]; vals[t + len / 2] = sv[t + len / 2];
}
extern "C" __global__ void bitonic_global_step(float* a, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
    if (ixj > i) {
        bool up = (i & k) == 0;
        float x = a[i], y = a[ixj];
        if ((x > y) == up) { a[i] = y; a[ixj] = x; }
    }
}
extern "C" __global__ void odd_even(int* a, int n) {
    extern __shared__ int so[];
    int t = threadIdx.x;
    if (t < n) so[t] = a[t];
    for (int ph = 0; ph < n; ph++) {
        __syncthreads();
        int i = 2 * t + (ph & 1);
        if (i + 1 < n && so[i] > so[i + 1]) { int x = so[i]; so[i] = so[i + 1]; so[i + 1] = x; }
    }
    __syncthreads();
    if (t < n) a[t] = so[t];
}
extern "C" __global__ void warp_bitonic(int* a) {
    int lane = threadIdx.x & 31;
    int v = a[blockIdx.x * blockDim.x + threadIdx.x];
    for (int k = 2; k <= 32; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            int o = __shfl_xor_sync(0xffffffffu, v, j);
            bool up = (lane & k) == 0, low = (lane & j) == 0;
            v = (low == up) ? min(v, o) : max(v, o);
        }
    a[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
