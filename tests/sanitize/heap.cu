// Deliberately buggy kernels of the device heap (`malloc`/`free` in kernels), each the
// smallest form of a real CUDA bug, for tests/sanitize_heap.rs. Compiled with NVRTC by
// tests/sanitize/regen.sh. Every kernel stores its block pointers to `keep` first, so
// the test can check the reported addresses; `n`/`idx` come from the launch so the
// compiler keeps the accesses as written.

extern "C" {

// memcheck: a loop bound of `<= n` writes one int past a block of n ints.
__global__ void heap_overflow(int **keep, int n) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(n * sizeof(int));
    keep[0] = p;
    for (int i = 0; i <= n; i++) p[i] = i;
    free(p);
}

// memcheck: two 16-byte blocks; p[idx] with idx = 4 is the first int after p, where the
// next block would start without memcheck's guard.
__global__ void heap_overflow_next(int **keep, int idx) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(16);
    int *q = (int *)malloc(16);
    keep[0] = p;
    keep[1] = q;
    p[idx] = 1;
    free(p);
    free(q);
}

// memcheck: reads a block after freeing it.
__global__ void heap_use_after_free(int **keep, int *out, int idx) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(16);
    keep[0] = p;
    p[idx] = 7;
    free(p);
    out[0] = ((volatile int *)p)[idx];
}

// memcheck: the same block freed twice.
__global__ void heap_double_free(int **keep) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(16);
    keep[0] = p;
    free(p);
    free(keep[0]);
}

// memcheck: free of a pointer into the middle of a block.
__global__ void heap_free_interior(int **keep, int idx) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(16);
    keep[0] = p;
    free(p + idx);
}

// memcheck: thread 1 allocates a block and never frees it (a leak at device destruction).
__global__ void heap_leak(int **keep, int n) {
    if (threadIdx.x != 1) return;
    int *p = (int *)malloc(n);
    p[0] = 1;
    keep[0] = p;
}

// Frees the block heap_leak left (the test's cleanup).
__global__ void heap_free_kept(int **keep) {
    if (threadIdx.x == 0) free(keep[0]);
}

// initcheck: sums a block of which only the first element was written.
__global__ void heap_uninit(int **keep, int *out, int n) {
    if (threadIdx.x != 0) return;
    int *p = (int *)malloc(n * sizeof(int));
    keep[0] = p;
    p[0] = 1;
    int s = 0;
    for (int i = 0; i < n; i++) s += ((volatile int *)p)[i];
    out[0] = s;
    free(p);
}

// Correct: every thread allocates, fills, sums and frees its own block (clean under
// memcheck and initcheck).
__global__ void heap_clean(int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (!p) { out[t] = -1; return; }
    for (int i = 0; i < n; i++) p[i] = t + i;
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    out[t] = s;
    free(p);
}

}
