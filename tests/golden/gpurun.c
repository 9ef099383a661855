/* Runs every case of a golden case list (tests/golden/cases.txt, written by gen.py) with
 * the CUDA driver API and writes each output buffer to a file.
 *
 *   gpurun CASES BASEDIR OUTDIR [PTXFILE]
 *
 * With PTXFILE, only the cases of that PTX file run (one process per file keeps a sticky
 * error of one kernel from failing the cases after it); PTXFILE:CASE runs that one case.
 * PTX files are read from BASEDIR/ptx/, input files from BASEDIR/in/, outputs are written
 * to OUTDIR/. Case line: `case NAME PTXFILE KERNEL GRID BLOCK ARG... [KEY=VALUE...]`, with
 * GRID and BLOCK N, XxY or XxYxZ, ARG one of in:FILE, out:FILE:BYTES, io:INFILE:OUTFILE,
 * u32:V, u64:V (KEY=VALUE tokens are ignored here). Declares the driver prototypes it uses
 * (no cuda.h needed): builds with `cc gpurun.c -o gpurun -lcuda` against a GPU's driver or
 * against ptxjit's libcuda.so.
 *
 * Texture and surface arguments (cases_future.txt; the u64 object handle is the parameter):
 *   tex:DIM:W:H:D:FMT:NCH:FILTER:ADDR:NORM:READ:FILE
 *   surf:DIM:W:H:D:FMT:NCH:FILE:OUTFILE
 * DIM: 1d 2d 3d a1d a2d (a CUDA array from cuArray3DCreate; layered ones take D layers,
 * a1d has Height 0) or buf (a linear-memory texture of W elements). FMT: u8 s8 u16 s16 u32
 * s32 f16 f32; NCH: 1, 2 or 4. FILTER: point linear; ADDR: wrap clamp mirror border (all
 * three dimensions; border colour {0.25, 0.5, 0.75, 1.0}); NORM: 1 sets
 * CU_TRSF_NORMALIZED_COORDINATES; READ: elem sets CU_TRSF_READ_AS_INTEGER, nfloat does not.
 * FILE (in BASEDIR/in/) holds the texels, x fastest, then y, then z or layer. A surface's
 * array is created with CUDA_ARRAY3D_SURFACE_LDST and copied back to OUTDIR/OUTFILE after
 * the launch. The texture functions are looked up with dlsym, so gpurun still links
 * against a driver without them (those cases then fail with "not in this driver").
 * Prints one line per failing case and "gpurun: N cases, M failed"; exits 1 if any failed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

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
#define MAX_ARGS 16
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
static CUmodule module_of(const char *base, const char *file, char *err, size_t errlen) {
    for (int i = 0; i < nmodules; i++)
        if (!strcmp(modules[i].name, file)) return modules[i].mod;
    char path[1024];
    snprintf(path, sizeof path, "%s/ptx/%s", base, file);
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
    int kind; /* 0 scalar u32, 1 scalar u64, 2 buffer, 3 texture/surface object (u64) */
    uint32_t u32;
    uint64_t u64;
    CUdeviceptr ptr;
    size_t bytes;
    char outfile[256]; /* empty: not written back */
    void *array;       /* kind 3: the CUDA array (NULL for a buf texture) */
    int surf;          /* kind 3: 1 for a surface object */
    size_t w, h, d, elem; /* kind 3: extent (h, d at least 1) and element size */
};

/* ---- textures and surfaces (driver entry points looked up with dlsym) ---- */
typedef struct {
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels, Flags;
} ARRAY3D_DESC;
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray, *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray, *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} MEMCPY3D;
typedef struct {
    int resType;
    union {
        struct {
            void *hArray;
        } array;
        struct {
            CUdeviceptr devPtr;
            int format;
            unsigned numChannels;
            size_t sizeInBytes;
        } linear;
        int reserved[32];
    } res;
    unsigned flags;
} RESOURCE_DESC;
typedef struct {
    int addressMode[3];
    int filterMode;
    unsigned flags, maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} TEXTURE_DESC;

static void *sym(const char *name) { return dlsym(RTLD_DEFAULT, name); }

static int tex_format(const char *f, size_t *size) {
    static const struct {
        const char *name;
        int code;
        size_t size;
    } fmts[] = {{"u8", 0x01, 1},  {"u16", 0x02, 2}, {"u32", 0x03, 4}, {"s8", 0x08, 1},
                {"s16", 0x09, 2}, {"s32", 0x0a, 4}, {"f16", 0x10, 2}, {"f32", 0x20, 4}};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if (!strcmp(f, fmts[i].name)) {
            *size = fmts[i].size;
            return fmts[i].code;
        }
    return -1;
}

