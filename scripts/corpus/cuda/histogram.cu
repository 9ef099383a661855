// archs: 70 75 86 90
// Histograms: global atomics, per-block shared histogram (histogram64/256 samples style).
extern "C" __global__ void hist_global(const unsigned char* d, unsigned* h, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&h[d[i]], 1u);
}
extern "C" __global__ void hist256_shared(const unsigned* d, unsigned* h, int n4) {
    __shared__ unsigned s[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        unsigned v = d[i];
        atomicAdd(&s[v & 255], 1u); atomicAdd(&s[(v >> 8) & 255], 1u);
        atomicAdd(&s[(v >> 16) & 255], 1u); atomicAdd(&s[v >> 24], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) if (s[i]) atomicAdd(&h[i], s[i]);
}
extern "C" __global__ void hist_float_bins(const float* x, int* h, int n, float lo, float hi, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((x[i] - lo) / (hi - lo) * bins);
    b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
    atomicAdd(&h[b], 1);
}
extern "C" __global__ void hist_warp_agg(const unsigned* keys, unsigned* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = keys[i] & 63;
    unsigned peers = __match_any_sync(__activemask(), k);
    int leader = __ffs(peers) - 1;
    if ((threadIdx.x & 31) == leader) atomicAdd(&h[k], __popc(peers));
}
