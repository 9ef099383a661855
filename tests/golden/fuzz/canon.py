#!/usr/bin/env python3
"""NaN-canonicalized variants of generated programs: after every instruction that writes a
floating-point register (%f, %fd, %xf, %xfd), insert

    testp.notanumber.f32 %nanq, %fN;  @%nanq mov.f32 %fN, 0f7FFFFFFF;     (f64: 0d7FFFFFFFFFFFFFFF)

so that a NaN's payload and sign (where the GPU and ptxjit differ by the documented rule
NAN_BITS: the GPU propagates f64 payloads and keeps them through conversions, ptxjit gives
the canonical NaN) cannot flow into integer registers through bit moves. Every other
result, NaN or not, is unchanged.

    python3 canon.py IN.ptx OUT.ptx
"""
import re
import sys

DEST = re.compile(r"^(\s*)(@!?%\w+\s+)?([a-z][\w.:]*)\s+(%x?fd?\d+)\s*,")


def canon(src):
    out = []
    for line in src.splitlines():
        out.append(line)
        if re.match(r"\s*\.reg \.pred %q<4>;", line):
            out.append("\t.reg .pred %nanq;")
            continue
        m = DEST.match(line)
        if not m or m.group(3).startswith(("st.", "st", "setp", "testp")):
            continue
        reg = m.group(4)
        ind = m.group(1) or "\t"
        if reg.startswith(("%fd", "%xfd")):
            out.append(f"{ind}testp.notanumber.f64 %nanq, {reg};")
            out.append(f"{ind}@%nanq mov.f64 {reg}, 0d7FFFFFFFFFFFFFFF;")
        else:
            out.append(f"{ind}testp.notanumber.f32 %nanq, {reg};")
            out.append(f"{ind}@%nanq mov.f32 {reg}, 0f7FFFFFFF;")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        text = f.read()
    with open(sys.argv[2], "w") as f:
        f.write(canon(text))
