// Prelude for compiling the CUDA kernels in this folder with clang without the CUDA SDK
// (`clang -nocudainc -nocudalib -include clang_prelude.h`). NVRTC does not use it: it has
// the CUDA device headers built in. Only what the kernels here need is mapped, always to
// clang builtins that lower to single PTX instructions (there is no libdevice).
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>

// __syncthreads() is a clang builtin in CUDA mode (bar.sync 0).

struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };

#define __umulhi(a, b) __nvvm_mulhi_ui((a), (b))
#define __mulhi(a, b) __nvvm_mulhi_i((a), (b))
#define __umul64hi(a, b) __nvvm_mulhi_ull((a), (b))
#define __float2int_rn(x) __nvvm_f2i_rn(x)
#define __float2int_rd(x) __nvvm_f2i_rm(x)
#define __float2int_ru(x) __nvvm_f2i_rp(x)
#define __float2uint_rn(x) __nvvm_f2ui_rn(x)
#define __double2float_rz(x) __nvvm_d2f_rz(x)
#define fmaf(a, b, c) __builtin_fmaf((a), (b), (c))
#define fma(a, b, c) __builtin_fma((a), (b), (c))
#define fminf(a, b) __builtin_fminf((a), (b))
#define fmaxf(a, b) __builtin_fmaxf((a), (b))
#define fmin(a, b) __builtin_fmin((a), (b))
#define fmax(a, b) __builtin_fmax((a), (b))
#define fabsf(a) __builtin_fabsf(a)
#define fabs(a) __builtin_fabs(a)
#define sqrtf(a) __builtin_sqrtf(a)
#define rintf(a) __builtin_rintf(a)
#define floorf(a) __builtin_floorf(a)
#define ceilf(a) __builtin_ceilf(a)
#define truncf(a) __builtin_truncf(a)
#define rint(a) __builtin_rint(a)
#define floor(a) __builtin_floor(a)
#define __fmul_rn(a, b) __nvvm_mul_rn_f((a), (b))
#define __fadd_rn(a, b) __nvvm_add_rn_f((a), (b))
#define __dmul_rn(a, b) __nvvm_mul_rn_d((a), (b))
#define __dadd_rn(a, b) __nvvm_add_rn_d((a), (b))
static __device__ __forceinline__ uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
    uint4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r;
}
// clang 19 lowers __nvvm_i2f_rz to cvt.rn.f32.s32 (round to nearest, not toward zero),
// so spell the instruction out.
static __device__ __forceinline__ float __int2float_rz(int x) {
    float r;
    asm("cvt.rz.f32.s32 %0, %1;" : "=f"(r) : "r"(x));
    return r;
}

// Warp intrinsics (CUDA's names, with CUDA's `c` operand encoding for the width).
#define __popc(x) __builtin_popcount(x)
#define __brev(x) __builtin_bitreverse32(x)
#define __clz(x) __builtin_clz(x)
#define __shfl_sync(m, v, src, w) __nvvm_shfl_sync_idx_i32((m), (v), (src), ((32 - (w)) << 8) | 0x1f)
#define __shfl_up_sync(m, v, d, w) __nvvm_shfl_sync_up_i32((m), (v), (d), (32 - (w)) << 8)
#define __shfl_down_sync(m, v, d) __nvvm_shfl_sync_down_i32((m), (v), (d), 0x1f)
#define __shfl_xor_sync(m, v, l) __nvvm_shfl_sync_bfly_i32((m), (v), (l), 0x1f)
#define __ballot_sync(m, p) __nvvm_vote_ballot_sync((m), (p))
#define __all_sync(m, p) __nvvm_vote_all_sync((m), (p))
#define __any_sync(m, p) __nvvm_vote_any_sync((m), (p))
#define __uni_sync(m, p) __nvvm_vote_uni_sync((m), (p))
#define __activemask() __nvvm_activemask()
#define __syncwarp(m) __nvvm_bar_warp_sync(m)
#define __match_any_sync(m, v) __nvvm_match_any_sync_i32((m), (v))
#define __match_any_sync64(m, v) __nvvm_match_any_sync_i64((m), (v))
#define __match_all_sync(m, v, p) __nvvm_match_all_sync_i32p((m), (v), (p))

// Atomics (CUDA's overloads, over clang's generic-address builtins).
#define ATOMIC2(name, T, B, C) \
    static __device__ __forceinline__ T name(T* p, T v) { return (T)B((C*)p, (C)v); }
ATOMIC2(atomicAdd, int, __nvvm_atom_add_gen_i, int)
ATOMIC2(atomicAdd, unsigned, __nvvm_atom_add_gen_i, int)
ATOMIC2(atomicAdd, unsigned long long, __nvvm_atom_add_gen_ll, long long)
ATOMIC2(atomicAdd, float, __nvvm_atom_add_gen_f, float)
ATOMIC2(atomicAdd, double, __nvvm_atom_add_gen_d, double)
ATOMIC2(atomicExch, unsigned, __nvvm_atom_xchg_gen_i, int)
ATOMIC2(atomicMin, int, __nvvm_atom_min_gen_i, int)
ATOMIC2(atomicMax, int, __nvvm_atom_max_gen_i, int)
ATOMIC2(atomicMin, unsigned, __nvvm_atom_min_gen_ui, unsigned)
ATOMIC2(atomicMax, unsigned, __nvvm_atom_max_gen_ui, unsigned)
ATOMIC2(atomicMax, long long, __nvvm_atom_max_gen_ll, long long)
ATOMIC2(atomicInc, unsigned, __nvvm_atom_inc_gen_ui, unsigned)
ATOMIC2(atomicDec, unsigned, __nvvm_atom_dec_gen_ui, unsigned)
ATOMIC2(atomicAnd, unsigned, __nvvm_atom_and_gen_i, int)
ATOMIC2(atomicOr, unsigned, __nvvm_atom_or_gen_i, int)
ATOMIC2(atomicXor, unsigned, __nvvm_atom_xor_gen_i, int)
static __device__ __forceinline__ unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) {
    return (unsigned)__nvvm_atom_cas_gen_i((int*)p, (int)c, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicCAS(unsigned long long* p,
                                                               unsigned long long c,
                                                               unsigned long long v) {
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long*)p, (long long)c, (long long)v);
}

// Barrier reductions.
#define __syncthreads_count(p) __nvvm_bar0_popc(p)
#define __syncthreads_and(p) __nvvm_bar0_and(p)
#define __syncthreads_or(p) __nvvm_bar0_or(p)

// Device printf and assert (CUDA's runtime built-ins, see src/runtime/printf.rs): clang
// lowers `printf` in device code to `vprintf(format, packed arguments)`.
extern "C" __device__ int printf(const char*, ...);
extern "C" __device__ int vprintf(const char*, void*);
extern "C" __device__ void __assertfail(const char*, const char*, unsigned, const char*,
                                        __SIZE_TYPE__);
