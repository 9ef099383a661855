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
        match self.below(3)? {
            0 => self.uniform_loop(c),
            1 => self.affine_load(c),
            _ => self.join_value(c),
        }
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
        let x = self.pick(&["%tx", "%gx", "%laneid"])?;
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
}
