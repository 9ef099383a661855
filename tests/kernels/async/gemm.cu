// A CUTLASS-style GEMM for sm_80: C = A * B (A: M x K, B: K x N, both row-major f16; C:
// row-major f32), block tile 64 x 64 x 32, 4 warps of 32 x 32, a 3-stage cp.async
// pipeline (commit_group / wait_group) feeding shared memory, ldmatrix (x4, x4.trans)
// fragments and mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32. Compiled by NVRTC for
// compute_80 (regen.sh here); tests/async_kernels.rs compares it with a Rust reference.
// M, N multiples of 64, K a multiple of 32.

constexpr int BM = 64, BN = 64, BK = 32, STAGES = 3;

__device__ __forceinline__ unsigned smem(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem(dst)), "l"(src));
}

extern "C" __global__ void __launch_bounds__(128)
gemm(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K) {
    __shared__ alignas(128) unsigned short As[STAGES][BM][BK];
    __shared__ alignas(128) unsigned short Bs[STAGES][BK][BN];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int KT = K / BK;

    // Each thread copies two 16-byte chunks of the A tile and two of the B tile.
    auto load = [&](int stage, int kt) {
        for (int c = t; c < BM * BK / 8; c += 128) {
            int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
            cp16(&As[stage][r][col], A + (size_t)(m0 + r) * K + kt * BK + col);
        }
        for (int c = t; c < BK * BN / 8; c += 128) {
            int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
            cp16(&Bs[stage][r][col], B + (size_t)(kt * BK + r) * N + n0 + col);
        }
    };

    float acc[2][4][4] = {};
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) load(s, s);
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (int kt = 0; kt < KT; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < KT) load(next % STAGES, next);
        asm volatile("cp.async.commit_group;\n" ::);
        const int st = kt % STAGES;
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[2][4], b[4][2];
            for (int mi = 0; mi < 2; ++mi) {
                const unsigned short* p = &As[st][wm * 32 + mi * 16 + lane % 16][kk + (lane / 16) * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
                             : "r"(smem(p)));
            }
            for (int np = 0; np < 2; ++np) {
                const unsigned short* p = &Bs[st][kk + lane % 16][wn * 32 + np * 16 + (lane / 16) * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(b[2 * np][0]), "=r"(b[2 * np][1]), "=r"(b[2 * np + 1][0]),
                               "=r"(b[2 * np + 1][1])
                             : "r"(smem(p)));
            }
            for (int mi = 0; mi < 2; ++mi)
                for (int ni = 0; ni < 4; ++ni) {
                    float* c = acc[mi][ni];
                    asm volatile(
                        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                        : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]),
                          "r"(b[ni][0]), "r"(b[ni][1]));
                }
        }
    }
    asm volatile("cp.async.wait_all;\n" ::);
    const int g = lane / 4, q = lane % 4;
    for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) {
            int row = m0 + wm * 32 + mi * 16 + g, col = n0 + wn * 32 + ni * 8 + q * 2;
            C[(size_t)row * N + col] = acc[mi][ni][0];
            C[(size_t)row * N + col + 1] = acc[mi][ni][1];
            C[(size_t)(row + 8) * N + col] = acc[mi][ni][2];
            C[(size_t)(row + 8) * N + col + 1] = acc[mi][ni][3];
        }
}
