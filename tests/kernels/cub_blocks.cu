// NVIDIA's CUB block- and warp-level primitives and cooperative groups (CCCL headers,
// as real projects use them), compiled by NVRTC: reductions (warp-reduction, raking
// and commutative raking algorithms), scans (raking, memoized raking, warp scans),
// radix sort of keys and key-value pairs (ascending, descending, signed, float),
// histograms (shared atomics and sort-based), block load/store with transposes,
// discontinuity flags, warp reduce/scan on logical warps of 16, and cooperative-groups
// tile reductions, ballots and match. tests/cub.rs checks each against a Rust
// reference on both backends.
//
// NVRTC only (needs the CUDA runtime and CCCL headers: regen.sh passes -I for the
// nvidia-cuda-runtime-cu12 and nvidia-cuda-cccl-cu12 wheels).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define T 128

template <cub::BlockReduceAlgorithm A>
__device__ void reduce(const int* in, int* out) {
    using R = cub::BlockReduce<int, T, A>;
    __shared__ typename R::TempStorage tmp;
    int v = in[blockIdx.x * T + threadIdx.x];
    int s = R(tmp).Sum(v);
    __syncthreads();
    int m = R(tmp).Reduce(v, cub::Max());
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = s;
        out[2 * blockIdx.x + 1] = m;
    }
}
extern "C" __global__ void reduce_warp(const int* in, int* out) { reduce<cub::BLOCK_REDUCE_WARP_REDUCTIONS>(in, out); }
extern "C" __global__ void reduce_raking(const int* in, int* out) { reduce<cub::BLOCK_REDUCE_RAKING>(in, out); }
extern "C" __global__ void reduce_commutative(const int* in, int* out) { reduce<cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>(in, out); }

// out[3i..]: exclusive sum, inclusive max, block aggregate of the sum.
template <cub::BlockScanAlgorithm A>
__device__ void scan(const int* in, int* out) {
    using S = cub::BlockScan<int, T, A>;
    __shared__ typename S::TempStorage tmp;
    int i = blockIdx.x * T + threadIdx.x;
    int v = in[i], ex, mx, agg;
    S(tmp).ExclusiveSum(v, ex, agg);
    __syncthreads();
    S(tmp).InclusiveScan(v, mx, cub::Max());
    out[3 * i] = ex;
    out[3 * i + 1] = mx;
    out[3 * i + 2] = agg;
}
extern "C" __global__ void scan_raking(const int* in, int* out) { scan<cub::BLOCK_SCAN_RAKING>(in, out); }
extern "C" __global__ void scan_memoize(const int* in, int* out) { scan<cub::BLOCK_SCAN_RAKING_MEMOIZE>(in, out); }
extern "C" __global__ void scan_warp(const int* in, int* out) { scan<cub::BLOCK_SCAN_WARP_SCANS>(in, out); }

// Blocked arrangement: thread t holds items 4t..4t+3 of its block's 512.
extern "C" __global__ void sort_keys(const unsigned* in, unsigned* out) {
    using S = cub::BlockRadixSort<unsigned, T, 4>;
    __shared__ typename S::TempStorage tmp;
    unsigned k[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) k[j] = in[base + j];
    S(tmp).Sort(k);
    for (int j = 0; j < 4; j++) out[base + j] = k[j];
}
extern "C" __global__ void sort_pairs_desc(const unsigned* in, unsigned* out, int* vals) {
    using S = cub::BlockRadixSort<unsigned, T, 4, int>;
    __shared__ typename S::TempStorage tmp;
    unsigned k[4];
    int v[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) { k[j] = in[base + j]; v[j] = base + j; }
    S(tmp).SortDescending(k, v);
    for (int j = 0; j < 4; j++) { out[base + j] = k[j]; vals[base + j] = v[j]; }
}
extern "C" __global__ void sort_signed(const int* in, int* out) {
    using S = cub::BlockRadixSort<int, T, 4>;
    __shared__ typename S::TempStorage tmp;
    int k[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) k[j] = in[base + j];
    S(tmp).Sort(k);
    for (int j = 0; j < 4; j++) out[base + j] = k[j];
}
extern "C" __global__ void sort_floats(const float* in, float* out) {
    using S = cub::BlockRadixSort<float, T, 4>;
    __shared__ typename S::TempStorage tmp;
    float k[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) k[j] = in[base + j];
    S(tmp).Sort(k);
    for (int j = 0; j < 4; j++) out[base + j] = k[j];
}

