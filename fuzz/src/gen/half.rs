//! The generator's 16-bit and half-precision operations: `.u16/.s16/.b16` integer
//! arithmetic, shifts, comparisons and conversions between 8-, 16-, 32- and 64-bit
//! integers; `.f16`, `.bf16` (in the 16-bit registers) and `.f16x2`, `.bf16x2` (in the
//! b32 registers) arithmetic, `setp`/`set`, and conversions to and from f32, f64 and the
//! integers with every rounding mode the ISA allows; packing and unpacking with
//! `mov.b32 {h, h}` / `mov.b64 {r, r}`.
//!
//! The 16-bit registers (`%h0..7` in the kernel, `%xh0..1` in a function) start as the
//! halves of b32 registers and are folded back into them before the row is stored
//! (`mod.rs`), so the row layout does not change. Forms that need `sm_90` (`add sub mul
//! setp set` on bf16, `cvt` between bf16 and anything but f32) appear only in programs
//! whose `.target` is `sm_90` ([`Gen::sm90`]). No `.approx` operation, no `.satfinite`
//! (PTX 8.1). `cvt.f32.bf16` gives "an unspecified NaN" for a NaN: the result is made the
//! canonical NaN at once.

use super::*;

const CMP_INT: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_F: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// Integer types of conversions: name, bits, signed.
const ITYPES: [(&str, u32, bool); 8] = [
    ("u8", 8, false),
    ("s8", 8, true),
    ("u16", 16, false),
    ("s16", 16, true),
    ("u32", 32, false),
    ("s32", 32, true),
    ("u64", 64, false),
    ("s64", 64, true),
];

impl Gen<'_, '_> {
    /// A 16-bit register of context `c`.
    fn hreg(&mut self, c: &Ctx) -> Result<String> {
        let i = self.below(c.nh)?;
        Ok(format!("{}{i}", c.hname))
    }

    /// Two different 16-bit registers.
    fn hreg2(&mut self, c: &Ctx) -> Result<(String, String)> {
        let i = self.below(c.nh)?;
        let j = (i + 1 + self.below(c.nh - 1)?) % c.nh;
        Ok((format!("{}{i}", c.hname), format!("{}{j}", c.hname)))
    }

    /// A 16-bit register or an immediate.
    fn hsrc(&mut self, c: &Ctx) -> Result<String> {
        if self.chance(1, 4)? {
            let v: u16 = match self.below(3)? {
                0 => self.pick(&[0u16, 1, 0xffff, 0x8000, 0x7fff, 0xff, 0x80])?,
                _ => self.u.arbitrary()?,
            };
            Ok(format!("{v:#x}"))
        } else {
            self.hreg(c)
        }
    }

    /// A register holding a value of integer type `bits` wide (8 and 16 bits: a 16-bit
    /// register).
    fn ireg(&mut self, c: &Ctx, bits: u32) -> Result<String> {
        match bits {
            8 | 16 => self.hreg(c),
            32 => self.reg(c, K::B32),
            _ => self.reg(c, K::B64),
        }
    }

    /// Like [`Self::ireg`], but sometimes a wider register: `cvt` takes a source or
    /// destination register wider than its type (the low bits are used; a result is
    /// sign-extended for signed types, zero-extended otherwise).
    fn ireg_wide(&mut self, c: &Ctx, bits: u32) -> Result<String> {
        let bits = match (bits, self.below(8)?) {
            (8 | 16, 0 | 1) => 32,
            (8 | 16 | 32, 2) => 64,
            (b, _) => b,
        };
        self.ireg(c, bits)
    }

    /// An f16 operand of `cvt`: a 16-bit register, or sometimes a b32 one (its low half;
    /// a result zero-extended). Not for bf16, which needs the exact size.
    fn f16reg_wide(&mut self, c: &Ctx) -> Result<String> {
        if self.chance(1, 4)? {
            self.reg(c, K::B32)
        } else {
            self.hreg(c)
        }
    }

    /// One 16-bit or half-precision operation (possibly a few instructions).
    pub(super) fn half_op(&mut self, c: &Ctx, g: &str) -> Result<()> {
        match self.below(10)? {
            0..=2 => self.int16(c, g),
            3..=4 => self.f16_scalar(c, g),
            5..=6 => self.f16_packed(c, g),
            7..=8 => self.cvt16(c, g),
            _ => self.pack16(c, g),
        }
    }

