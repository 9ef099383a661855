extern "C" __global__ void scale(float *x, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= k;
}
