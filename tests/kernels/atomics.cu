// Atomics (tests/atomics.rs): histograms in global and shared memory, every integer
// operation, float adds, 64-bit forms and a compare-and-swap ticket counter.

// 64-bin histogram of in[] straight into global memory, grid-stride.
extern "C" __global__ void hist_global(const unsigned* in, unsigned* bins, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i] % 64], 1u);
}

// The same through a per-CTA shared histogram, merged with one atomicAdd per bin.
extern "C" __global__ void hist_shared(const unsigned* in, unsigned* bins, int n) {
    __shared__ unsigned s[64];
    for (int k = threadIdx.x; k < 64; k += blockDim.x) s[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[in[i] % 64], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < 64; k += blockDim.x)
        if (s[k]) atomicAdd(&bins[k], s[k]);
}

// Order-independent results of every operation. st[]: 0 max(int), 1 min(int),
// 2 max(unsigned), 3 min(unsigned), 4 inc counter (limit 16), 5 dec counter (limit 16),
// 6 or, 7 and, 8 xor, 9 exch target, 10 CAS ticket counter; wide[]: 0 add u64,
// 1 max s64; f[0]: float add (integers, exact in any order); d[0]: double add.
extern "C" __global__ void ops(const unsigned* in, unsigned* st, unsigned long long* wide,
                               float* f, double* d, unsigned* exch_old, unsigned* ticket) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i];
    atomicMax((int*)&st[0], (int)x);
    atomicMin((int*)&st[1], (int)x);
    atomicMax(&st[2], x);
    atomicMin(&st[3], x);
    atomicInc(&st[4], 16u);
    atomicDec(&st[5], 16u);
    atomicOr(&st[6], 1u << (x % 32));
    atomicAnd(&st[7], ~(1u << (x % 31)));
    atomicXor(&st[8], x);
    exch_old[i] = atomicExch(&st[9], x);
    // A ticket from a compare-and-swap loop.
    unsigned t = st[10];
    for (;;) {
        unsigned seen = atomicCAS(&st[10], t, t + 1);
        if (seen == t) break;
        t = seen;
    }
    ticket[i] = t;
    atomicAdd(&wide[0], (unsigned long long)x << 20);
    atomicMax((long long*)&wide[1], (long long)(int)x);
    atomicAdd(&f[0], (float)(x % 1024));
    atomicAdd(&d[0], (double)x);
}
