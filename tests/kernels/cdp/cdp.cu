// Dynamic parallelism (CDP2) kernels for tests/cdp.rs, compiled by NVRTC with -rdc=true
// (regen.sh): device-side launches become calls of __cudaCDP2GetParameterBufferV2 and
// __cudaCDP2LaunchDeviceV2. The expected values are Rust references in tests/cdp.rs.
#include <cuda_runtime.h>

// --- A parent whose threads each launch a child that fills one slice. ---
__global__ void fill_slice(int *out, int slice, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[slice * n + i] = slice * 1000 + i * i;
}

extern "C" __global__ void parent_slices(int *out, int n, int *errs) {
    int slice = blockIdx.x * blockDim.x + threadIdx.x;
    fill_slice<<<(n + 31) / 32, 32>>>(out, slice, n);
    errs[slice] = cudaGetLastError();
}

// --- Nesting: every thread of a 2-thread grid launches a child grid, to depth `max`.
// Each grid appends (depth, id) to `log` at its entry; id numbers the tree's nodes in
// heap order (children of node k are 2k+1 and 2k+2).
extern "C" __global__ void nest(int *log, int *next, int depth, int max, int id) {
    if (threadIdx.x == 0) {
        int slot = atomicAdd(next, 1);
        log[2 * slot] = depth;
        log[2 * slot + 1] = id;
    }
    if (depth < max) nest<<<1, 2>>>(log, next, depth + 1, max, 2 * id + 1 + threadIdx.x);
}

// --- Tail launch: runs after the parent grid and all its other children completed. ---
__global__ void count_up(int *counter) { atomicAdd(counter, 1); }

__global__ void tail_check(int *counter, int *seen) { *seen = atomicAdd(counter, 0); }

extern "C" __global__ void tail_parent(int *counter, int *seen) {
    // The tail launch comes first in program order; it still runs last.
    if (threadIdx.x == 0) tail_check<<<1, 1, 0, cudaStreamTailLaunch>>>(counter, seen);
    count_up<<<2, 16>>>(counter);
    count_up<<<1, 8, 0, cudaStreamFireAndForget>>>(counter);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    count_up<<<1, 4, 0, s>>>(counter);
    cudaStreamDestroy(s);
}

// --- Limits: launches over the pending-launch limit and past the nesting depth fail. ---
extern "C" __global__ void many(int *counter, int *errs) {
    count_up<<<1, 1>>>(counter);
    errs[blockIdx.x * blockDim.x + threadIdx.x] = cudaGetLastError();
}

extern "C" __global__ void deep(int *reached, int *errs, int depth) {
    reached[depth] = 1;
    if (depth < 30) {
        deep<<<1, 1>>>(reached, errs, depth + 1);
        errs[depth] = cudaGetLastError();
    }
}

// --- The other entry points: device, limits, streams, events, errors. ---
extern "C" __global__ void runtime_calls(long long *out) {
    int dev = -1, count = -1;
    out[0] = cudaGetDevice(&dev);
    out[1] = dev;
    out[2] = cudaGetDeviceCount(&count);
    out[3] = count;
    size_t v = 0;
    out[4] = cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount);
    out[5] = (long long)v;
    cudaStream_t s;
    out[6] = cudaStreamCreateWithFlags(&s, 0);  // device streams must be non-blocking
    out[7] = cudaPeekAtLastError();
    out[8] = cudaGetLastError();
    out[9] = cudaGetLastError();
    cudaEvent_t e;
    out[10] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    out[11] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    out[12] = cudaEventRecord(e, s);
    out[13] = cudaStreamWaitEvent(s, e, 0);
    out[14] = cudaEventDestroy(e);
    out[15] = cudaStreamDestroy(s);
    out[16] = cudaStreamDestroy(s);  // destroyed twice
    out[17] = cudaGetLastError();
}

// --- Quicksort in the style of the CUDA samples' cdpSimpleQuicksort: one thread per
// grid partitions [left, right] around the middle element and launches a grid for each
// side into its own stream; short ranges (or deep ones) are selection-sorted. ---
#define QS_MAX_DEPTH 16
#define QS_SMALL 32

__device__ void selection_sort(unsigned *data, int left, int right) {
    for (int i = left; i <= right; ++i) {
        unsigned min_val = data[i];
        int min_idx = i;
        for (int j = i + 1; j <= right; ++j) {
            if (data[j] < min_val) {
                min_idx = j;
                min_val = data[j];
            }
        }
        if (i != min_idx) {
            data[min_idx] = data[i];
            data[i] = min_val;
        }
    }
}

extern "C" __global__ void quicksort(unsigned *data, int left, int right, int depth) {
    if (depth >= QS_MAX_DEPTH || right - left <= QS_SMALL) {
        selection_sort(data, left, right);
        return;
    }
    unsigned *lptr = data + left;
    unsigned *rptr = data + right;
    unsigned pivot = data[(left + right) / 2];
    while (lptr <= rptr) {
        unsigned lval = *lptr;
        unsigned rval = *rptr;
        while (lval < pivot) {
            lptr++;
            lval = *lptr;
        }
        while (rval > pivot) {
            rptr--;
            rval = *rptr;
        }
        if (lptr <= rptr) {
            *lptr++ = rval;
            *rptr-- = lval;
        }
    }
    int nright = rptr - data;
    int nleft = lptr - data;
    if (left < nright) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        quicksort<<<1, 1, 0, s>>>(data, left, nright, depth + 1);
        cudaStreamDestroy(s);
    }
    if (nleft < right) {
        cudaStream_t s1;
        cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
        quicksort<<<1, 1, 0, s1>>>(data, nleft, right, depth + 1);
        cudaStreamDestroy(s1);
    }
}

// --- The launch API under <<<>>>, called directly: cudaGetParameterBuffer and
// cudaLaunchDevice (with the grid and block as dim3 values). ---
extern "C" __global__ void parent_explicit(int *out, int n) {
    int slice = threadIdx.x;
    char *buf = (char *)cudaGetParameterBuffer(8, 16);
    if (buf) {
        *(int **)buf = out;
        *(int *)(buf + 8) = slice;
        *(int *)(buf + 12) = n;
        cudaLaunchDevice((void *)fill_slice, buf, dim3((n + 31) / 32), dim3(32), 0, 0);
    }
}
