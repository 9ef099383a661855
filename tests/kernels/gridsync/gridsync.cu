// Grid-wide synchronization for tests/gridsync.rs, compiled by NVRTC with -rdc=true
// (regen.sh). The kernels call the device runtime's cudaCGGetIntrinsicHandle and
// cudaCGSynchronize, as numba-cuda's cuda.cg.this_grid() and grid.sync() do; the test
// links libcudadevrt's PTX of those functions (devrt_cg.ptx, cut from CUDA 12.9's
// libcudadevrt.a by regen.sh), which calls the driver's __cuda_syscall_CGS_* (ptxjit's
// built-ins). Expected values: a Rust simulation in tests/gridsync.rs.
#include <cuda_runtime.h>

// rounds times: every thread reads the element one block ahead (written by another
// block in the round before), the grid synchronizes, every thread writes it back plus
// the round number, the grid synchronizes. status[i]: the sum of the results of
// cudaCGSynchronize (0 when every call succeeded).
extern "C" __global__ void rotate(int *a, int *status, int n, int rounds) {
    unsigned long long grid = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int err = 0;
    for (int r = 0; r < rounds; r++) {
        int v = a[(i + blockDim.x) % n];
        err += cudaCGSynchronize(grid, 0);
        a[i] = v + r;
        err += cudaCGSynchronize(grid, 0);
    }
    status[i] = err;
}

// Per thread: whether the grid handle is nonzero, and what cudaCGSynchronize returns
// with it (999, cudaErrorUnknown, for the null handle of a launch that is not
// cooperative).
extern "C" __global__ void handle(int *valid, int *result) {
    unsigned long long grid = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    valid[i] = grid != 0;
    result[i] = cudaCGSynchronize(grid, 0);
}
