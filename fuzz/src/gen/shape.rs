//! Kernel sections that exercise the JIT's value shapes (issue 14: uniform, affine and
//! varying values, `ir::analysis::shape`): loops with a uniform trip count, affine
//! addresses whose 32- or 64-bit arithmetic wraps around between lanes, and values
//! that a divergent `if`/`else` leaves equal in every lane or not. Every section is
//! well defined for any block size and any set of exited lanes: it reads only `in`
//! and writes only the thread's registers (and what its operations write).
//!
//! Registers: `%c5` (the shaped value), `%c6` (a loop counter), `%c7` (a trip count);
//! regions use `%c0..%c4`, the operations none of them. `%td6` is an address built
//! and used at once (memory operations build theirs there too).

use super::*;

impl Gen<'_, '_> {
    /// One shape section in kernel context `c`.
    pub(super) fn shape(&mut self, c: &Ctx) -> Result<()> {
        match self.below(9)? {
            0 | 1 => self.uniform_loop(c),
            2 | 3 => self.affine_load(c),
            4 | 5 => self.shifting_access(c),
            6 | 7 => self.warp_lane(c),
            _ => self.join_value(c),
        }
    }

    /// Warp and lane numbers: `%c5` from `%tx`, `%laneid` or the global index through one
    /// or two of `shr`, `and`/`or`/`xor` with a constant or with `%ctaid.x`/`%ntid.x`
    /// shifted left, `div.u`/`rem.u` by a power of two and `shl`; then compared with a
    /// warp boundary for a branch around one operation, and used as an address in `in`.
    /// (Uniform or affine where warps are whole rows and the operation keeps the lanes
    /// of one aligned block apart: `tid >> 5`, `tid & 31`, `pid << 10 | tid`; varying
    /// otherwise.)
    fn warp_lane(&mut self, c: &Ctx) -> Result<()> {
        let x = match self.batch {
            true => self.pick(&["%tx", "%laneid"])?,
            false => self.pick(&["%tx", "%gx", "%laneid"])?,
        };
        self.line(&format!("mov.u32 %c5, {x};"));
        for _ in 0..self.u.int_in_range(1..=2u32)? {
            match self.below(7)? {
                0 => {
                    let k = self.pick(&[1u32, 4, 5, 6, 8, 31])?;
                    let ty = self.pick(&["u32", "s32"])?;
                    self.line(&format!("shr.{ty} %c5, %c5, {k};"));
                }
                1..=3 => {
                    let op = ["and", "or", "xor"][self.below(3)? as usize];
                    let m = self.pick(&[
                        31u32,
                        63,
                        15,
                        1,
                        32,
                        64,
                        0x3e,
                        0x400,
                        0xffff_ffe0,
                        0xffff_ff00,
                        0x8000_0000,
                    ])?;
                    self.line(&format!("{op}.b32 %c5, %c5, {m:#x};"));
                }
                4 => {
                    let op = ["and", "or", "xor"][self.below(3)? as usize];
                    let u = self.pick(&["%ctaid.x", "%ntid.x"])?;
                    let k = self.pick(&[0u32, 4, 5, 6, 10])?;
                    self.line(&format!("mov.u32 %c7, {u};"));
                    self.line(&format!("shl.b32 %c7, %c7, {k};"));
                    self.line(&format!("{op}.b32 %c5, %c5, %c7;"));
                }
                5 => {
                    let op = self.pick(&["div", "rem"])?;
                    let d = self.pick(&[2u32, 16, 32, 64])?;
                    self.line(&format!("{op}.u32 %c5, %c5, {d};"));
                }
                _ => {
                    let k = self.pick(&[1u32, 2, 5])?;
                    self.line(&format!("shl.b32 %c5, %c5, {k};"));
                }
            }
        }
        self.line("mad.lo.u32 %hash, %hash, 31, %c5;");
        let id = self.uid;
        self.uid += 1;
        let cmp = self.pick(&[
            "lt.u32", "ge.u32", "gt.u32", "le.u32", "lt.s32", "ge.s32", "gt.s32", "le.s32",
        ])?;
        let bound = self.pick(&[0u32, 1, 31, 32, 63, 64, 96, 0x7fff_ffff, 0xffff_ffff])?;
        self.line(&format!("setp.{cmp} %q2, %c5, {bound:#x};"));
        self.line(&format!("@%q2 bra W{id}_T;"));
        self.op(c)?;
        let _ = writeln!(self.s, "W{id}_T:");
        self.line("and.b32 %c7, %c5, 4095;");
        self.line("mul.wide.u32 %td6, %c7, 8;");
        self.line("add.s64 %td6, %in, %td6;");
        let g = self.guard(c, 25)?;
        let r = self.reg(c, K::B64)?;
        self.line(&format!("{g}ld.global.u64 {r}, [%td6];"));
        Ok(())
    }

