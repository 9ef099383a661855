// nvrtc: -G
// Debug build: .file/.loc directives and .section .debug_* blocks.
extern "C" __global__ void vecadd_debug(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
