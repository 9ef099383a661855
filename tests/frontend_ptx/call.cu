// A direct call with a return value (runs in tests/calls.rs).
// clang: yes
__device__ __noinline__ int helper(int x) { return x * x + 1; }
extern "C" __global__ void calls(int *p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
