//! PTX front end, part 1: lexer and parser producing an AST with source spans.
//!
//! Every error is a [`PtxError`] that prints as `file:line:col: error: message`
//! (1-based line and column, columns counted in characters), naming the offending token:
//! `expected ';' but found 'add'`.
//!
//! The parser accepts the PTX module syntax of nvcc, NVRTC and clang output (ISA 6.0 to
//! 9.x) and hand-written PTX: module directives, linkage, `.entry`/`.func` with `.param`
//! and `.reg` parameters, return values, prototypes and performance/cluster directives,
//! variables of every state space with alignment, arrays, vectors and initializers
//! (constant expressions, `generic(var)`, `var+k`, byte masks `0xFF00(generic(var))`),
//! nested scopes, labels, `.branchtargets`/`.calltargets`/`.callprototype`, and every
//! instruction generically (opcode, `.modifier`s including `::` forms, operands:
//! registers, special registers with components, immediates of every literal form,
//! vectors, addresses, `p|q`, `!p`, `_`, call lists). `.file`, `.loc`, `.section`
//! blocks, `.pragma` and legacy `@@DWARF` lines are accepted and dropped. Nesting is
//! bounded by [`MAX_DEPTH`], so hostile input cannot overflow the stack.

use std::fmt;

pub mod ast;
pub mod lexer;
mod parser;

pub use lexer::decode_source;
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
