// Function calls (tests/calls.rs): calls with and without return values, a struct
// argument and a struct return (arrays in .param), per-lane recursion, calls under
// divergence and __syncthreads() inside a called function.
struct Pair { unsigned a, b; };
struct Quad { unsigned v[4]; };

__device__ __noinline__ unsigned sq1(unsigned x) { return x * x + 1u; }
__device__ __noinline__ void store2(unsigned *p, unsigned i, unsigned v) { p[2 * i] = v; p[2 * i + 1] = ~v; }
__device__ __noinline__ Pair divmod(unsigned x, unsigned d) { Pair r; r.a = x >> d; r.b = x & ((1u << d) - 1u); return r; }
__device__ __noinline__ unsigned qsum(Quad q, unsigned k) { return q.v[0] + 2u * q.v[1] + 3u * q.v[2] + k * q.v[3]; }
__device__ __noinline__ unsigned fact(unsigned n) { return n <= 1u ? 1u : n * fact(n - 1u); }
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2u ? n : fib(n - 1u) + fib(n - 2u); }
__device__ __noinline__ unsigned odd_path(unsigned x) {
    if (x & 1u) return sq1(x) ^ 0x55u;
    unsigned s = 0;
    for (unsigned i = 0; i < (x & 7u); ++i) s += sq1(i + x);
    return s;
}

extern "C" __global__ void calls(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    out[8 * i + 0] = sq1(x);
    Pair p = divmod(x, (i & 7u) + 1u);
    out[8 * i + 1] = p.a;
    out[8 * i + 2] = p.b;
    Quad q;
    q.v[0] = x; q.v[1] = x >> 3; q.v[2] = i; q.v[3] = x ^ i;
    out[8 * i + 3] = qsum(q, i & 3u);
    out[8 * i + 4] = fact(x & 15u);
    out[8 * i + 5] = fib(i & 15u);
    out[8 * i + 6] = ((i & 3u) == 0u) ? odd_path(x) : 7u;
    store2(out + 8 * i + 6, 0u, out[8 * i + 6]);
}

__device__ __noinline__ unsigned reverse_in_block(unsigned *buf, unsigned v) {
    buf[threadIdx.x] = v;
    __syncthreads();
    return buf[blockDim.x - 1u - threadIdx.x];
}

extern "C" __global__ void bar_in_call(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = reverse_in_block(buf, in[i] * 3u);
}

typedef unsigned (*binop)(unsigned, unsigned);
__device__ __noinline__ unsigned op_add(unsigned a, unsigned b) { return a + b; }
__device__ __noinline__ unsigned op_mul(unsigned a, unsigned b) { return a * b; }
__device__ __noinline__ unsigned op_sub(unsigned a, unsigned b) { return (a ^ 0x9e3779b9u) - b; }
__device__ binop ops[3] = {op_add, op_mul, op_sub};

// Indirect calls through a function table in .global, a different target per lane.
extern "C" __global__ void fnptr(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = in[i] & 3u;
    binop f = ops[k == 3u ? 0u : k];
    out[i] = f(in[i], i);
}

// Local arrays in recursive callees: each call has its own .local frame.
__device__ __noinline__ unsigned mix_local(unsigned x, unsigned depth) {
    unsigned a[8];
    for (unsigned k = 0; k < 8u; ++k) a[k] = x * (k + 1u) + depth;
    unsigned r = a[((x >> 3) ^ x) & 7u];
    if (depth > 0u) r += mix_local(x ^ a[x & 7u], depth - 1u);
    return r + a[(x + depth) & 7u];
}

extern "C" __global__ void locals(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned b[4];
    for (unsigned k = 0; k < 4u; ++k) b[k] = in[i] + k * 7u;
    unsigned r = mix_local(in[i], i & 7u);
    out[i] = r ^ b[in[i] & 3u];
}
