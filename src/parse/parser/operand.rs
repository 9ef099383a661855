//! Operands and expressions of the PTX parser: operand lists, vector, address and
//! list operands, and constant expressions with C's operator precedence.

use super::{is_video_selector, PResult, Parser};
use crate::parse::ast::*;
use crate::parse::lexer::{NumLit, Tok};

impl Parser<'_> {
    /// Comma-separated operands up to `close`.
    pub(super) fn operand_list(&mut self, close: char) -> PResult<Vec<Operand>> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.operand()?);
            if self.eat_punct(close) {
                return Ok(v);
            }
            if !self.eat_punct(',') {
                return Err(self.unexpected(&format!("',' or '{close}'")));
            }
        }
    }

    pub(super) fn operand(&mut self) -> PResult<Operand> {
        let t = self.peek();
        self.enter(t.loc)?;
        let r = self.operand_inner();
        self.leave();
        r
    }

    pub(super) fn operand_inner(&mut self) -> PResult<Operand> {
        let t = self.peek();
        let first = match t.tok {
            Tok::Punct('{') => {
                self.bump();
                let v = Operand::Vector(self.operand_list('}')?, t.loc);
                // `{d0, d1, d2, d3}|p`: texture results with a predicate.
                if !self.is_punct('|') {
                    return Ok(v);
                }
                v
            }
            Tok::Punct('[') => {
                self.bump();
                let list = self.operand_list(']')?;
                // `[a].unified` asserts that a generic address is in the unified address
                // space, which every generic address here is: the suffix changes nothing.
                if self.peek().tok == Tok::Dot("unified") {
                    self.bump();
                }
                return Ok(Operand::Bracket(list, t.loc));
            }
            Tok::Punct('(') => {
                self.bump();
                return Ok(Operand::List(self.operand_list(')')?, t.loc));
            }
            Tok::Punct('!') if matches!(self.peek_at(1).tok, Tok::Ident(_)) => {
                self.bump();
                let id = self.expect_ident("a predicate")?;
                Operand::Not(id)
            }
            Tok::Ident("_") => {
                self.bump();
                Operand::Sink(t.loc)
            }
            _ => Operand::Value(self.expr(false)?),
        };
        if self.is_punct('|') {
            self.bump();
            let n = self.peek();
            let second = match n.tok {
                Tok::Ident("_") => {
                    self.bump();
                    Operand::Sink(n.loc)
                }
                Tok::Ident(_) => Operand::Value(self.expr(false)?),
                _ => return Err(self.unexpected("a predicate register")),
            };
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    // ----- constant expressions -------------------------------------------------------

    /// A constant expression. `allow_or`: whether `|` is the bitwise-or operator here
    /// (in instruction operands it separates `p|q`).
    pub fn expr(&mut self, allow_or: bool) -> PResult<Expr> {
        self.binary(0, allow_or)
    }

    pub(super) fn binop(&self, allow_or: bool) -> Option<(BinOp, u8)> {
        Some(match self.peek().tok {
            Tok::Punct('*') => (BinOp::Mul, 6),
            Tok::Punct('/') => (BinOp::Div, 6),
            Tok::Punct('%') => (BinOp::Rem, 6),
            Tok::Punct('+') => (BinOp::Add, 5),
            Tok::Punct('-') => (BinOp::Sub, 5),
            Tok::Shift(true) => (BinOp::Shl, 4),
            Tok::Shift(false) => (BinOp::Shr, 4),
            Tok::Punct('&') => (BinOp::And, 3),
            Tok::Punct('^') => (BinOp::Xor, 2),
            Tok::Punct('|') if allow_or => (BinOp::Or, 1),
            _ => return None,
        })
    }

    pub(super) fn binary(&mut self, min_prec: u8, allow_or: bool) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        // Every operator applied deepens the (left-leaning) tree: count it as nesting,
        // so that expression trees stay shallow (they are dropped recursively).
        let mut levels = 0;
        let result = loop {
            let Some((op, prec)) = self.binop(allow_or) else {
                break Ok(());
            };
            if prec < min_prec {
                break Ok(());
            }
            let t = self.bump();
            if let Err(e) = self.enter(t.loc) {
                break Err(e);
            }
            levels += 1;
            let rhs = match self.binary(prec + 1, allow_or) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            let loc = lhs.loc;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                loc,
            };
        };
        for _ in 0..levels {
            self.leave();
        }
        result.map(|()| lhs)
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let op = match t.tok {
            Tok::Punct('-') => Some(UnOp::Neg),
            Tok::Punct('~') => Some(UnOp::Not),
            Tok::Punct('!') => Some(UnOp::LNot),
            Tok::Punct('+') => {
                self.bump();
                return self.unary();
            }
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            self.enter(t.loc)?;
            let e = self.unary();
            self.leave();
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e?)),
                loc: t.loc,
            });
        }
        self.primary()
    }

    pub(super) fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        match t.tok {
            Tok::Num(n) => {
                self.bump();
                // `0xFF00(generic(x))`: a byte mask applied to an address (initializers).
                if let (NumLit::Int { bits, .. }, Tok::Punct('(')) = (n, self.peek().tok) {
                    self.bump();
                    self.enter(t.loc)?;
                    let inner = self.expr(true);
                    self.leave();
                    let inner = inner?;
                    self.expect_punct(')')?;
                    return Ok(Expr {
                        kind: ExprKind::Mask(bits, Box::new(inner)),
                        loc: t.loc,
                    });
                }
                Ok(Expr {
                    kind: ExprKind::Num(n),
                    loc: t.loc,
                })
            }
            Tok::Ident("generic") if self.peek_at(1).tok == Tok::Punct('(') => {
                self.bump();
                self.bump();
                let id = self.expect_ident("a variable name")?;
                self.expect_punct(')')?;
                Ok(Expr {
                    kind: ExprKind::Generic(id),
                    loc: t.loc,
                })
            }
            Tok::Ident(name) => {
                self.bump();
                // `%tid.x`, `v.y`: a component directly after the name; `r.b0`, `r.h1`,
                // `r.b3210`, `r.h10`: the byte and half-word selectors of the scalar and
                // SIMD video instructions.
                let comp = match self.peek().tok {
                    Tok::Dot(c @ ("x" | "y" | "z" | "w" | "r" | "g" | "b" | "a")) => {
                        self.bump();
                        Some(c.to_string())
                    }
                    Tok::Dot(c) if is_video_selector(c) => {
                        self.bump();
                        Some(c.to_string())
                    }
                    _ => None,
                };
                Ok(Expr {
                    kind: ExprKind::Sym {
                        name: name.to_string(),
                        comp,
                    },
                    loc: t.loc,
                })
            }
            Tok::Punct('(') => {
                self.bump();
                self.enter(t.loc)?;
                let e = self.expr(true);
                self.leave();
                let e = e?;
                self.expect_punct(')')?;
                Ok(e)
            }
            _ => Err(self.unexpected("an operand")),
        }
    }
}
