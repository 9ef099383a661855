"""Classifies a ptxjit load error into the feature it names (used by measure.py and mutate.py)."""
import re

# (regex on the name of the instruction the error names, cause). First match wins.
OPCODE_RULES = [
    (r"^wmma\.", "wmma (tensor cores)"),
    (r"^wgmma\.", "wgmma (tensor cores)"),
    (r"^mma\.", "mma (tensor cores)"),
    (r"^(ldmatrix|stmatrix)\b", "ldmatrix/stmatrix"),
    (r"^(cp\.async\.bulk|cp\.reduce\.async\.bulk)|tensormap|\.tensor\.", "cp.async.bulk / TMA"),
    (r"^cp\.async", "cp.async"),
    (r"mbarrier|complete_tx", "mbarrier"),
    (r"^(tex|tld4|txq)\b", "textures"),
    (r"^(suld|sust|sured|suq)\b", "surfaces"),
    (r"cluster|^mapa\b|^getctarank\b", "clusters"),
    (r"^multimem\.", "multimem"),
    (r"^griddepcontrol", "griddepcontrol"),
    (r"^(createpolicy|applypriority|discard)\b", "L2 cache-policy instructions"),
    (r"^(stacksave|stackrestore|alloca)\b", "stacksave/stackrestore/alloca"),
    (r"\.b128\b", ".b128 loads/stores"),
    (r"^trap\b", "trap"),
    (r"^brkpt\b", "brkpt"),
    (r"^pmevent\b", "pmevent"),
    (r"^v(add|sub|absdiff|min|max|shl|shr|mad|set)\d?\b", "video instructions"),
    (r"\.oob\b", "fma .oob"),
    (r"^slct\b", "slct"),
    (r"^(elect|setmaxnreg)\b", "sm_90 warp instructions"),
    (r"[us]16x2", "u16x2/s16x2 SIMD integer arithmetic"),
]

# (regex on the whole message, cause), tried after the opcode rules.
RULES = [
    (r"did not contain valid UTF-8", "non-UTF-8 bytes"),
    (r"predicate constant|expected a predicate register", "predicate immediate (mov.pred -1, selp/vote immediates)"),
    (r"'\.reg' parameter must be a scalar", "vector .reg params"),
    (r"not a '\.calltargets' or '\.callprototype'|jump table|call table", "call/jump tables"),
    (r"\b(malloc|free)\b", "device malloc/free"),
    (r"cudaStream|CDP|cudaLaunch|cudaGetParameterBuffer", "dynamic parallelism"),
    (r"found '\.(h0|h1|b0|b1|b2|b3)'", "video byte/half selectors (parse)"),
    (r"found '\.unified'", "[addr].unified (parse)"),
    (r"expected a destination register", "operand form (vector/braces)"),
    (r"expected a register or constant operand", "register+immediate operand (mov.u32 d, A+20)"),
    (r"rounding modifier", "cvt rounding modifier"),
    (r"operand size|wider than|narrower than|register of type|does not fit instruction type", "relaxed operand sizes"),
    (r"timeout", "compile timeout"),
    (r"expected|unexpected", "parse error"),
]


def classify(msg):
    m = re.search(r"instruction '([^']+)'", msg)
    if m:
        for rx, cause in OPCODE_RULES:
            if re.search(rx, m.group(1)):
                return cause
    for rx, cause in RULES:
        if re.search(rx, msg):
            return cause
    if m and "not supported" in msg:
        return "unsupported instruction: " + m.group(1).split(".")[0]
    return "other: " + re.sub(r"^.*?error: ", "", msg)[:70]
