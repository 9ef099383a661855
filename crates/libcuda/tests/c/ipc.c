/* CUDA IPC between two processes, linked with -lcuda (no CUDA headers). The parent
 * exports two allocations (a small one sharing its page with a neighbour that is not
 * exported, and a 3 MiB one) and an event, runs a kernel on exported memory, and starts
 * itself again as the child (fork + exec), passing the handles in hex. The child opens
 * them, checks the bytes, runs saxpy on the imported memory, copies device to device,
 * checks the reference counting of repeated opens and the errors; the parent then sees
 * the child's writes, the neighbour intact, and frees everything.
 * Usage: ipc kernels.ptx. Prints "IPC parent: N passed, M failed" (and the child's line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef struct { char reserved[64]; } CUipcMemHandle;
typedef struct { char reserved[64]; } CUipcEventHandle;

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoad(CUmodule *, const char *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *, size_t *, CUdeviceptr);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventQuery(CUevent);
CUresult cuEventSynchronize(CUevent);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuIpcGetMemHandle(CUipcMemHandle *, CUdeviceptr);
CUresult cuIpcOpenMemHandle(CUdeviceptr *, CUipcMemHandle, unsigned);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *, CUipcMemHandle, unsigned);
CUresult cuIpcCloseMemHandle(CUdeviceptr);
CUresult cuIpcGetEventHandle(CUipcEventHandle *, CUevent);
CUresult cuIpcOpenEventHandle(CUevent *, CUipcEventHandle);

enum {
    INVALID_VALUE = 1,
    INVALID_CONTEXT = 201,
    INVALID_HANDLE = 400,
    LAZY = 1, /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */
    NA = 20,  /* floats in the small exported allocation */
    NB = 40,  /* floats in its neighbour */
    NC = 3 << 18, /* floats in the 3 MiB allocation */
};

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
#define IS(call, want)                                                                          \
    do {                                                                                        \
        CUresult r_ = (call);                                                                   \
        CHECK(r_ == (want), "%s returned %d, want %d", #call, r_, (want));                      \
    } while (0)
#define OK(call) IS(call, 0)

static CUfunction saxpy;

/* y = a*x + y over n floats. */
static void run_saxpy(unsigned n, float a, CUdeviceptr x, CUdeviceptr y) {
    void *args[] = {&n, &a, &x, &y};
    OK(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
}

static void setup(const char *ptx) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    OK(cuInit(0));
    OK(cuDeviceGet(&dev, 0));
    OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(cuCtxSetCurrent(ctx));
    OK(cuModuleLoad(&mod, ptx));
    OK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
}

static void to_hex(const char *bytes, char *hex) {
    for (int i = 0; i < 64; i++) sprintf(hex + 2 * i, "%02x", (unsigned char)bytes[i]);
}

static void from_hex(const char *hex, char *bytes) {
    for (int i = 0; i < 64; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        bytes[i] = (char)v;
    }
}

/* Counts the floats of `got` that differ from f(i). */
#define MISMATCHES(got, n, expr)                                                                \
    ({                                                                                          \
        size_t bad_ = 0;                                                                        \
        for (size_t i = 0; i < (n); i++) bad_ += (got)[i] != (float)(expr);                     \
        bad_;                                                                                   \
    })

static int child(const char *ptx, const char *hexa, const char *hexc, const char *hexe) {
    setup(ptx);
    CUipcMemHandle ha, hc, bad;
    CUipcEventHandle he;
    from_hex(hexa, ha.reserved);
    from_hex(hexc, hc.reserved);
    from_hex(hexe, he.reserved);

    /* The small allocation: the parent's kernel left a[i] = 2i. */
    CUdeviceptr pa = 0, pa2 = 0, base = 0;
    size_t size = 0;
    OK(cuIpcOpenMemHandle(&pa, ha, LAZY));
    OK(cuIpcOpenMemHandle_v2(&pa2, ha, LAZY));
    CHECK(pa == pa2 && pa != 0, "a second open gives the same pointer (%llx, %llx)", pa, pa2);
    float a[NA];
    OK(cuMemcpyDtoH_v2(a, pa, sizeof a));
    CHECK(MISMATCHES(a, NA, 2 * i) == 0, "imported a holds 2i (a[3] = %g)", a[3]);
    OK(cuMemGetAddressRange_v2(&base, &size, pa + 8));
    CHECK(base == pa && size == sizeof a, "address range of imported a: %llx +%zu", base, size);
    /* a = 2a + a = 6i, seen by the parent. */
    run_saxpy(NA, 2.0f, pa, pa);
    /* Device to device into memory of this process (numba's staged IPC). */
    CUdeviceptr local;
    OK(cuMemAlloc_v2(&local, sizeof a));
    OK(cuMemcpyDtoD_v2(local, pa, sizeof a));
    OK(cuMemcpyDtoH_v2(a, local, sizeof a));
    CHECK(MISMATCHES(a, NA, 6 * i) == 0, "copied a holds 6i (a[3] = %g)", a[3]);
    OK(cuMemFree_v2(local));
    IS(cuMemFree_v2(pa), INVALID_VALUE); /* imported memory is closed, not freed */
    OK(cuIpcCloseMemHandle(pa));
    OK(cuIpcCloseMemHandle(pa)); /* the second reference */
    IS(cuIpcCloseMemHandle(pa), INVALID_VALUE);

    /* The 3 MiB allocation: c[i] = i/2; the child doubles it. */
    CUdeviceptr pc = 0;
    OK(cuIpcOpenMemHandle(&pc, hc, LAZY));
    float *c = malloc(NC * sizeof(float));
    OK(cuMemcpyDtoH_v2(c, pc, NC * sizeof(float)));
    CHECK(MISMATCHES(c, NC, i * 0.5) == 0, "imported c holds i/2 (c[12345] = %g)", c[12345]);
    run_saxpy(NC, 1.0f, pc, pc);
    OK(cuIpcCloseMemHandle(pc));
    free(c);

    /* Errors: bad flags, a handle that is not one, a handle naming another descriptor. */
    IS(cuIpcOpenMemHandle(&pc, ha, 2), INVALID_VALUE);
    memset(&bad, 0, sizeof bad);
    IS(cuIpcOpenMemHandle(&pc, bad, LAZY), INVALID_VALUE);
    bad = ha;
    bad.reserved[12] = 0; /* descriptor 0: the parent's stdin, not its IPC file */
    bad.reserved[13] = bad.reserved[14] = bad.reserved[15] = 0;
    IS(cuIpcOpenMemHandle(&pc, bad, LAZY), INVALID_HANDLE);

    /* The event: a local event without timing, complete. */
    CUevent e;
    OK(cuIpcOpenEventHandle(&e, he));
    OK(cuEventQuery(e));
    OK(cuEventSynchronize(e));
    OK(cuStreamWaitEvent(0, e, 0));
    OK(cuEventRecord(e, 0));
    OK(cuEventDestroy_v2(e));
    printf("IPC child: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed != 0;
}

static int parent(const char *ptx) {
    setup(ptx);
    int v = 0;
    OK(cuDeviceGetAttribute(&v, 125, 0)); /* CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED */
    CHECK(v == 1, "IPC_EVENT_SUPPORTED is %d", v);
    float a[NA], b[NB], *c = malloc(NC * sizeof(float));
    for (int i = 0; i < NA; i++) a[i] = (float)i;
    for (int i = 0; i < NB; i++) b[i] = (float)(1000 + i);
    for (int i = 0; i < NC; i++) c[i] = (float)(i * 0.5);
    CUdeviceptr da, db, dc;
    OK(cuMemAlloc_v2(&da, sizeof a));
    OK(cuMemAlloc_v2(&db, sizeof b));
    OK(cuMemAlloc_v2(&dc, NC * sizeof(float)));
    CHECK(db / 4096 == da / 4096, "a and b share a page (%llx, %llx)", da, db);
    OK(cuMemcpyHtoD_v2(da, a, sizeof a));
    OK(cuMemcpyHtoD_v2(db, b, sizeof b));
    OK(cuMemcpyHtoD_v2(dc, c, NC * sizeof(float)));

    CUipcMemHandle ha, ha2, hc, hb;
    IS(cuIpcGetMemHandle(&ha, da + 4), INVALID_VALUE); /* not the allocation's base */
    IS(cuIpcGetMemHandle(0, da), INVALID_VALUE);
    OK(cuIpcGetMemHandle(&ha, da));
    OK(cuIpcGetMemHandle(&ha2, da));
    CHECK(memcmp(&ha, &ha2, sizeof ha) == 0, "the same allocation gives the same handle");
    OK(cuIpcGetMemHandle(&hc, dc));
    CUdeviceptr p = 0;
    IS(cuIpcOpenMemHandle(&p, ha, LAZY), INVALID_CONTEXT); /* opened by its own process */

    /* Exporting kept the bytes of a and of its neighbour b; kernels still reach a. */
    float got[NB];
    OK(cuMemcpyDtoH_v2(got, da, sizeof a));
    CHECK(MISMATCHES(got, NA, i) == 0, "a after export (a[3] = %g)", got[3]);
    OK(cuMemcpyDtoH_v2(got, db, sizeof b));
    CHECK(MISMATCHES(got, NB, 1000 + i) == 0, "b after export (b[3] = %g)", got[3]);
    run_saxpy(NA, 1.0f, da, da); /* a = 2i */

    CUevent plain, ipc;
    CUipcEventHandle he;
    OK(cuEventCreate(&plain, 0));
    IS(cuIpcGetEventHandle(&he, plain), INVALID_VALUE); /* not CU_EVENT_INTERPROCESS */
    OK(cuEventCreate(&ipc, 2 | 4)); /* DISABLE_TIMING | INTERPROCESS */
    OK(cuIpcGetEventHandle(&he, ipc));
    OK(cuEventRecord(ipc, 0));
    CUevent self;
    IS(cuIpcOpenEventHandle(&self, he), INVALID_CONTEXT);

    char hexa[129], hexc[129], hexe[129];
    to_hex(ha.reserved, hexa);
    to_hex(hc.reserved, hexc);
    to_hex(he.reserved, hexe);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "ipc", ptx, "child", hexa, hexc, hexe, (char *)0);
        _exit(127);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);

    /* The child's kernels wrote the parent's memory: a = 6i, c = i; b is untouched. */
    OK(cuMemcpyDtoH_v2(got, da, sizeof a));
    CHECK(MISMATCHES(got, NA, 6 * i) == 0, "a after the child (a[3] = %g)", got[3]);
    OK(cuMemcpyDtoH_v2(got, db, sizeof b));
    CHECK(MISMATCHES(got, NB, 1000 + i) == 0, "b after the child (b[3] = %g)", got[3]);
    OK(cuMemcpyDtoH_v2(c, dc, NC * sizeof(float)));
    CHECK(MISMATCHES(c, NC, i) == 0, "c after the child (c[12345] = %g)", c[12345]);

    /* Freeing a puts its page back into private memory with b's bytes kept. */
    OK(cuMemFree_v2(da));
    OK(cuMemcpyDtoH_v2(got, db, sizeof b));
    CHECK(MISMATCHES(got, NB, 1000 + i) == 0, "b after freeing a (b[3] = %g)", got[3]);
    run_saxpy(NB, 1.0f, db, db);
    OK(cuMemcpyDtoH_v2(got, db, sizeof b));
    CHECK(MISMATCHES(got, NB, 2 * (1000 + i)) == 0, "kernel on b (b[3] = %g)", got[3]);
    /* A new allocation at a's address gets a new handle. */
    CUdeviceptr da2;
    OK(cuMemAlloc_v2(&da2, sizeof a));
    OK(cuIpcGetMemHandle(&hb, da2));
    CHECK(da2 != da || memcmp(&hb, &ha, sizeof ha) != 0, "a reused address gets a new handle");
    OK(cuMemFree_v2(da2));
    OK(cuMemFree_v2(db));
    OK(cuMemFree_v2(dc));
    OK(cuEventDestroy_v2(plain));
    OK(cuEventDestroy_v2(ipc));
    free(c);
    printf("IPC parent: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[2], "child") == 0) return child(argv[1], argv[3], argv[4], argv[5]);
    if (argc != 2) return 2;
    return parent(argv[1]);
}
