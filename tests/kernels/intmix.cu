// Integer arithmetic mix: mul.hi / mul.wide, 64-bit arithmetic, shifts by per-thread
// amounts (always < the width: C leaves larger amounts undefined, PTX clamps), signed
// and unsigned compares and selects, 8/16-bit loads and stores.
//
// Per thread i: 15 u32 results at o32[15*i..], 8 u64 results at o64[8*i..],
// 2 bytes at o8[2*i..], 2 u16 at o16[2*i..].
#define N32 15
#define N64 8
extern "C" __global__ void intmix(const unsigned* a, const unsigned* b, const unsigned long long* c,
                                  const unsigned char* bytes, const short* halves,
                                  unsigned* o32, unsigned long long* o64, unsigned char* o8,
                                  unsigned short* o16, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned long long z = c[i];
    int sx = (int)x, sy = (int)y;
    long long sz = (long long)z;
    unsigned s = y & 31;           // per-thread shift amount
    unsigned t = x & 31;
    unsigned u = x >> 26;          // 64-bit shift amount (0..63)

    unsigned* r = o32 + N32 * i;
    r[0] = __umulhi(x, y);                          // mul.hi.u32
    r[1] = (unsigned)__mulhi(sx, sy);               // mul.hi.s32
    r[2] = x * y + (x ^ y);                         // mul.lo / mad.lo
    r[3] = (x << s) ^ (y >> t);                     // shl.b32 / shr.u32 by registers
    r[4] = (unsigned)(sx >> s);                     // shr.s32 (arithmetic)
    r[5] = (sx < sy) ? (x ^ 0x55u) : (y + 7u);      // signed compare + select
    r[6] = (x < y) ? (x - y) : (x | y);             // unsigned compare + select
    r[7] = ~x & (y | 0xF0F0u);                      // not / and / or
    r[8] = (sx >= 0) == (sy >= 0) ? x - y : y - x;  // sign tests
    r[9] = (x == y);
    r[10] = (x != 0) ? 0xAAAAu : 0x5555u;
    r[11] = (sx <= -5);
    r[12] = (x >= 0x80000000u) ? y : x;
    unsigned short hx = (unsigned short)x, hy = (unsigned short)y;
    r[13] = (unsigned short)((unsigned)hx * hy + hx); // 16-bit wrap
    r[14] = (unsigned)(int)(short)(hx ^ hy) >> 3;   // sign extension from 16 bits

    unsigned long long* q = o64 + N64 * i;
    q[0] = (unsigned long long)x * y;               // mul.wide.u32
    q[1] = (unsigned long long)((long long)sx * sy);// mul.wide.s32
    q[2] = z * (z >> 7) + x;                        // mul.lo.s64 / shr.u64 / add
    q[3] = __umul64hi(z, z ^ y);                    // mul.hi.u64
    q[4] = (z << u) ^ (unsigned long long)(sz >> (63 - u)); // shl.b64 / shr.s64 by registers
    q[5] = (sz < (long long)sx) ? z - x : z + y;    // signed 64-bit compare, sign-extended sx
    q[6] = (unsigned long long)(long long)sx + (unsigned long long)y; // cvt.s64.s32 / cvt.u64.u32
    q[7] = (z > 0xFFFFFFFFull) ? (z >> 32) * (z & 0xFFFFFFFFull) : z - 1; // unsigned 64 compare

    unsigned char bv = bytes[i];
    short hv = halves[i];
    o8[2 * i + 0] = (unsigned char)(bv + x);        // st.global.u8 (8-bit wrap)
    o8[2 * i + 1] = (unsigned char)(bv ^ 0xA5u);
    o16[2 * i + 0] = (unsigned short)(hv * 3);      // ld.global.s16, st.global.u16
    o16[2 * i + 1] = (unsigned short)(hv >> 2);     // arithmetic shift of a sign-extended short
}
