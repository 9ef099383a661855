#!/usr/bin/env python3
"""LLVM generator: `llc-19 -march=nvptx64` (or nvptx for 32-bit addressing) on LLVM IR
inputs: the hand-written modules in scripts/corpus/llvm/*.ll and IR generated here from
templates (every integer/float binary operation per type, comparisons, casts, LLVM and NVVM
intrinsics, atomics), each for several targets, PTX ISA versions and -O levels, into
tests/corpus/llc/<name>.sm_XX.ptxYY.OZ.ptx. Skips with a message when llc-19 ($LLC) is
missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus", "llc")
LLC = os.environ.get("LLC", "llc-19")
COMBOS = [("sm_52", "ptx60", "O2"), ("sm_70", "ptx63", "O0"), ("sm_80", "ptx70", "O3"),
          ("sm_90", "ptx78", "O2"), ("sm_61", "ptx62", "O1"), ("sm_86", "ptx75", "O2")]

HEAD = 'target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"\ntarget triple = "nvptx64-nvidia-cuda"\n'
TID = "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"


def kernel(name, body, params):
    return f"define ptx_kernel void @{name}({params}) {{\nentry:\n{body}  ret void\n}}\n"


def binops(ty, ops):
    body = "  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  %ix = zext i32 %i to i64\n"
    body += f"  %pa = getelementptr {ty}, ptr addrspace(1) %a, i64 %ix\n  %pb = getelementptr {ty}, ptr addrspace(1) %b, i64 %ix\n"
    body += f"  %x = load {ty}, ptr addrspace(1) %pa\n  %y = load {ty}, ptr addrspace(1) %pb\n"
    prev = "%x"
    for k, op in enumerate(ops):
        body += f"  %r{k} = {op} {ty} {prev}, %y\n"
        prev = f"%r{k}"
    body += f"  store {ty} {prev}, ptr addrspace(1) %pa\n"
    return HEAD + TID + kernel(f"binops_{ty}", body, "ptr addrspace(1) %a, ptr addrspace(1) %b")


INT_OPS = ["add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr", "and", "or", "xor", "add nsw", "mul nuw"]
FP_OPS = ["fadd", "fsub", "fmul", "fdiv", "frem", "fadd fast", "fmul contract"]


def cmps(ty, preds, kind):
    body = "  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  %ix = zext i32 %i to i64\n"
    body += f"  %pa = getelementptr {ty}, ptr addrspace(1) %a, i64 %ix\n  %x = load {ty}, ptr addrspace(1) %pa\n"
    body += f"  %y = load {ty}, ptr addrspace(1) %b\n  %acc0 = add i32 0, 0\n"
    for k, p in enumerate(preds):
        body += f"  %c{k} = {kind} {p} {ty} %x, %y\n  %s{k} = select i1 %c{k}, i32 {1 << k}, i32 0\n  %acc{k + 1} = or i32 %acc{k}, %s{k}\n"
    # (Each thread stores to its own a[i]: a store to the b[0] that every thread reads
    # would race.)
    body += f"  %m = select i1 %c0, {ty} %x, {ty} %y\n  store {ty} %m, ptr addrspace(1) %pa\n"
    body += f"  %po = getelementptr i32, ptr addrspace(1) %o, i64 %ix\n  store i32 %acc{len(preds)}, ptr addrspace(1) %po\n"
    return HEAD + TID + kernel(f"cmp_{ty}", body, "ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o")


def casts():
    c = [("trunc", "i64", "i8"), ("trunc", "i32", "i16"), ("zext", "i8", "i32"), ("sext", "i16", "i64"),
         ("fptosi", "float", "i32"), ("fptoui", "double", "i64"), ("sitofp", "i64", "float"), ("uitofp", "i32", "double"),
         ("fpext", "half", "float"), ("fptrunc", "double", "half"), ("fpext", "float", "double"), ("fptrunc", "float", "bfloat"),
         ("bitcast", "float", "i32"), ("sitofp", "i16", "half"), ("fptosi", "half", "i8"), ("zext", "i1", "i32")]
    body, params = "", []
    for k, (op, a, b) in enumerate(c):
        params += [f"ptr addrspace(1) %in{k}", f"ptr addrspace(1) %out{k}"]
        src = f"  %v{k} = load {a}, ptr addrspace(1) %in{k}\n" if a != "i1" else f"  %w{k} = load i8, ptr addrspace(1) %in{k}\n  %v{k} = trunc i8 %w{k} to i1\n"
        body += src + f"  %r{k} = {op} {a} %v{k} to {b}\n  store {b} %r{k}, ptr addrspace(1) %out{k}\n"
    return HEAD + kernel("casts", body, ", ".join(params))


def intrinsics():
    decls, body = [], ""
    ints = [("ctpop", 1), ("ctlz", 2), ("cttz", 2), ("bitreverse", 1), ("bswap", 1), ("abs", 3), ("smax", 4), ("umin", 4),
            ("sadd.sat", 4), ("usub.sat", 4), ("fshl", 5), ("fshr", 5)]
    body += "  %x = load i32, ptr addrspace(1) %a\n  %y = load i32, ptr addrspace(1) %b\n  %acc0 = add i32 %x, 0\n"
    for k, (n, kind) in enumerate(ints):
        sig = {1: "i32", 2: "i32, i1", 3: "i32, i1", 4: "i32, i32", 5: "i32, i32, i32"}[kind]
        args = {1: "i32 %x", 2: "i32 %x, i1 false", 3: "i32 %x, i1 false", 4: "i32 %x, i32 %y", 5: "i32 %x, i32 %y, i32 %acc" + str(k)}[kind]
        decls.append(f"declare i32 @llvm.{n}.i32({sig})")
        body += f"  %t{k} = call i32 @llvm.{n}.i32({args})\n  %acc{k + 1} = xor i32 %acc{k}, %t{k}\n"
    n = len(ints)
    body += f"  store i32 %acc{n}, ptr addrspace(1) %a\n"
    body += "  %ov = call {i32, i1} @llvm.uadd.with.overflow.i32(i32 %x, i32 %y)\n  %ob = extractvalue {i32, i1} %ov, 1\n  %oz = zext i1 %ob to i32\n  store i32 %oz, ptr addrspace(1) %b\n"
    decls.append("declare {i32, i1} @llvm.uadd.with.overflow.i32(i32, i32)")
    fl = [("fma", 3), ("fabs", 1), ("sqrt", 1), ("minnum", 2), ("maxnum", 2), ("minimum", 2), ("maximum", 2), ("copysign", 2),
          ("floor", 1), ("ceil", 1), ("trunc", 1), ("rint", 1), ("round", 1), ("nearbyint", 1), ("roundeven", 1)]
    for ty in ("float", "double"):
        sfx = "f32" if ty == "float" else "f64"
        body += f"  %f{sfx} = load {ty}, ptr addrspace(1) %{ty[0]}p\n  %g{sfx}0 = fadd {ty} %f{sfx}, 0.0\n"
        for k, (nm, ar) in enumerate(fl):
            decls.append(f"declare {ty} @llvm.{nm}.{sfx}({', '.join([ty] * ar)})")
            args = ", ".join([f"{ty} %g{sfx}{k}"] + [f"{ty} %f{sfx}"] * (ar - 1))
            body += f"  %g{sfx}{k + 1} = call {ty} @llvm.{nm}.{sfx}({args})\n"
        body += f"  store {ty} %g{sfx}{len(fl)}, ptr addrspace(1) %{ty[0]}p\n"
    return HEAD + "\n".join(decls) + "\n" + kernel("intrinsics", body, "ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %fp, ptr addrspace(1) %dp")


def atomics():
    body = ""
    ops = ["add", "sub", "and", "or", "xor", "max", "min", "umax", "umin", "xchg"]
    for ty in ("i32", "i64"):
        for k, op in enumerate(ops):
            body += f"  %{ty}{op} = atomicrmw {op} ptr addrspace(1) %{ty}p, {ty} {k + 1} monotonic\n"
        body += f"  %{ty}cx = cmpxchg ptr addrspace(1) %{ty}p, {ty} 5, {ty} 7 seq_cst seq_cst\n"
    body += "  %fa = atomicrmw fadd ptr addrspace(1) %fp, float 1.5 monotonic\n"
    body += "  %sa = atomicrmw add ptr addrspace(3) @sh, i32 3 monotonic\n"
    body += "  %ga = atomicrmw add ptr %gp, i32 2 seq_cst\n"
    body += "  %ui = atomicrmw uinc_wrap ptr addrspace(1) %i32p, i32 9 monotonic\n  %ud = atomicrmw udec_wrap ptr addrspace(1) %i32p, i32 9 monotonic\n"
    return HEAD + "@sh = internal addrspace(3) global i32 undef, align 4\n" + kernel(
        "atomics", body, "ptr addrspace(1) %i32p, ptr addrspace(1) %i64p, ptr addrspace(1) %fp, ptr %gp")


def generated():
    for ty in ("i8", "i16", "i32", "i64", "i128"):
        ops = INT_OPS if ty != "i128" else ["add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor"]
        yield f"binops_{ty}", binops(ty, ops)
    for ty in ("half", "float", "double", "bfloat"):
        yield f"binops_{ty}", binops(ty, FP_OPS if ty in ("float", "double") else ["fadd", "fsub", "fmul"])
    for ty in ("i16", "i32", "i64"):
        yield f"cmp_{ty}", cmps(ty, ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"], "icmp")
    for ty in ("half", "float", "double"):
        yield f"cmp_{ty}", cmps(ty, ["oeq", "one", "olt", "ole", "ogt", "oge", "ord", "ueq", "une", "ult", "uno", "ugt"], "fcmp")
    yield "casts", casts()
    yield "intrinsics", intrinsics()
    yield "atomics", atomics()


def compile_one(ll_path, name, k, n_files, flip32):
    ok = fail = 0
    for j in range(3 if flip32 else 2):
        arch, ptx, opt = COMBOS[(k + 3 * j) % len(COMBOS)]
        march = "nvptx64"
        text = open(ll_path).read()
        out = os.path.join(OUT, f"{name}.{arch}.{ptx}.{opt}{'.m32' if march == 'nvptx' else ''}.ptx")
        src = ll_path
        if march == "nvptx":
            src = ll_path + ".32.ll"
            with open(src, "w") as f:
                f.write(text.replace("nvptx64-nvidia-cuda", "nvptx-nvidia-cuda").replace(
                    "e-i64:64-i128:128-v16:16-v32:32-n16:32:64", "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"))
        r = subprocess.run([LLC, f"-march={march}", f"-mcpu={arch}", f"-mattr=+{ptx}", f"-{opt}", src, "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"gen_llc: {name} {arch} {ptx} -{opt} {march}: {r.stderr.strip().splitlines()[:1]}")
            fail += 1
            if os.path.exists(out):
                os.remove(out)
        else:
            ok += 1
    return ok, fail


def main():
    if shutil.which(LLC) is None:
        print(f"gen_llc: skipped, {LLC} not found")
        return 0
    shutil.rmtree(OUT, ignore_errors=True)  # the tool is here: regenerate from scratch
    os.makedirs(OUT, exist_ok=True)
    n_ok = n_fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for name, text in generated():
            p = os.path.join(tmp, name + ".ll")
            with open(p, "w") as f:
                f.write(text)
            inputs.append((name, p, False))
        for s in sorted(os.listdir(os.path.join(HERE, "llvm"))):
            if s.endswith(".ll"):
                inputs.append((s[:-3], os.path.join(HERE, "llvm", s), True))
        for k, (name, p, flip) in enumerate(inputs):
            if flip:
                tp = os.path.join(tmp, name + ".in.ll")
                shutil.copy(p, tp)
                p = tp
            ok, fail = compile_one(p, name, k, len(inputs), flip)
            n_ok += ok
            n_fail += fail
    print(f"gen_llc: {n_ok} files, {n_fail} compile failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
