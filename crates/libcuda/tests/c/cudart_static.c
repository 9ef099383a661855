/* A CUDA runtime-API program linked with NVIDIA's static runtime (libcudart_static.a,
 * the library nvcc links by default), built with gcc, without CUDA headers. It does
 * what nvcc's generated host code does: registers a fat binary holding the PTX given
 * on the command line (one PTX entry) and a kernel with __cudaRegisterFatBinary /
 * __cudaRegisterFunction, then launches it with cudaLaunchKernel, and checks the
 * results against a C reference.
 *
 *   cudart_static kernels.ptx
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned x, y, z; } dim3;
typedef void *cudaStream_t;
int cudaGetDeviceCount(int *);
int cudaSetDevice(int);
int cudaMalloc(void **, size_t);
int cudaFree(void *);
int cudaMemcpy(void *, const void *, size_t, int);
int cudaMemcpyAsync(void *, const void *, size_t, int, cudaStream_t);
int cudaMemset(void *, int, size_t);
int cudaStreamCreate(cudaStream_t *);
int cudaStreamSynchronize(cudaStream_t);
int cudaStreamDestroy(cudaStream_t);
int cudaDeviceSynchronize(void);
int cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
int cudaGetLastError(void);
const char *cudaGetErrorString(int);
void **__cudaRegisterFatBinary(void *);
void __cudaRegisterFatBinaryEnd(void **);
void __cudaUnregisterFatBinary(void **);
void __cudaRegisterFunction(void **, const char *, char *, const char *, int, void *,
                            void *, void *, void *, int *);

static int passed, failed;
#define CHECK(cond, ...)                                                               \
    do {                                                                               \
        if (cond) {                                                                    \
            passed++;                                                                  \
        } else {                                                                       \
            failed++;                                                                  \
            printf("FAIL line %d: ", __LINE__);                                        \
            printf(__VA_ARGS__);                                                       \
            printf("\n");                                                              \
        }                                                                              \
    } while (0)
#define OK(call)                                                                       \
    do {                                                                               \
        int r_ = (call);                                                               \
        CHECK(r_ == 0, "%s -> %d (%s)", #call, r_, cudaGetErrorString(r_));          \
    } while (0)

/* The host stub whose address names the kernel, as nvcc emits one per kernel. */
static void saxpy_stub(void) {}

/* A fat binary with one PTX entry: the container header, then the entry header (kind
 * 1 = PTX, 64 bytes: payload size at 8, sm_70 at 28, 64-bit at 32, flags 64-bit|CUDA|Linux
 * at 40) and the NUL-padded PTX. */
static uint8_t *make_fatbin(const char *ptx, size_t len) {
    size_t payload = (len + 8) & ~(size_t)7;
    uint8_t *f = calloc(1, 16 + 64 + payload);
    uint32_t magic = 0xBA55ED50u;
    uint16_t version = 1, header = 16;
    uint64_t size = 64 + payload;
    memcpy(f, &magic, 4);
    memcpy(f + 4, &version, 2);
    memcpy(f + 6, &header, 2);
    memcpy(f + 8, &size, 8);
    uint8_t *e = f + 16;
    uint16_t kind = 1, ever = 0x0101;
    uint32_t ehdr = 64, psize = (uint32_t)payload, sm = 70, bits = 64;
    uint64_t flags = 0x1 | 0x4 | 0x10;
    memcpy(e, &kind, 2);
    memcpy(e + 2, &ever, 2);
    memcpy(e + 4, &ehdr, 4);
    memcpy(e + 8, &psize, 4);
    memcpy(e + 28, &sm, 4);
    memcpy(e + 32, &bits, 4);
    memcpy(e + 40, &flags, 8);
    memcpy(e + 64, ptx, len);
    return f;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s kernels.ptx\n", argv[0]);
        return 2;
    }
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) {
        perror(argv[1]);
        return 2;
    }
    static char ptx[1 << 16];
    size_t len = fread(ptx, 1, sizeof ptx - 1, fp);
    fclose(fp);
    uint8_t *fatbin = make_fatbin(ptx, len);
    /* __fatBinC_Wrapper_t: magic, version 1, data, no prelinked binaries. */
    static struct { uint32_t magic, version; const void *data; void *unused; } wrapper;
    wrapper.magic = 0x466243B1u;
    wrapper.version = 1;
    wrapper.data = fatbin;
    void **handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)saxpy_stub, "saxpy", "saxpy", -1, 0, 0,
                           0, 0, 0);
    __cudaRegisterFatBinaryEnd(handle);

    int n = -1;
    OK(cudaGetDeviceCount(&n));
    CHECK(n == 1, "device count %d", n);
    OK(cudaSetDevice(0));

    enum { N = 5000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = (float)(N - i);
    }
    float *dx = 0, *dy = 0;
    OK(cudaMalloc((void **)&dx, sizeof x));
    OK(cudaMalloc((void **)&dy, sizeof y));
    OK(cudaMemcpy(dx, x, sizeof x, 1));
    OK(cudaMemcpy(dy, y, sizeof y, 1));
    unsigned nn = N;
    float a = 0.5f;
    void *args[] = {&nn, &a, &dx, &dy};
    dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
    OK(cudaLaunchKernel((const void *)saxpy_stub, grid, block, args, 0, 0));
    OK(cudaDeviceSynchronize());
    OK(cudaMemcpy(out, dy, sizeof out, 2));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        /* fma(a, x, y) as the kernel computes it. */
        float want = __builtin_fmaf(a, x[i], y[i]);
        bad += memcmp(&out[i], &want, 4) != 0;
    }
    CHECK(bad == 0, "%d saxpy results differ", bad);

    cudaStream_t s;
    OK(cudaStreamCreate(&s));
    OK(cudaMemset(dx, 0, sizeof x));
    OK(cudaLaunchKernel((const void *)saxpy_stub, grid, block, args, 0, s));
    OK(cudaMemcpyAsync(out, dy, sizeof out, 2, s));
    OK(cudaStreamSynchronize(s));
    /* x is now 0: y is unchanged by the second launch. */
    bad = 0;
    for (int i = 0; i < N; i++) {
        float want = __builtin_fmaf(a, x[i], y[i]);
        bad += memcmp(&out[i], &want, 4) != 0;
    }
    CHECK(bad == 0, "%d results after the stream launch differ", bad);
    OK(cudaStreamDestroy(s));
    OK(cudaFree(dx));
    OK(cudaFree(dy));
    OK(cudaGetLastError());
    __cudaUnregisterFatBinary(handle);
    free(fatbin);
    printf("cudart static client: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
