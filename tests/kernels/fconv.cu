// Float <-> int conversions, float <-> double, rounding to integral values, min/max,
// abs, neg, and the basic f32/f64 arithmetic, on inputs that include +-0, NaN, +-inf,
// subnormals and halfway cases.
//
// Per thread i (inputs f[i], g[i] (f32), d[i], e[i] (f64), k[i] (i32), l[i] (i64)):
//   oi: 8 i32/u32 results at oi[8*i..], oc: 8 comparison flags (u8) at oc[j*n + i], j = 0..8,
//   ol: 4 i64 at ol[4*i..],
//   of: 16 f32 at of[16*i..], od: 12 f64 at od[12*i..].
extern "C" __global__ void fconv(const float* f, const float* g, const double* d, const double* e,
                                 const int* k, const long long* l,
                                 int* oi, unsigned char* oc, long long* ol, float* of, double* od, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i], y = g[i];
    double p = d[i], q = e[i];
    int m = k[i];
    long long w = l[i];

    int* ri = oi + 8 * i;
    ri[0] = (int)x;                          // cvt.rzi.s32.f32
    ri[1] = __float2int_rn(x);               // cvt.rni.s32.f32
    ri[2] = __float2int_rd(x);               // cvt.rmi.s32.f32
    ri[3] = __float2int_ru(x);               // cvt.rpi.s32.f32
    ri[4] = (int)(unsigned)x;                // cvt.rzi.u32.f32
    ri[5] = (int)__float2uint_rn(x);         // cvt.rni.u32.f32
    ri[6] = (int)p;                          // cvt.rzi.s32.f64
    ri[7] = (int)(unsigned)p;                // cvt.rzi.u32.f64

    // Ordered and unordered comparisons, one u8 flag array per comparison (strided by n
    // so that no compiler packs neighbouring flags into one wider store).
    oc[0 * n + i] = x < y;                   // setp.lt.f32
    oc[1 * n + i] = x == y;                  // setp.eq.f32
    oc[2 * n + i] = x > y;                   // setp.gt.f32
    oc[3 * n + i] = x != y;                  // setp.neu.f32 (true when unordered)
    oc[4 * n + i] = p <= q;                  // setp.le.f64
    oc[5 * n + i] = p >= q;                  // setp.ge.f64
    oc[6 * n + i] = !(p < q);                // setp.geu.f64
    oc[7 * n + i] = p != p;                  // setp.nan.f64

    long long* rl = ol + 4 * i;
    rl[0] = (long long)x;                    // cvt.rzi.s64.f32
    rl[1] = (long long)p;                    // cvt.rzi.s64.f64
    rl[2] = (long long)(unsigned long long)p;// cvt.rzi.u64.f64
    rl[3] = (long long)(unsigned long long)x;// cvt.rzi.u64.f32

    float* rf = of + 16 * i;
    rf[0] = rintf(x);                        // cvt.rni.f32.f32
    rf[1] = floorf(x);                       // cvt.rmi.f32.f32
    rf[2] = ceilf(x);                        // cvt.rpi.f32.f32
    rf[3] = truncf(x);                       // cvt.rzi.f32.f32
    rf[4] = (float)m;                        // cvt.rn.f32.s32
    rf[5] = (float)(unsigned)m;              // cvt.rn.f32.u32
    rf[6] = (float)p;                        // cvt.rn.f32.f64
    rf[7] = fminf(x, y);                     // min.f32
    rf[8] = fmaxf(x, y);                     // max.f32
    rf[9] = fabsf(x);                        // abs.f32
    rf[10] = -x;                             // neg.f32
    rf[11] = __fadd_rn(x, y);                // add.rn.f32
    rf[12] = x - y;                          // sub.f32
    rf[13] = __fmul_rn(x, y);                // mul.rn.f32
    rf[14] = x / y;                          // div.rn.f32
    rf[15] = (float)w;                       // cvt.rn.f32.s64

    double* rd = od + 12 * i;
    rd[0] = (double)x;                       // cvt.f64.f32
    rd[1] = (double)m;                       // cvt.rn.f64.s32
    rd[2] = (double)w;                       // cvt.rn.f64.s64
    rd[3] = (double)(unsigned long long)w;   // cvt.rn.f64.u64
    rd[4] = fmin(p, q);                      // min.f64
    rd[5] = fmax(p, q);                      // max.f64
    rd[6] = fabs(p);                         // abs.f64
    rd[7] = -p;                              // neg.f64
    rd[8] = p / q;                           // div.rn.f64
    rd[9] = fma(p, q, p);                    // fma.rn.f64
    rd[10] = __dadd_rn(p, q);                // add.rn.f64
    rd[11] = rint(p) + floor(q);             // cvt.rni.f64.f64, cvt.rmi.f64.f64
}
