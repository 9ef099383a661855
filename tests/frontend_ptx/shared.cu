// Static and dynamic shared memory, barriers, a loop: block-wide sum.
// clang: yes
__shared__ float tile[256];
extern __shared__ float dyn[];
extern "C" __global__ void block_sum(const float *in, float *out, int n) {
    __shared__ int count;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : 0.0f;
    dyn[t] = tile[t] * 2.0f;
    if (t == 0) count = 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) { out[blockIdx.x] = tile[0] + dyn[1] + (float)count; }
}
