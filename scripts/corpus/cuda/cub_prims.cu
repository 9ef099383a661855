// archs: 60 70 80 90
// cccl
// CUB block and warp primitives: BlockReduce, BlockScan, BlockRadixSort, BlockHistogram,
// BlockLoad/Store with transposes, WarpReduce, WarpScan, BlockAdjacentDifference.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#define T 128
extern "C" __global__ void cub_block_reduce(const float* in, float* out) {
    using R = cub::BlockReduce<float, T>;
    __shared__ R::TempStorage tmp;
    float s = R(tmp).Sum(in[blockIdx.x * T + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void cub_block_scan(const int* in, int* out) {
    using S = cub::BlockScan<int, T, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ S::TempStorage tmp;
    int v = in[blockIdx.x * T + threadIdx.x], r;
    S(tmp).ExclusiveSum(v, r);
    out[blockIdx.x * T + threadIdx.x] = r;
}
extern "C" __global__ void cub_radix_sort(unsigned* keys, float* vals) {
    using S = cub::BlockRadixSort<unsigned, T, 4, float>;
    using L = cub::BlockLoad<unsigned, T, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    __shared__ union { S::TempStorage s; L::TempStorage l; } tmp;
    unsigned k[4]; float v[4];
    L(tmp.l).Load(keys + blockIdx.x * T * 4, k);
    __syncthreads();
    cub::LoadDirectBlocked(threadIdx.x, vals + blockIdx.x * T * 4, v);
    S(tmp.s).Sort(k, v);
    cub::StoreDirectBlocked(threadIdx.x, keys + blockIdx.x * T * 4, k);
    cub::StoreDirectBlocked(threadIdx.x, vals + blockIdx.x * T * 4, v);
}
extern "C" __global__ void cub_histogram(const unsigned char* in, unsigned* out) {
    using H = cub::BlockHistogram<unsigned char, T, 4, 256>;
    __shared__ H::TempStorage tmp;
    __shared__ unsigned bins[256];
    unsigned char s[4];
    cub::LoadDirectStriped<T>(threadIdx.x, in + blockIdx.x * T * 4, s);
    H(tmp).Histogram(s, bins);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += T) atomicAdd(&out[i], bins[i]);
}
extern "C" __global__ void cub_warp(const int* in, int* out) {
    using WR = cub::WarpReduce<int>;
    using WS = cub::WarpScan<int, 16>;
    __shared__ WR::TempStorage r[T / 32];
    __shared__ WS::TempStorage s[T / 16];
    int v = in[threadIdx.x], inc;
    int m = WR(r[threadIdx.x / 32]).Reduce(v, cub::Max());
    WS(s[threadIdx.x / 16]).InclusiveSum(v, inc);
    out[threadIdx.x] = inc + (threadIdx.x % 32 == 0 ? m : 0);
}
