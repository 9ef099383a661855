#!/usr/bin/env python3
"""ISA-manual generator: extracts the examples of /work/shared/ptx-spec (or $PTX_SPEC) into
tests/corpus/spec/<chapter>.<n>.ptx.

A complete example (one with `.entry`/`.func` bodies or module-level directives) is wrapped
only in a module header. An instruction example is put in a minimal kernel whose registers are
declared from the instruction's types: every untyped operand name gets a `.reg` whose size is
inferred (predicates for guards and setp/selp/testp positions, address operands .b64, widened
destinations of .wide, cvt source/destination types, 32-bit shift amounts); branch targets
become labels. The whole example block is tried first, then each statement alone; a few
declaration guesses and targets are tried with ptxas and the first one ptxas accepts is kept
(a wrapping ptxas rejects says nothing about the manual, so it is dropped). Needs ptxas
($PTXAS or the nvidia-cuda-nvcc-cu12 wheel); skips with a message without it.
"""
import os
import shutil
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus", "spec")
SPEC = os.environ.get("PTX_SPEC", "/work/shared/ptx-spec")
TARGETS = [("8.3", "sm_90"), ("7.0", "sm_70"), ("6.0", "sm_52")]


def find_ptxas():
    p = os.environ.get("PTXAS")
    if p:
        return p
    try:
        import nvidia.cuda_nvcc
        return os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas")
    except ImportError:
        return None


def example_blocks(path):
    """The example code blocks of one markdown chapter (indented or ``` fenced)."""
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if re.match(r"^\s*(\*\*)?Examples?(\*\*)?\s*$", lines[i]):
            i += 1
            cur, fenced = [], False
            while i < len(lines):
                ln = lines[i]
                if ln.strip().startswith("```"):
                    if fenced:
                        i += 1
                        break
                    fenced = True
                elif fenced or ln.startswith("    ") or not ln.strip():
                    cur.append(ln)
                else:
                    break
                i += 1
            if any(c.strip() for c in cur):
                blocks.append("\n".join(cur))
        else:
            i += 1
    return blocks


def statements(block):
    text = re.sub(r"//[^\n]*", "", block)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for st in re.split(r";", text):
        st = " ".join(st.split())
        if not st or st in ("{", "}"):
            continue
        out.append(st.strip("{} ").strip() + ";")
    return [s for s in out if s != ";"]


TYPE_BITS = {"pred": 0, "b8": 16, "u8": 16, "s8": 16, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
             "b32": 32, "u32": 32, "s32": 32, "f32": 32, "tf32": 32, "f16x2": 32, "bf16x2": 32, "u16x2": 32,
             "s16x2": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64, "b128": 128, "e4m3x2": 16, "e5m2x2": 16}
IDENT = r"[A-Za-z_$%][\w$]*"


def reg_decl(bits):
    return ".pred" if bits == 0 else f".b{bits}"


