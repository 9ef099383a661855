// A CUDA C++ warpgroup GEMM tile with inline-asm wgmma (sm_90a), compiled to
// wgmma_nvrtc.ptx by regen.sh (NVRTC, compute_90a). One CTA of 128 threads computes
// D (64 x 64, f32, row-major) = A (64 x K, f16, row-major) * B (K x 64, f16, given
// column-major: b[n * K + k]) + C, K a multiple of 16, with A and B staged in shared
// memory in the 128-byte-swizzle K-major layout (CUTLASS's Swizzle<3,4,3>: the 16-byte
// chunk index of a 128-byte row XORed with the row index mod 8) and one
// wgmma.mma_async.m64n64k16 per 16 columns of K, the descriptor's start address
// advanced by 32 bytes per step. The result goes through the D fragment layout of the
// PTX ISA's figure.
#include <cuda_fp16.h>

#define K_MAX 64

__device__ unsigned long long make_desc(const void *smem) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(smem);
    unsigned long long d = 0;
    d |= (unsigned long long)((addr & 0x3ffff) >> 4);
    d |= (unsigned long long)(16 >> 4) << 16;    // LBO: unused for swizzled K-major
    d |= (unsigned long long)(1024 >> 4) << 32;  // SBO: 8 rows of 128 bytes
    d |= 1ull << 62;                             // 128-byte swizzle
    return d;
}

// Byte offset of element (row, k) of a K-major operand with 64-element (128-byte) rows.
__device__ unsigned swz(unsigned row, unsigned k) {
    unsigned off = row * 128 + k * 2;
    return off ^ (((off >> 7) & 7) << 4);
}

extern "C" __global__ void wgmma_gemm_f16_f32(const __half *a, const __half *b, const float *c,
                                              float *d, int K) {
    __shared__ __align__(1024) unsigned char sa[64 * 128];
    __shared__ __align__(1024) unsigned char sb[64 * 128];
    int tid = threadIdx.x;
    for (int i = tid; i < 64 * K; i += blockDim.x) {
        int r = i / K, k = i % K;
        *(__half *)(sa + swz(r, k)) = a[r * K + k];
        *(__half *)(sb + swz(r, k)) = b[r * K + k];  // B: row r is column n = r
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    float acc[32];
    for (int i = 0; i < 32; i++) {
        int row = 16 * warp + g + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * t + i % 2;
        acc[i] = c[row * 64 + col];
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int k0 = 0; k0 < K; k0 += 16) {
        unsigned long long da = make_desc(sa + 2 * k0), db = make_desc(sb + 2 * k0);
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
            "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, 0;\n}\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]),
              "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]),
              "+f"(acc[10]), "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]),
              "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]),
              "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), "+f"(acc[24]),
              "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]),
              "+f"(acc[30]), "+f"(acc[31])
            : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) {
        int row = 16 * warp + g + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * t + i % 2;
        d[row * 64 + col] = acc[i];
    }
}
