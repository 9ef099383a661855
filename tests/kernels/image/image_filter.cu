// A texture-sampling image filter (issue 17's client example): a 3x3 binomial blur and a
// Sobel gradient magnitude of a float image read through a 2D texture object with point
// sampling and clamp addressing (the edge pixels repeat), as image-processing code
// written for GPUs does. Compiled by NVRTC with -fmad=false so the float arithmetic is
// the plain IEEE sequence the Rust reference (tests/image_filter.rs) repeats.
extern "C" __global__ void blur3x3(cudaTextureObject_t tex, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float k[3] = {1.0f, 2.0f, 1.0f};
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            acc += (k[dy + 1] * k[dx + 1]) * tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
    out[y * w + x] = acc * 0.0625f;
}

extern "C" __global__ void sobel(cudaTextureObject_t tex, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float fx = x + 0.5f, fy = y + 0.5f;
    float a = tex2D<float>(tex, fx - 1, fy - 1), b = tex2D<float>(tex, fx, fy - 1),
          c = tex2D<float>(tex, fx + 1, fy - 1), d = tex2D<float>(tex, fx - 1, fy),
          f = tex2D<float>(tex, fx + 1, fy), g = tex2D<float>(tex, fx - 1, fy + 1),
          hh = tex2D<float>(tex, fx, fy + 1), i = tex2D<float>(tex, fx + 1, fy + 1);
    float gx = (c + 2.0f * f + i) - (a + 2.0f * d + g);
    float gy = (g + 2.0f * hh + i) - (a + 2.0f * b + c);
    out[y * w + x] = sqrtf(gx * gx + gy * gy);
}
