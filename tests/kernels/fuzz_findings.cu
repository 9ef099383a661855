// Kernels for the kernel-fuzzing harness (tests/fuzz_harness.rs): one per finding class
// (fault, assert, deadlock, time-out, oracle mismatch) and one with divergent branches
// and a callee for the coverage counters.
#define CHECK(e) ((e) ? (void)0 : __assertfail(#e, "fuzz_findings.cu", __LINE__, __func__, 1))

// Fault: reads data[idx] for idx <= n, one element past the end when idx == n.
extern "C" __global__ void peek(const unsigned char* data, unsigned n, unsigned idx, unsigned* out) {
    if (threadIdx.x == 0 && idx <= n) out[0] = data[idx];
}

// Assert: no element is 13.
extern "C" __global__ void no_thirteen(const int* a, unsigned n) {
    unsigned t = threadIdx.x;
    if (t < n) CHECK(a[t] != 13);
}

// Deadlock: with mode == 1, warp 0 waits at barrier 0 and the other warps at barrier 1.
extern "C" __global__ void split_barrier(unsigned mode) {
    if (mode == 1 && threadIdx.x >= 32) {
        asm volatile("bar.sync 1;");
    } else {
        asm volatile("bar.sync 0;");
    }
}

// Time-out: spins for ever when key == 0xdead.
extern "C" __global__ void spin(unsigned key, volatile unsigned* out) {
    unsigned x = 0;
    while (key == 0xdead) out[0] = ++x;
}

// Oracle mismatch: should double every element; a "fast path" for large values
// quadruples them instead.
extern "C" __global__ void twice(const int* in, int* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        out[i] = v > 1000000 ? v << 2 : v * 2;
    }
}

// Coverage: a callee with three outcomes, and divergent branches on its result.
__device__ __noinline__ int sign_of(int v) {
    if (v < 0) return -1;
    if (v == 0) return 0;
    return 1;
}

extern "C" __global__ void branches(const int* in, int* out, unsigned n) {
    unsigned i = threadIdx.x;
    if (i < n) {
        int c = sign_of(in[i]);
        if (c > 0) {
            out[i] = in[i] * 3;
        } else {
            out[i] = c;
        }
    }
}
