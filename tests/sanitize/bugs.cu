// Deliberately buggy kernels, each the smallest form of a real CUDA bug, for the
// sanitizer tests (tests/sanitize.rs). Compiled with NVRTC by tests/sanitize/regen.sh.
// Launch shapes and expected findings are in tests/sanitize.rs.

extern "C" {

// memcheck: off-by-one read of the next element (reads in[n] for the last thread).
__global__ void oob_next_elem(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + in[i + 1];
}

// memcheck: `<=` bound lets thread n write one element past the end.
__global__ void oob_le_bound(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 1.0f;
}

// memcheck: a 2D index with the wrong row length (height used for width).
__global__ void oob_2d_index(float *out, int w, int h) {
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) out[y * h + x] = 2.0f;
}

// memcheck: the host frees the input before the launch (use after free).
__global__ void read_input(const int *in, int *out) {
    int i = threadIdx.x;
    out[i] = in[i];
}

// memcheck: a byte buffer reinterpreted as int at an odd offset.
__global__ void misaligned_cast(const char *bytes, int *out) {
    out[threadIdx.x] = *(const int *)(bytes + 1 + 4 * threadIdx.x);
}

// memcheck: an index into a local array taken from data (stack overflow).
__global__ void local_index(const int *idx, int *out) {
    int a[8];
    for (int k = 0; k < 8; k++) a[k] = k * threadIdx.x;
    out[threadIdx.x] = a[idx[threadIdx.x]];
}

