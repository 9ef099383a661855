// archs: 60 70 80 90
// cccl
// cuda_fp16.h and cuda_bf16.h: scalar and paired arithmetic, conversions, comparisons,
// half2 dot products, hfma, bf16 math.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void h_axpy(const __half* x, __half* y, __half a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}
extern "C" __global__ void h2_dot(const __half2* a, const __half2* b, float* out, int n) {
    __half2 acc = __float2half2_rn(0.0f);
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc = __hfma2(a[i], b[i], acc);
    float s = __low2float(acc) + __high2float(acc);
    atomicAdd(out, s);
}
extern "C" __global__ void h_conv(const float* f, __half* h, float* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half v = __float2half_rn(f[i]);
    h[i] = __hlt(v, __float2half(0.0f)) ? __hneg(v) : v;
    back[i] = __half2float(__hmul(v, v)) + __half2float(__float2half_rz(f[i]));
}
extern "C" __global__ void bf16_ops(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = a[i], y = b[i];
    c[i] = __hmax(__hadd(x, y), __hmul(x, y));
    f[i] = __bfloat162float(x) - __bfloat162float(y);
}
extern "C" __global__ void bf162_relu(__nv_bfloat162* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = __hmax2(v[i], __float2bfloat162_rn(0.0f));
}
extern "C" __global__ void h_math(const __half* a, __half* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = hsqrt(__habs(a[i])) + hexp(a[i]) + __float2half((float)__half2int_rn(a[i]));
}
