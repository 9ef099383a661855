// Host-side prelude: compiles the CUDA kernels of tests/kernels/ as plain C++ so that the
// Rust references of the oracle tests can be cross-checked against the kernels' C
// semantics on the CPU (see run.sh). Each CUDA thread of a CTA runs on its own OS thread;
// __syncthreads() is a std::barrier. Intrinsics follow the CUDA documentation, written
// independently of the Rust helpers in tests/common.
#pragma once
#include <barrier>
#include <cfenv>
#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>
#include <limits>

#define PTXJIT_HOST_CHECK 1
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__
#define __forceinline__ inline

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;
extern thread_local unsigned host_laneid;
extern thread_local std::barrier<>* host_barrier;
void* host_dynamic_shared();

static inline void __syncthreads() { host_barrier->arrive_and_wait(); }
static inline unsigned laneid() { return host_laneid; }

static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

// Float-to-int with a rounding mode: NaN -> 0, out of range -> clamped (PTX cvt).
template <typename I>
static inline I host_f2i(double v) {
    if (std::isnan(v)) return 0;
    if (v <= (double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (v >= (double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)v;
}
static inline int __float2int_rn(float x) { return host_f2i<int>(std::nearbyint((double)x)); }
static inline int __float2int_rd(float x) { return host_f2i<int>(std::floor((double)x)); }
static inline int __float2int_ru(float x) { return host_f2i<int>(std::ceil((double)x)); }
static inline unsigned __float2uint_rn(float x) { return host_f2i<unsigned>(std::nearbyint((double)x)); }

// Round-toward-zero conversions through the FPU's rounding mode (-frounding-math).
static inline float __int2float_rz(int x) {
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    volatile int v = x;
    float r = (float)v;
    fesetround(old);
    return r;
}
static inline float __double2float_rz(double x) {
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    volatile double v = x;
    float r = (float)v;
    fesetround(old);
    return r;
}
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
// fmaf, fminf, fabsf, rintf, ... come from <math.h> (C semantics, current rounding mode).
