// Device-side malloc/free, trap and brkpt (tests/heap.rs). Behaviour follows an H100
// (tests/golden/misc_run/probe.out): 16-byte aligned blocks, NULL when the heap is full,
// free(NULL) a no-op, a double free or `trap`/`brkpt` fails the launch.
#ifdef __clang__
typedef unsigned long size_t;
extern "C" __device__ void *malloc(size_t);
extern "C" __device__ void free(void *);
#endif

// Each thread allocates `n` ints, fills them with tid*1000+i, sums them, and frees the
// block; out[tid] is the sum, or -1 when malloc returned NULL. flags[tid] is the pointer's
// remainder modulo 16 (the GPU aligns blocks to 16 bytes).
extern "C" __global__ void fill_sum(int *out, int *flags, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (!p) {
        out[t] = -1;
        return;
    }
    flags[t] = (int)((unsigned long long)p % 16);
    for (int i = 0; i < n; i++) p[i] = t * 1000 + i;
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    out[t] = s;
    free(p);
    free(0);
}

// A linked list built by thread 0 of each block in blocks of the heap, walked by
// another thread after a barrier: blocks outlive the thread that allocated them.
struct Node { int v; Node *next; };
extern "C" __global__ void list(int *out, int n) {
    __shared__ Node *head;
    if (threadIdx.x == 0) {
        Node *h = 0;
        for (int i = 0; i < n; i++) {
            Node *x = (Node *)malloc(sizeof(Node));
            if (!x) break;
            x->v = i * i;
            x->next = h;
            h = x;
        }
        head = h;
    }
    __syncthreads();
    if (threadIdx.x == 1) {
        int s = 0;
        Node *h = head;
        while (h) { Node *nx = h->next; s += h->v; free(h); h = nx; }
        out[blockIdx.x] = s;
    }
}

// One allocation of `bytes` (the heap limit or half of it): out[0] = 1 when non-NULL.
// The pointer goes through a volatile variable so that the compiler cannot assume
// malloc succeeded and drop the pair (LLVM does).
extern "C" __global__ void one(int *out, unsigned long long bytes) {
    void *volatile p = malloc(bytes);
    out[0] = p != 0;
    free(p);
}

extern "C" __global__ void double_free(int *out) {
    void *volatile p = malloc(16);
    free(p);
    free(p);
    out[0] = 7;
}

extern "C" __global__ void trap_at(int *out, int bad) {
    if (threadIdx.x == bad) asm volatile("trap;");
    out[threadIdx.x] = 1;
}

extern "C" __global__ void brkpt_at(int *out, int bad) {
    if (threadIdx.x == bad) asm volatile("brkpt;");
    asm volatile("pmevent 1;");
    out[threadIdx.x] = 2;
}
