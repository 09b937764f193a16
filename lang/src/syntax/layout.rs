//! The layout rule: the token stream as the parser reads it, with the
//! semicolons and closing braces that indentation implies.
//!
//! Note [Layout in the token reader]
//! ----------------------------------------
//! Haskell 2010 (section 10.3) defines layout as a function `L` over the
//! tokens with a stack of contexts, and one clause, `parse-error(t)`, that
//! closes an implicit block when the parser cannot go on. Here the stack
//! lives in the reader: the parser opens an implicit block after `where`,
//! `let`, `do` and `of` (`open_block`), and `peek` answers a virtual `;`
//! for a token that starts a line at the block's column, and a virtual
//! close for one to the left of it, before the token itself. The
//! `parse-error(t)` clause is the parser's: a block item followed by a
//! token that cannot continue it (`in`, `)`, `,`, `then`, `of`, ...) ends
//! the block (`close_block`). This covers the layouts programs write
//! (`let ... in` on one line, a `case` inside parentheses, `if` inside
//! `do` with `then` at the statement's column) without backtracking.

use super::lex::{Tok, Token};

/// A layout context: an explicit `{ }` block, or an implicit one at a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Explicit,
    Implicit(u32),
}

/// What the parser sees next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// A virtual `;` (a new line at the block's column).
    Semi,
    /// A virtual `}` (a line to the left of the block's column, or the end).
    Close,
    /// The real token at the reader's position.
    Token,
}

/// Tokens and layout contexts.
pub struct Reader {
    toks: Vec<Token>,
    pos: usize,
    ctx: Vec<Ctx>,
    /// The position whose virtual `;` was already taken (or must not be
    /// given: the first token of a block).
    semi_taken: Option<usize>,
}

impl Reader {
    pub fn new(toks: Vec<Token>) -> Reader {
        Reader { toks, pos: 0, ctx: Vec::new(), semi_taken: None }
    }

    /// The real token at the position.
    pub fn token(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    /// The real token `k` past the position (no layout applied).
    pub fn ahead(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    /// The line of the real token `k` past the position.
    pub fn line_ahead(&self, k: usize) -> u32 {
        self.toks[(self.pos + k).min(self.toks.len() - 1)].line
    }

    /// Does the real token `k` past the position start a new item of the
    /// innermost implicit block, or end it (a line at or left of its
    /// column)?
    pub fn ahead_ends_item(&self, k: usize) -> bool {
        let t = &self.toks[(self.pos + k).min(self.toks.len() - 1)];
        match self.ctx.last() {
            Some(Ctx::Implicit(col)) => t.first_on_line && t.col <= *col,
            _ => false,
        }
    }

    /// What comes next, with layout applied.
    pub fn next_kind(&self) -> Next {
        let t = self.token();
        if let Some(Ctx::Implicit(col)) = self.ctx.last().copied() {
            if t.tok == Tok::Eof {
                return Next::Close;
            }
            if t.first_on_line {
                if t.col < col {
                    return Next::Close;
                }
                if t.col == col && self.semi_taken != Some(self.pos) {
                    return Next::Semi;
                }
            }
        }
        Next::Token
    }

    /// Take a virtual `;`.
    pub fn take_semi(&mut self) {
        self.semi_taken = Some(self.pos);
    }

    /// Take the real token.
    pub fn advance(&mut self) -> Token {
        let t = self.token().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    /// Open a block: explicit if the next token is `{` (taken), else
    /// implicit at the next token's column. Returns whether explicit.
    pub fn open_block(&mut self) -> bool {
        if self.token().tok == Tok::Key("{") {
            self.advance();
            self.ctx.push(Ctx::Explicit);
            return true;
        }
        let t = self.token();
        let enclosing = self.ctx.iter().rev().find_map(|c| match c {
            Ctx::Implicit(c) => Some(*c),
            Ctx::Explicit => None,
        });
        // A block that starts no further right than the enclosing one, or
        // at the end, is empty (`L` pushes the column and closes at once).
        let col = if t.tok == Tok::Eof || enclosing.is_some_and(|e| t.col <= e) { u32::MAX } else { t.col };
        self.ctx.push(Ctx::Implicit(col));
        self.semi_taken = Some(self.pos);
        false
    }

    /// Close the innermost block (the parser has seen its end).
    pub fn close_block(&mut self) {
        self.ctx.pop();
    }

    /// Is the innermost block implicit?
    pub fn in_implicit(&self) -> bool {
        matches!(self.ctx.last(), Some(Ctx::Implicit(_)))
    }
}
