// Warp collectives (tests/warp.rs): shuffles in every mode with widths, votes, ballots,
// match, activemask and __syncwarp, uniform and under divergence.
#ifdef __CUDACC_RTC__
#define __match_any_sync64(m, v) __match_any_sync((m), (v))
#endif

// Per-warp sum with shfl.down (lane 0 writes) and all-lanes max with shfl.bfly.
extern "C" __global__ void warp_reduce(const unsigned* in, unsigned* sums, unsigned* maxs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0;
    unsigned s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    unsigned m = v;
    for (int o = 16; o > 0; o >>= 1) {
        unsigned t = __shfl_xor_sync(0xffffffffu, m, o);
        m = t > m ? t : m;
    }
    if ((threadIdx.x & 31) == 0) sums[i / 32] = s;
    if (i < n) maxs[i] = m;
}

// Inclusive scan in segments of 8 lanes with shfl.up, and a broadcast of element 3 of
// each segment with shfl.idx.
extern "C" __global__ void seg_scan(const unsigned* in, unsigned* out, unsigned* bcast) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned v = in[i];
    for (unsigned o = 1; o < 8; o <<= 1) {
        unsigned t = __shfl_up_sync(0xffffffffu, v, o, 8);
        if ((lane & 7) >= o) v += t;
    }
    out[i] = v;
    bcast[i] = __shfl_sync(0xffffffffu, in[i], 3, 8);
}

// Stream compaction of the positive values of each warp with a ballot.
extern "C" __global__ void compact(const int* in, int* out, unsigned* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int warp = i / 32;
    int v = in[i];
    bool keep = v > 0;
    unsigned b = __ballot_sync(0xffffffffu, keep);
    unsigned pos = __popc(b & ((1u << lane) - 1));
    if (keep) out[warp * 32 + pos] = v;
    if (lane == 0) count[warp] = __popc(b);
}

// Collectives inside a divergent branch, over the lanes that took it.
extern "C" __global__ void diverge(const unsigned* in, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned r0, r1, r2, r3;
    if (v & 1) {
        unsigned m = __activemask();
        r0 = m;
        r1 = __ballot_sync(m, v & 2);
        r2 = __all_sync(m, v & 4) | (__any_sync(m, v & 8) << 1) | (__uni_sync(m, v & 16) << 2);
        r3 = __shfl_sync(m, v, __clz(__brev(m)), 32);  // from the lowest lane of the branch
    } else {
        unsigned m = __activemask();
        __syncwarp(m);
        r0 = m ^ 0xffffffffu;
        r1 = __ballot_sync(m, v & 4);
        r2 = 7;
        unsigned t = __shfl_down_sync(m, v, 1);
        // Only a source lane inside the branch is defined.
        unsigned lane = threadIdx.x & 31;
        r3 = lane < 31 && (m >> (lane + 1) & 1) ? t : 0xdeadu;
    }
    out[4 * i] = r0;
    out[4 * i + 1] = r1;
    out[4 * i + 2] = r2;
    out[4 * i + 3] = r3;
}

// match.any on 32- and 64-bit keys, match.all.
extern "C" __global__ void match(const unsigned* in, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned long long w = ((unsigned long long)(v & 3) << 40) | (v >> 2 & 1);
    int pred = 0;
    out[4 * i] = __match_any_sync(0xffffffffu, v);
    out[4 * i + 1] = __match_any_sync64(0xffffffffu, w);
    out[4 * i + 2] = __match_all_sync(0xffffffffu, v & 0x100, &pred);
    out[4 * i + 3] = pred;
}
