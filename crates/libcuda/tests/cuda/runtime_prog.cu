// A CUDA runtime-API program built by NVIDIA's nvcc (tests/nvcc_client.rs): a kernel
// reading __constant__ memory set with cudaMemcpyToSymbol and counting into a
// __device__ global with atomics, device printf, a stream with events, a shared-memory
// block reduction, cudaMemset and cudaDeviceSynchronize. It checks its results against
// host arithmetic and prints PASS or FAIL.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float coeff[2];
__device__ int counter;

__global__ void axpb(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = coeff[0] * x[i] + coeff[1];
    atomicAdd(&counter, 1);
  }
  if (i == 0) printf("hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
}

__global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("FAIL %s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main() {
  const int n = 10000;
  float *x, *y, hx[n], hy[n];
  for (int i = 0; i < n; i++) hx[i] = i;
  float c[2] = {2.0f, 0.5f};
  CK(cudaMemcpyToSymbol(coeff, c, sizeof c));
  int zero = 0;
  CK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, s));
  axpb<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
  CK(cudaGetLastError());
  CK(cudaEventRecord(b, s));
  CK(cudaStreamSynchronize(s));
  float ms = -1;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += hy[i] != 2.0f * i + 0.5f;
  int cnt = 0;
  CK(cudaMemcpyFromSymbol(&cnt, counter, sizeof cnt));
  int *in, *out, hin[n], sum = 0, expect = 0;
  for (int i = 0; i < n; i++) { hin[i] = i % 13; expect += i % 13; }
  CK(cudaMalloc(&in, sizeof hin));
  CK(cudaMalloc(&out, sizeof(int)));
  CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  CK(cudaMemset(out, 0, sizeof(int)));
  block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  printf("axpb mismatches %d, counter %d (want %d), sum %d (want %d), elapsed >= 0: %d\n", bad, cnt, n, sum, expect, ms >= 0);
  bool ok = bad == 0 && cnt == n && sum == expect && ms >= 0;
  printf(ok ? "nvcc program: PASS\n" : "nvcc program: FAIL\n");
  return ok ? 0 : 1;
}
