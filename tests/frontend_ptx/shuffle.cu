// Not supported yet: warp shuffles.
// clang: yes
extern "C" __global__ void shuffles(int *p) { p[threadIdx.x] = __shfl_down_sync(0xffffffffu, p[threadIdx.x], 1); }
