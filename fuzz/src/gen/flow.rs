//! The generator's memory, atomics, calls and control flow: per-thread loads and stores,
//! rare out-of-bounds loads, order-independent atomics, direct and indirect calls,
//! bounded unstructured regions, shared-memory exchanges between barriers, warp
//! collectives, and the final store of a thread's row.

use super::*;

impl Gen<'_, '_> {
    /// Loads from anywhere in `in`; stores/loads of the thread's own scratch words and
    /// `.local` array (kernel only).
    pub(super) fn mem(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn wild(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn atomic(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn call(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn region(&mut self, c: &Ctx, pfx: &str, allow_exit: bool) -> Result<()> {
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
    /// With a `partial` last warp, the partner is `(tid + x) % ntid` (a thread that
    /// exists), else also `tid ^ x`.
    pub(super) fn exchange(&mut self, partial: bool) -> Result<()> {
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
        if !partial && self.chance(1, 2)? {
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
    pub(super) fn warp(&mut self) -> Result<()> {
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
            // A GPU need not have reconverged after a divergent region: the warp is
            // synchronised first, so that the mask is the whole warp on a GPU too.
            _ => format!("bar.warp.sync -1;\n\tactivemask.b32 {d};"),
        };
        self.line(&text);
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Module.

    pub(super) fn store_row(&mut self, g: &str, marker: u32) {
        let mut t = String::new();
        // The 16-bit registers, folded into %r0..3 (`half.rs`).
        for i in 0..4 {
            let (a, b) = (2 * i, 2 * i + 1);
            let _ = writeln!(t, "\t{g}mov.b32 %t3, {{%h{a}, %h{b}}};");
            let _ = writeln!(t, "\t{g}xor.b32 %r{i}, %r{i}, %t3;");
        }
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
}
