// Barrier reductions and named producer/consumer barriers (tests/barriers.rs).

// __syncthreads_count/and/or over the threads still running: threads with
// in[t] == 0xdead exit first and no longer count.
extern "C" __global__ void red(const unsigned* in, unsigned* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[t];
    if (x == 0xdead) return;
    unsigned c = __syncthreads_count(x & 1);
    unsigned a = __syncthreads_and(x & 2);
    unsigned o = __syncthreads_or(x & 4);
    out[3 * t] = c;
    out[3 * t + 1] = a != 0;
    out[3 * t + 2] = o != 0;
}

static __device__ __forceinline__ void named_sync(unsigned id, unsigned n) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
static __device__ __forceinline__ void named_arrive(unsigned id, unsigned n) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}

// Blocks of 128: warps 0-1 produce 64 values per round into shared memory and signal
// barrier 0 with bar.arrive; warps 2-3 wait on barrier 0, consume (out = 2 * value + r)
// and signal barrier 1, on which the producers wait before overwriting the buffer.
extern "C" __global__ void pipeline(const unsigned* in, unsigned* out, int rounds) {
    __shared__ unsigned buf[64];
    unsigned t = threadIdx.x;
    const unsigned* src = in + blockIdx.x * rounds * 64;
    unsigned* dst = out + blockIdx.x * rounds * 64;
    if (t < 64) {
        for (int r = 0; r < rounds; r++) {
            if (r > 0) named_sync(1, 128);
            buf[t] = src[r * 64 + t];
            named_arrive(0, 128);
        }
    } else {
        for (int r = 0; r < rounds; r++) {
            named_sync(0, 128);
            dst[r * 64 + (t - 64)] = 2 * buf[t - 64] + r;
            if (r + 1 < rounds) named_arrive(1, 128);
        }
    }
}
