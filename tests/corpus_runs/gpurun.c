/* Runs every case of a corpus-run case list (tests/corpus_runs/cases.txt, written by gen.py)
 * with the CUDA driver API and writes each output buffer to a file. (A copy of
 * tests/golden/gpurun.c with 3-D grids and blocks, dynamic shared memory and more arguments.)
 *
 *   gpurun CASES ROOT INDIR OUTDIR [PTXFILE]
 *
 * With PTXFILE, only the cases of that PTX file run (one process per file keeps a sticky
 * error of one kernel from failing the cases after it).
 * PTX paths are relative to ROOT, input files are read from INDIR/, outputs are written
 * to OUTDIR/. Case line: `case NAME PTXFILE KERNEL GRID BLOCK ARG... [KEY=VALUE...]`, GRID and
 * BLOCK `X` or `XxYxZ`, ARG one of in:FILE, out:FILE:BYTES, io:INFILE:OUTFILE, u32:V, u64:V;
 * of the KEY=VALUE tokens only shared=BYTES (dynamic shared memory) is read here. Declares the driver prototypes it uses (no cuda.h needed): builds with
 * `cc gpurun.c -o gpurun -lcuda` against a GPU's driver or against ptxjit's libcuda.so.
 * Prints one line per failing case and "gpurun: N cases, M failed"; exits 1 if any failed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;

CUresult cuInit(unsigned);
CUresult cuDriverGetVersion(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadDataEx(CUmodule *, const void *, unsigned, int *, void **);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
CUresult cuGetErrorName(CUresult, const char **);

#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define MAX_ARGS 64
#define MAX_MODULES 64

static const char *errname(CUresult r) {
    const char *s = "?";
    cuGetErrorName(r, &s);
    return s;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    fclose(f);
    return w == len ? 0 : -1;
}

static struct {
    char name[256];
    CUmodule mod;
} modules[MAX_MODULES];
static int nmodules;

/* The module of a PTX file, loaded once. */
static CUmodule module_of(const char *root, const char *file, char *err, size_t errlen) {
    for (int i = 0; i < nmodules; i++)
        if (!strcmp(modules[i].name, file)) return modules[i].mod;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, file);
    char *ptx = read_file(path, NULL);
    if (!ptx) {
        snprintf(err, errlen, "cannot read %s", path);
        return NULL;
    }
    static char log[8192];
    log[0] = 0;
    int opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule m = NULL;
    CUresult r = cuModuleLoadDataEx(&m, ptx, 2, opts, vals);
    free(ptx);
    if (r) {
        snprintf(err, errlen, "cuModuleLoadDataEx(%s): %s %s", file, errname(r), log);
        return NULL;
    }
    if (nmodules < MAX_MODULES) {
        snprintf(modules[nmodules].name, sizeof modules[nmodules].name, "%s", file);
        modules[nmodules++].mod = m;
    }
    return m;
}

struct arg {
    int kind; /* 0 scalar u32, 1 scalar u64, 2 buffer */
    uint32_t u32;
    uint64_t u64;
    CUdeviceptr ptr;
    size_t bytes;
    char outfile[256]; /* empty: not written back */
};

/* Runs one case line (tokens after "case"); returns 0 or -1 with a message in err. */
/* "X" or "XxYxZ" */
static void parse_dim(const char *s, unsigned d[3]) {
    char *end;
    d[0] = (unsigned)strtoul(s, &end, 0);
    d[1] = *end == 'x' ? (unsigned)strtoul(end + 1, &end, 0) : 1;
    d[2] = *end == 'x' ? (unsigned)strtoul(end + 1, &end, 0) : 1;
}

