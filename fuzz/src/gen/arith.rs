//! The generator's arithmetic: integer and float operations, conversions, comparisons,
//! `selp`, carry chains, predicate logic and special registers, each emitted as one
//! well-defined PTX instruction (possibly guarded).

use super::*;

impl Gen<'_, '_> {
    pub(super) fn int_bin(&mut self, c: &Ctx, g: &str, k: K) -> Result<()> {
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
    pub(super) fn int_misc(&mut self, c: &Ctx, g: &str) -> Result<()> {
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

    pub(super) fn shift(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn divrem(&mut self, c: &Ctx, g: &str) -> Result<()> {
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

    pub(super) fn f_arith(&mut self, c: &Ctx, g: &str, k: K) -> Result<()> {
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
                // Unguarded: ptxas 12.9 and the CUDA 13.0 driver drop the guard of a
                // guarded `testp` (tests/golden/README.md, "Generated programs"), so a
                // guarded one would not compare with a GPU.
                self.line(&format!("testp.{t}.{ty} {p}, {a};"));
                return Ok(());
            }
        };
        self.line(&format!("{g}{text}"));
        Ok(())
    }

    pub(super) fn cvt(&mut self, c: &Ctx, g: &str) -> Result<()> {
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

    pub(super) fn setp(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
        // `p|q` with `q` the same register as `p` is undefined (a GPU writes neither
        // order consistently): such a pick writes `p` alone.
        let dst = if self.chance(1, 4)? {
            let q = self.pred(c)?;
            if q != p {
                format!("{p}|{q}")
            } else {
                p
            }
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

    pub(super) fn selp(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
    pub(super) fn carry(&mut self, c: &Ctx, g: &str) -> Result<()> {
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

    pub(super) fn pred_logic(&mut self, c: &Ctx, g: &str) -> Result<()> {
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

    pub(super) fn sreg(&mut self, c: &Ctx, g: &str) -> Result<()> {
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
}
