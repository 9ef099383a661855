// Runs the host-compiled kernels: host_launch(name, grid, block, shared, args) runs every
// CTA in turn, each CUDA thread of the CTA on its own OS thread. args[i] points at the
// value of parameter i (as cuLaunchKernel's kernelParams).
#include "host_prelude.h"
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;
thread_local unsigned host_laneid;
thread_local std::barrier<>* host_barrier;
static std::vector<unsigned char> dyn_shared;
void* host_dynamic_shared() { return dyn_shared.data(); }

#include "../vecadd.cu"
#include "../saxpy.cu"
#include "../reduce.cu"
#include "../divergence.cu"
#include "../grid2d.cu"
#include "../intmix.cu"
#include "../fconv.cu"
#include "../fconv_rz.cu"
#include "../localconst.cu"
#include "../params.cu"

template <typename T> static T A(void** a, int i) { return *(T*)a[i]; }
#define P(T, i) A<T>(args, i)

static std::map<std::string, std::function<void(void**)>> kernels = {
    {"vecadd", [](void** args) { vecadd(P(const float*, 0), P(const float*, 1), P(float*, 2), P(unsigned, 3)); }},
    {"vecadd4", [](void** args) { vecadd4(P(const float*, 0), P(const float*, 1), P(float*, 2), P(unsigned, 3)); }},
    {"vecsubmul_f64", [](void** args) { vecsubmul_f64(P(const double*, 0), P(const double*, 1), P(double*, 2), P(double*, 3), P(unsigned, 4)); }},
    {"saxpy", [](void** args) { saxpy(P(unsigned, 0), P(float, 1), P(const float*, 2), P(float*, 3)); }},
    {"saxpy_mul_add", [](void** args) { saxpy_mul_add(P(unsigned, 0), P(float, 1), P(const float*, 2), P(float*, 3)); }},
    {"daxpy", [](void** args) { daxpy(P(unsigned, 0), P(double, 1), P(const double*, 2), P(double*, 3)); }},
    {"block_sum_u32", [](void** args) { block_sum_u32(P(const unsigned*, 0), P(unsigned*, 1), P(unsigned, 2)); }},
    {"block_sum_f32", [](void** args) { block_sum_f32(P(const float*, 0), P(float*, 1), P(unsigned, 2)); }},
    {"block_sum_dyn_u64", [](void** args) { block_sum_dyn_u64(P(const unsigned*, 0), P(unsigned long long*, 1), P(unsigned, 2)); }},
    {"diverge", [](void** args) { diverge(P(const unsigned*, 0), P(unsigned*, 1), P(unsigned*, 2), P(unsigned, 3)); }},
    {"transpose", [](void** args) { transpose(P(const float*, 0), P(float*, 1), P(unsigned, 2), P(unsigned, 3)); }},
    {"transpose_tiled", [](void** args) { transpose_tiled(P(const float*, 0), P(float*, 1), P(unsigned, 2), P(unsigned, 3)); }},
    {"add2d", [](void** args) { add2d(P(const int*, 0), P(const int*, 1), P(int*, 2), P(unsigned, 3), P(unsigned, 4), P(unsigned, 5)); }},
    {"sregs", [](void** args) { sregs(P(unsigned*, 0)); }},
    {"intmix", [](void** args) {
        intmix(P(const unsigned*, 0), P(const unsigned*, 1), P(const unsigned long long*, 2), P(const unsigned char*, 3),
               P(const short*, 4), P(unsigned*, 5), P(unsigned long long*, 6), P(unsigned char*, 7), P(unsigned short*, 8),
               P(unsigned, 9));
    }},
    {"fconv", [](void** args) {
        fconv(P(const float*, 0), P(const float*, 1), P(const double*, 2), P(const double*, 3), P(const int*, 4),
              P(const long long*, 5), P(int*, 6), P(unsigned char*, 7), P(long long*, 8), P(float*, 9), P(double*, 10),
              P(unsigned, 11));
    }},
    {"fconv_rz", [](void** args) { fconv_rz(P(const int*, 0), P(const double*, 1), P(float*, 2), P(unsigned, 3)); }},
    {"param_struct", [](void** args) {
        Params p;
        memcpy(&p, args[0], sizeof p);
        param_struct(p, P(const float*, 1), P(float*, 2), P(float4*, 3));
    }},
    {"local_const", [](void** args) { local_const(P(const unsigned*, 0), P(int*, 1), P(float4*, 2), P(unsigned, 3)); }},
};

extern "C" int host_launch(const char* name, const unsigned* grid, const unsigned* block, unsigned shared, void** args) {
    auto it = kernels.find(name);
    if (it == kernels.end()) {
        fprintf(stderr, "hostcheck: no host kernel %s\n", name);
        return 1;
    }
    auto& k = it->second;
    unsigned nthreads = block[0] * block[1] * block[2];
    for (unsigned bz = 0; bz < grid[2]; bz++)
        for (unsigned by = 0; by < grid[1]; by++)
            for (unsigned bx = 0; bx < grid[0]; bx++) {
                dyn_shared.assign(shared, 0);
                std::barrier<> bar(nthreads);
                std::vector<std::thread> threads;
                threads.reserve(nthreads);
                for (unsigned t = 0; t < nthreads; t++) {
                    threads.emplace_back([&, t] {
                        threadIdx = {t % block[0], (t / block[0]) % block[1], t / (block[0] * block[1])};
                        blockIdx = {bx, by, bz};
                        blockDim = {block[0], block[1], block[2]};
                        gridDim = {grid[0], grid[1], grid[2]};
                        host_laneid = t % 32;
                        host_barrier = &bar;
                        k(args);
                        // A thread that returns early no longer takes part in barriers.
                        bar.arrive_and_drop();
                    });
                }
                for (auto& th : threads) th.join();
            }
    return 0;
}