    /// A uniform value in `%c5`: from `%ctaid.x`, `%ntid.x`, `%nctaid.x`, a constant,
    /// or a load from a uniform address in `in`.
    fn uniform_value(&mut self) -> Result<()> {
        match self.below(4)? {
            0 => {
                let s = self.pick(&["%ctaid.x", "%ntid.x", "%nctaid.x"])?;
                self.line(&format!("mov.u32 %c5, {s};"));
            }
            1 => {
                let k = self.imm(32)?;
                self.line(&format!("mov.u32 %c5, {k};"));
            }
            _ => {
                let o = 4 * self.below(IN_BYTES as u32 / 4)?;
                self.line(&format!("ld.global.u32 %c5, [%in+{o}];"));
            }
        }
        Ok(())
    }

    /// `for (%c6 = 0; %c6 < 1 + (%c5 & 7); %c6++) { ops }`: every lane that runs it
    /// takes the back edge the same number of times (a uniform branch).
    fn uniform_loop(&mut self, c: &Ctx) -> Result<()> {
        self.uniform_value()?;
        let id = self.uid;
        self.uid += 1;
        self.line("and.b32 %c7, %c5, 7;");
        self.line("add.u32 %c7, %c7, 1;");
        self.line("mov.u32 %c6, 0;");
        let _ = writeln!(self.s, "U{id}:");
        self.line("mad.lo.u32 %hash, %hash, 31, %c6;");
        for _ in 0..self.u.int_in_range(1..=4u32)? {
            self.op(c)?;
        }
        self.line("add.u32 %c6, %c6, 1;");
        self.line("setp.lt.u32 %q2, %c6, %c7;");
        let uni = if self.chance(1, 2)? { ".uni" } else { "" };
        self.line(&format!("@%q2 bra{uni} U{id};"));
        Ok(())
    }

    /// A load from `in` at an affine address: `o + s × x` elements for `x` one of
    /// `%tid.x`, `%laneid`, the global thread index, computed as `(x × s + b) + (o − b)`
    /// in 32 bits with `b` picked so that the lanes' intermediate values wrap around
    /// 2^32; and its 64-bit byte offset moved by a large constant and back, which
    /// wraps around 2^64.
    fn affine_load(&mut self, c: &Ctx) -> Result<()> {
        let (ty, k, sz) = self.pick(&[
            ("u32", K::B32, 4u32),
            ("u64", K::B64, 8),
            ("f32", K::F32, 4),
            ("f64", K::F64, 8),
        ])?;
        // A batch program's global index is too large for `in`.
        let x = match self.batch {
            true => self.pick(&["%tx", "%laneid"])?,
            false => self.pick(&["%tx", "%gx", "%laneid"])?,
        };
        // |s × x| ≤ 4 × 383 elements, o in [2048, 4096): in range for 8-byte elements.
        let s = self.pick(&[1u32, 2, 3, 4, 0xffff_ffff, 0xffff_fffe])?;
        let o = 2048 + self.below(2048)?;
        let b = self.u.int_in_range(0xffff_f000..=0xffff_ffffu32)?;
        self.line(&format!("mov.u32 %c5, {x};"));
        self.line(&format!("mad.lo.u32 %c5, %c5, {s:#x}, {b:#x};"));
        self.line(&format!("add.u32 %c5, %c5, {:#x};", o.wrapping_sub(b)));
        self.line(&format!("mul.wide.u32 %td6, %c5, {sz};"));
        if self.chance(1, 2)? {
            let big: u64 = self.u.arbitrary()?;
            self.line(&format!("add.s64 %td6, %td6, {big:#x};"));
            self.line("add.s64 %td6, %td6, %in;");
            self.line(&format!("sub.s64 %td6, %td6, {big:#x};"));
        } else {
            self.line("add.s64 %td6, %in, %td6;");
        }
        let g = self.guard(c, 25)?;
        let r = self.reg(c, k)?;
        self.line(&format!("{g}ld.global.{ty} {r}, [%td6];"));
        Ok(())
    }

