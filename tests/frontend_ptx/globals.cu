// Module variables with initializers: arrays, constants, addresses of variables and
// functions (relocations).
// clang: yes
__device__ int table[5] = {1, 2, 3, -4, 0x7fffffff};
__constant__ float coeffs[4] = {0.5f, 1.5f, -2.25f, 3.0e10f};
__constant__ double dcoeff = 2.5;
__device__ short grid2[2][3] = {{1, 2, 3}, {4, 5, 6}};
__device__ int counter;
__device__ int *ptr_to_table = &table[2];
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int thrice(int x) { return 3 * x; }
typedef int (*fn_t)(int);
__device__ fn_t fns[2] = {twice, thrice};
extern "C" __global__ void globals(float *out, unsigned long long *addrs) {
    int i = threadIdx.x & 3;
    out[threadIdx.x] = coeffs[i] * (float)table[i] + (float)dcoeff + (float)grid2[i & 1][i % 3] + (float)*ptr_to_table;
    addrs[threadIdx.x] = (unsigned long long)fns[i & 1];
    counter = i;
}
