// Kept apart from fconv.cu so that a backend lacking these two conversions still runs
// the fconv kernel.
// Rounding-mode conversions that only have intrinsics: float from int toward zero, float
// from double toward zero. o[2*i] = __int2float_rz(k[i]), o[2*i+1] = __double2float_rz(d[i]).
extern "C" __global__ void fconv_rz(const int* k, const double* d, float* o, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[2 * i] = __int2float_rz(k[i]);
    o[2 * i + 1] = __double2float_rz(d[i]);
}
