// Pointers inside a packed struct: nvcc writes them as byte masks 0xFF(generic(x)), ...
// clang: ptx71
__device__ int x;
struct __attribute__((packed)) S { char c; int *p; };
__device__ S s = {1, &x};
extern "C" __global__ void packed(int *o) { o[0] = s.c; }
