// archs: 70 80 90
// cccl
// libcu++: cuda::atomic_ref, cuda::std::array/limits/complex/bit, cuda::std::min/max.
#include <cuda/atomic>
#include <cuda/std/array>
#include <cuda/std/limits>
#include <cuda/std/complex>
#include <cuda/std/bit>
#include <cuda/std/utility>

extern "C" __global__ void lcxx_atomic(int* counter, int* out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    int old = c.fetch_add(1, cuda::std::memory_order_relaxed);
    out[threadIdx.x] = old;
    if (threadIdx.x == 0) c.fetch_max(1000, cuda::std::memory_order_acq_rel);
}
extern "C" __global__ void lcxx_array(const float* in, float* out) {
    cuda::std::array<float, 8> a;
    for (int i = 0; i < 8; i++) a[i] = in[threadIdx.x * 8 + i];
    float m = cuda::std::numeric_limits<float>::lowest();
    for (float v : a) m = m < v ? v : m;
    out[threadIdx.x] = m;
}
extern "C" __global__ void lcxx_complex(const float* re, const float* im, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cuda::std::complex<float> z(re[i], im[i]);
    z = z * z + cuda::std::complex<float>(1.0f, -0.5f);
    out[i] = cuda::std::abs(z);
}
extern "C" __global__ void lcxx_bit(const unsigned* in, unsigned* out) {
    unsigned v = in[threadIdx.x];
    out[threadIdx.x] = cuda::std::popcount(v) + cuda::std::countl_zero(v) * 100 + cuda::std::rotl(v, 3) + cuda::std::bit_ceil(v & 0xffff);
}
extern "C" __global__ void lcxx_flag(cuda::std::atomic_flag* f, int* out) {
    if (!f->test_and_set()) out[0] = blockIdx.x;
}
