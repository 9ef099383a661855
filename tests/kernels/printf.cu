// Device printf and assert (tests/printf.rs): ints, floats (promoted to double), strings,
// chars and a pointer from a few threads, with divergent branches; an assertion.
#define CHECK(e) ((e) ? (void)0 : __assertfail(#e, "printf.cu", __LINE__, __func__, 1))

extern "C" __global__ void printk(const int* a, const double* d, const char* s, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    if (t == 0) printf("hello\n");
    float f = (float)d[t];
    printf("t=%d a=%5d u=%u x=%#x ld=%ld f=%f e=%.3e g=%g s=%s c=%c p=%p%%\n", t, a[t],
           (unsigned)a[t], a[t], (long)a[t] * 1000000000L, f, d[t], d[t], s + t, 'A' + t, a);
    if (t % 2 == 1) {
        printf("odd %d|%-4d|%+d|%05.1f\n", t, t, t, d[t]);
    } else {
        printf("even %llx %-8s|\n", (unsigned long long)a[t] << 32, s);
    }
}

extern "C" __global__ void assertk(const int* a, int bad) {
    int t = threadIdx.x;
    CHECK(a[t] != bad);
}
