/* Conditional graph nodes from C, linked with -lcuda, without CUDA headers: the types
 * are declared here as CUDA 12.9's cuda.h declares them (CUgraphNodeParams,
 * CUDA_KERNEL_NODE_PARAMS_v3, CUDA_CONDITIONAL_NODE_PARAMS). The kernels are
 * tests/ptx/graph_cond.ptx (nvcc 13.5 output of tests/ptx/graph_cond.cu). Builds
 *   a WHILE loop whose kernel counts a device counter to 7 and then clears the handle;
 *   an IF/ELSE (size 2) picked by a kernel; a SWITCH of 4 bodies,
 * and checks each against hand-computed values in the comments.
 * Usage: graph_cond graph_cond.ptx. Prints "C graph_cond: N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr, CUgraphConditionalHandle;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphNode, *CUgraphExec;

typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    void **kernelParams, **extra;
    void *kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v3;

typedef struct {
    CUgraphConditionalHandle handle;
    int type; /* CU_GRAPH_COND_TYPE_IF 0, _WHILE 1, _SWITCH 2 */
    unsigned size;
    CUgraph *phGraph_out;
    CUcontext ctx;
} CUDA_CONDITIONAL_NODE_PARAMS;

typedef struct {
    int type; /* CU_GRAPH_NODE_TYPE_KERNEL 0, _CONDITIONAL 13 */
    int reserved0[3];
    union {
        long long reserved1[29];
        CUDA_KERNEL_NODE_PARAMS_v3 kernel;
        CUDA_CONDITIONAL_NODE_PARAMS conditional;
    };
    long long reserved2;
} CUgraphNodeParams;

CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuGraphCreate(CUgraph *, unsigned);
CUresult cuGraphDestroy(CUgraph);
CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *, CUgraph, CUcontext, unsigned,
                                        unsigned);
CUresult cuGraphAddNode_v2(CUgraphNode *, CUgraph, const CUgraphNode *, const void *, size_t,
                           CUgraphNodeParams *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphExecDestroy(CUgraphExec);

static int passed, failed;
#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (cond) {                                                                             \
            passed++;                                                                           \
        } else {                                                                                \
            failed++;                                                                           \
            printf("FAIL line %d: ", __LINE__);                                                 \
            printf(__VA_ARGS__);                                                                \
            printf("\n");                                                                       \
        }                                                                                       \
    } while (0)
#define OK(call) CHECK((call) == 0, "%s", #call)

static CUfunction loop_step, set_cond, add;

/* Adds a one-block kernel node of f to g. */
static void kernel(CUgraph g, CUfunction f, unsigned threads, void **params) {
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = 0;
    p.kernel.func = f;
    p.kernel.gridDimX = p.kernel.gridDimY = p.kernel.gridDimZ = 1;
    p.kernel.blockDimX = threads;
    p.kernel.blockDimY = p.kernel.blockDimZ = 1;
    p.kernel.kernelParams = params;
    CUgraphNode n;
    OK(cuGraphAddNode_v2(&n, g, 0, 0, 0, &p));
}

/* Adds a conditional node on h to g; returns its body graphs. */
static CUgraph *conditional(CUgraph g, CUgraphConditionalHandle h, int type, unsigned size) {
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = 13;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    CUgraphNode n;
    OK(cuGraphAddNode_v2(&n, g, 0, 0, 0, &p));
    return p.conditional.phGraph_out;
}

static unsigned read1(CUdeviceptr p) {
    unsigned v = 0;
    OK(cuMemcpyDtoH_v2(&v, p, 4));
    return v;
}

static void run(CUgraph g) {
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, 0));
    OK(cuGraphExecDestroy(e));
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    static char ptx[1 << 16];
    size_t n = fread(ptx, 1, sizeof ptx - 1, f);
    fclose(f);
    ptx[n] = 0;
    CUcontext ctx;
    CUmodule m;
    OK(cuInit(0));
    OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    OK(cuCtxSetCurrent(ctx));
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&loop_step, m, "loop_step"));
    OK(cuModuleGetFunction(&set_cond, m, "set_cond"));
    OK(cuModuleGetFunction(&add, m, "add"));
    CUdeviceptr counter, out;
    OK(cuMemAlloc_v2(&counter, 4));
    OK(cuMemAlloc_v2(&out, 4));

    /* WHILE (default 1, assigned at launch): iterations with counter 1..7; the seventh
     * sets the handle to 7 < 7 = 0. */
    CUgraph g;
    CUgraphConditionalHandle h;
    OK(cuMemsetD32_v2(counter, 0, 1));
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 1, 1));
    CUgraph *body = conditional(g, h, 1, 1);
    unsigned limit = 7;
    void *step[] = {&counter, &limit, &h};
    kernel(body[0], loop_step, 32, step);
    run(g);
    CHECK(read1(counter) == 7, "while: counter %u, want 7", read1(counter));
    OK(cuGraphDestroy(g));

    /* IF/ELSE: value v runs body 0 (+5) when v != 0, else body 1 (+50). */
    for (unsigned v = 0; v < 2; v++) {
        OK(cuMemsetD32_v2(out, 0, 1));
        OK(cuGraphCreate(&g, 0));
        OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
        void *set[] = {&h, &v};
        kernel(g, set_cond, 1, set);
        CUgraph *b = conditional(g, h, 0, 2);
        unsigned five = 5, fifty = 50;
        void *a0[] = {&out, &five}, *a1[] = {&out, &fifty};
        kernel(b[0], add, 1, a0);
        kernel(b[1], add, 1, a1);
        run(g);
        unsigned want = v ? 5 : 50;
        CHECK(read1(out) == want, "if/else %u: %u, want %u", v, read1(out), want);
        OK(cuGraphDestroy(g));
    }

    /* SWITCH of 4 bodies adding 1, 2, 4, 8: values 0..5 give 1, 2, 4, 8, 0, 0. */
    for (unsigned v = 0; v < 6; v++) {
        OK(cuMemsetD32_v2(out, 0, 1));
        OK(cuGraphCreate(&g, 0));
        OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
        void *set[] = {&h, &v};
        kernel(g, set_cond, 1, set);
        CUgraph *b = conditional(g, h, 2, 4);
        unsigned add_by[4] = {1, 2, 4, 8};
        void *args[4][2];
        for (int i = 0; i < 4; i++) {
            args[i][0] = &out;
            args[i][1] = &add_by[i];
            kernel(b[i], add, 1, args[i]);
        }
        run(g);
        unsigned want = v < 4 ? 1u << v : 0;
        CHECK(read1(out) == want, "switch %u: %u, want %u", v, read1(out), want);
        OK(cuGraphDestroy(g));
    }
    printf("C graph_cond: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