static int index_of(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* Builds the array (or linear buffer) and the texture/surface object of a tex:/surf: argument. */
static int make_tex(struct arg *a, const char *spec, const char *base, char *err, size_t errlen) {
    char buf[512], *f[16];
    int nf = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *p = buf; p && nf < 16;) {
        f[nf++] = p;
        p = strchr(p, ':');
        if (p) *p++ = 0;
    }
    int surf = !strcmp(f[0], "surf");
    if (nf != (surf ? 9 : 12)) {
        snprintf(err, errlen, "bad texture argument %s", spec);
        return -1;
    }
    static const char *const dims[] = {"1d", "2d", "3d", "a1d", "a2d", "buf"};
    static const char *const filters[] = {"point", "linear"};
    static const char *const addrs[] = {"wrap", "clamp", "mirror", "border"};
    int dim = index_of(f[1], dims, 6);
    size_t esize = 0;
    int fmt = tex_format(f[5], &esize);
    unsigned nch = (unsigned)strtoul(f[6], NULL, 0);
    size_t w = strtoull(f[2], NULL, 0), h = strtoull(f[3], NULL, 0), d = strtoull(f[4], NULL, 0);
    int filter = surf ? 0 : index_of(f[7], filters, 2), addr = surf ? 0 : index_of(f[8], addrs, 4);
    if (dim < 0 || fmt < 0 || (nch != 1 && nch != 2 && nch != 4) || filter < 0 || addr < 0 ||
        (surf && dim == 5)) {
        snprintf(err, errlen, "bad texture argument %s", spec);
        return -1;
    }
    CUresult (*arr3d)(void **, const ARRAY3D_DESC *) = sym("cuArray3DCreate_v2");
    CUresult (*cp3d)(const MEMCPY3D *) = sym("cuMemcpy3D_v2");
    CUresult (*texc)(uint64_t *, const RESOURCE_DESC *, const TEXTURE_DESC *,
                     const void *) = sym("cuTexObjectCreate");
    CUresult (*surfc)(uint64_t *, const RESOURCE_DESC *) = sym("cuSurfObjectCreate");
    if (!arr3d || !cp3d || !texc || !surfc) {
        snprintf(err, errlen, "texture functions not in this driver");
        return -1;
    }
    char path[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/in/%s", base, surf ? f[7] : f[11]);
    char *data = read_file(path, &len);
    size_t hh = h ? h : 1, dd = d ? d : 1, elem = esize * nch;
    if (!data || len != w * hh * dd * elem) {
        snprintf(err, errlen, "cannot read %s or its size is not %zu", path, w * hh * dd * elem);
        free(data);
        return -1;
    }
    a->kind = 3;
    a->surf = surf;
    a->w = w;
    a->h = hh;
    a->d = dd;
    a->elem = elem;
    if (surf) snprintf(a->outfile, sizeof a->outfile, "%s", f[8]);
    RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    CUresult r;
    if (dim == 5) { /* linear memory */
        r = cuMemAlloc_v2(&a->ptr, len);
        if (!r) r = cuMemcpyHtoD_v2(a->ptr, data, len);
        rd.resType = 2;
        rd.res.linear.devPtr = a->ptr;
        rd.res.linear.format = fmt;
        rd.res.linear.numChannels = nch;
        rd.res.linear.sizeInBytes = len;
    } else {
        ARRAY3D_DESC ad;
        memset(&ad, 0, sizeof ad);
        ad.Width = w;
        ad.Height = h;
        ad.Depth = d;
        ad.Format = fmt;
        ad.NumChannels = nch;
        ad.Flags = (dim >= 3 ? 1u : 0u) | (surf ? 2u : 0u);
        r = arr3d(&a->array, &ad);
        if (!r) {
            MEMCPY3D c;
            memset(&c, 0, sizeof c);
            c.srcMemoryType = 1; /* host */
            c.srcHost = data;
            c.srcPitch = w * elem;
            c.srcHeight = hh;
            c.dstMemoryType = 3; /* array */
            c.dstArray = a->array;
            c.WidthInBytes = w * elem;
            c.Height = hh;
            c.Depth = dd;
            r = cp3d(&c);
        }
        rd.resType = 0;
        rd.res.array.hArray = a->array;
    }
    free(data);
    if (!r) {
        if (surf) {
            r = surfc(&a->u64, &rd);
        } else {
            TEXTURE_DESC td;
            memset(&td, 0, sizeof td);
            td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = addr;
            td.filterMode = filter;
            td.flags = (!strcmp(f[9], "1") ? 2u : 0u) | (!strcmp(f[10], "elem") ? 1u : 0u);
            td.borderColor[0] = 0.25f;
            td.borderColor[1] = 0.5f;
            td.borderColor[2] = 0.75f;
            td.borderColor[3] = 1.0f;
            r = texc(&a->u64, &rd, &td, NULL);
        }
    }
    if (r) {
        snprintf(err, errlen, "creating %s: %s", spec, errname(r));
        return -1;
    }
    return 0;
}

/* Destroys a texture/surface argument; a surface's array is first written to OUTDIR. */
static int free_tex(struct arg *a, int write, const char *outdir, char *err, size_t errlen) {
    int rc = 0;
    if (a->surf && write && a->outfile[0]) {
        CUresult (*cp3d)(const MEMCPY3D *) = sym("cuMemcpy3D_v2");
        size_t len = a->w * a->h * a->d * a->elem;
        char *buf = malloc(len ? len : 1);
        MEMCPY3D c;
        memset(&c, 0, sizeof c);
        c.srcMemoryType = 3;
        c.srcArray = a->array;
        c.dstMemoryType = 1;
        c.dstHost = buf;
        c.dstPitch = a->w * a->elem;
        c.dstHeight = a->h;
        c.WidthInBytes = a->w * a->elem;
        c.Height = a->h;
        c.Depth = a->d;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", outdir, a->outfile);
        CUresult r = cp3d(&c);
        if (r || write_file(path, buf, len)) {
            snprintf(err, errlen, "read back / write %s failed (%s)", path, errname(r));
            rc = -1;
        }
        free(buf);
    }
    CUresult (*td)(uint64_t) = sym(a->surf ? "cuSurfObjectDestroy" : "cuTexObjectDestroy");
    CUresult (*ad)(void *) = sym("cuArrayDestroy");
    if (td) td(a->u64);
    if (a->array && ad) ad(a->array);
    if (a->ptr) cuMemFree_v2(a->ptr);
    return rc;
}

/* GRID and BLOCK: N, XxY or XxYxZ (missing sizes are 1). */
static void dims(const char *s, unsigned d[3]) {
    char *end = (char *)s;
    for (int i = 0; i < 3; i++) {
        d[i] = 1;
        if (i == 0 || *end == 'x') d[i] = (unsigned)strtoul(i ? end + 1 : s, &end, 0);
    }
}

/* Runs one case line (tokens after "case"); returns 0 or -1 with a message in err. */
static int run_case(char **tok, int ntok, const char *base, const char *outdir, char *err,
                    size_t errlen) {
    if (ntok < 5) {
        snprintf(err, errlen, "short case line");
        return -1;
    }
    const char *file = tok[1], *kernel = tok[2];
    unsigned grid[3], block[3];
    dims(tok[3], grid);
    dims(tok[4], block);
    CUmodule m = module_of(base, file, err, errlen);
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
        if (!strncmp(t, "tex:", 4) || !strncmp(t, "surf:", 5)) {
            if (make_tex(a, t, base, err, errlen)) {
                rc = -1;
                break;
            }
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
            snprintf(path, sizeof path, "%s/in/%s", base, name);
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
        r = cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL,
                           params, NULL);
        if (!r) r = cuCtxSynchronize();
        if (r) {
            snprintf(err, errlen, "launch of %s: %s", kernel, errname(r));
            rc = -1;
        }
    }
    for (int i = 0; i < nargs; i++) {
        struct arg *a = &args[i];
        if (a->kind == 3) {
            if (free_tex(a, rc == 0, outdir, err, errlen)) rc = -1;
            continue;
        }
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
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: gpurun CASES BASEDIR OUTDIR [PTXFILE]\n");
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
        char *tok[64];
        int ntok = 0;
        for (char *p = line; *p && ntok < 64;) {
            while (*p == ' ' || *p == '\t' || *p == '\r') *p++ = 0;
            if (!*p) break;
            tok[ntok++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
        }
        if (ntok == 0 || tok[0][0] == '#' || strcmp(tok[0], "case")) continue;
        if (argc == 5) {
            const char *colon = strchr(argv[4], ':');
            size_t flen = colon ? (size_t)(colon - argv[4]) : strlen(argv[4]);
            if (ntok < 3 || strlen(tok[2]) != flen || strncmp(tok[2], argv[4], flen)) continue;
            if (colon && strcmp(tok[1], colon + 1)) continue;
        }
        ncases++;
        char err[9000] = "";
        if (run_case(tok + 1, ntok - 1, argv[2], argv[3], err, sizeof err)) {
            nfailed++;
            printf("FAIL %s: %s\n", ntok > 1 ? tok[1] : "?", err);
        }
    }
    printf("gpurun: %d cases, %d failed\n", ncases, nfailed);
    free(text);
    return nfailed ? 1 : 0;
}
