//! A structure-aware generator of well-formed PTX kernels for differential fuzzing (the
//! `differential` target and `tests/fuzz_replay.rs`).
//!
//! [`Program`]'s `Arbitrary` impl turns fuzzer bytes into one module: up to three device
//! functions and one kernel `k(in, out, atom)`. Every generated program is well defined
//! (its final memory does not depend on the schedule), so the interpreter and the JIT must
//! leave identical bytes:
//!
//! - Each thread loads typed registers (`%r` b32, `%rd` b64, `%f` f32, `%fd` f64) from its
//!   row of `in`, computes, and stores them all to its row of `out` at the end.
//! - Arithmetic of u32/s32/u64/s64/f32/f64 with every IEEE rounding mode, `.ftz`, `.sat`,
//!   conversions, bit operations, `setp` (also with a BoolOp), `selp`, `testp`, carry
//!   chains; integer divisors are forced odd (never zero; -1 is allowed). No `.approx`.
//! - Predication: any of these under `@%p` / `@!%p`.
//! - Regions of unstructured control flow (guarded and unguarded `bra`, `brx.idx` with an
//!   in-range index, counted back edges): every block spends one unit of a per-thread fuel
//!   counter and leaves the region when it runs out, so every loop is bounded. A region
//!   ends at one label where the warp reconverges.
//! - Direct calls, and indirect calls (per-lane targets via `selp`) through a
//!   `.callprototype`, of generated `.func`s that may branch and call lower ones.
//! - Between regions, in converged code with full warps: shared-memory exchanges between
//!   uniform `bar.sync`s, `bar.red`, `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`
//!   with a full mask.
//! - Atomics whose final memory is order independent (add, min, max, and, or, xor on
//!   `.global` slots and on `.shared` slots that are dumped after a barrier); the returned
//!   old value goes to a register that is never read.
//! - Per-thread memory: the thread's own scratch words in `out` and a `.local` array.
//! - Rarely, a load that may go out of bounds (a fault both backends must report alike),
//!   and, in "exit mode" (no barriers or warp operations at all), guarded `exit`.

use arbitrary::{Arbitrary, Result, Unstructured};
use std::fmt::Write as _;

/// Bytes of a thread's input row: r0..7 (u32), rd0..5 (u64), f0..5 (f32), fd0..3 (f64).
pub const IN_ROW: u32 = 136;
/// Bytes of a thread's output row: the registers as in [`IN_ROW`], 4 predicate words,
/// the path hash, a marker, and 16 scratch words.
pub const OUT_ROW: u32 = 224;
/// Size of the `in` buffer (enough rows for the largest grid, the rest is more data).
pub const IN_BYTES: usize = 64 * 1024;
/// Global atomic slots (8 bytes each) in the `atom` buffer; also the shared slots. Each
/// kind of atomic operation has its own two slots: different operations on one location
/// would not commute.
pub const ATOM_SLOTS: u32 = 32;
/// Largest block (threads per CTA) and grid the generator picks.
pub const MAX_BLOCK: u32 = 128;
pub const MAX_GRID: u32 = 3;

const NB: [u32; 4] = [8, 6, 6, 4]; // registers per bank in a kernel
const NB_FUNC: [u32; 4] = [4, 2, 2, 2]; // in a function

/// One generated module and how to launch it.
pub struct Program {
    pub src: String,
    pub grid: u32,
    pub block: u32,
    /// Seed of the input buffer contents (see [`input_bytes`]).
    pub seed: u64,
    /// Whether the kernel uses `.shared` atomics (dumped after the thread rows).
    pub shared_atoms: bool,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "grid {} block {} seed {:#x}\n{}",
            self.grid, self.block, self.seed, self.src
        )
    }
}

impl Program {
    /// Bytes of the `out` buffer: the thread rows, then [`ATOM_SLOTS`] slots of 8 bytes
    /// per CTA for the shared atomics.
    pub fn out_bytes(&self) -> usize {
        let n = (self.grid * self.block) as usize;
        n * OUT_ROW as usize + (self.grid * ATOM_SLOTS * 8) as usize
    }
}

impl<'a> Arbitrary<'a> for Program {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Gen::new(u).program()
    }
}

