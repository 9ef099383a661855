// A length-prefixed record parser, the kind of kernel that parses network packets or
// file formats on a GPU. examples/fuzz-kernel fuzzes it with ptxjit's harness.
//
// Input: "PK", a version byte (2), then records [type:u8][len:u8][len payload bytes].
// Thread 0 walks the record headers (checking that each record fits in the input) and
// publishes up to 32 of them in shared memory; then lane i decodes record i:
//   'A' (ASCII):   sum of the bytes
//   'W' (words):   sum of the little-endian 16-bit words
//   'X' (xor):     xor of the bytes, rotated per byte
// and writes the result to out[i]; out[32] gets the record count.
//
// THE PLANTED BUG: the word decoder rounds an odd payload length up to whole words,
// (len + 1) / 2, so for a 'W' record of odd length it reads the byte after the payload:
// one element past the input when that record ends the input. On a GPU this reads
// whatever follows the buffer and nobody notices.

#define MAX_RECORDS 32

struct Record {
    unsigned off;
    unsigned len;
    unsigned type;
};

__device__ unsigned decode_words(const unsigned char* p, unsigned len) {
    unsigned sum = 0;
    unsigned words = (len + 1) / 2;  // BUG: should be len / 2 (plus the odd byte alone)
    for (unsigned k = 0; k < words; ++k) {
        sum += p[2 * k] | (p[2 * k + 1] << 8);
    }
    return sum;
}

__device__ unsigned decode_ascii(const unsigned char* p, unsigned len) {
    unsigned sum = 0;
    for (unsigned k = 0; k < len; ++k) {
        if (p[k] >= 0x80) return 0xffffffffu;  // not ASCII
        sum += p[k];
    }
    return sum;
}

__device__ unsigned decode_xor(const unsigned char* p, unsigned len) {
    unsigned h = 0x9e3779b9u;
    for (unsigned k = 0; k < len; ++k) {
        h = ((h << 5) | (h >> 27)) ^ p[k];
    }
    return h;
}

extern "C" __global__ void parse_records(const unsigned char* data, unsigned n, unsigned* out) {
    __shared__ Record recs[MAX_RECORDS];
    __shared__ unsigned count;
    unsigned lane = threadIdx.x;
    if (lane == 0) {
        unsigned c = 0;
        if (n >= 3 && data[0] == 'P') {
            if (data[1] == 'K') {
                if (data[2] == 2) {
                    unsigned pos = 3;
                    while (c < MAX_RECORDS && pos + 2 <= n) {
                        unsigned type = data[pos];
                        unsigned len = data[pos + 1];
                        if (pos + 2 + len > n) break;  // the record must fit
                        recs[c].off = pos + 2;
                        recs[c].len = len;
                        recs[c].type = type;
                        ++c;
                        pos += 2 + len;
                    }
                }
            }
        }
        count = c;
    }
    __syncthreads();
    if (lane < count) {
        Record r = recs[lane];
        const unsigned char* p = data + r.off;
        unsigned v;
        if (r.type == 'A') {
            v = decode_ascii(p, r.len);
        } else if (r.type == 'W') {
            v = decode_words(p, r.len);
        } else if (r.type == 'X') {
            v = decode_xor(p, r.len);
        } else {
            v = 0;
        }
        out[lane] = v;
    }
    if (lane == 0) out[MAX_RECORDS] = count;
}
