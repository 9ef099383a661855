//! The generator's sub-word and vector memory accesses (kernel only): `ld.u8/.s8/.u16/
//! .s16` into 16-, 32- and 64-bit registers, `st.u8/.u16/.b16`, and `ld/st.v2/.v4` of
//! b32/f32/b16/u8 and `.v2` of b64/f64 (aligned to the vector's size), `ld.global.nc`,
//! on `.global`, `.shared` and `.local`.
//!
//! Loads from `in` use a uniform address (a constant, or `%ctaid.x` times a stride), an
//! affine one (`%tid.x`, `%laneid` or the global index times the access size, which is
//! the JIT's contiguous fast path, or times 2, 3 or -1 times it) or a scattered one (a
//! data register, masked; or a byte index computed in 16 bits). Stores go only where the
//! storing thread alone reads: its scratch words in `out` (row offset 160, 64 bytes), its
//! slots in the column areas of `out` (`col_offset`: the lanes of a warp store next to
//! each other, the contiguous fast path; or a slot picked by data, scattered), its 32 bytes of the `.shared` array `smv`
//! and its slot in the `.shared` column area `smc` of the access size (`shared_col`;
//! both filled at the start, `mod.rs`) and its `.local` array `loc`; each store is followed
//! by a load of the same bytes at another width.

use super::*;

/// Elements of a vector access: suffix, element type, bank, bytes per element.
const VEC: [(&str, &str, Bank, u32); 12] = [
    ("", "u8", Bank::H, 1),
    ("", "s8", Bank::R, 1),
    ("", "u16", Bank::R, 2),
    ("", "s16", Bank::H, 2),
    (".v2", "b32", Bank::R, 4),
    (".v4", "b32", Bank::R, 4),
    (".v4", "f32", Bank::F, 4),
    (".v2", "f32", Bank::F, 4),
    (".v2", "b16", Bank::H, 2),
    (".v4", "b16", Bank::H, 2),
    (".v2", "u64", Bank::RD, 8),
    (".v2", "f64", Bank::FD, 8),
];

/// Register banks of a memory access (`H`: the 16-bit registers).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bank {
    H,
    R,
    RD,
    F,
    FD,
}

impl Gen<'_, '_> {
    /// `n` different registers of bank `b` (kernel context), as a PTX operand.
    fn vregs(&mut self, c: &Ctx, b: Bank, n: u32) -> Result<String> {
        let (name, count) = match b {
            Bank::H => (c.hname, c.nh),
            Bank::R => (c.names[0], c.n[0]),
            Bank::RD => (c.names[1], c.n[1]),
            Bank::F => (c.names[2], c.n[2]),
            Bank::FD => (c.names[3], c.n[3]),
        };
        let i = self.below(count)?;
        let regs: Vec<String> = (0..n)
            .map(|k| format!("{name}{}", (i + k) % count))
            .collect();
        Ok(match n {
            1 => regs[0].clone(),
            _ => format!("{{{}}}", regs.join(", ")),
        })
    }

    /// One access: a load from `in`, or a store and a reload of the thread's own bytes.
    pub(super) fn vmem(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let (v, ty, bank, esz) = self.pick(&VEC)?;
        let n = match v {
            ".v2" => 2,
            ".v4" => 4,
            _ => 1,
        };
        // Sub-word integer loads also go to wider registers (zero or sign extended).
        let bank = match (n, bank) {
            (1, Bank::H) | (1, Bank::R) => self.pick(&[Bank::H, Bank::R, Bank::RD])?,
            _ => bank,
        };
        let size = n * esz;
        if self.chance(1, 2)? {
            return self.vload_in(c, g, v, ty, bank, n, size);
        }
        let regs = self.vregs(c, bank, n)?;
        // Store type: sub-word stores name a bit-size or unsigned type.
        let sty = match ty {
            "s8" => "u8",
            "s16" => "b16",
            t => t,
        };
        let (space, addr) = match self.below(6)? {
            5 => {
                // A slot of the column area picked by a data register: the lanes'
                // addresses are scattered (each still the thread's own).
                let idx = self.reg(c, K::B32)?;
                self.line(&format!("and.b32 %t6, {idx}, 3;"));
                self.line(&format!("mad.lo.u32 %t6, %t6, {}, %gx;", self.nthreads));
                self.line(&format!("mul.wide.u32 %td6, %t6, {size};"));
                self.line("add.s64 %td6, %td6, %vb;");
                (
                    "global",
                    format!("[%td6+{}]", col_offset(self.nthreads, size)),
                )
            }
            4 => {
                // The shared column area of this size: lanes side by side.
                self.line(&format!("mul.wide.u32 %td6, %tx, {size};"));
                self.line("mov.u64 %td5, smc;");
                self.line("add.s64 %td6, %td6, %td5;");
                ("shared", format!("[%td6+{}]", shared_col(size)))
            }
            3 => {
                // The column area of this size: lanes store next to each other.
                let m = self.below(4)?;
                let o = col_offset(self.nthreads, size) + m * self.nthreads * size;
                self.line(&format!("mul.wide.u32 %td6, %gx, {size};"));
                self.line("add.s64 %td6, %td6, %vb;");
                ("global", format!("[%td6+{o}]"))
            }
            0 => {
                let o = 160 + size * self.below(64 / size)?;
                ("global", format!("[%orow+{o}]"))
            }
            1 => {
                let o = size * self.below(32 / size)?;
                ("shared", format!("[%sv+{o}]"))
            }
            _ => {
                let o = size * self.below(32 / size)?;
                ("local", format!("[loc+{o}]"))
            }
        };
        self.line(&format!("{g}st.{space}{v}.{sty} {addr}, {regs};"));
        // Read back (some of) the bytes at another width.
        let (v2, ty2, bank2, n2) = match size {
            1 => ("", "s8", Bank::R, 1),
            2 => self.pick(&[("", "u16", Bank::H, 1), (".v2", "u8", Bank::H, 2)])?,
            4 => self.pick(&[("", "u32", Bank::R, 1), (".v2", "s16", Bank::R, 2)])?,
            8 => self.pick(&[(".v2", "u32", Bank::R, 2), ("", "f64", Bank::FD, 1)])?,
            _ => self.pick(&[(".v2", "u64", Bank::RD, 2), (".v4", "u32", Bank::R, 4)])?,
        };
        let back = self.vregs(c, bank2, n2)?;
        self.line(&format!("ld.{space}{v2}.{ty2} {back}, {addr};"));
        Ok(())
    }

