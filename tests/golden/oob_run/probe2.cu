// Second probe (after probe.cu found the OOB NaN 0x7ff7): b = x, and a = OOB NaN with c = x.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(unsigned short *out) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned short h1 = 0x3c00, b1 = 0x3f80, z = 0, oob = 0x7ff7, r, hx = (unsigned short)x;
  asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(h1), "h"(hx), "h"(z)); out[4 * x + 0] = r;
  asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(oob), "h"(h1), "h"(hx)); out[4 * x + 1] = r;
  asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(b1), "h"(hx), "h"(z)); out[4 * x + 2] = r;
  asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(oob), "h"(b1), "h"(hx)); out[4 * x + 3] = r;
}
int main() {
  unsigned short *d, *h = new unsigned short[65536 * 4];
  cudaMalloc(&d, 65536 * 4 * 2);
  k<<<256, 256>>>(d);
  printf("sync=%d\n", (int)cudaDeviceSynchronize());
  cudaMemcpy(h, d, 65536 * 4 * 2, cudaMemcpyDeviceToHost);
  int zeros[4] = {0}, nz[4] = {0};
  for (int x = 0; x < 65536; x++) for (int j = 0; j < 4; j++) { zeros[j] += h[4 * x + j] == 0; if (j % 2 && h[4*x+j]) { if (nz[j]++ < 3) printf("col %d x=%04x -> %04x\n", j, x, h[4*x+j]); } }
  printf("zero results per column: %d %d %d %d\n", zeros[0], zeros[1], zeros[2], zeros[3]);
  for (int x = 0; x < 65536; x++) if (h[4*x] == 0 || h[4*x+2] == 0) printf("b=x=%04x -> f16 %04x bf16 %04x\n", x, h[4*x], h[4*x+2]);
  return 0;
}
