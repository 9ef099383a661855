// .local memory (a per-thread array indexed with data-dependent indices, so it cannot
// live in registers) and __constant__ memory with initialisers (scalar and float4).
__constant__ int ctab[16] = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};
__constant__ float4 cvec[2] = {{0.5f, -1.25f, 3.0f, 0.1f}, {-0.0f, 1e-40f, 65504.0f, -2.5f}};

extern "C" __global__ void local_const(const unsigned* idx, int* out, float4* fout, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = idx[i];
    int a[8];
    for (int j = 0; j < 8; j++) a[j] = ctab[(j + k) & 15] * (j + 1);
    a[k & 7] += (int)(k >> 8);                // dynamic store
    int s = 0;
    for (int j = 0; j < 8; j++) s += a[(k + 3 * j) & 7] ^ j;   // dynamic loads
    a[(k * 0x9E3779B1u) >> 29] = s;           // top 3 bits of a hash: shr only
    out[2 * i] = s;
    out[2 * i + 1] = a[k >> 29];

    float4 c = cvec[k & 1];                   // ld.const.v4.f32 with a dynamic index
    float4 r;
    r.x = c.x * (float)(k & 255);
    r.y = c.y + c.z;
    r.z = c.z - c.x;
    r.w = c.w * c.y;
    fout[i] = r;
}