/// xorshift64*: the contents of `in` and `atom`, with many special values (0, +-1,
/// extremes, NaNs with payloads, infinities, +-0, subnormals, small integers).
pub fn input_bytes(seed: u64, n: usize) -> Vec<u8> {
    const SPECIAL: [u32; 24] = [
        0,
        1,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x7fc0_0000,
        0x7fa0_0001,
        0xffc0_0000,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0001,
        0x007f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x4b00_0000,
        0x3eff_ffff,
        0x3ff0_0000,
        0x7ff0_0000,
        0xfff8_0000,
        0x0008_0000,
        0x4330_0000,
        0x3fe0_0000,
        0x0080_0000,
        0x4f00_0000,
    ];
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut out = Vec::with_capacity(n + 4);
    while out.len() < n {
        let r = next();
        let w = match r % 8 {
            0 | 1 => SPECIAL[(r >> 8) as usize % SPECIAL.len()],
            2 => (r >> 8) as u32 % 64,
            3 => {
                // A float with few significant bits.
                let m = ((r >> 8) & 0xff) as u32;
                let e = 120 + ((r >> 16) % 16) as u32;
                (((r >> 24) & 1) as u32) << 31 | e << 23 | m << 15
            }
            _ => (r >> 32) as u32,
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.truncate(n);
    out
}

/// Register banks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    B32,
    B64,
    F32,
    F64,
}

/// Where code is generated: names and counts of the data registers.
#[derive(Clone, Copy)]
struct Ctx {
    names: [&'static str; 4],
    pred: &'static str,
    n: [u32; 4],
    npred: u32,
    /// In a function: no memory, atomics or special registers of the kernel.
    func: bool,
    /// Functions this code may call (`f0..f{calls-1}`).
    calls: u32,
    /// Shared atomics allowed (kernel, not in exit mode).
    shared_atoms: bool,
}

impl Ctx {
    fn kernel(calls: u32, shared_atoms: bool) -> Ctx {
        Ctx {
            names: ["%r", "%rd", "%f", "%fd"],
            pred: "%p",
            n: NB,
            npred: 4,
            func: false,
            calls,
            shared_atoms,
        }
    }
    fn func(calls: u32) -> Ctx {
        Ctx {
            names: ["%x", "%xd", "%xf", "%xfd"],
            pred: "%y",
            n: NB_FUNC,
            npred: 2,
            func: true,
            calls,
            shared_atoms: false,
        }
    }
}

fn kidx(k: K) -> usize {
    match k {
        K::B32 => 0,
        K::B64 => 1,
        K::F32 => 2,
        K::F64 => 3,
    }
}

struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    s: String,
    /// Unique label/identifier counter.
    uid: u32,
    exit_mode: bool,
}

const RND: [&str; 4] = ["rn", "rz", "rm", "rp"];
const IRND: [&str; 4] = ["rni", "rzi", "rmi", "rpi"];

impl<'u, 'a> Gen<'u, 'a> {
    fn new(u: &'u mut Unstructured<'a>) -> Self {
        Gen {
            u,
            s: String::new(),
            uid: 0,
            exit_mode: false,
        }
    }

    fn line(&mut self, t: &str) {
        self.s.push('\t');
        self.s.push_str(t);
        self.s.push('\n');
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> Result<T> {
        Ok(*self.u.choose(xs)?)
    }

    fn below(&mut self, n: u32) -> Result<u32> {
        Ok(if n <= 1 {
            0
        } else {
            self.u.int_in_range(0..=n - 1)?
        })
    }

    fn chance(&mut self, num: u8, den: u8) -> Result<bool> {
        self.u.ratio(num, den)
    }

    fn reg(&mut self, c: &Ctx, k: K) -> Result<String> {
        let i = self.below(c.n[kidx(k)])?;
        Ok(format!("{}{i}", c.names[kidx(k)]))
    }

    fn pred(&mut self, c: &Ctx) -> Result<String> {
        let i = self.below(c.npred)?;
        Ok(format!("{}{i}", c.pred))
    }

    /// A predicate operand, possibly negated (`!%p1`), where the syntax allows it.
    fn npred(&mut self, c: &Ctx) -> Result<String> {
        let neg = if self.chance(1, 3)? { "!" } else { "" };
        Ok(format!("{neg}{}", self.pred(c)?))
    }

    /// An optional guard prefix (`@%p1 ` / `@!%p1 `), or "".
    fn guard(&mut self, c: &Ctx, pct: u8) -> Result<String> {
        if self.u.int_in_range(0u8..=99)? < pct {
            Ok(format!("@{} ", self.npred(c)?))
        } else {
            Ok(String::new())
        }
    }

    /// An integer immediate of `bits` bits, biased to interesting values.
    fn imm(&mut self, bits: u32) -> Result<String> {
        let v: u64 = match self.below(5)? {
            0 => self.below(33)? as u64,
            1 => self.pick(&[
                0u64,
                1,
                u64::MAX,
                1 << 63,
                (1 << 63) - 1,
                1 << 31,
                (1 << 31) - 1,
            ])?,
            _ => self.u.arbitrary()?,
        };
        let v = if bits == 32 { v & 0xffff_ffff } else { v };
        Ok(format!("{v:#x}"))
    }

    fn fimm(&mut self, k: K) -> Result<String> {
        Ok(if k == K::F32 {
            let v: u32 = match self.below(3)? {
                0 => self.pick(&[
                    0x3f80_0000u32,
                    0x0000_0000,
                    0x8000_0000,
                    0x7fc0_0000,
                    0x7f80_0000,
                    0x0000_0001,
                    0x4b00_0000,
                    0x3f00_0000,
                ])?,
                _ => self.u.arbitrary()?,
            };
            format!("0f{v:08X}")
        } else {
            let v: u64 = match self.below(3)? {
                0 => self.pick(&[
                    0x3ff0_0000_0000_0000u64,
                    0,
                    1 << 63,
                    0x7ff8_0000_0000_0000,
                    0x7ff0_0000_0000_0000,
                    1,
                    0x4330_0000_0000_0000,
                ])?,
                _ => self.u.arbitrary()?,
            };
            format!("0d{v:016X}")
        })
    }

    /// A source operand of bank `k`: a register, or sometimes an immediate.
    fn src(&mut self, c: &Ctx, k: K) -> Result<String> {
        if self.chance(1, 4)? {
            match k {
                K::B32 => self.imm(32),
                K::B64 => self.imm(64),
                _ => self.fimm(k),
            }
        } else {
            self.reg(c, k)
        }
    }

    /// A b32 register or a small immediate (bit positions, lengths, shift amounts).
    fn small_src(&mut self, c: &Ctx) -> Result<String> {
        if self.chance(1, 2)? {
            Ok(format!("{}", self.below(72)?))
        } else {
            self.reg(c, K::B32)
        }
    }

    // ---------------------------------------------------------------------------------
    // Straight-line operations.

    /// One operation (possibly a few instructions) in context `c`.
    fn op(&mut self, c: &Ctx) -> Result<()> {
        let g = self.guard(c, 25)?;
        let kind = self.below(if c.func { 16 } else { 24 })?;
        match kind {
            0..=1 => self.int_bin(c, &g, K::B32),
            2 => self.int_bin(c, &g, K::B64),
            3 => self.int_misc(c, &g),
            4 => self.shift(c, &g),
            5 => self.divrem(c, &g),
            6..=7 => self.f_arith(c, &g, K::F32),
            8 => self.f_arith(c, &g, K::F64),
            9 => self.cvt(c, &g),
            10..=11 => self.setp(c, &g),
            12 => self.selp(c, &g),
            13 => self.carry(c, &g),
            14 => self.pred_logic(c, &g),
            15 => {
                if c.calls > 0 {
                    self.call(c, &g)
                } else {
                    self.int_bin(c, &g, K::B32)
                }
            }
            16 => self.sreg(c, &g),
            17..=18 => self.mem(c, &g),
            19..=20 => self.atomic(c, &g),
            21..=22 => {
                if c.calls > 0 {
                    self.call(c, &g)
                } else {
                    self.f_arith(c, &g, K::F32)
                }
            }
            _ => {
                if self.chance(1, 4)? {
                    self.wild(c, &g)
                } else {
                    self.mem(c, &g)
                }
            }
        }
    }

    fn int_bin(&mut self, c: &Ctx, g: &str, k: K) -> Result<()> {
        let w = if k == K::B32 { 32 } else { 64 };
        let (u, s) = if w == 32 {
            ("u32", "s32")
        } else {
            ("u64", "s64")
        };
        let ty = self.pick(&[u, s])?;
        let d = self.reg(c, k)?;
        let a = self.reg(c, k)?;
        let b = self.src(c, k)?;
        let op = self.pick(&[
            "add", "sub", "mul.lo", "mul.hi", "min", "max", "and", "or", "xor", "addsat", "mad.lo",
            "mad.hi", "popc", "clz", "brev", "not", "neg", "abs", "bfe",
        ])?;
        let t = |x: &str| x.replace("u", "b").replace("s", "b");
        let text = match op {
            "and" | "or" | "xor" => format!("{op}.{} {d}, {a}, {b};", t(u)),
            "addsat" => {
                if w == 32 {
                    let o = self.pick(&["add", "sub"])?;
                    format!("{o}.sat.s32 {d}, {a}, {b};")
                } else {
                    format!("add.{ty} {d}, {a}, {b};")
                }
            }
            "mad.lo" | "mad.hi" => {
                let e = self.src(c, k)?;
                format!("{op}.{ty} {d}, {a}, {b}, {e};")
            }
            "popc" | "clz" => {
                let d = self.reg(c, K::B32)?;
                format!("{op}.{} {d}, {a};", t(u))
            }
            "brev" | "not" => format!("{op}.{} {d}, {a};", t(u)),
            "neg" | "abs" => format!("{op}.{s} {d}, {a};"),
            "bfe" => {
                let p = self.small_src(c)?;
                let l = self.small_src(c)?;
                format!("bfe.{ty} {d}, {a}, {p}, {l};")
            }
            _ => format!("{op}.{ty} {d}, {a}, {b};"),
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    /// 32-bit bit manipulation and the odd integer forms.
    fn int_misc(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let d = self.reg(c, K::B32)?;
        let a = self.reg(c, K::B32)?;
        let b = self.src(c, K::B32)?;
        let e = self.src(c, K::B32)?;
        let text = match self.below(13)? {
            0 => {
                let p = self.small_src(c)?;
                let l = self.small_src(c)?;
                format!("bfi.b32 {d}, {a}, {b}, {p}, {l};")
            }
            1 => {
                let m = self.pick(&["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"])?;
                format!("prmt.b32{m} {d}, {a}, {b}, {e};")
            }
            2 => {
                let dir = self.pick(&["l", "r"])?;
                let mode = self.pick(&["wrap", "clamp"])?;
                let n = self.small_src(c)?;
                format!("shf.{dir}.{mode}.b32 {d}, {a}, {b}, {n};")
            }
            3 => format!("lop3.b32 {d}, {a}, {b}, {e}, {};", self.below(256)?),
            4 => {
                let ty = self.pick(&["u32", "s32"])?;
                let h = self.pick(&["lo", "hi"])?;
                format!("mul24.{h}.{ty} {d}, {a}, {b};")
            }
            5 => {
                let ty = self.pick(&["u32", "s32"])?;
                format!("sad.{ty} {d}, {a}, {b}, {e};")
            }
            6 => {
                let ty = self.pick(&["u32", "s32"])?;
                let sh = self.pick(&["", ".shiftamt"])?;
                format!("bfind{sh}.{ty} {d}, {a};")
            }
            7 => format!("cnot.b32 {d}, {a};"),
            8 => {
                let t1 = self.pick(&["u32", "s32"])?;
                let t2 = self.pick(&["u32", "s32"])?;
                format!("dp4a.{t1}.{t2} {d}, {a}, {b}, {e};")
            }
            9 => {
                let ty = self.pick(&["u32", "s32"])?;
                let dd = self.reg(c, K::B64)?;
                let cc = self.reg(c, K::B64)?;
                if self.chance(1, 2)? {
                    format!("mul.wide.{ty} {dd}, {a}, {b};")
                } else {
                    format!("mad.wide.{ty} {dd}, {a}, {b}, {cc};")
                }
            }
            10 => {
                // (`mad.hi.sat.s32` is refused at load time as not supported yet.)
                let ty = self.pick(&["u32", "s32"])?;
                format!("mad.hi.{ty} {d}, {a}, {b}, {e};")
            }
            11 => {
                let ty = self.pick(&["u32", "s32"])?;
                let h = self.pick(&["lo", "hi"])?;
                format!("mad24.{h}.{ty} {d}, {a}, {b}, {e};")
            }
            _ => {
                let mode = self.pick(&["clamp", "wrap"])?;
                let (p, l) = (self.small_src(c)?, self.small_src(c)?);
                format!("bmsk.{mode}.b32 {d}, {p}, {l};")
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    fn shift(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let k = self.pick(&[K::B32, K::B64])?;
        let w = if k == K::B32 { 32 } else { 64 };
        let d = self.reg(c, k)?;
        let a = self.reg(c, k)?;
        let b = if self.chance(1, 2)? {
            format!("{}", self.below(w + 8)?)
        } else {
            self.reg(c, K::B32)?
        };
        let op = self.pick(&["shl.b", "shr.u", "shr.s", "shr.b"])?;
        self.line(&format!("{g}{op}{w} {d}, {a}, {b};"));
        Ok(())
    }

    /// div/rem with an odd divisor (never zero; -1 and MIN / -1 happen).
    fn divrem(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let k = self.pick(&[K::B32, K::B64])?;
        let (w, t) = if k == K::B32 {
            (32, "%t7")
        } else {
            (64, "%td7")
        };
        let d = self.reg(c, k)?;
        let a = self.reg(c, k)?;
        let b = self.reg(c, k)?;
        let ty = self.pick(&["u", "s"])?;
        let op = self.pick(&["div", "rem"])?;
        self.line(&format!("or.b{w} {t}, {b}, 1;"));
        self.line(&format!("{g}{op}.{ty}{w} {d}, {a}, {t};"));
        Ok(())
    }

    fn f_arith(&mut self, c: &Ctx, g: &str, k: K) -> Result<()> {
        let f32 = k == K::F32;
        let ty = if f32 { "f32" } else { "f64" };
        let d = self.reg(c, k)?;
        let a = self.reg(c, k)?;
        let b = self.src(c, k)?;
        let e = self.src(c, k)?;
        let rnd = self.pick(&RND)?;
        let ftz = if f32 && self.chance(1, 3)? {
            ".ftz"
        } else {
            ""
        };
        let sat = if f32 && self.chance(1, 5)? {
            ".sat"
        } else {
            ""
        };
        let text = match self.below(12)? {
            0 => format!("add.{rnd}{ftz}{sat}.{ty} {d}, {a}, {b};"),
            1 => format!("sub.{rnd}{ftz}{sat}.{ty} {d}, {a}, {b};"),
            2 => format!("mul.{rnd}{ftz}{sat}.{ty} {d}, {a}, {b};"),
            3 => format!("fma.{rnd}{ftz}{sat}.{ty} {d}, {a}, {b}, {e};"),
            4 => format!("div.{rnd}{ftz}.{ty} {d}, {a}, {b};"),
            5 => format!("sqrt.{rnd}{ftz}.{ty} {d}, {a};"),
            6 => format!("rcp.{rnd}{ftz}.{ty} {d}, {a};"),
            7 => {
                let op = self.pick(&["min", "max"])?;
                let nan = if f32 && self.chance(1, 3)? {
                    ".NaN"
                } else {
                    ""
                };
                format!("{op}{ftz}{nan}.{ty} {d}, {a}, {b};")
            }
            8 => {
                let op = self.pick(&["abs", "neg"])?;
                format!("{op}{ftz}.{ty} {d}, {a};")
            }
            9 => {
                let b = self.reg(c, k)?;
                format!("copysign.{ty} {d}, {a}, {b};")
            }
            10 => {
                // Plain forms (round to nearest; `mad` of f32 is fma).
                let op = self.pick(&["add", "sub", "mul"])?;
                format!("{op}{ftz}.{ty} {d}, {a}, {b};")
            }
            _ => {
                let p = self.pred(c)?;
                let t = self.pick(&[
                    "finite",
                    "infinite",
                    "number",
                    "notanumber",
                    "normal",
                    "subnormal",
                ])?;
                format!("testp.{t}.{ty} {p}, {a};")
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    fn cvt(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let ints = [
            ("u32", K::B32),
            ("s32", K::B32),
            ("u64", K::B64),
            ("s64", K::B64),
        ];
        let floats = [("f32", K::F32), ("f64", K::F64)];
        let text = match self.below(6)? {
            0 => {
                // float -> int
                let (ft, fk) = self.pick(&floats)?;
                let (it, ik) = self.pick(&ints)?;
                let d = self.reg(c, ik)?;
                let a = self.reg(c, fk)?;
                let r = self.pick(&IRND)?;
                let ftz = if ft == "f32" && self.chance(1, 3)? {
                    ".ftz"
                } else {
                    ""
                };
                let sat = if self.chance(1, 3)? { ".sat" } else { "" };
                format!("cvt.{r}{ftz}{sat}.{it}.{ft} {d}, {a};")
            }
            1 => {
                // int -> float
                let (ft, fk) = self.pick(&floats)?;
                let (it, ik) = self.pick(&ints)?;
                let d = self.reg(c, fk)?;
                let a = self.reg(c, ik)?;
                let r = self.pick(&RND)?;
                format!("cvt.{r}.{ft}.{it} {d}, {a};")
            }
            2 => {
                // float -> float (narrowing needs a rounding mode; same type rounds to int)
                let (dt, dk) = self.pick(&floats)?;
                let (st, sk) = self.pick(&floats)?;
                let d = self.reg(c, dk)?;
                let a = self.reg(c, sk)?;
                let ftz = if (dt == "f32" || st == "f32") && self.chance(1, 3)? {
                    ".ftz"
                } else {
                    ""
                };
                let sat = if dt == "f32" && self.chance(1, 4)? {
                    ".sat"
                } else {
                    ""
                };
                let r = if dt == st {
                    format!(".{}", self.pick(&IRND)?)
                } else if dt == "f32" {
                    format!(".{}", self.pick(&RND)?)
                } else {
                    String::new()
                };
                format!("cvt{r}{ftz}{sat}.{dt}.{st} {d}, {a};")
            }
            3 => {
                // int -> int, including narrowing with .sat
                let (dt, dk) = self.pick(&ints)?;
                let (st, sk) = self.pick(&ints)?;
                let d = self.reg(c, dk)?;
                let a = self.reg(c, sk)?;
                // .sat only where the destination cannot hold every source value.
                let fits =
                    dt == st || (dt[1..] > st[1..] && (dt.starts_with('s') || st.starts_with('u')));
                let sat = if !fits && self.chance(1, 3)? {
                    ".sat"
                } else {
                    ""
                };
                format!("cvt{sat}.{dt}.{st} {d}, {a};")
            }
            4 => {
                // Small integer types through .u8/.s16 etc.
                let nt = self.pick(&["u8", "s8", "u16", "s16"])?;
                let (dt, dk) = self.pick(&ints)?;
                let d = self.reg(c, dk)?;
                let a = self.reg(c, K::B32)?;
                let sat = if self.chance(1, 3)? { ".sat" } else { "" };
                format!("cvt{sat}.{nt}.u32 %th, {a};\n\t{g}cvt.{dt}.{nt} {d}, %th;")
            }
            _ => {
                // Bit casts between banks.
                if self.chance(1, 2)? {
                    let (dk, sk) = self.pick(&[(K::F32, K::B32), (K::B32, K::F32)])?;
                    let d = self.reg(c, dk)?;
                    let a = self.reg(c, sk)?;
                    format!("mov.b32 {d}, {a};")
                } else {
                    let (dk, sk) = self.pick(&[(K::F64, K::B64), (K::B64, K::F64)])?;
                    let d = self.reg(c, dk)?;
                    let a = self.reg(c, sk)?;
                    format!("mov.b64 {d}, {a};")
                }
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    fn setp(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let (ty, k) = self.pick(&[
            ("u32", K::B32),
            ("s32", K::B32),
            ("b32", K::B32),
            ("u64", K::B64),
            ("s64", K::B64),
            ("f32", K::F32),
            ("f64", K::F64),
        ])?;
        let cmp = match ty {
            "b32" => self.pick(&["eq", "ne"])?,
            "u32" | "u64" => {
                self.pick(&["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"])?
            }
            "s32" | "s64" => self.pick(&["eq", "ne", "lt", "le", "gt", "ge"])?,
            _ => self.pick(&[
                "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                "num", "nan",
            ])?,
        };
        let ftz = if ty == "f32" && self.chance(1, 4)? {
            ".ftz"
        } else {
            ""
        };
        let a = self.reg(c, k)?;
        let b = self.src(c, k)?;
        let p = self.pred(c)?;
        let dst = if self.chance(1, 4)? {
            format!("{p}|{}", self.pred(c)?)
        } else {
            p
        };
        let text = if self.chance(1, 3)? {
            let bop = self.pick(&["and", "or", "xor"])?;
            let q = self.npred(c)?;
            format!("setp.{cmp}.{bop}{ftz}.{ty} {dst}, {a}, {b}, {q};")
        } else {
            format!("setp.{cmp}{ftz}.{ty} {dst}, {a}, {b};")
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    fn selp(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let (ty, k) = self.pick(&[
            ("b32", K::B32),
            ("s32", K::B32),
            ("b64", K::B64),
            ("f32", K::F32),
            ("f64", K::F64),
        ])?;
        let d = self.reg(c, k)?;
        let a = self.src(c, k)?;
        let b = self.src(c, k)?;
        let p = self.pred(c)?;
        self.line(&format!("{g}selp.{ty} {d}, {a}, {b}, {p};"));
        Ok(())
    }

    /// add.cc / addc / sub.cc / subc / mad.cc chains (the carry flag under one guard).
    fn carry(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let k = self.pick(&[K::B32, K::B64])?;
        let w = if k == K::B32 { 32 } else { 64 };
        let (d1, a1, b1) = (self.reg(c, k)?, self.reg(c, k)?, self.src(c, k)?);
        let (d2, a2, b2) = (self.reg(c, k)?, self.reg(c, k)?, self.src(c, k)?);
        let ty = self.pick(&["u", "s"])?;
        if self.chance(1, 2)? {
            self.line(&format!("{g}add.cc.{ty}{w} {d1}, {a1}, {b1};"));
            self.line(&format!("{g}addc.cc.{ty}{w} {d2}, {a2}, {b2};"));
            let d3 = self.reg(c, k)?;
            self.line(&format!("{g}addc.{ty}{w} {d3}, {a1}, {a2};"));
        } else {
            self.line(&format!("{g}sub.cc.{ty}{w} {d1}, {a1}, {b1};"));
            self.line(&format!("{g}subc.{ty}{w} {d2}, {a2}, {b2};"));
        }
        Ok(())
    }

    fn pred_logic(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let d = self.pred(c)?;
        let a = self.pred(c)?;
        let b = self.pred(c)?;
        let text = match self.below(4)? {
            0 => format!("not.pred {d}, {a};"),
            1 => format!("and.pred {d}, {a}, {b};"),
            2 => format!("or.pred {d}, {a}, {b};"),
            _ => format!("xor.pred {d}, {a}, {b};"),
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    fn sreg(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let d = self.reg(c, K::B32)?;
        let s = self.pick(&[
            "%tid.x",
            "%laneid",
            "%ctaid.x",
            "%ntid.x",
            "%nctaid.x",
            "%lanemask_lt",
            "%lanemask_ge",
            "%tid.y",
        ])?;
        self.line(&format!("{g}mov.u32 {d}, {s};"));
        Ok(())
    }

    /// Loads from anywhere in `in`; stores/loads of the thread's own scratch words and
    /// `.local` array (kernel only).
    fn mem(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let (ty, k, sz) = self.pick(&[
            ("u32", K::B32, 4),
            ("u64", K::B64, 8),
            ("f32", K::F32, 4),
            ("f64", K::F64, 8),
            ("s32", K::B32, 4),
        ])?;
        let r = self.reg(c, k)?;
        let idx = self.reg(c, K::B32)?;
        match self.below(5)? {
            0 => {
                // ld.global from in[(idx & mask) * sz]
                let mask = (IN_BYTES as u32 / sz) - 1;
                self.line(&format!("and.b32 %t6, {idx}, {mask};"));
                self.line(&format!("mul.wide.u32 %td6, %t6, {sz};"));
                self.line("add.s64 %td6, %in, %td6;");
                let nc = self.pick(&["ld.global", "ld.global.nc", "ld.global.ca", "ld"])?;
                self.line(&format!("{g}{nc}.{ty} {r}, [%td6];"));
            }
            1 | 2 => {
                // scratch: 16 words at out row + 160
                let slots = 64 / sz;
                let st = self.chance(1, 2)?;
                let op = if st { "st" } else { "ld" };
                if self.chance(1, 2)? {
                    let o = 160 + self.below(slots)? * sz;
                    let text = if st {
                        format!("{op}.global.{ty} [%orow+{o}], {r};")
                    } else {
                        format!("{op}.global.{ty} {r}, [%orow+{o}];")
                    };
                    self.line(&format!("{g}{text}"));
                } else {
                    self.line(&format!("and.b32 %t6, {idx}, {};", slots - 1));
                    self.line(&format!("mul.wide.u32 %td6, %t6, {sz};"));
                    self.line("add.s64 %td6, %orow, %td6;");
                    let text = if st {
                        format!("{op}.global.{ty} [%td6+160], {r};")
                    } else {
                        format!("{op}.global.{ty} {r}, [%td6+160];")
                    };
                    self.line(&format!("{g}{text}"));
                }
            }
            _ => {
                // .local loc[32]
                let slots = 32 / sz;
                let st = self.chance(1, 2)?;
                let op = if st { "st" } else { "ld" };
                let addr = if self.chance(1, 2)? {
                    format!("[loc+{}]", self.below(slots)? * sz)
                } else {
                    self.line(&format!("and.b32 %t6, {idx}, {};", slots - 1));
                    self.line(&format!("mul.wide.u32 %td6, %t6, {sz};"));
                    self.line("mov.u64 %td5, loc;");
                    self.line("add.s64 %td6, %td5, %td6;");
                    "[%td6]".to_string()
                };
                let text = if st {
                    format!("{op}.local.{ty} {addr}, {r};")
                } else {
                    format!("{op}.local.{ty} {r}, {addr};")
                };
                self.line(&format!("{g}{text}"));
            }
        }
        Ok(())
    }

    /// A load whose index may run past the end of `in`, by less than the 256-byte guard
    /// gap that ptxjit leaves after every allocation: either it reads `in` or it faults,
    /// whatever lies around the buffer.
    fn wild(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let r = self.reg(c, K::B32)?;
        let idx = self.reg(c, K::B32)?;
        let idx2 = self.reg(c, K::B32)?;
        self.line(&format!("and.b32 %t6, {idx}, {};", IN_BYTES / 4 - 1));
        self.line(&format!("and.b32 %t5, {idx2}, 63;"));
        self.line("add.u32 %t6, %t6, %t5;");
        self.line("mul.wide.u32 %td6, %t6, 4;");
        self.line("add.s64 %td6, %in, %td6;");
        self.line(&format!("{g}ld.global.u32 {r}, [%td6];"));
        Ok(())
    }

    /// Order-independent atomics on global or shared slots; the old value is dropped.
    fn atomic(&mut self, c: &Ctx, g: &str) -> Result<()> {
        const OPS: [(&str, &str, K); 15] = [
            ("add", "u32", K::B32),
            ("add", "u64", K::B64),
            ("min", "u32", K::B32),
            ("max", "u32", K::B32),
            ("min", "s32", K::B32),
            ("max", "s32", K::B32),
            ("min", "u64", K::B64),
            ("max", "s64", K::B64),
            ("and", "b32", K::B32),
            ("or", "b32", K::B32),
            ("xor", "b32", K::B32),
            ("and", "b64", K::B64),
            ("or", "b64", K::B64),
            ("xor", "b64", K::B64),
            ("add", "s32", K::B32),
        ];
        let kind = self.below(OPS.len() as u32)?;
        let (op, ty, k) = OPS[kind as usize];
        let v = self.src(c, k)?;
        let idx = self.reg(c, K::B32)?;
        let shared = c.shared_atoms && self.chance(1, 2)?;
        self.line(&format!("and.b32 %t6, {idx}, 1;"));
        self.line(&format!("add.u32 %t6, %t6, {};", 2 * kind));
        self.line("mul.wide.u32 %td6, %t6, 8;");
        let space = if shared {
            self.line("mov.u64 %td5, sma;");
            self.line("add.s64 %td6, %td5, %td6;");
            "shared"
        } else {
            self.line("add.s64 %td6, %atm, %td6;");
            "global"
        };
        let junk = if k == K::B32 { "%tj" } else { "%tdj" };
        if self.chance(1, 2)? {
            self.line(&format!("{g}atom.{space}.{op}.{ty} {junk}, [%td6], {v};"));
        } else {
            self.line(&format!("{g}red.{space}.{op}.{ty} [%td6], {v};"));
        }
        Ok(())
    }

    /// A direct or indirect call of one of the `c.calls` functions.
    fn call(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let d = self.reg(c, K::B32)?;
        let a = self.src(c, K::B32)?;
        let b = self.reg(c, K::B32)?;
        let f1 = self.below(c.calls)?;
        let id = self.uid;
        self.uid += 1;
        self.line("{");
        self.line(&format!(
            ".param .b32 pa{id};\n\t.param .b32 pb{id};\n\t.param .b32 pr{id};"
        ));
        self.line(&format!("st.param.b32 [pa{id}], {a};"));
        self.line(&format!("st.param.b32 [pb{id}], {b};"));
        if self.chance(1, 2)? {
            self.line(&format!("{g}call (pr{id}), f{f1}, (pa{id}, pb{id});"));
        } else {
            // Per-lane targets: selp between two function addresses.
            let f2 = self.below(c.calls)?;
            let p = self.pred(c)?;
            self.line(&format!("mov.u64 %td4, f{f1};"));
            self.line(&format!("mov.u64 %td3, f{f2};"));
            self.line(&format!("selp.b64 %td4, %td4, %td3, {p};"));
            self.line(&format!("{g}call (pr{id}), %td4, (pa{id}, pb{id}), proto;"));
        }
        self.line(&format!("ld.param.b32 %t5, [pr{id}];"));
        self.line(&format!("{g}mov.b32 {d}, %t5;"));
        self.line("}");
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Control flow.

    /// A region of `nblocks` blocks with bounded unstructured control flow, ending at
    /// `{pfx}E` (where the warp reconverges). `fuel` is this context's fuel register.
    fn region(&mut self, c: &Ctx, pfx: &str, allow_exit: bool) -> Result<()> {
        let n = self.u.int_in_range(1..=5u32)?;
        let fuel_src = self.reg(c, K::B32)?;
        self.line(&format!("and.b32 %fuel, {fuel_src}, 15;"));
        self.line("add.u32 %fuel, %fuel, 8;");
        for i in 0..n {
            self.line(&format!("mov.u32 %c{i}, 0;"));
        }
        let label = |t: u32| {
            if t == n {
                format!("{pfx}E")
            } else {
                format!("{pfx}B{t}")
            }
        };
        for i in 0..n {
            let _ = writeln!(self.s, "{}:", label(i));
            self.line(&format!("mad.lo.u32 %hash, %hash, 31, {};", self.uid + i));
            self.line("sub.u32 %fuel, %fuel, 1;");
            self.line("setp.eq.u32 %q3, %fuel, 0;");
            self.line(&format!("@%q3 bra {pfx}E;"));
            let nops = self.u.int_in_range(0..=4u32)?;
            for _ in 0..nops {
                self.op(c)?;
            }
            let t = self.below(14)?;
            match t {
                0..=2 => {}
                3 => {
                    let tg = self.below(n + 1)?;
                    let uni = if self.chance(1, 4)? { ".uni" } else { "" };
                    // bra.uni only where all lanes go the same way: unguarded.
                    self.line(&format!("bra{uni} {};", label(tg)));
                }
                4..=6 => {
                    let g = self.guard(c, 100)?;
                    let tg = self.below(n + 1)?;
                    self.line(&format!("{g}bra {};", label(tg)));
                }
                7..=9 => {
                    let len = self.pick(&[1u32, 2, 4, 8])?;
                    let mut names = Vec::new();
                    for _ in 0..len {
                        let tg = self.below(n + 1)?;
                        names.push(label(tg));
                    }
                    let r = self.reg(c, K::B32)?;
                    let g = self.guard(c, 40)?;
                    self.line(&format!("and.b32 %t4, {r}, {};", len - 1));
                    let id = self.uid;
                    self.uid += 1;
                    self.line(&format!("bt{id}: .branchtargets {};", names.join(", ")));
                    self.line(&format!("{g}brx.idx %t4, bt{id};"));
                }
                10..=11 => {
                    let head = self.below(i + 1)?;
                    let r = self.reg(c, K::B32)?;
                    let shift = self.below(30)?;
                    self.line(&format!("shr.u32 %t4, {r}, {shift};"));
                    self.line("and.b32 %t4, %t4, 3;");
                    self.line("add.u32 %t4, %t4, 1;");
                    self.line(&format!("add.u32 %c{i}, %c{i}, 1;"));
                    self.line(&format!("setp.lt.u32 %q2, %c{i}, %t4;"));
                    self.line(&format!("@%q2 bra {};", label(head)));
                }
                _ => {
                    if allow_exit {
                        let g = self.guard(c, 85)?;
                        self.store_row(&g, 0x100 + self.uid);
                        let e = self.pick(&["exit", "ret"])?;
                        self.line(&format!("{g}{e};"));
                    } else if c.func {
                        let g = self.guard(c, 85)?;
                        self.line(&format!("{g}st.param.b32 [fr], %x0;"));
                        self.line(&format!("{g}ret;"));
                    }
                }
            }
        }
        self.uid += n;
        let _ = writeln!(self.s, "{pfx}E:");
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Converged, uniform sections (never in exit mode).

    /// Shared-memory exchange between barriers, or a barrier reduction.
    fn exchange(&mut self) -> Result<()> {
        let c = Ctx::kernel(0, false);
        let bar = self.pick(&[
            "bar.sync 0;",
            "barrier.sync 0;",
            "bar.sync 1;",
            "barrier.sync.aligned 0;",
        ])?;
        if self.chance(1, 4)? {
            let p = self.npred(&c)?;
            if self.chance(1, 2)? {
                let d = self.reg(&c, K::B32)?;
                self.line(&format!("bar.red.popc.u32 {d}, 0, {p};"));
            } else {
                let d = self.pred(&c)?;
                let op = self.pick(&["and", "or"])?;
                self.line(&format!("bar.red.{op}.pred {d}, 0, {p};"));
            }
            return Ok(());
        }
        let (ty, k) = self.pick(&[
            ("u32", K::B32),
            ("u64", K::B64),
            ("f32", K::F32),
            ("f64", K::F64),
        ])?;
        let a = self.reg(&c, k)?;
        let d = self.reg(&c, k)?;
        self.line("mul.wide.u32 %td0, %tx, 8;");
        self.line("mov.u64 %td1, smx;");
        self.line("add.s64 %td1, %td1, %td0;");
        self.line(&format!("st.shared.{ty} [%td1], {a};"));
        self.line(bar);
        if self.chance(1, 2)? {
            let x = self.below(32)?;
            self.line(&format!("xor.b32 %t0, %tx, {x};"));
        } else {
            let x = self.below(MAX_BLOCK)?;
            self.line("mov.u32 %t1, %ntid.x;");
            self.line(&format!("add.u32 %t0, %tx, {x};"));
            self.line("rem.u32 %t0, %t0, %t1;");
        }
        self.line("mul.wide.u32 %td0, %t0, 8;");
        self.line("mov.u64 %td1, smx;");
        self.line("add.s64 %td1, %td1, %td0;");
        self.line(&format!("ld.shared.{ty} {d}, [%td1];"));
        self.line(bar);
        Ok(())
    }

    /// Warp collectives with a full mask in converged code.
    fn warp(&mut self) -> Result<()> {
        let c = Ctx::kernel(0, false);
        let m = "0xffffffff";
        let d = self.reg(&c, K::B32)?;
        let a = self.reg(&c, K::B32)?;
        let text = match self.below(6)? {
            0 => {
                let mode = self.pick(&["idx", "up", "down", "bfly"])?;
                let b = if self.chance(1, 2)? {
                    format!("{}", self.below(40)?)
                } else {
                    self.reg(&c, K::B32)?
                };
                let cc = match self.below(3)? {
                    0 => {
                        if mode == "up" {
                            0
                        } else {
                            0x1f
                        }
                    }
                    1 => self.below(0x2000)?,
                    _ => self.pick(&[0x1f, 0, 0x101f, 0x181f, 0x1c1f])?,
                };
                let dst = if self.chance(1, 3)? {
                    format!("{d}|{}", self.pred(&c)?)
                } else {
                    d
                };
                format!("shfl.sync.{mode}.b32 {dst}, {a}, {b}, {cc:#x}, {m};")
            }
            1 => {
                let mode = self.pick(&["all", "any", "uni"])?;
                let p = self.pred(&c)?;
                let q = self.npred(&c)?;
                format!("vote.sync.{mode}.pred {p}, {q}, {m};")
            }
            2 => {
                let q = self.npred(&c)?;
                format!("vote.sync.ballot.b32 {d}, {q}, {m};")
            }
            3 => {
                if self.chance(1, 2)? {
                    let b = self.reg(&c, K::B64)?;
                    let mode = self.pick(&["any", "all"])?;
                    if mode == "all" {
                        let p = self.pred(&c)?;
                        format!("match.all.sync.b64 {d}|{p}, {b}, {m};")
                    } else {
                        format!("match.any.sync.b64 {d}, {b}, {m};")
                    }
                } else {
                    format!("match.any.sync.b32 {d}, {a}, {m};")
                }
            }
            4 => {
                let (op, ty) = self.pick(&[
                    ("add", "u32"),
                    ("add", "s32"),
                    ("min", "u32"),
                    ("max", "s32"),
                    ("min", "s32"),
                    ("max", "u32"),
                    ("and", "b32"),
                    ("or", "b32"),
                    ("xor", "b32"),
                ])?;
                format!("redux.sync.{op}.{ty} {d}, {a}, {m};")
            }
            _ => format!("activemask.b32 {d};"),
        };
        self.line(&text);
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Module.

    fn store_row(&mut self, g: &str, marker: u32) {
        let mut t = String::new();
        for i in 0..8 {
            let _ = writeln!(t, "\t{g}st.global.u32 [%orow+{}], %r{i};", 4 * i);
        }
        for i in 0..6 {
            let _ = writeln!(t, "\t{g}st.global.u64 [%orow+{}], %rd{i};", 32 + 8 * i);
        }
        for i in 0..6 {
            let _ = writeln!(t, "\t{g}st.global.f32 [%orow+{}], %f{i};", 80 + 4 * i);
        }
        for i in 0..4 {
            let _ = writeln!(t, "\t{g}st.global.f64 [%orow+{}], %fd{i};", 104 + 8 * i);
        }
        for i in 0..4 {
            let _ = writeln!(t, "\t{g}selp.u32 %t3, 1, 0, %p{i};");
            let _ = writeln!(t, "\t{g}st.global.u32 [%orow+{}], %t3;", 136 + 4 * i);
        }
        let _ = writeln!(t, "\t{g}st.global.u32 [%orow+152], %hash;");
        let _ = writeln!(t, "\t{g}mov.u32 %t3, {marker};");
        let _ = writeln!(t, "\t{g}st.global.u32 [%orow+156], %t3;");
        self.s.push_str(&t);
    }

    /// `.func (.param .b32 fr) f{i}(.param .b32 fa, .param .b32 fb)`: may branch, may
    /// call f0..f{i-1}.
    fn func(&mut self, i: u32) -> Result<()> {
        let c = Ctx::func(i);
        let _ = writeln!(
            self.s,
            ".func (.param .b32 fr) f{i}(.param .b32 fa, .param .b32 fb)\n{{"
        );
        self.s.push_str(
            "\t.reg .b32 %x<4>;\n\t.reg .b64 %xd<2>;\n\t.reg .f32 %xf<2>;\n\t.reg .f64 %xfd<2>;\n\
             \t.reg .pred %y<2>;\n\t.reg .b32 %t<8>, %tj, %fuel, %hash, %c<8>;\n\
             \t.reg .b64 %td<8>, %tdj;\n\t.reg .pred %q<4>;\n\t.reg .b16 %th;\n",
        );
        if i > 0 {
            self.line("proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);");
        }
        self.line("ld.param.b32 %x0, [fa];");
        self.line("ld.param.b32 %x1, [fb];");
        self.line("xor.b32 %x2, %x0, %x1;");
        let k = self.imm(32)?;
        self.line(&format!("mov.u32 %x3, {k};"));
        self.line("mul.wide.u32 %xd0, %x0, %x1;");
        self.line("cvt.u64.u32 %xd1, %x1;");
        self.line("mov.b32 %xf0, %x0;");
        self.line("cvt.rn.f32.u32 %xf1, %x1;");
        self.line("cvt.f64.f32 %xfd0, %xf0;");
        self.line("cvt.rn.f64.s32 %xfd1, %x0;");
        self.line("setp.lt.u32 %y0, %x0, %x1;");
        self.line("setp.eq.u32 %y1, %x2, 0;");
        self.line("mov.u32 %hash, 0;");
        if self.chance(1, 2)? {
            self.region(&c, &format!("F{i}_"), false)?;
        } else {
            for _ in 0..self.u.int_in_range(0..=6u32)? {
                self.op(&c)?;
            }
        }
        // Fold every bank into the result.
        self.line("cvt.u32.u64 %t0, %xd0;");
        self.line("xor.b32 %x0, %x0, %t0;");
        self.line("cvt.u32.u64 %t0, %xd1;");
        self.line("add.u32 %x0, %x0, %t0;");
        self.line("mov.b32 %t0, %xf0;");
        self.line("xor.b32 %x0, %x0, %t0;");
        self.line("mov.b32 %t0, %xf1;");
        self.line("add.u32 %x0, %x0, %t0;");
        self.line("mov.b64 %td0, %xfd0;");
        self.line("cvt.u32.u64 %t0, %td0;");
        self.line("xor.b32 %x0, %x0, %t0;");
        self.line("mov.b64 %td0, %xfd1;");
        self.line("shr.u64 %td0, %td0, 32;");
        self.line("cvt.u32.u64 %t0, %td0;");
        self.line("add.u32 %x0, %x0, %t0;");
        self.line("selp.b32 %t0, 3, 5, %y0;");
        self.line("mad.lo.u32 %x0, %x0, %t0, %hash;");
        self.line("st.param.b32 [fr], %x0;");
        self.line("ret;");
        self.s.push_str("}\n\n");
        Ok(())
    }

    fn program(mut self) -> Result<Program> {
        let grid = self.u.int_in_range(1..=MAX_GRID)?;
        let block = 32 * self.u.int_in_range(1..=MAX_BLOCK / 32)?;
        let seed: u64 = self.u.arbitrary()?;
        self.exit_mode = self.chance(1, 5)?;
        let nfuncs = self.u.int_in_range(0..=3u32)?;
        self.s
            .push_str(".version 7.8\n.target sm_80\n.address_size 64\n\n");
        let _ = writeln!(self.s, ".shared .align 8 .b8 smx[{}];", MAX_BLOCK * 8);
        let _ = writeln!(self.s, ".shared .align 8 .b8 sma[{}];\n", ATOM_SLOTS * 8);
        for i in 0..nfuncs {
            self.func(i)?;
        }
        self.s.push_str(
            ".visible .entry k(.param .u64 k_in, .param .u64 k_out, .param .u64 k_atom)\n{\n",
        );
        self.s.push_str(
            "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<6>;\n\t.reg .f32 %f<6>;\n\t.reg .f64 %fd<4>;\n\
             \t.reg .pred %p<4>;\n\t.reg .b32 %t<8>, %tj, %tx, %gx, %fuel, %hash, %c<8>;\n\
             \t.reg .b64 %td<8>, %tdj, %in, %row, %orow, %atm;\n\t.reg .pred %q<4>;\n\
             \t.reg .b16 %th;\n\t.local .align 8 .b8 loc[32];\n",
        );
        if nfuncs > 0 {
            self.line("proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);");
        }
        self.s.push_str(&format!(
            "\tmov.u32 %tx, %tid.x;\n\tmov.u32 %t0, %ctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\
             \tmad.lo.u32 %gx, %t0, %t1, %tx;\n\
             \tld.param.u64 %in, [k_in];\n\tcvta.to.global.u64 %in, %in;\n\
             \tld.param.u64 %orow, [k_out];\n\tcvta.to.global.u64 %orow, %orow;\n\
             \tld.param.u64 %atm, [k_atom];\n\tcvta.to.global.u64 %atm, %atm;\n\
             \tmul.wide.u32 %td0, %gx, {IN_ROW};\n\tadd.s64 %row, %in, %td0;\n\
             \tmul.wide.u32 %td0, %gx, {OUT_ROW};\n\tadd.s64 %orow, %orow, %td0;\n"
        ));
        for i in 0..8 {
            self.line(&format!("ld.global.u32 %r{i}, [%row+{}];", 4 * i));
        }
        for i in 0..6 {
            self.line(&format!("ld.global.u64 %rd{i}, [%row+{}];", 32 + 8 * i));
        }
        for i in 0..6 {
            self.line(&format!("ld.global.f32 %f{i}, [%row+{}];", 80 + 4 * i));
        }
        for i in 0..4 {
            self.line(&format!("ld.global.f64 %fd{i}, [%row+{}];", 104 + 8 * i));
        }
        self.s.push_str(
            "\tmov.u32 %hash, 0;\n\tand.b32 %t0, %tx, 1;\n\tsetp.ne.u32 %p0, %t0, 0;\n\
             \tsetp.lt.u32 %p1, %r1, %r2;\n\tmov.u32 %t0, %laneid;\n\tsetp.lt.u32 %p2, %t0, 16;\n\
             \tsetp.lt.f32 %p3, %f0, %f1;\n",
        );
        for i in 0..8 {
            self.line(&format!("st.local.u32 [loc+{}], %r{i};", 4 * i));
        }
        let shared_atoms = !self.exit_mode && self.chance(1, 2)?;
        if shared_atoms {
            // sma[tid] = rd0 for tid < ATOM_SLOTS, then a barrier.
            self.line(&format!("setp.lt.u32 %q0, %tx, {ATOM_SLOTS};"));
            self.line("mul.wide.u32 %td0, %tx, 8;");
            self.line("mov.u64 %td1, sma;");
            self.line("add.s64 %td1, %td1, %td0;");
            self.line("@%q0 st.shared.u64 [%td1], %rd0;");
            self.line("bar.sync 0;");
        }
        let c = Ctx::kernel(nfuncs, shared_atoms);
        let nseg = self.u.int_in_range(1..=4u32)?;
        for sgi in 0..nseg {
            let kind = if self.exit_mode { 0 } else { self.below(4)? };
            match kind {
                0 | 1 => self.region(&c, &format!("R{sgi}_"), self.exit_mode)?,
                2 => self.exchange()?,
                _ => {
                    for _ in 0..self.u.int_in_range(1..=3u32)? {
                        self.warp()?;
                    }
                }
            }
        }
        self.store_row("", 0xE0D);
        if shared_atoms {
            // out[nthreads * OUT_ROW + ctaid * 8 ATOM_SLOTS + tid * 8] = sma[tid].
            self.line("bar.sync 0;");
            self.s.push_str(&format!(
                "\tld.param.u64 %td2, [k_out];\n\tcvta.to.global.u64 %td2, %td2;\n\
                 \tmov.u32 %t0, %nctaid.x;\n\tmov.u32 %t1, %ntid.x;\n\tmul.lo.u32 %t0, %t0, %t1;\n\
                 \tmul.wide.u32 %td0, %t0, {OUT_ROW};\n\tadd.s64 %td2, %td2, %td0;\n\
                 \tmov.u32 %t0, %ctaid.x;\n\tmul.wide.u32 %td0, %t0, {};\n\tadd.s64 %td2, %td2, %td0;\n\
                 \tsetp.lt.u32 %q0, %tx, {ATOM_SLOTS};\n\tmul.wide.u32 %td0, %tx, 8;\n\
                 \tadd.s64 %td2, %td2, %td0;\n\tmov.u64 %td1, sma;\n\tadd.s64 %td1, %td1, %td0;\n\
                 \t@%q0 ld.shared.u64 %td3, [%td1];\n\t@%q0 st.global.u64 [%td2], %td3;\n",
                ATOM_SLOTS * 8
            ));
        }
        self.line("ret;");
        self.s.push_str("}\n");
        Ok(Program {
            src: self.s,
            grid,
            block,
            seed,
            shared_atoms,
        })
    }
}
