// Block-sum reductions: one partial sum per block of 256 threads, tree order
// (stride 128, 64, ..., 1), with __shared__ memory and __syncthreads().
#define BLOCK 256

extern "C" __global__ void block_sum_u32(const unsigned* in, unsigned* partial, unsigned n) {
    __shared__ unsigned s[BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0u;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void block_sum_f32(const float* in, float* partial, unsigned n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] = s[t] + s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// Dynamic shared memory (extern __shared__, sized at launch) and any power-of-two block
// size: partial[b] = sum of the block's elements, u64 accumulation of u32 inputs.
extern "C" __global__ void block_sum_dyn_u64(const unsigned* in, unsigned long long* partial, unsigned n) {
#ifdef PTXJIT_HOST_CHECK  // hostcheck/ (reference cross-check on the host)
    unsigned long long* dyn = (unsigned long long*)host_dynamic_shared();
#else
    extern __shared__ unsigned long long dyn[];
#endif
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    dyn[t] = i < n ? (unsigned long long)in[i] : 0ull;
    __syncthreads();
    for (unsigned stride = blockDim.x >> 1; stride > 0; stride >>= 1) {
        if (t < stride) dyn[t] += dyn[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = dyn[0];
}
