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
//! - Shape sections (`shape.rs`): loops with a uniform trip count, loads at affine
//!   addresses whose arithmetic wraps around, values a divergent `if`/`else` leaves
//!   uniform or varying; and a quarter of the blocks of any size (1 to 128 threads, a
//!   partial last warp: no warp collectives then).
//! - Shifting accesses (`shape.rs`): a loop whose loads (global) or stores and loads
//!   (shared), up to three through one address register, see a lane-address shape (one
//!   address per half-warp or uniform, consecutive, two half-warp rows, scattered)
//!   picked at run time from the loop counter and `%ctaid.x`, the warp's index or
//!   loaded data, so that it changes between iterations, warps and CTAs.
//! - Batch programs (1 in 8): 128 to 192 CTAs of at most 64 threads, no calls and no
//!   barriers, which the JIT runs several CTAs to a call (their warps chained).
//! - 16-bit and half precision (`half.rs`): `.u16/.s16/.b16` arithmetic in the 16-bit
//!   registers `%h0..7` (the halves of `%r4..7`, XORed into `%r0..3` before the row is
//!   stored), `.f16/.bf16/.f16x2/.bf16x2` arithmetic, comparisons and conversions,
//!   packing movs; a quarter of the modules target sm_90 for the bf16 forms that need it.
//! - Sub-word and vector memory (`vmem.rs`): `ld/st` of 1 to 16 bytes (`.v2`, `.v4`) at
//!   uniform, affine, scattered and 16-bit-computed addresses, stores to the thread's own
//!   bytes only (scratch words, the column areas after the shared atomic slots in `out`
//!   ([`col_offset`]), the `.shared` arrays `smv` and `smc`, `.local`).
//!   Each program draws the share of these two families: 15, 35 or 70% of operations.

use arbitrary::{Arbitrary, Result, Unstructured};
use std::fmt::Write as _;

mod arith;
mod flow;
mod half;
mod shape;
mod vmem;

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
/// Grids of "batch" programs (1 in 8): enough CTAs that a one-worker device runs two or
/// three of them in one JIT call (`src/runtime/launch.rs`, `batch_size`: a chunk is
/// `ncta / 64` CTAs), with blocks of at most [`BATCH_MAX_BLOCK`] threads.
pub const BATCH_GRID: [u32; 2] = [128, 192];
pub const BATCH_MAX_BLOCK: u32 = 64;
/// Input rows a batch program's threads read (thread `g` reads row `g % BATCH_ROWS`):
/// they fit in [`IN_BYTES`].
pub const BATCH_ROWS: u32 = 448;
/// Words of the `.shared` table `smt` that shifting accesses (`shape.rs`) store and load.
pub const SMT_WORDS: u32 = 1024;

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
    /// per CTA for the shared atomics, then the column areas ([`col_offset`]).
    pub fn out_bytes(&self) -> usize {
        let n = self.grid * self.block;
        n as usize * OUT_ROW as usize
            + (self.grid * ATOM_SLOTS * 8) as usize
            + col_offset(n, 32) as usize
    }
}

/// Offset in the `.shared` array `smc` of the column area of accesses of `size` bytes
/// (1, 2, 4, 8, 16): one slot per thread, thread `t`'s at `t × size` (`vmem.rs`).
pub fn shared_col(size: u32) -> u32 {
    [1u32, 2, 4, 8]
        .iter()
        .take_while(|&&s| s < size)
        .map(|s| MAX_BLOCK * s)
        .sum()
}

/// Offset, from the end of the shared atomic slots in `out`, of the column area of
/// accesses of `size` bytes (1, 2, 4, 8, 16; 32: the end) for `n` threads: 4 slots per
/// thread, slot `m` of thread `g` at `m × n × size + g × size`, so that the lanes of a
/// warp store next to each other (`vmem.rs`). Each area is a multiple of 16 bytes.
pub fn col_offset(n: u32, size: u32) -> u32 {
    [1u32, 2, 4, 8, 16]
        .iter()
        .take_while(|&&s| s < size)
        .map(|s| (4 * n * s).div_ceil(16) * 16)
        .sum()
}

