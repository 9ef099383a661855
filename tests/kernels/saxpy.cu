// y = a*x + y, single rounding (fma.rn.f32), guarded for ragged sizes.
extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

// y = a*x + y with two roundings (mul.rn.f32 then add.rn.f32: never contracted).
extern "C" __global__ void saxpy_mul_add(unsigned n, float a, const float* x, float* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

// f64 version with fma.rn.f64.
extern "C" __global__ void daxpy(unsigned n, double a, const double* x, double* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fma(a, x[i], y[i]);
}
