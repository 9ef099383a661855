// Element-wise vector addition, compiled by clang (floats in .b32 registers).
#define __global__ __attribute__((global))
#include <__clang_cuda_builtin_vars.h>
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
