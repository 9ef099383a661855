//! Constant expressions and immediates: evaluation and conversion to the bit pattern of
//! an instruction or variable type.

use super::Cx;
use crate::ir::{Loc, Type};
use crate::parse::ast::{BinOp, Expr, ExprKind, NumLit, UnOp};
use crate::parse::PtxError;

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    /// 64-bit integer; `unsigned` when the literal had a `U` suffix or an operand was
    /// unsigned (PTX's rules for constant expressions).
    Int { bits: u64, unsigned: bool },
    /// `0fXXXXXXXX` as written (exact single-precision bits; not usable in expressions).
    F32Hex(u32),
    /// `0dXXXXXXXXXXXXXXXX` as written.
    F64Hex(u64),
    /// Any other floating-point value (decimal literals, arithmetic), double precision.
    Float(f64),
}

impl Const {
    /// Integer value as i64 (for offsets and sizes); `None` for floats.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Const::Int { bits, .. } => Some(bits as i64),
            _ => None,
        }
    }
}

/// Converts double-precision bits to single precision (round to nearest even),
/// keeping NaN payloads (quieted) instead of relying on the host's NaN handling.
pub fn f64_bits_to_f32_bits(b: u64) -> u32 {
    let v = f64::from_bits(b);
    if v.is_nan() {
        let sign = ((b >> 63) as u32) << 31;
        let mant = ((b >> 29) as u32) & 0x007F_FFFF;
        sign | 0x7F80_0000 | 0x0040_0000 | mant
    } else {
        (v as f32).to_bits()
    }
}

