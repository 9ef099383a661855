/* A CUDA driver API client linked with -lcuda, without CUDA headers: it declares the
 * prototypes it uses. Runs saxpy (kernelParams), a shared-memory reduction (extra
 * parameter buffer), an atomics histogram, a module variable, a faulting kernel, events
 * and streams, and API misuse, checking every result against a C reference.
 * Usage: client kernels.ptx. Prints "C client: N passed, M failed". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;

CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDeviceTotalMem_v2(size_t *, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoad(CUmodule *, const char *);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemGetInfo_v2(size_t *, size_t *);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, CUstream);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamDestroy_v2(CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventSynchronize(CUevent);
CUresult cuEventElapsedTime(float *, CUevent, CUevent);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuGetErrorName(CUresult, const char **);
CUresult cuGetProcAddress_v2(const char *, void **, int, unsigned long long, int *);
CUresult cuGraphAddBatchMemOpNode(void *, void *, const void *, size_t, const void *);

static int passed, failed;
#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (cond) {                                                                             \
            passed++;                                                                           \
        } else {                                                                                \
            failed++;                                                                           \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                         \
            printf(__VA_ARGS__);                                                                \
            printf("\n");                                                                       \
        }                                                                                       \
    } while (0)
#define OK(call) CHECK((call) == 0, "%s returned %d", #call, (call))

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* The result of the faulting launch of `oob` under this process's PTXJIT_SANITIZE (a
 * comma-separated list, as ptxjit's SanitizeOptions::parse reads it): without memcheck
 * the store faults (ILLEGAL_ADDRESS, 700); memcheck (named, or in `all`) finds the
 * access first and fails the launch with LAUNCH_FAILED (719: a sanitizer finding, see
 * crates/libcuda/src/sanitize.rs); with `report-only` as well, the finding is only
 * reported, the lane's store is skipped and the launch succeeds. */
