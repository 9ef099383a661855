// archs: 52 61 70 80 90
// Stencils: 1D with halo in shared memory, 2D 5-point Jacobi, 3D 7-point, convolution rows.
#define R 3
#define BLK 128
__constant__ float coef[2 * R + 1];
extern "C" __global__ void stencil1d(const float* in, float* out, int n) {
    __shared__ float s[BLK + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < R) {
        s[l - R] = g >= R ? in[g - R] : 0.0f;
        s[l + BLK] = g + BLK < n ? in[g + BLK] : 0.0f;
    }
    __syncthreads();
    float r = 0.0f;
    for (int k = -R; k <= R; k++) r += coef[k + R] * s[l + k];
    if (g < n) out[g] = r;
}
extern "C" __global__ void jacobi2d(const float* a, float* b, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
        b[y * nx + x] = 0.25f * (a[y * nx + x - 1] + a[y * nx + x + 1] + a[(y - 1) * nx + x] + a[(y + 1) * nx + x]);
}
extern "C" __global__ void heat3d(const double* __restrict__ a, double* __restrict__ b, int n, double c) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    for (int z = 1; z < n - 1; z++) {
        long i = ((long)z * n + y) * n + x;
        b[i] = a[i] + c * (a[i - 1] + a[i + 1] + a[i - n] + a[i + n] + a[i - (long)n * n] + a[i + (long)n * n] - 6.0 * a[i]);
    }
}
extern "C" __global__ void conv_rows(float* dst, const float* src, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    float s = 0.0f;
#pragma unroll
    for (int k = -R; k <= R; k++) {
        int xx = min(max(x + k, 0), w - 1);
        s += src[y * w + xx] * coef[R - k];
    }
    dst[y * w + x] = s;
}
