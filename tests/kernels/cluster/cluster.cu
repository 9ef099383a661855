// Thread block cluster kernels (sm_90) written against cooperative groups'
// cluster API: distributed shared memory (map_shared_rank), cluster.sync(), the
// cluster's rank and shape, a compile-time cluster shape (__cluster_dims__) and one set
// at launch. tests/cluster.rs checks every output against a Rust reference.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// The CUDA C++ Programming Guide's distributed-shared-memory histogram: each CTA of a
// cluster owns bins_per_cta bins in its shared memory; every thread adds its inputs to
// the owning CTA's bin through map_shared_rank, then the CTAs add their bins to the
// global histogram. Cluster shape set at launch; dynamic shared memory holds the bins.
extern "C" __global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block,
                                              const int *__restrict__ input, size_t array_size)
{
    extern __shared__ int smem[];
    namespace cg = cooperative_groups;
    int tid = cg::this_grid().thread_rank();

    cg::cluster_group cluster = cg::this_cluster();
    unsigned int clusterBlockRank = cluster.block_rank();
    int cluster_size = cluster.dim_blocks().x;

    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        smem[i] = 0;
    // Every block's shared memory is initialised and running before any is written.
    cluster.sync();

    for (int i = tid; i < array_size; i += blockDim.x * gridDim.x) {
        int ldata = input[i];
        int binid = ldata;
        if (ldata < 0)
            binid = 0;
        else if (ldata >= nbins)
            binid = nbins - 1;
        int dst_block_rank = (int)(binid / bins_per_block);
        int dst_offset = binid % bins_per_block;
        int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
        atomicAdd(dst_smem + dst_offset, 1);
    }
    // Every block's updates are done before a block reads its bins (and no block's
    // shared memory goes away while others may still write it).
    cluster.sync();

    int *lbins = bins + cluster.block_rank() * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        atomicAdd(&lbins[i], smem[i]);
}

// Cluster-wide sum: each block reduces its slice in shared memory; after cluster.sync()
// rank 0 reads every block's partial sum from its shared memory and writes the
// cluster's total; a second sync keeps the other blocks alive until it has read.
extern "C" __global__ void __cluster_dims__(4, 1, 1)
cluster_sum(const unsigned *in, unsigned *out)
{
    __shared__ unsigned part[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && t < cluster.num_blocks()) {
        unsigned *remote = cluster.map_shared_rank(part, t);
        atomicAdd(&out[blockIdx.x / cluster.num_blocks()], remote[0]);
    }
    cluster.sync();
}

// Ring exchange in a 2-D cluster: each block writes its own values into the next
// rank's shared memory (generic stores through map_shared_rank), syncs, and reads what
// the previous rank wrote; also records the cluster registers.
extern "C" __global__ void ring(unsigned *out, unsigned *info)
{
    __shared__ unsigned box[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned n = cluster.num_blocks();
    unsigned *next = cluster.map_shared_rank(box, (rank + 1) % n);
    unsigned t = threadIdx.x;
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    cluster.sync();
    next[t] = block * 1000 + t;
    cluster.sync();
    out[block * blockDim.x + t] = box[t];
    if (t == 0) {
        dim3 ci = cluster.block_index();
        dim3 cd = cluster.dim_blocks();
        unsigned *r = info + block * 8;
        r[0] = rank;
        r[1] = n;
        r[2] = ci.x;
        r[3] = ci.y;
        r[4] = cd.x;
        r[5] = cd.y;
        r[6] = (unsigned)cluster.query_shared_rank(next);
        r[7] = (unsigned)cluster.query_shared_rank(box);
    }
    cluster.sync();
}