impl<'a> Arbitrary<'a> for Program {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Gen::new(u).program()
    }
}

/// Deterministic pseudo-random bytes for `seed` (xorshift64): the stand-ins for fuzzer
/// input that `tests/fuzz_replay.rs` and `tests/golden_fuzz.rs` make programs from.
pub fn seed_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// The register or field that byte `o` of a thread's output row holds (see [`OUT_ROW`]).
pub fn out_row_field(o: usize) -> String {
    match o {
        0..=31 => format!("%r{}", o / 4),
        32..=79 => format!("%rd{}", (o - 32) / 8),
        80..=103 => format!("%f{}", (o - 80) / 4),
        104..=135 => format!("%fd{}", (o - 104) / 8),
        136..=151 => format!("%p{}", (o - 136) / 4),
        152..=155 => "path hash".into(),
        156..=159 => "marker".into(),
        _ => format!("scratch word {}", (o - 160) / 4),
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
    /// The 16-bit registers (`half.rs`): name and count.
    hname: &'static str,
    nh: u32,
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
            hname: "%h",
            nh: 8,
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
            hname: "%xh",
            nh: 2,
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
    /// A batch program: a large grid of a barrier-free, call-free kernel.
    batch: bool,
    /// The module targets `sm_90` (bf16 `add sub mul setp set` and `cvt`s, `half.rs`).
    sm90: bool,
    /// Threads of the launch (the column areas of `vmem.rs`).
    nthreads: u32,
    /// Percentage of operations from `half.rs` and `vmem.rs` (per program: 15, 35 or 70).
    half_pct: u8,
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
            batch: false,
            sm90: false,
            nthreads: 0,
            half_pct: 0,
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
        // 16-bit and half-precision operations (`half.rs`), sub-word and vector memory
        // accesses (`vmem.rs`, kernel only; a third of them): their share is the
        // program's `half_pct`.
        let roll = self.u.int_in_range(0u8..=99)?;
        if roll < self.half_pct {
            return if !c.func && roll % 3 == 0 {
                self.vmem(c, &g)
            } else {
                self.half_op(c, &g)
            };
        }
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
             \t.reg .b64 %td<8>, %tdj;\n\t.reg .pred %q<4>;\n\t.reg .b16 %th, %xh<2>;\n",
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
        self.line("mov.b32 {%xh0, %xh1}, %x2;");
        self.line("mov.u32 %hash, 0;");
        if self.chance(1, 2)? {
            self.region(&c, &format!("F{i}_"), false)?;
        } else {
            for _ in 0..self.u.int_in_range(0..=6u32)? {
                self.op(&c)?;
            }
        }
        // Fold every bank into the result.
        self.line("mov.b32 %t0, {%xh0, %xh1};");
        self.line("xor.b32 %x1, %x1, %t0;");
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
        // 1 in 8 programs is a batch program: no calls, no barriers (no exchanges, no
        // shared atomics), so that the JIT chains several CTAs' warps in one call.
        self.batch = self.chance(1, 8)?;
        let (grid, max_block) = match self.batch {
            true => (
                self.u.int_in_range(BATCH_GRID[0]..=BATCH_GRID[1])?,
                BATCH_MAX_BLOCK,
            ),
            false => (self.u.int_in_range(1..=MAX_GRID)?, MAX_BLOCK),
        };
        // A quarter of the blocks are any size (a partial last warp: `%tid.x` is not
        // affine, and no warp collective may name the missing lanes).
        let block = if self.chance(1, 4)? {
            self.u.int_in_range(1..=max_block)?
        } else {
            32 * self.u.int_in_range(1..=max_block / 32)?
        };
        let partial = block % 32 != 0;
        self.nthreads = grid * block;
        let seed: u64 = self.u.arbitrary()?;
        self.exit_mode = self.chance(1, 5)?;
        let nfuncs = match self.batch {
            true => 0,
            false => self.u.int_in_range(0..=3u32)?,
        };
        self.sm90 = self.chance(1, 4)?;
        self.half_pct = self.pick(&[15, 35, 70])?;
        let sm = if self.sm90 { 90 } else { 80 };
        let _ = write!(
            self.s,
            ".version 7.8\n.target sm_{sm}\n.address_size 64\n\n"
        );
        let _ = writeln!(self.s, ".shared .align 8 .b8 smx[{}];", MAX_BLOCK * 8);
        let _ = writeln!(self.s, ".shared .align 8 .b8 sma[{}];", ATOM_SLOTS * 8);
        let _ = writeln!(self.s, ".shared .align 8 .b8 smt[{}];", SMT_WORDS * 4);
        let _ = writeln!(self.s, ".shared .align 16 .b8 smv[{}];", MAX_BLOCK * 32);
        let _ = writeln!(self.s, ".shared .align 16 .b8 smc[{}];\n", MAX_BLOCK * 31);
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
             \t.reg .b16 %th, %h<8>;\n\t.local .align 16 .b8 loc[32];\n\
             \t.reg .b32 %s<6>;\n\t.reg .b64 %sd<2>, %sv, %vb;\n\t.reg .pred %qs<2>;\n",
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
             \tmul.wide.u32 %td0, %gx, {OUT_ROW};\n\tadd.s64 %orow, %orow, %td0;\n"
        ));
        if self.batch {
            // More threads than rows of `in`: thread g reads row g % BATCH_ROWS.
            self.line(&format!("rem.u32 %t2, %gx, {BATCH_ROWS};"));
            self.line(&format!("mul.wide.u32 %td0, %t2, {IN_ROW};"));
        } else {
            self.line(&format!("mul.wide.u32 %td0, %gx, {IN_ROW};"));
        }
        self.line("add.s64 %row, %in, %td0;");
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
        // The 16-bit registers are the halves of %r4..7; the thread's 32 bytes of `smv`
        // hold %r0..7.
        for i in 0..4 {
            self.line(&format!(
                "mov.b32 {{%h{}, %h{}}}, %r{};",
                2 * i,
                2 * i + 1,
                4 + i
            ));
        }
        self.line("mul.wide.u32 %td0, %tx, 32;");
        self.line("mov.u64 %sv, smv;");
        self.line("add.s64 %sv, %sv, %td0;");
        self.line("st.shared.v4.u32 [%sv], {%r0, %r1, %r2, %r3};");
        self.line("st.shared.v4.u32 [%sv+16], {%r4, %r5, %r6, %r7};");
        // The thread's slots of the shared column areas (`shared_col`).
        self.line("mov.u64 %td1, smc;");
        for (size, st) in [
            (1, "u8 [%td0], %r0"),
            (2, "u16 [%td0], %r1"),
            (4, "u32 [%td0], %r2"),
            (8, "u64 [%td0], %rd0"),
            (16, "v4.u32 [%td0], {%r4, %r5, %r6, %r7}"),
        ] {
            self.line(&format!("mul.wide.u32 %td0, %tx, {size};"));
            self.line("add.s64 %td0, %td0, %td1;");
            let st = st.replace("[%td0]", &format!("[%td0+{}]", shared_col(size)));
            self.line(&format!("st.shared.{st};"));
        }
        // %vb: the column areas of `out` (after the rows and the shared atomic slots).
        self.line("ld.param.u64 %vb, [k_out];");
        self.line("cvta.to.global.u64 %vb, %vb;");
        let cols = self.nthreads * OUT_ROW + grid * ATOM_SLOTS * 8;
        self.line(&format!("add.s64 %vb, %vb, {cols};"));
        let shared_atoms = !self.exit_mode && !self.batch && self.chance(1, 2)?;
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
            let kind = if self.exit_mode {
                self.pick(&[0, 0, 0, 4])?
            } else {
                self.below(5)?
            };
            match kind {
                0 | 1 => self.region(&c, &format!("R{sgi}_"), self.exit_mode)?,
                2 if self.batch => self.shifting_access(&c)?,
                2 => self.exchange(partial)?,
                3 if !partial => {
                    for _ in 0..self.u.int_in_range(1..=3u32)? {
                        self.warp()?;
                    }
                }
                _ => self.shape(&c)?,
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
