// Not supported yet: atomics.
// clang: yes
extern "C" __global__ void atomics(int *p) { atomicAdd(p, 1); }
