// archs: 52 61 75 86 90
// CUDA-samples-style applications: vectorAdd, BlackScholes, Mandelbrot, nbody, SAXPY with
// grid-stride loops, image boxfilter, binomial step, DCT-ish butterfly.
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i] + 0.0f;
}
__device__ inline float cndf(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));
    float c = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}
extern "C" __global__ void BlackScholes(float* call, float* put, const float* S, const float* X, const float* T, float R, float V, int n) {
    for (int i = blockDim.x * blockIdx.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float sqrtT = sqrtf(T[i]);
        float d1 = (__logf(S[i] / X[i]) + (R + 0.5f * V * V) * T[i]) / (V * sqrtT);
        float d2 = d1 - V * sqrtT;
        float e = __expf(-R * T[i]);
        call[i] = S[i] * cndf(d1) - X[i] * e * cndf(d2);
        put[i] = X[i] * e * (1.0f - cndf(d2)) - S[i] * (1.0f - cndf(d1));
    }
}
extern "C" __global__ void mandelbrot(unsigned char* img, int w, int h, float x0, float y0, float dx, int maxit) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cr = x0 + x * dx, ci = y0 + y * dx, zr = 0, zi = 0;
    int it = 0;
    while (it < maxit && zr * zr + zi * zi < 4.0f) { float t = zr * zr - zi * zi + cr; zi = 2 * zr * zi + ci; zr = t; it++; }
    img[y * w + x] = (unsigned char)(it * 255 / maxit);
}
extern "C" __global__ void nbody_step(float4* pos, float4* vel, int n, float dt, float eps2) {
    extern __shared__ float4 sh[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float3 a = {0, 0, 0};
    for (int t = 0; t < n; t += blockDim.x) {
        sh[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < blockDim.x; j++) {
            float4 q = sh[j];
            float rx = q.x - p.x, ry = q.y - p.y, rz = q.z - p.z;
            float d2 = rx * rx + ry * ry + rz * rz + eps2;
            float inv = rsqrtf(d2);
            float s = q.w * inv * inv * inv;
            a.x += rx * s; a.y += ry * s; a.z += rz * s;
        }
        __syncthreads();
    }
    float4 v = vel[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    vel[i] = v;
}
extern "C" __global__ void boxfilter(const unsigned char* in, unsigned char* out, int w, int h, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned s = 0, c = 0;
    for (int j = -r; j <= r; j++)
        for (int i = -r; i <= r; i++) {
            int xx = x + i, yy = y + j;
            if (xx >= 0 && yy >= 0 && xx < w && yy < h) { s += in[yy * w + xx]; c++; }
        }
    out[y * w + x] = (unsigned char)(s / c);
}
extern "C" __global__ void rgba_to_gray(const uchar4* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { uchar4 p = in[i]; out[i] = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z); }
}