def split_operands(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def infer(st, guess):
    """Returns ({name: bits}, [labels]) for one statement, or None."""
    m = re.match(r"^(@!?(" + IDENT + r")\s+)?([a-z][\w.:]*)\s*(.*);$", st)
    if not m:
        return None
    regs, labels = {}, []
    if m.group(2):
        regs[m.group(2)] = 0
    opcode, rest = m.group(3), m.group(4)
    parts = opcode.split(".")
    op = parts[0]
    types = [TYPE_BITS[p] for p in parts[1:] if p in TYPE_BITS]
    first = types[0] if types else 32
    last = types[-1] if types else 32
    if guess == 1:
        first = last
    elif guess == 2:
        last = first
    elif guess == 3:
        first = last = 32
    operands = split_operands(rest)
    if op in ("bra", "brx", "call"):
        for o in operands:
            for nm in re.findall(IDENT, o):
                if not nm.startswith("%"):
                    labels.append(nm)
        return regs, labels
    for k, o in enumerate(operands):
        addr = o.startswith("[")
        bits = first if k == 0 else last
        if op in ("setp", "testp") and k == 0 or op in ("setp",) and k == 3 or op == "selp" and k == 3:
            bits = 0
        if op == "vote" and "ballot" not in parts:
            bits = 0 if k in (0, len(operands) - 1) else 32
        if op in ("mul", "mad") and "wide" in parts and (k == 0 or (op == "mad" and k == 3)):
            bits = 2 * last
        if op in ("shl", "shr") and k == 2 or op == "bfe" and k >= 2 or op == "bfi" and k >= 3:
            bits = 32
        if op in ("ld", "st", "atom", "red", "ldu", "prefetch", "prefetchu", "cvta", "isspacep") and addr:
            bits = 64
        if op == "cvta" and k == 0 or op == "isspacep" and k == 1:
            bits = 64
        if op == "isspacep" and k == 0:
            bits = 0
        for nm in re.findall(IDENT, o):
            if nm.startswith("%") and re.match(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|clock|clock64|globaltimer|lanemask_\w+|pm\d|envreg\d+|gridid|dynamic_smem_size|total_smem_size|cluster\w*|is_explicit_cluster|reserved_smem\w*|aggr_smem_size|current_graph_exec)$", nm):
                continue
            if nm in regs:
                continue
            regs[nm] = 64 if addr else bits
    return regs, labels


def build(stmts, guess, ver, target, body_decls=""):
    regs, labels = {}, []
    for st in stmts:
        r = infer(st, guess)
        if r is None:
            return None
        for k, v in r[0].items():
            regs.setdefault(k, v)
        labels += [lb for lb in r[1] if lb not in labels]
    declared = set(re.findall(r"\.reg\s+\.\w+\s+([^;]*);", body_decls))
    names = {n.strip() for d in declared for n in d.split(",")}
    decl = "".join(f"\t.reg {reg_decl(b)} {n};\n" for n, b in regs.items() if n not in names and n not in labels)
    body = "".join(f"\t{s}\n" for s in stmts)
    labs = "".join(f"{lb}:\n" for lb in labels)
    return (f".version {ver}\n.target {target}\n.address_size 64\n\n.visible .entry example()\n{{\n"
            f"{body_decls}{decl}{body}{labs}\tret;\n}}\n")


def ptxas_ok(ptxas, text, target, tmp):
    p = os.path.join(tmp, "t.ptx")
    with open(p, "w") as f:
        f.write(text)
    r = subprocess.run([ptxas, "--gpu-name", target, "-o", os.devnull, p], capture_output=True)
    return r.returncode == 0


def first_accepted(ptxas, make, tmp, order):
    for ver, target in order:
        for guess in range(4):
            text = make(guess, ver, target)
            if text and ptxas_ok(ptxas, text, target, tmp):
                return text
    return None


def main():
    ptxas = find_ptxas()
    if not ptxas or not os.path.exists(ptxas) or not os.path.isdir(SPEC):
        print(f"gen_spec: skipped, ptxas ({ptxas}) or the spec ({SPEC}) missing")
        return 0
    shutil.rmtree(OUT, ignore_errors=True)  # the tools are here: regenerate from scratch
    os.makedirs(OUT, exist_ok=True)
    files = sorted(os.path.join(d, f) for d in (SPEC, os.path.join(SPEC, "isa")) if os.path.isdir(d)
                   for f in os.listdir(d) if f.endswith(".md") and f != "README.md")
    n_ok = n_drop = 0
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            chapter = os.path.basename(path)[:-3].replace("-instructions", "").replace("-directives", "_dir")
            for bi, block in enumerate(example_blocks(path)):
                # Targets and ISA versions vary: each block prefers another first.
                order = TARGETS[bi % 3:] + TARGETS[:bi % 3]
                results = []
                if re.search(r"^\s*\.(entry|func|global|const|shared|visible|extern|version|target|file|maxnreg|maxntid|reqntid|minnctapersm|pragma|callprototype|calltargets|branchtargets|weak|common|section|alias|explicitcluster|reqnctapercluster|maxclusterrank|loc|local|param)\b", block, re.M) and not re.search(r"^\s*\.reg\b", block, re.M):
                    body = block if re.search(r"\.(entry|func)\b", block) else block
                    for ver, target in order:
                        text = f".version {ver}\n.target {target}\n.address_size 64\n\n{body}\n"
                        if ptxas_ok(ptxas, text, target, tmp):
                            results.append(text)
                            break
                    if not results and not re.search(r"\.(entry|func)\b", block):
                        for ver, target in order:
                            text = f".version {ver}\n.target {target}\n.address_size 64\n\n.visible .entry example()\n{{\n{block}\n\tret;\n}}\n"
                            if ptxas_ok(ptxas, text, target, tmp):
                                results.append(text)
                                break
                else:
                    decls = "".join(f"\t{ln.strip()}\n" for ln in block.splitlines() if re.match(r"^\s*\.reg\b", ln))
                    stmts = [s for s in statements("\n".join(ln for ln in block.splitlines() if not re.match(r"^\s*\.reg\b", ln)))]
                    stmts = [s for s in stmts if not re.match(r"^\w+:", s)]
                    if not stmts:
                        continue
                    whole = first_accepted(ptxas, lambda g, v, t: build(stmts, g, v, t, decls), tmp, order)
                    if whole:
                        results.append(whole)
                    else:
                        for st in stmts:
                            one = first_accepted(ptxas, lambda g, v, t: build([st], g, v, t, decls), tmp, order)
                            if one:
                                results.append(one)
                            else:
                                n_drop += 1
                for k, text in enumerate(results):
                    if text in seen:
                        continue
                    seen.add(text)
                    name = f"{chapter}.{bi:02d}{'' if len(results) == 1 else '.' + str(k)}.ptx"
                    with open(os.path.join(OUT, name), "w") as f:
                        f.write(text)
                    n_ok += 1
    print(f"gen_spec: {n_ok} files, {n_drop} statements no wrapping of which ptxas accepts (dropped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