    /// `%c5` set on both sides of a branch on a varying predicate, to the same value
    /// (uniform again after the join, though the analysis calls it varying) or to
    /// different ones (varying); then used as an address, a loop bound and an operand.
    fn join_value(&mut self, c: &Ctx) -> Result<()> {
        self.uniform_value()?;
        let id = self.uid;
        self.uid += 1;
        let p = self.pred(c)?;
        let k1 = self.imm(32)?;
        let k2 = if self.chance(1, 2)? {
            k1.clone()
        } else {
            self.imm(32)?
        };
        let op = self.pick(&["add.u32", "xor.b32", "mul.lo.u32"])?;
        self.line(&format!("@{p} bra J{id}_T;"));
        self.line(&format!("{op} %c5, %c5, {k1};"));
        self.line(&format!("bra.uni J{id}_E;"));
        let _ = writeln!(self.s, "J{id}_T:");
        self.line(&format!("{op} %c5, %c5, {k2};"));
        let _ = writeln!(self.s, "J{id}_E:");
        match self.below(3)? {
            0 => {
                self.line("and.b32 %c7, %c5, 4095;");
                self.line("mul.wide.u32 %td6, %c7, 8;");
                self.line("add.s64 %td6, %in, %td6;");
                let r = self.reg(c, K::B64)?;
                self.line(&format!("ld.global.u64 {r}, [%td6];"));
            }
            1 => {
                self.line("and.b32 %c7, %c5, 3;");
                self.line("mov.u32 %c6, 0;");
                let _ = writeln!(self.s, "J{id}_L:");
                self.line("mad.lo.u32 %hash, %hash, 31, %c5;");
                self.op(c)?;
                self.line("add.u32 %c6, %c6, 1;");
                self.line("setp.le.u32 %q2, %c6, %c7;");
                self.line(&format!("@%q2 bra J{id}_L;"));
            }
            _ => {
                let r = self.reg(c, K::B32)?;
                self.line(&format!("xor.b32 {r}, {r}, %c5;"));
            }
        }
        Ok(())
    }

    /// A loop of 1 to 5 iterations whose loads (from `in`) or stores and loads (of the
    /// `.shared` table `smt`), one to three through one 64-bit address register with
    /// different offsets, see per iteration one of four lane-address shapes: one address
    /// per half-warp (`(lane >> 4) × R'`, uniform when `R'` is 0), consecutive
    /// (`%laneid`), two half-warp rows `R` elements apart, or scattered
    /// (`%laneid × 37 ^ y`), picked by `(counter × step + x) & 3` where `x` is
    /// `%ctaid.x`, the warp's index in its CTA, a loaded word (per lane: shapes mixed in
    /// one warp), a uniform value or 0; the base moves with the counter and `%ctaid.x`.
    /// So the same instructions see a shape change between iterations, chained warps
    /// and CTAs (the JIT remembers a register's half-warp shape for its later loads,
    /// `jit/lower/mem_halves.rs`). Shared word `j` is only ever written with
    /// `f(j) = j × 0x9e3779b1 + 0x5bd1e995`, by the lane that then loads it.
    pub(super) fn shifting_access(&mut self, c: &Ctx) -> Result<()> {
        self.uniform_value()?;
        let id = self.uid;
        self.uid += 1;
        // 1 to 4 or 2 to 5 iterations: with one, a shape can only carry over from the
        // previous warp or CTA of a batch.
        let least = self.pick(&[1u32, 2])?;
        self.line("and.b32 %c7, %c5, 3;");
        self.line(&format!("add.u32 %c7, %c7, {least};"));
        match self.below(5)? {
            0 => self.line("mov.u32 %s0, %ctaid.x;"),
            1 => self.line("shr.u32 %s0, %tx, 5;"),
            2 => {
                let o = 4 * self.below(IN_ROW / 4)?;
                self.line(&format!("ld.global.u32 %s0, [%row+{o}];"));
            }
            3 => self.line("mov.u32 %s0, %c5;"),
            _ => self.line("mov.u32 %s0, 0;"),
        }
        if self.chance(1, 2)? {
            let o = 4 * self.below(IN_ROW / 4)?;
            self.line(&format!("ld.global.u32 %s1, [%row+{o}];"));
        } else {
            let k = self.imm(32)?;
            self.line(&format!("xor.b32 %s1, %c5, {k};"));
        }
        let rows = self.pick(&[0u32, 16, 17, 24, 32, 64, 100, 256])?;
        let half_rows = self.pick(&[0u32, 0, 1, 16, 64])?;
        let step = self.pick(&[1u32, 2, 3])?;
        let move_by = self.pick(&[0u32, 1, 16, 32, 33, 64, 1000])?;
        let cta_by = self.pick(&[0u32, 1, 32, 48])?;
        self.line("mov.u32 %c6, 0;");
        let _ = writeln!(self.s, "S{id}:");
        self.line(&format!("mad.lo.u32 %s2, %c6, {step}, %s0;"));
        self.line("and.b32 %s3, %s2, 1;");
        self.line("setp.ne.u32 %qs0, %s3, 0;");
        self.line("and.b32 %s3, %s2, 2;");
        self.line("setp.ne.u32 %qs1, %s3, 0;");
        self.line("mov.u32 %s3, %laneid;");
        self.line("and.b32 %s4, %s3, 15;");
        self.line("shr.u32 %s5, %s3, 4;");
        self.line(&format!("mad.lo.u32 %s4, %s5, {rows}, %s4;"));
        self.line(&format!("mul.lo.u32 %s2, %s5, {half_rows};"));
        self.line("mul.lo.u32 %s5, %s3, 37;");
        self.line("xor.b32 %s5, %s5, %s1;");
        self.line("selp.b32 %s5, %s5, %s4, %qs0;");
        self.line("selp.b32 %s4, %s3, %s2, %qs0;");
        self.line("selp.b32 %s4, %s5, %s4, %qs1;");
        self.line(&format!("mad.lo.u32 %s4, %c6, {move_by}, %s4;"));
        self.line("mov.u32 %s5, %ctaid.x;");
        self.line(&format!("mad.lo.u32 %s4, %s5, {cta_by}, %s4;"));
        self.line("mad.lo.u32 %hash, %hash, 31, %s4;");
        // Word offsets of the loads through the one address register.
        let n = self.u.int_in_range(1..=3usize)?;
        let mut offs = Vec::with_capacity(n);
        for _ in 0..n {
            offs.push(self.pick(&[0u32, 1, 2, 4, 16, 17, 64, 256])?);
        }
        if self.chance(1, 2)? {
            self.shifting_shared(c, &offs)?;
        } else {
            self.shifting_global(c, &offs)?;
        }
        if self.chance(1, 3)? {
            self.op(c)?;
        }
        self.line("add.u32 %c6, %c6, 1;");
        self.line("setp.lt.u32 %q2, %c6, %c7;");
        self.line(&format!("@%q2 bra S{id};"));
        Ok(())
    }

