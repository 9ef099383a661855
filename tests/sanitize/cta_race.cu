// racecheck across CTAs on global memory (tests/sanitize_more.rs): CTAs of one launch
// run concurrently on a GPU, so two CTAs touching the same global bytes with a plain
// write race unless an atomic orders them. Compiled with NVRTC by regen.sh.

extern "C" {

// Bug: thread 0 of every block writes the same slot (write-after-write between CTAs).
__global__ void cta_same_slot(int *out) {
    if (threadIdx.x == 0) out[0] = blockIdx.x;
}

// Bug: block i reads buf[i + 1], which block i + 1 writes (write-after-read).
__global__ void cta_read_neighbour(int *buf, int *out) {
    if (threadIdx.x != 0) return;
    int i = blockIdx.x;
    out[i] = buf[i + 1];
    buf[i] = i;
}

// Correct: disjoint writes.
__global__ void cta_disjoint(int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i * 3;
}

// Correct: every thread of every block adds into one counter atomically.
__global__ void cta_atomic_count(int *count) {
    atomicAdd(count, 1);
}

// Correct: the "last block" reduction (threadFenceReduction): each block publishes a
// partial result, fences, and counts itself in atomically; the block that counts last
// reads all partials.
__global__ void cta_last_block(int *partial, unsigned *count, int *result) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = blockIdx.x + 1;
        __threadfence();
        unsigned t = atomicAdd(count, 1u);
        last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int s = 0;
        for (unsigned i = 0; i < gridDim.x; i++) s += ((volatile int *)partial)[i];
        *result = s;
    }
}

}
