// Block-wide inclusive scan of u32 (wrapping sums) with warp shuffles (benches/kernels.rs
// "scan", tests/scan.rs): out[i] = in[b*B] + ... + in[i] within each block of B =
// blockDim.x threads (a multiple of 32, at most 1024); elements past n count as 0.
//   1. each warp scans its 32 values with shfl.up (Hillis-Steele, offsets 1, 2, ..., 16);
//   2. lane 31 of each warp stores the warp's total in shared memory; bar.sync;
//   3. warp 0 scans the warp totals the same way; bar.sync;
//   4. each warp past the first adds the total of the warps before it.
extern "C" __global__ void block_scan(const unsigned* in, unsigned* out, unsigned n) {
    __shared__ unsigned totals[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned warp = threadIdx.x >> 5;
    unsigned v = i < n ? in[i] : 0u;
    for (unsigned o = 1; o < 32; o <<= 1) {
        unsigned t = __shfl_up_sync(0xffffffffu, v, o, 32);
        if (lane >= o) v += t;
    }
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned warps = blockDim.x >> 5;
        unsigned w = lane < warps ? totals[lane] : 0u;
        for (unsigned o = 1; o < 32; o <<= 1) {
            unsigned t = __shfl_up_sync(0xffffffffu, w, o, 32);
            if (lane >= o) w += t;
        }
        if (lane < warps) totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += totals[warp - 1];
    if (i < n) out[i] = v;
}