static CUresult expected_fault(const char **name) {
    const char *env = getenv("PTXJIT_SANITIZE");
    char buf[256];
    int memcheck = 0, report_only = 0;
    snprintf(buf, sizeof buf, "%s", env ? env : "");
    for (char *w = strtok(buf, ", \t"); w; w = strtok(0, ", \t")) {
        memcheck |= strcmp(w, "memcheck") == 0 || strcmp(w, "all") == 0;
        report_only |= strcmp(w, "report-only") == 0;
    }
    if (memcheck && report_only) {
        *name = "CUDA_SUCCESS";
        return 0;
    }
    if (memcheck) {
        *name = "CUDA_ERROR_LAUNCH_FAILED";
        return 719;
    }
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 700;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    CUdeviceptr p;
    CHECK(cuMemAlloc_v2(&p, 4) == 3, "before cuInit: NOT_INITIALIZED");
    OK(cuInit(0));
    int v, n;
    OK(cuDriverGetVersion(&v));
    CHECK(v >= 12000, "driver version %d", v);
    OK(cuDeviceGetCount(&n));
    CHECK(n == 1, "device count %d", n);
    CUdevice dev;
    OK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGet(&dev, 1) == 101, "ordinal 1: INVALID_DEVICE");
    char name[64];
    OK(cuDeviceGetName(name, sizeof name, dev));
    printf("device: %s\n", name);
    int warp, maxt, major;
    OK(cuDeviceGetAttribute(&warp, 10, dev));
    OK(cuDeviceGetAttribute(&maxt, 1, dev));
    OK(cuDeviceGetAttribute(&major, 75, dev));
    CHECK(warp == 32 && maxt == 1024 && major == 9, "attributes %d %d %d", warp, maxt, major);
    size_t total;
    OK(cuDeviceTotalMem_v2(&total, dev));
    CHECK(cuMemAlloc_v2(&p, 4) == 201, "no context: INVALID_CONTEXT");

    CUcontext ctx, cur;
    OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(cuCtxSetCurrent(ctx));
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == ctx, "current context");

    CUmodule mod;
    CHECK(cuModuleLoad(&mod, "/nonexistent.ptx") == 301, "missing file: FILE_NOT_FOUND");
    CHECK(cuModuleLoadData(&mod, ".version 7.0\n.target sm_70\nbogus;") == 218, "bad PTX: INVALID_PTX");
    OK(cuModuleLoad(&mod, argv[1]));
    CUfunction saxpy, sum, hist, oob, bump;
    OK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    OK(cuModuleGetFunction(&sum, mod, "block_sum"));
    OK(cuModuleGetFunction(&hist, mod, "histogram"));
    OK(cuModuleGetFunction(&oob, mod, "oob"));
    OK(cuModuleGetFunction(&bump, mod, "bump"));
    CHECK(cuModuleGetFunction(&oob, mod, "nope") == 500, "missing kernel: NOT_FOUND");

    /* saxpy through kernelParams. */
    enum { N = 1000 };
    float x[N], y[N], r[N];
    uint32_t seed = 1;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(int)(lcg(&seed) % 2001 - 1000) / 7.0f;
        y[i] = (float)(int)(lcg(&seed) % 2001 - 1000) / 3.0f;
    }
    CUdeviceptr dx, dy;
    OK(cuMemAlloc_v2(&dx, sizeof x));
    OK(cuMemAlloc_v2(&dy, sizeof y));
    OK(cuMemcpyHtoD_v2(dx, x, sizeof x));
    OK(cuMemcpyHtoD_v2(dy, y, sizeof y));
    unsigned nn = N;
    float a = 2.5f;
    void *params[] = {&nn, &a, &dx, &dy};
    OK(cuLaunchKernel(saxpy, (N + 255) / 256, 1, 1, 256, 1, 1, 0, 0, params, 0));
    OK(cuMemcpyDtoH_v2(r, dy, sizeof r));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = fmaf(a, x[i], y[i]); /* libm's fmaf: correctly rounded */
        if (memcmp(&want, &r[i], 4) != 0) bad++;
    }
    CHECK(bad == 0, "saxpy: %d mismatches", bad);

    /* Reduction through the extra parameter buffer (layout: u64 in, u64 out, u32 n). */
    enum { M = 100000 };
    uint32_t *data = malloc(M * 4), want_sum = 0;
    for (int i = 0; i < M; i++) want_sum += data[i] = lcg(&seed);
    CUdeviceptr din, dout;
    OK(cuMemAlloc_v2(&din, M * 4));
    OK(cuMemAlloc_v2(&dout, 4));
    OK(cuMemsetD32_v2(dout, 0, 1));
    OK(cuMemcpyHtoD_v2(din, data, M * 4));
    struct { CUdeviceptr in, out; unsigned n; unsigned pad; } buf = {din, dout, M, 0};
    size_t bufsize = 20;
    void *extra[] = {(void *)1, &buf, (void *)2, &bufsize, (void *)0};
    OK(cuLaunchKernel(sum, (M + 255) / 256, 1, 1, 256, 1, 1, 0, 0, 0, extra));
    uint32_t got_sum = 0;
    OK(cuMemcpyDtoH_v2(&got_sum, dout, 4));
    CHECK(got_sum == want_sum, "sum %u, want %u", got_sum, want_sum);

    /* Histogram on a created stream with async copies and events. */
    CUstream s;
    CUevent e0, e1;
    OK(cuStreamCreate(&s, 1));
    OK(cuEventCreate(&e0, 0));
    OK(cuEventCreate(&e1, 0));
    enum { B = 37 };
    uint32_t bins[B], want_bins[B] = {0};
    for (int i = 0; i < M; i++) want_bins[data[i] % B]++;
    CUdeviceptr dbins;
    OK(cuMemAlloc_v2(&dbins, sizeof bins));
    OK(cuMemsetD32_v2(dbins, 0, B));
    unsigned nb = B, m = M;
    void *hp[] = {&din, &m, &dbins, &nb};
    OK(cuEventRecord(e0, s));
    OK(cuLaunchKernel(hist, (M + 127) / 128, 1, 1, 128, 1, 1, 0, s, hp, 0));
    OK(cuEventRecord(e1, s));
    OK(cuStreamWaitEvent(0, e1, 0));
    OK(cuMemcpyDtoHAsync_v2(bins, dbins, sizeof bins, s));
    OK(cuStreamSynchronize(s));
    OK(cuEventSynchronize(e1));
    float ms = -1;
    OK(cuEventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0, "elapsed %f", ms);
    CHECK(memcmp(bins, want_bins, sizeof bins) == 0, "histogram differs");

    /* Module variable. */
    CUdeviceptr gcounter;
    size_t gsize;
    OK(cuModuleGetGlobal_v2(&gcounter, &gsize, mod, "counter"));
    OK(cuLaunchKernel(bump, 3, 1, 1, 100, 1, 1, 0, 0, (void *[]){0}, 0));
    uint32_t counter = 0;
    OK(cuMemcpyDtoH_v2(&counter, gcounter, 4));
    CHECK(gsize == 4 && counter == 305, "counter %u size %zu", counter, gsize);

    /* A fault: ILLEGAL_ADDRESS (or what PTXJIT_SANITIZE makes of it), named by
     * cuGetErrorName. */
    void *op[] = {&dx};
    CUresult fr = cuLaunchKernel(oob, 1, 1, 1, 1, 1, 1, 0, 0, op, 0);
    const char *ename = 0, *want_name = 0;
    OK(cuGetErrorName(fr, &ename));
    CUresult want = expected_fault(&want_name);
    CHECK(fr == want && ename && strcmp(ename, want_name) == 0, "fault: %d %s", fr, ename);

    /* Misuse. */
    CHECK(cuMemAlloc_v2(0, 4) == 1, "null out-pointer: INVALID_VALUE");
    CHECK(cuMemcpyHtoD_v2(dx, 0, 4) == 1, "null host pointer: INVALID_VALUE");
    CHECK(cuMemcpyHtoD_v2(dx, x, sizeof x + 4) == 1, "copy past the end: INVALID_VALUE");
    CHECK(cuLaunchKernel((CUfunction)0x1234, 1, 1, 1, 1, 1, 1, 0, 0, params, 0) == 400, "bad function: INVALID_HANDLE");
    CHECK(cuLaunchKernel(saxpy, 1, 1, 1, 2048, 1, 1, 0, 0, params, 0) == 1, "block too large: INVALID_VALUE");
    CHECK(cuLaunchKernel(saxpy, 1, 1, 1, 1, 1, 1, 0, (CUstream)0x99, params, 0) == 400, "bad stream: INVALID_HANDLE");
    CHECK(cuLaunchKernel(saxpy, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0) == 1, "no parameters: INVALID_VALUE");
    CHECK(cuEventElapsedTime(&ms, e0, (CUevent)0) == 400, "null event: INVALID_HANDLE");
    CHECK(cuGraphAddBatchMemOpNode(0, 0, 0, 0, 0) == 801, "unimplemented: NOT_SUPPORTED");
    OK(cuMemFree_v2(dx));
    CHECK(cuMemFree_v2(dx) == 1, "double free: INVALID_VALUE");
    CHECK(cuMemcpyDtoH_v2(r, dx, 4) == 1, "copy from freed memory: INVALID_VALUE");

    /* cuGetProcAddress: versioned names. */
    void *fn = 0;
    int found = -1;
    OK(cuGetProcAddress_v2("cuMemAlloc", &fn, 12000, 0, &found));
    CHECK(fn == (void *)cuMemAlloc_v2 && found == 0, "cuMemAlloc -> cuMemAlloc_v2");
    CHECK(cuGetProcAddress_v2("cuNoSuchThing", &fn, 12000, 0, &found) == 500 && found == 1, "unknown symbol");

    OK(cuEventDestroy_v2(e0));
    OK(cuEventDestroy_v2(e1));
    OK(cuStreamDestroy_v2(s));
    CHECK(cuStreamDestroy_v2(s) == 400, "destroyed stream: INVALID_HANDLE");
    OK(cuModuleUnload(mod));
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy") == 400, "unloaded module: INVALID_HANDLE");

    /* A created context is current on this thread until destroyed. */
    CUcontext c2;
    OK(cuCtxCreate_v2(&c2, 0, dev));
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == c2, "created context is current");
    OK(cuCtxDestroy_v2(c2));
    OK(cuCtxSynchronize());
    OK(cuDevicePrimaryCtxRelease_v2(dev));
    free(data);
    printf("C client: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
