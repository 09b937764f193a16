//! Declarations inside `let`/`where` and at top level: signatures,
//! fixity, function clauses and pattern bindings, right-hand sides
//! and guards.

use super::super::ast::*;
use super::super::lex::Tok;
use super::super::layout::Next;
use super::{Lhs, Parser, R};

impl Parser {
    // ---------------------------------------------------------------
    // Declarations

    pub(super) fn decls(&mut self) -> R<Vec<Decl>> {
        Ok(self.block(|p| p.decl())?.into_iter().flatten().collect())
    }

    /// A declaration in a `let`, `where` or at the top level.
    pub(super) fn decl(&mut self) -> R<Vec<Decl>> {
        let line = self.line();
        if let Tok::Key(k @ ("infixl" | "infixr" | "infix")) = self.tok().clone() {
            self.bump();
            let assoc = match k {
                "infixl" => Assoc::Left,
                "infixr" => Assoc::Right,
                _ => Assoc::None,
            };
            let prec = match self.tok().clone() {
                Tok::Integer(n) => {
                    self.bump();
                    u8::try_from(n).ok().filter(|p| *p <= 9).map_or_else(|| self.fail("a precedence is 0 to 9"), Ok)?
                }
                _ => 9,
            };
            let mut ops = vec![self.op_name()?];
            while self.eat(",") {
                ops.push(self.op_name()?);
            }
            return Ok(vec![Decl::Fixity { assoc, prec, ops, line }]);
        }
        // A signature: `a, b :: T` or `(+.) :: T`.
        if self.is_signature() {
            let mut names = vec![self.var_or_op()?];
            while self.eat(",") {
                names.push(self.var_or_op()?);
            }
            self.expect("::")?;
            let ty = self.type_()?;
            return Ok(vec![Decl::Sig { names, ty, line }]);
        }
        // `f p1 .. pn`, `p1 op p2`, `(op) p1 p2`, or a pattern binding.
        let lhs = self.pattern_lhs()?;
        let rhs = self.rhs("=")?;
        let wheres = if self.eat("where") { self.decls()? } else { Vec::new() };
        Ok(vec![match lhs {
            Lhs::Fun(name, pats) => Decl::Fun { name, pats, rhs, wheres, line },
            Lhs::Pat(pat) => Decl::Pat { pat, rhs, wheres, line },
        }])
    }

    pub(super) fn is_signature(&self) -> bool {
        let mut k = 0;
        loop {
            match (self.r.ahead(k), self.r.ahead(k + 1), self.r.ahead(k + 2)) {
                (Tok::VarId(_), Tok::Key("::"), _) => return self.r.next_kind() == Next::Token || self.r.next_kind() == Next::Semi,
                (Tok::VarId(_), Tok::Key(","), _) => k += 2,
                (Tok::Key("("), Tok::VarSym(_) | Tok::ConSym(_), Tok::Key(")")) => {
                    if self.r.ahead(k + 3) == &Tok::Key("::") {
                        return true;
                    }
                    if self.r.ahead(k + 3) == &Tok::Key(",") {
                        k += 4;
                        continue;
                    }
                    return false;
                }
                _ => return false,
            }
        }
    }

    pub(super) fn var_or_op(&mut self) -> R<String> {
        if self.eat("(") {
            let op = match self.bump() {
                Tok::VarSym(s) | Tok::ConSym(s) => s,
                t => return self.fail(format!("expected an operator, found {t}")),
            };
            self.expect(")")?;
            return Ok(op);
        }
        self.var_id()
    }

    pub(super) fn op_name(&mut self) -> R<String> {
        match self.bump() {
            Tok::VarSym(s) | Tok::ConSym(s) => Ok(s),
            Tok::Key("`") => {
                let n = match self.bump() {
                    Tok::VarId(s) | Tok::ConId(s) => s,
                    t => return self.fail(format!("expected a name, found {t}")),
                };
                self.expect("`")?;
                Ok(n)
            }
            Tok::Key("-") => Ok("-".into()),
            t => self.fail(format!("expected an operator, found {t}")),
        }
    }

