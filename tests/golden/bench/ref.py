#!/usr/bin/env python3
"""Reference outputs (exact, pure Python) of the benchmark kernels that no GPU has recorded
yet: writes ref/FILE.bin for each such output of cases.txt. f32 arithmetic is done in
doubles and rounded once to f32 (exact for + - * / sqrt of f32 operands: 53 >= 2*24+2);
fma rounds the double sum to odd first (then the f32 rounding is the correct one). NaN
results are the canonical 0x7fffffff, as f32 arithmetic gives on the GPU (tests/golden/
README.md, NaN section). Run after gen.py: python3 tests/golden/bench/ref.py"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
M32 = 0xffffffff


def words(name):
    with open(os.path.join(HERE, "in", name), "rb") as f:
        b = f.read()
    return list(struct.unpack("<%dI" % (len(b) // 4), b))


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def r32(x):
    """x rounded to the nearest f32 (ties to even), as a Python float."""
    if math.isnan(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def bits(x):
    return 0x7fffffff if math.isnan(x) else struct.unpack("<I", struct.pack("<f", x))[0]


def fma(a, b, c):
    """fma.rn.f32: a*b is exact in a double; the sum is rounded to odd, then to f32."""
    p = a * b
    s = p + c
    if math.isfinite(s) and s != 0:
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        if err != 0 and struct.unpack("<Q", struct.pack("<d", s))[0] & 1 == 0:
            s = math.nextafter(s, math.inf if err > 0 else -math.inf)
    return r32(s)


def mandel(w, h, maxit):
    out = []
    sx, sy = r32(3.0 / w), r32(3.0 / h)
    for py in range(h):
        for px in range(w):
            cx, cy = r32(-2.0 + r32(px * sx)), r32(-1.5 + r32(py * sy))
            x = y = xx = yy = 0.0
            it = 0
            while r32(xx + yy) <= 4.0 and it < maxit:
                y = r32(r32(r32(x + x) * y) + cy)
                x = r32(r32(xx - yy) + cx)
                xx, yy = r32(x * x), r32(y * y)
                it += 1
            out.append(it)
    return out


def bytecode(code, inp, count, max_steps):
    out = []
    for i in range(count):
        st, sp, pc, steps = [0] * 8, 0, 0, 0

        def push(v):
            nonlocal sp
            st[sp & 7] = v & M32
            sp = (sp + 1) & M32

        def pop():
            nonlocal sp
            sp = (sp - 1) & M32
            return st[sp & 7]
        while steps < max_steps and pc < len(code):
            ins = code[pc]
            imm, op = ins >> 8, ins & 15
            pc += 1
            steps += 1
            if op == 0:
                push(imm)
            elif op == 1:
                push(st[(sp - 1) & 7])
            elif op == 2:
                b = pop()
                a = pop()
                push(b)
                push(a)
            elif op == 3:
                sp = (sp - 1) & M32
            elif 4 <= op <= 10:
                b = pop()
                a = pop()
                push([a + b, a - b, a * b, a ^ b, a & b, a << (b & 31), a >> (b & 31)][op - 4])
            elif op == 11:
                if pop() != 0:
                    pc = imm
            elif op == 12:
                pc = imm
            elif op == 13:
                st[(sp - 1) & 7] = (st[(sp - 1) & 7] - 1) & M32
            elif op == 14:
                push(inp[i])
            else:
                pc = len(code)
        out.append((st[(sp - 1) & 7] + 0x9e3779b9 * steps) & M32)
    return out


def warp_reduce(inp, n, threads):
    v = [inp[i] if i < n else 0 for i in range(threads)]
    sums = [sum(v[w:w + 32]) & M32 for w in range(0, threads, 32)]
    return sums, [max(v[i & ~31:(i & ~31) + 32]) for i in range(n)]


def block_scan(inp, n, grid, block):
    out = []
    for c in range(grid):
        acc = 0
        for i in range(c * block, (c + 1) * block):
            acc = (acc + (inp[i] if i < n else 0)) & M32
            if i < n:
                out.append(acc)
    return out


def sgemm(a, b, n):
    a, b = [f(x) for x in a], [f(x) for x in b]
    out = []
    for row in range(n):
        for col in range(n):
            acc = 0.0
            for k in range(n):
                acc = fma(a[row * n + k], b[k * n + col], acc)
            out.append(bits(acc))
    return out


def rcp(x):
    return math.copysign(math.inf, x) if x == 0 else r32(1.0 / x)


def nbody(pos, n, eps2):
    p = [f(x) for x in pos]
    out = []
    for i in range(n):
        x1, y1, z1 = p[4 * i:4 * i + 3]
        ax = ay = az = 0.0
        for j in range(n):
            dx, dy, dz = r32(p[4 * j] - x1), r32(p[4 * j + 1] - y1), r32(p[4 * j + 2] - z1)
            d2 = fma(dz, dz, fma(dy, dy, fma(dx, dx, eps2)))
            s = math.nan if d2 < 0 or math.isnan(d2) else r32(math.sqrt(d2))
            r = rcp(s)
            t = r32(r32(r32(p[4 * j + 3] * r) * r) * r)
            ax, ay, az = fma(dx, t, ax), fma(dy, t, ay), fma(dz, t, az)
        out += [bits(ax), bits(ay), bits(az), 0]
    return out


def num(t):
    return int(t.split(":")[1], 0)


def main():
    os.makedirs(os.path.join(HERE, "ref"), exist_ok=True)
    results = {}
    for line in open(os.path.join(HERE, "cases.txt")):
        t = line.split()
        if not t or t[0] != "case":
            continue
        k, grid, block, args = t[3], t[4], t[5], t[6:]
        ins = [words(a[3:].split(":")[0]) for a in args if a.startswith("in:")]
        u = [num(a) for a in args if a.startswith("u32:")]
        outs = [a.split(":")[1] for a in args if a.startswith("out:")]
        if k == "mandel":
            res = [mandel(*u)]
        elif k == "bytecode":
            res = [bytecode(ins[0][:u[0]], ins[1], u[1], u[2])]
        elif k in ("hist_global", "hist_shared"):
            hist = [0] * 64
            for x in ins[0][:u[0]]:
                hist[x % 64] += 1
            res = [hist]
        elif k == "warp_reduce":
            res = list(warp_reduce(ins[0], u[0], int(grid) * int(block)))
        elif k == "block_scan":
            res = [block_scan(ins[0], u[0], int(grid), int(block))]
        elif k == "sgemm_tiled":
            res = [sgemm(ins[0], ins[1], u[0])]
        elif k == "nbody_acc":
            res = [nbody(ins[0], u[0], f(u[1]))]
        else:
            continue
        for name, r in zip(outs, res):
            results[name] = r
    for name, r in results.items():
        with open(os.path.join(HERE, "ref", name), "wb") as fh:
            fh.write(struct.pack("<%dI" % len(r), *r))


if __name__ == "__main__":
    main()
