//! A desugared program: its constructors and its top-level values, as
//! the front end hands them to `lower`.

use crate::term::{ConId, GlobalId, Literal, Term};

/// What the run-time needs of a data constructor: how to build, match
/// and show it.
#[derive(Debug, Clone)]
pub struct ConInfo {
    pub name: String,
    pub type_name: String,
    pub module: String,
    pub arity: u32,
    /// Which constructor of its type (`fromEnum`, derived `Ord`).
    pub index: u32,
    /// Every constructor of its type, in order.
    pub siblings: Vec<ConId>,
    /// Record field names, or empty.
    pub labels: Vec<String>,
    /// `!` fields.
    pub strict: Vec<bool>,
    /// An operator constructor's precedence (for `showsPrec`).
    pub infix_prec: Option<u8>,
}

impl ConInfo {
    pub fn is_operator(&self) -> bool {
        self.name.starts_with(':')
    }
}

/// A top-level definition.
#[derive(Debug, Clone)]
pub enum GlobalDef {
    /// A function or a CAF.
    Term(Term),
    Literal(Literal),
    /// A constructor used as a value: nullary, or a function of its fields.
    Con(ConId),
}

/// The desugared program.
pub struct Program {
    pub cons: Vec<ConInfo>,
    pub globals: Vec<(String, GlobalDef)>,
    pub main: GlobalId,
    /// The library's top-level values are those numbered below this.
    pub library_end: GlobalId,
    /// Fresh local numbers start here when the lowering needs some.
    pub next_local: u32,
}
