// archs: 70 89 90
// cccl
// cuda_fp8.h: e4m3 and e5m2 conversions (hardware cvt on sm_89+, emulated below).
#include <cuda_fp8.h>
extern "C" __global__ void fp8_quant(const float* x, __nv_fp8_e4m3* q, float* deq, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_fp8_e4m3 v(x[i] * scale);
    q[i] = v;
    deq[i] = float(v) / scale;
}
extern "C" __global__ void fp8_e5m2_pair(const float2* x, __nv_fp8x2_e5m2* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = __nv_fp8x2_e5m2(x[i]);
}
extern "C" __global__ void fp8_raw(const unsigned char* r, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half_raw h = __nv_cvt_fp8_to_halfraw(r[i], __NV_E4M3);
    f[i] = __half2float(__half(h)) + (float)__nv_cvt_float_to_fp8(f[i], __NV_SATFINITE, __NV_E5M2);
}
