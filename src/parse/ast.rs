//! The PTX abstract syntax tree produced by [`super::parse`].
//!
//! The AST stays close to the text: names are strings, types are as written, constant
//! expressions are unevaluated, and every instruction is generic (opcode, modifiers,
//! operands), so instructions the checker does not know still parse. Every node that can
//! be the subject of an error carries its [`Loc`] (1-based line and column).

pub use super::lexer::NumLit;
pub use crate::ir::{FuncKind, Linkage, Loc, Type};

/// A name with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub loc: Loc,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `.version major.minor` with the directive's location.
    pub version: Option<((u32, u32), Loc)>,
    /// `.target` entries (`sm_70`, `texmode_independent`, `debug`, ...).
    pub target: Vec<Ident>,
    /// `.address_size`.
    pub address_size: Option<(u32, Loc)>,
    pub items: Vec<Item>,
}

/// A module-scope declaration. Ignored directives (`.file`, `.loc`, `.section`,
/// `.pragma`) do not appear.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Var(VarDecl),
    Func(Box<FuncDecl>),
    /// `.alias alias, aliasee;`
    Alias {
        alias: Ident,
        target: Ident,
        loc: Loc,
    },
}

/// A state space of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclSpace {
    Reg,
    Global,
    Shared,
    Local,
    Const,
    Param,
    /// Legacy `.tex` variables.
    Tex,
}

impl DeclSpace {
    pub fn name(self) -> &'static str {
        match self {
            DeclSpace::Reg => "reg",
            DeclSpace::Global => "global",
            DeclSpace::Shared => "shared",
            DeclSpace::Local => "local",
            DeclSpace::Const => "const",
            DeclSpace::Param => "param",
            DeclSpace::Tex => "tex",
        }
    }
}

/// The element type of a declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum ElemType {
    Scalar(Type),
    /// `.texref`, `.samplerref`, `.surfref` and other opaque or unknown type names.
    Opaque(String),
}

/// `.ptr{.space}{.align N}` attribute of a kernel parameter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PtrAttr {
    pub space: Option<Ident>,
    pub align: Option<u32>,
}

/// Declaration attributes common to variables and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclType {
    pub align: Option<(u32, Loc)>,
    /// `.v2`, `.v4`, `.v8`.
    pub vec: Option<u32>,
    pub ty: ElemType,
    pub ty_loc: Loc,
}

/// A variable declaration: `.reg`, `.global`, `.shared`, `.local`, `.const`, `.param`
/// (function bodies), possibly with several comma-separated names.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub loc: Loc,
    pub linkage: Linkage,
    pub space: DeclSpace,
    pub dtype: DeclType,
    pub names: Vec<DeclName>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclName {
    pub name: Ident,
    /// `%r<N>`: N registers `%r0`..`%r{N-1}`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]` (size from the initializer or dynamic).
    pub dims: Vec<Option<Expr>>,
    pub init: Option<Init>,
}

/// A variable initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    List(Vec<Init>, Loc),
    /// `name = value`: a field of an opaque variable's initializer (`.samplerref`'s
    /// `{ filter_mode = linear, ... }`).
    Field(Ident, Expr),
}

impl Init {
    /// Where the initializer starts.
    pub fn loc(&self) -> Loc {
        match self {
            Init::Expr(e) => e.loc,
            Init::List(_, l) => *l,
            Init::Field(n, _) => n.loc,
        }
    }
}

/// A parameter or return value of a function, entry or prototype.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub loc: Loc,
    /// `Param` or `Reg`.
    pub space: DeclSpace,
    pub dtype: DeclType,
    pub ptr: Option<PtrAttr>,
    /// `_` in prototypes.
    pub name: Ident,
    pub dims: Vec<Option<Expr>>,
}

/// A performance-tuning or cluster directive with its integer arguments
/// (`.maxntid 256, 1, 1`, `.noreturn`, `.explicitcluster`).
#[derive(Clone, Debug, PartialEq)]
pub struct FuncDirective {
    pub name: Ident,
    pub args: Vec<(u64, Loc)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDecl {
    pub loc: Loc,
    pub linkage: Linkage,
    pub kind: FuncKind,
    pub name: Ident,
    pub rets: Vec<ParamDecl>,
    pub params: Vec<ParamDecl>,
    pub directives: Vec<FuncDirective>,
    /// `None` for a declaration without body (`;`).
    pub body: Option<Block>,
}

/// `{ ... }`: a scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub open: Loc,
    pub close: Loc,
    pub stmts: Vec<Stmt>,
}

/// `label: .callprototype (rets) _ (params) {.noreturn};`
#[derive(Clone, Debug, PartialEq)]
pub struct Prototype {
    pub rets: Vec<ParamDecl>,
    pub params: Vec<ParamDecl>,
    pub noreturn: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Label(Ident),
    Inst(Instruction),
    Var(VarDecl),
    Block(Block),
    /// `label: .branchtargets L1, L2, N<5>;` (a target with a range is `N0..N{k-1}`).
    BranchTargets {
        label: Ident,
        targets: Vec<(Ident, Option<u32>)>,
    },
    /// `label: .calltargets f, g;`
    CallTargets {
        label: Ident,
        targets: Vec<Ident>,
    },
    CallPrototype {
        label: Ident,
        proto: Prototype,
    },
    /// Other directives inside a body (`.pragma`, `.maxnreg`...): accepted, ignored
    /// (the name of a `.pragma "used_bytes_mask N"` is that string: memcheck uses it).
    Directive(Ident),
}

/// `@p` / `@!p`.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub pred: Ident,
    pub negate: bool,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Where the instruction starts (its guard, or its opcode).
    pub loc: Loc,
    pub guard: Option<Guard>,
    pub opcode: Ident,
    /// Modifiers without the leading dot, in order (`global`, `v4`, `L2::cache_hint`, `f32`).
    pub mods: Vec<Ident>,
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// The opcode with its modifiers as written: `ld.global.v2.f32`.
    pub fn text(&self) -> String {
        let mut s = self.opcode.name.clone();
        for m in &self.mods {
            s.push('.');
            s.push_str(&m.name);
        }
        s
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, special register, symbol, immediate or constant expression.
    Value(Expr),
    /// `_`.
    Sink(Loc),
    /// `!p`.
    Not(Ident),
    /// `p|q`.
    Pair(Box<Operand>, Box<Operand>),
    /// `{a, b, _, d}`.
    Vector(Vec<Operand>, Loc),
    /// `[addr]`, or a bracketed list such as the `[tex, {x, y}]` of texture instructions.
    Bracket(Vec<Operand>, Loc),
    /// `(a, b)` in call syntax.
    List(Vec<Operand>, Loc),
}

impl Operand {
    pub fn loc(&self) -> Loc {
        match self {
            Operand::Value(e) => e.loc,
            Operand::Sink(l)
            | Operand::Vector(_, l)
            | Operand::Bracket(_, l)
            | Operand::List(_, l) => *l,
            Operand::Not(i) => i.loc,
            Operand::Pair(a, _) => a.loc(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `~`
    Not,
    /// `!`
    LNot,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Num(NumLit),
    /// A name, with a `.x`-style component for special and vector registers.
    Sym {
        name: String,
        comp: Option<String>,
    },
    /// `generic(var)` in initializers.
    Generic(Ident),
    /// `0xFF00(expr)`: bytes of an address selected by a mask (nvcc writes pointers in
    /// packed byte arrays this way).
    Mask(u64, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub loc: Loc,
}
