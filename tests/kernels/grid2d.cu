// 2-D (and 3-D) grid indexing.

// Naive transpose of a w x h row-major matrix into an h x w one.
extern "C" __global__ void transpose(const float* in, float* out, unsigned w, unsigned h) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

// Tiled transpose through shared memory (16x16 tiles, padded), block (16, 16).
#define TILE 16
extern "C" __global__ void transpose_tiled(const float* in, float* out, unsigned w, unsigned h) {
    __shared__ float tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;   // column in the output (h wide)
    y = blockIdx.x * TILE + threadIdx.y;   // row in the output (w tall)
    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

// c = a + b on a w x h i32 matrix stored with a row pitch (in elements) >= w; elements
// in the padding are left alone.
extern "C" __global__ void add2d(const int* a, const int* b, int* c, unsigned w, unsigned h, unsigned pitch) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned k = y * pitch + x;
    c[k] = a[k] + b[k];
}

#ifndef PTXJIT_HOST_CHECK  // hostcheck/ supplies its own laneid()
static __device__ __forceinline__ unsigned laneid() {
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
#endif

// Every special register of a 3-D launch: 16 u32 per thread, at the thread's linear
// index (blocks in x-major order, threads in x-major order within a block).
extern "C" __global__ void sregs(unsigned* out) {
    unsigned bid = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned tpb = blockDim.x * blockDim.y * blockDim.z;
    unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned g = bid * tpb + tid;
    unsigned lane = laneid();
    uint4* o = reinterpret_cast<uint4*>(out) + 4 * g;
    o[0] = make_uint4(threadIdx.x, threadIdx.y, threadIdx.z, lane);
    o[1] = make_uint4(blockDim.x, blockDim.y, blockDim.z, tid);
    o[2] = make_uint4(blockIdx.x, blockIdx.y, blockIdx.z, bid);
    o[3] = make_uint4(gridDim.x, gridDim.y, gridDim.z, g);
}
