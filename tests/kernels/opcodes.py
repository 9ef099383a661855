#!/usr/bin/env python3
"""Lists the PTX opcodes (with modifiers) used by each file and flags base opcodes outside
the set the tests are meant to exercise (ptxjit's first milestone)."""
import re
import sys

ALLOWED = {
    "add", "sub", "mul", "mad", "fma", "div", "neg", "abs", "min", "max",
    "and", "or", "xor", "not", "shl", "shr", "cnot",
    "setp", "selp", "set", "slct",
    "ld", "st", "mov", "cvt", "cvta",
    "bra", "brx", "ret", "exit", "bar", "barrier", "nanosleep",
}
# div/rem on integers are not in the first milestone.
INT_TYPES = (".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64")

INST = re.compile(r"^\s*(?:[\w$]+:\s*)?(?:@!?%?\w+\s+)?([a-z][\w.]*)\b")
# Hand-written kernels that deliberately go beyond the first milestone.
EXTRA = {}


def opcodes(path):
    ops = {}
    in_body = False
    for n, line in enumerate(open(path), 1):
        line = line.split("//")[0].strip()
        line = re.sub(r"^[\w$]+:\s*(?=\.)", "", line)  # `ts: .branchtargets ...`
        if not line or line.startswith(".") or line.endswith(":") or line in "{}":
            continue
        if line.startswith(("{", "}")):
            line = line.strip("{} ")
            if not line:
                continue
        m = INST.match(line)
        if m:
            ops.setdefault(m.group(1), n)
    return ops


def main():
    bad = False
    for path in sys.argv[1:]:
        ops = opcodes(path)
        flagged = []
        for op in sorted(ops):
            base = op.split(".")[0]
            if base in EXTRA.get(path.split("/")[-1], ()):
                continue
            if base not in ALLOWED or (base in ("div", "rem") and op.endswith(INT_TYPES)):
                flagged.append(f"{op} (line {ops[op]})")
        print(f"{path.split('/')[-1]}: {' '.join(sorted(ops))}")
        if flagged:
            bad = True
            print(f"  OUTSIDE MILESTONE: {', '.join(flagged)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
