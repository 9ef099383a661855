// Kernels of tests/graph_cond.rs: conditional graph nodes set from device code.
// graph_cond.ptx is `nvcc -ptx -arch=compute_80 graph_cond.cu` (nvcc 13.5, PyPI nvidia-cuda-nvcc).
#include <cuda_runtime.h>

// One loop iteration: counter += 1; keep looping while counter < n.
extern "C" __global__ void loop_step(unsigned int *counter, unsigned int n, cudaGraphConditionalHandle h) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        unsigned int c = *counter + 1;
        *counter = c;
        cudaGraphSetConditional(h, c < n ? 1u : 0u);
    }
}

// Sets handle h to v.
extern "C" __global__ void set_cond(cudaGraphConditionalHandle h, unsigned int v) {
    if (threadIdx.x == 0) {
        cudaGraphSetConditional(h, v);
    }
}

// Sets handle h to *counter & 1 (odd counter values run an IF body).
extern "C" __global__ void set_odd(const unsigned int *counter, cudaGraphConditionalHandle h) {
    if (threadIdx.x == 0) {
        cudaGraphSetConditional(h, *counter & 1u);
    }
}

// out[i] += v for each of the block's threads.
extern "C" __global__ void add(unsigned int *out, unsigned int v) {
    out[threadIdx.x] += v;
}
