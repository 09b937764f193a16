//! The parser: tokens (through the layout reader) to a `Module`. A
//! recursive descent over Haskell 2010's grammar, less type classes of
//! the program's own, which are refused with the line (See the crate doc
//! for the subset). Expressions and patterns keep their infix chains flat
//! for `fixity` to resolve.

use super::ast::*;
use super::layout::{Next, Reader};
use super::lex::{lex, SyntaxError, Tok};

mod decl;
mod expr;
mod module;
mod pat;
mod types;

pub(super) type R<T> = Result<T, SyntaxError>;

/// Parse a module's source.
pub fn parse_module(src: &str) -> R<Module> {
    let mut p = Parser { r: Reader::new(lex(src)?), depth: 0 };
    p.module()
}

/// Parse one expression (tests and the REPL-like tools).
pub fn parse_expr(src: &str) -> R<Expr> {
    let mut p = Parser { r: Reader::new(lex(src)?), depth: 0 };
    let e = p.expr()?;
    if p.tok() != &Tok::Eof {
        return p.fail(format!("unexpected {} after the expression", p.tok()));
    }
    Ok(e)
}

pub(super) struct Parser {
    pub(super) r: Reader,
    /// Expressions, patterns and types being parsed inside each other.
    depth: u32,
}

/// The deepest nesting of expressions, patterns and types the parser
/// takes: deeper input is refused rather than run out of stack.
const MAX_DEPTH: u32 = 1000;

/// Tokens that end an implicit block item by the `parse-error(t)` rule.
pub(super) fn closes_implicit(t: &Tok) -> bool {
    matches!(t, Tok::Key("in" | ")" | "]" | "," | "then" | "else" | "of" | "}" | "where") | Tok::Eof)
}

impl Parser {
    // ---------------------------------------------------------------
    // Tokens

    /// The next real token, or `;`/`}` for a virtual one.
    /// Parse `f` one level deeper, refusing input nested past `MAX_DEPTH`.
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_DEPTH {
            return self.fail(format!("expressions, patterns or types nested more than {MAX_DEPTH} deep"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    pub(super) fn tok(&self) -> &Tok {
        match self.r.next_kind() {
            Next::Semi => &Tok::Key(";"),
            Next::Close => &Tok::Key("}v"),
            Next::Token => &self.r.token().tok,
        }
    }

    pub(super) fn line(&self) -> u32 {
        self.r.token().line
    }

    pub(super) fn fail<T>(&self, message: impl Into<String>) -> R<T> {
        Err(SyntaxError { line: self.line(), message: message.into() })
    }

    pub(super) fn is(&self, k: &str) -> bool {
        self.tok() == &Tok::Key(leak(k))
    }

    pub(super) fn bump(&mut self) -> Tok {
        match self.r.next_kind() {
            Next::Semi => {
                self.r.take_semi();
                Tok::Key(";")
            }
            Next::Close => Tok::Key("}v"),
            Next::Token => self.r.advance().tok,
        }
    }

    pub(super) fn eat(&mut self, k: &str) -> bool {
        if self.is(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, k: &str) -> R<()> {
        if self.eat(k) {
            Ok(())
        } else {
            self.fail(format!("expected `{k}', found {}", self.describe()))
        }
    }

    pub(super) fn describe(&self) -> String {
        match self.tok() {
            Tok::Key("}v") => "the end of a layout block (check the indentation)".into(),
            Tok::Key(";") if self.r.next_kind() == Next::Semi => "a new line at the block's indentation".into(),
            t => t.to_string(),
        }
    }

    pub(super) fn var_id(&mut self) -> R<String> {
        match self.tok().clone() {
            Tok::VarId(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.fail(format!("expected a variable name, found {}", self.describe())),
        }
    }

    pub(super) fn con_id(&mut self) -> R<String> {
        match self.tok().clone() {
            Tok::ConId(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.fail(format!("expected a constructor or type name, found {}", self.describe())),
        }
    }

    /// A block of items: `{ i; i }` or an implicit one (See Note [Layout
    /// in the token reader]).
    pub(super) fn block<T>(&mut self, mut item: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let explicit = self.r.open_block();
        let mut items = Vec::new();
        loop {
            while self.is(";") {
                self.bump();
            }
            if explicit && self.eat("}") {
                self.r.close_block();
                return Ok(items);
            }
            if !explicit && (self.is("}v") || closes_implicit(self.tok())) {
                self.r.close_block();
                return Ok(items);
            }
            items.push(item(self)?);
            if self.is(";") {
                continue;
            }
            if explicit {
                self.expect("}")?;
                self.r.close_block();
                return Ok(items);
            }
            if self.is("}v") || closes_implicit(self.tok()) {
                self.r.close_block();
                return Ok(items);
            }
            return self.fail(format!("unexpected {} (check the indentation)", self.describe()));
        }
    }
}

pub(super) enum Top {
    Import(Import),
    Decls(Vec<Decl>),
}

pub(super) enum Lhs {
    Fun(String, Vec<Pat>),
    Pat(Pat),
}

/// The keyword table's own `&'static str` for `k` (keys compare by value).
pub(super) fn leak(k: &str) -> &'static str {
    const KEYS: &[&str] = &[
        "case", "class", "data", "default", "deriving", "do", "else", "foreign", "if", "import", "in", "infix", "infixl", "infixr", "instance", "let", "module", "newtype", "of", "then", "type", "where", "_", "..", ":", "::", "=", "\\", "|", "<-", "->", "@",
        "~", "=>", "(", ")", ",", ";", "[", "]", "`", "{", "}", "}v",
    ];
    KEYS.iter().find(|x| **x == k).copied().unwrap_or("")
}
