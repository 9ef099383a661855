// Probes of GPU behaviour that ptxjit must reproduce (issue 15): trap, brkpt, pmevent,
// and the device heap (malloc/free). Built and run on the device machine by run.sh;
// the output is committed as probe.out.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k_trap(int *out, int bad) { if (threadIdx.x == bad) asm volatile("trap;"); out[threadIdx.x] = 1; }
__global__ void k_brkpt(int *out, int bad) { if (threadIdx.x == bad) asm volatile("brkpt;"); out[threadIdx.x] = 2; }
__global__ void k_pmevent(int *out) { asm volatile("pmevent 1;"); asm volatile("pmevent.mask 0x3;"); out[threadIdx.x] = 3; }
// Each thread mallocs `sz` bytes `n` times and records the pointers (0 = NULL).
__global__ void k_malloc(unsigned long long *ptrs, size_t sz, int n) {
  for (int i = 0; i < n; i++) ptrs[threadIdx.x * n + i] = (unsigned long long)malloc(sz);
}
__global__ void k_free(unsigned long long *ptrs, int n) {
  for (int i = 0; i < n; i++) free((void *)ptrs[threadIdx.x * n + i]);
}
__global__ void k_malloc0(unsigned long long *out) { void *p = malloc(0); out[0] = (unsigned long long)p; free(p); free(nullptr); }
__global__ void k_double_free(int *out) { void *p = malloc(16); free(p); free(p); out[0] = 7; }
__global__ void k_wild_free(int *out) { free((void *)out); out[0] = 8; }
__global__ void k_use(unsigned long long *ptrs, int n, int *out) {
  // write into each allocation and read back
  int *p = (int *)ptrs[threadIdx.x * n];
  if (p) { p[0] = threadIdx.x; out[threadIdx.x] = p[0]; }
}

static void report(const char *what) {
  cudaError_t e = cudaDeviceSynchronize();
  cudaError_t l = cudaGetLastError();
  printf("%s: sync=%d (%s) last=%d\n", what, (int)e, cudaGetErrorName(e), (int)l);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "heap";
  int *d; unsigned long long *p;
  cudaMalloc(&d, 1024 * 4);
  if (!strcmp(mode, "trap")) { k_trap<<<1, 32>>>(d, 5); report("trap"); int h[2]; cudaError_t e = cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost); printf("after trap memcpy=%d\n", (int)e); return 0; }
  if (!strcmp(mode, "brkpt")) { k_brkpt<<<1, 32>>>(d, 5); report("brkpt"); cudaError_t e = cudaMalloc(&p, 8); printf("after brkpt malloc=%d\n", (int)e); return 0; }
  if (!strcmp(mode, "brkpt_none")) { k_brkpt<<<1, 32>>>(d, 99); report("brkpt not executed"); return 0; }
  if (!strcmp(mode, "pmevent")) { k_pmevent<<<1, 32>>>(d); report("pmevent"); int h[32]; cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost); printf("pmevent out[0]=%d out[31]=%d\n", h[0], h[31]); return 0; }
  if (!strcmp(mode, "double_free")) { k_double_free<<<1, 1>>>(d); report("double free"); return 0; }
  if (!strcmp(mode, "wild_free")) { k_wild_free<<<1, 1>>>(d); report("wild free"); return 0; }
  if (!strcmp(mode, "setlimit")) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20); printf("set 1MiB limit before use=%d\n", (int)e);
    size_t lim = 0; cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize); printf("heap limit now=%zu\n", lim);
    cudaMalloc(&p, 64 * 8); unsigned long long h[64];
    k_malloc<<<1, 1>>>(p, 64 << 10, 32); report("malloc 32x64KiB"); cudaMemcpy(h, p, 32 * 8, cudaMemcpyDeviceToHost);
    int ok = 0; for (int i = 0; i < 32; i++) ok += h[i] != 0; printf("64KiB blocks granted of 32 with 1MiB heap: %d\n", ok);
    return 0;
  }
  // heap
  size_t lim = 0; cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize); printf("default heap limit=%zu\n", lim);
  cudaMalloc(&p, 4096 * 8);
  unsigned long long h[4096];
  k_malloc0<<<1, 1>>>(p); report("malloc0"); cudaMemcpy(h, p, 8, cudaMemcpyDeviceToHost); printf("malloc(0)=%s\n", h[0] ? "non-NULL" : "NULL");
  // 1 MiB blocks from one thread until NULL
  k_malloc<<<1, 1>>>(p, 1 << 20, 16); report("malloc 16x1MiB");
  cudaMemcpy(h, p, 16 * 8, cudaMemcpyDeviceToHost);
  int ok = 0; for (int i = 0; i < 16; i++) ok += h[i] != 0; printf("1MiB blocks granted of 16: %d\n", ok);
  for (int i = 0; i < 16; i++) printf("  ptr[%d] %% 16=%llu %% 256=%llu delta=%lld\n", i, h[i] % 16, h[i] % 256, i ? (long long)(h[i] - h[i-1]) : 0LL);
  k_free<<<1, 1>>>(p, 16); report("free");
  // small allocations: alignment
  k_malloc<<<1, 32>>>(p, 1, 4); report("malloc 32x4x1B"); cudaMemcpy(h, p, 128 * 8, cudaMemcpyDeviceToHost);
  int a16 = 0, nul = 0; for (int i = 0; i < 128; i++) { a16 += h[i] % 16 == 0; nul += h[i] == 0; } printf("1-byte mallocs: 16-aligned %d of 128, NULL %d\n", a16, nul);
  k_use<<<1, 32>>>(p, 4, d); report("use");
  k_free<<<1, 32>>>(p, 4); report("free small");
  // exactly the heap limit
  k_malloc<<<1, 1>>>(p, lim, 1); report("malloc(limit)"); cudaMemcpy(h, p, 8, cudaMemcpyDeviceToHost); printf("malloc(limit)=%s\n", h[0] ? "non-NULL" : "NULL");
  k_malloc<<<1, 1>>>(p, lim / 2, 1); report("malloc(limit/2)"); cudaMemcpy(h, p, 8, cudaMemcpyDeviceToHost); printf("malloc(limit/2)=%s\n", h[0] ? "non-NULL" : "NULL");
  // set limit 1 MiB (must be before first heap use? try anyway)
  cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20); printf("set limit after use=%d\n", (int)e);
  return 0;
}
