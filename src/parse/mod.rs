//! PTX front end, part 1: lexer and parser producing an AST with source spans.
//!
//! Every error is a [`PtxError`] that prints as `file:line:col: error: message`.

use std::fmt;

pub mod ast;
pub mod lexer;
mod parser;

pub use parser::MAX_DEPTH;

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

/// Parses PTX source text into an AST. `file` names the source in error messages.
pub fn parse(src: &str, file: &str) -> Result<ast::Module, PtxError> {
    let lexed = lexer::lex(src, file)?;
    parser::Parser::new(lexed, file).module()
}
