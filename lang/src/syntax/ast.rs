//! The abstract syntax the parser builds: a module's declarations,
//! expressions, patterns and the types of signatures. Infix expressions
//! are kept as flat operand/operator sequences until fixities are known
//! (See `fixity`).

use num_bigint::BigInt;

/// A literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Int(BigInt),
    Frac(f64),
    Char(char),
    Str(String),
}

/// A type, as signatures and annotations write it.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Var(String),
    Con(String, Vec<Type>),
    Fun(Box<Type>, Box<Type>),
    List(Box<Type>),
    Tuple(Vec<Type>),
}

/// An expression.
#[derive(Debug, Clone)]
pub enum Expr {
    Var(String, u32),
    Con(String, u32),
    Lit(Lit, u32),
    App(Box<Expr>, Box<Expr>),
    /// Operands and operators in source order, fixities unresolved.
    Infix(Vec<Expr>, Vec<(String, u32)>),
    Neg(Box<Expr>, u32),
    Lambda(Vec<Pat>, Box<Expr>, u32),
    Let(Vec<Decl>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Case(Box<Expr>, Vec<Alt>, u32),
    Do(Vec<Stmt>, u32),
    Tuple(Vec<Expr>),
    /// `(,)`, `(,,)`: the tuple constructor of that arity.
    TupleCon(usize),
    List(Vec<Expr>),
    /// `[a ..]`, `[a, b ..]`, `[a .. c]`, `[a, b .. c]`.
    Range(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    Comp(Box<Expr>, Vec<Stmt>),
    /// `(e op)`.
    LeftSection(Box<Expr>, String, u32),
    /// `(op e)`.
    RightSection(String, Box<Expr>, u32),
    RecordCon(String, Vec<(String, Expr)>, u32),
    RecordUpdate(Box<Expr>, Vec<(String, Expr)>, u32),
    Typed(Box<Expr>, Type),
}

impl Expr {
    /// The line the expression starts on, as near as known.
    pub fn line(&self) -> u32 {
        match self {
            Expr::Var(_, l) | Expr::Con(_, l) | Expr::Lit(_, l) | Expr::Neg(_, l) | Expr::Lambda(_, _, l) | Expr::Case(_, _, l) | Expr::Do(_, l) => *l,
            Expr::LeftSection(_, _, l) | Expr::RightSection(_, _, l) | Expr::RecordCon(_, _, l) | Expr::RecordUpdate(_, _, l) => *l,
            Expr::App(f, _) => f.line(),
            Expr::Infix(es, _) => es[0].line(),
            Expr::Let(_, e) | Expr::Typed(e, _) | Expr::Comp(e, _) => e.line(),
            Expr::If(c, _, _) => c.line(),
            Expr::Tuple(es) | Expr::List(es) => es.first().map_or(0, Expr::line),
            Expr::Range(a, _, _) => a.line(),
            Expr::TupleCon(_) => 0,
        }
    }
}

/// A pattern.
#[derive(Debug, Clone)]
pub enum Pat {
    Var(String),
    Wild,
    Lit(Lit),
    /// A negative numeric literal.
    NegLit(Lit),
    Con(String, Vec<Pat>, u32),
    Tuple(Vec<Pat>),
    List(Vec<Pat>),
    As(String, Box<Pat>),
    Lazy(Box<Pat>),
    Bang(Box<Pat>),
    Record(String, Vec<(String, Pat)>, u32),
    /// Operands and constructor operators, fixities unresolved.
    Infix(Vec<Pat>, Vec<(String, u32)>),
}

/// A guarded right-hand side or a plain one.
#[derive(Debug, Clone)]
pub enum Rhs {
    Plain(Expr),
    Guarded(Vec<(Vec<Guard>, Expr)>),
}

/// A guard: a boolean, a pattern guard, or local bindings.
#[derive(Debug, Clone)]
pub enum Guard {
    Bool(Expr),
    Bind(Pat, Expr),
    Let(Vec<Decl>),
}

/// A case alternative.
#[derive(Debug, Clone)]
pub struct Alt {
    pub pat: Pat,
    pub rhs: Rhs,
    pub wheres: Vec<Decl>,
    pub line: u32,
}

/// A statement of `do` or a comprehension.
#[derive(Debug, Clone)]
pub enum Stmt {
    Bind(Pat, Expr, u32),
    Let(Vec<Decl>),
    Expr(Expr),
}

/// Fixity: associativity and precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assoc {
    Left,
    Right,
    None,
}

/// A constructor of a `data` declaration.
#[derive(Debug, Clone)]
pub struct ConDecl {
    pub name: String,
    /// Field types; `strict` marks `!` fields.
    pub fields: Vec<(Type, bool)>,
    /// Record field names, if a record.
    pub labels: Vec<String>,
    pub line: u32,
}

/// A declaration.
#[derive(Debug, Clone)]
pub enum Decl {
    /// One equation of a function (or an operator).
    Fun { name: String, pats: Vec<Pat>, rhs: Rhs, wheres: Vec<Decl>, line: u32 },
    /// A pattern binding (`(a, b) = e`, or `x = e` when it is a variable: then `Fun` with no patterns).
    Pat { pat: Pat, rhs: Rhs, wheres: Vec<Decl>, line: u32 },
    Sig { names: Vec<String>, ty: Type, line: u32 },
    Fixity { assoc: Assoc, prec: u8, ops: Vec<String>, line: u32 },
    Data { name: String, cons: Vec<ConDecl>, deriving: Vec<String>, newtype: bool, line: u32 },
    /// `type T = ...`: read and ignored.
    TypeSyn { line: u32 },
}

/// An import.
#[derive(Debug, Clone)]
pub struct Import {
    pub module: String,
    pub qualified: bool,
    pub alias: Option<String>,
    /// `import M (a, b)`: only these; None imports everything.
    pub only: Option<Vec<String>>,
    pub hiding: Vec<String>,
    pub line: u32,
}

/// A module.
#[derive(Debug, Clone)]
pub struct Module {
    pub name: String,
    /// `module M (a, b) where`: None exports everything.
    pub exports: Option<Vec<String>>,
    pub imports: Vec<Import>,
    pub decls: Vec<Decl>,
}
