// Integer widths, signedness, conversions, doubles, selects and 64-bit arithmetic.
// clang: yes
extern "C" __global__ void types(const signed char *a, const unsigned short *b, const long long *c,
                                 const double *d, unsigned long long *out, float *fout) {
    int i = threadIdx.x;
    int x = a[i];
    unsigned y = b[i];
    long long z = c[i] * 3 - (long long)x;
    unsigned long long u = (unsigned long long)z >> 5;
    double e = d[i] * 0.5 + (double)y;
    float f = (float)e;
    int g = (int)f;
    unsigned h = (unsigned)(e > 1.0 ? e : -e);
    out[i] = u ^ (unsigned long long)(y > 7u ? g : (int)h) ^ (unsigned long long)(z < 0);
    fout[i] = f > 0.0f ? f : 1.0f - f;
    out[i + 64] = (unsigned long long)((long long)x * (long long)y) + (z % 7 == 0 ? 1 : 2);
}