    /// A load of `size` bytes from `in` at a uniform, affine or scattered address.
    #[allow(clippy::too_many_arguments)]
    fn vload_in(
        &mut self,
        c: &Ctx,
        g: &str,
        v: &str,
        ty: &str,
        bank: Bank,
        n: u32,
        size: u32,
    ) -> Result<()> {
        let regs = self.vregs(c, bank, n)?;
        let nc = self.pick(&["ld.global", "ld.global.nc", "ld.global.nc", "ld"])?;
        let addr = match self.below(5)? {
            3 | 4 => {
                // A byte index computed in 16 bits: (x × s + b) mod 2^16 with s and b
                // multiples of the access size, affine in the lanes until it wraps;
                // any such index is inside `in` (64 KiB) and aligned.
                let x = self.pick(&["%tx", "%gx", "%laneid"])?;
                let s = self.pick(&[1u32, 2, 3, 0xffff, 0x101, 0x4000, 0x1000])?;
                let s = (s * size) & 0xffff;
                let b = u32::from(self.u.arbitrary::<u16>()?) & !(size - 1);
                self.line(&format!("mov.u32 %t6, {x};"));
                self.line("cvt.u16.u32 %th, %t6;");
                self.line(&format!("mad.lo.u16 %th, %th, {s:#x}, {b:#x};"));
                if self.chance(1, 2)? {
                    self.line("cvt.u32.u16 %t6, %th;");
                    self.line("cvt.u64.u32 %td6, %t6;");
                } else {
                    self.line("cvt.u64.u16 %td6, %th;");
                }
                self.line("add.s64 %td6, %in, %td6;");
                "[%td6]".to_string()
            }
            0 => {
                // Uniform: a constant, or %ctaid.x times a stride.
                if self.chance(1, 2)? {
                    format!("[%in+{}]", size * self.below(IN_BYTES as u32 / size)?)
                } else {
                    let k = size * self.pick(&[1u32, 2, 5, 64])?;
                    self.line("mov.u32 %t6, %ctaid.x;");
                    self.line("and.b32 %t6, %t6, 63;");
                    self.line(&format!("mul.wide.u32 %td6, %t6, {k};"));
                    self.line("add.s64 %td6, %in, %td6;");
                    format!("[%td6+{}]", size * self.below(64)?)
                }
            }
            1 => {
                // Affine: x × stride + base, x < 384 (a batch program: x < 64).
                let x = match self.batch {
                    true => self.pick(&["%tx", "%laneid"])?,
                    false => self.pick(&["%tx", "%gx", "%laneid", "%tx"])?,
                };
                let k = self.pick(&[1i32, 1, 2, 3, -1])?;
                let stride = k * size as i32;
                let base = 8192 + size * self.below(16384 / size)?;
                self.line(&format!("mov.u32 %t6, {x};"));
                self.line(&format!("mul.wide.s32 %td6, %t6, {stride};"));
                self.line(&format!("add.s64 %td6, %td6, {base};"));
                self.line("add.s64 %td6, %in, %td6;");
                format!("[%td6+{}]", size * self.below(4)?)
            }
            _ => {
                // Scattered: a data register, masked.
                let idx = self.reg(c, K::B32)?;
                let mask = IN_BYTES as u32 / size - 1;
                self.line(&format!("and.b32 %t6, {idx}, {mask};"));
                self.line(&format!("mul.wide.u32 %td6, %t6, {size};"));
                self.line("add.s64 %td6, %in, %td6;");
                "[%td6]".to_string()
            }
        };
        self.line(&format!("{g}{nc}{v}.{ty} {regs}, {addr};"));
        Ok(())
    }
}
