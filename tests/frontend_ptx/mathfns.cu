// libdevice math (NVRTC only): many instruction kinds, some not supported yet.
extern "C" __global__ void mathfns(float *f, double *d) {
    int i = threadIdx.x;
    f[i] = sqrtf(f[i]) + f[i] / f[i + 1] + fminf(f[i], 2.0f) + fabsf(f[i + 2]);
    d[i] = d[i] / d[i + 1] + fma(d[i], 2.0, 1.0);
}
extern "C" __global__ void transcendental(float *f) { f[threadIdx.x] = sinf(f[threadIdx.x]); }