    /// The shared half of [`Self::shifting_access`]: word `%s4 & 511` (+ each of `offs`)
    /// of `smt`, each stored with its `f(j)` and then loaded.
    fn shifting_shared(&mut self, c: &Ctx, offs: &[u32]) -> Result<()> {
        const K1: u32 = 0x9e37_79b1;
        const K2: u32 = 0x5bd1_e995;
        self.line(&format!("and.b32 %s4, %s4, {};", SMT_WORDS / 2 - 1));
        self.line("mov.u64 %sd0, smt;");
        self.line("mul.wide.u32 %sd1, %s4, 4;");
        self.line("add.s64 %sd0, %sd0, %sd1;");
        for &d in offs {
            let k = d.wrapping_mul(K1).wrapping_add(K2);
            self.line(&format!("mad.lo.u32 %s5, %s4, {K1:#x}, {k:#x};"));
            self.line(&format!("st.shared.u32 [%sd0+{}], %s5;", 4 * d));
        }
        for &d in offs {
            let g = self.guard(c, 20)?;
            let ty = self.pick(&["u32", "b32", "f32"])?;
            self.line(&format!("{g}ld.shared.{ty} %s5, [%sd0+{}];", 4 * d));
            let r = self.reg(c, K::B32)?;
            self.line(&format!("xor.b32 {r}, {r}, %s5;"));
        }
        Ok(())
    }

    /// The global half of [`Self::shifting_access`]: element `%s4 & 2047` (+ each of
    /// `offs`, 4-byte loads) of `in`, or one 8-byte load.
    fn shifting_global(&mut self, c: &Ctx, offs: &[u32]) -> Result<()> {
        let wide = self.chance(1, 4)?;
        let sz = if wide { 8 } else { 4 };
        self.line("and.b32 %s4, %s4, 2047;");
        self.line(&format!("mul.wide.u32 %sd1, %s4, {sz};"));
        self.line("add.s64 %sd1, %in, %sd1;");
        if wide {
            let g = self.guard(c, 20)?;
            let ty = self.pick(&["u64", "b64", "f64"])?;
            self.line(&format!("{g}ld.global.{ty} %sd0, [%sd1];"));
            let r = self.reg(c, K::B64)?;
            self.line(&format!("xor.b64 {r}, {r}, %sd0;"));
            return Ok(());
        }
        for &d in offs {
            let g = self.guard(c, 20)?;
            let ty = self.pick(&["u32", "f32", "b32"])?;
            self.line(&format!("{g}ld.global.{ty} %s5, [%sd1+{}];", 4 * d));
            let r = self.reg(c, K::B32)?;
            self.line(&format!("add.u32 {r}, {r}, %s5;"));
        }
        Ok(())
    }
}
