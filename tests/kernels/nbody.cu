// One n-body step's accelerations (benches/kernels.rs "nbody", tests/nbody.rs), f32, all
// pairs: for body i, a_i = sum over j = 0, 1, ..., n-1 of m_j * d / (|d|^2 + eps2)^(3/2)
// with d = p_j - p_i (the j = i term is zero: d = 0). Bodies are float4 (x, y, z, mass).
// The operations are spelled out (fmaf, __fmul_rn, correctly rounded 1/sqrtf) so that both
// compilers emit the same order and a Rust reference with mul_add is bit-identical.
extern "C" __global__ void nbody_acc(const float4* pos, float4* acc, int n, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x;
        float dy = pj.y - pi.y;
        float dz = pj.z - pi.z;
        float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
        float inv = 1.0f / sqrtf(d2);
        float s = __fmul_rn(__fmul_rn(__fmul_rn(pj.w, inv), inv), inv);
        ax = fmaf(dx, s, ax);
        ay = fmaf(dy, s, ay);
        az = fmaf(dz, s, az);
    }
    float4 r;
    r.x = ax;
    r.y = ay;
    r.z = az;
    r.w = 0.0f;
    acc[i] = r;
}
