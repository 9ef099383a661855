// archs: 52 61 70 80 90
// Matrix multiply: naive, shared-memory tiled (matrixMul sample), register-blocked, dgemm.
#define TS 16
extern "C" __global__ void mm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
}
extern "C" __global__ void mm_tiled(const float* A, const float* B, float* C, int wA, int wB) {
    __shared__ float As[TS][TS], Bs[TS][TS];
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    float s = 0.0f;
    for (int a = wA * TS * by, b = TS * bx; a <= wA * TS * by + wA - 1; a += TS, b += TS * wB) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k) s += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[wB * TS * by + TS * bx + wB * ty + tx] = s;
}
extern "C" __global__ void mm_reg4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    int r = (blockIdx.y * blockDim.y + threadIdx.y) * 4, c = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; k++) {
        float b = __ldg(&B[k * n + c]);
#pragma unroll
        for (int i = 0; i < 4; i++) acc[i] = fmaf(A[(r + i) * n + k], b, acc[i]);
    }
#pragma unroll
    for (int i = 0; i < 4; i++) C[(r + i) * n + c] = acc[i];
}
extern "C" __global__ void dgemm_tiled(const double* A, const double* B, double* C, int n, double alpha, double beta) {
    __shared__ double As[TS][TS], Bs[TS][TS];
    int r = blockIdx.y * TS + threadIdx.y, c = blockIdx.x * TS + threadIdx.x;
    double s = 0;
    for (int t = 0; t < n; t += TS) {
        As[threadIdx.y][threadIdx.x] = A[r * n + t + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < TS; k++) s += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = alpha * s + beta * C[r * n + c];
}
