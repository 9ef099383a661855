// archs: 52 70 86
// Non-inlined device functions, recursion, function pointers, structs by value, local
// arrays with dynamic indexing, 64-bit integer arithmetic, switch tables.
struct Vec3 { float x, y, z; };
__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
typedef float (*op_t)(float, float);
__device__ float op_add(float a, float b) { return a + b; }
__device__ float op_mul(float a, float b) { return a * b; }
__device__ float op_max(float a, float b) { return fmaxf(a, b); }
__device__ op_t ops[3] = {op_add, op_mul, op_max};
extern "C" __global__ void k_cross(const Vec3* a, const Vec3* b, Vec3* c) { int i = threadIdx.x; c[i] = cross(a[i], b[i]); }
extern "C" __global__ void k_fib(unsigned* o) { o[threadIdx.x] = fib(threadIdx.x % 12); }
extern "C" __global__ void k_fptr(const float* a, const float* b, float* c, const int* sel) {
    int i = threadIdx.x;
    c[i] = ops[sel[i] % 3](a[i], b[i]);
}
extern "C" __global__ void k_local(const int* idx, int* o) {
    int loc[32];
    for (int i = 0; i < 32; i++) loc[i] = i * i ^ threadIdx.x;
    o[threadIdx.x] = loc[idx[threadIdx.x] & 31] + loc[(idx[threadIdx.x] >> 5) & 31];
}
extern "C" __global__ void k_i64(const long long* a, const long long* b, long long* o) {
    int i = threadIdx.x;
    long long x = a[i], y = b[i] | 1;
    o[i] = x / y + x % y + (x >> 7) + ((unsigned long long)x >> 9) + x * y + __mul64hi(x, y);
}
extern "C" __global__ void k_switch(const int* in, int* out) {
    int v = in[threadIdx.x], r;
    switch (v & 7) {
        case 0: r = v * 3; break; case 1: r = v - 11; break; case 2: r = v ^ 0x55; break;
        case 3: r = v << 2; break; case 4: r = -v; break; case 5: r = v / 3; break;
        case 6: r = v % 5; break; default: r = 0;
    }
    out[threadIdx.x] = r;
}
