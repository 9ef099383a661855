// Prelude for compiling the samples with clang without the CUDA SDK
// (clang -nocudainc -nocudalib -include prelude.h). NVRTC has the device headers built in.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#include <__clang_cuda_builtin_vars.h>
static __device__ __attribute__((always_inline)) int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __attribute__((always_inline)) int __shfl_down_sync(unsigned m, int v, unsigned d) {
    return __nvvm_shfl_sync_down_i32(m, v, d, 31);
}
