// Tensor-map bulk copies (TMA) written as CUTLASS 3 writes them (inline PTX: its
// SM90_TMA_LOAD / SM90_TMA_STORE / SM90_TMA_REDUCE_ADD copy atoms and its ClusterBarrier),
// compiled by NVRTC for compute_90 (regen.sh here). (libcu++'s cuda::ptx wrappers emit
// unused .global constants; ptxas 12.9 crashes on a module with a .global variable and
// these kernels, so the box size below is a macro.) The tensor map is a __grid_constant__ kernel
// parameter that the host encodes with cuTensorMapEncodeTiled; tests/tma.rs runs these
// kernels on both backends against a Rust reference of the ISA's tile and swizzle rules,
// and crates/libcuda/tests/tma.rs runs them through libcuda.
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int int32_t;

// CUtensorMap's shape (cuda.h: 64-byte aligned, 128 opaque bytes).
struct alignas(64) TensorMap {
    uint64_t opaque[16];
};

#define SMEM 16384

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bar_init(uint64_t* bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void bar_expect_tx(uint64_t* bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes));
}

__device__ __forceinline__ void bar_wait(uint64_t* bar, uint32_t phase) {
    asm volatile(
        "{\n.reg .pred p;\nLAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@p bra DONE;\nbra LAB_WAIT;\nDONE:\n}" ::"r"(smem_addr(bar)),
        "r"(phase));
}

__device__ __forceinline__ void tma_load_2d_box(const void* tmap, uint64_t* bar, void* dst, int c0,
                                                int c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
        "l"(tmap), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
        : "memory");
}

__device__ __forceinline__ void tma_load_3d_box(const void* tmap, uint64_t* bar, void* dst, int c0,
                                                int c1, int c2) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_addr(dst)),
        "l"(tmap), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
}

__device__ __forceinline__ void tma_store_2d_box(const void* tmap, const void* src, int c0, int c1,
                                                 int red) {
    if (red) {
        asm volatile(
            "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [%0, {%2, %3}], [%1];" ::
                "l"(tmap),
            "r"(smem_addr(src)), "r"(c0), "r"(c1)
            : "memory");
    } else {
        asm volatile(
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(tmap),
            "r"(smem_addr(src)), "r"(c0), "r"(c1)
            : "memory");
    }
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__device__ __forceinline__ void fence_view_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Block-wide: thread 0 loads the 2-d box at (c0, c1) into shared memory through an
// mbarrier whose transaction count expects `bytes`; every thread waits for the phase,
// then the block copies the box's `bytes` bytes (in shared-memory order) to `out`.
extern "C" __global__ void tma_load_2d(const __grid_constant__ TensorMap tmap, uint32_t* out,
                                       int c0, int c1, uint32_t bytes) {
    __shared__ alignas(1024) unsigned char box[SMEM];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        bar_init(&bar, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        bar_expect_tx(&bar, bytes);
        tma_load_2d_box(&tmap, &bar, box, c0, c1);
    }
    bar_wait(&bar, 0);
    const uint32_t* words = reinterpret_cast<const uint32_t*>(box);
    for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) {
        out[i] = words[i];
    }
}

// The same for a 3-d map.
extern "C" __global__ void tma_load_3d(const __grid_constant__ TensorMap tmap, uint32_t* out,
                                       int c0, int c1, int c2, uint32_t bytes) {
    __shared__ alignas(1024) unsigned char box[SMEM];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        bar_init(&bar, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        bar_expect_tx(&bar, bytes);
        tma_load_3d_box(&tmap, &bar, box, c0, c1, c2);
    }
    bar_wait(&bar, 0);
    const uint32_t* words = reinterpret_cast<const uint32_t*>(box);
    for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) {
        out[i] = words[i];
    }
}

// Block-wide: the block writes `bytes` bytes of `in` to shared memory (shared-memory
// order), then thread 0 stores the 2-d box at (c0, c1) to the tensor (red = 0) or adds
// it to the tensor's elements (red = 1, the map's type must be u32/s32/f32...), and
// waits for the bulk group.
extern "C" __global__ void tma_store_2d(const __grid_constant__ TensorMap tmap,
                                        const uint32_t* in, int c0, int c1, uint32_t bytes,
                                        int red) {
    __shared__ alignas(1024) unsigned char box[SMEM];
    uint32_t* words = reinterpret_cast<uint32_t*>(box);
    for (uint32_t i = threadIdx.x; i < bytes / 4; i += blockDim.x) {
        words[i] = in[i];
    }
    fence_view_async_shared();
    __syncthreads();
    if (threadIdx.x == 0) {
        tma_store_2d_box(&tmap, box, c0, c1, red);
    }
}