    pub(super) fn pattern_lhs(&mut self) -> R<Lhs> {
        // `(op) p q`
        if self.is("(") && matches!(self.r.ahead(1), Tok::VarSym(_)) && self.r.ahead(2) == &Tok::Key(")") {
            self.bump();
            let Tok::VarSym(op) = self.bump() else { unreachable!() };
            self.bump();
            let mut pats = Vec::new();
            while self.starts_apat() {
                pats.push(self.apat()?);
            }
            return Ok(Lhs::Fun(op, pats));
        }
        // `f p q`: a variable followed by argument patterns or `=`/`|`.
        if let Tok::VarId(name) = self.tok().clone() {
            if !matches!(self.r.ahead(1), Tok::VarSym(_) | Tok::ConSym(_) | Tok::Key("`") | Tok::Key("@")) || self.r.ahead(1) == &Tok::VarSym("!".into()) {
                self.bump();
                let mut pats = Vec::new();
                while self.starts_apat() {
                    pats.push(self.apat()?);
                }
                return Ok(Lhs::Fun(name, pats));
            }
        }
        // `p op q` (an operator definition) or a pattern binding.
        let left = self.pat10()?;
        match self.tok().clone() {
            Tok::VarSym(op) if op != "!" => {
                self.bump();
                let right = self.pat10()?;
                Ok(Lhs::Fun(op, vec![left, right]))
            }
            Tok::Key("`") => {
                self.bump();
                let op = self.var_id()?;
                self.expect("`")?;
                let right = self.pat10()?;
                Ok(Lhs::Fun(op, vec![left, right]))
            }
            _ => {
                // The rest of an infix constructor pattern, then a binding.
                let pat = self.pat_rest(left)?;
                Ok(match pat {
                    Pat::Var(v) => Lhs::Fun(v, vec![]),
                    p => Lhs::Pat(p),
                })
            }
        }
    }

    /// `= e` or guarded `| g = e` alternatives (`sep` is `=` or `->`).
    pub(super) fn rhs(&mut self, sep: &str) -> R<Rhs> {
        if self.is("|") {
            let mut alts = Vec::new();
            while self.eat("|") {
                let mut guards = vec![self.guard()?];
                while self.eat(",") {
                    guards.push(self.guard()?);
                }
                self.expect(sep)?;
                alts.push((guards, self.expr()?));
                // Guards may continue on the block's next line only when
                // indented; a virtual `;` ends them.
            }
            return Ok(Rhs::Guarded(alts));
        }
        self.expect(sep)?;
        Ok(Rhs::Plain(self.expr()?))
    }

    pub(super) fn guard(&mut self) -> R<Guard> {
        if self.eat("let") {
            return Ok(Guard::Let(self.decls()?));
        }
        if self.looks_like_bind() {
            let line = self.line();
            let p = self.pat()?;
            self.expect("<-")?;
            let _ = line;
            return Ok(Guard::Bind(p, self.expr()?));
        }
        Ok(Guard::Bool(self.expr()?))
    }

    /// Is there a `<-` before the end of this guard or statement (at
    /// bracket depth 0)?
    pub(super) fn looks_like_bind(&self) -> bool {
        let mut depth = 0i32;
        let mut k = 0;
        loop {
            // A new line at or left of the block's column ends the look.
            if k > 0 && depth == 0 && self.r.ahead_ends_item(k) {
                return false;
            }
            match self.r.ahead(k) {
                Tok::Key("<-") if depth == 0 => return true,
                Tok::Key("(" | "[" | "{") => depth += 1,
                Tok::Key(")" | "]" | "}") => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                Tok::Key("," | "=" | "->" | "|" | ";" | "let" | "where" | "of" | "then" | "else" | "in" | "do" | "\\") if depth == 0 => return false,
                Tok::Eof => return false,
                _ => {}
            }
            k += 1;
        }
    }

}
