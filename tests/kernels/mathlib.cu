// CUDA math library functions (libdevice, linked by NVRTC: NVIDIA's own PTX
// implementations of sinf, expf, powf, erff, lgammaf, ...), fast intrinsics and IEEE
// division. One kernel per function, `m_<name>`, applies it to every element;
// tests/mathlib.rs checks the results against the maximum ulp errors of the CUDA C
// Programming Guide's math appendix with an f64 / libm reference, and special values
// (NaN, infinities, zeros, subnormals) exactly.
//
// NVRTC only (clang with -nocudalib has no libdevice), default -ftz=false
// -prec-div=true -prec-sqrt=true. Generated list: see tests/mathlib.rs.

#define UNARY(name, T) \
    extern "C" __global__ void m_##name(const T* x, T* o, int n) { \
        int i = blockIdx.x * blockDim.x + threadIdx.x; \
        if (i < n) o[i] = name(x[i]); \
    }
#define BINARY(name, T) \
    extern "C" __global__ void m_##name(const T* x, const T* y, T* o, int n) { \
        int i = blockIdx.x * blockDim.x + threadIdx.x; \
        if (i < n) o[i] = name(x[i], y[i]); \
    }

UNARY(sinf, float)
UNARY(cosf, float)
UNARY(tanf, float)
UNARY(expf, float)
UNARY(exp2f, float)
UNARY(exp10f, float)
UNARY(logf, float)
UNARY(log2f, float)
UNARY(log10f, float)
UNARY(log1pf, float)
UNARY(expm1f, float)
UNARY(sqrtf, float)
UNARY(rsqrtf, float)
UNARY(cbrtf, float)
UNARY(erff, float)
UNARY(erfcf, float)
UNARY(tanhf, float)
UNARY(atanf, float)
UNARY(asinf, float)
UNARY(acosf, float)
UNARY(sinhf, float)
UNARY(coshf, float)
UNARY(lgammaf, float)
UNARY(tgammaf, float)
UNARY(__sinf, float)
UNARY(__expf, float)
UNARY(__logf, float)
UNARY(asinhf, float)
UNARY(acoshf, float)
UNARY(atanhf, float)
BINARY(powf, float)
BINARY(atan2f, float)
BINARY(hypotf, float)
BINARY(fmodf, float)
BINARY(remainderf, float)
BINARY(__fdividef, float)
BINARY(fdimf, float)
UNARY(sin, double)
UNARY(cos, double)
UNARY(tan, double)
UNARY(exp, double)
UNARY(exp2, double)
UNARY(log, double)
UNARY(log2, double)
UNARY(log10, double)
UNARY(log1p, double)
UNARY(expm1, double)
UNARY(sqrt, double)
UNARY(rsqrt, double)
UNARY(cbrt, double)
UNARY(erf, double)
UNARY(erfc, double)
UNARY(tanh, double)
UNARY(atan, double)
UNARY(asin, double)
UNARY(acos, double)
UNARY(sinh, double)
UNARY(cosh, double)
UNARY(lgamma, double)
UNARY(tgamma, double)
BINARY(pow, double)
BINARY(atan2, double)
BINARY(hypot, double)
BINARY(fmod, double)

extern "C" __global__ void m_rcpf(const float* x, float* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = 1.0f / x[i];
}
extern "C" __global__ void m_divf(const float* x, const float* y, float* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = x[i] / y[i];
}
extern "C" __global__ void m_rcp(const double* x, double* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = 1.0 / x[i];
}
extern "C" __global__ void m_div(const double* x, const double* y, double* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = x[i] / y[i];
}
