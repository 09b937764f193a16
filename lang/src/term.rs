//! The desugared language (`Term`): what the front end makes of a
//! program before closures and frame slots are laid out. Every variable
//! is resolved (a local by a unique number, a top-level value by its
//! global number), every constructor application is saturated, every
//! pattern match is a `Case` on one evaluated value with flat
//! alternatives, and pattern-match failure is a jump to a join point.

use num_bigint::BigInt;

/// A local variable, unique in the program.
pub type Local = u32;
/// A top-level value: a function, a CAF, a literal or a constructor.
pub type GlobalId = u32;
/// A data constructor.
pub type ConId = u32;
/// A join point (a pattern-match failure continuation).
pub type JoinId = u32;

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// An integer literal, of type `Integer` until it meets another type
    /// (See Note [Numbers typed at run time] in `prim::num`).
    Integer(BigInt),
    /// An integer literal where a signature says `Int` or `Word64`.
    Int(i64),
    Word(u64),
    Double(f64),
    Char(char),
}

/// A desugared expression.
#[derive(Debug, Clone)]
pub enum Term {
    Local(Local),
    Global(GlobalId),
    /// A string literal: unpacked into a list of `Char` when evaluated.
    Str(String),
    App(Box<Term>, Vec<Term>),
    Lam(Vec<Local>, Box<Term>),
    /// Recursive bindings.
    Let(Vec<(Local, Term)>, Box<Term>),
    /// Evaluate the scrutinee, bind its value, pick an alternative.
    Case(Box<Term>, Local, Vec<(CasePat, Term)>),
    /// A saturated constructor application.
    Con(ConId, Vec<Term>),
    /// A primitive operation, strict in every argument.
    Prim(crate::prim::Prim, Vec<Term>),
    /// A selector thunk: field `usize` of what the term evaluates to.
    Sel(Box<Term>, u32),
    /// `Join(j, code, body)`: `body`, in which `Jump(j)` continues with
    /// `code` in the same frame.
    Join(JoinId, Box<Term>, Box<Term>),
    Jump(JoinId),
    /// A run-time error with GHC's message.
    Error(String),
}

/// An alternative's pattern: flat, over an evaluated value.
#[derive(Debug, Clone)]
pub enum CasePat {
    Con(ConId, Vec<Local>),
    Default,
}