// memcheck: dynamic shared memory sized for one element per thread, indexed by 2*tid.
__global__ void shared_too_small(const float *in, float *out) {
    extern __shared__ float buf[];
    buf[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}

// initcheck: a __shared__ accumulator that no thread zeroes.
__global__ void shared_acc_uninit(const float *in, float *out) {
    __shared__ float acc;
    atomicAdd(&acc, in[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = acc;
}

// initcheck: reads a cuMemAlloc buffer that nothing wrote (the host forgot the copy).
__global__ void scale(const float *in, float *out, float s) {
    out[threadIdx.x] = in[threadIdx.x] * s;
}

// initcheck: half the threads load the tile, all threads read it.
__global__ void partial_tile_load(const float *in, float *out) {
    __shared__ float tile[64];
    if (threadIdx.x < 32) tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

// initcheck: a local array filled only for k < n, read at k = n.
__global__ void local_partial_init(const int *n, const int *k, int *out) {
    int a[16];
    for (int i = 0; i < n[threadIdx.x]; i++) a[i] = i;
    out[threadIdx.x] = a[k[threadIdx.x]];
}

// initcheck: a reduction that reads the padding of a power-of-two shared array.
__global__ void reduce_reads_padding(const float *in, float *out, int n) {
    __shared__ float s[64];
    if (threadIdx.x < n) s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    for (int st = 32; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = s[0];
}

// racecheck: a shared-memory tree reduction without __syncthreads in the loop.
__global__ void reduce_no_sync(const float *in, float *out) {
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    for (int st = 64; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    }
    if (threadIdx.x == 0) out[0] = s[0];
}

// racecheck: the classic warp-synchronous last-warp reduction without __syncwarp
// (correct only under lock-step execution, not under independent thread scheduling).
__global__ void warp_reduce_no_syncwarp(const float *in, float *out) {
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < 32) {
        volatile float *v = s;
        v[threadIdx.x] += v[threadIdx.x + 32];
        v[threadIdx.x] += v[threadIdx.x + 16];
        v[threadIdx.x] += v[threadIdx.x + 8];
        v[threadIdx.x] += v[threadIdx.x + 4];
        v[threadIdx.x] += v[threadIdx.x + 2];
        v[threadIdx.x] += v[threadIdx.x + 1];
    }
    if (threadIdx.x == 0) out[0] = s[0];
}

// racecheck: tiled GEMM whose k loop lacks the trailing __syncthreads, so the next
// tile overwrites the shared tiles while other threads still read them.
#define T 8
__global__ void gemm_no_trailing_sync(const float *a, const float *b, float *c, int n) {
    __shared__ float as[T][T], bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        as[ty][tx] = a[row * n + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++) acc += as[ty][k] * bs[k][tx];
    }
    c[row * n + col] = acc;
}

// racecheck: neighbour exchange through shared memory without a barrier.
__global__ void neighbour_no_sync(const float *in, float *out) {
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

// racecheck: every thread stores its id to one shared flag.
__global__ void shared_flag_waw(int *out) {
    __shared__ int last;
    last = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = last;
}

// racecheck: a shared histogram incremented without atomics.
__global__ void histogram_no_atomic(const int *in, int *out) {
    __shared__ int h[4];
    if (threadIdx.x < 4) h[threadIdx.x] = 0;
    __syncthreads();
    h[in[threadIdx.x] & 3]++;
    __syncthreads();
    if (threadIdx.x < 4) out[threadIdx.x] = h[threadIdx.x];
}

// racecheck: a global accumulator updated without atomics by the threads of a block.
__global__ void global_sum_no_atomic(const int *in, int *sum) {
    *sum += in[threadIdx.x];
}

// racecheck: a transpose through a shared tile without a barrier.
__global__ void transpose_no_sync(const float *in, float *out) {
    __shared__ float tile[16][17];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 16 + x];
    out[y * 16 + x] = tile[x][y];
}

// racecheck: a shared counter reused for a second phase: thread 0 resets it without a
// barrier after the first phase, while the other threads already add to it atomically.
__global__ void counter_reset_no_sync(const int *flags, int *out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    if (flags[threadIdx.x]) atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[0] = count;
        count = 0;
    }
    if (flags[threadIdx.x + 64]) atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[1] = count;
}

// synccheck: __syncthreads in both branches of a divergent if.
__global__ void syncthreads_if_else(float *out) {
    __shared__ float s[64];
    if (threadIdx.x < 16) {
        s[threadIdx.x] = 1.0f;
        __syncthreads();
    } else {
        s[threadIdx.x] = 2.0f;
        __syncthreads();
    }
    out[threadIdx.x] = s[63 - threadIdx.x];
}

// synccheck: __syncthreads inside a loop whose trip count differs between threads:
// threads that leave the loop early wait at the barrier after it.
__global__ void sync_in_variable_loop(const int *counts, float *out) {
    __shared__ float s[64];
    float acc = 0.0f;
    for (int i = 0; i < counts[threadIdx.x]; i++) {
        s[threadIdx.x] = acc + i;
        __syncthreads();
        acc += s[63 - threadIdx.x];
    }
    __syncthreads();
    out[threadIdx.x] = acc;
}

// synccheck: __shfl_sync with the full mask inside a divergent branch.
__global__ void shfl_full_mask_divergent(int *out) {
    int v = threadIdx.x;
    if (threadIdx.x < 16) v = __shfl_sync(0xffffffff, v, 0);
    out[threadIdx.x] = v;
}

// synccheck: a ballot whose mask leaves out the upper half of the warp that runs it.
__global__ void ballot_mask_too_small(const int *in, unsigned *out) {
    out[threadIdx.x] = __ballot_sync(0x0000ffff, in[threadIdx.x] > 0);
}

// synccheck: __syncwarp(full mask) in a divergent branch.
__global__ void syncwarp_divergent(int *out) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 8) {
        __syncwarp();
        out[threadIdx.x] = s[threadIdx.x + 8];
    }
}

// synccheck: a warp reduction with the full mask in a block whose last warp is partial.
__global__ void shfl_partial_warp(const float *in, float *out) {
    float v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = v;
}

// synccheck: __reduce_add_sync with a mask that names a lane that returned early.
__global__ void redux_after_return(const int *in, int *out) {
    if (threadIdx.x == 31) return;
    out[threadIdx.x] = __reduce_add_sync(0xffffffff, in[threadIdx.x]);
}

}
