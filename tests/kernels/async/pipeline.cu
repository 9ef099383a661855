// cuda::pipeline and cuda::memcpy_async from libcu++ (CCCL headers), compiled by NVRTC
// for compute_80 and compute_90 (regen.sh here); tests/async_kernels.rs runs them on
// both backends against a Rust reference.
#include <cuda/pipeline>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int STAGES = 3;
constexpr int T = 128;  // threads per block
constexpr int V = 4;    // u32 per thread and tile (16 bytes)

// Each thread streams `tiles` tiles of its own 16 bytes through a per-thread 3-stage
// pipeline (cp.async + commit/wait groups) and accumulates
// out[g] = sum over tiles k of (k + 1) * (x0 + 2 x1 + 3 x2 + 4 x3) (mod 2^32).
extern "C" __global__ void pipe_thread(const unsigned* in, unsigned* out, int tiles) {
    __shared__ alignas(16) unsigned buf[STAGES][T * V];
    auto pipe = cuda::make_pipeline();
    const int t = threadIdx.x;
    const unsigned* src = in + (size_t)blockIdx.x * tiles * T * V;
    int fetch = 0;
    unsigned acc = 0;
    for (int k = 0; k < tiles; ++k) {
        for (; fetch < tiles && fetch < k + STAGES; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[fetch % STAGES][t * V], src + ((size_t)fetch * T + t) * V,
                               cuda::aligned_size_t<16>(16), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        const unsigned* x = &buf[k % STAGES][t * V];
        acc += (unsigned)(k + 1) * (x[0] + 2u * x[1] + 3u * x[2] + 4u * x[3]);
        pipe.consumer_release();
    }
    out[blockIdx.x * T + t] = acc;
}

// A block-scope pipeline (its shared state holds one barrier pair per stage): the whole
// block copies each tile of T*V words, then each thread reads its neighbour's words:
// out[g] = sum over tiles k of (x[(t+1)%T][0] ^ x[t][3]) + k (mod 2^32).
extern "C" __global__ void pipe_block(const unsigned* in, unsigned* out, int tiles) {
    __shared__ alignas(16) unsigned buf[STAGES][T * V];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const int t = threadIdx.x;
    const unsigned* src = in + (size_t)blockIdx.x * tiles * T * V;
    int fetch = 0;
    unsigned acc = 0;
    for (int k = 0; k < tiles; ++k) {
        for (; fetch < tiles && fetch < k + STAGES; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, &buf[fetch % STAGES][0], src + (size_t)fetch * T * V,
                               cuda::aligned_size_t<16>(T * V * sizeof(unsigned)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        const unsigned* x = buf[k % STAGES];
        acc += (x[((t + 1) % T) * V] ^ x[t * V + 3]) + (unsigned)k;
        pipe.consumer_release();
    }
    out[blockIdx.x * T + t] = acc;
}
