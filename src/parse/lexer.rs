//! PTX lexer: source text -> tokens with 1-based line/column positions.
//!
//! The lexer never fails on odd characters: anything it does not recognise becomes a
//! [`Tok::Punct`] token, so the parser reports it with a located message (and can skip it
//! inside ignored `.section` blocks). Only malformed literals and unterminated comments or
//! strings are lexer errors.

use super::PtxError;
use crate::ir::Loc;

/// A literal number as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumLit {
    /// Integer literal: its 64-bit pattern and whether it is unsigned (`U` suffix, or a
    /// value that only fits in 64 bits unsigned).
    Int { bits: u64, unsigned: bool },
    /// `0fXXXXXXXX`: exact single-precision bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: exact double-precision bits.
    F64(u64),
    /// Decimal floating-point literal (`1.5`, `1e-3`), double precision.
    Float(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok<'a> {
    /// Identifier, including `%`- and `$`-prefixed names and `_`.
    Ident(&'a str),
    /// `.name` (directive, type or modifier), text without the dot; may contain `::`.
    Dot(&'a str),
    Num(NumLit),
    /// String literal, without the quotes.
    Str(&'a str),
    /// Any other single character: `, ; : ( ) [ ] { } < > + - * / ! | @ = ~ & ^ %`...
    Punct(char),
    /// A malformed number; the index of its error in [`Lexed::errors`]. The parser
    /// reports it where a token is expected (ignored `.section` contents skip it).
    Bad(usize),
    /// `<<` or `>>` (only meaningful in constant expressions).
    Shift(bool),
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// The token's text as written (for messages).
    pub text: &'a str,
    pub loc: Loc,
}

impl Token<'_> {
    /// How the token is named in messages: `'add'`, `end of file`.
    pub fn describe(&self) -> String {
        match self.tok {
            Tok::Eof => "end of file".to_string(),
            _ => format!("'{}'", self.text),
        }
    }
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    col: u32,
    file: &'a str,
    errors: Vec<PtxError>,
}

impl<'a> Lexer<'a> {
    fn peek(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    fn bump(&mut self) {
        if let Some(&c) = self.bytes.get(self.pos) {
            self.pos += 1;
            if c == b'\n' {
                self.line = self.line.saturating_add(1);
                self.col = 1;
            } else if c & 0xC0 != 0x80 {
                // Count characters, not UTF-8 continuation bytes.
                self.col = self.col.saturating_add(1);
            }
        }
    }

    fn err(&self, loc: Loc, msg: impl Into<String>) -> PtxError {
        PtxError {
            file: self.file.to_string(),
            line: loc.line,
            col: loc.col,
            msg: msg.into(),
        }
    }

    fn loc(&self) -> Loc {
        Loc {
            line: self.line,
            col: self.col,
        }
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<(), PtxError> {
        loop {
            let c = self.peek(0);
            if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' || c == 0x0B || c == 0x0C {
                self.bump();
            } else if c == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.peek(0) != b'\n' {
                    self.bump();
                }
            } else if c == b'/' && self.peek(1) == b'*' {
                let start = self.loc();
                self.bump();
                self.bump();
                loop {
                    if self.pos >= self.bytes.len() {
                        return Err(self.err(start, "unterminated comment"));
                    }
                    if self.peek(0) == b'*' && self.peek(1) == b'/' {
                        self.bump();
                        self.bump();
                        break;
                    }
                    self.bump();
                }
            } else {
                return Ok(());
            }
        }
    }

    fn next_token(&mut self) -> Result<Token<'a>, PtxError> {
        self.skip_trivia()?;
        let loc = self.loc();
        let start = self.pos;
        let c = self.peek(0);
        if self.pos >= self.bytes.len() {
            return Ok(Token {
                tok: Tok::Eof,
                text: "",
                loc,
            });
        }
        // `_` alone is the sink; `%` and `$` start a name only when a name character
        // follows (`7 % 3` is a remainder).
        let tok = if c.is_ascii_alphabetic()
            || c == b'_'
            || ((c == b'%' || c == b'$') && is_ident_char(self.peek(1)))
        {
            self.bump();
            while is_ident_char(self.peek(0)) {
                self.bump();
            }
            Tok::Ident(&self.src[start..self.pos])
        } else if c == b'.' && (is_ident_char(self.peek(1))) {
            self.bump();
            while is_ident_char(self.peek(0))
                || (self.peek(0) == b':' && self.peek(1) == b':' && is_ident_char(self.peek(2)))
            {
                if self.peek(0) == b':' {
                    self.bump();
                }
                self.bump();
            }
            Tok::Dot(&self.src[start + 1..self.pos])
        } else if c.is_ascii_digit() {
            match self.number(loc) {
                Ok(lit) => Tok::Num(lit),
                Err(e) => {
                    // Skip the rest of the malformed literal.
                    while is_ident_char(self.peek(0)) || self.peek(0) == b'.' {
                        self.bump();
                    }
                    self.errors.push(e);
                    Tok::Bad(self.errors.len() - 1)
                }
            }
        } else if c == b'"' {
            self.bump();
            loop {
                if self.pos >= self.bytes.len() || self.peek(0) == b'\n' {
                    return Err(self.err(loc, "unterminated string literal"));
                }
                match self.peek(0) {
                    b'"' => break,
                    b'\\' => {
                        self.bump();
                        self.bump();
                    }
                    _ => self.bump(),
                }
            }
            self.bump();
            Tok::Str(&self.src[start + 1..self.pos - 1])
        } else if (c == b'<' && self.peek(1) == b'<') || (c == b'>' && self.peek(1) == b'>') {
            self.bump();
            self.bump();
            Tok::Shift(c == b'<')
        } else {
            // One character (a whole UTF-8 sequence for non-ASCII input).
            let ch = self.src[start..].chars().next().unwrap_or('\u{FFFD}');
            for _ in 0..ch.len_utf8() {
                self.bump();
            }
            Tok::Punct(ch)
        };
        Ok(Token {
            tok,
            text: &self.src[start..self.pos],
            loc,
        })
    }

    fn number(&mut self, loc: Loc) -> Result<NumLit, PtxError> {
        let start = self.pos;
        let c1 = self.peek(1);
        if self.peek(0) == b'0' && matches!(c1, b'f' | b'F' | b'd' | b'D') {
            let is_f32 = matches!(c1, b'f' | b'F');
            self.bump();
            self.bump();
            let hs = self.pos;
            while self.peek(0).is_ascii_alphanumeric() {
                self.bump();
            }
            let hex = &self.src[hs..self.pos];
            let want = if is_f32 { 8 } else { 16 };
            if hex.len() != want || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(self.err(
                    loc,
                    format!(
                        "invalid floating-point literal '{}': expected {} hexadecimal digits after '{}'",
                        &self.src[start..self.pos],
                        want,
                        &self.src[start..start + 2]
                    ),
                ));
            }
            let bits = u64::from_str_radix(hex, 16)
                .map_err(|_| self.err(loc, "invalid hexadecimal literal"))?;
            return Ok(if is_f32 {
                NumLit::F32(bits as u32)
            } else {
                NumLit::F64(bits)
            });
        }
        // Scan the longest run that can belong to a number.
        let mut is_float = false;
        let radix_prefix = self.peek(0) == b'0' && matches!(c1, b'x' | b'X' | b'b' | b'B');
        if radix_prefix {
            self.bump();
            self.bump();
            while self.peek(0).is_ascii_alphanumeric() {
                self.bump();
            }
        } else {
            while self.peek(0).is_ascii_digit() {
                self.bump();
            }
            if self.peek(0) == b'.' && !self.peek(1).is_ascii_alphabetic() && self.peek(1) != b'_' {
                is_float = true;
                self.bump();
                while self.peek(0).is_ascii_digit() {
                    self.bump();
                }
            }
            if matches!(self.peek(0), b'e' | b'E')
                && (self.peek(1).is_ascii_digit()
                    || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
            {
                is_float = true;
                self.bump();
                self.bump();
                while self.peek(0).is_ascii_digit() {
                    self.bump();
                }
            }
            if !is_float {
                while self.peek(0).is_ascii_alphanumeric() {
                    self.bump();
                }
            }
        }
        let text = &self.src[start..self.pos];
        if is_float {
            if is_ident_char(self.peek(0)) {
                return Err(self.err(
                    loc,
                    format!("invalid number '{}{}'", text, self.peek(0) as char),
                ));
            }
            let v: f64 = text
                .parse()
                .map_err(|_| self.err(loc, format!("invalid floating-point literal '{text}'")))?;
            return Ok(NumLit::Float(v));
        }
        let (body, unsigned) = match text.strip_suffix('U').or_else(|| text.strip_suffix('u')) {
            Some(b) if !radix_prefix || b.len() > 2 => (b, true),
            _ => (text, false),
        };
        let (digits, radix) = if radix_prefix {
            let r = if matches!(c1, b'x' | b'X') { 16 } else { 2 };
            (body.get(2..).unwrap_or(""), r)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
        let bad = || self.err(loc, format!("invalid integer literal '{text}'"));
        if digits.is_empty() {
            return Err(bad());
        }
        let mut v: u64 = 0;
        for ch in digits.chars() {
            let d = ch.to_digit(radix).ok_or_else(bad)? as u64;
            v = v
                .checked_mul(radix as u64)
                .and_then(|x| x.checked_add(d))
                .ok_or_else(|| {
                    self.err(
                        loc,
                        format!("integer literal '{text}' does not fit in 64 bits"),
                    )
                })?;
        }
        // A literal too large for a signed 64-bit value is unsigned (PTX rule).
        Ok(NumLit::Int {
            bits: v,
            unsigned: unsigned || v > i64::MAX as u64,
        })
    }
}

/// The tokens of a source text and the errors of its malformed literals.
pub struct Lexed<'a> {
    /// The last token is always [`Tok::Eof`].
    pub toks: Vec<Token<'a>>,
    pub errors: Vec<PtxError>,
}

/// PTX source bytes as text: UTF-8 when they are valid UTF-8, otherwise Latin-1 (each
/// byte one character), so that a file with Latin-1 bytes in its comments loads and its
/// columns still count one per byte. PTX outside comments and strings is ASCII, where
/// both decodings agree; a non-ASCII character outside a comment is still an error of
/// the parser. (ptxas 12.9 rejects every non-ASCII byte, even in comments: accepting
/// them in comments is a deliberate leniency.)
pub fn decode_source(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Splits PTX source text into tokens. Fails only on unterminated comments and strings.
///
/// NUL characters at the end of the text (a C string written to disk with its
/// terminator or padding, which ptxas accepts) end the input; a NUL elsewhere is an
/// unexpected character.
pub fn lex<'a>(src: &'a str, file: &'a str) -> Result<Lexed<'a>, PtxError> {
    let body = src.trim_end_matches(|c: char| c == '\0' || c.is_ascii_whitespace());
    let src = match src[body.len()..].find('\0') {
        Some(nul) => &src[..body.len() + nul],
        None => src,
    };
    let mut lx = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        line: 1,
        col: 1,
        file,
        errors: Vec::new(),
    };
    let mut toks = Vec::new();
    loop {
        let t = lx.next_token()?;
        let eof = t.tok == Tok::Eof;
        toks.push(t);
        if eof {
            return Ok(Lexed {
                toks,
                errors: lx.errors,
            });
        }
    }
}

/// Splits PTX source text into tokens; the last token is always [`Tok::Eof`]. Malformed
/// literals are errors.
pub fn tokenize<'a>(src: &'a str, file: &'a str) -> Result<Vec<Token<'a>>, PtxError> {
    let l = lex(src, file)?;
    match l.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(l.toks),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        tokenize(s, "t.ptx")
            .map(|v| v.into_iter().map(|t| t.tok).collect())
            .unwrap_or_default()
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("42")[0],
            Tok::Num(NumLit::Int {
                bits: 42,
                unsigned: false
            })
        );
        assert_eq!(
            toks("0x1F")[0],
            Tok::Num(NumLit::Int {
                bits: 31,
                unsigned: false
            })
        );
        assert_eq!(
            toks("017")[0],
            Tok::Num(NumLit::Int {
                bits: 15,
                unsigned: false
            })
        );
        assert_eq!(
            toks("0b101")[0],
            Tok::Num(NumLit::Int {
                bits: 5,
                unsigned: false
            })
        );
        assert_eq!(
            toks("7U")[0],
            Tok::Num(NumLit::Int {
                bits: 7,
                unsigned: true
            })
        );
        assert_eq!(
            toks("0xFFFFFFFFFFFFFFFF")[0],
            Tok::Num(NumLit::Int {
                bits: u64::MAX,
                unsigned: true
            })
        );
        assert_eq!(toks("0f3F800000")[0], Tok::Num(NumLit::F32(0x3F80_0000)));
        assert_eq!(
            toks("0D3FF0000000000000")[0],
            Tok::Num(NumLit::F64(0x3FF0_0000_0000_0000))
        );
        assert_eq!(toks("1.5")[0], Tok::Num(NumLit::Float(1.5)));
        assert_eq!(toks("1e-3")[0], Tok::Num(NumLit::Float(1e-3)));
        assert_eq!(toks("2.")[0], Tok::Num(NumLit::Float(2.0)));
        assert!(tokenize("0f3F80", "t").is_err());
        assert!(tokenize("0x", "t").is_err());
        assert!(tokenize("09", "t").is_err());
        assert!(tokenize("99999999999999999999", "t").is_err());
    }

    #[test]
    fn idents_and_dots() {
        assert_eq!(
            toks("ld.global.L2::cache_hint %r1 $L__BB0_1 _"),
            vec![
                Tok::Ident("ld"),
                Tok::Dot("global"),
                Tok::Dot("L2::cache_hint"),
                Tok::Ident("%r1"),
                Tok::Ident("$L__BB0_1"),
                Tok::Ident("_"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn locations_and_comments() {
        let t = tokenize("// c\n  /* x\n y */ add", "t").unwrap_or_default();
        assert_eq!(t[0].loc, Loc { line: 3, col: 7 });
        assert!(tokenize("/* open", "t").is_err());
    }
}
