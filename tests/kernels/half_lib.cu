// cuda_fp16.h as applications use it: __half2 arithmetic through the header's inline
// PTX (scoped .reg blocks, mov.b32 packing, fma.rn.f16x2, ...) and conversions.
// tests/half_lib.rs checks every result against the `half` crate with the rounding
// done once in f64 (exact for sums and products of halves).
//
// NVRTC only (needs the CUDA runtime and CCCL headers: see regen.sh).
#include <cuda_fp16.h>

// Per element 7 half2 results: fma, mul, add, sub, neg+abs, round-trip through
// float, the lower and upper lanes swapped and max'ed.
extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, const __half2* c,
                                     __half2* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i], z = c[i];
    o[7 * i] = __hfma2(x, y, z);
    o[7 * i + 1] = __hmul2(x, y);
    o[7 * i + 2] = __hadd2(x, y);
    o[7 * i + 3] = __hsub2(x, y);
    o[7 * i + 4] = __habs2(__hneg2(x));
    o[7 * i + 5] = __floats2half2_rn(__low2float(x) * 3.0f, __high2float(y) + 1.0f);
    o[7 * i + 6] = __hmax2(__lowhigh2highlow(x), y);
}

// Conversions: float -> half in the four rounding modes, half -> int (rz) and
// int -> half (rn), half compare as 0/1.
extern "C" __global__ void half_cvt(const float* f, const __half* h, unsigned short* o,
                                    int* oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = f[i];
    o[6 * i] = __half_as_ushort(__float2half_rn(v));
    o[6 * i + 1] = __half_as_ushort(__float2half_rz(v));
    o[6 * i + 2] = __half_as_ushort(__float2half_rd(v));
    o[6 * i + 3] = __half_as_ushort(__float2half_ru(v));
    o[6 * i + 4] = __half_as_ushort(__int2half_rn((int)v));
    o[6 * i + 5] = (unsigned short)__hlt(h[i], __float2half_rn(v));
    oi[i] = __half2int_rz(h[i]);
}