// 256-bin histogram of a block's 512 bytes (bins per block in out).
template <cub::BlockHistogramAlgorithm A>
__device__ void histo(const unsigned char* in, unsigned* out) {
    using H = cub::BlockHistogram<unsigned char, T, 4, 256, A>;
    __shared__ typename H::TempStorage tmp;
    __shared__ unsigned bins[256];
    unsigned char s[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) s[j] = in[base + j];
    H(tmp).Histogram(s, bins);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += T) out[blockIdx.x * 256 + b] = bins[b];
}
extern "C" __global__ void histo_atomic(const unsigned char* in, unsigned* out) { histo<cub::BLOCK_HISTO_ATOMIC>(in, out); }
extern "C" __global__ void histo_sort(const unsigned char* in, unsigned* out) { histo<cub::BLOCK_HISTO_SORT>(in, out); }

// Loads striped through a warp transpose, adds the item index within the thread,
// stores blocked through a block transpose: out[base + 4t + j] = in[...] + j in the
// blocked arrangement of the loaded items.
extern "C" __global__ void load_store(const int* in, int* out) {
    using L = cub::BlockLoad<int, T, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using St = cub::BlockStore<int, T, 4, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union { typename L::TempStorage l; typename St::TempStorage s; } tmp;
    int items[4];
    L(tmp.l).Load(in + blockIdx.x * T * 4, items);
    __syncthreads();
    for (int j = 0; j < 4; j++) items[j] += 1000 * j;
    St(tmp.s).Store(out + blockIdx.x * T * 4, items);
}

// Head flags: item differs from its predecessor (the block's first item is a head).
extern "C" __global__ void heads(const int* in, int* out) {
    using D = cub::BlockDiscontinuity<int, T>;
    __shared__ typename D::TempStorage tmp;
    int k[4], f[4];
    int base = blockIdx.x * T * 4 + threadIdx.x * 4;
    for (int j = 0; j < 4; j++) k[j] = in[base + j];
    D(tmp).FlagHeads(f, k, cub::Inequality());
    for (int j = 0; j < 4; j++) out[base + j] = f[j];
}

// Logical warps of 16: sum per logical warp and inclusive scan.
extern "C" __global__ void warp16(const int* in, int* out) {
    using WR = cub::WarpReduce<int, 16>;
    using WS = cub::WarpScan<int, 16>;
    __shared__ typename WR::TempStorage r[T / 16];
    __shared__ typename WS::TempStorage s[T / 16];
    int i = blockIdx.x * T + threadIdx.x;
    int w = threadIdx.x / 16;
    int v = in[i];
    int sum = WR(r[w]).Sum(v);
    int inc;
    WS(s[w]).InclusiveSum(v, inc);
    out[2 * i] = (threadIdx.x % 16 == 0) ? sum : -1;
    out[2 * i + 1] = inc;
}

// Cooperative groups on tiles of 32 and 8: reduce, inclusive scan, ballot, match.
extern "C" __global__ void cg_tiles(const int* in, int* out) {
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(b);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(b);
    int i = blockIdx.x * T + threadIdx.x;
    int v = in[i];
    out[5 * i] = cg::reduce(t32, v, cg::plus<int>());
    out[5 * i + 1] = cg::reduce(t8, v, cg::greater<int>());
    out[5 * i + 2] = cg::inclusive_scan(t8, v, cg::plus<int>());
    out[5 * i + 3] = (int)t32.ballot(v & 1);
    out[5 * i + 4] = (int)t32.match_any(v & 3);
}