/// Converts single-precision bits to double precision (exact), keeping NaN payloads.
pub fn f32_bits_to_f64_bits(b: u32) -> u64 {
    let v = f32::from_bits(b);
    if v.is_nan() {
        let sign = ((b >> 31) as u64) << 63;
        let mant = ((b & 0x007F_FFFF) as u64) << 29;
        sign | 0x7FF0_0000_0000_0000 | mant
    } else {
        (v as f64).to_bits()
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Cx<'_> {
    pub fn err(&self, loc: Loc, msg: impl Into<String>) -> PtxError {
        PtxError {
            file: self.file.to_string(),
            line: loc.line,
            col: loc.col,
            msg: msg.into(),
        }
    }

    /// Evaluates a constant expression. Symbols (other than `WARP_SZ`) are errors.
    pub fn eval(&self, e: &Expr) -> Result<Const, PtxError> {
        self.eval_depth(e, 0)
    }

    fn eval_depth(&self, e: &Expr, depth: u32) -> Result<Const, PtxError> {
        if depth > 2 * crate::parse::MAX_DEPTH {
            return Err(self.err(e.loc, "constant expression nested too deeply"));
        }
        match &e.kind {
            ExprKind::Num(NumLit::Int { bits, unsigned }) => Ok(Const::Int {
                bits: *bits,
                unsigned: *unsigned,
            }),
            ExprKind::Num(NumLit::F32(b)) => Ok(Const::F32Hex(*b)),
            ExprKind::Num(NumLit::F64(b)) => Ok(Const::F64Hex(*b)),
            ExprKind::Num(NumLit::Float(v)) => Ok(Const::Float(*v)),
            ExprKind::Sym { name, comp: None } if name == "WARP_SZ" => Ok(Const::Int {
                bits: 32,
                unsigned: false,
            }),
            ExprKind::Sym { name, comp } => {
                let full = match comp {
                    Some(c) => format!("{name}.{c}"),
                    None => name.clone(),
                };
                Err(self.err(e.loc, format!("'{full}' is not a constant")))
            }
            ExprKind::Mask(..) => Err(self.err(
                e.loc,
                "an address mask is only allowed in a variable initializer",
            )),
            ExprKind::Generic(id) => {
                Err(self.err(e.loc, format!("'generic({})' is not a constant", id.name)))
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval_depth(a, depth + 1)?;
                let f = self.float_operand(v, a.loc)?;
                match (op, v, f) {
                    (UnOp::Neg, _, Some(f)) => Ok(Const::Float(-f)),
                    (UnOp::LNot, _, Some(f)) => Ok(Const::Int {
                        bits: (f == 0.0) as u64,
                        unsigned: false,
                    }),
                    (UnOp::Neg, Const::Int { bits, unsigned }, None) => Ok(Const::Int {
                        bits: bits.wrapping_neg(),
                        unsigned,
                    }),
                    (UnOp::Not, Const::Int { bits, unsigned }, None) => Ok(Const::Int {
                        bits: !bits,
                        unsigned,
                    }),
                    (UnOp::LNot, Const::Int { bits, .. }, None) => Ok(Const::Int {
                        bits: (bits == 0) as u64,
                        unsigned: false,
                    }),
                    _ => Err(self.err(e.loc, "operator '~' needs an integer operand")),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval_depth(a, depth + 1)?;
                let y = self.eval_depth(b, depth + 1)?;
                let fx = self.float_operand(x, a.loc)?;
                let fy = self.float_operand(y, b.loc)?;
                if fx.is_some() || fy.is_some() {
                    let to_f = |c: Const, f: Option<f64>| match (f, c) {
                        (Some(f), _) => f,
                        (
                            None,
                            Const::Int {
                                bits,
                                unsigned: true,
                            },
                        ) => bits as f64,
                        (None, Const::Int { bits, .. }) => bits as i64 as f64,
                        _ => 0.0,
                    };
                    let (p, q) = (to_f(x, fx), to_f(y, fy));
                    let r = match op {
                        BinOp::Add => p + q,
                        BinOp::Sub => p - q,
                        BinOp::Mul => p * q,
                        BinOp::Div => p / q,
                        _ => return Err(self.err(e.loc, "this operator needs integer operands")),
                    };
                    return Ok(Const::Float(r));
                }
                let (
                    Const::Int {
                        bits: p,
                        unsigned: ua,
                    },
                    Const::Int {
                        bits: q,
                        unsigned: ub,
                    },
                ) = (x, y)
                else {
                    return Err(self.err(e.loc, "expected integer operands"));
                };
                let unsigned = ua || ub;
                let r = match op {
                    BinOp::Add => p.wrapping_add(q),
                    BinOp::Sub => p.wrapping_sub(q),
                    BinOp::Mul => p.wrapping_mul(q),
                    BinOp::Div | BinOp::Rem => {
                        if q == 0 {
                            return Err(self.err(b.loc, "division by zero in constant expression"));
                        }
                        match (op, unsigned) {
                            (BinOp::Div, true) => p / q,
                            (BinOp::Div, false) => (p as i64).wrapping_div(q as i64) as u64,
                            (_, true) => p % q,
                            _ => (p as i64).wrapping_rem(q as i64) as u64,
                        }
                    }
                    BinOp::Shl => p.checked_shl(q.min(64) as u32).unwrap_or(0),
                    BinOp::Shr => {
                        let s = q.min(63) as u32;
                        if unsigned {
                            p.checked_shr(q.min(64) as u32).unwrap_or(0)
                        } else {
                            ((p as i64) >> s) as u64
                        }
                    }
                    BinOp::And => p & q,
                    BinOp::Or => p | q,
                    BinOp::Xor => p ^ q,
                };
                Ok(Const::Int { bits: r, unsigned })
            }
        }
    }

    /// `Some(value)` for float constants usable in expressions, `None` for integers.
    fn float_operand(&self, c: Const, loc: Loc) -> Result<Option<f64>, PtxError> {
        match c {
            Const::Int { .. } => Ok(None),
            Const::F32Hex(_) => Err(self.err(
                loc,
                "a '0f' single-precision literal cannot be used in a constant expression",
            )),
            Const::F64Hex(b) => Ok(Some(f64::from_bits(b))),
            Const::Float(f) => Ok(Some(f)),
        }
    }

    /// Evaluates an integer constant expression (sizes, offsets).
    pub fn eval_int(&self, e: &Expr) -> Result<i64, PtxError> {
        match self.eval(e)? {
            Const::Int { bits, .. } => Ok(bits as i64),
            _ => Err(self.err(e.loc, "expected an integer constant")),
        }
    }

    /// The bit pattern of a constant in type `ty` (integers truncated to the width,
    /// floats as IEEE bits). Integer constants are not float operands (as in ptxas);
    /// `0f`/`0d` and decimal floats are converted between precisions.
    /// Bit types take integers, and `0f` (32-bit) or `0d` (64-bit) hex floats as raw bits.
    pub fn const_bits(&self, c: Const, ty: Type, loc: Loc) -> Result<u64, PtxError> {
        let bad = || {
            self.err(
                loc,
                format!("floating-point constant cannot be used with type {ty}"),
            )
        };
        match ty {
            // Any integer: nonzero is true (ptxas compiles `mov.pred %p, -1`, which
            // nvcc emits, and `2` exactly as `1`).
            Type::Pred => match c {
                Const::Int { bits, .. } => Ok((bits != 0) as u64),
                _ => Err(self.err(loc, "a predicate constant must be an integer")),
            },
            // ptxas 12.9 rejects integer literals wherever the operand's type is a float
            // type ("Arguments mismatch": `mov.f32 %f, 0`, `add.f64 d, a, 1`, `st.f32
            // [a], 0`, `call f, (1)`, initializers "Initial value type mismatch").
            Type::F32 | Type::F64 if matches!(c, Const::Int { .. }) => Err(self.err(
                loc,
                format!("an integer constant cannot be a {ty} operand: write a float constant (1.0, 0f3F800000, 0d3FF0000000000000)"),
            )),
            Type::F32 => Ok(match c {
                Const::Int { .. } => return Err(bad()),
                Const::F32Hex(b) => b as u64,
                Const::F64Hex(b) => f64_bits_to_f32_bits(b) as u64,
                Const::Float(f) => f64_bits_to_f32_bits(f.to_bits()) as u64,
            }),
            Type::F64 => Ok(match c {
                Const::Int { .. } => return Err(bad()),
                Const::F32Hex(b) => f32_bits_to_f64_bits(b),
                Const::F64Hex(b) => b,
                Const::Float(f) => f.to_bits(),
            }),
            _ if ty.is_float() => {
                Err(self.err(loc, format!("constants of type {ty} are not supported yet")))
            }
            _ => match c {
                Const::Int { bits, .. } => Ok(bits & mask(ty.bits())),
                Const::F32Hex(b) if ty.is_bits() && ty.bits() == 32 => Ok(b as u64),
                Const::F64Hex(b) if ty.is_bits() && ty.bits() == 64 => Ok(b),
                // ptxas 12.9 takes a decimal float in a `.b64` operand as its IEEE double
                // bits (`mov.b64 %rd, 0.5` assembles to the same cubin as
                // `mov.b64 %rd, 0x3FE0000000000000`); in `.b32` it rejects it.
                Const::Float(f) if ty == Type::B64 => Ok(f.to_bits()),
                _ => Err(bad()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_conversions_keep_payload() {
        assert_eq!(f32_bits_to_f64_bits(0x7FC0_0001), 0x7FF8_0000_2000_0000);
        assert_eq!(f64_bits_to_f32_bits(0x7FF8_0000_2000_0000), 0x7FC0_0001);
        assert_eq!(f64_bits_to_f32_bits(1.0f64.to_bits()), 1.0f32.to_bits());
        assert_eq!(f32_bits_to_f64_bits(0xBF80_0000), (-1.0f64).to_bits());
    }
}
