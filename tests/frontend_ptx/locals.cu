// A local array indexed dynamically: the .local depot, %SP/%SPL.
// clang: yes
extern "C" __global__ void locals(const int *idx, int *out) {
    int buf[16];
    for (int k = 0; k < 16; k++) buf[k] = k * idx[k];
    out[threadIdx.x] = buf[idx[threadIdx.x] & 15];
}
