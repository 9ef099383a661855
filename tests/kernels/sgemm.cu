// Tiled single-precision matrix multiply (benches/kernels.rs "sgemm", tests/sgemm.rs):
// C = A * B for n x n row-major matrices, n a multiple of 16. Each CTA of 16 x 16 threads
// computes one 16 x 16 tile of C, staging 16 x 16 tiles of A and B in __shared__ memory.
// Every output is fmaf(a[k], b[k], acc) for k = 0, 1, ..., n-1 in that order (explicit
// fmaf: nothing is left to the compiler's contraction), so a Rust reference with mul_add
// in the same order is bit-identical.
#define TILE 16

extern "C" __global__ void sgemm_tiled(const float* a, const float* b, float* c, int n) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(as[ty][k], bs[k][tx], acc);
        __syncthreads();
    }
    c[row * n + col] = acc;
}
