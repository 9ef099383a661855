/* Graph topology from C, linked with -lcuda, without CUDA headers: the types are
 * declared here as CUDA 12.9's cuda.h declares them (CUgraphEdgeData,
 * CUDA_MEMSET_NODE_PARAMS, CUDA_HOST_NODE_PARAMS). Three host nodes added without
 * dependencies are chained backwards with cuGraphAddDependencies_v2, so a launch runs
 * them in reverse insertion order; a memset node disabled in the executable graph leaves
 * device memory as it was. Expected values are in the comments.
 * Prints "C graph_topo: N passed, M failed". */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUstream, *CUgraph, *CUgraphNode, *CUgraphExec;

typedef struct {
    unsigned char from_port, to_port, type, reserved[5];
} CUgraphEdgeData;

typedef struct {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
} CUDA_MEMSET_NODE_PARAMS;

typedef struct {
    void (*fn)(void *);
    void *userData;
} CUDA_HOST_NODE_PARAMS;

CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuGraphCreate(CUgraph *, unsigned);
CUresult cuGraphDestroy(CUgraph);
CUresult cuGraphAddHostNode(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                            const CUDA_HOST_NODE_PARAMS *);
CUresult cuGraphAddMemsetNode(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                              const CUDA_MEMSET_NODE_PARAMS *, CUcontext);
CUresult cuGraphAddDependencies_v2(CUgraph, const CUgraphNode *, const CUgraphNode *,
                                   const CUgraphEdgeData *, size_t);
CUresult cuGraphGetEdges_v2(CUgraph, CUgraphNode *, CUgraphNode *, CUgraphEdgeData *, size_t *);
CUresult cuGraphGetRootNodes(CUgraph, CUgraphNode *, size_t *);
CUresult cuGraphNodeGetDependentNodes(CUgraphNode, CUgraphNode *, size_t *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphNodeSetEnabled(CUgraphExec, CUgraphNode, unsigned);
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS *,
                                        CUcontext);

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

/* The order host nodes ran in: each appends its tag. */
static int ran[16], nran;
static void tag(void *p) { ran[nran++] = *(int *)p; }

int main(void) {
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    OK(cuCtxSetCurrent(ctx));

    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    static int tags[3] = {1, 2, 3};
    CUgraphNode h[3];
    for (int i = 0; i < 3; i++) {
        CUDA_HOST_NODE_PARAMS p = {tag, &tags[i]};
        OK(cuGraphAddHostNode(&h[i], g, NULL, 0, &p));
    }
    /* 3 -> 2 -> 1. */
    CUgraphNode from[2] = {h[2], h[1]}, to[2] = {h[1], h[0]};
    CUgraphEdgeData zero[2];
    memset(zero, 0, sizeof zero);
    OK(cuGraphAddDependencies_v2(g, from, to, zero, 2));
    CUgraphNode ef[3], et[3];
    CUgraphEdgeData ed[3];
    memset(ed, 0xff, sizeof ed);
    size_t n = 3;
    OK(cuGraphGetEdges_v2(g, ef, et, ed, &n));
    CHECK(n == 2 && ef[0] == h[2] && et[0] == h[1] && ef[1] == h[1] && et[1] == h[0],
          "edges: %zu", n);
    CHECK(ef[2] == NULL && et[2] == NULL && ed[0].type == 0 && ed[1].from_port == 0,
          "padding and edge data");
    CUgraphNode roots[3];
    n = 3;
    OK(cuGraphGetRootNodes(g, roots, &n));
    CHECK(n == 1 && roots[0] == h[2], "roots: %zu", n);
    CUgraphNode dep;
    n = 1;
    OK(cuGraphNodeGetDependentNodes(h[1], &dep, &n));
    CHECK(n == 1 && dep == h[0], "dependents of node 2");

    /* A memset of 4 words to 7 after node 1. */
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 16));
    OK(cuMemsetD32_v2(d, 0, 4));
    CUDA_MEMSET_NODE_PARAMS mp = {d, 0, 7, 4, 4, 1};
    CUgraphNode ms;
    OK(cuGraphAddMemsetNode(&ms, g, &h[0], 1, &mp, ctx));

    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, NULL));
    CHECK(nran == 3 && ran[0] == 3 && ran[1] == 2 && ran[2] == 1, "order %d %d %d", ran[0],
          ran[1], ran[2]);
    unsigned out[4];
    OK(cuMemcpyDtoH_v2(out, d, 16));
    CHECK(out[0] == 7 && out[3] == 7, "memset: %u", out[0]);

    /* Disabled: the words stay 7 although the node now sets 9; enabled: 9. */
    CUDA_MEMSET_NODE_PARAMS mp9 = {d, 0, 9, 4, 4, 1};
    OK(cuGraphExecMemsetNodeSetParams(e, ms, &mp9, ctx));
    OK(cuGraphNodeSetEnabled(e, ms, 0));
    OK(cuGraphLaunch(e, NULL));
    OK(cuMemcpyDtoH_v2(out, d, 16));
    CHECK(out[0] == 7, "disabled memset: %u, want 7", out[0]);
    OK(cuGraphNodeSetEnabled(e, ms, 1));
    OK(cuGraphLaunch(e, NULL));
    OK(cuMemcpyDtoH_v2(out, d, 16));
    CHECK(out[0] == 9 && out[3] == 9, "enabled memset: %u, want 9", out[0]);
    CHECK(nran == 9, "host nodes ran %d times, want 9", nran);

    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    printf("C graph_topo: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
