// archs: 60 70 80 90
// Atomics of every width and operation, CAS loops, fences, volatile, warp vote.
extern "C" __global__ void atom_ops(int* i, unsigned* u, unsigned long long* ul, float* f, double* d) {
    int t = threadIdx.x;
    atomicAdd(i, t); atomicSub(i + 1, t); atomicMin(i + 2, -t); atomicMax(i + 3, t);
    atomicAnd(u, ~(1u << (t & 31))); atomicOr(u + 1, 1u << (t & 31)); atomicXor(u + 2, t);
    atomicInc(u + 3, 17u); atomicDec(u + 4, 9u); atomicExch(u + 5, t);
    atomicCAS(u + 6, (unsigned)t, (unsigned)t + 1);
    atomicAdd(ul, (unsigned long long)t); atomicMin(ul + 1, (unsigned long long)t); atomicCAS(ul + 2, 0ull, (unsigned long long)t);
    atomicAdd(f, 0.5f); atomicAdd(d, 0.25);
    atomicExch(f + 1, (float)t);
}
__device__ float atomicMulF(float* a, float v) {
    unsigned* p = (unsigned*)a;
    unsigned old = *p, assumed;
    do { assumed = old; old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) * v)); } while (assumed != old);
    return __uint_as_float(old);
}
extern "C" __global__ void cas_loop(float* a, const float* v) { atomicMulF(a, v[threadIdx.x]); }
extern "C" __global__ void threadfence_reduce(const float* in, volatile float* partial, unsigned* count, float* out) {
    __shared__ bool last;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = v;
        __threadfence();
        unsigned t = atomicInc(count, gridDim.x);
        last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < gridDim.x; i++) s += partial[i];
        *out = s;
        *count = 0;
    }
}
extern "C" __global__ void votes(const int* in, unsigned* out) {
    int v = in[threadIdx.x];
    unsigned b = __ballot_sync(0xffffffff, v > 0);
    int a = __all_sync(0xffffffff, v != 0), y = __any_sync(0xffffffff, v < 0);
    unsigned m = __activemask();
    if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = b + a + 2 * y + (m == 0xffffffff);
    __syncwarp();
}
extern "C" __global__ void block_primitives(const int* in, int* out) {
    int v = in[threadIdx.x];
    int c = __syncthreads_count(v > 0), a = __syncthreads_and(v > 0), o = __syncthreads_or(v > 5);
    out[threadIdx.x] = c * 4 + a * 2 + o;
}
