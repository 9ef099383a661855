//! Recursive-descent PTX parser: tokens -> [`ast::Module`].
//!
//! Nesting (scopes, initializer lists, expressions, operand lists) is bounded by
//! [`MAX_DEPTH`], so hostile input cannot overflow the stack.

use super::ast::*;
use super::lexer::{Lexed, NumLit, Tok, Token};
use super::PtxError;

/// Maximum nesting depth of blocks, initializer lists, expressions and operands.
pub const MAX_DEPTH: u32 = 64;

/// Largest `%r<N>` range accepted.
pub const MAX_REG_RANGE: u64 = 1 << 20;

pub struct Parser<'a> {
    toks: Vec<Token<'a>>,
    /// Errors of malformed literals, reported when the parser reaches them.
    lex_errors: Vec<PtxError>,
    pos: usize,
    file: &'a str,
    depth: u32,
}

type PResult<T> = Result<T, PtxError>;

mod operand;

fn linkage_of(name: &str) -> Option<Linkage> {
    Some(match name {
        "visible" => Linkage::Visible,
        "extern" => Linkage::Extern,
        "weak" => Linkage::Weak,
        "common" => Linkage::Common,
        _ => return None,
    })
}

fn space_of(name: &str) -> Option<DeclSpace> {
    Some(match name {
        "reg" => DeclSpace::Reg,
        "global" => DeclSpace::Global,
        "shared" => DeclSpace::Shared,
        "local" => DeclSpace::Local,
        "const" => DeclSpace::Const,
        "param" => DeclSpace::Param,
        "tex" => DeclSpace::Tex,
        _ => return None,
    })
}

/// `b0`..`b7777` (one to four byte indices 0-7) and `h0`..`h33` (one or two half-word
/// indices 0-3): the operand selectors of the video instructions.
fn is_video_selector(s: &str) -> bool {
    let (max, digits) = match s.as_bytes().split_first() {
        Some((b'b', d)) => (b'7', d),
        Some((b'h', d)) => (b'3', d),
        _ => return false,
    };
    let n = if s.starts_with('b') { 4 } else { 2 };
    !digits.is_empty() && digits.len() <= n && digits.iter().all(|&c| (b'0'..=max).contains(&c))
}

fn is_opaque_type(name: &str) -> bool {
    matches!(name, "texref" | "samplerref" | "surfref")
}

/// Function-level directives taking a list of integers (or none).
fn is_func_directive(name: &str) -> bool {
    matches!(
        name,
        "maxntid"
            | "reqntid"
            | "minnctapersm"
            | "maxnctapersm"
            | "maxnreg"
            | "noreturn"
            | "explicitcluster"
            | "reqnctapercluster"
            | "maxclusterrank"
            | "blocksareclusters"
            | "abi_preserve"
            | "abi_preserve_control"
    )
}

impl<'a> Parser<'a> {
    pub fn new(lexed: Lexed<'a>, file: &'a str) -> Self {
        Parser {
            toks: lexed.toks,
            lex_errors: lexed.errors,
            pos: 0,
            file,
            depth: 0,
        }
    }

    // ----- token helpers -------------------------------------------------------------

    fn peek(&self) -> Token<'a> {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> Token<'a> {
        match self.toks.get(self.pos + n) {
            Some(t) => *t,
            None => self.toks.last().copied().unwrap_or(Token {
                tok: Tok::Eof,
                text: "",
                loc: Loc { line: 1, col: 1 },
            }),
        }
    }

    fn bump(&mut self) -> Token<'a> {
        let t = self.peek();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn err_at(&self, loc: Loc, msg: impl Into<String>) -> PtxError {
        PtxError {
            file: self.file.to_string(),
            line: loc.line,
            col: loc.col,
            msg: msg.into(),
        }
    }

    fn unexpected(&self, what: &str) -> PtxError {
        let t = self.peek();
        if let Tok::Bad(i) = t.tok {
            if let Some(e) = self.lex_errors.get(i) {
                return e.clone();
            }
        }
        self.err_at(t.loc, format!("expected {what} but found {}", t.describe()))
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek().tok == Tok::Punct(c)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> PResult<Loc> {
        if self.is_punct(c) {
            Ok(self.bump().loc)
        } else {
            Err(self.unexpected(&format!("'{c}'")))
        }
    }

    fn peek_dot(&self) -> Option<&'a str> {
        match self.peek().tok {
            Tok::Dot(d) => Some(d),
            _ => None,
        }
    }