static int run_case(char **tok, int ntok, const char *root, const char *base, const char *outdir,
                    char *err, size_t errlen) {
    if (ntok < 5) {
        snprintf(err, errlen, "short case line");
        return -1;
    }
    const char *file = tok[1], *kernel = tok[2];
    unsigned grid[3], block[3], shared = 0;
    parse_dim(tok[3], grid);
    parse_dim(tok[4], block);
    for (int i = 5; i < ntok; i++)
        if (!strncmp(tok[i], "shared=", 7)) shared = (unsigned)strtoul(tok[i] + 7, NULL, 0);
    CUmodule m = module_of(root, file, err, errlen);
    if (!m) return -1;
    CUfunction fn;
    CUresult r = cuModuleGetFunction(&fn, m, kernel);
    if (r) {
        snprintf(err, errlen, "cuModuleGetFunction(%s): %s", kernel, errname(r));
        return -1;
    }
    struct arg args[MAX_ARGS];
    void *params[MAX_ARGS];
    int nargs = 0, rc = 0;
    for (int i = 5; i < ntok && rc == 0; i++) {
        char *t = tok[i];
        if (strchr(t, '=')) continue; /* metadata */
        if (nargs == MAX_ARGS) {
            snprintf(err, errlen, "too many arguments");
            rc = -1;
            break;
        }
        struct arg *a = &args[nargs];
        memset(a, 0, sizeof *a);
        if (!strncmp(t, "u32:", 4)) {
            a->kind = 0;
            a->u32 = (uint32_t)strtoul(t + 4, NULL, 0);
            params[nargs++] = &a->u32;
            continue;
        }
        if (!strncmp(t, "u64:", 4)) {
            a->kind = 1;
            a->u64 = strtoull(t + 4, NULL, 0);
            params[nargs++] = &a->u64;
            continue;
        }
        a->kind = 2;
        char *data = NULL;
        if (!strncmp(t, "in:", 3) || !strncmp(t, "io:", 3)) {
            char name[256], path[1024];
            snprintf(name, sizeof name, "%s", t + 3);
            char *colon = strchr(name, ':');
            if (colon) {
                *colon = 0;
                snprintf(a->outfile, sizeof a->outfile, "%s", colon + 1);
            }
            snprintf(path, sizeof path, "%s/%s", base, name);
            data = read_file(path, &a->bytes);
            if (!data) {
                snprintf(err, errlen, "cannot read %s", path);
                rc = -1;
                break;
            }
        } else if (!strncmp(t, "out:", 4)) {
            snprintf(a->outfile, sizeof a->outfile, "%s", t + 4);
            char *colon = strrchr(a->outfile, ':');
            if (!colon) {
                snprintf(err, errlen, "bad argument %s", t);
                rc = -1;
                break;
            }
            *colon = 0;
            a->bytes = strtoull(colon + 1, NULL, 0);
        } else {
            snprintf(err, errlen, "bad argument %s", t);
            rc = -1;
            break;
        }
        r = cuMemAlloc_v2(&a->ptr, a->bytes ? a->bytes : 1);
        if (!r) r = data ? cuMemcpyHtoD_v2(a->ptr, data, a->bytes) : cuMemsetD8_v2(a->ptr, 0, a->bytes);
        free(data);
        params[nargs++] = &a->ptr;
        if (r) {
            snprintf(err, errlen, "alloc/copy for %s: %s", t, errname(r));
            rc = -1;
        }
    }
    if (rc == 0) {
        r = cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL,
                           params, NULL);
        if (!r) r = cuCtxSynchronize();
        if (r) {
            snprintf(err, errlen, "launch of %s: %s", kernel, errname(r));
            rc = -1;
        }
    }
    for (int i = 0; i < nargs; i++) {
        struct arg *a = &args[i];
        if (a->kind != 2) continue;
        if (rc == 0 && a->outfile[0]) {
            char *buf = malloc(a->bytes ? a->bytes : 1);
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", outdir, a->outfile);
            r = cuMemcpyDtoH_v2(buf, a->ptr, a->bytes);
            if (r || write_file(path, buf, a->bytes)) {
                snprintf(err, errlen, "read back / write %s failed (%s)", path, errname(r));
                rc = -1;
            }
            free(buf);
        }
        cuMemFree_v2(a->ptr);
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: gpurun CASES ROOT INDIR OUTDIR [PTXFILE]\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    int ver = 0;
    char name[256] = "";
    CUresult r = cuInit(0);
    if (!r) r = cuDeviceGet(&dev, 0);
    if (!r) r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (!r) r = cuCtxSetCurrent(ctx);
    if (r) {
        fprintf(stderr, "gpurun: CUDA init failed: %s\n", errname(r));
        return 2;
    }
    cuDriverGetVersion(&ver);
    cuDeviceGetName(name, sizeof name, dev);
    printf("gpurun: device %s, driver API version %d\n", name, ver);
    size_t len;
    char *text = read_file(argv[1], &len);
    if (!text) {
        fprintf(stderr, "gpurun: cannot read %s\n", argv[1]);
        return 2;
    }
    int ncases = 0, nfailed = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        /* strtok is not reentrant: split the line by hand */
        char *tok[160];
        int ntok = 0;
        for (char *p = line; *p && ntok < 160;) {
            while (*p == ' ' || *p == '\t' || *p == '\r') *p++ = 0;
            if (!*p) break;
            tok[ntok++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
        }
        if (ntok == 0 || tok[0][0] == '#' || strcmp(tok[0], "case")) continue;
        if (argc == 6 && (ntok < 3 || strcmp(tok[2], argv[5]))) continue;
        ncases++;
        char err[9000] = "";
        if (run_case(tok + 1, ntok - 1, argv[2], argv[3], argv[4], err, sizeof err)) {
            nfailed++;
            printf("FAIL %s: %s\n", ntok > 1 ? tok[1] : "?", err);
        }
    }
    printf("gpurun: %d cases, %d failed\n", ncases, nfailed);
    free(text);
    return nfailed ? 1 : 0;
}
