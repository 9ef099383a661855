// OpenCL C versions of the benchmark kernels (benches/kernels.rs, the POCL column of the
// table; `cargo bench --features pocl`). Each is the algorithm of its CUDA C original in
// tests/kernels/ (or examples/saxpy.cu), with the same float operations in the same
// order: contraction is off and every fused multiply-add is an explicit fma(), division
// and sqrt are built with -cl-fp32-correctly-rounded-divide-sqrt, so the results are the
// bits of the native Rust reference (the benchmark checks them).
#pragma OPENCL FP_CONTRACT OFF

// examples/saxpy.cu
kernel void saxpy(uint n, float a, global const float* x, global float* y) {
    uint i = get_global_id(0);
    if (i < n) y[i] = fma(a, x[i], y[i]);
}

// tests/kernels/reduce.cu block_sum_u32: tree order in local memory, 256 work-items.
#define BLOCK 256
kernel void block_sum_u32(global const uint* in, global uint* partial, uint n) {
    local uint s[BLOCK];
    uint t = get_local_id(0);
    uint i = get_group_id(0) * BLOCK + t;
    s[t] = i < n ? in[i] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) partial[get_group_id(0)] = s[0];
}

// tests/kernels/mandelbrot.cu (no contraction: FP_CONTRACT OFF).
kernel void mandel(global uint* out, int w, int h, int maxit) {
    int px = get_global_id(0);
    int py = get_global_id(1);
    if (px >= w || py >= h) return;
    float sx = 3.0f / (float)w;
    float sy = 3.0f / (float)h;
    float cx = -2.0f + (float)px * sx;
    float cy = -1.5f + (float)py * sy;
    float x = 0.0f, y = 0.0f, xx = 0.0f, yy = 0.0f;
    int it = 0;
    while (xx + yy <= 4.0f && it < maxit) {
        y = (x + x) * y + cy;
        x = (xx - yy) + cx;
        xx = x * x;
        yy = y * y;
        ++it;
    }
    out[py * w + px] = it;
}

// tests/kernels/bytecode.cu: the stack machine with a switch.
enum {
    OP_PUSH, OP_DUP, OP_SWAP, OP_DROP, OP_ADD, OP_SUB, OP_MUL, OP_XOR,
    OP_AND, OP_SHL, OP_SHR, OP_JNZ, OP_JMP, OP_DEC, OP_IN, OP_HALT
};
kernel void bytecode(global const uint* code, uint len, global const uint* in,
                     global uint* out, uint count, uint max_steps) {
    uint i = get_global_id(0);
    if (i >= count) return;
    uint st[8];
    for (int k = 0; k < 8; ++k) st[k] = 0;
    uint sp = 0, pc = 0, steps = 0;
    uint input = in[i];
#define PUSH(v) (st[sp++ & 7] = (v))
#define POP() (st[--sp & 7])
#define TOP st[(sp - 1) & 7]
    while (steps < max_steps && pc < len) {
        uint ins = code[pc];
        uint imm = ins >> 8;
        ++pc;
        ++steps;
        uint a, b;
        switch (ins & 15) {
        case OP_PUSH: PUSH(imm); break;
        case OP_DUP: a = TOP; PUSH(a); break;
        case OP_SWAP: b = POP(); a = POP(); PUSH(b); PUSH(a); break;
        case OP_DROP: --sp; break;
        case OP_ADD: b = POP(); a = POP(); PUSH(a + b); break;
        case OP_SUB: b = POP(); a = POP(); PUSH(a - b); break;
        case OP_MUL: b = POP(); a = POP(); PUSH(a * b); break;
        case OP_XOR: b = POP(); a = POP(); PUSH(a ^ b); break;
        case OP_AND: b = POP(); a = POP(); PUSH(a & b); break;
        case OP_SHL: b = POP(); a = POP(); PUSH(a << (b & 31)); break;
        case OP_SHR: b = POP(); a = POP(); PUSH(a >> (b & 31)); break;
        case OP_JNZ: a = POP(); if (a != 0) pc = imm; break;
        case OP_JMP: pc = imm; break;
        case OP_DEC: TOP = TOP - 1; break;
        case OP_IN: PUSH(input); break;
        case OP_HALT: pc = len; break;
        }
    }
    out[i] = TOP + 0x9e3779b9u * steps;
}

// tests/kernels/atomics.cu hist_global / hist_shared: 64 bins, grid-stride loops.
kernel void hist_global(global const uint* in, global uint* bins, int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&bins[in[i] % 64]);
}
kernel void hist_shared(global const uint* in, global uint* bins, int n) {
    local uint s[64];
    for (int k = get_local_id(0); k < 64; k += get_local_size(0)) s[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&s[in[i] % 64]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = get_local_id(0); k < 64; k += get_local_size(0))
        if (s[k]) atomic_add(&bins[k], s[k]);
}

// tests/kernels/sgemm.cu: 16 x 16 tiles of A and B in local memory.
#define TILE 16
kernel void sgemm_tiled(global const float* a, global const float* b, global float* c, int n) {
    local float as[TILE][TILE];
    local float bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty;
    int col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k) acc = fma(as[ty][k], bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

// tests/kernels/nbody.cu: all pairs, float4 (x, y, z, mass).
kernel void nbody_acc(global const float4* pos, global float4* acc, int n, float eps2) {
    int i = get_global_id(0);
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x;
        float dy = pj.y - pi.y;
        float dz = pj.z - pi.z;
        float d2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)));
        float inv = 1.0f / sqrt(d2);
        float s = pj.w * inv * inv * inv;
        ax = fma(dx, s, ax);
        ay = fma(dy, s, ay);
        az = fma(dz, s, az);
    }
    acc[i] = (float4)(ax, ay, az, 0.0f);
}

// tests/kernels/scan.cu block_scan, with local memory in place of the warp shuffles (the
// same steps: a Hillis-Steele scan of each 32-item segment with offsets 1, 2, ..., 16,
// segment totals scanned the same way by the first segment, then added). At most 1024
// work-items per group; the group size is a multiple of 32.
kernel void block_scan(global const uint* in, global uint* out, uint n) {
    local uint buf[1024];
    local uint totals[32];
    uint t = get_local_id(0);
    uint i = get_global_id(0);
    uint lane = t & 31;
    uint warp = t >> 5;
    uint v = i < n ? in[i] : 0u;
    for (uint o = 1; o < 32; o <<= 1) {
        buf[t] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane >= o) v += buf[t - o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 31) totals[warp] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint warps = get_local_size(0) >> 5;
    uint w = (warp == 0 && lane < warps) ? totals[lane] : 0u;
    for (uint o = 1; o < 32; o <<= 1) {
        if (warp == 0) buf[t] = w;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (warp == 0 && lane >= o) w += buf[t - o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (warp == 0 && lane < warps) totals[lane] = w;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp > 0) v += totals[warp - 1];
    if (i < n) out[i] = v;
}
