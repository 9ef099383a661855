// Faulting kernels: the tests expect Error::Fault naming the kernel, the instruction,
// the block/thread and the address.

// out[i + offset] = i, i = linear thread index over a 2-D grid of 2-D blocks.
extern "C" __global__ void oob_store(unsigned* out, unsigned long long offset) {
    unsigned b = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned i = b * (blockDim.x * blockDim.y) + t;
    out[i + offset] = i;
}

// out[i] = in[i + offset] (the load faults).
extern "C" __global__ void oob_load(const unsigned* in, unsigned* out, unsigned offset) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + offset];
}

// *dst = (u64)p: lets a test learn a buffer's device address.
extern "C" __global__ void ptr_of(const unsigned* p, unsigned long long* dst) {
    *dst = (unsigned long long)p;
}
