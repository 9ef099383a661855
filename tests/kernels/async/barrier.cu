// cuda::barrier from libcu++ (CCCL headers), compiled by NVRTC for compute_80 and
// compute_90 (regen.sh here); tests/async_kernels.rs runs it on both backends against a
// Rust reference.
#include <cuda/barrier>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int T = 128;

// Rounds of a neighbour exchange in shared memory synchronised by a block-scope
// cuda::barrier (arrive_and_wait, and split arrive / wait with a token):
// v(0) = in[g]; v(r+1) = v(r) * 3 + w(r)[(t + r + 1) % T], w(r) the block's v(r).
extern "C" __global__ void bar_rounds(const unsigned* in, unsigned* out, int rounds) {
    __shared__ unsigned w[T];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    const int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    unsigned v = in[blockIdx.x * T + t];
    for (int r = 0; r < rounds; ++r) {
        w[t] = v;
        bar.arrive_and_wait();
        unsigned n = w[(t + r + 1) % T];
        auto token = bar.arrive();
        v = v * 3u + n;
        bar.wait(std::move(token));
    }
    out[blockIdx.x * T + t] = v;
}

// The block copies its slice of `in` to shared memory with cuda::memcpy_async completed
// through a cuda::barrier, then out[g] = s[T - 1 - t] + s[t] * 7.
extern "C" __global__ void bar_copy(const unsigned* in, unsigned* out) {
    __shared__ alignas(16) unsigned s[T];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
    }
    block.sync();
    cuda::memcpy_async(block, s, in + blockIdx.x * T, cuda::aligned_size_t<16>(sizeof(s)), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * T + t] = s[T - 1 - t] + s[t] * 7u;
}
