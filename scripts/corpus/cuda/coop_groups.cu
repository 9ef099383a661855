// archs: 70 80 90
// cccl
// Cooperative groups: thread_block, tiled_partition (static and dynamic), coalesced_threads,
// reduce/scan of cg, labeled partitions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cg_tile_reduce(const int* in, int* out) {
    cg::thread_block b = cg::this_thread_block();
    auto t32 = cg::tiled_partition<32>(b);
    int v = in[b.group_index().x * b.size() + b.thread_rank()];
    int s = cg::reduce(t32, v, cg::plus<int>());
    if (t32.thread_rank() == 0) atomicAdd(out, s);
}
extern "C" __global__ void cg_tile_scan(const float* in, float* out) {
    auto b = cg::this_thread_block();
    auto t16 = cg::tiled_partition<16>(b);
    float v = in[b.thread_rank()];
    out[b.thread_rank()] = cg::inclusive_scan(t16, v);
}
extern "C" __global__ void cg_coalesced(int* counter, int* out) {
    int i = threadIdx.x;
    if (i % 3 == 0) {
        auto g = cg::coalesced_threads();
        int base;
        if (g.thread_rank() == 0) base = atomicAdd(counter, g.size());
        base = g.shfl(base, 0);
        out[base + g.thread_rank()] = i;
    }
}
extern "C" __global__ void cg_dynamic_tile(const unsigned* in, unsigned* out) {
    auto b = cg::this_thread_block();
    cg::thread_group t = cg::tiled_partition(b, 8);
    unsigned v = in[b.thread_rank()];
    b.sync();
    t.sync();
    out[b.thread_rank()] = v + t.thread_rank() * 1000 + t.size();
}
extern "C" __global__ void cg_ballot_any(const int* in, unsigned* out) {
    auto t = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[threadIdx.x];
    unsigned bal = t.ballot(v > 0);
    bool any = t.any(v < 0), all = t.all(v != 0);
    if (t.thread_rank() == 0) out[threadIdx.x / 32] = bal ^ (any ? 1u : 0u) ^ (all ? 2u : 0u);
}
