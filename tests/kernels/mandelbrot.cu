// Mandelbrot escape counts: a per-lane divergent loop (benches/kernels.rs, "mandelbrot").
// The float operations are written with __fmul_rn/__fadd_rn so the compiler
// cannot contract them into FMAs: the native Rust reference does the same f32 operations
// in the same order and gets bit-identical counts.
//
// out[y * w + x] = iterations before |z| > 2 (at most maxit) for c over [-2, 1] x [-1.5, 1.5].
extern "C" __global__ void mandel(unsigned* out, int w, int h, int maxit) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float sx = 3.0f / (float)w;
    float sy = 3.0f / (float)h;
    float cx = __fadd_rn(-2.0f, __fmul_rn((float)px, sx));
    float cy = __fadd_rn(-1.5f, __fmul_rn((float)py, sy));
    float x = 0.0f, y = 0.0f, xx = 0.0f, yy = 0.0f;
    int it = 0;
    while (__fadd_rn(xx, yy) <= 4.0f && it < maxit) {
        y = __fadd_rn(__fmul_rn(__fadd_rn(x, x), y), cy);
        x = __fadd_rn(__fadd_rn(xx, -yy), cx);
        xx = __fmul_rn(x, x);
        yy = __fmul_rn(y, y);
        ++it;
    }
    out[py * w + px] = it;
}
