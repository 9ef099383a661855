// Element-wise f32 addition, guarded for ragged sizes.
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// The same with float4 loads/stores (ld/st.global.v4.f32): thread i handles elements
// 4i..4i+3; a thread whose group runs past n handles the tail element by element.
extern "C" __global__ void vecadd4(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned base = i * 4;
    if (base + 4 <= n) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        float4 r;
        r.x = x.x + y.x;
        r.y = x.y + y.y;
        r.z = x.z + y.z;
        r.w = x.w + y.w;
        reinterpret_cast<float4*>(c)[i] = r;
    } else {
        for (unsigned k = base; k < n; k++) c[k] = a[k] + b[k];
    }
}

// f64 element-wise: c = a - b, d = a * b (sub.f64, mul.f64 with explicit rounding so
// that no compiler fuses anything).
extern "C" __global__ void vecsubmul_f64(const double* a, const double* b, double* c, double* d, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i];
        c[i] = x - y;
        d[i] = __dmul_rn(x, y);
    }
}