    fn int16(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let ty = self.pick(&["u16", "s16"])?;
        let d = self.hreg(c)?;
        let a = self.hreg(c)?;
        let b = self.hsrc(c)?;
        let text = match self.below(16)? {
            0 => format!("add.{ty} {d}, {a}, {b};"),
            1 => format!("sub.{ty} {d}, {a}, {b};"),
            2 => {
                let h = self.pick(&["lo", "hi"])?;
                format!("mul.{h}.{ty} {d}, {a}, {b};")
            }
            3 => {
                let op = self.pick(&["min", "max"])?;
                format!("{op}.{ty} {d}, {a}, {b};")
            }
            4 => {
                let op = self.pick(&["and", "or", "xor"])?;
                format!("{op}.b16 {d}, {a}, {b};")
            }
            5 => {
                let op = self.pick(&["not.b16", "neg.s16", "abs.s16", "cnot.b16"])?;
                format!("{op} {d}, {a};")
            }
            6 => {
                let n = if self.chance(1, 2)? {
                    format!("{}", self.below(24)?)
                } else {
                    self.reg(c, K::B32)?
                };
                let op = self.pick(&["shl.b16", "shr.u16", "shr.s16", "shr.b16"])?;
                format!("{op} {d}, {a}, {n};")
            }
            7 => {
                let e = self.hsrc(c)?;
                let h = self.pick(&["lo", "hi"])?;
                format!("mad.{h}.{ty} {d}, {a}, {b}, {e};")
            }
            8 => {
                let w = self.reg(c, K::B32)?;
                if self.chance(1, 2)? {
                    format!("mul.wide.{ty} {w}, {a}, {b};")
                } else {
                    let e = self.src(c, K::B32)?;
                    format!("mad.wide.{ty} {w}, {a}, {b}, {e};")
                }
            }
            9 => {
                // An odd divisor: never zero (MIN / -1 happens).
                let b = self.hreg(c)?;
                let op = self.pick(&["div", "rem"])?;
                self.line(&format!("or.b16 %th, {b}, 1;"));
                format!("{op}.{ty} {d}, {a}, %th;")
            }
            10 | 11 => {
                let ty = self.pick(&["u16", "s16", "b16"])?;
                let cmp = match ty {
                    "b16" => self.pick(&["eq", "ne"])?,
                    "u16" => self.pick(&["lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "eq"])?,
                    _ => self.pick(&CMP_INT)?,
                };
                let p = self.pred(c)?;
                if self.chance(1, 3)? {
                    let bop = self.pick(&["and", "or", "xor"])?;
                    let q = self.npred(c)?;
                    format!("setp.{cmp}.{bop}.{ty} {p}, {a}, {b}, {q};")
                } else {
                    format!("setp.{cmp}.{ty} {p}, {a}, {b};")
                }
            }
            12 => {
                let p = self.pred(c)?;
                let ty = self.pick(&["b16", "u16", "s16"])?;
                format!("selp.{ty} {d}, {a}, {b}, {p};")
            }
            13 => format!("mov.b16 {d}, {b};"),
            14 => {
                // set with an integer result from 16-bit integers.
                let cmp = self.pick(&CMP_INT)?;
                let dt = self.pick(&["u32", "s32"])?;
                let w = self.reg(c, K::B32)?;
                format!("set.{cmp}.{dt}.{ty} {w}, {a}, {b};")
            }
            _ => {
                let op = self.pick(&["add", "sub", "mul.lo"])?;
                let ty = self.pick(&["u16", "s16"])?;
                let k = self.hsrc(c)?;
                format!("{op}.{ty} {d}, {d}, {k};")
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    /// `.f16` and `.bf16` arithmetic and comparisons in the 16-bit registers.
    fn f16_scalar(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let bf = self.chance(1, 3)?;
        let ty = if bf { "bf16" } else { "f16" };
        let d = self.hreg(c)?;
        let a = self.hreg(c)?;
        let b = self.hreg(c)?;
        let e = self.hreg(c)?;
        let text = self.half_text(ty, bf, [&d, &a, &b, &e])?;
        let text = match text {
            Some(t) => t,
            None => {
                // Comparisons of bf16 need sm_90: elsewhere they compare as f16.
                let (ty, bf) = if bf && !self.sm90 {
                    ("f16", false)
                } else {
                    (ty, bf)
                };
                let cmp = self.pick(&CMP_F)?;
                let ftz = if !bf && self.chance(1, 3)? {
                    ".ftz"
                } else {
                    ""
                };
                match self.below(3)? {
                    0 => {
                        let p = self.pred(c)?;
                        if self.chance(1, 3)? {
                            let bop = self.pick(&["and", "or", "xor"])?;
                            let q = self.npred(c)?;
                            format!("setp.{cmp}.{bop}{ftz}.{ty} {p}, {a}, {b}, {q};")
                        } else {
                            format!("setp.{cmp}{ftz}.{ty} {p}, {a}, {b};")
                        }
                    }
                    1 => {
                        let dt = self.pick(&["u16", "s16", ty])?;
                        format!("set.{cmp}{ftz}.{dt}.{ty} {d}, {a}, {b};")
                    }
                    _ => {
                        let dt = self.pick(&["u32", "s32"])?;
                        let w = self.reg(c, K::B32)?;
                        let q = self.npred(c)?;
                        format!("set.{cmp}.and{ftz}.{dt}.{ty} {w}, {a}, {b}, {q};")
                    }
                }
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    /// `.f16x2` and `.bf16x2` arithmetic and comparisons in the b32 registers.
    fn f16_packed(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let bf = self.chance(1, 3)?;
        let ty = if bf { "bf16x2" } else { "f16x2" };
        let d = self.reg(c, K::B32)?;
        let a = self.reg(c, K::B32)?;
        let b = self.reg(c, K::B32)?;
        let e = self.reg(c, K::B32)?;
        let text = match self.half_text(ty, bf, [&d, &a, &b, &e])? {
            Some(t) => t,
            None if bf && !self.sm90 => format!("min.NaN.{ty} {d}, {a}, {b};"),
            None => {
                let cmp = self.pick(&CMP_F)?;
                let ftz = if !bf && self.chance(1, 3)? {
                    ".ftz"
                } else {
                    ""
                };
                if self.chance(1, 2)? {
                    // Two different destinations (the same one twice is undefined).
                    let i = self.below(c.npred)?;
                    let j = (i + 1 + self.below(c.npred - 1)?) % c.npred;
                    let (p, q) = (format!("{}{i}", c.pred), format!("{}{j}", c.pred));
                    if self.chance(1, 3)? {
                        let bop = self.pick(&["and", "or", "xor"])?;
                        let r = self.npred(c)?;
                        format!("setp.{cmp}.{bop}{ftz}.{ty} {p}|{q}, {a}, {b}, {r};")
                    } else {
                        format!("setp.{cmp}{ftz}.{ty} {p}|{q}, {a}, {b};")
                    }
                } else {
                    let dt = self.pick(&["u32", "s32", ty])?;
                    format!("set.{cmp}{ftz}.{dt}.{ty} {d}, {a}, {b};")
                }
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    /// The arithmetic shared by scalar and packed halves, or `None` for a comparison.
    fn half_text(
        &mut self,
        ty: &str,
        bf: bool,
        [d, a, b, e]: [&String; 4],
    ) -> Result<Option<String>> {
        let ftz = if !bf && self.chance(1, 3)? {
            ".ftz"
        } else {
            ""
        };
        let sat = if !bf && self.chance(1, 4)? {
            ".sat"
        } else {
            ""
        };
        let rn = if self.chance(2, 3)? { ".rn" } else { "" };
        // add/sub/mul on bf16 need sm_90; elsewhere they are fma with 1.0 or -0.0.
        let basic = !bf || self.sm90;
        Ok(Some(match self.below(9)? {
            0..=2 if basic => {
                let op = self.pick(&["add", "sub", "mul"])?;
                let (ftz, sat) = if bf { ("", "") } else { (ftz, sat) };
                format!("{op}{rn}{ftz}{sat}.{ty} {d}, {a}, {b};")
            }
            0..=3 => {
                let m = if !bf && self.chance(1, 3)? {
                    ".relu".to_string()
                } else if bf {
                    if self.chance(1, 3)? {
                        ".relu".into()
                    } else {
                        String::new()
                    }
                } else {
                    sat.to_string()
                };
                format!("fma.rn{ftz}{m}.{ty} {d}, {a}, {b}, {e};")
            }
            4 => {
                let op = self.pick(&["neg", "abs"])?;
                format!("{op}{ftz}.{ty} {d}, {a};")
            }
            5 | 6 => {
                let op = self.pick(&["min", "max"])?;
                let nan = if self.chance(1, 2)? { ".NaN" } else { "" };
                format!("{op}{ftz}{nan}.{ty} {d}, {a}, {b};")
            }
            _ => return Ok(None),
        }))
    }

    /// Conversions: integers of 8 to 64 bits (with `.sat`), f16 and bf16 to and from
    /// f32, f64 and the integers with each rounding mode, and the packing `cvt`s.
    fn cvt16(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let text = match self.below(9)? {
            0 | 1 => {
                // int -> int with at least one side of 8 or 16 bits.
                let i = self.below(8)?;
                let j = self.below(4)?;
                let j = if j == i { j ^ 1 } else { j };
                let (i, j) = if self.chance(1, 2)? { (i, j) } else { (j, i) };
                let ((dt, dw, ds), (st, sw, ss)) = (ITYPES[i as usize], ITYPES[j as usize]);
                let fits = (ds == ss && dw >= sw) || (ds && !ss && dw > sw);
                let sat = if !fits && self.chance(1, 2)? {
                    ".sat"
                } else {
                    ""
                };
                let d = self.ireg_wide(c, dw)?;
                let a = self.ireg_wide(c, sw)?;
                format!("cvt{sat}.{dt}.{st} {d}, {a};")
            }
            2 => {
                // f16 <-> f32 / f64.
                let (ft, fk) = self.pick(&[("f32", K::F32), ("f64", K::F64)])?;
                let h = self.f16reg_wide(c)?;
                let f = self.reg(c, fk)?;
                let ftz = if ft == "f32" && self.chance(1, 3)? {
                    ".ftz"
                } else {
                    ""
                };
                let sat = if self.chance(1, 4)? { ".sat" } else { "" };
                if self.chance(1, 2)? {
                    let r = self.pick(&RND)?;
                    format!("cvt.{r}{ftz}{sat}.f16.{ft} {h}, {f};")
                } else {
                    format!("cvt{ftz}{sat}.{ft}.f16 {f}, {h};")
                }
            }
            3 => {
                // f16 <-> integers; f16 rounded to an integer.
                let (it, iw, _) = self.pick(&ITYPES)?;
                let h = self.f16reg_wide(c)?;
                let i = self.ireg_wide(c, iw)?;
                match self.below(3)? {
                    0 => {
                        let r = self.pick(&IRND)?;
                        let sat = if self.chance(1, 3)? { ".sat" } else { "" };
                        format!("cvt.{r}{sat}.{it}.f16 {i}, {h};")
                    }
                    1 => {
                        let r = self.pick(&RND)?;
                        let sat = if self.chance(1, 4)? { ".sat" } else { "" };
                        format!("cvt.{r}{sat}.f16.{it} {h}, {i};")
                    }
                    _ => {
                        let r = self.pick(&IRND)?;
                        let a = self.hreg(c)?;
                        format!("cvt.{r}.f16.f16 {h}, {a};")
                    }
                }
            }
            4 => {
                // Two f32 -> f16x2 / bf16x2 (a in the upper half).
                let ty = self.pick(&["f16x2", "bf16x2"])?;
                let r = self.pick(&["rn", "rz"])?;
                let relu = if self.chance(1, 3)? { ".relu" } else { "" };
                let d = self.reg(c, K::B32)?;
                let a = self.reg(c, K::F32)?;
                let b = self.reg(c, K::F32)?;
                format!("cvt.{r}{relu}.{ty}.f32 {d}, {a}, {b};")
            }
            5 => {
                // f32 -> bf16, bf16 -> f32 (a NaN made canonical).
                let h = self.hreg(c)?;
                let f = self.reg(c, K::F32)?;
                if self.chance(1, 2)? {
                    let r = self.pick(&["rn", "rz"])?;
                    let relu = if self.chance(1, 3)? { ".relu" } else { "" };
                    format!("cvt.{r}{relu}.bf16.f32 {h}, {f};")
                } else {
                    self.line(&format!("{g}cvt.f32.bf16 {f}, {h};"));
                    self.line(&format!("testp.notanumber.f32 %q1, {f};"));
                    self.line(&format!("@%q1 mov.b32 {f}, 0x7fffffff;"));
                    return Ok(());
                }
            }
            6 if self.sm90 => {
                // sm_90: bf16 to and from f16, f64 and integers.
                let h = self.hreg(c)?;
                let a = self.hreg(c)?;
                match self.below(4)? {
                    0 => {
                        let r = self.pick(&RND)?;
                        if self.chance(1, 2)? {
                            format!("cvt.{r}.bf16.f16 {h}, {a};")
                        } else {
                            format!("cvt.{r}.f16.bf16 {h}, {a};")
                        }
                    }
                    1 => {
                        let f = self.reg(c, K::F64)?;
                        if self.chance(1, 2)? {
                            let r = self.pick(&RND)?;
                            format!("cvt.{r}.bf16.f64 {h}, {f};")
                        } else {
                            format!("cvt.f64.bf16 {f}, {h};")
                        }
                    }
                    2 => {
                        // (ptxas refuses 8-bit types with bf16: "Arguments mismatch".)
                        let (it, iw, _) = self.pick(&ITYPES[2..])?;
                        let i = self.ireg(c, iw)?;
                        if self.chance(1, 2)? {
                            let r = self.pick(&RND)?;
                            format!("cvt.{r}.bf16.{it} {h}, {i};")
                        } else {
                            let r = self.pick(&IRND)?;
                            format!("cvt.{r}.{it}.bf16 {i}, {h};")
                        }
                    }
                    _ => {
                        let r = self.pick(&IRND)?;
                        format!("cvt.{r}.bf16.bf16 {h}, {a};")
                    }
                }
            }
            _ => {
                // An f32 through f16 and back, the f16x2 halves through f32.
                let f = self.reg(c, K::F32)?;
                let r = self.pick(&RND)?;
                self.line(&format!("{g}cvt.{r}.f16.f32 %th, {f};"));
                format!("cvt.f32.f16 {f}, %th;")
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    /// Packing and unpacking: `mov.b32 {h, h}, r`, `mov.b32 r, {h, h}`, `mov.b64 {r, r},
    /// rd`, `mov.b64 rd, {r, r}`, `mov.b64 {h, h, h, h}, rd` (kernel).
    fn pack16(&mut self, c: &Ctx, g: &str) -> Result<()> {
        let text = match self.below(6)? {
            5 if !c.func => {
                // A uniform or affine 16-bit value: a special register, truncated, times
                // a constant (wrapping at 2^16).
                let x = self.pick(&["%ctaid.x", "%ntid.x", "%tid.x", "%laneid"])?;
                let h = self.hreg(c)?;
                let k = self.hsrc(c)?;
                self.line(&format!("mov.u32 %t6, {x};"));
                self.line(&format!("{g}cvt.u16.u32 {h}, %t6;"));
                format!("mul.lo.u16 {h}, {h}, {k};")
            }
            0 => {
                let (h0, h1) = self.hreg2(c)?;
                let r = self.reg(c, K::B32)?;
                format!("mov.b32 {{{h0}, {h1}}}, {r};")
            }
            1 => {
                let h0 = self.hreg(c)?;
                let h1 = self.hreg(c)?;
                let k = self.pick(&[K::B32, K::F32])?;
                let r = self.reg(c, k)?;
                format!("mov.b32 {r}, {{{h0}, {h1}}};")
            }
            2 => {
                let i = self.below(c.n[0])?;
                let j = (i + 1 + self.below(c.n[0] - 1)?) % c.n[0];
                let n = c.names[0];
                let rd = self.reg(c, K::B64)?;
                format!("mov.b64 {{{n}{i}, {n}{j}}}, {rd};")
            }
            3 => {
                let a = self.reg(c, K::B32)?;
                let b = self.reg(c, K::B32)?;
                let k = self.pick(&[K::B64, K::F64])?;
                let rd = self.reg(c, k)?;
                format!("mov.b64 {rd}, {{{a}, {b}}};")
            }
            _ if c.nh >= 4 => {
                let i = self.below(c.nh)?;
                let hs: Vec<String> = (0..4)
                    .map(|k| format!("{}{}", c.hname, (i + k) % c.nh))
                    .collect();
                let rd = self.reg(c, K::B64)?;
                if self.chance(1, 2)? {
                    format!("mov.b64 {{{}}}, {rd};", hs.join(", "))
                } else {
                    format!("mov.b64 {rd}, {{{}}};", hs.join(", "))
                }
            }
            _ => {
                let (h0, h1) = self.hreg2(c)?;
                let r = self.reg(c, K::B32)?;
                format!("mov.b32 {{{h1}, {h0}}}, {r};")
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }
}
