// archs: 52 61 70 80 90
// CUDA-samples-style reductions (reduction sample kernels 0..6 pattern), warp shuffles.
#define BS 256
extern "C" __global__ void reduce0(const int* in, int* out, unsigned n) {
    __shared__ int s[BS];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        if (t % (2 * k) == 0) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void reduce3(const float* in, float* out, unsigned n) {
    __shared__ float s[BS];
    unsigned t = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] = v = v + s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = v;
}
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void reduce_shfl(const float* in, float* out, unsigned n) {
    __shared__ float w[32];
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) w[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? w[threadIdx.x] : 0.0f;
        v = warp_sum(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}
extern "C" __global__ void reduce_max_u64(const unsigned long long* in, unsigned long long* out, unsigned n) {
    unsigned long long m = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        m = max(m, in[i]);
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) atomicMax(out, m);
}
extern "C" __global__ void reduce_double(const double* in, double* out, unsigned n) {
    __shared__ double s[BS];
    unsigned t = threadIdx.x;
    double v = 0;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += in[i];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
