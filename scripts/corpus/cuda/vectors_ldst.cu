// archs: 52 70 80 90
// Vector loads/stores, __ldg, restrict, alignment, char/short types, uneven struct copies,
// dynamic shared memory with offsets, the used_bytes_mask pattern from issue 15.
extern "C" __global__ void v4copy(const float4* __restrict__ a, float4* __restrict__ b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 v = __ldg(&a[i]); b[i] = make_float4(v.w, v.z, v.y, v.x); }
}
extern "C" __global__ void mixed_vec(const float* a, float* out) {
    float4 x = *(const float4*)a;
    float2 y = *(const float2*)(a + 4);
    out[0] = x.x + x.z + y.x + a[6];
}
extern "C" __global__ void short_char(const short* s, const char* c, const unsigned short* us, int* o) {
    int i = threadIdx.x;
    o[i] = s[i] * c[i] + us[i] - (signed char)c[i ^ 1];
}
extern "C" __global__ void int2_double2(const int2* a, const double2* b, double* o) {
    int i = threadIdx.x;
    int2 p = a[i]; double2 q = b[i];
    o[i] = p.x * q.x + p.y * q.y;
}
struct Odd { char c; short s; int i; double d; char tail[3]; };
extern "C" __global__ void struct_copy(const Odd* a, Odd* b) { Odd o = a[threadIdx.x]; o.i += o.c; o.d *= o.s; b[threadIdx.x] = o; }
extern "C" __global__ void dyn_shared(const float* in, float* out) {
    extern __shared__ char sm[];
    float* f = (float*)sm;
    double* d = (double*)(sm + blockDim.x * sizeof(float) + 4 * sizeof(float));
    f[threadIdx.x] = in[threadIdx.x];
    d[threadIdx.x] = in[threadIdx.x] * 2.0;
    __syncthreads();
    out[threadIdx.x] = f[blockDim.x - 1 - threadIdx.x] + (float)d[(threadIdx.x + 1) % blockDim.x];
}
