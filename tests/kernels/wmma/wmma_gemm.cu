// GEMMs with nvcuda::wmma (CUDA C++ warp matrix functions), compiled by NVRTC for
// compute_80 (regen.sh here); tests/wmma_gemm.rs runs them on both ptxjit backends and
// compares with a plain Rust matrix product.
//
// Each warp computes one tile of D = A * B + C (A row-major M x K, B column-major K x N,
// C and D row-major M x N), looping over K with one wmma::mma_sync per step. The grid
// has one warp per tile: blockDim.x = 32 * tiles_per_block.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <typename TA, typename TACC, int TM, int TN, int TK, typename Layout>
__device__ void tile_gemm(const TA* A, const TA* B, const TACC* C, TACC* D, int M, int N, int K,
                          wmma::layout_t cl) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / TN;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * TM >= M) return;
    wmma::fragment<wmma::accumulator, TM, TN, TK, TACC> acc;
    int ldc = cl == wmma::mem_row_major ? N : M;
    const TACC* cp = cl == wmma::mem_row_major ? C + tm * TM * N + tn * TN : C + tn * TN * M + tm * TM;
    wmma::load_matrix_sync(acc, cp, ldc, cl);
    for (int k = 0; k < K; k += TK) {
        wmma::fragment<wmma::matrix_a, TM, TN, TK, Layout, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, TM, TN, TK, Layout, wmma::col_major> b;
        wmma::load_matrix_sync(a, A + tm * TM * K + k, K);
        wmma::load_matrix_sync(b, B + tn * TN * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    TACC* dp = cl == wmma::mem_row_major ? D + tm * TM * N + tn * TN : D + tn * TN * M + tm * TM;
    wmma::store_matrix_sync(dp, acc, ldc, cl);
}

extern "C" __global__ void gemm_f16_f32(const half* A, const half* B, const float* C, float* D,
                                        int M, int N, int K) {
    tile_gemm<half, float, 16, 16, 16, half>(A, B, C, D, M, N, K, wmma::mem_row_major);
}

extern "C" __global__ void gemm_f16_f16_m32n8(const half* A, const half* B, const half* C, half* D,
                                              int M, int N, int K) {
    tile_gemm<half, half, 32, 8, 16, half>(A, B, C, D, M, N, K, wmma::mem_col_major);
}

extern "C" __global__ void gemm_bf16_m8n32(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                           const float* C, float* D, int M, int N, int K) {
    tile_gemm<__nv_bfloat16, float, 8, 32, 16, __nv_bfloat16>(A, B, C, D, M, N, K,
                                                                wmma::mem_row_major);
}

extern "C" __global__ void gemm_tf32(const float* A, const float* B, const float* C, float* D,
                                     int M, int N, int K) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= M) return;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(acc, C + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 8) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);
        for (int i = 0; i < a.num_elements; i++) a.x[i] = wmma::__float_to_tf32(a.x[i]);
        for (int i = 0; i < b.num_elements; i++) b.x[i] = wmma::__float_to_tf32(b.x[i]);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void gemm_f64(const double* A, const double* B, const double* C, double* D,
                                    int M, int N, int K) {
    tile_gemm<double, double, 8, 8, 4, double>(A, B, C, D, M, N, K, wmma::mem_row_major);
}

extern "C" __global__ void gemm_s8(const signed char* A, const signed char* B, const int* C, int* D,
                                   int M, int N, int K) {
    tile_gemm<signed char, int, 16, 16, 16, signed char>(A, B, C, D, M, N, K, wmma::mem_row_major);
}

extern "C" __global__ void gemm_u8(const unsigned char* A, const unsigned char* B, const int* C,
                                   int* D, int M, int N, int K) {
    tile_gemm<unsigned char, int, 16, 16, 16, unsigned char>(A, B, C, D, M, N, K,
                                                              wmma::mem_row_major);
}
