// Not supported yet: calls (the device function itself checks).
// clang: yes
__device__ __noinline__ int helper(int x) { return x * x + 1; }
extern "C" __global__ void calls(int *p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
