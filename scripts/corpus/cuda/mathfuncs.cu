// archs: 52 70 80 90
// CUDA math library (libdevice): transcendental, special, rounding, integer intrinsics.
extern "C" __global__ void fmath(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = sinf(v) + cosf(v) * expf(-v * v) + logf(1.0f + fabsf(v)) + tanhf(v) + erff(v) + powf(fabsf(v), 1.5f) + cbrtf(v) + atan2f(v, 1.0f); }
}
extern "C" __global__ void dmath(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { double v = x[i]; y[i] = sin(v) + exp(v) * log1p(fabs(v)) + sqrt(fabs(v)) + lgamma(v + 2.0) + fmod(v, 0.7) + hypot(v, 2.0); }
}
extern "C" __global__ void intrin(const unsigned* a, const unsigned long long* b, unsigned* o) {
    int i = threadIdx.x;
    unsigned v = a[i]; unsigned long long w = b[i];
    o[i] = __popc(v) + __clz(v) + __ffs(v) + __brev(v) + __popcll(w) + __clzll(w) + __umulhi(v, 0x9e3779b9u) + __byte_perm(v, v >> 3, 0x3210 ^ i) + __funnelshift_l(v, (unsigned)w, i) + __sad(v, (unsigned)w, 7u);
}
extern "C" __global__ void rounding(const float* x, int* a, long long* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = __float2int_rn(x[i]) + __float2int_rz(x[i]) + lrintf(x[i]) + (int)roundf(x[i]);
    b[i] = __float2ll_rd(x[i]) + llrintf(x[i] * 1e6f);
    c[i] = __fmaf_rz(x[i], 3.0f, 1.0f) + __fsqrt_rd(fabsf(x[i])) + __frcp_ru(x[i]) + __saturatef(x[i]) + rintf(x[i]) + truncf(x[i]) + nearbyintf(x[i]);
}
extern "C" __global__ void sincos_table(float* s, float* c, double* ds, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = i * 0.01f; double y = i * 1e-3;
    sincosf(x, &s[i], &c[i]);
    ds[i] = sinpi(y) + cospi(y) + rsqrt(y + 1.0) + erfcinv(0.5 + y * 1e-3) + normcdf(y);
}
