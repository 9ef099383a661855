// Which NaN is the "OOB NaN" of fma.oob (issue 15)? For every 16-bit pattern x, computes
// fma.rn.oob{.relu}.{f16,bf16} with a = x, b = 1.0, c = 0 and with a = 1.0, b = 1.0, c = x,
// and the f16x2/bf16x2 forms with x in the low half and 1.0 in the high half. Writes the
// 65536 x 6 results to probe.bin (u16 each), which is committed.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <cuda_runtime.h>

__global__ void k(unsigned short *out) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned short h1 = 0x3c00, b1 = 0x3f80, z = 0, r;
  unsigned short hx = (unsigned short)x;
  asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(hx), "h"(h1), "h"(z)); out[6 * x + 0] = r;
  asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(h1), "h"(h1), "h"(hx)); out[6 * x + 1] = r;
  asm("fma.rn.oob.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(hx), "h"(h1), "h"(z)); out[6 * x + 2] = r;
  asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(hx), "h"(b1), "h"(z)); out[6 * x + 3] = r;
  asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(b1), "h"(b1), "h"(hx)); out[6 * x + 4] = r;
  unsigned v2 = (unsigned)hx | (0x3c00u << 16), o2, one2 = 0x3c003c00u, z2 = 0;
  asm("fma.rn.oob.f16x2 %0, %1, %2, %3;" : "=r"(o2) : "r"(v2), "r"(one2), "r"(z2));
  out[6 * x + 5] = (unsigned short)o2 ^ (unsigned short)((o2 >> 16) != 0x3c00 ? 0xdead : 0);
}

int main() {
  unsigned short *d, *h = new unsigned short[65536 * 6];
  cudaMalloc(&d, 65536 * 6 * 2);
  k<<<256, 256>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("sync=%d\n", (int)e);
  cudaMemcpy(h, d, 65536 * 6 * 2, cudaMemcpyDeviceToHost);
  FILE *f = fopen(getenv("OUT") ? (std::string(getenv("OUT")) + "/probe.bin").c_str() : "probe.bin", "wb");
  fwrite(h, 2, 65536 * 6, f);
  fclose(f);
  int zeros[6] = {0};
  for (int x = 0; x < 65536; x++) for (int j = 0; j < 6; j++) zeros[j] += h[6 * x + j] == 0;
  printf("zero results per column: %d %d %d %d %d %d\n", zeros[0], zeros[1], zeros[2], zeros[3], zeros[4], zeros[5]);
  for (int x = 0; x < 65536; x++) {
    bool f16nan = (x & 0x7c00) == 0x7c00 && (x & 0x3ff);
    bool bfnan = (x & 0x7f80) == 0x7f80 && (x & 0x7f);
    if ((f16nan && h[6 * x] == 0) || (bfnan && h[6 * x + 3] == 0)) printf("x=%04x -> f16 %04x %04x relu %04x bf16 %04x %04x f16x2 %04x\n", x, h[6*x], h[6*x+1], h[6*x+2], h[6*x+3], h[6*x+4], h[6*x+5]);
  }
  return 0;
}
