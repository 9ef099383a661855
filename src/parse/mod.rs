//! PTX front end, part 1: lexer and parser producing an AST with source spans.
//!
//! Every error is a [`PtxError`] that prints as `file:line:col: error: message`.

use std::fmt;

/// An error located in PTX source text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct PtxError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub msg: String,
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.msg
        )
    }
}