    fn expect_ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().tok {
            Tok::Ident(name) => {
                let t = self.bump();
                Ok(Ident {
                    name: name.to_string(),
                    loc: t.loc,
                })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn expect_int(&mut self, what: &str) -> PResult<(u64, Loc)> {
        match self.peek().tok {
            Tok::Num(NumLit::Int { bits, .. }) => {
                let t = self.bump();
                Ok((bits, t.loc))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn expect_u32(&mut self, what: &str) -> PResult<(u32, Loc)> {
        let (v, loc) = self.expect_int(what)?;
        let v =
            u32::try_from(v).map_err(|_| self.err_at(loc, format!("value {v} is too large")))?;
        Ok((v, loc))
    }

    fn enter(&mut self, loc: Loc) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_at(loc, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips every remaining token on the line of `line` (for `.file`/`.loc`, which
    /// have no terminating `;`).
    fn skip_line(&mut self, line: u32) {
        while self.peek().tok != Tok::Eof && self.peek().loc.line == line {
            self.bump();
        }
    }

    /// Skips a balanced `{ ... }` group (the current token must be `{`).
    fn skip_braces(&mut self) -> PResult<()> {
        self.skip_group('{', '}')
    }

    /// Skips a balanced `( ... )` group (the current token must be `(`).
    fn skip_parens(&mut self) -> PResult<()> {
        self.skip_group('(', ')')
    }

    /// Skips a balanced `open ... close` group (the current token must be `open`).
    fn skip_group(&mut self, open_c: char, close_c: char) -> PResult<()> {
        let open = self.expect_punct(open_c)?;
        let mut depth = 1u32;
        loop {
            let t = self.bump();
            match t.tok {
                Tok::Eof => {
                    return Err(self.err_at(
                        open,
                        format!("unterminated '{open_c}': expected '{close_c}' before end of file"),
                    ))
                }
                Tok::Punct(c) if c == open_c => depth += 1,
                Tok::Punct(c) if c == close_c => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    /// `.version`'s `M.m`: the lexer reads it as a float; split its text.
    fn version_number(&mut self) -> PResult<(u32, u32)> {
        let t = self.peek();
        let text = t.text;
        let parsed = match t.tok {
            Tok::Num(NumLit::Float(_)) => text
                .split_once('.')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))),
            Tok::Num(NumLit::Int { bits, .. }) => u32::try_from(bits).ok().map(|v| (v, 0)),
            _ => None,
        };
        match parsed {
            Some(v) => {
                self.bump();
                Ok(v)
            }
            None => Err(self.unexpected("a version number 'major.minor'")),
        }
    }

    // ----- module ---------------------------------------------------------------------

    pub fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Eof => return Ok(m),
                Tok::Punct(';') => {
                    self.bump();
                }
                Tok::Dot("version") => {
                    self.bump();
                    let v = self.version_number()?;
                    m.version = Some((v, t.loc));
                }
                Tok::Dot("target") => {
                    self.bump();
                    loop {
                        m.target.push(self.expect_ident("a target name")?);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                Tok::Dot("address_size") => {
                    self.bump();
                    let (v, _) = self.expect_u32("an address size")?;
                    m.address_size = Some((v, t.loc));
                }
                // Legacy DWARF lines (`@@DWARF .byte 0x2b, ...`): ignored to end of line.
                Tok::Punct('@')
                    if self.peek_at(1).tok == Tok::Punct('@')
                        && self.peek_at(2).tok == Tok::Ident("DWARF") =>
                {
                    self.skip_line(t.loc.line);
                }
                Tok::Dot("file") | Tok::Dot("loc") => {
                    self.bump();
                    self.skip_line(t.loc.line);
                }
                Tok::Dot("section") => {
                    self.bump();
                    match self.peek().tok {
                        Tok::Dot(_) | Tok::Ident(_) => {
                            self.bump();
                        }
                        _ => return Err(self.unexpected("a section name")),
                    }
                    self.skip_braces()?;
                }
                Tok::Dot("pragma") => {
                    self.bump();
                    let _ = self.pragma_args()?;
                }
                Tok::Dot("alias") => {
                    self.bump();
                    let alias = self.expect_ident("an alias name")?;
                    self.expect_punct(',')?;
                    let target = self.expect_ident("a function name")?;
                    self.expect_punct(';')?;
                    m.items.push(Item::Alias {
                        alias,
                        target,
                        loc: t.loc,
                    });
                }
                Tok::Dot(_) => {
                    let item = self.decl_item()?;
                    m.items.push(item);
                }
                _ => return Err(self.unexpected("a directive")),
            }
        }
    }

    fn pragma_args(&mut self) -> PResult<Vec<String>> {
        let mut args = Vec::new();
        loop {
            match self.peek().tok {
                Tok::Str(a) => {
                    args.push(a.to_string());
                    self.bump();
                }
                _ => return Err(self.unexpected("a string")),
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(args)
    }

    /// Linkage attributes followed by `.entry`, `.func` or a variable declaration.
    fn decl_item(&mut self) -> PResult<Item> {
        let loc = self.peek().loc;
        let mut linkage = Linkage::Internal;
        while let Some(d) = self.peek_dot() {
            match linkage_of(d) {
                Some(l) => {
                    linkage = l;
                    self.bump();
                }
                None => break,
            }
        }
        match self.peek().tok {
            Tok::Dot("entry") => {
                self.bump();
                Ok(Item::Func(Box::new(self.func(
                    loc,
                    linkage,
                    FuncKind::Entry,
                )?)))
            }
            Tok::Dot("func") => {
                self.bump();
                Ok(Item::Func(Box::new(self.func(
                    loc,
                    linkage,
                    FuncKind::Func,
                )?)))
            }
            Tok::Dot(d) if space_of(d).is_some() || d == "align" => {
                Ok(Item::Var(self.var_decl(loc, linkage)?))
            }
            _ => Err(self.unexpected("'.entry', '.func' or a variable declaration")),
        }
    }

    // ----- declarations ---------------------------------------------------------------

    /// Attributes and type of a declaration: any order of `.align N`, `.vN`, `.ptr`
    /// (when `ptr` is given), `.attribute(...)`, then the type.
    fn decl_type(&mut self, mut ptr: Option<&mut Option<PtrAttr>>) -> PResult<DeclType> {
        let mut align = None;
        let mut vec = None;
        loop {
            let t = self.peek();
            let Tok::Dot(d) = t.tok else {
                return Err(self.unexpected("a type"));
            };
            match d {
                "align" => {
                    self.bump();
                    let (v, l) = self.expect_u32("an alignment")?;
                    if !v.is_power_of_two() {
                        return Err(self.err_at(l, format!("alignment {v} is not a power of two")));
                    }
                    align = Some((v, t.loc));
                }
                "v2" | "v4" | "v8" => {
                    self.bump();
                    vec = Some(if d == "v2" {
                        2
                    } else if d == "v4" {
                        4
                    } else {
                        8
                    });
                }
                "attribute" => {
                    self.bump();
                    self.skip_parens()?;
                }
                "ptr" if ptr.is_some() => {
                    self.bump();
                    let p = self.ptr_attr()?;
                    if let Some(slot) = ptr.as_deref_mut() {
                        *slot = Some(p);
                    }
                }
                _ => {
                    // The type itself; `.ptr` may still follow it (`.u64 .ptr .align 1`).
                    // `.bf16`/`.bf16x2` are instruction types only: ptxas 12.9 rejects
                    // them in `.reg`, variable and parameter declarations ("Parsing error
                    // near '.bf16'"); their values live in `.b16`/`.b32` storage.
                    if matches!(d, "bf16" | "bf16x2") {
                        return Err(self.err_at(
                            t.loc,
                            format!("'.{d}' cannot be a declared type (use .b16 or .b32)"),
                        ));
                    }
                    let ty = if let Some(ty) = Type::from_name(d) {
                        ElemType::Scalar(ty)
                    } else if is_opaque_type(d) {
                        ElemType::Opaque(d.to_string())
                    } else {
                        return Err(
                            self.err_at(t.loc, format!("expected a type but found '{}'", t.text))
                        );
                    };
                    self.bump();
                    while matches!(
                        self.peek().tok,
                        Tok::Dot("ptr") | Tok::Dot("align") | Tok::Dot("attribute")
                    ) {
                        match self.peek().tok {
                            Tok::Dot("ptr") if ptr.is_some() => {
                                self.bump();
                                let p = self.ptr_attr()?;
                                if let Some(slot) = ptr.as_deref_mut() {
                                    *slot = Some(p);
                                }
                            }
                            Tok::Dot("align") => {
                                let al = self.bump();
                                let (v, l) = self.expect_u32("an alignment")?;
                                if !v.is_power_of_two() {
                                    return Err(self.err_at(
                                        l,
                                        format!("alignment {v} is not a power of two"),
                                    ));
                                }
                                align = Some((v, al.loc));
                            }
                            Tok::Dot("attribute") => {
                                self.bump();
                                self.skip_parens()?;
                            }
                            _ => return Err(self.unexpected("a name")),
                        }
                    }
                    return Ok(DeclType {
                        align,
                        vec,
                        ty,
                        ty_loc: t.loc,
                    });
                }
            }
        }
    }

    /// What follows `.ptr`: `{.space}{.align N}` in any order.
    fn ptr_attr(&mut self) -> PResult<PtrAttr> {
        let mut p = PtrAttr::default();
        loop {
            match self.peek().tok {
                Tok::Dot(s @ ("global" | "shared" | "local" | "const")) => {
                    let st = self.bump();
                    p.space = Some(Ident {
                        name: s.to_string(),
                        loc: st.loc,
                    });
                }
                Tok::Dot("align") => {
                    self.bump();
                    let (v, l) = self.expect_u32("an alignment")?;
                    if !v.is_power_of_two() {
                        return Err(self.err_at(l, format!("alignment {v} is not a power of two")));
                    }
                    p.align = Some(v);
                }
                _ => return Ok(p),
            }
        }
    }

    /// `[N]` dimensions after a name.
    fn dims(&mut self) -> PResult<Vec<Option<Expr>>> {
        let mut dims = Vec::new();
        while self.is_punct('[') {
            let open = self.bump().loc;
            if dims.len() >= MAX_DEPTH as usize {
                return Err(self.err_at(open, "too many array dimensions"));
            }
            if self.eat_punct(']') {
                dims.push(None);
            } else {
                let e = self.expr(true)?;
                self.expect_punct(']')?;
                dims.push(Some(e));
            }
        }
        Ok(dims)
    }

    /// A variable declaration after its linkage: `.space attrs .type names;`.
    fn var_decl(&mut self, loc: Loc, linkage: Linkage) -> PResult<VarDecl> {
        // `.align` may come before the state space.
        let mut pre_align = None;
        if self.peek().tok == Tok::Dot("align") {
            let t = self.bump();
            let (v, _) = self.expect_u32("an alignment")?;
            pre_align = Some((v, t.loc));
        }
        let t = self.peek();
        let space = match t.tok {
            Tok::Dot(d) => space_of(d),
            _ => None,
        }
        .ok_or_else(|| self.unexpected("a state space"))?;
        self.bump();
        let mut dtype = self.decl_type(None)?;
        if dtype.align.is_none() {
            dtype.align = pre_align;
        }
        let mut names = Vec::new();
        loop {
            let name = self.expect_ident("a name")?;
            let mut range = None;
            if self.is_punct('<') {
                self.bump();
                let (n, l) = self.expect_int("a register count")?;
                if n > MAX_REG_RANGE {
                    return Err(self.err_at(
                        l,
                        format!("register range <{n}> is too large (at most {MAX_REG_RANGE})"),
                    ));
                }
                range = Some(n as u32);
                self.expect_punct('>')?;
            }
            let dims = self.dims()?;
            let init = if self.eat_punct('=') {
                Some(self.init()?)
            } else {
                None
            };
            names.push(DeclName {
                name,
                range,
                dims,
                init,
            });
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(VarDecl {
            loc,
            linkage,
            space,
            dtype,
            names,
        })
    }

    fn init(&mut self) -> PResult<Init> {
        if self.is_punct('{') {
            let open = self.bump().loc;
            self.enter(open)?;
            let mut items = Vec::new();
            if !self.is_punct('}') {
                loop {
                    items.push(self.init()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
            }
            self.expect_punct('}')?;
            self.leave();
            Ok(Init::List(items, open))
        } else if matches!(self.peek().tok, Tok::Ident(_)) && self.peek_at(1).tok == Tok::Punct('=')
        {
            let name = self.expect_ident("a field name")?;
            self.bump();
            Ok(Init::Field(name, self.expr(true)?))
        } else {
            Ok(Init::Expr(self.expr(true)?))
        }
    }

    /// One parameter: `.param attrs .type name[dims]` or `.reg .type name`.
    fn param(&mut self) -> PResult<ParamDecl> {
        let t = self.peek();
        let space = match t.tok {
            Tok::Dot("param") => DeclSpace::Param,
            Tok::Dot("reg") => DeclSpace::Reg,
            _ => return Err(self.unexpected("'.param' or '.reg'")),
        };
        self.bump();
        let mut ptr = None;
        let dtype = self.decl_type(Some(&mut ptr))?;
        let name = self.expect_ident("a parameter name")?;
        let dims = self.dims()?;
        Ok(ParamDecl {
            loc: t.loc,
            space,
            dtype,
            ptr,
            name,
            dims,
        })
    }

    /// `( param, param, ... )`.
    fn param_list(&mut self) -> PResult<Vec<ParamDecl>> {
        self.expect_punct('(')?;
        let mut ps = Vec::new();
        if self.eat_punct(')') {
            return Ok(ps);
        }
        loop {
            ps.push(self.param()?);
            if self.eat_punct(')') {
                return Ok(ps);
            }
            if !self.eat_punct(',') {
                return Err(self.unexpected("',' or ')'"));
            }
        }
    }

    fn func_directives(&mut self, out: &mut Vec<FuncDirective>) -> PResult<()> {
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Dot("attribute") => {
                    self.bump();
                    self.skip_parens()?;
                }
                Tok::Dot("pragma") => {
                    self.bump();
                    let _ = self.pragma_args()?;
                }
                Tok::Dot(d) if is_func_directive(d) => {
                    self.bump();
                    let mut args = Vec::new();
                    if matches!(self.peek().tok, Tok::Num(_)) {
                        loop {
                            args.push(self.expect_int("a number")?);
                            if !self.eat_punct(',') {
                                break;
                            }
                        }
                    }
                    out.push(FuncDirective {
                        name: Ident {
                            name: d.to_string(),
                            loc: t.loc,
                        },
                        args,
                    });
                }
                _ => return Ok(()),
            }
        }
    }

    fn func(&mut self, loc: Loc, linkage: Linkage, kind: FuncKind) -> PResult<FuncDecl> {
        let mut directives = Vec::new();
        self.func_directives(&mut directives)?;
        let rets = if kind == FuncKind::Func && self.is_punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        self.func_directives(&mut directives)?;
        let name = self.expect_ident("a function name")?;
        self.func_directives(&mut directives)?;
        let params = if self.is_punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        self.func_directives(&mut directives)?;
        let body = if self.eat_punct(';') {
            None
        } else if self.is_punct('{') {
            Some(self.block()?)
        } else if matches!(self.peek().tok, Tok::Dot(_) | Tok::Eof) {
            // A header followed by the next directive is a declaration without its
            // `;`: nvopencc (PTX ISA 1.x/2.x) writes `.visible .func (...) f (...)` then
            // `.file` or the definition, and ptxas 12.9 accepts it.
            None
        } else {
            return Err(self.unexpected("'{' or ';'"));
        };
        Ok(FuncDecl {
            loc,
            linkage,
            kind,
            name,
            rets,
            params,
            directives,
            body,
        })
    }

    // ----- statements -----------------------------------------------------------------

    fn block(&mut self) -> PResult<Block> {
        let open = self.expect_punct('{')?;
        self.enter(open)?;
        let mut stmts = Vec::new();
        loop {
            let t = self.peek();
            match t.tok {
                Tok::Punct('}') => {
                    self.bump();
                    self.leave();
                    return Ok(Block {
                        open,
                        close: t.loc,
                        stmts,
                    });
                }
                Tok::Eof => {
                    return Err(self.err_at(
                        t.loc,
                        format!("expected '}}' but found end of file (block opened at {open})"),
                    ))
                }
                Tok::Punct(';') => {
                    self.bump();
                }
                Tok::Punct('{') => stmts.push(Stmt::Block(self.block()?)),
                Tok::Punct('@') => stmts.push(Stmt::Inst(self.instruction()?)),
                Tok::Ident(name) if self.peek_at(1).tok == Tok::Punct(':') => {
                    self.bump();
                    self.bump();
                    let label = Ident {
                        name: name.to_string(),
                        loc: t.loc,
                    };
                    stmts.push(self.after_label(label)?);
                }
                Tok::Ident(_) => stmts.push(Stmt::Inst(self.instruction()?)),
                Tok::Dot("file") | Tok::Dot("loc") => {
                    self.bump();
                    self.skip_line(t.loc.line);
                }
                Tok::Dot("pragma") => {
                    self.bump();
                    let args = self.pragma_args()?;
                    // NVVM's `.pragma "used_bytes_mask N"` (which bytes of the next
                    // load are used) is kept by its text; other pragmas are `pragma`.
                    let name = args
                        .into_iter()
                        .find(|a| a.starts_with("used_bytes_mask"))
                        .unwrap_or_else(|| "pragma".into());
                    stmts.push(Stmt::Directive(Ident { name, loc: t.loc }));
                }
                Tok::Dot(d) if is_func_directive(d) => {
                    let mut ds = Vec::new();
                    self.func_directives(&mut ds)?;
                    self.eat_punct(';');
                    stmts.push(Stmt::Directive(Ident {
                        name: d.to_string(),
                        loc: t.loc,
                    }));
                }
                Tok::Dot(d) if linkage_of(d).is_some() || space_of(d).is_some() || d == "align" => {
                    let mut linkage = Linkage::Internal;
                    while let Some(l) = self.peek_dot().and_then(linkage_of) {
                        linkage = l;
                        self.bump();
                    }
                    stmts.push(Stmt::Var(self.var_decl(t.loc, linkage)?));
                }
                _ => return Err(self.unexpected("an instruction, label or declaration")),
            }
        }
    }

    /// After `label:` — a labeled control-flow directive or a plain label.
    fn after_label(&mut self, label: Ident) -> PResult<Stmt> {
        match self.peek().tok {
            Tok::Dot("branchtargets") => {
                self.bump();
                let mut targets = Vec::new();
                loop {
                    let id = self.expect_ident("a label")?;
                    let mut range = None;
                    if self.eat_punct('<') {
                        let (n, l) = self.expect_int("a label count")?;
                        if n > MAX_REG_RANGE {
                            return Err(self.err_at(l, format!("label range <{n}> is too large")));
                        }
                        range = Some(n as u32);
                        self.expect_punct('>')?;
                    }
                    targets.push((id, range));
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                self.expect_punct(';')?;
                Ok(Stmt::BranchTargets { label, targets })
            }
            Tok::Dot("calltargets") => {
                self.bump();
                let mut targets = Vec::new();
                loop {
                    targets.push(self.expect_ident("a function name")?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                self.expect_punct(';')?;
                Ok(Stmt::CallTargets { label, targets })
            }
            Tok::Dot("callprototype") => {
                self.bump();
                let rets = if self.is_punct('(') {
                    self.param_list()?
                } else {
                    Vec::new()
                };
                let us = self.expect_ident("'_'")?;
                if us.name != "_" {
                    return Err(
                        self.err_at(us.loc, format!("expected '_' but found '{}'", us.name))
                    );
                }
                let params = if self.is_punct('(') {
                    self.param_list()?
                } else {
                    Vec::new()
                };
                let noreturn = if self.peek().tok == Tok::Dot("noreturn") {
                    self.bump();
                    true
                } else {
                    false
                };
                self.expect_punct(';')?;
                Ok(Stmt::CallPrototype {
                    label,
                    proto: Prototype {
                        rets,
                        params,
                        noreturn,
                    },
                })
            }
            _ => Ok(Stmt::Label(label)),
        }
    }

    fn instruction(&mut self) -> PResult<Instruction> {
        let start = self.peek().loc;
        let guard = if self.is_punct('@') {
            let at = self.bump().loc;
            let negate = self.eat_punct('!');
            let pred = self.expect_ident("a predicate register")?;
            Some(Guard {
                pred,
                negate,
                loc: at,
            })
        } else {
            None
        };
        let opcode = self.expect_ident("an instruction")?;
        let mut mods = Vec::new();
        while let Tok::Dot(d) = self.peek().tok {
            let t = self.bump();
            mods.push(Ident {
                name: d.to_string(),
                loc: t.loc,
            });
        }
        let mut operands = Vec::new();
        if !self.is_punct(';') {
            loop {
                operands.push(self.operand()?);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        self.expect_punct(';')?;
        // `ld.global.b32 { %r1 }, [a]` (Triton): in a load or store without a `.v2`/`.v4`
        // modifier, a one-element vector is the scalar operand itself. (Elsewhere, as in
        // `ldmatrix .x1` or the fragments of `mma`, the braces are the instruction's form.)
        if matches!(opcode.name.as_str(), "ld" | "ldu" | "st")
            && !mods
                .iter()
                .any(|m| matches!(m.name.as_str(), "v2" | "v4" | "v8"))
        {
            for op in &mut operands {
                if let Operand::Vector(v, _) = op {
                    if let [Operand::Value(_) | Operand::Sink(_)] = v.as_slice() {
                        if let Some(one) = v.pop() {
                            *op = one;
                        }
                    }
                }
            }
        }
        Ok(Instruction {
            loc: start,
            guard,
            opcode,
            mods,
            operands,
        })
    }
}
